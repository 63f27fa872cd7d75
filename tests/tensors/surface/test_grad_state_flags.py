"""The gradient flags of a storage tensor are the bools PyTorch gives (`requires_grad`, `retains_grad`),
also once its gradient state exists (a write, a recorded result); a refused leaf write says what to do."""

from __future__ import annotations

import re

import pytest

import lazytensor as lt


def test_requires_grad_is_false_not_none_after_a_write_made_the_gradient_state() -> None:
    t = lt.arange(3.0) * 2  # a result: no gradient state until something needs one
    t[0] = 1.0  # a write checks and counts in the gradient state, which makes it
    assert t.version == 1
    assert t.requires_grad is False and t.T.requires_grad is False
    assert t.retains_grad is False


def test_a_detached_tensor_requires_no_grad() -> None:
    w = lt.ones(2, requires_grad=True)
    for detached in (w.detach(), (w * 2).detach(), w.T.detach()):
        assert detached.requires_grad is False and detached.retains_grad is False
        assert detached.grad is None and detached.grad_fn is None


def test_retains_grad_is_a_bool_on_a_recorded_result() -> None:
    w = lt.ones(2, requires_grad=True)
    h = w * 3
    assert h.requires_grad is True and h.retains_grad is False
    h.retain_grad()
    assert h.retains_grad is True
    assert w.retains_grad is False  # a leaf keeps its gradient anyway, as in PyTorch


def test_a_refused_leaf_write_says_to_write_under_no_grad() -> None:
    x = lt.tensor([1.0, 2.0], requires_grad=True)
    message = (
        "a leaf tensor of shape (2,) that requires grad, or a view of it, is being written in place; "
        "do it inside lt.no_grad() (as an optimiser step does)"
    )
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        x[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    with lt.no_grad():
        x[0] = 5.0
    assert x.tolist() == [5.0, 2.0]


def test_an_integer_or_bool_result_requires_no_grad_as_in_pytorch() -> None:
    w = lt.tensor([0.5, -1.5], requires_grad=True)
    for result in (lt.astype(w, "int64"), w.astype(lt.int32), lt.astype(w, lt.bool), w > 0, lt.argmax(w)):
        assert result.requires_grad is False and result.grad_fn is None
    assert lt.astype(w, "float32").requires_grad is True  # a float cast keeps its gradient

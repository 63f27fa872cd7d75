"""Gradients you can trust: what used to give a silently wrong gradient now gives the right one or
a clear error (version counters as PyTorch has them), and misuse is named at once."""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt
from lazytensor import nn, optim

MODIFIED = "modified by an inplace operation"


def test_writing_into_a_leaf_that_requires_grad_raises_outside_no_grad() -> None:
    x = lt.tensor([1.0, 2.0], requires_grad=True)
    for write in (lambda: x.__setitem__(0, 10.0), lambda: x.T.__setitem__(0, 0.0), lambda: x.set((1,), 3.0)):
        with pytest.raises(RuntimeError, match=r"leaf tensor of shape \(2,\) that requires grad"):
            write()
    assert x.tolist() == [1.0, 2.0]  # a refused write changes nothing


def test_a_leaf_changed_under_no_grad_after_it_was_saved_is_caught() -> None:
    x = lt.tensor([1.0, 2.0], requires_grad=True)
    z = (x * x).sum()
    with lt.no_grad():
        x[0] = 10.0
    with pytest.raises(
        RuntimeError, match=rf"{MODIFIED}: the input 0 \(shape \(2,\)\) of mul is at version 1"
    ):
        z.backward()


def test_a_changed_result_of_exp_is_caught() -> None:
    x = lt.tensor([0.5, 1.5], requires_grad=True)
    y = x.exp()
    z = y.sum()  # sum saves y too
    y[1] = 0.0
    with pytest.raises(RuntimeError, match=MODIFIED):
        z.backward()


def test_an_intermediate_changed_through_a_view_is_caught() -> None:
    x = lt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    h = x * 2
    z = (h * h).sum()
    h.T[0] = 0.0
    with pytest.raises(RuntimeError, match=r"mul is at version 1; expected version 0"):
        z.backward()


def test_an_intermediate_written_before_use_is_a_clear_error_not_a_wrong_gradient() -> None:
    x = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    h[0] = 100.0
    with pytest.raises(RuntimeError, match=r"the output \(shape \(3,\)\) of mul is at version 1"):
        (h * h).sum().backward()


def test_an_unchanged_graph_still_differentiates_and_optimisers_bump_versions() -> None:
    w = lt.tensor([3.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    opt.step()
    assert w.version == 1 and w.tolist() == [2.4, -1.6]
    with pytest.raises(RuntimeError, match=MODIFIED):
        loss.backward()  # the step changed w, which this graph saved
    opt.zero_grad()
    (w * w).sum().backward()  # a graph built after the step is fine
    assert w.grad is not None and w.grad.tolist() == [4.8, -3.2]
    assert w.detach().version == 1  # a detached tensor shares the buffer's count


@pytest.mark.parametrize("dtype", ["int64", "bool", "object", "<U3"])
def test_requires_grad_only_on_floating_and_complex_tensors(dtype: str) -> None:
    values = np.array([1, 0]).astype(dtype)
    with pytest.raises(
        TypeError, match=f"only floating and complex tensors can require gradients, not dtype {dtype}"
    ):
        lt.tensor(values, requires_grad=True)
    assert lt.tensor([1 + 2j], requires_grad=True).requires_grad


def test_every_operation_records_a_node() -> None:
    w = lt.tensor([[1.0, 2.0], [3.0, 4.5]], requires_grad=True)
    results = [w.var(), w.std(0), w.prod(), lt.maximum(w, 2), lt.minimum(w, 2), w.max(1), w.clip(0, 3)]
    assert all(r.requires_grad for r in results)


def test_backward_checks_the_gradient_shape() -> None:
    out = lt.tensor([1.0, 2.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"gradient has shape \(3,\) but the tensor .* has shape \(2,\)"):
        out.backward(lt.ones(3))


def test_optimisers_take_only_leaves_that_require_grad() -> None:
    w = lt.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="result of an operation"):
        optim.SGD([w * 2], lr=0.1)
    with pytest.raises(
        ValueError, match=r"leaf storage tensors that require grad; got a StorageTensor of shape \(1,\)"
    ):
        optim.Adam([lt.tensor([1.0])])


def test_cross_entropy_checks_its_labels() -> None:
    logits = lt.tensor([[0.0, 1.0], [1.0, 0.0]], requires_grad=True)
    with pytest.raises(IndexError, match="label -1 at position 1 is out of range for 2 classes"):
        nn.cross_entropy(logits, [0, -1])
    with pytest.raises(IndexError, match="label 2 at position 0"):
        nn.cross_entropy(logits, [2, 0])
    with pytest.raises(TypeError, match="labels must be integers, got dtype float64"):
        nn.cross_entropy(logits, [0.0, 1.0])
    with pytest.raises(ValueError, match=r"needs 2 labels for logits of shape \(2, 2\), got \(3,\)"):
        nn.cross_entropy(logits, [0, 1, 1])
    assert nn.cross_entropy(logits, lt.tensor([1, 0])).item() == pytest.approx(0.3132616875)

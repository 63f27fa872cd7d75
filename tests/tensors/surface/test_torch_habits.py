"""PyTorch's habits at the autograd boundary (issue 27, item 4): assigning `.grad`, `grad.zero_()`
and the in-place `*_` methods, `is_leaf`, `grad_fn`, `enable_grad`, `inference_mode`,
`requires_grad_()`, `retain_grad()`; and an element of a tensor that requires grad keeps its
gradient (the `x[i]` decision of docs/numpy.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt


def test_grad_can_be_cleared_and_assigned() -> None:
    w = lt.ones(2, requires_grad=True)
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    w.grad = None
    assert w.grad is None
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]  # accumulation starts again from nothing
    w.grad = lt.tensor([1.0, 5.0])
    (w * 2).sum().backward()
    assert w.grad.tolist() == [3.0, 7.0]
    w.grad = np.array([1, 2])  # numbers of any kind, as the leaf's floating dtype
    assert w.grad.dtype == np.float64 and w.grad.tolist() == [1.0, 2.0]


def test_a_grad_of_another_shape_is_refused_naming_both_shapes() -> None:
    w = lt.ones(2, 3, requires_grad=True)
    with pytest.raises(
        ValueError, match=r"assigned grad has shape \(3, 2\), but the tensor has shape \(2, 3\)"
    ):
        w.grad = lt.ones(3, 2)
    assert w.grad is None


def test_an_assigned_grad_is_a_copy_of_the_values_given() -> None:
    w = lt.ones(2, requires_grad=True)
    given = np.array([1.0, 2.0])
    w.grad = given
    given[0] = 100.0  # the caller's array is theirs: the gradient does not follow it
    assert w.grad.tolist() == [1.0, 2.0]


def test_a_grad_assigned_to_an_integer_tensor_is_float64() -> None:
    n = lt.tensor([1, 2])
    n.grad = [3, 4]
    assert n.grad.dtype == np.float64 and n.grad.tolist() == [3.0, 4.0]


def test_a_grad_of_strings_is_refused_naming_its_dtype() -> None:
    w = lt.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"assigned grad has dtype <U1: a gradient is made of numbers"):
        w.grad = np.array(["a", "b"])
    assert w.grad is None


def test_other_attributes_stay_frozen() -> None:
    t = lt.ones(2)
    with pytest.raises(AttributeError):
        t.buffer = np.zeros(2)  # type: ignore[misc]


def test_zero_grad_between_steps_as_a_pytorch_loop_does() -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        if w.grad is not None:
            w.grad.zero_()
        loss = (w * w).sum()
        loss.backward()
        with lt.no_grad():
            w.sub_(w.grad, alpha=0.25)
    np.testing.assert_allclose(w.numpy(), [0.125, 0.25])


IN_PLACE: dict[str, tuple[Callable[[Any], Any], Callable[[np.ndarray], np.ndarray]]] = {
    "add_": (lambda t: t.add_(2.0), lambda a: a + 2.0),
    "add_ alpha": (lambda t: t.add_(lt.ones(3), alpha=-3), lambda a: a - 3.0),
    "sub_": (lambda t: t.sub_(1.5), lambda a: a - 1.5),
    "mul_": (lambda t: t.mul_([1.0, 2.0, 3.0]), lambda a: a * [1.0, 2.0, 3.0]),
    "div_": (lambda t: t.div_(4.0), lambda a: a / 4.0),
    "pow_": (lambda t: t.pow_(2), lambda a: a**2),
    "neg_": (lambda t: t.neg_(), lambda a: -a),
    "clamp_": (lambda t: t.clamp_(0.0, 1.5), lambda a: np.clip(a, 0.0, 1.5)),
    "clamp_ min": (lambda t: t.clamp_(min=1.0), lambda a: np.maximum(a, 1.0)),
    "fill_": (lambda t: t.fill_(7.0), lambda a: np.full_like(a, 7.0)),
    "zero_": (lambda t: t.zero_(), np.zeros_like),
    "copy_": (lambda t: t.copy_(lt.tensor([9.0, 8.0, 7.0])), lambda a: np.array([9.0, 8.0, 7.0])),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_methods_write_through_and_return_the_tensor(name: str) -> None:
    method, reference = IN_PLACE[name]
    storage = lt.tensor([[0.5, -1.0, 2.0], [3.0, 4.0, 5.0]])
    view = storage.T[::-1, 0]  # a view: the values land in the storage below
    before = view.numpy().copy()
    assert method(view) is view
    np.testing.assert_allclose(view.numpy(), reference(before))
    np.testing.assert_allclose(storage.numpy()[1], [3.0, 4.0, 5.0])


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_methods_on_a_leaf_that_requires_grad_only_under_no_grad(name: str) -> None:
    method, reference = IN_PLACE[name]
    w = lt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf tensor of shape"):
        method(w)
    assert w.tolist() == [0.5, -1.0, 2.0]  # a refused write changes nothing
    with lt.no_grad():
        method(w)
    np.testing.assert_allclose(w.numpy(), reference(np.array([0.5, -1.0, 2.0])))
    assert w.requires_grad and w.is_leaf


def test_in_place_on_a_result_in_the_graph_is_refused() -> None:
    w = lt.ones(2, requires_grad=True)
    h = w * 2
    with pytest.raises(RuntimeError, match="not differentiable"):
        h.add_(1)


def test_is_leaf_as_pytorch() -> None:
    w = lt.ones(2, 2, requires_grad=True)
    assert w.is_leaf and lt.ones(2).is_leaf and (lt.ones(2) * 2).is_leaf
    assert not (w * 2).is_leaf and not w.T.is_leaf and not w[0].is_leaf
    assert w.detach().is_leaf


def test_grad_fn_names_the_operation_and_leads_to_the_operands() -> None:
    w = lt.ones(2, 2, requires_grad=True)
    b = lt.ones(2, requires_grad=True)
    y = (w.T @ b / 2).sum()
    assert w.grad_fn is None and lt.ones(2).grad_fn is None
    assert y.grad_fn.name == "SumBackward0"
    ((div, _),) = y.grad_fn.next_functions
    assert div.name == "DivBackward0"
    (matmul, _), (scalar, _) = div.next_functions
    assert matmul.name == "MatmulBackward0" and scalar is None
    (transposed, _), (accumulate_b, _) = matmul.next_functions
    assert transposed.name == "TransposedBackward0"
    assert accumulate_b.name == "AccumulateGrad" and accumulate_b.variable is b
    ((accumulate_w, index),) = transposed.next_functions
    assert accumulate_w.variable is w and index == 0
    assert repr(y.grad_fn) == "<SumBackward0>"


def test_grad_fn_names_an_operation_of_several_words_in_pytorchs_camel_case() -> None:
    w = lt.ones(2, 3, requires_grad=True)
    assert w.log_softmax(1).grad_fn.name == "LogSoftmaxBackward0"


def test_enable_grad_inside_no_grad_and_inference_mode() -> None:
    w = lt.ones(2, requires_grad=True)
    with lt.no_grad():
        assert not (w * 2).requires_grad
        with lt.enable_grad():
            assert (w * 2).requires_grad
        assert not (w * 2).requires_grad
    with lt.inference_mode():
        assert not (w * 2).requires_grad
    with lt.inference_mode(False):
        assert (w * 2).requires_grad

    @lt.no_grad()
    def evaluate() -> bool:
        return (w * 2).requires_grad

    @lt.enable_grad()
    def train() -> bool:
        return (w * 2).requires_grad

    assert not evaluate()
    with lt.no_grad():
        assert train()


def test_inference_mode_false_changes_nothing_even_inside_no_grad() -> None:
    """`inference_mode(False)` leaves recording as it found it: off inside `no_grad()` or
    `inference_mode()`, on outside them; as a context manager and as a decorator. (A planted bug that
    turned recording back on inside `no_grad()` once survived the suite, #41.)"""
    w = lt.ones(2, requires_grad=True)

    @lt.inference_mode(False)
    def doubled() -> lt.AbstractTensor:
        return w * 2

    for outer in (lt.no_grad, lt.inference_mode):
        with outer():
            with lt.inference_mode(False):
                assert lt.is_grad_enabled() is False
                assert not (w * 2).requires_grad
            assert not doubled().requires_grad
            with lt.enable_grad(), lt.inference_mode(False):
                assert (w * 2).requires_grad
            assert lt.is_grad_enabled() is False
    with lt.inference_mode(False):
        assert (w * 2).requires_grad
    assert doubled().requires_grad and lt.is_grad_enabled() is True


def test_requires_grad_underscore_returns_the_leaf() -> None:
    w = lt.zeros(3)
    assert w.requires_grad_() is w and w.requires_grad
    assert w.requires_grad_(False) is w and not w.requires_grad


def test_retain_grad_keeps_a_results_gradient() -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    unkept = w * 5
    h.retain_grad()
    (h * h + unkept).sum().backward()
    assert h.grad.tolist() == [6.0, 12.0]  # d/dh of h^2
    assert unkept.grad is None
    assert w.grad.tolist() == [23.0, 41.0]
    with pytest.raises(ValueError, match="retain_grad applies to storage tensors"):
        w.T.retain_grad()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.data())
def test_an_element_of_a_tensor_that_requires_grad_keeps_its_gradient(size: int, data: st.DataObject) -> None:
    w = lt.tensor(np.arange(1.0, size + 1.0), requires_grad=True)
    i = data.draw(st.integers(-size, size - 1))
    element = w[i]
    assert isinstance(element, lt.AbstractTensor) and element.shape == ()
    (element * element).backward()
    expected = np.zeros(size)
    expected[i] = 2 * w.numpy()[i]
    np.testing.assert_allclose(w.grad.numpy(), expected)
    with lt.no_grad():
        assert isinstance(w[i], lt.AbstractTensor) and w[i].shape == ()  # a 0-d tensor, as PyTorch's
    assert not w.detach()[i].requires_grad


def test_is_grad_enabled_says_what_the_context_managers_set() -> None:
    assert lt.is_grad_enabled() is True
    with lt.no_grad():
        assert lt.is_grad_enabled() is False
        with lt.enable_grad():
            assert lt.is_grad_enabled() is True
        with lt.inference_mode():
            assert lt.is_grad_enabled() is False
    with lt.inference_mode(False):
        assert lt.is_grad_enabled() is True
    assert lt.is_grad_enabled() is True

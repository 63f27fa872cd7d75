"""Gradients: every differentiable operation and every view against central finite differences."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import chains

import lazytensor as lt
from lazytensor import nn, optim


def numeric_grad(f: Callable[[], float], values: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of `f` with respect to `values`, changed in place and restored."""
    grad = np.zeros(values.shape)
    for index in np.ndindex(*values.shape):
        saved = values[index]
        values[index] = saved + eps
        up = f()
        values[index] = saved - eps
        down = f()
        values[index] = saved
        grad[index] = (up - down) / (2 * eps)
    return grad


def check(
    fn: Callable[..., lt.AbstractTensor], *inputs: np.ndarray, seed: int = 0, eps: float = 1e-6
) -> None:
    """backward() of sum(fn(*leaves) * weights) matches finite differences for every leaf."""
    leaves = [lt.tensor(x, requires_grad=True) for x in inputs]
    out = fn(*leaves)
    weights = np.random.default_rng(seed).normal(size=out.shape)
    lt.AbstractTensor.sum(operator.mul(out, weights)).backward()

    def loss() -> float:
        with lt.no_grad():
            return float((np.asarray(fn(*leaves).numpy()) * weights).sum())

    for leaf in leaves:
        expected = numeric_grad(loss, leaf.storage.reshape(leaf.shape), eps)
        assert leaf.grad is not None
        np.testing.assert_allclose(leaf.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


rng = np.random.default_rng(42)


def normal(*shape: int) -> np.ndarray:
    return rng.normal(size=shape)


def positive(*shape: int) -> np.ndarray:
    return rng.uniform(0.5, 2.0, size=shape)


BINARY = [operator.add, operator.sub, operator.mul, operator.truediv]
BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 3)), ((4, 1, 3), (2, 1))]


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("shape_a", "shape_b"), BROADCAST_SHAPES)
def test_arithmetic_with_broadcasting(op, shape_a, shape_b) -> None:
    check(op, normal(*shape_a), positive(*shape_b))


def test_power_and_neg() -> None:
    check(operator.pow, positive(3, 2), normal(2))
    check(lambda a: operator.pow(a, 3.0), normal(4))
    check(operator.neg, normal(2, 3))


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (3, 4)),
        ((2, 1, 2, 3), (4, 3, 2)),
    ],
)
def test_matmul(shape_a, shape_b) -> None:
    check(operator.matmul, normal(*shape_a), normal(*shape_b))


@pytest.mark.parametrize(
    ("fn", "make"),
    [
        (lt.AbstractTensor.exp, normal),
        (lt.AbstractTensor.log, positive),
        (lt.AbstractTensor.sqrt, positive),
        (lt.AbstractTensor.tanh, normal),
        (lt.AbstractTensor.sigmoid, normal),
        (lt.AbstractTensor.relu, normal),
        (lt.AbstractTensor.abs, normal),
        (lambda t: t.clip(-0.5, 0.7), normal),
        (lambda t: t.softmax(1), normal),
        (lambda t: t.log_softmax(0), normal),
        (lambda t: t.softmax(-1), normal),
    ],
)
def test_elementwise_and_softmax(fn, make) -> None:
    check(fn, make(3, 4))


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 2), -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize(
    "fn",
    [lt.AbstractTensor.sum, lt.AbstractTensor.mean, lt.AbstractTensor.max, lt.AbstractTensor.min],
    ids=lambda f: f.__name__,
)
def test_reductions(fn, dim, keepdim) -> None:
    check(lambda t: fn(t, dim, keepdim), normal(2, 3, 4))


def test_max_splits_the_gradient_among_ties() -> None:
    t = lt.tensor([1.0, 3.0, 3.0], requires_grad=True)
    t.max().backward()
    assert t.grad is not None and t.grad.tolist() == [0.0, 0.5, 0.5]


def test_where() -> None:
    condition = normal(3, 4) > 0
    check(lambda a, b: lt.where(condition, a, b), normal(3, 4), normal(4))


def test_gather_index_add_scatter_add() -> None:
    index = np.array([[0, 2, 1], [2, 2, 0]])
    check(lambda t: t.gather(0, index), normal(3, 3))
    check(lambda t, s: t.index_add(0, np.array([2, 0, 2]), s), normal(3, 2), normal(3, 2))
    check(lambda t, s: t.index_add(1, np.array([1, 1]), s), normal(3, 2), normal(3, 2))
    check(lambda t, s: t.scatter_add(1, index, s), normal(2, 3), normal(2, 4))


def test_cat_and_stack() -> None:
    check(lambda a, b: lt.cat([a, b], 1), normal(2, 3), normal(2, 1))
    check(lambda a, b: lt.stack([a, b], -1), normal(2, 3), normal(2, 3))


@settings(max_examples=60, deadline=None)
@given(chains(max_steps=3), st.integers(0, 1000))
def test_every_view_chain_differentiates(chain, seed) -> None:
    """One rule for every wrapper: repeated positions accumulate, expanded ones sum."""
    shape, ops = chain
    values = np.random.default_rng(seed).normal(size=shape)

    def views(leaf: lt.AbstractTensor) -> lt.AbstractTensor:
        for _, step, _, _ in ops:
            leaf = step(leaf)
        return leaf

    check(views, values, seed=seed, eps=0.5)  # views are linear: a large step is exact


def test_views_of_results_and_shared_leaves() -> None:
    def fn(a: lt.AbstractTensor) -> lt.AbstractTensor:
        h = operator.matmul(a, a.T)  # a used twice, once through a view
        return h[[0, 0, 2]].relu()[:, ::-1]

    check(fn, normal(3, 2))


def test_backward_needs_a_scalar_or_a_gradient() -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    out = operator.mul(w, w)
    with pytest.raises(RuntimeError, match="not a scalar"):
        out.backward()
    with pytest.raises(RuntimeError, match=r"gradient has shape \(3,\) but .* has shape \(2,\)"):
        out.backward(lt.ones(3))
    out.backward(lt.tensor([1.0, 1.0]), retain_graph=True)
    assert w.grad is not None and w.grad.tolist() == [2.0, 4.0]
    out.backward([1.0, 0.0])  # gradients accumulate
    assert w.grad.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="backward through mul a second time"):
        out.backward([1.0, 0.0])  # the graph was freed by the last backward
    with pytest.raises(RuntimeError, match="does not require grad"):
        lt.tensor([1.0]).backward()


def test_no_grad_and_detach() -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    with lt.no_grad():
        assert not operator.mul(w, 2.0).requires_grad
    assert operator.mul(w, 2.0).requires_grad
    assert w.T.requires_grad and not w.T.detach().requires_grad
    assert w.detach().shares_storage(w)
    with pytest.raises(ValueError, match="leaves"):
        operator.mul(w, 2.0).requires_grad_()


def test_dropout_glorot_and_cross_entropy() -> None:
    labels = np.array([0, 2])
    check(lambda logits: nn.cross_entropy(logits, labels), normal(2, 3))
    mask = nn.dropout_mask((1000,), 0.3, seed=1)
    assert set(np.unique(mask)) == {0.0, 1 / 0.7}
    check(lambda t: nn.dropout(t, 0.5, seed=3), normal(4, 2))
    w = nn.glorot_uniform(100, 50, seed=0)
    assert w.requires_grad and np.abs(w.numpy()).max() <= np.sqrt(6 / 150)


def test_optimisers_reduce_a_quadratic() -> None:
    for make in (lambda p: optim.SGD(p, lr=0.1, momentum=0.9), lambda p: optim.Adam(p, lr=0.1)):
        w = lt.tensor([3.0, -2.0], requires_grad=True)
        opt = make([w])
        for _ in range(200):
            opt.zero_grad()
            lt.AbstractTensor.sum(operator.mul(w, w)).backward()
            opt.step()
        assert np.abs(w.numpy()).max() < 1e-2


def test_adam_weight_decay_per_group() -> None:
    a = lt.tensor([1.0], requires_grad=True)
    b = lt.tensor([1.0], requires_grad=True)
    opt = optim.Adam([{"params": [a], "weight_decay": 0.5}, {"params": [b]}], lr=0.1)
    lt.AbstractTensor.sum(operator.add(operator.mul(a, 0.0), operator.mul(b, 0.0))).backward()
    opt.step()
    assert a.item() < 1.0 and b.item() == 1.0
    with pytest.raises(TypeError, match="unknown optimiser options"):
        optim.Adam([{"params": [a], "momentum": 0.9}])


def test_operator_syntax_methods_and_ufuncs_record_gradients() -> None:
    weights = np.array([[1.0, -2.0], [0.5, 3.0]])

    def model(a: lt.AbstractTensor, b: lt.AbstractTensor) -> lt.AbstractTensor:
        h = ((a @ b).relu() * 2 - a.sum(1, keepdim=True) / 3 + weights * a[:, 1:][:, ::-1]) ** 2
        return np.exp(-h.mean(0)).softmax(0).log() + lt.where(h.max(1) > 1, h.max(1), h.min(1)).tanh()

    check(model, normal(2, 3), normal(3, 2))


# -- the backward walk: retain_graph, shared operands, complex views, operands without gradients ---------


def test_a_second_backward_names_retain_graph() -> None:
    w = lt.ones(2, requires_grad=True)
    y = (w * 2).sum()
    y.backward()
    expected = "after the first backward; pass retain_graph=True to the first backward() to keep them"
    with pytest.raises(RuntimeError, match=r"were freed " + re.escape(expected) + "$"):
        y.backward()


def test_a_tensor_used_directly_and_through_another_gets_one_backward_step() -> None:
    """`x` is used by `c` directly and through `a`: the backward pass must reach `x` once, after
    both, or `x`'s own backward rule would run twice (its saved values are freed after one run)."""
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    x = w * 3
    a = x * 2
    c = x + a  # c = 9 w
    c.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [9.0, 9.0])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_gradients_flow_through_views(dtype: type) -> None:
    w = lt.tensor(np.array([1 + 1j, 2, 3], dtype=dtype), requires_grad=True)
    (w[[0, 2, 2]] * (2 + 1j)).sum().backward()
    assert w.grad.dtype == dtype
    np.testing.assert_allclose(w.grad.numpy(), [2 + 1j, 0, 4 + 2j])
    # positions that receive nothing at the end, an imaginary part other than 1
    v = lt.tensor(np.zeros(4, dtype=dtype), requires_grad=True)
    (v[[0, 0, 1]] * (2 + 3j)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [4 + 6j, 2 + 3j, 0, 0])


def test_a_condition_that_requires_grad_gets_none_and_stops_nothing() -> None:
    """`where`'s rule gives no gradient to its condition: the backward pass must pass over a tensor
    that received nothing and go on to the others."""
    c = lt.tensor([1.0, 0.0, 2.0], requires_grad=True)
    a = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lt.where(c, a * 2, 0.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 0.0, 2.0])
    assert c.grad is None
    b = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lt.where(c * 1, 0.0, b * 3).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 3.0, 0.0])


def test_an_operand_made_to_require_grad_later_gets_nothing_from_earlier_operations() -> None:
    """As in PyTorch: `cat` recorded `x` as not needing a gradient, so `x` (made a trainable leaf
    afterwards) gets only what later operations send it, though `cat`'s rule splits for every operand."""
    w = lt.ones(2, requires_grad=True)
    x = lt.ones(2)
    joined = lt.cat([w, x])
    x.requires_grad_(True)
    (joined.sum() + (x * 3).sum()).backward()
    assert w.grad.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [3.0, 3.0]

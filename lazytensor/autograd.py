"""Reverse-mode automatic differentiation over lazytensor's operations and views.

An operation's result remembers a `Node`: its inputs and the rule that sends
its gradient back to them. Views need no node at all: the input of a view is
the tensor it wraps, and one rule serves every wrapper — send the view's
positions one layer down with `translate_batch` and scatter-add the gradient
there — so list-indexed, expanded and reshaped views differentiate too, and
repeated positions accumulate.

Each operation below states its forward and its backward next to each other,
as micrograd does; the backward works on numpy arrays.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import attrs
import numpy as np

from lazytensor import operators, reductions, scatter
from lazytensor.evaluate import open_grid
from lazytensor.layout import Layout
from lazytensor.positions import Shape, normalize_dim, normalize_dims, numel
from lazytensor.tensor import AbstractTensor, Buffer, StorageTensor
from lazytensor.views import View

Operand = Any
Grads = Sequence[Buffer | None]
Backward = Callable[[Buffer, tuple[bool, ...]], Grads]
"""From the gradient of a result and which inputs need one, the gradient of each input (or None)."""

_GRAD_ENABLED: ContextVar[bool] = ContextVar("lazytensor_grad_enabled", default=True)


def is_grad_enabled() -> bool:
    """Whether operations record their inputs for `backward` (False inside `no_grad()`)."""
    return _GRAD_ENABLED.get()


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Operations inside record nothing: for optimiser steps and evaluation.

    >>> import lazytensor as lt
    >>> w = lt.ones(2, requires_grad=True)
    >>> with lt.no_grad():
    ...     (w * 2).requires_grad
    False
    """
    token = _GRAD_ENABLED.set(False)
    try:
        yield
    finally:
        _GRAD_ENABLED.reset(token)


@attrs.frozen(eq=False)
class Node:
    """How a result was made: the operation's name, its inputs, and its backward rule."""

    name: str
    parents: tuple[Operand, ...]
    backward: Backward


def _needs(parents: Sequence[Operand]) -> tuple[bool, ...]:
    return tuple(isinstance(p, AbstractTensor) and p.requires_grad for p in parents)


def record(out: StorageTensor, name: str, parents: tuple[Operand, ...], backward: Backward) -> StorageTensor:
    """Attach a node to `out`, the result of an operation whose inputs are being tracked."""
    out.grad_state.requires_grad = True
    out.grad_state.node = Node(name, parents, backward)
    return out


# -- the backward pass ------------------------------------------------------------------------


def _inputs(t: AbstractTensor) -> tuple[Operand, ...]:
    if isinstance(t, View):
        return (t.wrapped,)
    node = t.grad_state.node if isinstance(t, StorageTensor) else None
    return () if node is None else node.parents


def _topological(root: AbstractTensor) -> list[AbstractTensor]:
    """Every tensor the root depends on that requires a gradient, each after all that use it."""
    order: list[AbstractTensor] = []
    seen: set[int] = set()
    stack: list[tuple[AbstractTensor, bool]] = [(root, False)]
    while stack:
        tensor, expanded = stack.pop()
        if expanded:
            order.append(tensor)
            continue
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        stack.append((tensor, True))
        for parent in _inputs(tensor):
            if isinstance(parent, AbstractTensor) and parent.requires_grad and id(parent) not in seen:
                stack.append((parent, False))
    return order[::-1]


def view_backward(view: View, grad: Buffer) -> Buffer:
    """The gradient of the tensor below a view: each position's gradient added where it came from."""
    below = view.wrapped
    if view.numel() == 0 or below.numel() == 0:
        return np.zeros(below.shape, dtype=grad.dtype)
    positions = view.translate_batch(open_grid(view.shape))
    # row-major flat indices by broadcasting the small per-axis arrays: no dense positions first
    flat = np.broadcast_to(Layout.contiguous(below.shape).index_batch(positions), view.shape)
    summed = np.bincount(flat.reshape(-1), weights=grad.reshape(-1), minlength=below.numel())
    return summed.reshape(below.shape).astype(grad.dtype, copy=False)


def _input_grads(t: AbstractTensor, grad: Buffer) -> list[tuple[AbstractTensor, Buffer]]:
    if isinstance(t, View):
        return [(t.wrapped, view_backward(t, grad))]
    node = t.grad_state.node if isinstance(t, StorageTensor) else None
    if node is None:
        return []
    needs = _needs(node.parents)
    grads = node.backward(grad, needs)
    return [(p, g) for p, g, need in zip(node.parents, grads, needs, strict=True) if need and g is not None]


def backward(root: AbstractTensor, gradient: Operand = None) -> None:
    """Accumulate d(root)/d(leaf) into `leaf.grad` for every leaf that requires a gradient.

    >>> import lazytensor as lt
    >>> w = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (w[[0, 0, 2]] * w[[1, 1, 1]]).sum().backward()
    >>> w.grad.tolist()
    [4.0, 5.0, 2.0]
    """
    if not root.requires_grad:
        raise RuntimeError(f"backward of a tensor of shape {root.shape} that does not require grad")
    if gradient is None:
        if root.numel() != 1:
            raise RuntimeError(f"backward needs a gradient for a tensor of shape {root.shape}, not a scalar")
        seed = np.ones(root.shape, dtype=_float_dtype(root))
    else:
        seed = np.broadcast_to(operators.array_of(gradient), root.shape)
    grads: dict[int, Buffer] = {id(root): seed}
    for tensor in _topological(root):
        grad = grads.pop(id(tensor), None)
        if grad is None:
            continue
        if isinstance(tensor, StorageTensor) and tensor.grad_state.node is None:
            _accumulate_leaf(tensor, grad)
            continue
        for parent, parent_grad in _input_grads(tensor, grad):
            key = id(parent)
            grads[key] = parent_grad if key not in grads else grads[key] + parent_grad


def _float_dtype(t: AbstractTensor) -> np.dtype[Any]:
    return t.dtype if t.dtype.kind in "fc" else np.dtype(np.float64)


def _accumulate_leaf(leaf: StorageTensor, grad: Buffer) -> None:
    grad = np.asarray(grad, dtype=_float_dtype(leaf)).reshape(leaf.shape)
    state = leaf.grad_state
    total = grad if state.grad is None else state.grad.numpy() + grad
    state.grad = StorageTensor.from_array(np.array(total, order="C"))


# -- helpers for the backward rules -----------------------------------------------------------


def tracking(*parents: Operand) -> bool:
    """Whether an operation on these inputs must record a node (else it costs nothing extra)."""
    return is_grad_enabled() and any(_needs(parents))


def shape_of(x: Operand) -> Shape:
    return x.shape if isinstance(x, AbstractTensor) else np.shape(x)


def value_of(x: Operand) -> Any:
    """An operand evaluated once, for the forward kernel and the backward rule alike."""
    return operators.values_of(x)


def unbroadcast(grad: Buffer, shape: Shape) -> Buffer:
    """Sum a broadcast result's gradient back to an input's shape."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    axes = tuple(axis for axis, size in enumerate(shape) if size == 1 and grad.shape[axis] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad


def _expand_reduced(grad: Buffer, shape: Shape, axes: Shape, keepdim: bool) -> Buffer:
    """A reduction's gradient put back on the reduced axes, broadcast to the input shape."""
    kept = grad if keepdim else np.expand_dims(grad, axes)
    return np.broadcast_to(kept, shape)


# -- arithmetic -------------------------------------------------------------------------------


def add(a: Operand, b: Operand) -> StorageTensor:
    out = operators.add(a, b)
    if not tracking(a, b):
        return out
    return record(out, "add", (a, b), lambda g, _: (unbroadcast(g, shape_of(a)), unbroadcast(g, shape_of(b))))


def sub(a: Operand, b: Operand) -> StorageTensor:
    out = operators.sub(a, b)
    if not tracking(a, b):
        return out
    return record(
        out, "sub", (a, b), lambda g, _: (unbroadcast(g, shape_of(a)), unbroadcast(-g, shape_of(b)))
    )


def mul(a: Operand, b: Operand) -> StorageTensor:
    if not tracking(a, b):
        return operators.mul(a, b)
    av, bv = value_of(a), value_of(b)

    def backward(g: Buffer, needs: tuple[bool, ...]) -> Grads:
        ga = unbroadcast(g * bv, shape_of(a)) if needs[0] else None
        gb = unbroadcast(g * av, shape_of(b)) if needs[1] else None
        return ga, gb

    return record(operators.mul(av, bv), "mul", (a, b), backward)


def truediv(a: Operand, b: Operand) -> StorageTensor:
    if not tracking(a, b):
        return operators.truediv(a, b)
    av, bv = value_of(a), value_of(b)

    def backward(g: Buffer, needs: tuple[bool, ...]) -> Grads:
        ga = unbroadcast(g / bv, shape_of(a)) if needs[0] else None
        gb = unbroadcast(-g * av / (bv * bv), shape_of(b)) if needs[1] else None
        return ga, gb

    return record(operators.truediv(av, bv), "truediv", (a, b), backward)


def neg(t: Operand) -> StorageTensor:
    out = operators.neg(t)
    if not tracking(t):
        return out
    return record(out, "neg", (t,), lambda g, _: (-g,))


def power(a: Operand, b: Operand) -> StorageTensor:
    if not tracking(a, b):
        return operators.power(a, b)
    av, bv = value_of(a), value_of(b)
    out = operators.power(av, bv)
    ov = out.numpy()

    def backward(g: Buffer, needs: tuple[bool, ...]) -> Grads:
        ga = unbroadcast(g * bv * np.power(av, bv - 1), shape_of(a)) if needs[0] else None
        gb = unbroadcast(g * ov * np.log(av), shape_of(b)) if needs[1] else None
        return ga, gb

    return record(out, "power", (a, b), backward)


def matmul(a: Operand, b: Operand) -> StorageTensor:
    if not tracking(a, b):
        return operators.matmul(a, b)
    av, bv = np.asarray(value_of(a)), np.asarray(value_of(b))

    def backward(g: Buffer, needs: tuple[bool, ...]) -> Grads:
        left = av if av.ndim > 1 else av[np.newaxis, :]  # numpy's 1-D promotion
        right = bv if bv.ndim > 1 else bv[:, np.newaxis]
        batch = np.broadcast_shapes(left.shape[:-2], right.shape[:-2])
        grad = g.reshape((*batch, left.shape[-2], right.shape[-1]))
        ga = gb = None
        if needs[0]:
            ga = unbroadcast(grad @ np.swapaxes(right, -1, -2), left.shape).reshape(av.shape)
        if needs[1]:
            gb = unbroadcast(np.swapaxes(left, -1, -2) @ grad, right.shape).reshape(bv.shape)
        return ga, gb

    return record(operators.matmul(av, bv), "matmul", (a, b), backward)


# -- elementwise functions --------------------------------------------------------------------


def exp(t: Operand) -> StorageTensor:
    out = operators.exp(t)
    if not tracking(t):
        return out
    ov = out.numpy()
    return record(out, "exp", (t,), lambda g, _: (g * ov,))


def log(t: Operand) -> StorageTensor:
    if not tracking(t):
        return operators.log(t)
    tv = value_of(t)
    return record(operators.log(tv), "log", (t,), lambda g, _: (g / tv,))


def sqrt(t: Operand) -> StorageTensor:
    out = operators.sqrt(t)
    if not tracking(t):
        return out
    ov = out.numpy()
    return record(out, "sqrt", (t,), lambda g, _: (g / (2 * ov),))


def tanh(t: Operand) -> StorageTensor:
    out = operators.tanh(t)
    if not tracking(t):
        return out
    ov = out.numpy()
    return record(out, "tanh", (t,), lambda g, _: (g * (1 - ov * ov),))


def sigmoid(t: Operand) -> StorageTensor:
    out = operators.sigmoid(t)
    if not tracking(t):
        return out
    ov = out.numpy()
    return record(out, "sigmoid", (t,), lambda g, _: (g * ov * (1 - ov),))


def relu(t: Operand) -> StorageTensor:
    out = operators.relu(t)
    if not tracking(t):
        return out
    positive = out.numpy() > 0
    return record(out, "relu", (t,), lambda g, _: (g * positive,))


def absolute(t: Operand) -> StorageTensor:
    if not tracking(t):
        return operators.absolute(t)
    tv = value_of(t)
    return record(operators.absolute(tv), "abs", (t,), lambda g, _: (g * np.sign(tv),))


def clip(t: Operand, lo: Any = None, hi: Any = None) -> StorageTensor:
    if not tracking(t):
        return operators.clip(t, lo, hi)
    tv = np.asarray(value_of(t))
    inside = np.ones(tv.shape, dtype=bool)
    if lo is not None:
        inside &= tv >= value_of(lo)
    if hi is not None:
        inside &= tv <= value_of(hi)
    return record(operators.clip(tv, lo, hi), "clip", (t,), lambda g, _: (g * inside,))


def where(condition: Operand, a: Operand, b: Operand) -> StorageTensor:
    """`a` where `condition` holds, else `b`, all three broadcast together (differentiable in a and b).

    >>> import lazytensor as lt
    >>> lt.where(lt.tensor([True, False]), lt.tensor([1, 2]), 0).tolist()
    [1, 0]
    """
    out = operators.where(condition, a, b)
    if not tracking(a, b):
        return out
    chosen = np.asarray(value_of(condition)).astype(bool)

    def backward(g: Buffer, _: tuple[bool, ...]) -> Grads:
        zero = np.zeros((), dtype=g.dtype)
        ga = unbroadcast(np.where(chosen, g, zero), shape_of(a))
        gb = unbroadcast(np.where(chosen, zero, g), shape_of(b))
        return None, ga, gb

    return record(out, "where", (condition, a, b), backward)


# -- reductions -------------------------------------------------------------------------------


def tsum(t: Operand, dim: Any = None, keepdim: bool = False) -> StorageTensor:
    out = reductions.tsum(t, dim, keepdim)
    if not tracking(t):
        return out
    shape = shape_of(t)
    axes = normalize_dims(dim, len(shape))
    return record(out, "sum", (t,), lambda g, _: (_expand_reduced(g, shape, axes, keepdim),))


def mean(t: Operand, dim: Any = None, keepdim: bool = False) -> StorageTensor:
    out = reductions.mean(t, dim, keepdim)
    if not tracking(t):
        return out
    shape = shape_of(t)
    axes = normalize_dims(dim, len(shape))
    count = numel([shape[axis] for axis in axes])
    return record(out, "mean", (t,), lambda g, _: (_expand_reduced(g / count, shape, axes, keepdim),))


def _extreme(
    t: Operand, dim: Any, keepdim: bool, name: str, kernel: Callable[..., StorageTensor]
) -> StorageTensor:
    """max or min: the gradient goes to the positions holding the extreme value, split among ties."""
    if not tracking(t):
        return kernel(t, dim, keepdim)
    tv = np.asarray(value_of(t))
    axes = normalize_dims(dim, tv.ndim)
    out = kernel(tv, dim, keepdim)
    extreme = out.numpy() if keepdim else np.expand_dims(out.numpy(), axes)
    hits = tv == extreme
    share = hits / hits.sum(axis=axes, keepdims=True)
    return record(out, name, (t,), lambda g, _: (_expand_reduced(g, tv.shape, axes, keepdim) * share,))


def tmax(t: Operand, dim: Any = None, keepdim: bool = False) -> StorageTensor:
    return _extreme(t, dim, keepdim, "max", reductions.tmax)


def tmin(t: Operand, dim: Any = None, keepdim: bool = False) -> StorageTensor:
    return _extreme(t, dim, keepdim, "min", reductions.tmin)


def softmax(t: Operand, dim: int) -> StorageTensor:
    out = reductions.softmax(t, dim)
    if not tracking(t):
        return out
    ov = out.numpy()
    axis = normalize_dim(dim, ov.ndim)
    return record(out, "softmax", (t,), lambda g, _: (ov * (g - (g * ov).sum(axis=axis, keepdims=True)),))


def log_softmax(t: Operand, dim: int) -> StorageTensor:
    out = reductions.log_softmax(t, dim)
    if not tracking(t):
        return out
    ov = out.numpy()
    axis = normalize_dim(dim, ov.ndim)
    return record(out, "log_softmax", (t,), lambda g, _: (g - np.exp(ov) * g.sum(axis=axis, keepdims=True),))


# -- gathering, scattering, joining -----------------------------------------------------------


def gather(t: Operand, dim: int, index: Operand) -> StorageTensor:
    out = scatter.gather(t, dim, index)
    if not tracking(t):
        return out
    shape = shape_of(t)

    def backward(g: Buffer, _: tuple[bool, ...]) -> Grads:
        return scatter.scatter_add(np.zeros(shape, dtype=g.dtype), dim, index, g).numpy(), None

    return record(out, "gather", (t, index), backward)


def index_add(t: Operand, dim: int, index: Operand, source: Operand) -> StorageTensor:
    out = scatter.index_add(t, dim, index, source)
    if not tracking(t, source):
        return out
    targets = np.asarray(value_of(index))
    axis = normalize_dim(dim, len(shape_of(t)))
    return record(
        out, "index_add", (t, index, source), lambda g, _: (g, None, np.take(g, targets, axis=axis))
    )


def scatter_add(t: Operand, dim: int, index: Operand, source: Operand) -> StorageTensor:
    out = scatter.scatter_add(t, dim, index, source)
    if not tracking(t, source):
        return out
    targets = np.asarray(value_of(index))
    axis = normalize_dim(dim, len(shape_of(t)))
    source_shape = shape_of(source)

    def backward(g: Buffer, _: tuple[bool, ...]) -> Grads:
        grad_source = np.zeros(source_shape, dtype=g.dtype)
        grad_source[tuple(slice(0, n) for n in targets.shape)] = np.take_along_axis(g, targets, axis=axis)
        return g, None, grad_source

    return record(out, "scatter_add", (t, index, source), backward)


def cat(tensors: Sequence[Operand], dim: int = 0) -> StorageTensor:
    """The tensors joined along an existing axis `dim`, into new storage.

    >>> import lazytensor as lt
    >>> lt.cat([lt.zeros(1, 2), lt.ones(2, 2)]).shape
    (3, 2)
    """
    out = operators.cat(tensors, dim)
    if not tracking(*tensors):
        return out
    axis = normalize_dim(dim, out.ndim)
    ends = np.cumsum([shape_of(t)[axis] for t in tensors])[:-1]
    return record(out, "cat", tuple(tensors), lambda g, _: np.split(g, ends, axis=axis))


def stack(tensors: Sequence[Operand], dim: int = 0) -> StorageTensor:
    """Same-shaped tensors joined along a new axis `dim`, into new storage.

    >>> import lazytensor as lt
    >>> lt.stack([lt.zeros(2), lt.ones(2)], dim=1).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    out = operators.stack(tensors, dim)
    if not tracking(*tensors):
        return out
    axis = normalize_dim(dim, out.ndim)
    return record(
        out, "stack", tuple(tensors), lambda g, _: [np.take(g, i, axis=axis) for i in range(len(tensors))]
    )


# -- numpy's ufuncs on tensors ----------------------------------------------------------------

DIFFERENTIABLE_UFUNCS: dict[np.ufunc, Callable[..., StorageTensor]] = {
    np.add: add,
    np.subtract: sub,
    np.multiply: mul,
    np.true_divide: truediv,
    np.power: power,
    np.matmul: matmul,
    np.negative: neg,
    np.absolute: absolute,
    np.exp: exp,
    np.log: log,
    np.sqrt: sqrt,
    np.tanh: tanh,
}


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """numpy calling a ufunc on tensors (`array * t`, `np.exp(t)`): differentiable where we know how.

    >>> import lazytensor as lt
    >>> w = lt.ones(2, requires_grad=True)
    >>> (np.array([2.0, 3.0]) * w).sum().backward()
    >>> w.grad.tolist()
    [2.0, 3.0]
    """
    differentiable = DIFFERENTIABLE_UFUNCS.get(ufunc)
    if differentiable is not None and method == "__call__" and not kwargs:
        return differentiable(*inputs)
    return operators.array_ufunc(ufunc, method, inputs, kwargs)

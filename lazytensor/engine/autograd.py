"""The reverse-mode autograd engine: gradient mode, graph nodes, and the topological backward pass.

The engine never imports the tensor classes. It walks any objects that answer
the gradient hooks of the tensor protocol (`lazytensor.ground.protocol.Tensor`): an operation's result answers
with its `Node` (the operation's backward rule from the operator table), a
view answers with one rule shared by every wrapper (`view_backward`: send the
view's positions one layer down with `translate_batch` and scatter-add the
gradient there), and a leaf accumulates what reaches it. So list-indexed,
expanded and reshaped views differentiate too, repeated positions accumulate,
and a stack of any depth is a loop, never a recursion.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.ground.layout import Layout
from lazytensor.ground.positions import Shape, numel, open_grid
from lazytensor.ground.protocol import Tensor, Wrapper
from lazytensor.kernels import reductions

Buffer = npt.NDArray[Any]
Grads = Sequence[Buffer | None]

_GRAD_ENABLED: ContextVar[bool] = ContextVar("lazytensor_grad_enabled", default=True)


def is_grad_enabled() -> bool:
    """Whether operations record their inputs for `backward` (PyTorch's `is_grad_enabled`): False inside
    `no_grad()` and `inference_mode()`, True again inside `enable_grad()`.

    >>> import lazytensor as lt
    >>> with lt.no_grad():
    ...     lt.is_grad_enabled(), lt.enable_grad()(lt.is_grad_enabled)()
    (False, True)
    """
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


@contextlib.contextmanager
def enable_grad() -> Iterator[None]:
    """Operations inside record again, even within `no_grad()` (PyTorch's `enable_grad`).

    >>> import lazytensor as lt
    >>> w = lt.ones(2, requires_grad=True)
    >>> with lt.no_grad(), lt.enable_grad():
    ...     (w * 2).requires_grad
    True
    """
    token = _GRAD_ENABLED.set(True)
    try:
        yield
    finally:
        _GRAD_ENABLED.reset(token)


@contextlib.contextmanager
def inference_mode(mode: bool = True) -> Iterator[None]:
    """PyTorch's `inference_mode`: here `no_grad()` (nothing is recorded), or nothing changed when
    `mode` is False, so inside `no_grad()` recording stays off (PyTorch's C++ guard sets grad mode to
    `not mode`, which turns it on there). Also a decorator, as every context manager here.

    >>> import lazytensor as lt
    >>> w = lt.ones(2, requires_grad=True)
    >>> with lt.inference_mode():
    ...     (w * 2).requires_grad
    False
    """
    token = _GRAD_ENABLED.set(_GRAD_ENABLED.get() and not mode)
    try:
        yield
    finally:
        _GRAD_ENABLED.reset(token)


@attrs.frozen(eq=False, repr=False)
class GradFn:
    """PyTorch's `grad_fn`: the name of the step back from a tensor to its operands (`MulBackward0`,
    `TransposedBackward0` for a view, `AccumulateGrad` for a leaf), and `next_functions`: for each
    operand, its own step (None when it takes no gradient) and 0, as PyTorch pairs them."""

    name: str
    inputs: Callable[[], Sequence[Any]]
    variable: Any = None
    """The leaf an `AccumulateGrad` adds into (None for other steps)."""

    @property
    def next_functions(self) -> tuple[tuple[GradFn | None, int], ...]:
        return tuple((_step_of(x), 0) for x in self.inputs())

    def __repr__(self) -> str:
        return f"<{self.name}>"


def _step_of(x: Any) -> GradFn | None:
    """An operand's step in `next_functions`: its `grad_fn`, an `AccumulateGrad` for a leaf that
    requires grad, or None."""
    if x is None or not x.requires_grad:
        return None
    step: GradFn | None = x.grad_fn
    return step if step is not None else GradFn(x.backward_name, tuple, variable=x)  # AccumulateGrad


class Version:
    """How many times a storage has been written: every write through any view adds one, so that
    `backward` can tell when a value it saved has changed since (PyTorch's version counter)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


@attrs.frozen
class Watched:
    """A version counter and the value it had when an operation saved what it names."""

    counter: Version
    value: int
    what: str

    def check(self, operation: str) -> None:
        if self.counter.value != self.value:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: the {self.what} of {operation} is at version {self.counter.value}; expected "
                f"version {self.value} instead"
            )


@attrs.frozen
class Saved:
    """What an operation kept for its backward rule: input values, output values, parameters,
    which inputs need a gradient, and the versions of the storages those values live in."""

    inputs: tuple[Any, ...]
    output: Buffer
    params: dict[str, Any]
    needs: tuple[bool, ...]
    versions: tuple[Watched, ...] = ()


BackwardRule = Callable[[Saved, Buffer], Grads]
"""From what was saved and the gradient of the result, the gradient of each input (or None)."""


@attrs.define(eq=False)
class Node:
    """How a result was made: the operation's name, its operands, the saved values and the rule.
    A backward pass frees what was saved (unless asked to retain it), as PyTorch does."""

    name: str
    parents: tuple[Any, ...]
    saved: Saved
    rule: BackwardRule
    freed: bool = False

    def input_grads(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """Each operand that needs a gradient, with its gradient."""
        if self.freed:
            raise RuntimeError(
                f"trying to backward through {self.name} a second time: its saved values were freed "
                "after the first backward; pass retain_graph=True to the first backward() to keep them"
            )
        for watched in self.saved.versions:
            watched.check(self.name)
        grads = self.rule(self.saved, grad)
        self.freed = not retain
        pairs = zip(self.parents, grads, self.saved.needs, strict=True)
        return [(parent, g) for parent, g, need in pairs if need and g is not None]


def view_backward(view: Wrapper, grad: Buffer) -> Buffer:
    """The gradient of the tensor below a view: each position's gradient added where it came from."""
    below_shape: Shape = view.wrapped.shape
    if numel(view.shape) == 0 or numel(below_shape) == 0:
        return np.zeros(below_shape, dtype=grad.dtype)
    positions = view.translate_batch(open_grid(view.shape))
    # row-major flat indices by broadcasting the small per-axis arrays: no dense positions first
    flat = np.broadcast_to(Layout.contiguous(below_shape).index_batch(positions), view.shape).reshape(-1)
    weights, size = grad.reshape(-1), numel(below_shape)
    if weights.dtype.kind == "c":  # bincount adds only real weights: the real and imaginary parts apart
        real = np.bincount(flat, weights=weights.real, minlength=size)
        summed = real + 1j * np.bincount(flat, weights=weights.imag, minlength=size)
    else:
        summed = np.bincount(flat, weights=weights, minlength=size)
    return summed.reshape(below_shape).astype(grad.dtype, copy=False)


def expand_backward(grad: Buffer, below_shape: Shape) -> Buffer:
    """The gradient of the tensor an expand broadcast: `grad` summed over the new leading axes and
    the stretched ones. A broadcast gradient (a sum's) reduces in the base's size, not the expanded
    one: `x.expand(10**6, 10**6).sum()` gives `x` a gradient of 10**12 at once.

    >>> expand_backward(np.broadcast_to(np.ones(1), (10**6, 10**6)), (1,)).tolist()
    [1000000000000.0]
    """
    lead = grad.ndim - len(below_shape)
    stretched = (
        lead + axis for axis, size in enumerate(below_shape) if size == 1 and grad.shape[lead + axis] != 1
    )
    axes = (*range(lead), *stretched)
    if not axes:
        return grad
    summed = reductions.tsum(grad, axes, keepdim=True)
    return np.asarray(summed).reshape(below_shape).astype(grad.dtype, copy=False)


def _topological(root: Tensor) -> list[Tensor]:
    """Every tensor the root depends on that requires a gradient, each after all that use it."""
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        tensor, expanded = stack.pop()
        if expanded:
            order.append(tensor)
            continue
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        stack.append((tensor, True))
        for parent in tensor.grad_parents():
            if id(parent) not in seen:
                stack.append((parent, False))
    return order[::-1]


def backward(root: Tensor, seed: Buffer, retain_graph: bool = False) -> None:
    """Send `seed` (the gradient of `root`) back through the graph into every leaf's `.grad`."""
    grads: dict[int, Buffer] = {id(root): seed}
    for tensor in _topological(root):
        grad = grads.pop(id(tensor), None)
        if grad is None:
            continue
        if not tensor.grad_parents():
            tensor.accumulate_grad(grad)
            continue
        if tensor.retains_grad:
            tensor.accumulate_grad(grad)
        for parent, parent_grad in tensor.backward_step(grad, retain_graph):
            key = id(parent)
            grads[key] = parent_grad if key not in grads else grads[key] + parent_grad

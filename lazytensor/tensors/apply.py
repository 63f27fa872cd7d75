"""`apply`, the one door through which every operation of the table runs: it evaluates the operands,
runs the entry's kernel, wraps the result in a new storage tensor and records the backward rule when
an operand requires a gradient. Its fast paths (values already in memory, no gradient; a temporary
operand that takes the result; `t.sum()` in one call) are here too, each checked against the
general path by the tests.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from lazytensor.engine import autograd, streaming
from lazytensor.engine.autograd import Node, Saved, Watched
from lazytensor.engine.optable import Op
from lazytensor.ground import coords as coordinates
from lazytensor.ground import naming
from lazytensor.ground.positions import Shape
from lazytensor.ground.settings import lazy_now
from lazytensor.kernels import threads
from lazytensor.tensors.surface.primitives import USER_ERRORS
from lazytensor.tensors.tensor import (
    TENSOR_TYPES,
    AbstractTensor,
    BaseTensor,
    Buffer,
    StorageTensor,
    is_tensor_type,
    plain_values,
)

LAZILY: list[Callable[[Op, tuple[Any, ...], dict[str, Any]], AbstractTensor | None]] = []
"""Under `lt.lazy()`: the computed tensor of an operation on tensors in memory, or None for one that
runs at once (registered by `lazytensor.bases.computed`, a floor above)."""

# Type tuples for isinstance on hot paths (`X | Y` would build a union object on every call).
_NUMPY_VALUES = (np.ndarray, np.generic)
_PYTHON_NUMBERS = (int, float, complex)


def result_of(values: Any, inputs: tuple[Any, ...]) -> StorageTensor:
    """A new storage tensor over a kernel's output, copied when it might share memory with an input
    or cannot be written, so a result never aliases an operand."""
    array = values if isinstance(values, np.ndarray) else np.asarray(values)
    if array.flags.carray:
        if array.base is None:  # it owns its memory: new, unless it is an input itself
            for x in inputs:
                if x is array:
                    break
            else:
                return StorageTensor._trusted(array)
        if not _may_share_memory_with(array, inputs):
            return StorageTensor._trusted(array)
    return StorageTensor._trusted(array.copy(order="C"))


def _may_share_memory_with(array: Buffer, inputs: tuple[Any, ...]) -> bool:
    return any(isinstance(x, np.ndarray) and np.may_share_memory(array, x) for x in inputs)


def apply(entry: Op, /, *operands: Any, **params: Any) -> StorageTensor:
    """Run one operation of the table on tensors (or arrays, scalars, lists) and record it for
    `backward` when an operand requires grad and the operation is differentiable.

    >>> import lazytensor as lt
    >>> from lazytensor.engine import optable
    >>> apply(optable.ADD, lt.tensor([1, 2]), 10).tolist()
    [11, 12]
    """
    lazy = lazy_now()  # `lt.lazy()`: an elementwise operation is a computed tensor, in memory too
    resident = None if lazy else _resident_values(operands)  # the common case: in memory, no gradient
    if resident is not None:
        ufunc = entry.ufunc
        if ufunc is None or params:  # the general path's call, unasked
            try:
                return result_of(entry.kernel(*resident, **params), resident)
            except USER_ERRORS as error:
                raise error.with_traceback(None) from None
        try:
            out = ufunc(*resident, order="C")  # the kernel's own call: same values, dtype, order
        except Exception:  # whatever it is, the general path below raises it again, with its message
            pass
        else:
            if type(out) is np.ndarray:  # a new C array (not a 0-d result, which is a scalar)
                return StorageTensor._trusted(out)
    bases: list[BaseTensor | None] = []  # each operand's base; None for one that is not a tensor
    named = labelled = False
    deferring: BaseTensor | None = None
    for x in operands:
        tensor = TENSOR_TYPES.get(type(x))  # `is_tensor_type`'s cache, read inline: the hottest line
        if tensor is None:
            tensor = is_tensor_type(type(x))
        base = x.base if tensor else None
        if base is not None:
            if deferring is None and base.defers_operations:
                deferring = base
            named = named or base.names_used
            labelled = labelled or base.coords_used
        bases.append(base)
    how = (entry, operands, params) if labelled else None  # what `_named` labels the result by
    names = _checked_names(entry, operands, params, labelled) if named else None  # free when nobody named
    if entry.name in streaming.STREAMED and len(bases) == 1 and bases[0] is not None:
        streamed = _streamed(entry, operands[0], params)  # a base not in memory: reduced block by block
        if streamed is not None:
            return streamed if names is None else _named(streamed, names, how)
    if deferring is not None or lazy:  # not in memory, or asked: dask's graph or a computed tensor
        later = _lazily(entry, operands, params, deferring)
        if later is not None:
            return later if names is None else _named(later, names, how)  # type: ignore[return-value]
    values: list[Any] = []
    for x, base in zip(operands, bases, strict=True):
        if base is None:
            values.append(plain_values(x))
        else:
            fused = x._fused_values  # `x.values()` without the call when the stack fuses
            values.append(x.values() if fused is None else fused)
    inputs = tuple(values)
    needs = _needs(entry, bases)
    try:  # free unless raised: a kernel's error is about the operands, so it ends at the caller's door
        if not needs:
            unrecorded = _unrecorded(entry, operands, bases, inputs, params)
            return unrecorded if names is None else _named(unrecorded, names, how)
        result = result_of(entry.kernel(*inputs, **params), inputs)
    except USER_ERRORS as error:
        raise error.with_traceback(None) from None
    if result.dtype.kind in "biu":  # an integer or bool result has no gradient, as in PyTorch
        return result if names is None else _named(result, names, how)
    saved = Saved(inputs, result.values(), params, needs, _watch(operands, result))
    result.grad_state.requires_grad = True
    object.__setattr__(result, "plain", False)
    result.grad_state.node = Node(entry.name, operands, saved, entry.backward)  # type: ignore[arg-type]
    return result if names is None else _named(result, names, how)


def _lazily(
    entry: Op, operands: tuple[Any, ...], params: dict[str, Any], deferring: BaseTensor | None
) -> AbstractTensor | None:
    """The lazy result of an operation: the deferring base's (a graph, a computed tensor), else under
    `lt.lazy()` a computed tensor of operands in memory; None when it runs at once after all."""
    if deferring is not None:
        return deferring.apply_lazily(entry, operands, params)
    for compute in LAZILY:
        result = compute(entry, operands, params)
        if result is not None:
            return result
    return None


def _streamed(entry: Op, t: AbstractTensor, params: dict[str, Any]) -> StorageTensor | None:
    """A reduction of a tensor whose base is not in memory, read in chunk-aligned blocks
    (`engine.streaming`), or None when it does not stream."""
    if not streaming.streams(entry.name, t):
        return None
    try:
        values = streaming.reduce(entry.name, entry.kernel, t, params)
    except USER_ERRORS as error:
        raise error.with_traceback(None) from None
    return None if values is None else result_of(values, ())


def _checked_names(
    entry: Op, operands: tuple[Any, ...], params: dict[str, Any], labelled: bool
) -> naming.Names | None:
    """The names of the result of `entry` on operands some of which are named, checked before any
    work (a mismatch is the user's error, shown from their line), or None for an unnamed result;
    with `labelled` operands, their coordinates checked too."""
    try:
        names = naming.result_names(entry.shapes, operands, params, entry.name)
        if labelled and names is not None and entry.shapes == "broadcast":  # mismatched labels: refused
            coordinates.broadcast_checked([coordinates.operand(x) for x in operands])
    except ValueError as error:
        raise error.with_traceback(None) from None
    return names if names is not None and naming.is_named(names) else None


_Result = TypeVar("_Result", bound="AbstractTensor")


def _named(
    result: _Result, names: naming.Names, labelled: tuple[Op, tuple[Any, ...], dict[str, Any]] | None
) -> _Result:
    """A new result (a base: in memory, or dask's lazy one) named, and labelled when `labelled` gives
    the operation and its operands, when its axes are the ones the rule named (an operation of its
    own shape, say a kernel that squeezes, is left unnamed)."""
    if len(names) == result.ndim and result.base is result:
        naming.name_base(result, names)
        if labelled is not None:
            entry, operands, params = labelled
            labels = coordinates.result_coords(entry.shapes, operands, params, entry.name, result.shape)
            coordinates.label_base(result, labels)
    return result


_PLAIN_OPERANDS = frozenset({int, float, complex, np.ndarray, np.float64, np.int64})
"""Operand types a ufunc takes as they are, exactly as `values_of` passes them (bool is left to the
general path, which types it)."""


def _resident_values(operands: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The values `apply` hands a kernel when that is all there is to do: every tensor operand a fused
    view of memory over a plain base (nobody named it, no gradient was asked of it), every other a
    number or an array, and too little work for threads (the product of the sizes bounds the
    result's size); else None."""
    values = []
    work = 1
    for x in operands:
        kind = type(x)
        if kind in _PLAIN_OPERANDS:
            values.append(x)
            work *= getattr(x, "size", 1)
            continue
        tensor = TENSOR_TYPES.get(kind)  # `is_tensor_type`'s cache, read inline
        if not (is_tensor_type(kind) if tensor is None else tensor):
            return None
        fused = x._fused_values
        if fused is None or not x.base.plain:
            return None
        work *= fused.size
        values.append(fused)
    return tuple(values) if work < threads.start_at else None


def whole_sum(t: AbstractTensor) -> StorageTensor | None:
    """`t.sum()` as one `np.add.reduce`, what the general path computes, for a tensor whose values are
    a fused view of memory that no gradient watches; None for the rest: object arrays (whose sum the
    general path keeps an object), repeats (stride 0, summed once and multiplied), gradients, and
    sums big enough for threads (`threads.reduce_at`), whose blocks the general path adds."""
    fused = t._fused_values
    if fused is None or fused.dtype.hasobject or 0 in fused.strides or fused.size >= threads.reduce_at:
        return None
    if not t.base.plain:
        return None
    return StorageTensor._trusted(np.asarray(np.add.reduce(fused, axis=None)))


def _needs(entry: Op, bases: list[BaseTensor | None]) -> tuple[bool, ...]:
    """Which operands want a gradient from this operation (a view's is its base's); () when none
    does, or the operation records nothing (no backward rule, or inside `no_grad()`)."""
    if entry.backward is None:
        return ()
    for base in bases:
        if base is not None and base.requires_grad:  # found one: say which of them do, if recording
            if not autograd.is_grad_enabled():
                return ()
            return tuple([base is not None and base.requires_grad for base in bases])
    return ()


def _unrecorded(
    entry: Op,
    operands: tuple[Any, ...],
    bases: list[BaseTensor | None],
    inputs: tuple[Any, ...],
    params: dict[str, Any],
) -> StorageTensor:
    """The result of an operation that records no gradient: written into a temporary operand when
    its ufunc can, else into new memory."""
    ufunc = entry.ufunc
    if ufunc is not None and not params:
        scratch = _scratch(ufunc, operands, bases, inputs)
        if scratch is not None:
            return StorageTensor._trusted(ufunc(*inputs, out=scratch))
    return result_of(entry.kernel(*inputs, **params), inputs)


SCRATCH_BYTES = 1 << 18
"""Operand values this big that were read fresh for one operation take its elementwise result
(numpy elides temporaries from 256 KiB too): no second array, no page faults for its memory."""


def _scratch(
    ufunc: np.ufunc, operands: tuple[Any, ...], bases: list[BaseTensor | None], inputs: tuple[Any, ...]
) -> Any:
    """The values of an operand that `ufunc(*inputs)` may overwrite with its result, or None."""
    for x, base, values in zip(operands, bases, inputs, strict=True):
        big = getattr(values, "nbytes", 0) >= SCRATCH_BYTES  # first: most operands are small
        if (
            big
            and base is not None
            and _is_temporary(x, base, values)
            and _result_fits(ufunc, values, inputs)
        ):
            return values
    return None


def _is_temporary(x: AbstractTensor, base: BaseTensor, values: Any) -> bool:
    """Whether `values` were read for this operation alone: a new, writeable C array that a view
    without a layout computed from numpy storage (nothing caches those) and that is not the storage
    itself."""
    return (
        isinstance(values, np.ndarray)
        and values.base is None
        and values.flags.carray
        and x.layout is None
        and base.has_buffer
        and not base.may_share_memory(values)
    )


def _result_fits(ufunc: np.ufunc, out: Buffer, inputs: tuple[Any, ...]) -> bool:
    """Whether `ufunc(*inputs)` has exactly `out`'s dtype (numpy's own type resolution) and shape
    (every input broadcasts to it without growing it)."""
    dtypes = []
    for value in inputs:  # one pass: this runs on every elementwise operation of a big gather
        shape = getattr(value, "shape", ())
        if shape != out.shape and not _broadcasts_into(shape, out.shape):
            return False
        dtypes.append(value.dtype if isinstance(value, np.ndarray) else _dtype_of(value))
    return _result_dtype(ufunc, tuple(dtypes)) == out.dtype


@functools.lru_cache(maxsize=1024)
def _result_dtype(ufunc: np.ufunc, dtypes: tuple[Any, ...]) -> np.dtype[Any] | None:
    """The dtype `ufunc` gives inputs of these dtypes (numpy's own type resolution, asked once per
    combination), or None when numpy has no loop for them (the kernel will say so)."""
    try:
        resolved: np.dtype[Any] = ufunc.resolve_dtypes((*dtypes, None))[-1]
    except (TypeError, ValueError):
        return None
    return resolved


def _dtype_of(value: Any) -> Any:
    """What `ufunc.resolve_dtypes` takes for an input: its dtype, or a Python number's type (weak)."""
    if isinstance(value, _NUMPY_VALUES):
        return value.dtype
    if isinstance(value, _PYTHON_NUMBERS) and not isinstance(value, bool):
        return type(value)
    return np.asarray(value).dtype


def _broadcasts_into(shape: Shape, target: Shape) -> bool:
    """Whether `shape` broadcasts to `target` as it is.

    >>> _broadcasts_into((3, 1), (2, 3, 4)), _broadcasts_into((2, 4), (4,))
    (True, False)
    """
    if len(shape) > len(target):
        return False
    for size, goal in zip(reversed(shape), reversed(target), strict=False):
        if size != 1 and size != goal:
            return False
    return True


def _watch(operands: tuple[Any, ...], result: StorageTensor) -> tuple[Watched, ...]:
    """The versions of every storage an operation saved values of: its tensor operands and its result."""
    watched = [
        Watched(x.base.grad_state.version, x.base.grad_state.version.value, f"input {i} (shape {x.shape})")
        for i, x in enumerate(operands)
        if isinstance(x, AbstractTensor)
    ]
    watched.append(Watched(result.grad_state.version, 0, f"output (shape {result.shape})"))
    return tuple(watched)


def apply_to_sequence(entry: Op, tensors: Sequence[Any], **params: Any) -> StorageTensor:
    """`apply` for the operations that join a list of tensors (cat, stack)."""
    if not isinstance(tensors, list | tuple) or len(tensors) == 0:
        raise TypeError(f"{entry.name} takes a non-empty sequence of tensors, got {type(tensors).__name__}")
    return apply(entry, *tensors, **params)

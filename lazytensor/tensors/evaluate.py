"""Reading and writing whole tensors, and single positions, through a stack of any depth.

Three paths compute the same thing: `locate` walks one position down with
`translate` until a layer has a layout; `storage_indices` does it for every
position at once with `translate_batch`; and when the top of the stack has a
layout, `read` skips both and returns a zero-copy strided numpy view.

Reads and writes of values go to the base at the bottom (`t.base.read_strided`,
`read_flat`, `write_strided`, `write_flat`, ...): a flat numpy buffer answers them
with views and `take`, an array-like base (zarr, dask) with backend requests.

A reader: it talks to tensors only through the tensor protocol (`lazytensor.ground.protocol`:
`shape`, `layout`, `base`, `layers`, a wrapper's `wrapped`, `translate`, `translate_batch`,
`numpy_equivalent` and `with_wrapped`, `read_only_reason`, `fresh_storage`), so it never
imports the tensor classes. Every walk down a stack is a loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from lazytensor.ground.buffers import check_fits
from lazytensor.ground.layout import IndexArray, Layout
from lazytensor.ground.positions import Shape, numel, open_grid
from lazytensor.ground.protocol import Tensor, Wrapper

Buffer = npt.NDArray[Any]

MATERIALISE_FACTOR = 16
"""Copy the lowest unfused layer whole when it holds at most this many times the elements read:
numpy's copy costs about a nanosecond an element, a gather through `translate_batch` ten or more."""

_INTP_BYTES = np.dtype(np.intp).itemsize


def locate(t: Tensor, pos: Shape) -> int:
    """The storage index of a valid, non-negative position: translate until a layout is known."""
    tensor: Any = t
    while (layout := tensor.layout) is None:
        pos = tensor.translate(pos)
        tensor = tensor.wrapped
    index: int = layout.index(pos)
    return index


def storage_indices(t: Tensor) -> IndexArray:
    """The storage index of every position of `t`, as an array of `t.shape`."""
    arrays = open_grid(t.shape)
    tensor: Any = t
    while (layout := tensor.layout) is None:
        arrays = tensor.translate_batch(arrays)
        tensor = tensor.wrapped
    return np.broadcast_to(layout.index_batch(arrays), t.shape)


_NUMPY_MAX_BYTES = int(np.iinfo(np.intp).max)


def numpy_can_view(layout: Layout, itemsize: int) -> bool:
    """Whether numpy can make an array of this shape: its size in bytes must fit in an intp, even
    for a broadcast view that holds a few elements (an expand to (10**9, 10**9, 3))."""
    return layout.numel() * max(itemsize, 1) <= _NUMPY_MAX_BYTES


def strided_view(buffer: Buffer, layout: Layout, writeable: bool) -> Buffer:
    """The numpy view of `buffer` that `layout` describes, after checking it stays inside."""
    if not numpy_can_view(layout, buffer.itemsize):
        raise MemoryError(
            f"a numpy view of shape {layout.shape} would span {layout.numel():,} elements of "
            f"{buffer.itemsize} bytes, more than numpy can address"
        )
    if layout.numel() == 0:
        return np.asarray(buffer)[:0].reshape(layout.shape)
    low, high = layout.span()
    if low < 0 or high >= buffer.size:
        raise IndexError(
            f"layout {layout} reaches storage indices {low}..{high} outside a buffer of {buffer.size}"
        )
    itemsize = buffer.itemsize
    strides = tuple(stride * itemsize for stride in layout.strides)
    writeable = writeable and buffer.flags.writeable
    if buffer.dtype.hasobject:  # numpy builds object arrays from a buffer only through as_strided
        return as_strided(np.asarray(buffer)[layout.offset :], layout.shape, strides, writeable=writeable)
    view: Buffer = np.ndarray(
        layout.shape, buffer.dtype, buffer=buffer, offset=layout.offset * itemsize, strides=strides
    )
    view.flags.writeable = writeable
    return view


def read(t: Tensor) -> Buffer:
    """All values of `t`: a zero-copy view when the stack has a layout, else computed as cheaply as we can.

    Without a layout, there are two ways. If the lowest layer that does not fuse is
    not much bigger than `t`, do what numpy would do there (one fancy index or one
    reshape copy of the strided view below it) and rebuild the layers above on that
    fresh buffer, one by one, where they fuse again (materialising again at each layer
    that still does not). Otherwise (say, a few edge items of a huge stack), send `t`'s
    positions down with `translate_batch` and gather once. Both walks are loops.
    """
    layout = t.layout
    if layout is not None:
        return t.base.read_strided(layout, writeable=not layout.has_broadcast_axis())
    size = numel(t.shape)
    if size == 0:
        return np.empty(t.shape, dtype=t.dtype)
    # a stack without a layout is read into new memory: say so now if it cannot fit
    check_fits(size, t.base.dtype.itemsize + _INTP_BYTES, lambda: f"reading shape {t.shape}")
    unfused = _unfused_layers(t)
    itemsize = t.base.dtype.itemsize
    # numpy cannot even view a stack of more than 2**63 bytes (an expand to (10**9, 10**9, 3))
    below = unfused[-1].wrapped.layout  # the lowest unfused layer stands on a layout
    viewable = below is not None and numpy_can_view(below, itemsize)
    if len(unfused) == 1 and t.base.has_buffer and viewable:  # numpy's own step on a strided view
        return _materialise(unfused[0])
    limit = MATERIALISE_FACTOR * size
    # an array-like base (zarr, dask) is read only where `t` looks: materialising a layer would read
    # all of the view below it, so its positions go down and are fetched in one request instead
    if not t.base.has_buffer or not viewable or numel(unfused[-1].shape) > limit:
        return _gather(t)
    rebuilt: Any = unfused[-1].wrapped
    gathering = False
    for layer in reversed(unfused):
        rebuilt = layer.with_wrapped(rebuilt) if layer.wrapped is not rebuilt else layer
        if rebuilt.layout is not None or gathering:
            continue
        if numel(rebuilt.shape) > limit or not numpy_can_view(rebuilt.wrapped.layout, itemsize):
            gathering = True  # an expanded layer grew it: gather from here instead
            continue
        values = _materialise(rebuilt)
        if layer is t:  # the top layer: its fresh values are the answer
            return values
        rebuilt = rebuilt.fresh_storage(values)
    return _gather(rebuilt) if gathering else read(rebuilt)


def _materialise(layer: Wrapper) -> Buffer:
    """numpy's computation of one layer that does not fuse, on the strided view below it."""
    below: Any = layer.wrapped
    return np.ascontiguousarray(layer.numpy_equivalent(below.values()))


def _gather(t: Tensor) -> Buffer:
    """One request of every position's storage index to the base (flat, then shaped: a 0-d result
    stays an array)."""
    gathered: Buffer = t.base.read_flat(storage_indices(t).reshape(-1))
    return gathered.reshape(t.shape)


def read_copy(t: Tensor) -> Buffer:
    """A C-contiguous array of `t`'s values that shares no memory with its storage."""
    array = read(t)
    if t.base.may_share_memory(array):
        return array.copy(order="C")
    return np.ascontiguousarray(array)


def _unfused_layers(t: Tensor) -> list[Wrapper]:
    """The layers from `t` down to the lowest one without a layout (which stands on one with a layout)."""
    layers: list[Wrapper] = []
    layer: Any = t
    base = t.base
    while layer is not base and layer.layout is None:  # a base is contiguous: no need to derive that
        layers.append(layer)
        layer = layer.wrapped
    return layers


def check_writable(t: Tensor) -> None:
    """ValueError if a write through `t` cannot reach storage (an expanded layer, a read-only file);
    RuntimeError if it would write into a leaf that requires grad outside `no_grad()`."""
    for layer in t.layers:
        reason = layer.read_only_reason
        if reason is not None:
            raise ValueError(reason)
    t.base.check_write()


def prepare_values(value: Any, t: Tensor) -> Buffer:
    """`value` cast to `t`'s dtype and broadcast to its shape, or the error numpy would raise."""
    array = given = np.asarray(value, dtype=t.dtype)
    while array.ndim > t.ndim and array.shape[0] == 1:  # numpy drops leading size-1 axes
        array = array[0]
    try:
        return np.broadcast_to(array, t.shape)
    except ValueError:
        raise ValueError(
            f"could not broadcast value of shape {given.shape} into tensor of shape {t.shape}"
        ) from None


def write(t: Tensor, value: Any) -> None:
    """Write `value` (broadcast) to every position of `t`; nothing is written if anything is wrong."""
    check_writable(t)
    values = prepare_values(value, t)
    if numel(t.shape) == 0:
        return
    layout = t.layout
    if layout is not None and not layout.may_overlap():
        t.base.write_strided(layout, values)
    else:  # one index at a time in row-major order: of positions sharing an element, the last wins
        t.base.write_flat(storage_indices(t), np.asarray(values, order="C"))
    t.base.note_write()


def write_one(t: Tensor, pos: Shape, value: Any) -> None:
    """Write one element at a valid, non-negative position."""
    check_writable(t)
    t.base.write_one(locate(t, pos), value)
    t.base.note_write()


def write_result(t: Tensor, values: Buffer, operation: str) -> None:
    """Write an in-place operation's result through `t` with numpy's checks for `a op= b`: the
    result's shape must be `t`'s and its dtype must cast to `t`'s by the `same_kind` rule. Every check
    passes before the first element is written."""
    check_writable(t)
    if values.shape != t.shape:
        raise ValueError(
            f"non-broadcastable output operand with shape {t.shape} doesn't match the broadcast "
            f"shape {values.shape} of {operation}"
        )
    if not np.can_cast(values.dtype, t.dtype, casting="same_kind"):
        raise TypeError(
            f"Cannot cast ufunc '{operation}' output from {values.dtype!r} to {t.dtype!r} "
            "with casting rule 'same_kind'"
        )
    write(t, values)

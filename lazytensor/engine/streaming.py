"""Reductions that stream: `sum`, `mean`, `std`, `max`, `argmax`, `any`, ... of a tensor whose base is
not in memory (zarr, HDF5, netCDF/xarray, any array-like, a big memory map), or of any view over
one, read in blocks cut at its chunks' edges (`ground.blockplan`), each chunk once, each block's
reduction merged into the running result (`kernels.partials`): memory holds a block or two and the
result, never the tensor.

The one thing a pass asks of the tensor is the values of a box of its positions (`t[key].numpy()`),
so it streams over any tensor that reads that way. Axes that repeat one value (an expand) are read
once and counted as often as they repeat. A tensor that fits in one block is read whole and reduced
by the table's kernel, as before. A pass longer than a second logs its progress (`ground.progress`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lazytensor.ground import progress
from lazytensor.ground.blockplan import (
    Edges,
    base_region,
    block_keys,
    chunk_shape,
    reordered_from,
    view_edges,
)
from lazytensor.ground.buffers import is_memory_mapped
from lazytensor.ground.positions import Shape, normalize_dims
from lazytensor.ground.protocol import Tensor
from lazytensor.kernels import partials
from lazytensor.kernels.callables import Buffer

BLOCK_BYTES = 1 << 24
"""The bytes of stored values one block holds at most, unless one chunk is bigger (16 MiB)."""

MAPPED_BYTES = 1 << 28
"""A memory-mapped base this big (256 MiB) streams too; a smaller one is reduced through the map."""

STREAMED = frozenset(
    {"sum", "nansum", "prod", "mean", "nanmean", "var", "std"}
    | {"max", "min", "nanmax", "nanmin", "argmax", "argmin", "any", "all"}
)
"""The reductions of the table that stream."""

ORDER_FREE = STREAMED - {"argmax", "argmin"}
"""The streamed reductions whose whole-tensor value does not depend on the order of the values."""


def streams(name: str, t: Tensor) -> bool:
    """Whether reduction `name` of `t` streams: its base is not in memory (and not dask's, whose
    reductions run as dask graphs), nothing asks for its gradient, and its values have a dtype
    the running results take (bool, numbers).

    >>> import lazytensor as lt
    >>> stored = lt.from_array(np.zeros(3))  # an array-like base
    >>> streams("sum", lt.zeros(3)), streams("sum", stored), streams("cumsum", stored)
    (False, True, False)
    """
    if name not in STREAMED or t.dtype.kind not in "biufc":
        return False
    base = t.base
    if getattr(getattr(base, "backend", None), "lazy", False) or base.requires_grad:
        return False
    if not getattr(base, "has_buffer", True):
        return True
    buffer = getattr(base, "buffer", None)
    return buffer is not None and is_memory_mapped(buffer) and buffer.nbytes >= MAPPED_BYTES


def reduce(name: str, kernel: Any, t: Tensor, params: dict[str, Any], block_bytes: int | None = None) -> Any:
    """Reduction `name` (its table `kernel` and `params`) of `t`, streamed block by block; None when
    this reduction only runs whole (see `partials.running`), for the caller's general path. Blocks
    hold `block_bytes` (default `BLOCK_BYTES`, read at each call).

    >>> import lazytensor as lt
    >>> t = lt.from_array(np.arange(12.0).reshape(3, 4))
    >>> reduce("var", None, t, {"dim": 0, "keepdim": False}, block_bytes=16).tolist()
    [10.666666666666666, 10.666666666666666, 10.666666666666666, 10.666666666666666]
    """
    axes = normalize_dims(params.get("dim"), len(t.shape))
    keepdim = bool(params.get("keepdim", False))
    distinct, repeats = _distinct(t)
    target = max(1, (BLOCK_BYTES if block_bytes is None else block_bytes) // max(1, t.dtype.itemsize))
    if distinct.numel() <= target:
        return kernel(np.asarray(t.numpy()), **params)
    box = _base_box(distinct, name, axes, repeats)
    if box is not None:
        whole = reduce(name, kernel, box, {**params, "dim": None, "keepdim": False}, block_bytes)
        return None if whole is None else _shaped(np.asarray(whole), t.shape, axes, keepdim)
    shape = tuple(1 if a in axes else n for a, n in enumerate(distinct.shape))
    reduced = tuple(t.shape[a] for a in axes)
    running = partials.running(name, t.dtype, shape, axes, reduced, params)
    if running is None:
        return None
    keys = block_keys(distinct.shape, _edges(distinct), target)
    times = math.prod(repeats[a] for a in axes)
    log = progress.LogProgress(f"{name} of a {_described(t)}", len(keys))
    try:
        for key in keys:
            values = np.asarray(distinct[key].numpy())
            starts = tuple(key[a].start for a in axes)
            at = tuple(slice(None) if a in axes else k for a, k in enumerate(key))
            running.add(values, partials.Block(at, not any(starts), starts, times))
            log.advance()
    finally:
        log.close()
    return _shaped(running.result(), t.shape, axes, keepdim)


def _base_box(t: Tensor, name: str, axes: Shape, repeats: Shape) -> Tensor | None:
    """The box of its base holding exactly `t`'s values, for a reduction of all of them that their
    order does not change, when `t`'s own blocks would cross its base's chunks (a reshape of a
    transpose, a gather): the box's blocks read each chunk once. None to reduce `t` itself."""
    if (
        name not in ORDER_FREE
        or len(axes) != len(t.shape)
        or any(r > 1 for r in repeats)
        or _cut_at_chunks(t)
    ):
        return None
    region = base_region(reordered_from(t))
    if region is None:
        return None
    box: Tensor = t.base[region]
    return box if _cut_at_chunks(box) else None


def _cut_at_chunks(t: Tensor) -> bool:
    """Whether every axis of `t` longer than 1 knows where it crosses into the base's next chunk."""
    return all(edges is not None or n == 1 for edges, n in zip(_edges(t), t.shape, strict=True))


def _edges(t: Tensor) -> list[Edges]:
    """Where each axis of `t` crosses into its base's next chunk; None on every axis of a view with
    no strided layout (a gather, a reshape of a transpose: its blocks are cut by size alone)."""
    layout = t.layout
    if layout is None:
        return [None] * len(t.shape)
    return view_edges(layout, t.base.shape, chunk_shape(t.base))


def _distinct(t: Tensor) -> tuple[Tensor, Shape]:
    """`t` with every axis that repeats one value (stride 0) cut to one position, and each axis's
    number of repeats (1 for the rest)."""
    layout = t.layout
    if layout is None:
        return t, (1,) * len(t.shape)
    repeats = tuple(n if s == 0 and n > 1 else 1 for n, s in zip(layout.shape, layout.strides, strict=True))
    if all(r == 1 for r in repeats):
        return t, repeats
    cut: Tensor = t[tuple(slice(0, 1) if r > 1 else slice(None) for r in repeats)]
    return cut, repeats


def _shaped(result: Buffer, shape: Shape, axes: Shape, keepdim: bool) -> Buffer:
    """A running result (reduced axes kept, repeating axes of size 1) in the shape numpy gives."""
    kept = tuple(1 if a in axes else n for a, n in enumerate(shape))
    if result.shape != kept:
        result = np.array(np.broadcast_to(result, kept))
    if keepdim:
        return result
    return result.reshape(tuple(n for a, n in enumerate(shape) if a not in axes))


def _described(t: Tensor) -> str:
    """The tensor a progress line is about: its shape, dtype and storage."""
    base = t.base
    kind = getattr(getattr(base, "backend", None), "kind", None) or "memory-mapped"
    return f"{kind} tensor of shape {t.shape} ({t.dtype})"

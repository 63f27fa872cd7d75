"""Blocks a pass over a stored tensor reads: boxes of positions cut only where the base's chunks
end, each holding at most about a target number of elements, together tiling the tensor, so every
chunk is read by exactly one block and memory holds one block at a time.

A view's axes are matched to its base's axes through its layout (`view_edges`): an axis that walks
one base axis with a whole step is cut where that walk crosses into the next chunk; a view whose
axes do not walk distinct base axes (a reshape that merges them, a gather) is cut at no chunk edge,
in blocks of bounded size all the same.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from lazytensor.ground.layout import Layout
from lazytensor.ground.positions import Shape, index_to_position, row_major_strides
from lazytensor.ground.protocol import Tensor, Wrapper

Edges = list[int] | None
"""Where positions along one axis cross into the next chunk (0 and the length included), or None."""


def chunk_edges(key: slice, chunk: int | None, size: int) -> Edges:
    """Where, along a sliced axis of `size`, the positions cross into the next chunk of length `chunk`
    (positions in the slice, 0 and its length included); None when the axis has no chunks.

    >>> chunk_edges(slice(3, 20, 2), 5, 20)
    [0, 1, 4, 6, 9]
    """
    if chunk is None or chunk <= 1:
        return None
    start, _, step = key.indices(size)
    count = len(range(size)[key])
    edges = [0]
    while True:
        crossing = ((start + edges[-1] * step) // chunk + 1) * chunk  # the next chunk's first position
        k = -(-(crossing - start) // step)
        if k >= count:
            break
        edges.append(k)
    edges.append(count)
    return edges


def chunk_shape(base: Any) -> Shape | None:
    """The chunk shape of an array-like base (a zarr array, a chunked h5py dataset), else None."""
    chunks = getattr(getattr(base, "array", None), "chunks", None)
    if not isinstance(chunks, tuple) or len(chunks) != len(base.shape):
        return None
    if not all(isinstance(c, int | np.integer) and c > 0 for c in chunks):
        return None
    return tuple(int(c) for c in chunks)


def view_edges(layout: Layout, base_shape: Shape, chunks: Shape | None) -> list[Edges]:
    """For each axis of a view with `layout` over a base of `base_shape` cut in `chunks`, where its
    positions cross into the base's next chunk; None on every axis when the view's axes do not each
    walk a distinct base axis with a whole step (its reads then cross chunks where they must).

    >>> view_edges(Layout((3, 4), (1, 8), 0), (4, 8), (2, 4))  # a transpose of a (4, 8) base
    [[0, 3], [0, 2, 4]]
    >>> view_edges(Layout((8,), (-1,), 7), (8,), (3,))  # reversed: chunks [6, 7], [3, 6), [0, 3)
    [[0, 2, 5, 8]]
    """
    unknown: list[Edges] = [None] * len(layout.shape)
    if chunks is None or layout.numel() == 0 or not base_shape:
        return unknown
    units = row_major_strides(base_shape)
    start = index_to_position(layout.offset, base_shape)
    used: set[int] = set()
    edges: list[Edges] = []
    for size, stride in zip(layout.shape, layout.strides, strict=True):
        if size == 1 or stride == 0:
            edges.append(None)
            continue
        axis = _walked_axis(size, stride, start, base_shape, units, used)
        if axis is None:
            return unknown
        used.add(axis)
        step = stride // units[axis]
        low = min(start[axis], start[axis] + step * (size - 1))
        ascending = chunk_edges(
            slice(low, low + abs(step) * (size - 1) + 1, abs(step)), chunks[axis], base_shape[axis]
        )
        if ascending is not None and step < 0:  # view position p is the slice's position size - 1 - p
            ascending = sorted(size - e for e in ascending)
        edges.append(ascending)
    return edges


def _walked_axis(
    size: int, stride: int, start: list[int], shape: Shape, units: Shape, used: set[int]
) -> int | None:
    """The base axis that a view axis of `size` and `stride` walks from `start`, staying inside it."""
    for axis, (extent, unit) in enumerate(zip(shape, units, strict=True)):
        if extent <= 1 or axis in used or stride % unit:
            continue
        last = start[axis] + stride // unit * (size - 1)
        if 0 <= last < extent:
            return axis
    return None


def block_keys(lengths: Sequence[int], edges: Sequence[Edges], target: int) -> list[tuple[slice, ...]]:
    """Boxes tiling a region of `lengths`, cut only at chunk `edges` (any position where an axis has
    none), holding about `target` elements: the last axes whole while they fit, then as many chunks
    along the next as fit, one chunk (or one position) along the axes before it. The boxes come in
    row-major order of their corners, so along any axes the box at the start comes first.

    >>> block_keys([4, 6], [[0, 2, 4], [0, 3, 6]], 12)
    [(slice(0, 2, None), slice(0, 6, None)), (slice(2, 4, None), slice(0, 6, None))]
    """
    per_axis: list[list[slice]] = []
    inner = 1
    for length, cuts in zip(reversed(lengths), reversed(edges), strict=True):
        if inner * length <= target or length <= 1:
            per_axis.append([slice(0, length)])
            inner *= length
            continue
        if cuts is None:
            width = max(1, target // inner)
            per_axis.append([slice(lo, min(lo + width, length)) for lo in range(0, length, width)])
        else:
            per_axis.append(_grouped(cuts, max(1, target // inner)))
        inner = target + 1  # every axis before this one: one chunk or one position at a time
    return list(itertools.product(*reversed(per_axis)))


def _grouped(cuts: list[int], width: int) -> list[slice]:
    """Consecutive chunks along one axis, as many as fit in `width` positions (at least one)."""
    groups: list[slice] = []
    lo = 0
    for a, b in itertools.pairwise(cuts):
        if b - lo > width and a > lo:
            groups.append(slice(lo, a))
            lo = a
    groups.append(slice(lo, cuts[-1]))
    return groups


def base_region(t: Tensor) -> tuple[slice, ...] | None:
    """The per-axis slices of `t`'s base whose box holds exactly `t`'s values (in some order), or
    None when `t`'s positions are not such a box (a gather, or a reshape that skips).

    The layout's axes, flipped to positive strides, sorted and merged where one continues another, are
    matched to the base's axes from the last; a run longer than a base axis (a flattened or reshaped
    view) is cut back into that axis's rows.

    >>> import lazytensor as lt
    >>> base_region(lt.zeros(4, 6).T[::-2, 1:3])
    (slice(1, 3, 1), slice(1, 6, 2))
    >>> base_region(lt.zeros(2, 6).reshape(6, 2))  # runs of 12 positions cut into 2 rows of 6
    (slice(0, 2, 1), slice(0, 6, 1))
    >>> base_region(lt.zeros(4, 6).reshape(-1)[3:])  # not a box of the (4, 6) base
    """
    layout, shape = t.layout, t.base.shape
    if layout is None or t.numel() == 0:
        return None
    offset = layout.offset
    axes: list[tuple[int, int]] = []
    for size, stride in zip(layout.shape, layout.strides, strict=True):
        if size == 1:
            continue
        if stride <= 0:
            if stride == 0:
                return None
            offset += stride * (size - 1)
            stride = -stride
        axes.append((stride, size))
    start = [int(x) for x in np.unravel_index(offset, shape)] if shape else []
    key = [slice(x, x + 1) for x in start]
    unit = [math.prod(shape[a + 1 :]) for a in range(len(shape))]
    axis = len(shape) - 1
    pending = _merged_runs(sorted(axes))
    while pending:
        stride, size = pending.pop(0)
        while axis >= 0 and (shape[axis] == 1 or unit[axis] * shape[axis] <= stride):
            axis -= 1
        if axis < 0 or stride % unit[axis]:
            return None
        step = stride // unit[axis]
        row = shape[axis] // step  # how many positions of a run wrapping past this axis one base row takes
        if start[axis] + step * (size - 1) < shape[axis]:
            key[axis] = slice(start[axis], start[axis] + step * (size - 1) + 1, step)
        elif shape[axis] % step == 0 and start[axis] < step and size % row == 0:
            # (12,) stride 2 over a (3, 8) base: rows of 4 positions 2 apart, then the next row
            key[axis] = slice(start[axis], shape[axis], step)
            pending.insert(0, (stride * row, size // row))
        else:
            return None
        axis -= 1
    if math.prod(len(range(shape[a])[k]) for a, k in enumerate(key)) != t.numel():
        return None
    return tuple(key)


def _merged_runs(axes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(stride, size) axes sorted by stride, each axis that continues the one before merged into it
    (strides (6, 1) of a (2, 6) view: one run of 12): the runs a box's axes are cut from."""
    runs: list[tuple[int, int]] = []
    for stride, size in axes:
        if runs and runs[-1][0] * runs[-1][1] == stride:
            runs[-1] = (runs[-1][0], runs[-1][1] * size)
        else:
            runs.append((stride, size))
    return runs


def reordered_from(t: Tensor) -> Tensor:
    """The tensor under the layers over `t` that only reorder its values and leave no strided layout
    (a reshape of a transpose; the transpose under it has one): the same values, whose box of the
    base `base_region` finds, for what does not depend on their order.

    >>> import lazytensor as lt
    >>> view = lt.zeros(4, 6).T.reshape(-1)
    >>> view.layout, base_region(view), base_region(reordered_from(view))
    (None, None, (slice(0, 4, 1), slice(0, 6, 1)))
    """
    while t.layout is None and getattr(t, "keeps_values", False):
        t = cast(Wrapper, t).wrapped
    return t

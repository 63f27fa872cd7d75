"""numpy's `nonzero` and `count_nonzero` in work proportional to what memory holds, never to a shape.

An expanded tensor's values are a numpy view with stride-0 axes: `np.nonzero` on it walks every
position in one C loop that Ctrl-C cannot stop (years for a shape of 10**15 elements). Here a
repeated axis (stride 0, size > 1) is counted once and multiplied, so counting costs what the
elements in memory cost; the positions are refused at once with MemoryError naming their size when
they cannot fit, and otherwise built in blocks of at most `BLOCK` elements, each one numpy call,
from a Python loop (so Ctrl-C stops it between blocks). Kernels floor: numpy arrays in and out.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.ground.buffers import check_fits

Buffer = npt.NDArray[Any]
Positions = npt.NDArray[np.intp]

BLOCK = 1 << 20
"""The most elements one numpy call scans or writes here (about a millisecond of work)."""

_INTP_BYTES = np.dtype(np.intp).itemsize


def _repeats_first_axis(values: Buffer) -> bool:
    return values.strides[0] == 0 and values.shape[0] > 1


def count_nonzero(values: Buffer) -> int:
    """How many elements are not zero (true): a repeated axis is counted once and multiplied.

    >>> count_nonzero(np.broadcast_to(np.array([0, 1, 2]), (10**7, 10**7, 3)))
    200000000000000
    """
    if values.size <= BLOCK:
        return int(np.count_nonzero(values))
    if _repeats_first_axis(values):
        return int(values.shape[0]) * count_nonzero(values[0])
    rows = BLOCK // math.prod(values.shape[1:])
    if rows <= 1:  # a row holds a block or more: count row by row, one axis less
        return sum(count_nonzero(row) for row in values)
    return sum(count_nonzero(values[start : start + rows]) for start in range(0, values.shape[0], rows))


def _write_positions(values: Buffer, out: Positions, offset: int) -> int:
    """Write the positions of the nonzero elements of `values` (row-major order) into the columns
    `offset:` of `out`, one row per axis, a block at a time; return how many were written."""
    if values.ndim == 0:
        return int(bool(values))
    if values.size <= BLOCK:
        found = np.nonzero(values)
        for axis, indices in enumerate(found):
            out[axis, offset : offset + indices.size] = indices
        return int(found[0].size)
    n = int(values.shape[0])
    if _repeats_first_axis(values):  # every index of this axis has the same positions below it
        k = _write_positions(values[0], out[1:], offset)
        out[0, offset : offset + k] = 0
        step = max(1, BLOCK // max(k, 1))
        first = out[1:, offset : offset + k]
        for start in range(1, n, step) if k else ():
            stop = min(n, start + step)
            block = slice(offset + start * k, offset + stop * k)
            out[1:, block] = np.tile(first, stop - start)
            out[0, block] = np.repeat(np.arange(start, stop), k)
        return n * k
    rows = max(1, BLOCK // math.prod(values.shape[1:]))
    written = 0
    for start in range(0, n, rows):
        if rows > 1:
            k = _write_positions(values[start : start + rows], out, offset + written)
            out[0, offset + written : offset + written + k] += start
        else:
            k = _write_positions(values[start], out[1:], offset + written)
            out[0, offset + written : offset + written + k] = start
        written += k
    return written


def nonzero(values: Buffer) -> tuple[Positions, ...]:
    """numpy's `nonzero` (one index array per axis), refused at once with MemoryError naming the
    size when the indices cannot fit in memory.

    >>> [i.tolist() for i in nonzero(np.broadcast_to(np.array([0, 5]), (2, 2)))]
    [[0, 1], [1, 1]]
    """
    if values.ndim == 0:
        raise ValueError("nonzero of a 0-d array: index it as a[None] first, as numpy asks")
    count = count_nonzero(values)
    check_fits(
        count * values.ndim,
        _INTP_BYTES,
        lambda: f"nonzero() of shape {values.shape}: {values.ndim} index arrays of {count:,} positions",
    )
    out = np.empty((values.ndim, count), dtype=np.intp)
    if count:
        _write_positions(values, out, 0)
    return tuple(out)

"""Reads and writes of a zarr array for a zarr base: whatever zarr or a codec raises on them
(ZeroDivisionError, zlib.error, RuntimeError, ...) becomes one line naming the store and the key,
and orthogonal selections on axes of very many chunks are read as a few slices.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from lazytensor.bases.zarrstore import StoreError, shown

MAX_NAMED_CHUNKS = 16
"""After a failed read, at most this many chunks are read one by one to name the one that fails."""

MANY_CHUNKS = 100_000
"""An axis with more chunks than this is read by runs of indices: zarr's orthogonal selection
costs time and memory in proportion to the chunks along each axis (a bincount over them)."""
MAX_RUN_REQUESTS = 64


def _runs(indices: Any) -> list[slice]:
    """Sorted distinct indices as slices of consecutive ones: [0, 1, 2, 9, 10] as [0:3, 9:11]."""
    values = np.asarray(indices).reshape(-1)
    if values.size == 0:
        return [slice(0, 0)]
    breaks = np.flatnonzero(np.diff(values) != 1) + 1
    starts = np.concatenate(([0], breaks))
    stops = np.concatenate((breaks, [values.size]))
    return [slice(int(values[a]), int(values[b - 1]) + 1) for a, b in zip(starts, stops, strict=True)]


def outer_by_runs(array: Any, keys: tuple[Any, ...], limit: int = MAX_RUN_REQUESTS) -> Any:
    """An orthogonal selection of sorted distinct indices (or slices) per axis read as a few basic
    requests, one per run of consecutive indices, when an axis has more than MANY_CHUNKS chunks;
    None when zarr's own orthogonal selection is the better read.

    >>> import zarr
    >>> z = zarr.create_array({}, shape=(10**9,), chunks=(10,), dtype="i4", fill_value=3)
    >>> outer_by_runs(z, (np.array([0, 1, 999_999_999]),)).tolist()
    [3, 3, 3]
    """
    chunks = getattr(array, "chunks", None)
    if not chunks or all(
        -(-n // max(c, 1)) <= MANY_CHUNKS for n, c in zip(array.shape, chunks, strict=False)
    ):
        return None
    per_axis = [[key] if isinstance(key, slice) else _runs(key) for key in keys]
    if math.prod(len(runs) for runs in per_axis) > limit:
        return None
    lengths = [
        [len(range(*run.indices(n))) for run in runs] for runs, n in zip(per_axis, array.shape, strict=True)
    ]
    out: Any = None
    for picks in np.ndindex(*(len(runs) for runs in per_axis)):
        block = np.asarray(array[tuple(runs[i] for runs, i in zip(per_axis, picks, strict=True))])
        if out is None:
            out = np.empty(tuple(sum(sizes) for sizes in lengths), dtype=block.dtype)
        at = tuple(
            slice(sum(sizes[:i]), sum(sizes[: i + 1])) for sizes, i in zip(lengths, picks, strict=True)
        )
        out[at] = block
    return out


MAX_STEPPED_REQUESTS = 4096
"""The requests a stepped read makes at most (one per element it picks along the wide axes), unless
zarr's own read would visit `REQUEST_COST` times as many chunks."""
REQUEST_COST = 100
"""About how many chunks zarr's read walks past in the time of one request."""


def _stepped(key: Any, size: int, chunk: int) -> Any:
    """A slice whose step skips whole chunks of an axis of more than MANY_CHUNKS chunks, as the
    indices it picks; None for any other key item."""
    if not isinstance(key, slice) or -(-size // max(chunk, 1)) <= MANY_CHUNKS:
        return None
    start, stop, step = key.indices(size)
    return np.arange(start, stop, step) if step > chunk else None


def basic_by_runs(array: Any, key: tuple[Any, ...]) -> Any:
    """A basic selection with a slice whose step skips whole chunks of an axis of very many chunks,
    read as one request per picked element there: zarr walks every chunk of a slice's span
    (2**39 of them for `[0 : 2**40 : 2**40 - 1]`, minutes that Ctrl-C cannot stop) to read two
    elements. None when zarr's own read is the better one.

    >>> import zarr
    >>> z = zarr.create_array({}, shape=(10**9,), chunks=(2,), dtype="i4", fill_value=3)
    >>> basic_by_runs(z, (slice(0, 10**9, 10**9 - 1),)).tolist()
    [3, 3]
    """
    chunks = getattr(array, "chunks", None)
    if not chunks or len(key) > len(array.shape):
        return None
    items = (*key, *(slice(None),) * (len(array.shape) - len(key)))
    picked = [_stepped(item, n, c) for item, n, c in zip(items, array.shape, chunks, strict=True)]
    if all(p is None for p in picked):
        return None
    outer = tuple(
        p if p is not None else item if isinstance(item, slice) else slice(int(item) % n, int(item) % n + 1)
        for p, item, n in zip(picked, items, array.shape, strict=True)
    )
    walked = math.prod(  # the chunks zarr's own read would visit along each axis
        -(-len(range(*item.indices(n))) * abs(item.indices(n)[2]) // max(c, 1))
        if isinstance(item, slice)
        else 1
        for item, n, c in zip(items, array.shape, chunks, strict=True)
    )
    found = outer_by_runs(array, outer, max(MAX_STEPPED_REQUESTS, walked // REQUEST_COST))
    if found is None:
        return None
    return found[tuple(0 if isinstance(item, int | np.integer) else slice(None) for item in items)]


def _where(array: Any) -> str:
    store = getattr(array, "store", None)
    root = getattr(store, "root", None)
    name = str(root) if root is not None else str(getattr(array, "store_path", "") or "the zarr store")
    path = getattr(array, "path", "")
    return shown(f"{name}/{path}" if path else name)


def _chunk_coords(array: Any, request: Any) -> list[tuple[int, ...]]:
    """The chunk grid positions (file-level: shards where the array has them) a request touches."""
    grid = getattr(array, "shards", None) or array.chunks
    keys = request if isinstance(request, tuple) else (request,)
    per_axis: list[list[int]] = []
    for key, size, extent in zip(keys, grid, array.shape, strict=False):
        if isinstance(key, slice):
            indices = range(*key.indices(extent))
            touched = sorted({i // size for i in (indices[0], indices[-1])}) if len(indices) else []
            touched = list(range(touched[0], touched[-1] + 1)) if touched else []
        else:
            touched = sorted({int(i) // size for i in np.asarray(key).reshape(-1)})
        per_axis.append(touched)
        if math.prod(len(t) for t in per_axis) > MAX_NAMED_CHUNKS:
            return []
    if len(per_axis) != len(grid):
        return []
    coords: list[tuple[int, ...]] = [()]
    for touched in per_axis:
        coords = [(*c, i) for c in coords for i in touched]
    return coords


def _failing_key(array: Any, request: Any) -> str | None:
    """The key of the first chunk the request touches that cannot be read alone, or None."""
    with contextlib.suppress(Exception):
        grid = getattr(array, "shards", None) or array.chunks
        if math.prod(grid) * np.dtype(array.dtype).itemsize > 64 << 20:
            return None
        for coords in _chunk_coords(array, request):
            region = tuple(
                slice(c * n, min((c + 1) * n, extent))
                for c, n, extent in zip(coords, grid, array.shape, strict=True)
            )
            try:
                array[region]
            except Exception:
                return str(array.metadata.encode_chunk_key(coords))
    return None


@contextlib.contextmanager
def reading(array: Any, request: Any, action: str = "read") -> Iterator[None]:
    """Turn whatever a read (or write) of a zarr array raises into one line naming store and key:
    a StoreError (a ValueError), or a MemoryError when the chunks are larger than memory.

    >>> import zarr
    >>> z = zarr.create_array({}, shape=(4,), chunks=(2,), dtype="i4")
    >>> with reading(z, (slice(0, 4),)):
    ...     raise ZeroDivisionError("division by zero")
    Traceback (most recent call last):
    lazytensor.bases.zarrstore.StoreError: memory://...: cannot read (ZeroDivisionError: division by zero)
    """
    try:
        yield
    except (StoreError, TimeoutError):  # TimeoutError: a time limit's alarm, not the store's
        raise
    except Exception as error:
        key = _failing_key(array, request)
        detail = shown(" ".join(str(error).split())) or type(error).__name__
        if len(detail) > 200:
            detail = detail[:200] + "…"
        where = f"{_where(array)}: key {key}" if key is not None else _where(array)
        message = f"{where}: cannot {action} ({type(error).__name__}: {detail})"
        if isinstance(error, MemoryError):
            raise MemoryError(message) from None
        raise StoreError(message) from None


class GuardedReads:
    """A zarr array's basic reads with `reading`'s one-line errors: what dask reads the chunks of a
    zarr-backed tensor from (operations on it run through dask, chunk by chunk).

    >>> import zarr
    >>> GuardedReads(zarr.create_array({}, shape=(3,), chunks=(2,), dtype="i2", fill_value=4))[1:].tolist()
    [4, 4]
    """

    def __init__(self, array: Any) -> None:
        self.array = array
        self.shape = tuple(array.shape)
        self.dtype = np.dtype(array.dtype)
        self.ndim = len(self.shape)

    def __getitem__(self, key: Any) -> Any:
        with reading(self.array, key):
            return np.asarray(self.array[key])

"""Reads of a zarr base: orthogonal selections on axes of very many chunks read as runs, the chunks a
request touches, and the one-line error naming the store and the failing chunk.

Reaches into `lazytensor.bases.zarrreads` and `lazytensor.bases.zarrstore`: reads by runs, the chunk
coordinates named in errors and the guarded reads are checked on arrays and stand-ins no public call
builds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import zarr
import zarr.storage
from hypothesis import given
from hypothesis import strategies as st

from lazytensor.bases import zarrreads
from lazytensor.bases.zarrreads import GuardedReads, outer_by_runs, reading
from lazytensor.bases.zarrstore import StoreError


class Recorded:
    """An array-like over numpy values with zarr's `chunks` (and maybe `shards`), recording each request."""

    def __init__(
        self, values: np.ndarray, chunks: tuple[int, ...], shards: Any = None, fail: Any = None
    ) -> None:
        self.values = values
        self.shape = values.shape
        self.dtype = values.dtype
        self.chunks = chunks
        self.shards = shards
        self.requests: list[Any] = []
        self.fail = fail
        self.metadata = self

    def encode_chunk_key(self, coords: tuple[int, ...]) -> str:
        return "c/" + "/".join(map(str, coords))

    def __getitem__(self, key: Any) -> np.ndarray:
        self.requests.append(key)
        if self.fail is not None and self.fail(key):
            raise OSError("unreadable")
        return self.values[key]


def _reference_runs(values: list[int]) -> list[slice]:
    runs: list[list[int]] = []
    for v in values:
        if runs and runs[-1][-1] + 1 == v:
            runs[-1].append(v)
        else:
            runs.append([v])
    return [slice(r[0], r[-1] + 1) for r in runs] or [slice(0, 0)]


@given(st.sets(st.integers(0, 60)))
def test_runs_are_the_consecutive_stretches_of_sorted_indices(values: set[int]) -> None:
    ordered = sorted(values)
    assert zarrreads._runs(np.array(ordered, dtype=np.intp)) == _reference_runs(ordered)
    assert zarrreads._runs(np.array([ordered], dtype=np.intp).reshape(1, -1)) == _reference_runs(ordered)


many = zarrreads.MANY_CHUNKS


@given(
    rows=st.sets(st.integers(0, many), min_size=0, max_size=6),
    columns=st.one_of(
        st.sets(st.integers(0, 4), min_size=1, max_size=5).map(sorted),
        st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.sampled_from([1, 2, -1])).map(
            lambda t: slice(*t)
        ),
    ),
)
def test_outer_reads_by_runs_agree_with_numpy(rows: set[int], columns: Any) -> None:
    values = np.arange((many + 1) * 5, dtype=np.int32).reshape(many + 1, 5)
    array = Recorded(values, (1, 5))
    row_index = np.array(sorted(rows), dtype=np.intp)
    column_index = columns if isinstance(columns, slice) else np.array(columns, dtype=np.intp)
    out = outer_by_runs(array, (row_index, column_index))
    expected = values[row_index][:, column_index]
    assert out is not None or expected.size == 0
    if out is not None:
        assert out.dtype == values.dtype and out.shape == expected.shape
        np.testing.assert_array_equal(out, expected)
        column_runs = 1 if isinstance(columns, slice) else len(_reference_runs(list(columns)))
        assert len(array.requests) == len(_reference_runs(sorted(rows))) * column_runs


def test_outer_reads_by_runs_only_for_an_axis_of_very_many_chunks() -> None:
    index = np.array([0, 1, 5], dtype=np.intp)
    for size, chunk, expected in [
        (many, 1, None),
        (many + 1, 1, [0, 1, 5]),
        (2 * many, 2, None),
        (2 * many + 1, 2, [0, 1, 5]),
        (many + 1, 0, [0, 1, 5]),  # a chunk size of 0 counts as 1
    ]:
        array = Recorded(np.arange(size), (chunk,))
        out = outer_by_runs(array, (index,))
        assert (None if out is None else out.tolist()) == expected, (size, chunk)
    two_axes = Recorded(np.arange(6 * (many + 1)).reshape(6, many + 1), (6, 1))
    assert outer_by_runs(two_axes, (np.array([1]), np.array([many]))).tolist() == [[2 * many + 1]]
    assert outer_by_runs(np.arange(10), (index,)) is None
    assert outer_by_runs(Recorded(np.arange(3), ()), (index,)) is None


def test_outer_reads_by_runs_give_way_to_zarr_past_the_request_limit() -> None:
    array = Recorded(np.arange(3 * many), (1,))
    limit = zarrreads.MAX_RUN_REQUESTS
    at_limit = np.arange(0, 2 * limit, 2, dtype=np.intp)
    np.testing.assert_array_equal(outer_by_runs(array, (at_limit,)), at_limit)
    assert len(array.requests) == limit
    assert outer_by_runs(array, (np.arange(0, 2 * limit + 2, 2, dtype=np.intp),)) is None


def test_the_store_is_named_by_its_root_or_path() -> None:
    class Store:
        root = "/data/x.zarr"

    class Array:
        def __init__(self, store: Any, path: str = "", store_path: Any = None) -> None:
            self.store, self.path, self.store_path = store, path, store_path

    assert zarrreads._where(Array(Store())) == "/data/x.zarr"
    assert zarrreads._where(Array(Store(), "group/a")) == "/data/x.zarr/group/a"
    assert zarrreads._where(Array(None, "", "memory://1")) == "memory://1"
    assert zarrreads._where(Array(object(), "a", "memory://1")) == "memory://1/a"
    assert zarrreads._where(Array(None, "", "")) == "the zarr store"
    assert zarrreads._where(object()) == "the zarr store"


def _touched(
    request: tuple[Any, ...], grid: tuple[int, ...], shape: tuple[int, ...]
) -> list[tuple[int, ...]]:
    """Brute force: the chunks holding the first to the last element the request reads, per axis."""
    per_axis = []
    for key, size, extent in zip(request, grid, shape, strict=True):
        picked = np.arange(extent)[key].reshape(-1)
        chunks = sorted({int(i) // size for i in picked})
        per_axis.append(
            list(range(chunks[0], chunks[-1] + 1)) if isinstance(key, slice) and chunks else chunks
        )
    return [
        tuple(per_axis[axis][i] for axis, i in enumerate(coords))
        for coords in np.ndindex(*map(len, per_axis))
    ]


keys = st.one_of(
    st.tuples(st.integers(-12, 12), st.integers(-12, 12), st.sampled_from([1, 3, -1, -4])).map(
        lambda t: slice(*t)
    ),
    st.lists(st.integers(0, 9), min_size=1, max_size=4).map(lambda v: np.array(v, dtype=np.intp)),
    st.integers(0, 9),
)


@given(first=keys, second=keys, grid=st.tuples(st.integers(1, 4), st.integers(1, 4)), sharded=st.booleans())
def test_chunk_coords_are_the_chunks_a_request_touches(
    first: Any, second: Any, grid: Any, sharded: bool
) -> None:
    shape = (10, 10)
    array = Recorded(np.zeros(shape), (1, 1), shards=grid) if sharded else Recorded(np.zeros(shape), grid)
    expected = _touched((first, second), grid, shape)
    if len(expected) > zarrreads.MAX_NAMED_CHUNKS:
        expected = []
    assert zarrreads._chunk_coords(array, (first, second)) == expected


def test_chunk_coords_of_a_request_short_of_axes_are_none() -> None:
    array = Recorded(np.zeros((4, 4)), (2, 2))
    assert zarrreads._chunk_coords(array, (slice(0, 4),)) == []
    assert zarrreads._chunk_coords(Recorded(np.zeros(4), (2,)), slice(1, 3)) == [(0,), (1,)]
    assert zarrreads._chunk_coords(Recorded(np.zeros(40), (2,)), slice(0, 32)) == [(i,) for i in range(16)]
    assert zarrreads._chunk_coords(Recorded(np.zeros(40), (2,)), slice(0, 33)) == []


def test_the_failing_chunk_is_found_by_reading_each_alone() -> None:
    def fails(key: Any) -> bool:
        return key == (slice(4, 6), slice(3, 5))

    array = Recorded(np.zeros((6, 5)), (2, 3), fail=fails)
    assert zarrreads._failing_key(array, (slice(None), slice(None))) == "c/2/1"
    assert array.requests == [
        (slice(0, 2), slice(0, 3)),
        (slice(0, 2), slice(3, 5)),
        (slice(2, 4), slice(0, 3)),
        (slice(2, 4), slice(3, 5)),
        (slice(4, 6), slice(0, 3)),
        (slice(4, 6), slice(3, 5)),
    ]
    assert zarrreads._failing_key(array, (slice(0, 4), slice(None))) is None
    sharded = Recorded(np.zeros((6, 5)), (1, 1), shards=(2, 3), fail=fails)
    assert zarrreads._failing_key(sharded, (np.array([5]), slice(None))) == "c/2/1"


def test_the_failing_chunk_is_not_searched_in_chunks_too_large() -> None:
    fails = lambda key: True  # noqa: E731
    at_limit = Recorded(np.zeros(1, dtype=np.int8), (64 << 20,), fail=fails)
    assert zarrreads._failing_key(at_limit, (slice(None),)) == "c/0"
    past = Recorded(np.zeros(1, dtype=np.int8), ((64 << 20) + 1,), fail=fails)
    assert zarrreads._failing_key(past, (slice(None),)) is None
    assert past.requests == []
    wide = Recorded(np.zeros(1, dtype=np.int16), (32 << 20,), fail=fails)
    assert zarrreads._failing_key(wide, (slice(None),)) == "c/0"
    wider = Recorded(np.zeros(1, dtype=np.int16), ((32 << 20) + 1,), fail=fails)
    assert zarrreads._failing_key(wider, (slice(None),)) is None


def test_an_array_without_chunks_names_no_chunk() -> None:
    class Bare:  # a zarr-like array whose chunks cannot be asked for
        shape = (4,)
        dtype = np.dtype("i4")

    assert zarrreads._failing_key(Bare(), (slice(0, 4),)) is None
    with pytest.raises(StoreError) as caught, reading(Bare(), (slice(0, 4),)):
        raise OSError("gone")
    assert str(caught.value) == "the zarr store: cannot read (OSError: gone)"


def _broken_array() -> Any:
    store = zarr.storage.MemoryStore()
    z = zarr.create_array(store, shape=(6,), chunks=(2,), dtype="<f8", compressors=zarr.codecs.GzipCodec())
    z[:] = np.arange(6.0)
    store._store_dict["c/1"] = store._store_dict["c/1"].__class__.from_bytes(b"not gzip")
    return z


def test_a_failed_read_names_the_store_and_the_chunk() -> None:
    z = _broken_array()
    with pytest.raises(StoreError) as caught, reading(z, (slice(0, 6),)):
        z[0:6]
    message = str(caught.value)
    assert message.startswith(f"{zarrreads._where(z)}: key c/1: cannot read (BadGzipFile: ")
    assert "\n" not in message
    with pytest.raises(StoreError) as caught, reading(z, (slice(4, 6),), "write"):
        raise RuntimeError("no\n  chunk")
    assert str(caught.value) == f"{zarrreads._where(z)}: cannot write (RuntimeError: no chunk)"
    reads = GuardedReads(z)
    assert (reads.shape, reads.dtype, reads.ndim) == ((6,), np.dtype("<f8"), 1)
    assert type(reads.dtype) is type(np.dtype("<f8"))
    small = GuardedReads(zarr.create_array({}, shape=(2, 3), chunks=(1, 3), dtype="<i2", fill_value=5))
    assert (small.shape, small.dtype, small.ndim) == ((2, 3), np.dtype("<i2"), 2)
    assert small[1].tolist() == [5, 5, 5]
    assert reads[4:].tolist() == [4.0, 5.0] and isinstance(reads[4:], np.ndarray)
    with pytest.raises(StoreError, match="key c/1: cannot read"):
        reads[1:3]


def test_a_failed_read_s_message_is_one_short_line() -> None:
    z = zarr.create_array({}, shape=(4,), chunks=(2,), dtype="i4")
    where = zarrreads._where(z)
    with pytest.raises(StoreError) as caught, reading(z, (slice(0, 4),)):
        raise ValueError("x" * 200)
    assert str(caught.value) == f"{where}: cannot read (ValueError: {'x' * 200})"
    with pytest.raises(StoreError) as caught, reading(z, (slice(0, 4),)):
        raise ValueError("y" * 201)
    assert str(caught.value) == f"{where}: cannot read (ValueError: {'y' * 200}…)"
    with pytest.raises(StoreError) as caught, reading(z, (slice(0, 4),)):
        raise ZeroDivisionError()
    assert str(caught.value) == f"{where}: cannot read (ZeroDivisionError: ZeroDivisionError)"
    with pytest.raises(MemoryError) as memory, reading(z, (slice(0, 4),)):
        raise MemoryError("16 GiB")
    assert type(memory.value) is MemoryError
    assert str(memory.value) == f"{where}: cannot read (MemoryError: 16 GiB)"


def test_store_errors_and_time_limits_pass_through_unchanged() -> None:
    z = zarr.create_array({}, shape=(4,), chunks=(2,), dtype="i4")
    for error in (StoreError("key c/0: is a FIFO"), TimeoutError("still running")):
        with pytest.raises(type(error)) as caught, reading(z, (slice(0, 4),)):
            raise error
        assert caught.value is error
    with reading(z, (slice(0, 4),)):
        pass

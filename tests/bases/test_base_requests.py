"""How an array base lowers reads and writes to its backend's requests: the virtual grid of a backend
without chunks, the bounding box of a small selection, one request per chunk touched otherwise, and
the per-axis slices of a strided view (checked against numpy's view, request by request).

Reaches into `lazytensor.bases.arraylike`: the requests a read is lowered to (`virtual_chunks`,
`points_by_request`, ...) are checked one by one on the generic backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from bases_support import Plain

import lazytensor as lt
from lazytensor.bases import arraylike
from lazytensor.bases.arraylike import virtual_chunks

Shape = tuple[int, ...]


@pytest.mark.parametrize(
    ("shape", "chunks"),
    [
        ((1, 1000), (1, 1000)),  # an axis of size 1 is a chunk of 1
        ((3, 65536), (1, 65536)),  # the last axis fills the block: one row a chunk
        ((2, 40000), (1, 40000)),
        ((4, 300, 300), (1, 218, 300)),  # trailing axes whole while they fit, then part of the next
        ((10**6,), (65536,)),
        ((5,), (5,)),
        ((0, 5), (1, 5)),
        ((7, 0, 3), (7, 1, 3)),  # an empty axis takes no room
        ((), ()),
    ],
)
def test_the_virtual_grid_fills_blocks_from_the_last_axis(
    shape: tuple[int, ...], chunks: tuple[int, ...]
) -> None:
    assert virtual_chunks(shape) == chunks


class Recording(Plain):
    """A slice-only array-like that keeps every key it is asked for."""

    def __init__(self, array: np.ndarray, chunks: tuple[int, ...] | None = None) -> None:
        super().__init__(array, chunks)
        self.keys: list[object] = []
        self.written: list[object] = []
        self.c_ordered: list[bool] = []

    def __getitem__(self, key: object) -> np.ndarray:
        self.keys.append(key)
        return super().__getitem__(key)

    def __setitem__(self, key: object, value: object) -> None:
        self.written.append(key)
        self.c_ordered.append(bool(np.asarray(value).flags.c_contiguous))
        super().__setitem__(key, value)


def _points(array: Recording, *coords: list[int]) -> np.ndarray:
    index = tuple(np.array(c, dtype=np.intp) for c in coords)
    got = np.asarray(arraylike.points_by_request(arraylike.Backend(), array, index, array.shape))
    assert got.tolist() == array.array[index].tolist() and got.dtype == array.dtype
    return got


def test_points_in_a_small_box_are_read_as_the_box() -> None:
    array = Recording(np.arange(100.0), chunks=(10,))
    _points(array, [51, 20])  # a box of 32 elements for 2 points: BOX_FACTOR * 2, exactly
    assert array.keys == [(slice(20, 52),)]
    array.keys.clear()
    _points(array, [15, 52])  # 38: one request per chunk touched instead (chunks 1 and 5)
    assert array.keys == [(slice(15, 16),), (slice(52, 53),)]


def test_points_in_a_big_box_are_read_per_chunk_each_as_the_box_of_its_points() -> None:
    values = np.arange(10_000, dtype=np.int64).reshape(100, 100) + 2**60  # not exact as float64
    array = Recording(values, chunks=(50, 50))
    _points(array, [3, 60, 7, 99, 4], [5, 2, 90, 95, 1])
    assert sorted(array.keys, key=str) == sorted(
        [
            (slice(3, 5), slice(1, 6)),  # chunk (0, 0): points (3, 5), (4, 1)
            (slice(60, 61), slice(2, 3)),  # chunk (1, 0)
            (slice(7, 8), slice(90, 91)),  # chunk (0, 1)
            (slice(99, 100), slice(95, 96)),  # chunk (1, 1)
        ],
        key=str,
    )
    undeclared = Recording(
        np.arange(300_000, dtype=np.int32).reshape(3, 100_000)
    )  # virtual chunks of (1, 65536)
    _points(undeclared, [0, 2, 0], [0, 99_999, 70_000])
    assert sorted(undeclared.keys, key=str) == sorted(
        [
            (slice(0, 1), slice(0, 1)),
            (slice(0, 1), slice(70_000, 70_001)),
            (slice(2, 3), slice(99_999, 100_000)),
        ],
        key=str,
    )


def _outer(array: Recording, *keys: slice | list[int]) -> np.ndarray:
    index = tuple(k if isinstance(k, slice) else np.array(k, dtype=np.intp) for k in keys)
    got = np.asarray(arraylike.outer_by_request(arraylike.Backend(), array, index, array.shape))
    per_axis = [np.arange(n)[k] for k, n in zip(index, array.shape, strict=True)]
    expected = array.array[np.ix_(*per_axis)]
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert got.tolist() == expected.tolist()
    return got


def test_an_outer_selection_in_a_small_box_is_read_as_the_box() -> None:
    values = np.arange(10_000, dtype=np.int64).reshape(100, 100) + 2**60
    array = Recording(values, chunks=(4, 4))
    _outer(array, [0, 7], [7, 0])  # 2 × 2 points in a box of 64: BOX_FACTOR * 4, exactly
    assert array.keys == [(slice(0, 8), slice(0, 8))]
    array.keys.clear()
    _outer(array, slice(2, 4), [9, 0])
    assert array.keys == [(slice(2, 4), slice(0, 10))]
    array.keys.clear()
    _outer(array, [0, 8], [7, 0])  # a box of 72: the four points, one request per chunk
    assert sorted(array.keys, key=str) == sorted(
        [(slice(r, r + 1), slice(c, c + 1)) for r in (0, 8) for c in (0, 7)], key=str
    )


def test_scattered_writes_read_and_write_back_each_box_once() -> None:
    values = np.arange(100, dtype=np.int64).reshape(10, 10)
    array = Recording(values.copy(), chunks=(5, 5))
    rows, cols = np.array([1, 3]), np.array([2, 0])
    arraylike.set_points_by_request(arraylike.Backend(), array, (rows, cols), np.array([-1, -2]), array.shape)
    expected = values.copy()
    expected[rows, cols] = [-1, -2]
    assert array.array.tolist() == expected.tolist()
    assert array.keys == array.written == [(slice(1, 4), slice(0, 3))]  # 9 elements: one box
    array.keys.clear()
    array.written.clear()
    rows, cols = np.array([0, 9, 4]), np.array([0, 9, 1])
    arraylike.set_points_by_request(
        arraylike.Backend(), array, (rows, cols), np.array([-3, -4, -5]), array.shape
    )
    expected[rows, cols] = [-3, -4, -5]
    assert array.array.tolist() == expected.tolist()
    boxes = [(slice(0, 5), slice(0, 2)), (slice(9, 10), slice(9, 10))]  # (0, 0) and (4, 1) share a chunk
    assert sorted(array.keys, key=str) == sorted(array.written, key=str) == sorted(boxes, key=str)


def test_scattered_writes_in_a_box_of_exactly_the_limit_take_one_box() -> None:
    array = Recording(np.arange(100, dtype=np.int64), chunks=(10,))
    arraylike.set_points_by_request(
        arraylike.Backend(), array, (np.array([20, 51]),), np.array([-1, -2]), array.shape
    )
    assert array.keys == array.written == [(slice(20, 52),)]  # 32 elements: BOX_FACTOR * 2
    array.keys.clear()
    array.written.clear()
    arraylike.set_points_by_request(
        arraylike.Backend(), array, (np.array([20, 52]),), np.array([-3, -4]), array.shape
    )
    assert array.keys == array.written == [(slice(20, 21),), (slice(52, 53),)]
    assert array.array[[20, 51, 52]].tolist() == [-3, -2, -4]


def test_scattered_writes_to_an_array_without_chunks_group_by_the_virtual_grid() -> None:
    array = Recording(np.zeros((3, 100_000), dtype=np.int32))
    t = lt.from_array(array)
    t[[0, 2, 0], [0, 99_999, 70_000]] = lt.tensor([1, 2, 3], dtype="int32")
    assert array.array[[0, 2, 0], [0, 99_999, 70_000]].tolist() == [1, 2, 3]
    assert array.array.sum() == 6
    assert sorted(array.written, key=str) == sorted(
        [
            (slice(0, 1), slice(0, 1)),
            (slice(0, 1), slice(70_000, 70_001)),
            (slice(2, 3), slice(99_999, 100_000)),
        ],
        key=str,
    )


def test_repeated_writes_into_a_0_d_base_leave_the_last_as_numpy_does() -> None:
    array = Recording(np.array(0.0))
    view = lt.from_array(array).reshape(1)[[0, 0, 0]]
    view[...] = lt.tensor([1.0, 2.0, 3.0])
    expected = np.zeros(1)
    expected[[0, 0, 0]] = [1.0, 2.0, 3.0]
    assert array.array.item() == expected.item() == 3.0


@pytest.mark.parametrize(
    ("view", "key"),
    [
        (lambda t: t[1:3], (slice(1, 3, 1), slice(0, 4, 1))),
        (lambda t: t.T[::-2, 1:], (slice(1, 3, 1), slice(1, 4, 2))),  # flipped and transposed
        (lambda t: t[2:, None, ::3], (2, slice(0, 4, 3))),  # axes of size 1: the row is an int
        (lambda t: t[1], (1, slice(0, 4, 1))),
    ],
)
def test_a_write_through_a_strided_view_is_one_request_of_c_ordered_values(
    view: Any, key: tuple[object, ...]
) -> None:
    values = np.arange(12, dtype=np.int64).reshape(3, 4)
    array = Recording(values.copy())
    target = view(lt.from_array(array))
    new = -np.arange(1, target.numel() + 1).reshape(target.shape)
    target[...] = lt.tensor(new)
    expected = values.copy()
    view(expected)[...] = new
    assert array.array.tolist() == expected.tolist()
    assert array.keys == [] and array.written == [key] and array.c_ordered == [True]


def test_every_write_into_an_array_base_counts_one_version() -> None:
    t = lt.from_array(Recording(np.zeros((3, 4))))
    assert t.base.version == 0
    t[1:] = 1.0
    t[[0, 2], [1, 3]] = lt.tensor([2.0, 3.0])
    t.T.set((3, 0), 4.0)
    assert t.base.version == 3 and t.T.base.version == 3


def test_a_backend_that_declares_outer_selection_answers_it_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arraylike, "BACKENDS", list(arraylike.BACKENDS))  # the new class registers itself

    class Outer(arraylike.Backend):
        kind = "outer"
        indexing = arraylike.Indexing.OUTER

        def outer(self, array: Any, keys: Any) -> Any:
            return array.array[np.ix_(*arraylike._per_axis(keys, array.shape))] * 10

    array = Recording(np.arange(20).reshape(4, 5))
    keys = (np.array([0, 3]), slice(1, 3))
    got = arraylike.outer_by_request(Outer(), array, keys, array.shape)
    assert got.tolist() == [[10, 20], [160, 170]] and array.keys == []  # no basic request

"""The plan of `t.stats()`'s pass over a box of its base: blocks as big as the target allows, cut only
at chunk edges (`block_keys`), the chunk shape it trusts (`chunk_shape`), and the box of a view
(`base_region`).

Reaches into `lazytensor.printer.streamstats` and `lazytensor.ground`: the plan of the pass
(`block_keys`, `chunk_shape`, and `base_region` from `ground.blockplan`) is checked as properties of
those functions.
"""

from __future__ import annotations

import collections
import itertools
import math
from typing import Any

import numpy as np
import pytest
import zarr
from hypothesis import given, settings
from hypothesis import strategies as st
from test_stats_onepass import CountingStore, assert_numpy_statistics

import lazytensor as lt
from lazytensor.ground.blockplan import base_region
from lazytensor.printer.streamstats import block_keys, chunk_edges, chunk_shape, one_pass


def _pieces(length: int, cuts: list[int] | None) -> list[tuple[int, int]]:
    """The chunks of an axis as (start, stop), single positions when it has none."""
    bounds = list(range(length + 1)) if cuts is None else cuts
    return list(itertools.pairwise(bounds))


def _span(block_slice: slice, length: int) -> tuple[int, int]:
    start, stop, step = block_slice.indices(length)
    assert step == 1
    return start, stop


def assert_the_plan(lengths: list[int], edges: list[list[int] | None], target: int) -> None:
    """`block_keys`' docstring as a check: the blocks tile the region; the last axes are whole while
    they fit `target`; along the next (the cut axis) each block takes as many chunks as fit (one at
    least) and no more; along the axes before it each block is exactly one chunk (or one position)."""
    blocks = block_keys(lengths, edges, target)
    covered = np.zeros(lengths, dtype=int)
    for block in blocks:
        covered[block] += 1
    assert (covered == 1).all(), "the blocks tile the region, each position once"
    cut = max(
        (a for a in range(len(lengths)) if lengths[a] > 1 and math.prod(lengths[a:]) > target), default=None
    )
    if cut is None:
        assert [tuple(_span(s, n) for s, n in zip(b, lengths, strict=True)) for b in blocks] == [
            tuple((0, n) for n in lengths)
        ], "a region that fits the target is one block"
        return
    inner = math.prod(lengths[cut + 1 :])
    pieces = _pieces(lengths[cut], edges[cut])
    starts = [lo for lo, _ in pieces]
    for block in blocks:
        spans = [_span(s, n) for s, n in zip(block, lengths, strict=True)]
        assert spans[cut + 1 :] == [(0, n) for n in lengths[cut + 1 :]], "the axes after the cut are whole"
        for a in range(cut):
            assert spans[a] in _pieces(lengths[a], edges[a]), f"axis {a} before the cut: one chunk"
        lo, hi = spans[cut]
        assert lo in starts and (hi == lengths[cut] or hi in starts), "the cut axis is cut at chunk edges"
        chunks_taken = [p for p in pieces if lo <= p[0] < hi]
        if len(chunks_taken) > 1:
            assert (hi - lo) * inner <= target, "more than one chunk only while they fit"
        if hi < lengths[cut]:
            following = pieces[starts.index(hi)]
            assert (following[1] - lo) * inner > target, "one more chunk would not fit"


@st.composite
def planned_regions(draw: st.DrawFn) -> tuple[list[int], list[list[int] | None], int]:
    """A box of a base (per-axis slices), the chunk edges along it, and a block target."""
    ndim = draw(st.integers(1, 4))
    lengths: list[int] = []
    edges: list[list[int] | None] = []
    for _ in range(ndim):
        size = draw(st.integers(1, 12))
        start = draw(st.integers(0, size - 1))
        key = slice(start, draw(st.integers(start + 1, size)), draw(st.integers(1, 3)))
        lengths.append(len(range(size)[key]))
        edges.append(chunk_edges(key, draw(st.none() | st.integers(1, 5)), size))
    return lengths, edges, draw(st.integers(1, math.prod(lengths) + 1))  # from one position to all


@settings(max_examples=400, deadline=None)
@given(plan=planned_regions())
def test_blocks_are_as_big_as_the_target_allows_and_cut_at_chunk_edges(plan: Any) -> None:
    assert_the_plan(*plan)


@pytest.mark.parametrize(
    ("lengths", "edges", "target", "expected"),
    [
        ([4, 6], [None, None], 24, [((0, 4), (0, 6))]),
        ([2, 3, 4], [None, None, None], 100, [((0, 2), (0, 3), (0, 4))]),
        ([2, 10], [None, None], 10, [((0, 1), (0, 10)), ((1, 2), (0, 10))]),
        ([3, 3, 3], [None, None, None], 9, [((a, a + 1), (0, 3), (0, 3)) for a in range(3)]),
        ([3, 3], [None, None], 1, [((a, a + 1), (b, b + 1)) for a in range(3) for b in range(3)]),
        ([10], [[0, 2, 4, 6, 8, 10]], 4, [((0, 4),), ((4, 8),), ((8, 10),)]),
        ([4], [[0, 2, 4]], 4, [((0, 4),)]),
        ([4, 10], [[0, 1, 2, 3, 4], None], 10, [((a, a + 1), (0, 10)) for a in range(4)]),
    ],
    ids=[
        "fits",
        "fits_3d",
        "rows",
        "planes",
        "target_1",
        "groups_after_the_first",
        "exact_fit",
        "unit_chunks",
    ],
)
def test_block_plans_by_hand(
    lengths: list[int],
    edges: list[list[int] | None],
    target: int,
    expected: list[tuple[tuple[int, int], ...]],
) -> None:
    blocks = block_keys(lengths, edges, target)
    assert [tuple(_span(s, n) for s, n in zip(b, lengths, strict=True)) for b in blocks] == expected
    assert_the_plan(lengths, edges, target)


@pytest.mark.parametrize("chunk", [3, 5])
def test_chunks_of_one_and_two_positions_are_each_read_once(chunk: int) -> None:
    """Chunks (1, 2): the cut axis groups whole chunks of two, never one position of each."""
    values = np.arange(60.0).reshape(6, 10) - 20.0
    store = CountingStore()
    array = zarr.create_array(
        store=store, shape=values.shape, chunks=(1, 2), dtype=values.dtype, fill_value=0
    )
    array[...] = values
    store.chunk_reads.clear()
    got = one_pass(lt.from_array(array), chunk).numbers()
    every_chunk = {f"c/{a}/{b}" for a in range(6) for b in range(5)}
    assert collections.Counter(store.chunk_reads) == dict.fromkeys(every_chunk, 1)
    assert_numpy_statistics(got, values)


class Chunked:
    """A bare array-like with a `chunks` attribute of any form (what a base's `.array` can carry)."""

    def __init__(self, values: np.ndarray, chunks: Any) -> None:
        self.values = values
        self.shape = values.shape
        self.dtype = values.dtype
        self.ndim = values.ndim
        self.chunks = chunks

    def __getitem__(self, key: Any) -> np.ndarray:
        return np.array(self.values[key])


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ((2, 3), (2, 3)),
        ((1, 1), (1, 1)),
        ((np.int64(4), 1), (4, 1)),
        (((2, 2), (3, 3)), None),
        ((0, 3), None),
        ((2, -1), None),
        ((2.0, 3), None),
        ((2,), None),
        (None, None),
        ([2, 3], None),
    ],
    ids=[
        "ints",
        "ones",
        "numpy_int",
        "per_axis_tuples",
        "zero",
        "negative",
        "float",
        "short",
        "none",
        "list",
    ],
)
def test_chunk_shape_is_trusted_only_when_it_is_positive_ints_one_per_axis(
    chunks: Any, expected: Any
) -> None:
    values = np.arange(24.0).reshape(4, 6)
    t = lt.from_array(Chunked(values, chunks))
    assert chunk_shape(t.base) == expected
    assert_numpy_statistics(one_pass(t[::-1, 1:], chunk=4).numbers(), values[::-1, 1:])


@pytest.mark.parametrize(
    "make",
    [
        lambda: lt.zeros(3).expand(4, 3),
        lambda: lt.zeros(2, 1, 3).expand(2, 5, 3)[:, ::-1],
        lambda: lt.zeros(5, 1).expand(5, 2).T,
        lambda: lt.zeros(3, 4)[:, :1].expand(3, 5),
        lambda: lt.zeros(3, 4)[1:, 2:3].expand(2, 6)[:, ::-2],
    ],
    ids=["leading", "middle_flipped", "transposed", "column_repeated", "column_repeated_strided"],
)
def test_a_view_that_repeats_its_values_is_no_box_of_its_base(make: Any) -> None:
    assert base_region(make()) is None

"""`base_region`, the box of its base that `t.stats()` reads for a view: a basic index of the base (ints,
slices of any step, in any axis order) is always a box, and a run of the flattened base, reshaped, is a
box exactly when its positions are one; the box holds the view's values, each once.

Reaches into `lazytensor.printer.streamstats` and `lazytensor.ground`: the box of the base a view
covers (`ground.blockplan.base_region`) is checked as a function, and the pass that reads it beside it.
"""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_stats_onepass import CountingStore, _all_chunk_keys, _zarr, assert_numpy_statistics

import lazytensor as lt
from lazytensor.ground.blockplan import base_region
from lazytensor.printer.streamstats import one_pass


def _sides(max_dims: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(1, 6), min_size=1, max_size=max_dims).map(tuple)


def _boxed(shape: tuple[int, ...], region: tuple[slice, ...]) -> list[int]:
    """The base positions in the box `region`, sorted."""
    return sorted(np.arange(math.prod(shape)).reshape(shape)[region].reshape(-1).tolist())


def _is_box(positions: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether distinct base positions are a box: one arithmetic progression along each base axis."""
    if len(np.unique(positions)) != positions.size:
        return False
    per_axis = [np.unique(c) for c in np.unravel_index(positions.reshape(-1), shape)]
    progressions = all(len(u) <= 2 or len(set(np.diff(u).tolist())) == 1 for u in per_axis)
    return progressions and math.prod(len(u) for u in per_axis) == positions.size


@st.composite
def basic_keys(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int | slice, ...]:
    """One int or one non-empty slice (any step, negative too) per axis."""
    key: list[int | slice] = []
    sliced = draw(st.integers(0, len(shape) - 1))  # one slice at least: a view, not a numpy scalar
    for axis, size in enumerate(shape):
        if axis != sliced and draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
            continue
        step = draw(st.integers(1, size)) * draw(st.sampled_from([1, -1]))
        start = draw(st.integers(0, size - 1))
        key.append(slice(start, None, step))
    return tuple(key)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_basic_index_of_the_base_is_a_box_of_its_values(data: Any) -> None:
    shape = data.draw(_sides())
    key = data.draw(basic_keys(shape))
    ref = np.arange(math.prod(shape)).reshape(shape)
    base = lt.from_numpy(ref)
    ref = ref[key]
    view = base[key]
    if ref.ndim > 1:
        order = data.draw(st.permutations(range(ref.ndim)))
        view, ref = view.permute(*order), ref.transpose(order)
    assert view.base.shape == shape
    region = base_region(view)
    assert region is not None, f"{shape}[{key}] is a box of its base"
    assert _boxed(shape, region) == sorted(ref.reshape(-1).tolist())


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_run_of_the_flattened_base_is_a_box_exactly_when_its_positions_are(data: Any) -> None:
    shape = data.draw(_sides())
    total = math.prod(shape)
    start = data.draw(st.integers(0, total - 1))
    step = data.draw(st.integers(1, total))
    ref = np.arange(total)[start::step]
    split = data.draw(st.sampled_from([n for n in range(1, ref.size + 1) if ref.size % n == 0]))
    view = lt.from_numpy(np.arange(total).reshape(shape)).reshape(-1)[start::step].reshape(split, -1)
    assert view.base.shape == shape
    region = base_region(view)
    if region is None:
        assert not _is_box(ref, shape), f"positions {ref.tolist()} of {shape} are a box"
        return
    assert _boxed(shape, region) == ref.tolist()


@pytest.mark.parametrize(
    ("make", "region"),
    [
        # a view that skips whole base axes: stride 6 over the rows of (4, 6)
        (lambda: lt.zeros(4, 6)[:, 0], (slice(0, 4, 1), slice(0, 1))),
        (lambda: lt.zeros(3, 4)[:2, 3], (slice(0, 2, 1), slice(3, 4))),
        # an axis of length 2 in the base
        (lambda: lt.zeros(2, 3).reshape(-1), (slice(0, 2, 1), slice(0, 3, 1))),
        (lambda: lt.zeros(3, 2)[:2], (slice(0, 2, 1), slice(0, 2, 1))),
        # rows of 5 over a base with rows of 4: the view's axes merge, then split back into the base's
        (lambda: lt.zeros(5, 4).reshape(4, 5), (slice(0, 5, 1), slice(0, 4, 1))),
        (lambda: lt.zeros(6, 3).reshape(-1)[3:15].reshape(3, 4).T, (slice(1, 5, 1), slice(0, 3, 1))),
        # a run longer than the base's rows, cut back into them: every position, every second one
        (lambda: lt.zeros(2, 6).reshape(6, 2), (slice(0, 2, 1), slice(0, 6, 1))),
        (lambda: lt.zeros(13, 10, 8).reshape(-1, 4), (slice(0, 13, 1), slice(0, 10, 1), slice(0, 8, 1))),
        (lambda: lt.zeros(3, 8).reshape(-1)[::2], (slice(0, 3, 1), slice(0, 8, 2))),
        (lambda: lt.zeros(3, 8).reshape(-1)[1::2].reshape(3, 2, 2), (slice(0, 3, 1), slice(1, 8, 2))),
        (lambda: lt.zeros(3, 8).reshape(-1)[2::2], None),
        # every third of a base with rows of 2: positions 1, 4, 7, 10 are no box
        (lambda: lt.zeros(6, 2).reshape(-1)[1::3], None),
        (lambda: lt.zeros(3, 4).reshape(-1)[::5], None),
    ],
)
def test_base_regions_by_hand(make: Any, region: tuple[slice, ...] | None) -> None:
    assert base_region(make()) == region


@pytest.mark.parametrize(
    "view", [lambda t: t.reshape(-1, 4), lambda t: t.reshape(-1)[1::2]], ids=["shorter_rows", "odd_positions"]
)
def test_stats_of_a_view_that_runs_across_the_base_rows_read_each_chunk_once(view: Any) -> None:
    """A box whose view runs across the base's rows is still read by blocks: each chunk once."""
    shape, chunks = (13, 10, 8), (5, 4, 3)
    values = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    store = CountingStore()
    t = view(lt.from_array(_zarr(values, chunks, store)))
    store.chunk_reads.clear()
    got = one_pass(t, 50).numbers()
    assert collections.Counter(store.chunk_reads) == dict.fromkeys(_all_chunk_keys(shape, chunks), 1)
    assert_numpy_statistics(got, np.asarray(view(lt.from_numpy(values)).numpy()))

"""How `lazytensor.kernels.threads` cuts work into blocks: `plan` (one axis into even slices), `_pieces` (how
many blocks) and `_row_major_blocks` (contiguous runs of a C-ordered array), as properties on random
shapes and settings: every element in exactly one block, in order, as many blocks as planned.

Reaches into `lazytensor.kernels.threads`: how work is cut into blocks (`plan`, `_pieces`,
`_row_major_blocks`) is checked as properties of the module's own functions.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from thread_support import settings, threaded

from lazytensor.kernels import threads

sides = st.lists(st.integers(1, 7), min_size=1, max_size=4).map(tuple)


def _run(block: tuple[int | slice, ...], axis: int) -> slice:
    """The slice a block of `plan` takes of `axis`, after checking the axes before it are whole."""
    assert block[:axis] == (slice(None),) * axis
    assert len(block) == axis + 1
    cut = block[axis]
    assert isinstance(cut, slice) and cut.step is None
    return cut


@given(
    shape=st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple),
    axis=st.integers(0, 2),
    pieces=st.integers(-2, 12),
)
@example(shape=(1,), axis=0, pieces=1)
@example(shape=(10,), axis=0, pieces=1)
def test_plan_cuts_one_axis_into_at_most_the_pieces_asked_even_and_in_order(
    shape: tuple[int, ...], axis: int, pieces: int
) -> None:
    axis %= len(shape)
    blocks = threads.plan(shape, axis, pieces)
    size = shape[axis]
    runs = [_run(block, axis) for block in blocks]
    assert 1 <= len(blocks) <= max(pieces, 1)
    assert [run.start for run in runs] == [0] + [run.stop for run in runs[:-1]]  # adjacent, in order
    assert runs[-1].stop == size
    lengths = [run.stop - run.start for run in runs]
    assert max(lengths) - min(lengths) <= 1  # as even as integers allow
    if size:
        assert min(lengths) >= 1
        assert len(blocks) == min(max(pieces, 1), size)


@given(
    elements=st.integers(0, 10**6),
    count=st.integers(1, 16),
    per_thread=st.integers(1, 8),
    min_block=st.integers(1, 5000),
)
def test_pieces_gives_every_thread_a_block_then_as_many_as_the_sizes_allow(
    elements: int, count: int, per_thread: int, min_block: int
) -> None:
    """At least one block a thread; beyond that, up to `blocks_per_thread` a thread, none smaller than
    `min_block` elements."""
    with settings(count, per_thread, min_block):
        pieces = threads._pieces(elements)
    assert count <= pieces <= count * per_thread
    assert pieces == count or pieces * min_block <= elements
    assert pieces == count * per_thread or (pieces + 1) * min_block > elements


def test_pieces_by_default_is_one_block_a_thread() -> None:
    with settings(3, threads.BLOCKS_PER_THREAD, threads.MIN_BLOCK_ELEMENTS):
        assert [threads._pieces(n) for n in (0, 10, 10**9)] == [3, 3, 3]


@given(shape=sides, count=st.integers(1, 6), per_thread=st.integers(1, 4), min_block=st.integers(1, 3))
@example(shape=(2, 5, 1000), count=4, per_thread=1, min_block=1)  # one axis walked as an int
@example(shape=(2, 3, 100), count=8, per_thread=1, min_block=1)  # two axes walked
@example(shape=(3, 10), count=4, per_thread=1, min_block=1)
@example(shape=(1, 2, 100), count=4, per_thread=1, min_block=1)
@example(shape=(2,), count=4, per_thread=1, min_block=1)  # fewer elements than blocks wanted
def test_row_major_blocks_are_contiguous_runs_covering_every_element_once_in_order(
    shape: tuple[int, ...], count: int, per_thread: int, min_block: int
) -> None:
    total = math.prod(shape)
    with settings(count, per_thread, min_block):
        wanted = threads._pieces(total)
        blocks = threads._row_major_blocks(shape)
    order = np.arange(total).reshape(shape)
    runs = [order[block].ravel() for block in blocks]
    for block in blocks:  # ints for the outer axes, then one slice
        assert all(isinstance(i, int) for i in block[:-1]) and isinstance(block[-1], slice)
    assert all(run.size for run in runs)
    np.testing.assert_array_equal(np.concatenate(runs), np.arange(total))  # once each, in order
    assert min(wanted, total) <= len(blocks) < 2 * wanted  # enough for every thread, no more than needed


def test_the_split_hook_cuts_four_blocks_a_thread_of_one_element_or_more() -> None:
    with threaded(2):  # two threads, split_from(2)
        assert (threads._pieces(5), threads._pieces(100)) == (5, 8)

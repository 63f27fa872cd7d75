"""`numpy()` and `values()` of an expand of a storage tensor are read-only, as numpy's `broadcast_to`
is, even when the expand repeats no element (docs/indexing.md: expanded views are read-only, always);
views that can be written give writeable arrays of the same memory."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt

Case = tuple[tuple[int, ...], tuple[int, ...]]


@st.composite
def expands(draw: st.DrawFn) -> Case:
    """A shape and a target it broadcasts to: new leading axes, size-1 axes kept, stretched or emptied."""
    shape = draw(shapes(max_dims=3, max_side=3))
    lead = draw(st.lists(st.integers(0, 2), max_size=2))
    target = (*lead, *(draw(st.sampled_from([0, 1, 2])) if size == 1 else size for size in shape))
    return shape, target


@given(case=expands())
def test_an_expand_of_a_base_reads_read_only_as_broadcast_to(case: Case) -> None:
    shape, target = case
    array = np.arange(float(math.prod(shape))).reshape(shape)
    t = lt.tensor(array)  # a base: its values are always at hand, so the expand's are numpy's own
    reference = np.broadcast_to(array, target)
    view = t.expand(*target)
    for values in (view.numpy(), view.values()):
        assert values.flags.writeable is reference.flags.writeable is False
        np.testing.assert_array_equal(values, reference)


def test_the_expand_of_a_same_shape_tensor_is_read_only_too() -> None:
    t = lt.tensor([1.0, 2.0, 3.0])
    for view in (t.expand(3), t.expand(1, 3)):  # no element repeats: still broadcast_to's read-only
        assert not view.numpy().flags.writeable and not view.values().flags.writeable
        assert np.shares_memory(view.numpy(), t.storage)


def test_views_that_can_be_written_give_writeable_arrays_of_their_storage() -> None:
    t = lt.arange(12.0).reshape(3, 4)
    for view in (t, t.T, t[::-1, 1:3], t[1]):
        for values in (view.numpy(), view.values()):
            assert values.flags.writeable and np.shares_memory(values, t.storage)


@pytest.mark.parametrize("read_below_first", [False, True])
def test_a_view_over_an_expand_reads_read_only_whatever_was_read_before(read_below_first: bool) -> None:
    array = np.arange(9.0).reshape(3, 3)
    below = lt.tensor(array).T  # a view: its values are made only when something reads them
    if read_below_first:
        below.numpy()
    expanded = below.expand(1, 3, 3)  # repeats no element, and has no stride-0 axis longer than 1
    reference = np.broadcast_to(array.T, (1, 3, 3))
    views = [(expanded, reference), (expanded[0], reference[0]), (expanded[0, 1:], reference[0, 1:])]
    for view, numpys in views:
        assert numpys.flags.writeable is False
        for values in (view.numpy(), view.values()):
            assert values.flags.writeable is False
            np.testing.assert_array_equal(values, numpys)

"""The edges of `lt.Layout` and of the position helpers that the mutation run found unchecked.

Each test names the behaviour it protects; together they kill every surviving mutant of
`layout.py` and `positions.py` that changes behaviour (docs/testing.md lists the rest,
which are equivalent).
"""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt


def test_index_batch_needs_one_index_array_per_axis() -> None:
    """A layout refuses too few index arrays instead of silently ignoring the missing axes."""
    layout = lt.Layout.contiguous((2, 3))
    with pytest.raises(ValueError):
        layout.index_batch([np.arange(2)])
    assert layout.index_batch([np.arange(2)[:, None], np.arange(3)]).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_an_empty_layout_is_contiguous_whatever_its_strides() -> None:
    """numpy calls an empty array C-contiguous; an empty slice of a reversed view is one too."""
    assert lt.Layout((0, 3), (-3, 1), 3).is_contiguous()
    t = lt.arange(6).reshape(2, 3)[::-1][:0]
    assert t.shape == (0, 3) and t.is_contiguous()
    assert np.arange(6).reshape(2, 3)[::-1][:0].flags.c_contiguous
    assert not lt.Layout((2, 3), (-3, 1), 3).is_contiguous()


def test_an_empty_step_keeps_the_offset_it_started_from() -> None:
    """Taking no index along an axis moves nowhere: the offset stays, so it never points past storage."""
    layout = lt.Layout.contiguous((4, 3), offset=2)
    assert layout.select((slice(3, 3, -1), slice(None))).offset == 2
    assert layout.select((slice(None), slice(2, 2))).offset == 2
    assert lt.arange(12).reshape(4, 3)[:, 2:2].layout.offset == 0


def test_expand_needs_at_least_the_axes_it_has() -> None:
    """A layout cannot be expanded to fewer axes: it raises rather than dropping strides."""
    with pytest.raises(ValueError):
        lt.Layout.contiguous((2, 3)).expand((3,))
    assert lt.Layout.contiguous((1, 3)).expand((2, 4, 3)).strides == (0, 0, 1)


def test_index_to_position_refuses_the_index_one_past_the_end() -> None:
    """The index equal to the element count is outside, and the message names index and shape."""
    with pytest.raises(IndexError, match=r"index 6 is out of bounds for shape \(2, 3\) of 6 elements"):
        lt.seed.index_to_position(6, [2, 3])
    with pytest.raises(IndexError, match="index -1"):
        lt.seed.index_to_position(-1, [2, 3])
    assert lt.seed.index_to_position(5, [2, 3]) == [1, 2]


def test_next_position_walks_every_shape_in_numpy_order() -> None:
    """next_position visits np.ndindex's positions, carries over several axes, and stops at the end."""
    for shape in [(3,), (2, 3), (3, 1, 2), (2, 2, 3, 7)]:
        pos = [0] * len(shape)
        seen = [tuple(pos)]
        while lt.seed.next_position(pos, shape):
            seen.append(tuple(pos))
        assert seen == list(np.ndindex(*shape)), shape
    one = [1]
    assert lt.seed.next_position(one, [3]) and one == [2]
    assert not lt.seed.next_position(one, [3])
    assert not lt.seed.next_position([], [])  # a 0-d tensor has one position: no next one
    carry = [0, 0, 2, 6]
    assert lt.seed.next_position(carry, [2, 2, 3, 7]) and carry == [0, 1, 0, 0]


def test_bad_positions_are_refused_with_a_message_naming_them() -> None:
    """get/locate with the wrong number of indices or an index equal to the size raise IndexError."""
    t = lt.arange(6).reshape(2, 3)
    with pytest.raises(IndexError, match=r"position \[1\] has 1 indices, shape \(2, 3\) has 2 axes"):
        t.get((1,))
    with pytest.raises(IndexError, match=r"position \[1, -1, 0\] has 3 indices, shape \(2, 3\) has 2 axes"):
        t.locate((1, -1, 0))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 1 with size 3"):
        t.get((0, 3))  # index == size would read element (1, 0) if let through
    with pytest.raises(IndexError, match="index -3 is out of bounds for axis 0 with size 2"):
        t.get((-3, 0))
    with pytest.raises(IndexError, match=r"position \[0, 0, 0\] has 3 indices, shape \(2, 3\) has 2 axes"):
        lt.seed.position_to_index([0, 0, 0], [2, 3])
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        lt.seed.position_to_index([2, 0], [2, 3])

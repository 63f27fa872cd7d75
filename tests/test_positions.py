"""positions.py, including every seed example about positions, shapes and broadcasting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt
from lazytensor.positions import as_shape, broadcast_shape, infer_shape, normalize_dim, normalize_dims


def test_seed_position_to_index_and_back() -> None:
    assert lt.seed.position_to_index([1, 2, 3], [5, 6, 7]) == 59
    assert lt.seed.index_to_position(59, [5, 6, 7]) == [1, 2, 3]


def test_seed_next_position() -> None:
    p = [1, 2, 6]
    assert lt.seed.next_position(p, [5, 6, 7])
    assert p == [1, 3, 0]


def test_seed_walk_visits_every_index_in_order() -> None:
    pos, shape, idx = [0, 0, 0], [2, 2, 2], 0
    has_more = True
    while has_more:
        assert pos == lt.seed.index_to_position(idx, shape)
        assert idx == lt.seed.position_to_index(pos, shape)
        has_more = lt.seed.next_position(pos, shape)
        idx += 1
    assert idx == 8
    assert pos == [2, 0, 0]  # the first position out of bounds


def test_seed_broadcast_shapes() -> None:
    assert lt.seed.broadcast_shapes([5, 1, 3], [7, 1, 4, 3]) == ([1, 5, 1, 3], [7, 1, 4, 3], [7, 5, 4, 3])


def test_seed_tview_shapes() -> None:
    assert infer_shape((-1, 3, 1), 12, (6, 2)) == (4, 3, 1)
    with pytest.raises(
        ValueError, match=r"cannot reshape tensor of shape \(7, 2\) into \(-1, 3\): 14 elements"
    ):
        infer_shape((-1, 3), 14, (7, 2))


def test_seed_go_strides_and_at() -> None:
    """The Go post: sizes [3, 5, 4] give strides [20, 4, 1]; a[2, 0, 0] is data[40]."""
    a = lt.zeros(3, 5, 4)
    assert a.layout is not None and a.layout.strides == (20, 4, 1)
    assert a.locate((2, 0, 0)) == 40
    b = lt.tensor([1.0, 2, 3, 4, 5, 6, 7, 8]).reshape(2, 2, 2)
    assert b.get((1, 0, 1)) == 6.0


@given(shapes(max_dims=4).filter(lambda s: 0 not in s), st.data())
def test_index_round_trip(shape, data) -> None:
    n = int(np.prod(shape))
    idx = data.draw(st.integers(0, n - 1))
    pos = lt.seed.index_to_position(idx, shape)
    assert lt.seed.position_to_index(pos, shape) == idx == np.ravel_multi_index(pos, shape) if shape else True


@given(shapes(), shapes())
def test_broadcast_shapes_match_numpy(a, b) -> None:
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError:
        with pytest.raises(ValueError, match="cannot be broadcast"):
            lt.seed.broadcast_shapes(a, b)
        return
    assert tuple(lt.seed.broadcast_shapes(a, b)[2]) == expected == broadcast_shape(a, b)


def test_errors_name_the_bad_values() -> None:
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 5"):
        lt.seed.position_to_index([0, 5], [2, 5])
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds for a tensor of 2 axes"):
        normalize_dim(3, 2)
    with pytest.raises(ValueError, match="repeated axis"):
        normalize_dims((0, -2), 2)
    with pytest.raises(ValueError, match="only one -1"):
        infer_shape((-1, -1), 4)
    with pytest.raises(TypeError, match="sequence of ints"):
        as_shape((2.5,))

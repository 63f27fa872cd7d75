"""positions.py, including every seed example about positions, shapes and broadcasting.

Reaches into `lazytensor.ground.positions`: the shape and position functions are pure functions,
tested on tuples below every door.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt
from lazytensor.ground.positions import as_shape, broadcast_shape, infer_shape, normalize_dim, normalize_dims


def test_seed_position_to_index_and_back() -> None:
    assert lt.tenxor.position_to_index([1, 2, 3], [5, 6, 7]) == 59
    assert lt.tenxor.index_to_position(59, [5, 6, 7]) == [1, 2, 3]


def test_seed_next_position() -> None:
    p = [1, 2, 6]
    assert lt.tenxor.next_position(p, [5, 6, 7])
    assert p == [1, 3, 0]


def test_seed_walk_visits_every_index_in_order() -> None:
    pos, shape, idx = [0, 0, 0], [2, 2, 2], 0
    has_more = True
    while has_more:
        assert pos == lt.tenxor.index_to_position(idx, shape)
        assert idx == lt.tenxor.position_to_index(pos, shape)
        has_more = lt.tenxor.next_position(pos, shape)
        idx += 1
    assert idx == 8
    assert pos == [2, 0, 0]  # the first position out of bounds


def test_seed_broadcast_shapes() -> None:
    assert lt.tenxor.broadcast_shapes([5, 1, 3], [7, 1, 4, 3]) == ([1, 5, 1, 3], [7, 1, 4, 3], [7, 5, 4, 3])


def test_the_seeds_helpers_are_the_lt_tenxor_namespace() -> None:
    assert "tenxor" in lt.__all__ and "seed" not in lt.__all__
    assert sorted(lt.tenxor.__all__) == [
        "broadcast_shapes",
        "index_to_position",
        "next_position",
        "position_to_index",
    ]
    pos = lt.tenxor.index_to_position(59, [5, 6, 7])
    assert lt.tenxor.next_position(pos, [5, 6, 7]) and pos == [1, 2, 4]


def test_lt_seed_is_lt_tenxor_for_one_release_and_warns_naming_it() -> None:
    with pytest.warns(DeprecationWarning, match=r"^lt\.seed is deprecated .*: use lt\.tenxor$"):
        old = lt.seed
    assert old is lt.tenxor
    with pytest.warns(DeprecationWarning, match=r"use lt\.tenxor"):
        from lazytensor import seed
    assert seed is lt.tenxor and seed.position_to_index([1, 2, 3], [5, 6, 7]) == 59


def test_other_missing_names_are_attribute_errors_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match=r"^module 'lazytensor' has no attribute 'seeds'$"):
            lt.seeds  # noqa: B018
        assert not hasattr(lt, "tenxors")


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
    pos = lt.tenxor.index_to_position(idx, shape)
    assert (
        lt.tenxor.position_to_index(pos, shape) == idx == np.ravel_multi_index(pos, shape) if shape else True
    )


@given(shapes(), shapes())
def test_broadcast_shapes_match_numpy(a, b) -> None:
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError:
        with pytest.raises(ValueError, match="cannot be broadcast"):
            lt.tenxor.broadcast_shapes(a, b)
        return
    assert tuple(lt.tenxor.broadcast_shapes(a, b)[2]) == expected == broadcast_shape(a, b)


def test_errors_name_the_bad_values() -> None:
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 5"):
        lt.tenxor.position_to_index([0, 5], [2, 5])
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds for a tensor of 2 axes"):
        normalize_dim(3, 2)
    with pytest.raises(ValueError, match="repeated axis"):
        normalize_dims((0, -2), 2)
    with pytest.raises(ValueError, match="only one -1"):
        infer_shape((-1, -1), 4)
    with pytest.raises(TypeError, match="sequence of ints"):
        as_shape((2.5,))


def test_index_to_position_refuses_the_index_one_past_the_end() -> None:
    """The index equal to the element count is outside, and the message names index and shape."""
    with pytest.raises(IndexError, match=r"index 6 is out of bounds for shape \(2, 3\) of 6 elements"):
        lt.tenxor.index_to_position(6, [2, 3])
    with pytest.raises(IndexError, match="index -1"):
        lt.tenxor.index_to_position(-1, [2, 3])
    assert lt.tenxor.index_to_position(5, [2, 3]) == [1, 2]


def test_next_position_walks_every_shape_in_numpy_order() -> None:
    """next_position visits np.ndindex's positions, carries over several axes, and stops at the end."""
    for shape in [(3,), (2, 3), (3, 1, 2), (2, 2, 3, 7)]:
        pos = [0] * len(shape)
        seen = [tuple(pos)]
        while lt.tenxor.next_position(pos, shape):
            seen.append(tuple(pos))
        assert seen == list(np.ndindex(*shape)), shape
    one = [1]
    assert lt.tenxor.next_position(one, [3]) and one == [2]
    assert not lt.tenxor.next_position(one, [3])
    assert not lt.tenxor.next_position([], [])  # a 0-d tensor has one position: no next one
    carry = [0, 0, 2, 6]
    assert lt.tenxor.next_position(carry, [2, 2, 3, 7]) and carry == [0, 1, 0, 0]


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
        lt.tenxor.position_to_index([0, 0, 0], [2, 3])
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        lt.tenxor.position_to_index([2, 0], [2, 3])


@given(
    st.lists(
        st.one_of(
            st.integers(-3, 5),
            st.booleans(),
            st.integers(0, 5).map(np.int64),
            st.integers(0, 5).map(np.intp),
        ),
        max_size=4,
    ),
    st.sampled_from(["args", "tuple", "list"]),
)
def test_as_shape_gives_python_ints_whatever_ints_it_is_given(sizes: list[Any], form: str) -> None:
    """Plain Python ints come back as given (the fast path); numpy ints and bools as Python ints; as
    separate arguments or as one tuple or list."""
    args: tuple[Any, ...] = {"args": tuple(sizes), "tuple": (tuple(sizes),), "list": (list(sizes),)}[form]
    shape = as_shape(args)
    assert type(shape) is tuple
    assert shape == tuple(operator.index(size) for size in sizes)
    assert all(type(size) is int for size in shape)

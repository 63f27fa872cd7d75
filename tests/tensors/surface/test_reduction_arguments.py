"""A reduction's `axis` (one, several, or None) and `keepdims`, against numpy on random shapes:
axes in range, given as Python or numpy ints, reduce as numpy's do; an axis just out of range is
numpy's AxisError naming the reduction and the shape; a repeated axis numpy's ValueError; anything
but ints a TypeError in words. A reduction with no identity over nothing is numpy's ValueError with
numpy's words first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt

INT_TYPES = (int, np.int64, np.intp, np.int8)


@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple),
    name=st.sampled_from(["sum", "prod", "max"]),
    several=st.booleans(),
    keepdims=st.sampled_from([False, True, np.False_, np.True_]),
    data=st.data(),
)
def test_axes_in_range_or_just_out_of_it_are_numpys(
    shape: tuple[int, ...], name: str, several: bool, keepdims: Any, data: st.DataObject
) -> None:
    ndim = len(shape)
    ints = st.integers(-ndim - 1, ndim)
    axes = data.draw(st.lists(ints, min_size=1, max_size=3) if several else ints, label="axes")
    typed = data.draw(st.sampled_from(INT_TYPES), label="int type")
    given_as = tuple(typed(a) for a in axes) if isinstance(axes, list) else typed(axes)
    reference = axes if isinstance(axes, int) else tuple(axes)
    array = np.arange(float(np.prod(shape))).reshape(shape) + 1
    t = lt.tensor(array)
    try:
        expected = getattr(np, name)(array, axis=reference, keepdims=bool(keepdims))
    except np.exceptions.AxisError:
        bad = next(a for a in ([axes] if isinstance(axes, int) else axes) if not -ndim <= a < ndim)
        with pytest.raises(np.exceptions.AxisError) as caught:
            getattr(t, name)(axis=given_as, keepdims=keepdims)
        assert str(caught.value) == (
            f"{name} of a tensor of shape {shape}: axis {bad} is out of bounds for array of dimension {ndim}"
        )
        return
    except ValueError:  # a repeated axis
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            getattr(t, name)(axis=given_as, keepdims=keepdims)
        return
    np.testing.assert_array_equal(getattr(t, name)(axis=given_as, keepdims=keepdims).numpy(), expected)


@pytest.mark.parametrize(
    ("axis", "words"),
    [
        (1.0, "sum: an axis must be an int, a tuple of ints or None, got 1.0 (float)"),
        ((0, 1.0), "sum: an axis must be an int, a tuple of ints or None, got 1.0 (float)"),
        ((0, "x"), "sum: no axis is named 'x': the tensor of shape (2, 3) has no names"),
        (True, "sum: an axis must be an int, not True"),
        ((0, np.True_), "sum: an axis must be an int, not np.True_"),
    ],
)
def test_axes_that_are_not_ints_are_refused_in_words(axis: Any, words: str) -> None:
    with pytest.raises((TypeError, ValueError)) as caught:
        lt.ones(2, 3).sum(axis=axis)
    assert str(caught.value) == words


def test_an_axis_out_of_range_among_several_is_named() -> None:
    with pytest.raises(np.exceptions.AxisError) as caught:
        lt.ones(2, 3).sum(axis=(0, np.int64(2)))
    assert str(caught.value) == (
        "sum of a tensor of shape (2, 3): axis 2 is out of bounds for array of dimension 2"
    )


@pytest.mark.parametrize("keepdims", [1, "yes", None])
def test_keepdims_that_is_not_a_bool_is_refused_in_words(keepdims: Any) -> None:
    with pytest.raises(TypeError) as caught:
        lt.ones(2, 3).sum(axis=1, keepdims=keepdims)
    assert str(caught.value) == (
        f"sum: keepdim must be True or False, got {keepdims!r} ({type(keepdims).__name__}); "
        "numpy's other arguments (dtype, out) are keywords here"
    )


@pytest.mark.parametrize(
    ("name", "axis", "ours"),
    [
        ("max", 0, "(max of a tensor of shape (0, 3) over axis 0)"),
        ("min", None, "(min of a tensor of shape (0, 3) over axis None)"),
        ("nanmax", (0, 1), "(nanmax of a tensor of shape (0, 3) over axis (0, 1))"),
        ("argmax", None, "(argmax of a tensor of shape (0, 3))"),
        ("argmin", 0, "(argmin of a tensor of shape (0, 3))"),
    ],
)
def test_a_reduction_without_identity_over_nothing_says_numpys_words_first(
    name: str, axis: Any, ours: str
) -> None:
    with pytest.raises(ValueError) as numpys:
        getattr(np, name)(np.zeros((0, 3)), axis=axis)
    with pytest.raises(ValueError) as caught:
        getattr(lt.zeros(0, 3), name)(axis=axis)
    assert str(caught.value) == f"{numpys.value} {ours}"

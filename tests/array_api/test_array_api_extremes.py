"""The array API's `min` and `max` against numpy's: every axis choice (None, one, several, negative),
`keepdims` both ways, on views of random non-empty shapes and dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import view_pairs

import lazytensor as lt


def _axes(ndim: int) -> st.SearchStrategy[Any]:
    """None, one axis, or distinct axes, each possibly negative."""
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(
        lambda axes: tuple(axis - ndim if axis % 2 else axis for axis in axes)
    )
    return st.none() | one | several


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_min_and_max_are_numpys_with_and_without_keepdims(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), label="shape")
    dtype = data.draw(st.sampled_from([np.float64, np.int32, np.uint16, np.bool_]), label="dtype")
    t, a = data.draw(view_pairs(shape, dtype))
    axis = data.draw(_axes(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for ours, theirs in ((lt.min, np.min), (lt.max, np.max)):
        got, expected = ours(t, axis=axis, keepdims=keepdims), theirs(a, axis=axis, keepdims=keepdims)
        assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
        np.testing.assert_array_equal(got.numpy(), expected)


def test_keepdims_keeps_the_reduced_axes_as_size_one() -> None:
    values = np.arange(6.0).reshape(2, 3)
    for ours, theirs in ((lt.min, np.min), (lt.max, np.max)):
        for axis in (0, 1, (0, 1), None):
            got = ours(lt.tensor(values), axis=axis, keepdims=True)
            np.testing.assert_array_equal(got.numpy(), theirs(values, axis=axis, keepdims=True), strict=True)

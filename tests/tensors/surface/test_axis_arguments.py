"""The methods that take one axis (a scan, a sort, take, repeat, cat, diagonal, split, softmax),
against numpy on random shapes: an axis in range, given as a Python or a numpy int, does what numpy
does; one just out of range (`ndim`, `-ndim - 1`) is numpy's AxisError naming the method and the
shape; anything but an int is a TypeError saying what an axis must be.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt

Call = Callable[[Any, Any], Any]

# name: (the method on a tensor, numpy's function on an array), one axis each
ONE_AXIS: dict[str, tuple[Call, Call]] = {
    "cumsum": (lambda t, axis: t.cumsum(axis=axis), lambda a, axis: np.cumsum(a, axis=axis)),
    "cumprod": (lambda t, axis: t.cumprod(axis=axis), lambda a, axis: np.cumprod(a, axis=axis)),
    "argsort": (
        lambda t, axis: t.argsort(axis=axis, kind="stable"),
        lambda a, axis: np.argsort(a, axis=axis, kind="stable"),
    ),
    "take": (lambda t, axis: t.take([0, -1], axis=axis), lambda a, axis: np.take(a, [0, -1], axis=axis)),
    "repeat": (lambda t, axis: t.repeat(2, axis=axis), lambda a, axis: np.repeat(a, 2, axis=axis)),
    "cat": (lambda t, axis: lt.cat([t, t], axis=axis), lambda a, axis: np.concatenate([a, a], axis=axis)),
}

INT_TYPES = (int, np.int64, np.intp, np.int8)


@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple),
    name=st.sampled_from(sorted(ONE_AXIS)),
    data=st.data(),
)
def test_one_axis_in_range_or_just_out_of_it_is_numpys(
    shape: tuple[int, ...], name: str, data: st.DataObject
) -> None:
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim - 2, ndim + 1), label="axis")
    given_as = data.draw(st.sampled_from(INT_TYPES), label="int type")(axis)
    method, reference = ONE_AXIS[name]
    array = np.arange(float(np.prod(shape))).reshape(shape) + 1
    if -ndim <= axis < ndim:
        np.testing.assert_array_equal(method(lt.tensor(array), given_as).numpy(), reference(array, axis))
        return
    with pytest.raises(np.exceptions.AxisError):
        reference(array, axis)
    with pytest.raises(np.exceptions.AxisError) as caught:
        method(lt.tensor(array), given_as)
    assert str(caught.value) == (
        f"{name} of a tensor of shape {shape}: axis {axis} is out of bounds for array of dimension {ndim}"
    )


@pytest.mark.parametrize("axis", [3, -4, np.int64(3)])
def test_diagonal_refuses_axis1_just_out_of_range_rather_than_wrapping_it(axis: Any) -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(np.exceptions.AxisError):
        np.diagonal(t.numpy(), axis1=int(axis), axis2=2)
    with pytest.raises(np.exceptions.AxisError) as caught:
        t.diagonal(axis1=axis, axis2=2)
    assert str(caught.value) == (
        f"diagonal of a tensor of shape (2, 3, 4): axis {int(axis)} is out of bounds for array of dimension 3"
    )


@pytest.mark.parametrize("axis", [np.int64(1), np.int8(-2)])
def test_diagonal_split_and_softmax_take_a_numpy_int_axis(axis: Any) -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        t.diagonal(axis1=axis, axis2=2).numpy(), np.diagonal(t.numpy(), axis1=int(axis), axis2=2)
    )
    assert [part.shape for part in t.split(1, axis=axis)] == [(2, 1, 4)] * 3
    assert t.softmax(axis=axis).sum(axis=1).numpy() == pytest.approx(np.ones((2, 4)))


@pytest.mark.parametrize("name", ["split", "softmax"])
@pytest.mark.parametrize("axis", [3, -4])
def test_split_and_softmax_refuse_an_axis_out_of_range(name: str, axis: int) -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    call = (lambda: t.split(1, axis=axis)) if name == "split" else (lambda: t.softmax(axis=axis))
    with pytest.raises(np.exceptions.AxisError) as caught:
        call()
    assert str(caught.value) == (
        f"{name} of a tensor of shape (2, 3, 4): axis {axis} is out of bounds for array of dimension 3"
    )


SINGLE_AXIS_CALLS: dict[str, Call] = {
    **{name: method for name, (method, _) in ONE_AXIS.items()},
    "diagonal": lambda t, axis: t.diagonal(axis1=axis, axis2=0),
    "split": lambda t, axis: t.split(1, axis=axis),
    "softmax": lambda t, axis: t.softmax(axis=axis),
}


@pytest.mark.parametrize("name", sorted(SINGLE_AXIS_CALLS))
@pytest.mark.parametrize(
    ("axis", "words"),
    [
        (1.0, "{name}: an axis must be an int, a tuple of ints or None, got 1.0 (float)"),
        (b"1", "{name}: an axis must be an int, a tuple of ints or None, got b'1' (bytes)"),
        (True, "{name}: an axis must be an int, not True"),
        ([1], "{name} takes one axis (an int), not [1]"),
        ((0, 1), "{name} takes one axis (an int), not (0, 1)"),
        (range(1), "{name} takes one axis (an int), not range(0, 1)"),
    ],
)
def test_one_axis_that_is_not_an_int_is_a_type_error_in_words(name: str, axis: Any, words: str) -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(TypeError) as caught:
        SINGLE_AXIS_CALLS[name](t, axis)
    assert str(caught.value) == words.format(name=name)


@pytest.mark.parametrize("axis", [1.0, b"1", [1]])
def test_numpy_refuses_the_same_axes_with_a_type_error(axis: Any) -> None:
    with pytest.raises(TypeError):
        np.cumsum(np.zeros((2, 3)), axis=axis)

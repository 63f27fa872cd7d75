"""A tensor as a Python number (`float`, `int`, `complex`, `round`, `operator.index`) and deep copies:
numpy's answers, numpy's TypeError, and a message that says which conversion and which shape."""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

CONVERSIONS: list[tuple[Callable[[Any], Any], str]] = [
    (float, "a Python float"),
    (int, "a Python int"),
    (complex, "a Python complex"),
    (round, "a Python int"),
]


@pytest.mark.parametrize(("convert", "target"), CONVERSIONS, ids=lambda x: getattr(x, "__name__", x))
@pytest.mark.parametrize("shape", [(2,), (0,), (2, 3)])
def test_a_tensor_of_several_elements_names_the_conversion_and_its_shape(
    convert: Callable[[Any], Any], target: str, shape: tuple[int, ...]
) -> None:
    with pytest.raises(TypeError) as numpy_error:
        convert(np.zeros(shape))
    message = rf"^only tensors of one element can be converted to {target}, not a tensor of shape {shape}$"
    with pytest.raises(type(numpy_error.value), match=message.replace("(", r"\(").replace(")", r"\)")):
        convert(lt.zeros(shape))


@pytest.mark.parametrize(("convert", "target"), CONVERSIONS, ids=lambda x: getattr(x, "__name__", x))
@pytest.mark.parametrize("value", [2.5, -3.0, 7])
def test_a_tensor_of_one_element_converts_as_numpy_does(
    convert: Callable[[Any], Any], target: str, value: float
) -> None:
    expected = convert(np.array(value)[()])  # numpy's scalar: a 0-d array has no __round__
    for t in (lt.tensor(value), lt.tensor([[value]])):
        result = convert(t)
        assert type(result) is type(expected)
        assert result == expected


@pytest.mark.parametrize(
    "values", [np.array(3, dtype=np.uint8), np.array(-2), np.array(True), np.array(2.0), np.array([3])]
)
def test_only_an_integer_0d_tensor_is_an_index_as_in_numpy(values: np.ndarray) -> None:
    try:
        expected: Any = operator.index(values)
    except TypeError:
        message = (
            r"^only integer scalar tensors can be converted to a scalar index, "
            rf"not a tensor of shape \({values.ndim * '1,'}\) and dtype {values.dtype}$"
        )
        with pytest.raises(TypeError, match=message):
            operator.index(lt.tensor(values))
        return
    assert operator.index(lt.tensor(values)) == expected
    assert ["a", "b", "c", "d"][lt.tensor(values)] == ["a", "b", "c", "d"][values]


def test_a_deep_copy_keeps_references_shared_with_the_rest_of_the_copy() -> None:
    """`copy.deepcopy((x, t))`: the copy of `x` and the element of the copied tensor that was `x`
    are one object, as numpy's object arrays keep them (the memo is passed down)."""
    shared = [1, 2]
    array = np.array([None, None], dtype=object)
    array[0] = shared
    t = lt.tensor([None, None], dtype=object)
    t[0] = shared
    copied_list, copied_array = copy.deepcopy((shared, array))
    assert copied_array[0] is copied_list
    copied_list, copied_tensor = copy.deepcopy((shared, t))
    assert copied_tensor.tolist()[0] is copied_list
    assert copied_list is not shared


@pytest.mark.parametrize(
    "view", [lambda t: t.T, lambda t: t[:, ::-2], lambda t: t[[1, 0]].T], ids=["T", "reversed", "listed"]
)
def test_a_deep_copy_of_a_view_is_new_storage_with_its_values(view: Callable[[Any], Any]) -> None:
    array = np.arange(12.0).reshape(3, 4)
    t = lt.tensor(array)
    v = view(t)
    copied = copy.deepcopy(v)
    np.testing.assert_array_equal(copied.numpy(), view(array))
    assert copied.shape == view(array).shape
    copied[...] = -1.0
    np.testing.assert_array_equal(t.numpy(), array)

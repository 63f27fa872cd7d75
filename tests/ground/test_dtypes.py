"""`lazytensor.ground.dtypes`: dtype names (bfloat16 through ml_dtypes), exactness, and the dtype of the
values a Python callable returned, against numpy's own inference and promotion.

Reaches into `lazytensor.ground.dtypes`: the dtype names and the inference from a callable's values
are pure functions, tested on values below every door.
"""

from __future__ import annotations

import builtins
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazytensor.ground import dtypes


def test_as_dtype_is_numpys_plus_bfloat16() -> None:
    assert dtypes.as_dtype("bfloat16") == np.dtype(ml_dtypes.bfloat16)
    for given_ in ("float32", int, np.complex64, "U3", np.dtype(">i2")):
        assert dtypes.as_dtype(given_) == np.dtype(given_)
    assert dtypes.dtype_name("bfloat16") == "bfloat16"
    assert dtypes.dtype_name(np.int8) == "int8" and dtypes.dtype_name(complex) == "complex128"
    with pytest.raises(TypeError):
        dtypes.as_dtype("bfloat17")


def test_bfloat16_without_ml_dtypes_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "ml_dtypes")
    real_import = builtins.__import__

    def no_ml_dtypes(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ml_dtypes":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ml_dtypes)
    with pytest.raises(TypeError) as caught:
        dtypes.as_dtype("bfloat16")
    assert str(caught.value) == "dtype 'bfloat16' needs the optional package ml_dtypes"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize(
    ("dtype", "exact"),
    [(np.bool_, True), (np.int8, True), (np.uint64, True), (object, True), (np.float16, False),
     (np.float64, False), (np.complex64, False), ("bfloat16", False), ("U2", False), ("M8[s]", False)],
)  # fmt: skip
def test_exact_dtypes_are_integers_bool_and_object(dtype: Any, exact: bool) -> None:
    assert dtypes.is_exact(dtype) is exact


NUMERIC_VALUES = st.one_of(
    st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=4),
    st.lists(st.floats(allow_nan=False), min_size=1, max_size=4),
    st.lists(st.booleans(), min_size=1, max_size=4),
    st.lists(st.complex_numbers(allow_nan=False, allow_infinity=False), min_size=1, max_size=4),
    st.lists(st.one_of(st.integers(-9, 9), st.floats(-9, 9)), min_size=1, max_size=4),
)


@given(values=NUMERIC_VALUES)
def test_numeric_values_get_numpys_dtype(values: list[Any]) -> None:
    inferred = dtypes.infer_array(values)
    expected = np.array(values)
    assert inferred.dtype == expected.dtype and inferred.shape == (len(values),)
    np.testing.assert_array_equal(inferred, expected)


@pytest.mark.parametrize(
    "values",
    [
        [Fraction(1, 3), 2],
        [Decimal("0.1")],
        ["a", "b"],
        [b"x"],
        [2**70, 1],  # numpy's OverflowError
        [(1, 2), (3, 4)],  # sequences stay single elements, not a new axis
        [np.arange(2), np.arange(3)],  # ragged: numpy's ValueError
        [None, 1],
        [1, "a"],
    ],
)
def test_other_values_are_kept_as_they_are_in_an_object_array(values: list[Any]) -> None:
    inferred = dtypes.infer_array(values)
    assert inferred.dtype == np.dtype(object) and inferred.shape == (len(values),)
    assert all(a is b for a, b in zip(inferred.tolist(), values, strict=True))


def test_an_empty_list_infers_numpys_empty_float_array() -> None:
    inferred = dtypes.infer_array([])
    assert inferred.dtype == np.float64 and inferred.shape == (0,)


def test_object_array_holds_each_value_as_one_element() -> None:
    values = [(1, 2), np.arange(3), [4], Fraction(1, 2)]
    made = dtypes.object_array(values)
    assert made.shape == (4,) and made.dtype == np.dtype(object)
    assert all(a is b for a, b in zip(made.tolist(), values, strict=True))
    assert dtypes.object_array([]).shape == (0,)


@given(
    shape=st.sampled_from([(2, 3), (6,), (3, 1, 2), (1, 6)]),
    dtype=st.sampled_from([None, np.float32, np.int16, np.complex64, object, "bfloat16"]),
)
def test_array_from_values_takes_the_shape_and_the_given_dtype(shape: tuple[int, ...], dtype: Any) -> None:
    values = [1, 2, 3, 4, 5, 6]
    made = dtypes.array_from_values(values, shape, dtype, np.dtype(np.int8))
    target = np.int64 if dtype is None else dtypes.as_dtype(dtype)
    assert made.shape == shape and made.dtype == target
    assert made.ravel().tolist() == values
    if dtype is object:
        assert all(type(v) is int for v in made.ravel().tolist())


def test_array_from_values_keeps_objects_in_an_object_dtype() -> None:
    made = dtypes.array_from_values([(1, 2), (3, 4)], (2,), object, np.dtype(float))
    assert made.shape == (2,) and made.tolist() == [(1, 2), (3, 4)]
    inferred = dtypes.array_from_values([Fraction(1, 2), 1], (1, 2), None, np.dtype(float))
    assert inferred.dtype == np.dtype(object) and inferred.tolist() == [[Fraction(1, 2), 1]]


@pytest.mark.parametrize("empty_dtype", [np.int32, np.complex64, np.bool_])
def test_no_values_take_the_inputs_dtype_unless_one_is_given(empty_dtype: Any) -> None:
    assert dtypes.array_from_values([], (0, 3), None, np.dtype(empty_dtype)).dtype == empty_dtype
    made = dtypes.array_from_values([], (2, 0), np.float16, np.dtype(empty_dtype))
    assert made.dtype == np.float16 and made.shape == (2, 0)


@given(
    dtype=st.sampled_from([np.int8, np.uint8, np.int32, np.uint64, np.float32, np.complex64, np.bool_]),
    init=st.one_of(st.integers(-300, 300), st.floats(-2, 2), st.booleans(), st.just(1j)),
)
def test_fold_dtype_is_numpys_weak_promotion(dtype: Any, init: Any) -> None:
    expected = (np.zeros(1, dtype=dtype) + init).dtype if not _overflows(dtype, init) else np.dtype(object)
    assert dtypes.fold_dtype(np.dtype(dtype), init) == expected


def _overflows(dtype: Any, init: Any) -> bool:
    if type(init) is not int or np.dtype(dtype).kind not in "iu":
        return False
    info = np.iinfo(dtype)
    return not int(info.min) <= init <= int(info.max)


@pytest.mark.parametrize(
    ("dtype", "init", "expected"),
    [
        (np.int8, 127, np.int8),
        (np.int8, 128, object),
        (np.int8, -128, np.int8),
        (np.int8, -129, object),
        (np.uint8, 255, np.uint8),
        (np.uint8, -1, object),
        (np.int64, 2**63 - 1, np.int64),
        (np.int64, 2**70, object),
        (np.uint64, 2**64 - 1, np.uint64),
        (np.float64, 2**70, np.float64),
        (np.int16, np.int64(3), np.int64),
        (np.float64, Fraction(1, 2), object),
        (np.float64, "a", object),
        (np.float64, None, object),
        (np.dtype("U2"), 1, object),
    ],
)
def test_fold_dtype_at_the_integer_bounds_and_for_other_values(dtype: Any, init: Any, expected: Any) -> None:
    assert dtypes.fold_dtype(np.dtype(dtype), init) == np.dtype(expected)

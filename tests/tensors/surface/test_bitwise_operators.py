"""`&`, `|`, `^`, `<<`, `>>` and their reflected forms, and `list @ t`, against numpy: integer and
bool views of every kind, Python and numpy scalars on either side (Python's are weak, as numpy's)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import broadcastable_shapes, shapes, view_pairs

import lazytensor as lt

FAST = settings(max_examples=30, deadline=None)

BITWISE = [operator.and_, operator.or_, operator.xor]
SHIFTS = [operator.lshift, operator.rshift]
INTEGERS = [np.int8, np.int32, np.uint16, np.int64]
Binary = Callable[[Any, Any], Any]


def assert_same(result: Any, expected: Any) -> None:
    """A new tensor of numpy's shape, dtype and values."""
    expected = np.asarray(expected)
    assert isinstance(result, lt.StorageTensor)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    np.testing.assert_array_equal(result.numpy(), expected)


def counts(a: np.ndarray) -> np.ndarray:
    """Shift counts from any values: 0 to 4 (a negative or too wide count is undefined in C)."""
    return np.abs(a.astype(np.int64)) % 5 if a.dtype != np.bool_ else a


@FAST
@given(st.data(), broadcastable_shapes(), st.sampled_from(BITWISE))
def test_bitwise_operators_of_two_views_match_numpy(data: st.DataObject, pair: Any, op: Binary) -> None:
    dtype = data.draw(st.sampled_from([*INTEGERS, np.bool_]))
    other_dtype = data.draw(st.sampled_from([dtype, np.int32, np.bool_]))
    t, a = data.draw(view_pairs(pair[0], dtype))
    u, b = data.draw(view_pairs(pair[1], other_dtype))
    assert_same(op(t, u), op(a, b))


@FAST
@given(st.data(), broadcastable_shapes(), st.sampled_from(SHIFTS))
def test_shifts_of_two_views_match_numpy(data: st.DataObject, pair: Any, op: Binary) -> None:
    dtype = data.draw(st.sampled_from(INTEGERS))
    t, a = data.draw(view_pairs(pair[0], dtype))
    b = counts(data.draw(view_pairs(pair[1], np.uint16))[1]).astype(np.uint16)
    assert_same(op(t, lt.tensor(b)), op(a, b))


@FAST
@given(st.data(), shapes, st.sampled_from(BITWISE), st.integers(-5, 5))
def test_a_python_int_on_either_side_of_a_bitwise_operator_is_weak(
    data: st.DataObject, shape: tuple[int, ...], op: Binary, k: int
) -> None:
    dtype = data.draw(st.sampled_from([np.int8, np.int32, np.int64]))
    t, a = data.draw(view_pairs(shape, dtype))
    assert_same(op(k, t), op(k, a))
    assert_same(op(t, k), op(a, k))


@FAST
@given(st.data(), shapes, st.sampled_from(BITWISE), st.booleans())
def test_a_python_bool_on_either_side_of_a_bool_tensor(
    data: st.DataObject, shape: tuple[int, ...], op: Binary, flag: bool
) -> None:
    t, a = data.draw(view_pairs(shape, np.bool_))
    assert_same(op(flag, t), op(flag, a))
    assert_same(op(t, flag), op(a, flag))


@FAST
@given(st.data(), shapes, st.sampled_from(SHIFTS), st.integers(0, 4))
def test_a_python_int_shifted_by_a_tensor_and_a_tensor_by_an_int(
    data: st.DataObject, shape: tuple[int, ...], op: Binary, k: int
) -> None:
    dtype = data.draw(st.sampled_from(INTEGERS))
    t, a = data.draw(view_pairs(shape, dtype))
    shift = lt.tensor(counts(a).astype(dtype))
    assert_same(op(k, shift), op(k, counts(a).astype(dtype)))
    assert_same(op(t, k), op(a, k))


@pytest.mark.parametrize("op", [*BITWISE, *SHIFTS])
@pytest.mark.parametrize("scalar", [np.int16(3), np.uint8(2), np.int64(-2)])
def test_a_numpy_scalar_on_the_left_matches_numpy(op: Binary, scalar: Any) -> None:
    a = np.array([[0, 1, 2], [3, 4, 1]], dtype=np.int32)
    assert_same(op(scalar, lt.tensor(a)), op(scalar, a))


@pytest.mark.parametrize("op", [*BITWISE, *SHIFTS])
def test_a_float_operand_is_refused_with_numpy_error(op: Binary) -> None:
    a = np.array([1, 2], dtype=np.int32)
    with pytest.raises(TypeError) as expected:
        op(1.5, a)
    with pytest.raises(TypeError, match=str(expected.value).split("'")[1]):
        op(1.5, lt.tensor(a))


@FAST
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
def test_a_nested_list_on_the_left_of_at_is_the_left_matrix(m: int, k: int, n: int) -> None:
    left = np.arange(m * k).reshape(m, k)
    right = np.arange(k * n).reshape(k, n) - 2
    assert_same(left.tolist() @ lt.tensor(right), left @ right)
    assert_same(left[0].tolist() @ lt.tensor(right), left[0] @ right)


def test_a_list_on_the_left_of_at_with_the_wrong_length_raises_numpy_s_error_type() -> None:
    with pytest.raises(ValueError, match="mismatch"):
        np.array([1, 2]) @ np.ones((3, 2))
    aligned = r"shapes \(2,\) and \(3, 2\) are not aligned: the last axis of the first \(2\)"
    with pytest.raises(ValueError, match=aligned):
        [1, 2] @ lt.ones(3, 2)

"""ttransform, tpoint, tredux and the arithmetic operators, against numpy on views of every kind.

Reaches into `lazytensor.kernels.callables`: which operators are known, and the dtype and shape
checks of the callable kernels, are checked on arrays below the doors.
"""

from __future__ import annotations

import itertools
import operator
import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import DTYPES, broadcastable_shapes, shapes, view_pairs

import lazytensor as lt
from lazytensor.kernels import callables

FAST = settings(max_examples=40, deadline=None)


def assert_same(result: lt.AbstractTensor, expected: Any) -> None:
    """Same shape, dtype and values (NaN equal to NaN)."""
    expected = np.asarray(expected)
    assert isinstance(result, lt.StorageTensor)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    np.testing.assert_array_equal(result.numpy(), expected)


class Counter:
    """A callable that counts its calls, so tests can prove one call per element."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.fn(*args)


# -- ttransform -------------------------------------------------------------------------------


@FAST
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_ttransform_known_operators_match_numpy(
    data: st.DataObject, shape: tuple[int, ...], dtype: Any
) -> None:
    t, a = data.draw(view_pairs(shape, dtype))
    assert_same(lt.ttransform(t, abs), np.absolute(a))
    assert_same(lt.ttransform(t, np.square), np.square(a))
    if a.dtype != np.bool_:
        assert_same(lt.ttransform(t, operator.neg), np.negative(a))


@FAST
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_ttransform_callable_is_called_once_per_element(
    data: st.DataObject, shape: tuple[int, ...], dtype: Any
) -> None:
    t, a = data.draw(view_pairs(shape, dtype))
    double = Counter(lambda x: x * 2)
    result = lt.ttransform(t, double)
    assert double.calls == a.size
    np.testing.assert_array_equal(result.numpy(), a.astype(object) * 2 if a.size else np.empty(shape))
    assert result.shape == a.shape


def test_ttransform_visits_elements_in_row_major_order() -> None:
    t = lt.arange(6).reshape(2, 3).T
    seen: list[int] = []
    lt.ttransform(t, seen.append)
    assert seen == [0, 3, 1, 4, 2, 5]


def test_a_side_effecting_lambda_sees_every_element() -> None:
    counter = itertools.count()
    result = lt.ttransform(lt.zeros(2, 3), lambda _x: next(counter))
    assert result.tolist() == [[0, 1, 2], [3, 4, 5]]
    rng = random.Random(0)
    noisy = lt.ttransform(lt.zeros(1000), lambda x: x + rng.random())
    assert len(set(noisy.tolist())) == 1000


def test_vectorized_callable_gets_the_whole_array_once() -> None:
    whole = Counter(lambda x: x * 2 + 1)
    result = lt.ttransform(lt.arange(6).reshape(2, 3).T, whole, vectorized=True)
    assert whole.calls == 1
    assert result.tolist() == [[1, 7], [3, 9], [5, 11]]


def test_vectorized_callable_returning_its_input_gives_new_storage() -> None:
    t = lt.arange(3)
    result = lt.ttransform(t, lambda x: x, vectorized=True)
    assert not result.shares_storage(t)


def test_vectorized_callable_of_the_wrong_shape_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"returned shape \(\), expected \(3,\)"):
        lt.ttransform(lt.arange(3), lambda x: x.sum(), vectorized=True)


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([True, False], np.bool_),
        ([1, 2], np.int64),
        ([1, 2.5], np.float64),
        ([1, 2j], np.complex128),
        ([Fraction(1, 2), 1], object),
        ([Decimal("0.1"), Decimal(1)], object),
        (["a", "b"], object),
        ([(1, 2), (3, 4)], object),
    ],
)
def test_result_dtype_is_numpys_for_the_values_returned(values: list[Any], dtype: Any) -> None:
    result = lt.ttransform(lt.arange(2), lambda i: values[i])
    assert result.dtype == np.dtype(dtype)
    assert result.shape == (2,)
    assert result.tolist() == values or result.dtype == object


def test_dtype_argument_overrides_inference() -> None:
    assert lt.ttransform(lt.arange(3), lambda x: x, dtype=np.float32).dtype == np.float32
    assert lt.ttransform(lt.arange(3), abs, dtype=object).numpy().dtype == object
    assert lt.tpoint(lt.arange(3), 1, operator.add, dtype=np.int8).dtype == np.int8


def test_empty_input_keeps_the_input_dtype_and_calls_nothing() -> None:
    never = Counter(lambda x: 1 / 0)
    result = lt.ttransform(lt.zeros(0, 3, dtype=np.int32), never)
    assert (result.shape, result.dtype, never.calls) == ((0, 3), np.dtype(np.int32), 0)


def test_a_raising_callable_propagates_unchanged_and_writes_nothing() -> None:
    t = lt.arange(5)

    def explode(x: int) -> int:
        if x == 3:
            raise KeyError("boom")
        return x

    with pytest.raises(KeyError, match="boom"):
        lt.ttransform(t, explode)
    with pytest.raises(ZeroDivisionError):
        lt.tpoint(t, 0, lambda x, y: x // y)
    assert t.tolist() == [0, 1, 2, 3, 4]


# -- tpoint -----------------------------------------------------------------------------------

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.eq, operator.lt, max, min]


@FAST
@given(
    data=st.data(),
    shape_pair=broadcastable_shapes(),
    dtype=st.sampled_from(DTYPES),
    op=st.sampled_from(BINARY),
)
def test_tpoint_known_operators_broadcast_like_numpy(
    data: st.DataObject, shape_pair: tuple[tuple[int, ...], tuple[int, ...]], dtype: Any, op: Any
) -> None:
    ta, a = data.draw(view_pairs(shape_pair[0], dtype))
    tb, b = data.draw(view_pairs(shape_pair[1], dtype))
    ufunc = {max: np.maximum, min: np.minimum}.get(op, op)
    if dtype == np.bool_ and op is operator.sub:
        return  # numpy refuses boolean subtraction, and so do we
    with np.errstate(all="ignore"):
        expected = ufunc(a, b)
        assert_same(lt.tpoint(ta, tb, op), expected)


@FAST
@given(data=st.data(), shape_pair=broadcastable_shapes(), dtype=st.sampled_from(DTYPES))
def test_tpoint_callable_per_element_matches_numpy(
    data: st.DataObject, shape_pair: tuple[tuple[int, ...], tuple[int, ...]], dtype: Any
) -> None:
    ta, a = data.draw(view_pairs(shape_pair[0], dtype))
    tb, b = data.draw(view_pairs(shape_pair[1], dtype))
    mul = Counter(lambda x, y: x * y)
    result = lt.tpoint(ta, tb, mul)
    expected = np.asarray(np.multiply(a.astype(object), b.astype(object)))
    assert mul.calls == expected.size
    assert result.shape == expected.shape
    assert result.tolist() == expected.tolist()


def test_tpoint_seed_outer_product() -> None:
    column = lt.tensor([1, 2, 3]).reshape(3, 1)
    row = lt.tensor([1, 2, 3]).reshape(1, 3)
    product = lt.tpoint(column, row, lambda x, y: x * y)
    assert product.tolist() == [[1, 2, 3], [2, 4, 6], [3, 6, 9]]
    assert lt.tpoint(column, row, operator.mul).tolist() == product.tolist()


def test_tpoint_accepts_scalars_and_arrays_on_either_side() -> None:
    assert lt.tpoint(2, lt.arange(3), operator.pow).tolist() == [1, 2, 4]
    assert lt.tpoint(np.array([[1], [2]]), lt.arange(2), operator.add).tolist() == [[1, 2], [2, 3]]
    assert lt.tpoint(3, 4, operator.add).shape == ()


def test_python_scalars_are_weak_as_in_numpy() -> None:
    t = lt.ones(2, dtype=np.float32)
    assert (t + 1.5).dtype == np.float32
    assert (lt.arange(2, dtype=np.int32) * 2).dtype == np.int32


def test_broadcast_error_names_both_shapes() -> None:
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\)"):
        lt.tpoint(lt.zeros(2, 3), lt.zeros(4), operator.add)
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(2,\)"):
        lt.zeros(2, 3) + np.zeros(2)


def test_vectorized_tpoint_sees_broadcast_arrays() -> None:
    both = Counter(lambda x, y: x + y)
    result = lt.tpoint(lt.arange(3).reshape(3, 1), lt.arange(2), both, vectorized=True)
    assert both.calls == 1
    assert result.tolist() == [[0, 1], [1, 2], [2, 3]]


# -- tredux -----------------------------------------------------------------------------------


def test_tredux_seed_sums_along_each_axis() -> None:
    t = lt.tensor(list(range(24))).reshape(4, 3, 2)
    add = lambda x, y: x + y  # noqa: E731 - the seeds' own reducer
    expected = {
        0: [[36, 40], [44, 48], [52, 56]],
        1: [[6, 9], [24, 27], [42, 45], [60, 63]],
        2: [[1, 5, 9], [13, 17, 21], [25, 29, 33], [37, 41, 45]],
    }
    for dim, values in expected.items():
        assert lt.tredux(t, dim, 0, add).tolist() == values
        assert lt.tredux(t, dim, 0, operator.add).tolist() == values
    assert lt.tredux(t, -1, 0, add).tolist() == expected[2]


@FAST
@given(data=st.data(), shape=shapes, dtype=st.sampled_from([np.float32, np.int32, np.uint16, np.float64]))
def test_tredux_known_matches_ufunc_reduce_and_the_per_element_fold(
    data: st.DataObject, shape: tuple[int, ...], dtype: Any
) -> None:
    if not shape:
        return
    t, a = data.draw(view_pairs(shape, dtype))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    expected = np.add.reduce(a, axis=dim, initial=0, keepdims=keepdim)
    assert_same(lt.tredux(t, dim, 0, operator.add, keepdim=keepdim), expected)
    folded = lt.tredux(t, dim, 0, lambda acc, x: acc + x, keepdim=keepdim)
    np.testing.assert_allclose(folded.numpy().astype(float), expected.astype(float), rtol=1e-5)
    assert folded.shape == expected.shape


def test_tredux_calls_once_per_element_in_row_major_fold_order() -> None:
    seen: list[tuple[int, int]] = []

    def record(acc: int, x: int) -> int:
        seen.append((acc, x))
        return acc + x

    t = lt.arange(6).reshape(2, 3)
    assert lt.tredux(t, 0, 100, record).tolist() == [103, 105, 107]
    assert seen == [(100, 0), (100, 3), (100, 1), (101, 4), (100, 2), (102, 5)]


def test_tredux_init_is_respected_by_known_operators() -> None:
    t = lt.tensor([[1, 5], [7, 2]])
    assert lt.tredux(t, 1, 6, max).tolist() == [6, 7]
    assert lt.tredux(t, 1, 100, operator.sub).tolist() == [94, 91]
    assert lt.tredux(t, 0, -float("inf"), max).tolist() == [7.0, 5.0]
    assert lt.tredux(lt.zeros(0, 2), 0, 1.5, operator.add).tolist() == [1.5, 1.5]


def test_tredux_vectorized_folds_whole_slices() -> None:
    slices = Counter(lambda acc, x: acc * 10 + x)
    assert lt.tredux(lt.arange(6).reshape(2, 3), 1, 0, slices, vectorized=True).tolist() == [12, 345]
    assert slices.calls == 3


def test_tredux_with_fractions_is_exact() -> None:
    t = lt.tensor([[Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 7), Fraction(2, 7)]])
    assert lt.tredux(t, 1, Fraction(0), operator.add).tolist() == [Fraction(1, 2), Fraction(3, 7)]
    assert lt.tredux(t, 0, 0, lambda a, x: a + x).tolist() == [Fraction(10, 21), Fraction(19, 42)]


def test_tredux_dim_out_of_range_is_numpys_axis_error() -> None:
    with pytest.raises(np.exceptions.AxisError, match=r"axis 2 .* 2 axes"):
        lt.tredux(lt.zeros(2, 3), 2, 0, operator.add)


# -- the operators on tensors -----------------------------------------------------------------


@FAST
@given(
    data=st.data(),
    shape_pair=broadcastable_shapes(),
    dtype=st.sampled_from([np.float32, np.int32, np.float64]),
)
def test_dunders_match_numpy_with_views_arrays_and_scalars(
    data: st.DataObject, shape_pair: tuple[tuple[int, ...], tuple[int, ...]], dtype: Any
) -> None:
    ta, a = data.draw(view_pairs(shape_pair[0], dtype))
    tb, b = data.draw(view_pairs(shape_pair[1], dtype))
    with np.errstate(all="ignore"):
        for op in [
            operator.add,
            operator.sub,
            operator.mul,
            operator.truediv,
            operator.floordiv,
            operator.mod,
        ]:
            assert_same(op(ta, tb), op(a, b))
            assert_same(op(ta, 3), op(a, 3))
            assert_same(op(2, tb), op(2, b))
            assert_same(op(ta, b), op(a, b))
            assert_same(op(a, tb), op(a, b))
        for op in [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]:
            assert_same(op(ta, tb), op(a, b))
            assert_same(op(a, tb), op(a, b))
        assert_same(-ta, -a)
        assert_same(abs(ta), abs(a))
        assert_same(+ta, +a)


def test_power_and_invert() -> None:
    t = lt.tensor([1, 2, 3])
    assert (t**2).tolist() == [1, 4, 9]
    assert (2**t).tolist() == [2, 4, 8]
    assert (~lt.tensor([True, False])).tolist() == [False, True]


def test_ndarray_on_the_left_gives_a_tensor() -> None:
    t = lt.arange(3)
    for result in [np.ones(3) + t, np.ones(3) * t, np.ones(3) > t, np.ones((3, 3)) @ t, np.exp(t)]:
        assert isinstance(result, lt.StorageTensor)
    assert (np.array([10, 20, 30]) - t).tolist() == [10, 19, 28]


def test_other_ufunc_methods_wrap_their_results() -> None:
    assert np.add.reduce(lt.arange(4)).item() == 6
    t = lt.arange(4)
    np.add.at(t, [0, 0], 1)  # unbuffered: a repeated index is incremented twice, as in numpy
    assert t.tolist() == [2, 1, 2, 3]


def test_tensors_are_unhashable_like_arrays() -> None:
    with pytest.raises(TypeError):
        hash(lt.arange(3))
    with pytest.raises(TypeError):
        hash(lt.arange(3).T)


def test_results_are_new_storage_tensors_and_views_stay_views() -> None:
    base = lt.arange(6).reshape(2, 3)
    view = base.T
    result = view + 0
    assert isinstance(result, lt.StorageTensor) and not result.shares_storage(base)
    assert view.shares_storage(base)
    result[0, 0] = 99
    assert base.get((0, 0)) == 0


def test_fractions_and_decimals_stay_exact() -> None:
    thirds = lt.tensor([Fraction(1, 3), Fraction(2, 3)])
    assert (thirds + thirds / 2).tolist() == [Fraction(1, 2), Fraction(1)]
    assert (1 - thirds).tolist() == [Fraction(2, 3), Fraction(1, 3)]
    assert (thirds > Fraction(1, 2)).tolist() == [False, True]
    tenths = lt.tensor([Decimal("0.1")] * 3)
    assert lt.tredux(tenths, 0, Decimal(0), operator.add).item() == Decimal("0.3")
    assert (tenths * 3).tolist() == [Decimal("0.3")] * 3


# -- the generic kernels behind ttransform, tpoint and tredux (lazytensor.kernels.callables) ---------


def test_only_ufuncs_of_the_right_arity_are_known_operators() -> None:
    assert callables.known_unary(np.exp) is np.exp and callables.known_binary(np.add) is np.add
    for two_in_or_two_out in (np.add, np.modf, np.divmod):
        assert callables.known_unary(two_in_or_two_out) is None
    for one_in_or_two_out in (np.exp, np.divmod, np.modf):
        assert callables.known_binary(one_in_or_two_out) is None


def test_a_vectorized_callable_of_the_wrong_shape_is_named() -> None:
    with pytest.raises(ValueError, match=r"^vectorized ttransform returned shape \(1,\), expected \(2,\)$"):
        callables.transform(np.array([1, 2]), lambda x: x[:1], vectorized=True)
    with pytest.raises(ValueError, match=r"^vectorized tpoint returned shape \(\), expected \(2,\)$"):
        callables.point(np.array([1, 2]), 3, lambda x, y: (x * y).sum(), vectorized=True)


def test_dtype_is_honoured_on_every_path() -> None:
    values = np.array([[1, 2], [3, 4]], dtype=np.int64)
    assert callables.transform(values, lambda x: x * 2, dtype=np.float32, vectorized=True).dtype == np.float32
    assert (
        callables.point(values, 1, lambda x, y: x + y, dtype=np.float32, vectorized=True).dtype == np.float32
    )
    assert (
        callables.fold(values, 0, 0, lambda a, x: a + x, vectorized=True, dtype=np.float32).dtype
        == np.float32
    )
    assert callables.transform(values, lambda x: x * 2, dtype=np.float32).dtype == np.float32


def test_a_per_element_result_out_of_the_dtypes_range_raises_as_numpy() -> None:
    """numpy 2 refuses `np.array([300], dtype=np.int8)`; the results are not wrapped silently."""
    with pytest.raises(OverflowError):
        np.array([300], dtype=np.int8)
    values = np.array([1, 2])
    with pytest.raises(OverflowError):
        callables.transform(values, lambda x: 300, dtype=np.int8)
    with pytest.raises(OverflowError):
        callables.point(values, values, lambda x, y: 300, dtype=np.int8)
    with pytest.raises(OverflowError):
        callables.fold(np.ones((2, 2)), 0, 0, lambda a, x: 300, dtype=np.int8)


@pytest.mark.parametrize(("x", "y"), [(np.int8, np.int32), (np.int32, np.int8), (np.uint8, np.float32)])
def test_an_empty_tpoint_has_numpys_result_type(x: type, y: type) -> None:
    got = callables.point(np.zeros((0, 2), dtype=x), np.zeros(2, dtype=y), lambda a, b: a + b)
    assert got.shape == (0, 2) and got.dtype == np.result_type(np.dtype(x), np.dtype(y))


@pytest.mark.parametrize(("dtype", "init"), [(np.int8, 0), (np.int8, 0.5), (np.float32, 0)])
def test_an_empty_fold_has_the_folds_dtype(dtype: type, init: float) -> None:
    got = callables.fold(np.zeros((2, 0), dtype=dtype), 0, init, lambda a, x: a + x)
    assert got.shape == (0,) and got.dtype == np.result_type(np.dtype(dtype), init)


def test_known_operators_give_c_ordered_results() -> None:
    fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    assert callables.transform(fortran, abs).flags.c_contiguous
    assert callables.point(fortran, fortran, operator.add).flags.c_contiguous


def test_fold_calls_an_unknown_callable_once_per_element_unless_vectorized() -> None:
    calls: list[Any] = []

    def add(acc: Any, x: Any) -> Any:
        calls.append(x)
        return acc + x

    values = np.arange(6).reshape(2, 3)
    assert callables.fold(values, 0, 0, add).tolist() == [3, 5, 7]
    assert len(calls) == 6 and all(isinstance(x, int) for x in calls)
    calls.clear()
    kept = callables.fold(values, 0, 0, add, keepdim=True, vectorized=True)
    assert kept.shape == (1, 3) and kept.tolist() == [[3, 5, 7]] and len(calls) == 2


def test_a_fold_that_raises_stopiteration_names_the_callable() -> None:
    def stop(acc: Any, x: Any) -> Any:
        raise StopIteration("done")

    with pytest.raises(
        RuntimeError,
        match=r"^the callable <function .*stop.*> raised StopIteration: StopIteration\('done'\)$",
    ):
        callables.fold(np.arange(3), 0, 0, stop)


def test_a_known_fold_computes_in_the_promoted_dtype() -> None:
    got = callables.fold(np.array([100, 100], dtype=np.int8), 0, 1000, operator.add)
    assert got.dtype.kind == "i" and int(got) == 1200  # integers stay integers, widened to hold 1000

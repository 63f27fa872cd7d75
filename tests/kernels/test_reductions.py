"""Reductions and the softmax family against numpy, on views, with dim None / int / tuple and keepdim."""

from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import DTYPES, nonempty_shapes, shapes, view_pairs

import lazytensor as lt

FAST = settings(max_examples=40, deadline=None)


@st.composite
def dims_for(draw: st.DrawFn, ndim: int) -> Any:
    """None, one axis (maybe negative), or a tuple of distinct axes."""
    if ndim == 0:
        return None
    choice = draw(st.sampled_from(["none", "int", "tuple"]))
    if choice == "none":
        return None
    if choice == "int":
        return draw(st.integers(-ndim, ndim - 1))
    return tuple(draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim)))


def check(result: lt.AbstractTensor, expected: Any, exact: bool) -> None:
    expected = np.asarray(expected)
    assert isinstance(result, lt.StorageTensor)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    if exact:
        np.testing.assert_array_equal(result.numpy(), expected)
    else:
        np.testing.assert_allclose(result.numpy(), expected, rtol=2e-6, atol=1e-6)


@FAST
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_sum_prod_all_any_mean_var_std_match_numpy(
    data: st.DataObject, shape: tuple[int, ...], dtype: Any
) -> None:
    t, a = data.draw(view_pairs(shape, dtype))
    dim = data.draw(dims_for(len(shape)))
    keepdim = data.draw(st.booleans())
    exact = np.dtype(dtype).kind in "biu"
    check(t.sum(dim, keepdim), np.sum(a, axis=dim, keepdims=keepdim), exact)
    check(t.prod(dim, keepdim), np.prod(a, axis=dim, keepdims=keepdim), exact)
    check(t.all(dim, keepdim), np.all(a, axis=dim, keepdims=keepdim), True)
    check(t.any(dim, keepdim), np.any(a, axis=dim, keepdims=keepdim), True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns about the mean of nothing
        check(t.mean(dim, keepdim), np.mean(a, axis=dim, keepdims=keepdim), False)
        check(t.var(dim, keepdim), np.var(a, axis=dim, keepdims=keepdim), False)
        check(t.std(dim, keepdim), np.std(a, axis=dim, keepdims=keepdim), False)


@FAST
@given(data=st.data(), shape=nonempty_shapes, dtype=st.sampled_from(DTYPES))
def test_max_min_argmax_argmin_match_numpy(data: st.DataObject, shape: tuple[int, ...], dtype: Any) -> None:
    t, a = data.draw(view_pairs(shape, dtype))
    dim = data.draw(dims_for(len(shape)))
    keepdim = data.draw(st.booleans())
    check(t.max(dim, keepdim), np.max(a, axis=dim, keepdims=keepdim), True)
    check(t.min(dim, keepdim), np.min(a, axis=dim, keepdims=keepdim), True)
    if dim is None or isinstance(dim, int):
        check(t.argmax(dim, keepdim), np.argmax(a, axis=dim, keepdims=keepdim), True)
        check(t.argmin(dim, keepdim), np.argmin(a, axis=dim, keepdims=keepdim), True)


def test_argmax_over_several_axes_counts_through_them_in_row_major_order() -> None:
    t = lt.tensor([[[1, 9], [3, 4]], [[8, 2], [0, 7]]])
    assert t.argmax((1, 2)).tolist() == [1, 0]
    assert t.argmax((1, 2), keepdim=True).shape == (2, 1, 1)
    assert t.argmin().item() == 6


def test_mean_is_the_true_mean_not_a_running_division() -> None:
    t = lt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 9.0]])
    assert t.mean(1).tolist() == [2.0, 6.0]
    assert t.mean().item() == 4.0
    assert lt.arange(4).mean().dtype == np.float64


def test_mean_and_var_of_fractions_are_exact_fractions() -> None:
    t = lt.tensor([[Fraction(1, 3), Fraction(1, 2)], [Fraction(1, 5), Fraction(1, 7)]])
    assert t.mean().item() == Fraction(247, 840)
    assert t.mean(0).tolist() == [Fraction(4, 15), Fraction(9, 28)]
    values = [Fraction(1, 3), Fraction(1, 2), Fraction(1, 5), Fraction(1, 7)]
    mean = sum(values) / 4
    assert t.var().item() == sum((v - mean) ** 2 for v in values) / 4
    assert isinstance(t.sum(1, keepdim=True).numpy()[0, 0], Fraction)
    assert t.max().item() == Fraction(1, 2)
    assert t.argmin().item() == 3


def test_decimal_sum_and_std() -> None:
    t = lt.tensor([Decimal("1.1"), Decimal("2.2"), Decimal("3.3")])
    assert t.sum().item() == Decimal("6.6")
    assert t.mean().item() == Decimal("2.2")
    assert isinstance(t.std().item(), Decimal)


def test_reductions_of_0d_tensors() -> None:
    t = lt.tensor(5.0)
    assert t.sum().item() == 5.0 and t.argmax().item() == 0 and t.var().item() == 0.0


def test_dim_out_of_range_is_axis_error_naming_dim_and_ndim() -> None:
    for method in ["sum", "mean", "max", "argmax", "std", "all"]:
        with pytest.raises(
            np.exceptions.AxisError, match=r"axis -3 is out of bounds for array of dimension 2"
        ):
            getattr(lt.zeros(2, 3), method)(-3)
    with pytest.raises(np.exceptions.AxisError):
        lt.zeros(2).softmax(1)


def test_max_of_an_empty_axis_is_numpys_value_error() -> None:
    with pytest.raises(ValueError, match="zero-size"):
        lt.zeros(0, 3).max(0)


def test_reduction_over_a_view_reads_it_without_copying_the_input() -> None:
    base = lt.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(base.T[::-1].sum(0).numpy(), base.numpy().T[::-1].sum(0))


# -- softmax ------------------------------------------------------------------------------------


@FAST
@given(data=st.data(), shape=nonempty_shapes)
def test_softmax_sums_to_one_and_matches_the_naive_formula(
    data: st.DataObject, shape: tuple[int, ...]
) -> None:
    t, a = data.draw(view_pairs(shape, np.float64))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    naive = np.exp(a) / np.exp(a).sum(axis=dim, keepdims=True)
    np.testing.assert_allclose(t.softmax(dim).numpy(), naive, rtol=1e-12)
    np.testing.assert_allclose(t.log_softmax(dim).numpy(), np.log(naive), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t.softmax(dim).sum(dim).numpy(), 1.0)


def test_softmax_is_numerically_stable() -> None:
    t = lt.tensor([1000.0, -1000.0])
    assert t.softmax(0).tolist() == [1.0, 0.0]
    assert t.log_softmax(0).tolist() == [0.0, -2000.0]


def test_softmax_of_integers_is_float() -> None:
    result = lt.tensor([[0, 0]]).softmax(1)
    assert result.dtype == np.float64 and result.tolist() == [[0.5, 0.5]]


def test_numpy_reduction_functions_accept_tensors() -> None:
    """np.sum(t, axis=...) calls t.sum with numpy's keyword names; the result is a tensor."""
    t = lt.arange(6.0).reshape(2, 3).T
    ref = np.arange(6.0).reshape(2, 3).T
    for fn in (np.sum, np.mean, np.max, np.min, np.prod, np.std, np.var, np.argmax, np.all, np.any):
        for kwargs in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}):
            result = fn(t, **kwargs)
            assert isinstance(result, lt.AbstractTensor)
            np.testing.assert_allclose(result.numpy(), fn(ref, **kwargs))
    out = np.zeros(2)  # numpy's own keywords (out=, dtype=) run numpy on the values
    np.sum(t, axis=0, out=out)
    np.testing.assert_allclose(out, ref.sum(axis=0))
    with pytest.raises(TypeError, match="out must be a tensor, got ndarray"):
        t.sum(out=np.zeros(2))


# -- expanded axes, object and integer dtypes, the mean of nothing ------------------------------------


_EXPANSIONS = [  # (values, expanded shape, reduction axes): stride-0 axes of sizes 2 and 3
    (np.array([1.5, -2.0, 4.0]), (2, 3), None),
    (np.array([1.5, -2.0, 4.0]), (3, 3), 0),
    (np.array([[1, 2, 3]]), (2, 3, 3), (0, 1)),
    (np.array([[1, 2, 3]]), (2, 3, 3), 1),
    (np.array([[1, 2, 3]]), (2, 3, 3), (0, 2)),
    (np.array([[2], [3]]), (2, 2, 3), (0, 2)),
]


@pytest.mark.parametrize(("values", "shape", "dim"), _EXPANSIONS)
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any"])
def test_reductions_over_expanded_axes_match_numpy(
    values: np.ndarray, shape: tuple[int, ...], dim: int | tuple[int, ...] | None, name: str
) -> None:
    t = lt.tensor(values).expand(*shape)
    ref = np.broadcast_to(values, shape).copy()
    got = getattr(t, name)(dim).numpy()
    want = np.asarray(getattr(np, name)(ref, axis=dim))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)
    kept = getattr(t, name)(dim, keepdim=True).numpy()
    np.testing.assert_allclose(kept, np.asarray(getattr(np, name)(ref, axis=dim, keepdims=True)))


def test_a_sum_over_10_to_the_12_repeats_costs_what_the_base_costs() -> None:
    """The reduction docstring's promise: an expanded axis is summed as one copy times its size
    (the whole expansion would be 3·10^12 additions)."""
    t = lt.tensor([1.0, 2.0, 3.0]).expand(10**12, 3)
    assert t.sum().item() == 6.0 * 10**12
    assert t.sum(0).tolist() == [1.0e12, 2.0e12, 3.0e12]
    assert t.mean().item() == 2.0
    signs = lt.tensor([1.0, -1.0, 0.5]).expand(10**12 + 1, 3)
    assert signs.prod(0).tolist() == [1.0, -1.0, 0.0]  # (-1) ** odd, 0.5 ** (10^12 + 1) underflows


def test_object_reductions_stay_object() -> None:
    t = lt.tensor([1, 2, 3], dtype=object)
    for name in ("sum", "prod", "max", "min"):
        result = getattr(t, name)()
        assert result.dtype == object, name
        assert result.item() == getattr(np, name)(np.array([1, 2, 3], dtype=object))
    fractions = lt.tensor([Fraction(1, 2), 0], dtype=object)
    assert fractions.all().dtype == np.bool_ and not fractions.all().item()
    assert fractions.any().dtype == np.bool_ and fractions.any().item()
    assert lt.tensor([Fraction(1, 2), Fraction(1, 3)], dtype=object).var().item() == Fraction(1, 144)


def test_integer_means_accumulate_in_float64_as_numpy() -> None:
    ref = np.array([2**62, 2**62, 2**62, 2**62], dtype=np.int64)  # the int64 sum would overflow
    assert lt.tensor(ref).mean().item() == np.mean(ref)
    ref_u = np.array([2**63, 2**63], dtype=np.uint64)
    assert lt.tensor(ref_u).mean().item() == np.mean(ref_u)
    assert lt.tensor(ref).var().item() == np.var(ref)


def test_the_mean_of_nothing_is_nan_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(lt.zeros(0).mean().item())
        assert np.isnan(lt.zeros(2, 0).mean(1).numpy()).all()
        assert np.isnan(lt.zeros(0, dtype=np.int64).mean().item())


# -- softmax: shifts and dtypes ---------------------------------------------------------------------


def _naive_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return np.asarray(e / e.sum(axis=axis, keepdims=True))


def test_softmax_shifts_each_row_by_its_own_maximum() -> None:
    ref = np.array([[1000.0, 999.0], [-1000.0, -1001.0]])
    np.testing.assert_allclose(lt.tensor(ref).softmax(1).numpy(), _naive_softmax(ref, 1))
    np.testing.assert_allclose(
        lt.tensor(ref).log_softmax(1).numpy(), np.log(_naive_softmax(ref, 1)), rtol=1e-12
    )
    # an axis of one element: softmax 1, log_softmax 0, even for huge values
    assert lt.tensor([[1000.0]]).softmax(1).tolist() == [[1.0]]
    assert lt.tensor([[1000.0]]).log_softmax(1).tolist() == [[0.0]]


def test_softmax_dtypes_follow_the_input() -> None:
    assert lt.tensor([1.0, 2.0], dtype=np.float32).softmax(0).dtype == np.float32
    assert lt.tensor([1, 2]).softmax(0).dtype == np.float64
    # small integers are widened before the shift: int8 -100 - 100 must not wrap around
    ref = np.array([-100, 100], dtype=np.int8)
    np.testing.assert_allclose(lt.tensor(ref).softmax(0).numpy(), _naive_softmax(ref.astype(float), 0))
    np.testing.assert_allclose(lt.tensor(ref).log_softmax(0).numpy(), [-200.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(
        lt.tensor([True, False]).softmax(0).numpy(), _naive_softmax(np.array([1.0, 0.0]), 0)
    )


# -- argsort -----------------------------------------------------------------------------------------


def test_argsort_takes_the_axis_and_the_kind() -> None:
    ref = np.array([[3, 1, 2], [0, 5, 4]])
    np.testing.assert_array_equal(lt.tensor(ref).argsort().numpy(), np.argsort(ref))
    np.testing.assert_array_equal(lt.tensor(ref).argsort(0).numpy(), np.argsort(ref, axis=0))
    ties = np.repeat(np.arange(10) % 3, 100)  # long enough that numpy's default sort (here) is not stable
    np.testing.assert_array_equal(
        lt.tensor(ties).argsort(kind="stable").numpy(), np.argsort(ties, kind="stable")
    )


@pytest.mark.parametrize("values", [np.int64(3), np.arange(10), np.array([[1, 5], [9, 20]])])
def test_std_with_an_integer_dtype_truncates_a_whole_reduction_as_numpy(values: Any) -> None:
    expected = np.std(values, dtype=np.int64)
    result = lt.tensor(values).std(dtype=np.int64)
    assert result.dtype == expected.dtype and result.item() == expected


def test_std_with_an_integer_dtype_along_an_axis_is_numpys_casting_error() -> None:
    values = np.arange(12).reshape(3, 4)
    with pytest.raises(TypeError) as numpy_error:
        np.std(values, axis=0, dtype=np.int64)
    with pytest.raises(type(numpy_error.value)) as ours:
        lt.tensor(values).std(0, dtype=np.int64)
    assert str(ours.value) == str(numpy_error.value)

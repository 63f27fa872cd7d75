"""Operations on dask-backed tensors: what they refuse says all of why and what to do instead, and an
operation that mixes a zarr base with a dask one keeps the whole result lazy."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest
import zarr
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt


def test_an_operand_that_requires_grad_is_refused_with_the_whole_remedy() -> None:
    t = lt.from_array(da.arange(5.0, chunks=2))
    w = lt.ones(5, requires_grad=True)
    with pytest.raises(TypeError) as caught:
        _ = t * w
    assert str(caught.value) == (
        "mul: gradients do not flow through operations on a dask-backed tensor, and an operand of "
        "shape (5,) requires grad; use lt.no_grad(), or bring the tensor into memory first (t.compute())"
    )


def test_an_operation_without_a_chunked_form_is_refused_with_its_reason_and_the_remedy() -> None:
    t = lt.from_array(da.arange(5.0, chunks=2))
    with pytest.raises(TypeError) as caught:
        lt.unique(t)
    assert str(caught.value) == (
        "unique has no chunked form, so it cannot run on a dask-backed tensor (shape (5,)) without "
        "computing it whole: the distinct values are known only after every value is read; bring the "
        "operands into memory first (t.compute()), or write it with dask"
    )


@pytest.mark.parametrize("zarr_first", [True, False])
def test_an_operation_on_a_zarr_base_and_a_dask_base_stays_lazy(zarr_first: bool) -> None:
    values = np.arange(6.0)
    stored = zarr.create_array(store={}, shape=(6,), dtype="f8", chunks=(2,))
    stored[...] = values
    on_zarr = lt.from_array(stored)
    on_dask = lt.from_array(da.from_array(values[::-1].copy(), chunks=3))
    result = on_zarr * on_dask if zarr_first else on_dask * on_zarr
    assert result.base.layer_name == "Dask" and result.base.defers_operations
    np.testing.assert_array_equal(result.numpy(), values * values[::-1])


@pytest.mark.parametrize("axis", [None, 1])
def test_repeat_by_one_count_stays_lazy_on_a_dask_tensor(axis: int | None) -> None:
    """One count is dask's repeat (a count per element is refused, in
    tests/array_api/test_array_api_kernels.py)."""
    values = np.arange(6.0).reshape(2, 3)
    repeated = lt.from_array(da.from_array(values, chunks=2)).repeat(2, axis=axis)
    assert repeated.base.defers_operations
    np.testing.assert_array_equal(repeated.numpy(), values.repeat(2, axis=axis))


def test_numpy_s_error_state_where_an_operation_is_written_rules_its_dask_graph() -> None:
    """dask computes the graph later, on its own threads: `np.errstate` around the operation decides
    whether its division by zero is silent or raises, as it does for numpy's eager operation."""
    t = lt.from_array(da.from_array(np.array([0.0, 1.0, 2.0, 0.0]), chunks=2))
    with np.errstate(divide="ignore"):
        quiet = 1 / t
    with np.errstate(divide="raise"):
        loud = 1 / t
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(quiet.numpy(), [np.inf, 1.0, 0.5, np.inf])
    with pytest.raises(FloatingPointError, match="divide by zero"):
        loud.numpy()


@settings(max_examples=60, deadline=None)
@given(
    shape=st.tuples(st.integers(0, 9), st.integers(1, 7)),
    chunks=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    dim=st.sampled_from([0, 1, -1, None]),
    name=st.sampled_from(["cumsum", "cumprod"]),
    dtype=st.sampled_from(["float32", "float64", "int8", "bool"]),
    seed=st.integers(0, 2**16),
)
def test_running_sums_and_products_over_chunks_are_numpy_s_to_the_bit(
    shape: tuple[int, int], chunks: tuple[int, int], dim: int | None, name: str, dtype: str, seed: int
) -> None:
    """Each block scanned with the running value before it in front, in numpy's order: float32 sums
    across chunks round as numpy's do (dask's own cumsum differed in the last bit), ints wrap the same."""
    values = (
        np.random.default_rng(seed).uniform(-3, 3, size=shape) * (1 if name == "cumprod" else 40)
    ).astype(dtype)
    expected = getattr(np, name)(values, axis=dim)
    on_dask = lt.from_array(da.from_array(values, chunks=chunks))
    array = zarr.create_array(store={}, shape=shape, chunks=chunks, dtype=values.dtype)
    array[...] = values
    for t in (on_dask, lt.from_array(array)):
        got = getattr(t, name)(dim).numpy()
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)

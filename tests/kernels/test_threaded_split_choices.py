"""Which work `lazytensor.kernels.threads` splits and where it cuts: every element read once, integer work
split too, the axis cut (outermost in memory, kept when it can be: then float sums are numpy's
exactly), the smallest tensors split, half-precision accumulators never split, and float64 sums of
transposed tensors through einsum's loop.

Reaches into `lazytensor.kernels.threads`: which work is split and where is read from the module's
own calls and recorded blocks.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from thread_support import counted_einsums, recorded_blocks, threaded

import lazytensor as lt
from lazytensor.kernels import threads

READ: list[int] = []
"""The sizes of the `Counted` arrays numpy's ufuncs were handed, call after call."""


class Counted(np.ndarray):
    """An array that notes the size of every part of it a ufunc (or a ufunc's reduce) reads."""

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        READ.extend(x.size for x in inputs if isinstance(x, Counted))
        plain = [x.view(np.ndarray) if isinstance(x, Counted) else x for x in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)


def counted(values: np.ndarray) -> Counted:
    READ.clear()
    return values.view(Counted)


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple).filter(lambda s: np.prod(s) > 1),
    ufunc=st.sampled_from([np.add, np.multiply, np.maximum, np.equal]),
)
def test_a_split_ufunc_reads_every_element_once(shape: tuple[int, ...], ufunc: np.ufunc) -> None:
    """One block each, and no whole-array call besides (numpy's result dtype comes from empty arrays)."""
    left = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)
    right = left[..., ::-1].copy()
    x, y = counted(left), right.view(Counted)
    with threaded():
        got = threads.ufunc_call(ufunc, x, y)
    assert got is not None
    np.testing.assert_array_equal(got, ufunc(left, right), strict=True)
    assert sum(READ) == 2 * left.size


@pytest.mark.parametrize("axis", [0, 1, (0, 1)])
def test_a_split_reduction_reads_every_element_once(axis: int | tuple[int, ...]) -> None:
    values = np.arange(30, dtype=np.int64).reshape(6, 5)
    axes = axis if isinstance(axis, tuple) else (axis,)
    with threaded():
        got = threads.reduce(np.maximum, counted(values), axes, False)
    np.testing.assert_array_equal(got, np.maximum.reduce(values, axis=axis), strict=True)
    assert sum(READ) == values.size


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "bool"])
def test_integer_and_bool_work_is_split_exactly(dtype: str) -> None:
    """Every integer ufunc is exact in blocks, `//`, `%`, `**` and the bitwise ones included."""
    values = (np.arange(-12, 12) % 7).astype(dtype).reshape(4, 6)
    t = lt.tensor(values)
    with threaded(), recorded_blocks() as blocks:
        np.testing.assert_array_equal((t + t).numpy(), values + values, strict=True)
        np.testing.assert_array_equal((t & t).numpy(), values & values, strict=True)
        if dtype != "bool":
            np.testing.assert_array_equal((t // 3).numpy(), values // 3, strict=True)
    assert len(blocks) == (2 if dtype == "bool" else 3)


# -- the axis cut -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((1, 2), 1), ((1, 2), 0), ((2, 2), 1), ((2, 1, 2), 2)],
)
def test_a_tensor_with_every_axis_shorter_than_the_threads_is_cut_along_an_axis_of_two(
    shape: tuple[int, ...], axis: int
) -> None:
    """No axis has a block for each of the three threads: the outermost of two elements is cut, in two."""
    values = np.arange(int(np.prod(shape))).reshape(shape)
    t = lt.tensor(values)
    with threaded(), recorded_blocks() as blocks:
        np.testing.assert_array_equal(t.max(axis).numpy(), values.max(axis), strict=True)
    assert blocks == [2]


def test_a_tensor_of_one_element_is_never_split() -> None:
    """Nothing to cut even when work of one element is to be split (`split_from(1)`)."""
    before = lt.get_num_threads()
    lt.set_num_threads(3)
    try:
        with threads.split_from(1), recorded_blocks() as blocks:
            assert lt.tensor([[5.0]]).max(0).tolist() == [5.0]
            assert lt.tensor([[5]]).sum().item() == 5
    finally:
        lt.set_num_threads(before)
    assert blocks == []


def _float32(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(7).random(shape, dtype=np.float32) * 1000


def test_float32_row_sums_cut_along_the_rows_are_numpys_exactly() -> None:
    """Three rows for three threads: each thread sums its own rows, as numpy does, to the last bit
    (cutting the rows into parts would add partial sums in another order)."""
    values = _float32((3, 1000))
    with threaded():
        got = lt.tensor(values).sum(1).numpy()
    np.testing.assert_array_equal(got, values.sum(1), strict=True)


def test_float32_sums_of_a_transposed_tensor_are_cut_along_its_outermost_axis_in_memory() -> None:
    """A transpose's last axis is its outermost in memory: kept, it is cut, and each block sums whole
    columns as numpy does (cutting the reduced axis would add partial sums in another order)."""
    base = _float32((3, 1000))
    with threaded(), recorded_blocks() as blocks:
        got = lt.tensor(base).T.sum(0).numpy()
    np.testing.assert_array_equal(got, base.T.sum(0), strict=True)
    assert blocks == [3]


def test_a_sum_into_a_narrower_dtype_cut_along_the_rows_is_numpys_exactly() -> None:
    """`dtype=` names the accumulator, not only the result: numpy truncates float64 values to int8
    before adding them, wrapping, and so does every block."""
    values = np.random.default_rng(7).random((3, 1000)) * 1000
    with threaded(), recorded_blocks() as blocks:
        got = lt.tensor(values).sum(1, dtype=np.int8).numpy()
    np.testing.assert_array_equal(got, values.sum(1, dtype=np.int8), strict=True)
    assert blocks == [3]


# -- which reductions are split ---------------------------------------------------------------------


def test_work_of_exactly_the_smallest_size_split_is_split() -> None:
    t = lt.tensor(np.array([3, 4]))
    with threaded(), recorded_blocks() as blocks:
        assert t.sum().item() == 7
        assert (t * 2).tolist() == [6, 8]
    assert blocks == [2, 2]


def test_nothing_to_reduce_is_not_for_threads() -> None:
    with threaded():
        assert threads.reduce(np.add, np.ones((3, 4)), (), False) is None
        assert threads.reduce(np.maximum, np.ones((3, 4), dtype=np.int8), (), True) is None


def test_a_reduction_with_a_dtype_is_split_along_a_reduced_axis() -> None:
    values = np.arange(192, dtype=np.int32).reshape(64, 3)
    t = lt.tensor(values)
    with threaded(), recorded_blocks() as blocks:
        np.testing.assert_array_equal(t.sum(0, dtype=np.int64).numpy(), values.sum(0, dtype=np.int64))
        np.testing.assert_array_equal(t.sum(0, dtype=np.int8).numpy(), values.sum(0, dtype=np.int8))
    assert len(blocks) == 2


def test_a_float16_accumulator_is_never_split_along_a_reduced_axis() -> None:
    """`dtype=float16` on float32 values: partial sums rounded to half precision in each block would
    not be numpy's; the sum runs on one thread and is numpy's exactly."""
    values = _float32((64, 3)) / 100
    t = lt.tensor(values)
    with threaded(), recorded_blocks() as blocks:
        got = t.sum(0, dtype=np.float16).numpy()
    np.testing.assert_array_equal(got, values.sum(0, dtype=np.float16), strict=True)
    assert blocks == []


# -- float64 sums of transposed tensors -------------------------------------------------------------


def _subsets(ndim: int) -> list[tuple[int, ...]]:
    return [axes for count in range(1, ndim + 1) for axes in itertools.combinations(range(ndim), count)]


@pytest.mark.parametrize("axes", _subsets(3))
def test_float64_sums_of_a_transposed_tensor_over_any_axes_are_numpys(axes: tuple[int, ...]) -> None:
    """The transpose of a C-ordered (2, 3, 4) tensor: its sums over every set of axes, within the
    rounding of a reassociated sum; those over the leading axes, one kept at most, by einsum."""
    base = np.random.default_rng(11).random((2, 3, 4))
    view, values = lt.tensor(base).T, base.T
    einsums = 0
    for keepdims in (False, True):
        with threaded(), counted_einsums() as calls:
            got = np.asarray(view.sum(axes, keepdims=keepdims))
        einsums += calls[0]
        expected = values.sum(axes, keepdims=keepdims)
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-14)
    leading = axes == tuple(range(len(axes))) and len(axes) >= 2
    assert (einsums > 0) == leading

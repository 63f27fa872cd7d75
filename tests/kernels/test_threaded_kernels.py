"""Big elementwise operations and reductions split across threads (`kernels.threads`) against numpy.

The threaded paths run here on small tensors, quickly: `threaded()` asks for three threads and
lowers the size from which work is split to two elements, in blocks of any size, so a 3x4 tensor
is cut in up to twelve blocks (four a thread). Elementwise results, `max`/`min`, `all`/`any` and
integer sums must be numpy's exactly (integer overflow wraps as numpy's, NaN wins `max`); float
sums, means and products
may differ by reassociation only, within the textbook bound of any summation order,
`(n + 1) * eps * sum(|x|)` for `n` elements summed (docs/performance.md).

Reaches into `lazytensor.kernels.threads`: its thresholds are lowered and its blocks recorded so
that small tensors take the threaded paths.
"""

from __future__ import annotations

import contextlib
import operator
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from repo_paths import ROOT
from thread_support import counted_einsums, threaded

import lazytensor as lt
from lazytensor.kernels import threads

EXAMPLES = settings(max_examples=150, deadline=None)

EXACT_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64", "complex128"]
SUM_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex128"]


@contextlib.contextmanager
def counting_blocks() -> Iterator[list[int]]:
    """How many times `run_blocks` runs, as a one-element list filled in inside the block."""
    calls = [0]
    original = threads.run_blocks

    def spy(count: int, work: Callable[[int], Any]) -> list[Any]:
        calls[0] += 1
        return original(count, work)

    threads.run_blocks = spy  # type: ignore[assignment]
    try:
        yield calls
    finally:
        threads.run_blocks = original  # type: ignore[assignment]


# -- strategies -----------------------------------------------------------------------------------

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6)


def _elements(dtype: np.dtype[Any], bounded: bool) -> st.SearchStrategy[Any] | None:
    """hypothesis's own elements (every value, NaN and infinities included), or for float sums small
    finite values and NaN: reassociating 1e308 + 1e308 - 1e308 is inf one way and 1e308 the other."""
    if not bounded or dtype.kind not in "fc":
        return None
    width = 32 if dtype == np.float32 else 64
    real = st.floats(-1e3, 1e3, width=width) | st.just(float("nan"))
    return real if dtype.kind == "f" else st.builds(complex, real, real)


@st.composite
def views(draw: st.DrawFn, dtypes: list[str], bounded: bool = False) -> tuple[lt.AbstractTensor, np.ndarray]:
    """A tensor that is a plain base, a strided view (steps of 1 or 2, either way) or a transpose of
    one, and the numpy array it equals."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(shapes)
    steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in shape]
    base_shape = tuple(max(size * abs(step), size) for size, step in zip(shape, steps, strict=True))
    base = draw(hnp.arrays(dtype, base_shape, elements=_elements(dtype, bounded)))
    key = tuple(
        slice(0, size * step, step) if step > 0 else slice(-1, None, step)
        for size, step in zip(shape, steps, strict=True)
    )
    # a 0-d array, not numpy's scalar: a tensor is an array, and numpy's scalar arithmetic is its own
    # ((94906265+1j) * (94906267+1j) rounds to ...756 as scalars, ...754 as arrays)
    tensor, array = lt.tensor(base)[key], np.asarray(base[key])
    if draw(st.booleans()):
        tensor, array = tensor.T, array.T
    return tensor, array


@st.composite
def reduce_axes(draw: st.DrawFn, ndim: int) -> int | tuple[int, ...] | None:
    """None, one axis (maybe negative) or a tuple of distinct axes in any order."""
    if ndim == 0 or draw(st.booleans()):
        return None
    axes = draw(
        st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim, unique_by=lambda a: a % ndim)
    )
    return axes[0] if len(axes) == 1 and draw(st.booleans()) else tuple(axes)


# -- comparing ------------------------------------------------------------------------------------


def _outcome(call: Callable[[], Any]) -> Any:
    """What `call()` gives as a numpy array, or the class of the exception it raises."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's "Mean of empty slice", on both sides
        try:
            result = call()
        except (TypeError, ValueError, OverflowError) as error:
            return type(error)
    return np.asarray(result.numpy() if isinstance(result, lt.AbstractTensor) else result)


def assert_exact(got: Any, expected: Any) -> None:
    if isinstance(expected, type):
        assert got is expected, (got, expected)
        return
    assert not isinstance(got, type), f"lazytensor raised {got.__name__}, numpy gave {expected!r}"
    np.testing.assert_array_equal(got, expected, strict=True)


def assert_reassociated(
    got: Any, expected: Any, values: np.ndarray, axis: Any, keepdims: bool, product: bool = False
) -> None:
    """Equal dtype and shape, and values within `(n + 1) * eps * sum(|x|)` of numpy's (for a product,
    `(n + 1) * eps * prod(|x|)`)."""
    if isinstance(expected, type) or got.dtype.kind not in "fc":
        assert_exact(got, expected)
        return
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    count = values.size // max(expected.size, 1) if values.size else 0
    combine = np.prod if product else np.sum
    with np.errstate(all="ignore"):
        magnitude = combine(np.abs(values.astype(np.complex128)), axis=axis, keepdims=keepdims)
        bound = (count + 1) * np.finfo(got.dtype).eps * magnitude
        same = (got == expected) | (np.isnan(got) & np.isnan(expected))  # infinities, NaN
        close = same | (np.abs(got - expected) <= bound)
    assert np.all(close), (got, expected, bound)


# -- elementwise ----------------------------------------------------------------------------------

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.eq, np.maximum, np.power]


@EXAMPLES
@given(views(EXACT_DTYPES), views(EXACT_DTYPES), st.sampled_from(BINARY), st.data())
def test_threaded_binary_operations_are_numpys_exactly(
    left: tuple[lt.AbstractTensor, np.ndarray],
    right: tuple[lt.AbstractTensor, np.ndarray],
    op: Callable[[Any, Any], Any],
    data: st.DataObject,
) -> None:
    (t, a), (u, b) = left, right
    if data.draw(st.booleans(), label="broadcast against a column"):  # (n, 1) against (1, n)
        t, a = t.reshape(-1, 1), a.reshape(-1, 1)
        u, b = u.reshape(1, -1), b.reshape(1, -1)
    expected = _outcome(lambda: op(a, b))
    with threaded():
        got = _outcome(lambda: op(t, u))
    assert_exact(got, expected)


@EXAMPLES
@given(views(EXACT_DTYPES), st.sampled_from([2, -3, 2.5, 300, 1j, True]), st.sampled_from(BINARY))
def test_threaded_operations_with_a_python_scalar_keep_numpys_weak_dtype_rules(
    view: tuple[lt.AbstractTensor, np.ndarray], scalar: Any, op: Callable[[Any, Any], Any]
) -> None:
    """int8 + 300 is numpy's OverflowError, int8 * 2 stays int8, float32 * 2.5 stays float32."""
    t, a = view
    expected = _outcome(lambda: op(a, scalar))
    with threaded():
        got = _outcome(lambda: op(t, scalar))
    assert_exact(got, expected)


UNARY: list[Callable[[Any], Any]] = [operator.neg, abs, np.exp, np.sqrt, np.isnan, np.sin]


@EXAMPLES
@given(views(EXACT_DTYPES), st.sampled_from(UNARY))
def test_threaded_unary_operations_are_the_unthreaded_ones_exactly(
    view: tuple[lt.AbstractTensor, np.ndarray], op: Callable[[Any], Any]
) -> None:
    """Threads change no bit; and that is numpy's result, up to the last bit where numpy's own loops
    disagree with each other (complex `abs` of a strided view and of a copy, SIMD `exp`)."""
    t, a = view
    with threaded(count=1):
        single = _outcome(lambda: op(t))
    with threaded():
        got = _outcome(lambda: op(t))
    assert_exact(got, single)
    expected = _outcome(lambda: op(a))
    if isinstance(expected, type) or expected.dtype.kind not in "fc":
        assert_exact(got, expected)
        return
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=2 * np.finfo(got.dtype).eps, atol=0, equal_nan=True)


# -- reductions -----------------------------------------------------------------------------------

EXACT_REDUCTIONS = {"max": np.max, "min": np.min, "all": np.all, "any": np.any}


@EXAMPLES
@given(views(EXACT_DTYPES), st.sampled_from(sorted(EXACT_REDUCTIONS)), st.booleans(), st.data())
def test_threaded_max_min_all_any_are_numpys_exactly(
    view: tuple[lt.AbstractTensor, np.ndarray], name: str, keepdims: bool, data: st.DataObject
) -> None:
    """Exact, NaN winning max and min, and numpy's ValueError over an empty axis."""
    t, a = view
    axis = data.draw(reduce_axes(a.ndim), label="axis")
    function = EXACT_REDUCTIONS[name]
    expected = _outcome(lambda: function(a, axis=axis, keepdims=keepdims))
    with threaded():
        got = _outcome(lambda: function(t, axis=axis, keepdims=keepdims))
    assert_exact(got, expected)


SUMS = {"sum": np.sum, "mean": np.mean, "prod": np.prod}


@EXAMPLES
@given(views(SUM_DTYPES, bounded=True), st.sampled_from(sorted(SUMS)), st.booleans(), st.data())
def test_threaded_sums_means_products_are_numpys_up_to_reassociation(
    view: tuple[lt.AbstractTensor, np.ndarray], name: str, keepdims: bool, data: st.DataObject
) -> None:
    """Integer sums and products exact (wrapping as numpy's), float ones within the bound."""
    t, a = view
    axis = data.draw(reduce_axes(a.ndim), label="axis")
    dtype = data.draw(st.sampled_from([None, None, "int8", "float32", "float64"]), label="dtype")
    function = SUMS[name]
    if name == "prod":  # products of a dozen values up to 1e3 overflow float32: keep them near 1
        a = np.where(np.abs(a) > 2, 1, a).astype(a.dtype) if a.dtype.kind in "fc" else a
        t = lt.tensor(a.copy())
    expected = _outcome(lambda: function(a, axis=axis, keepdims=keepdims, dtype=dtype))
    with threaded():
        got = _outcome(lambda: function(t, axis=axis, keepdims=keepdims, dtype=dtype))
    assert_reassociated(got, expected, a, axis, keepdims, product=name == "prod")


def test_integer_sums_wrap_around_as_numpys_in_every_block() -> None:
    values = np.full((6, 5), 100, dtype=np.int8)
    t = lt.tensor(values)
    with threaded():
        for axis in (0, 1, None):
            assert_exact(np.asarray(t.sum(axis, dtype=np.int8)), values.sum(axis, dtype=np.int8))
            assert_exact(np.asarray(t.sum(axis)), values.sum(axis))


def test_a_float_sum_split_along_a_reduced_axis_is_reassociated_but_close() -> None:
    """Blocked partial sums: the one place threads change float results, by rounding only."""
    values = np.random.default_rng(3).random((64, 3)) * 1e6
    t = lt.tensor(values)
    with threaded(), counting_blocks() as calls:
        got = t.sum(0).numpy()
    assert calls[0] == 1
    assert_reassociated(got, values.sum(0), values, 0, False)


def test_half_precision_sums_are_split_only_where_they_stay_exact() -> None:
    """numpy sums float16 in float32 and rounds once: float16 partial sums would round once a block.
    Cut along a kept axis (a block per row) they are numpy's own; along a reduced axis, not cut."""
    values = np.full((8, 300), 0.1, dtype=np.float16)
    t = lt.tensor(values)
    with threaded(), counting_blocks() as calls:
        assert_exact(t.sum(1).numpy(), values.sum(1))
    assert calls[0] == 1
    with threaded(), counting_blocks() as calls:
        assert_exact(np.asarray(t.sum()), values.sum())
        assert_exact(t.sum(0).numpy(), values.sum(0))
    assert calls[0] == 0


@pytest.mark.parametrize("order", ["C", "F"])
def test_float64_sums_over_trailing_axes_use_einsums_loop_in_blocks(order: str) -> None:
    """Rows (or a transposed view's columns) summed by einsum, a block of rows per task."""
    values = np.asarray(np.random.default_rng(5).random((4, 5, 6)), order=order)
    t = lt.tensor(values.copy(order="C"))
    view = t if order == "C" else lt.tensor(np.ascontiguousarray(values.T)).T
    with threaded(), counted_einsums() as einsums:
        for axis in [(1, 2), 2, (0, 1, 2), None] if order == "C" else [(0, 1), (0, 1, 2), None]:
            for keepdims in (False, True):
                got = np.asarray(np.sum(view, axis=axis, keepdims=keepdims))
                expected = values.sum(axis=axis, keepdims=keepdims)
                assert_reassociated(got, expected, values, axis, keepdims)
                got = np.asarray(np.mean(view, axis=axis, keepdims=keepdims))
                np.testing.assert_allclose(got, values.mean(axis=axis, keepdims=keepdims), rtol=1e-14)
    assert einsums[0] >= 32  # every sum and mean, in blocks


# -- which path runs --------------------------------------------------------------------------------


def test_one_thread_never_splits() -> None:
    values = np.arange(24.0).reshape(4, 6)
    t = lt.tensor(values)
    with threaded(count=1), counting_blocks() as calls:
        assert_exact((t + t).numpy(), values + values)
        assert_exact(t.sum(1).numpy(), values.sum(1))
        assert threads.start_at == threads.reduce_at == sys.maxsize
    assert calls[0] == 0


def test_small_work_never_splits_by_default() -> None:
    t = lt.tensor(np.ones((10, 10)))
    lt.set_num_threads(2)
    with counting_blocks() as calls:
        (t + t).sum()
    assert calls[0] == 0


def test_big_work_splits_by_default() -> None:
    t = lt.tensor(np.ones((1, threads.MIN_ELEMENTS)))
    before = lt.get_num_threads()
    lt.set_num_threads(2)
    try:
        with counting_blocks() as calls:
            largest = (t * 2).max(1)
            total = t.sum()
    finally:
        lt.set_num_threads(before)
    assert calls[0] == 3
    assert largest.tolist() == [2.0]
    assert total.item() == threads.MIN_ELEMENTS


def test_functions_numpy_approximates_are_never_split() -> None:
    """numpy's SIMD `exp` and complex `*` may round differently from its other loops: one thread."""
    values = np.linspace(0.5, 3, 24).reshape(4, 6)
    t, z = lt.tensor(values), lt.tensor(values * 1j)
    with threaded(), counting_blocks() as calls:
        assert_exact(lt.exp(t).numpy(), np.exp(values))
        assert_exact((z * z).numpy(), (values * 1j) * (values * 1j))
        assert_exact((t**0.5).numpy(), values**0.5)
    assert calls[0] == 0
    with threaded(), counting_blocks() as calls:
        assert_exact((t * t).numpy(), values * values)
        assert_exact((z + z).numpy(), values * 2j)
    assert calls[0] == 2


def test_float64_row_sums_split_sooner_than_the_rest() -> None:
    """Between the two sizes only einsum's row sums are split: they are twice numpy's speed per thread."""
    rows = lt.tensor(np.ones((2, threads.MIN_SUM_ELEMENTS)))
    assert threads.MIN_SUM_ELEMENTS * 2 < threads.MIN_ELEMENTS
    before = lt.get_num_threads()
    lt.set_num_threads(2)
    try:
        with counting_blocks() as calls:
            assert rows.sum(1).tolist() == [threads.MIN_SUM_ELEMENTS] * 2
        assert calls[0] == 1
        with counting_blocks() as calls:
            assert rows.max(1).tolist() == [1.0, 1.0]
            assert rows.sum(0).shape == (threads.MIN_SUM_ELEMENTS,)
            assert (rows + rows).shape == rows.shape
        assert calls[0] == 0
    finally:
        lt.set_num_threads(before)


def test_object_values_are_never_split() -> None:
    values = np.array([[Fraction(1, n) for n in range(1, 7)]] * 4, dtype=object)
    t = lt.tensor(values)
    with threaded(), counting_blocks() as calls:
        assert (t + t).sum().item() == values.sum() * 2
        assert t.mean(0).tolist() == values.mean(0).tolist()
    assert calls[0] == 0


def test_a_memory_mapped_file_is_summed_in_blocks(tmp_path: Path) -> None:
    """Each block reads its part of the map; the result is numpy's over the same file."""
    values = np.arange(4096, dtype=np.int64).reshape(64, 64) ** 2
    np.save(tmp_path / "big.npy", values)
    t = lt.load(tmp_path / "big.npy")
    with threaded(), counting_blocks() as calls:
        for axis in (0, 1, None):
            assert_exact(np.asarray(t.sum(axis)), values.sum(axis))
            assert_exact(np.asarray(t.max(axis)), values.max(axis))
    assert calls[0] == 6


def test_numpys_error_state_reaches_the_helper_threads() -> None:
    """`np.errstate` is per context: each helper runs in a copy of the caller's. The caller's first
    block waits until a helper has run one, so both kinds of thread are seen."""
    seen: list[tuple[bool, str]] = []
    helper_ran = threading.Event()

    def work(i: int) -> None:
        on_caller = threading.current_thread() is threading.main_thread()
        if on_caller:
            helper_ran.wait(timeout=30)
        else:
            helper_ran.set()
        seen.append((on_caller, np.geterr()["divide"]))

    with threaded(), np.errstate(divide="raise"):
        threads.run_blocks(6, work)
    assert {on_caller for on_caller, _ in seen} == {True, False}
    assert {mode for _, mode in seen} == {"raise"}


def test_a_floating_point_error_is_raised_as_numpy_raises_it() -> None:
    t = lt.tensor(np.ones((6, 6)))
    with threaded(), np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        t / 0.0
    with threaded(), np.errstate(all="ignore"):
        assert np.isinf((t / 0.0).numpy()).all()


def test_an_error_in_one_block_is_raised_once_the_others_are_done() -> None:
    t = lt.tensor(np.arange(-6, 6).reshape(3, 4))
    with threaded(), pytest.raises(ValueError, match="negative integer powers"):
        t ** lt.tensor(np.full((3, 4), -1))


def test_the_first_error_stops_the_blocks_not_yet_taken() -> None:
    ran: list[int] = []

    def work(i: int) -> None:
        ran.append(i)
        raise OverflowError(f"block {i}")

    with threaded(count=1), pytest.raises(OverflowError, match="block 0"):
        threads.run_blocks(5, work)
    assert ran == [0]


# -- the option ---------------------------------------------------------------------------------------


def test_the_default_is_the_cores_this_process_may_use() -> None:
    code = "import lazytensor as lt; print(lt.get_num_threads())"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    printed = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert int(printed.stdout) == len(os.sched_getaffinity(0))


def test_set_num_threads_round_trips() -> None:
    before = lt.get_num_threads()
    try:
        for count in (1, 3, np.int64(2)):
            lt.set_num_threads(count)
            assert lt.get_num_threads() == count
    finally:
        lt.set_num_threads(before)


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (0, ValueError),
        (-1, ValueError),
        (2.0, TypeError),
        ("2", TypeError),
        (True, TypeError),
        (None, TypeError),
    ],
)
def test_set_num_threads_refuses_a_bad_count_naming_it(bad: Any, error: type[Exception]) -> None:
    before = lt.get_num_threads()
    with pytest.raises(error, match=f"got {bad!r}"):
        lt.set_num_threads(bad)
    assert lt.get_num_threads() == before


def test_split_from_refuses_a_size_below_one() -> None:
    with pytest.raises(ValueError, match="got 0"), threads.split_from(0):
        pass

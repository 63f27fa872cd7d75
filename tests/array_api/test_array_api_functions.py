"""The array API namespace's own code paths, against numpy: each refusal in full, `device=` on every
function that takes it, PyTorch's `dim=` beside `axis=`, `asarray`/`astype`/`from_dlpack`'s copies,
`meshgrid`, `moveaxis`, and the corrected variance, the cumulative functions and `diff` on random
shapes and axes.

Reaches into `lazytensor.array_api`: the walk over the functions that take `device=` is over the
namespace module's own functions (the `*_like` and `empty` functions refuse a device in other
words).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.array_api import datatypes
from lazytensor.array_api import namespace as array_api

FAST = settings(max_examples=40, deadline=None)


def shapes_of(min_dims: int, max_dims: int, max_side: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes of `min_dims` to `max_dims` axes of sizes 0 to `max_side`."""
    return st.lists(st.integers(0, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def _values(shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """Small integers with repeats, in `dtype`."""
    return ((np.arange(int(np.prod(shape))).reshape(shape) * 7 % 5) - 1).astype(dtype)


def _same(got: Any, expected: Any) -> None:
    expected = np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    np.testing.assert_array_equal(got.numpy(), expected)


# -- refusals ---------------------------------------------------------------------------------------

T = lt.arange(6.0).reshape(2, 3)
STRIDED = np.arange(6.0)[::2]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: lt.stack([T, T], axis=1, dim=0),
            TypeError,
            "give the axis as axis= or as dim=, not both (axis=1, dim=0)",
        ),
        (
            lambda: lt.sort(T, axis=0, dim=0),
            TypeError,
            "give the axis as axis= or as dim=, not both (axis=0, dim=0)",
        ),
        (
            lambda: lt.argsort(T, axis=0, dim=1),
            TypeError,
            "give the axis as axis= or as dim=, not both (axis=0, dim=1)",
        ),
        (
            lambda: lt.asarray(lt.arange(3), dtype=lt.float32, copy=False),
            ValueError,
            "asarray: converting int64 to float32 needs a copy (copy=False)",
        ),
        (
            lambda: lt.asarray(STRIDED, copy=False),
            ValueError,
            "asarray: an array of strides (16,) needs a copy to be a tensor (copy=False)",
        ),
        (
            lambda: lt.from_dlpack(STRIDED, copy=False),
            ValueError,
            "from_dlpack: an array of strides (16,) needs a copy (copy=False)",
        ),
        (
            lambda: lt.meshgrid(lt.arange(2), indexing="ab"),
            ValueError,
            "meshgrid: indexing must be 'xy' or 'ij', not 'ab'",
        ),
        (
            lambda: lt.meshgrid(lt.arange(2), T),
            ValueError,
            "meshgrid takes 1-D tensors; tensor 1 has shape (2, 3)",
        ),
        (lambda: lt.moveaxis(T, (0, 0), (0, 1)), ValueError, "moveaxis: repeated axis in source (0, 0)"),
        (
            lambda: lt.moveaxis(T, (0, 1), (1, -1)),
            ValueError,
            "moveaxis: repeated axis in destination (1, -1)",
        ),
        (
            lambda: lt.moveaxis(T, (0, 1), 1),
            ValueError,
            "moveaxis: source (0, 1) and destination 1 differ in length",
        ),
        (
            lambda: lt.searchsorted(lt.arange(3), 1, side="middle"),
            ValueError,
            "searchsorted: side must be 'left' or 'right', not 'middle'",
        ),
        (lambda: lt.diff(T, n=-1), ValueError, "diff: the order n must not be negative, got -1"),
        (
            lambda: lt.cumulative_sum(T),
            ValueError,
            "a cumulative sum or product of shape (2, 3) needs an axis",
        ),
        (
            lambda: lt.cumulative_prod(lt.tensor(2.0)),
            ValueError,
            "a cumulative sum or product of shape () needs an axis",
        ),
    ],
)
def test_each_refusal_in_full(call: Callable[[], Any], error: type, message: str) -> None:
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value) == message


def _minimal_arguments(name: str) -> tuple[Any, ...]:
    """Positional arguments that make `name` succeed on the one device."""
    return {
        "asarray": ([1.0],),
        "zeros": (2,),
        "ones": (2,),
        "full": (2, 1.0),
        "arange": (3,),
        "eye": (2,),
        "linspace": (0.0, 1.0),
        "from_dlpack": (np.arange(2.0),),
        "astype": (T, lt.float32),
    }[name]


TAKE_DEVICE = sorted(
    name
    for name, function in vars(array_api).items()
    if inspect.isfunction(function)
    and getattr(lt, name, None) is function  # the namespace's own functions, none of their helpers
    and "device" in inspect.signature(function).parameters
)


@pytest.mark.parametrize("name", TAKE_DEVICE)
def test_every_function_with_a_device_takes_cpu_and_refuses_another(name: str) -> None:
    function = getattr(array_api, name)
    arguments = _minimal_arguments(name)
    assert function(*arguments, device="cpu").device == "cpu"
    assert function(*arguments, device=None).device == datatypes.DEVICE
    with pytest.raises(ValueError) as refused:
        function(*arguments, device="gpu")
    assert str(refused.value) == "lazytensor has one device, 'cpu'; got device='gpu'"


# -- creation and copies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["zeros", "ones", "eye"])
def test_creation_defaults_to_float64_and_passes_grad_and_names(name: str) -> None:
    function = getattr(lt, name)
    assert function(2).dtype == np.float64
    assert function(2, dtype=lt.int8).dtype == np.int8
    assert function(2, requires_grad=True).requires_grad
    assert not function(2).requires_grad
    if name != "eye":
        assert function(2, 3, names=("a", "b")).names == ("a", "b")
        assert function((2, 3)).shape == function(2, 3).shape == (2, 3)


def test_full_arange_linspace_pass_their_keywords() -> None:
    assert lt.full(2, 1.5, names=("a",)).names == ("a",)
    assert lt.full(2, 1, requires_grad=False, dtype=lt.float32).dtype == np.float32
    assert lt.full(2, 1.0, requires_grad=True).requires_grad
    assert lt.arange(3, names=("a",)).names == ("a",)
    _same(lt.arange(1, 7, 2, lt.float32), np.arange(1, 7, 2, dtype=np.float32))
    _same(
        lt.linspace(0, 1, 4, endpoint=False, dtype=lt.float32),
        np.linspace(0, 1, 4, endpoint=False, dtype=np.float32),
    )
    assert lt.linspace(0.0, 1.0, 3, requires_grad=True).requires_grad
    assert not lt.linspace(0.0, 1.0, 3).requires_grad
    _same(lt.linspace(0, 1), np.linspace(0, 1))
    _same(lt.eye(2, 3, 1), np.eye(2, 3, 1))


def test_asarray_of_a_tensor_copies_or_casts_only_when_asked() -> None:
    t = lt.arange(3)
    assert lt.asarray(t, dtype=lt.int64) is t
    assert lt.asarray(t, dtype=lt.int64, copy=False) is t
    copied = lt.asarray(t, copy=True)
    assert copied is not t and not copied.shares_storage(t)
    cast = lt.asarray(t, dtype=lt.float32, copy=None)
    assert cast.dtype == np.float32 and cast.tolist() == [0.0, 1.0, 2.0]
    a = np.arange(3.0)
    assert lt.asarray(a, copy=False).shares_storage(a)
    assert lt.asarray(a, copy=None).shares_storage(a)
    from_list = lt.asarray([[1, 2]], dtype=lt.int16, copy=True)
    _same(from_list, np.array([[1, 2]], dtype=np.int16))
    fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    assert lt.asarray(fortran, copy=True).tolist() == fortran.tolist()


def test_from_dlpack_shares_unless_asked_to_copy() -> None:
    a = np.arange(3.0)
    assert lt.from_dlpack(a).shares_storage(a)
    assert lt.from_dlpack(a, copy=False).shares_storage(a)
    copied = lt.from_dlpack(a, copy=True)
    assert not copied.shares_storage(a) and copied.tolist() == a.tolist()
    assert lt.from_dlpack(STRIDED).tolist() == STRIDED.tolist()
    strided_copy = lt.from_dlpack(STRIDED, copy=True)
    assert strided_copy.tolist() == STRIDED.tolist() and not strided_copy.shares_storage(STRIDED)


def test_astype_copies_unless_told_not_to_and_the_dtype_is_right() -> None:
    t = lt.tensor([1.5, -2.5])
    assert lt.astype(t, lt.float64, copy=False) is t
    same = lt.astype(t, lt.float64)
    assert same is not t and not same.shares_storage(t) and same.tolist() == [1.5, -2.5]
    _same(lt.astype(t, lt.int32, copy=False), np.array([1.5, -2.5]).astype(np.int32))
    _same(lt.astype([1, 2], "float32"), np.array([1, 2], dtype=np.float32))
    integers = lt.arange(3)
    assert lt.astype(integers, lt.int64, copy=False) is integers
    assert lt.astype(integers, lt.int64) is not integers


def test_the_standards_defaults_of_expand_dims_squeeze_and_the_searches() -> None:
    _same(lt.expand_dims(_values((2, 3))), np.expand_dims(_values((2, 3)), 0))
    pieces = lt.unstack(_values((2, 3)))
    assert len(pieces) == 2
    for got, expected in zip(pieces, _values((2, 3)), strict=True):
        _same(got, expected)
    values = _values((1, 3, 1))
    _same(lt.squeeze(values, axis=0), np.squeeze(values, axis=0))
    _same(lt.squeeze(values, axis=[-1]), np.squeeze(values, axis=(-1,)))
    for ours, theirs in ((lt.argmax, np.argmax), (lt.argmin, np.argmin)):
        _same(ours(values), theirs(values))
        _same(ours(values, axis=1, keepdims=True), theirs(values, axis=1, keepdims=True))


def test_reshape_copies_only_when_asked() -> None:
    t = lt.arange(6)
    assert lt.reshape(t, (2, 3)).shares_storage(t)
    assert lt.reshape(t, (2, 3), copy=False).shares_storage(t)
    copied = lt.reshape(t, [3, 2], copy=True)
    assert not copied.shares_storage(t)
    _same(copied, np.arange(6).reshape(3, 2))


# -- PyTorch's dim= beside the standard's axis= ---------------------------------------------------------


def test_dim_names_the_axis_of_stack_sort_and_argsort() -> None:
    values = _values((3, 4))
    _same(lt.stack([lt.tensor(values), lt.tensor(values)], dim=1), np.stack([values, values], axis=1))
    _same(lt.sort(lt.tensor(values), dim=0), np.sort(values, axis=0))
    _same(lt.argsort(lt.tensor(values), dim=0), np.argsort(values, axis=0, stable=True))
    _same(lt.sort(lt.tensor(values), dim=None), np.sort(values, axis=None))


# -- meshgrid and moveaxis ----------------------------------------------------------------------------


@FAST
@given(sizes=st.lists(st.integers(0, 3), max_size=4), indexing=st.sampled_from(["xy", "ij"]))
def test_meshgrid_is_numpys(sizes: list[int], indexing: str) -> None:
    inputs = [np.arange(n, dtype=np.int16 if i % 2 else np.float32) for i, n in enumerate(sizes)]
    grids = lt.meshgrid(*(lt.tensor(a) for a in inputs), indexing=indexing)
    expected = np.meshgrid(*inputs, indexing=indexing)
    assert len(grids) == len(expected)
    for got, want in zip(grids, expected, strict=True):
        _same(got, want)


def test_meshgrid_is_differentiable() -> None:
    x = lt.tensor([1.0, 2.0], requires_grad=True)
    y = lt.tensor([3.0, 4.0, 5.0], requires_grad=True)
    gx, gy = lt.meshgrid(x, y)
    (gx * gy).sum().backward()
    assert x.grad.tolist() == [12.0, 12.0]
    assert y.grad.tolist() == [3.0, 3.0, 3.0]


@FAST
@given(data=st.data(), shape=shapes_of(0, 4))
def test_moveaxis_is_numpys(data: st.DataObject, shape: tuple[int, ...]) -> None:
    ndim = len(shape)
    values = _values(shape)
    count = data.draw(st.integers(0, ndim), label="count")
    source = data.draw(st.permutations(range(ndim)), label="source")[:count]
    destination = data.draw(st.permutations(range(ndim)), label="destination")[:count]
    source = [a - ndim if data.draw(st.booleans()) else a for a in source]
    destination = [a - ndim if data.draw(st.booleans()) else a for a in destination]
    if count == 1 and data.draw(st.booleans(), label="as ints"):
        source, destination = source[0], destination[0]
    moved = lt.moveaxis(values, source, destination)
    _same(moved, np.moveaxis(values, source, destination))


# -- statistics ------------------------------------------------------------------------------------


@FAST
@given(
    data=st.data(),
    shape=shapes_of(0, 3),
    dtype=st.sampled_from([np.float64, np.float32, np.complex128]),
    correction=st.sampled_from([0, 1, 0.5, 2, 5]),
    keepdims=st.booleans(),
)
def test_var_and_std_with_a_correction_are_numpys(
    data: st.DataObject, shape: tuple[int, ...], dtype: Any, correction: float, keepdims: bool
) -> None:
    values = _values(shape, dtype) * (1 + 1j if dtype == np.complex128 else 1)
    ndim = len(shape)
    axis = data.draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1),
            st.lists(st.integers(0, ndim - 1), unique=True).map(tuple),
        )
        if ndim
        else st.none(),
        label="axis",
    )
    for ours, theirs in ((lt.var, np.var), (lt.std, np.std)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning where there are no degrees of freedom left
            got = ours(lt.tensor(values), axis=axis, correction=correction, keepdims=keepdims)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = theirs(values, axis=axis, ddof=correction, keepdims=keepdims)
        assert got.shape == np.shape(expected) and got.dtype == np.asarray(expected).dtype
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, equal_nan=True)


def test_a_corrected_variance_is_differentiable() -> None:
    x = lt.tensor([1.0, 2.0, 4.0], requires_grad=True)
    lt.var(x, correction=1).backward()
    mean = 7.0 / 3.0
    np.testing.assert_allclose(x.grad.numpy(), [2 * (v - mean) / 2 for v in (1.0, 2.0, 4.0)])


@FAST
@given(
    data=st.data(),
    shape=shapes_of(1, 3),
    dtype=st.sampled_from([None, np.int8, np.float32, np.int64]),
    include_initial=st.booleans(),
)
def test_cumulative_sum_and_prod_are_numpys(
    data: st.DataObject, shape: tuple[int, ...], dtype: Any, include_initial: bool
) -> None:
    values = _values(shape, np.int16)
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1) | (st.none() if ndim == 1 else st.nothing()), label="axis")
    for ours, theirs in ((lt.cumulative_sum, np.cumulative_sum), (lt.cumulative_prod, np.cumulative_prod)):
        got = ours(lt.tensor(values), axis=axis, dtype=dtype, include_initial=include_initial)
        expected = theirs(values, axis=axis, dtype=dtype, include_initial=include_initial)
        _same(got, expected)


@FAST
@given(
    data=st.data(),
    shape=shapes_of(1, 3),
    n=st.integers(0, 3),
)
def test_diff_with_prepend_and_append_is_numpys(data: st.DataObject, shape: tuple[int, ...], n: int) -> None:
    values = _values(shape)
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1), label="axis")
    kwargs: dict[str, Any] = {}
    for where in ("prepend", "append"):
        if data.draw(st.booleans(), label=where):
            extra = list(shape)
            extra[axis] = data.draw(st.integers(0, 2), label=f"{where} length")
            kwargs[where] = _values(tuple(extra)) + 10
    expected = np.diff(values, n=n, axis=axis, **kwargs)
    got = lt.diff(lt.tensor(values), axis=axis, n=n, **{k: lt.tensor(v) for k, v in kwargs.items()})
    _same(got, expected)


@pytest.mark.parametrize("dtype", [None, np.uint8, np.float32, np.int64])
def test_sum_and_prod_in_a_dtype_are_numpys(dtype: Any) -> None:
    values = np.array([[200, 100], [3, 4]], dtype=np.uint8)
    for ours, theirs in ((lt.sum, np.sum), (lt.prod, np.prod)):
        _same(ours(lt.tensor(values), axis=0, dtype=dtype), theirs(values, axis=0, dtype=dtype))
        _same(ours(lt.tensor(values), dtype=dtype, keepdims=True), theirs(values, dtype=dtype, keepdims=True))


def test_diff_of_order_0_is_the_input_without_prepend_or_append() -> None:
    values = np.array([[1.0, 4.0], [9.0, 16.0]])
    t = lt.tensor(values, requires_grad=True)
    got = lt.diff(t, n=0, prepend=lt.zeros(2, 1), append=lt.zeros(2, 3))
    _same(got, np.diff(values, n=0, prepend=np.zeros((2, 1)), append=np.zeros((2, 3))))
    assert not got.shares_storage(t)
    got.sum().backward()
    assert t.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    _same(lt.diff(lt.tensor(2.0), n=0), np.diff(np.float64(2.0), n=0))


def test_a_sort_is_stable_by_default_so_tied_gradients_go_back_in_order() -> None:
    values = np.random.default_rng(0).integers(0, 2, 200).astype(np.float64)  # ties that quicksort reorders
    weights = np.arange(200.0)
    for descending in (False, True):
        x = lt.tensor(values, requires_grad=True)
        (lt.sort(x, descending=descending) * lt.tensor(weights)).sum().backward()
        order = np.argsort(-values if descending else values, stable=True)
        expected = np.empty(200)
        expected[order] = weights
        np.testing.assert_array_equal(x.grad.numpy(), expected)
    _same(lt.argsort(lt.tensor(values)), np.argsort(values, stable=True))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_a_sorter_is_numpys(side: str) -> None:
    haystack = np.array([5.0, 1.0, 3.0, 3.0, 9.0])
    sorter = np.argsort(haystack, stable=True)
    needles = np.array([[0.0, 3.0], [4.0, 10.0]])
    expected = np.searchsorted(haystack, needles, side=side, sorter=sorter)
    _same(
        lt.searchsorted(lt.tensor(haystack), lt.tensor(needles), side=side, sorter=lt.tensor(sorter)),
        expected,
    )
    _same(lt.searchsorted(haystack, needles, side=side, sorter=sorter), expected)


@pytest.mark.parametrize("shape", [(3, 4), (12,), (2, 0)])
def test_a_descending_sort_of_the_flattened_values_is_numpys(shape: tuple[int, ...]) -> None:
    values = _values(shape)
    stable_ascending = np.argsort(-values, axis=None, stable=True)
    _same(lt.argsort(lt.tensor(values), axis=None, descending=True), stable_ascending)
    _same(lt.sort(lt.tensor(values), axis=None, descending=True), -np.sort(-values, axis=None))
    _same(lt.sort(lt.tensor(values), axis=None), np.sort(values, axis=None))


def test_argsort_takes_numpys_kind_and_refuses_a_0d_tensor() -> None:
    values = np.random.default_rng(1).integers(0, 2, 200).astype(np.float64)  # ties that quicksort reorders
    _same(lt.argsort(lt.tensor(values), kind="quicksort"), np.argsort(values, kind="quicksort"))
    _same(lt.argsort(lt.tensor(values)), np.argsort(values, kind="stable"))
    for descending in (False, True):  # a 0-d tensor has no axis -1 to sort along (numpy's np.sort)
        for function in (lt.sort, lt.argsort):
            with pytest.raises(np.exceptions.AxisError) as refused:
                function(lt.tensor(5.0), descending=descending)
            assert str(refused.value) == "axis -1 is out of bounds for a tensor of 0 axes"


def test_concat_joins_along_the_first_axis_by_default() -> None:
    a, b = _values((2, 3)), _values((1, 3)) + 10
    _same(lt.concat([lt.tensor(a), lt.tensor(b)]), np.concat([a, b]))
    _same(lt.concat([a, b.T], axis=None), np.concat([a, b.T], axis=None))


def test_roll_by_one_shift_per_axis_is_numpys() -> None:
    values = _values((3, 4))
    _same(lt.roll(lt.tensor(values), [1, -2], axis=[0, 1]), np.roll(values, (1, -2), axis=(0, 1)))
    _same(lt.roll(values, (5,), axis=(1,)), np.roll(values, (5,), axis=(1,)))


def test_a_sum_in_float32_accumulates_in_float32_as_numpy() -> None:
    values = np.array([1.0, 2.0**-24, 2.0**-24])  # the tiny terms vanish in float32, not in float64
    expected = np.sum(values, dtype=np.float32)
    assert expected == np.float32(1.0)
    _same(lt.sum(lt.tensor(values), dtype=lt.float32), expected)

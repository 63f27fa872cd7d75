"""lazytensor as an array API namespace (2024.12): every name of the standard, each function against
numpy on random shapes (0-d and size-0 axes included) and on inputs that are views, the views that
stay views, the array object's namespace, device and DLPack, and the data type functions.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bases_support import on_base
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import broadcastable_shapes, shapes, view_pairs

import lazytensor as lt


# The standard's names (2024.12), from its stubs: the namespace must have every one.
def _names(text: str) -> list[str]:
    return text.split()


FUNCTIONS = _names("""
arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like tril triu
zeros zeros_like astype can_cast finfo iinfo isdtype result_type abs acos acosh add asin asinh atan atan2
atanh bitwise_and bitwise_left_shift bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil clip
conj copysign cos cosh divide equal exp expm1 floor floor_divide greater greater_equal hypot imag isfinite
isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor
maximum minimum multiply negative nextafter not_equal positive pow real reciprocal remainder round sign
signbit sin sinh square sqrt subtract tan tanh trunc take take_along_axis matmul matrix_transpose tensordot
vecdot broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape roll
squeeze stack tile unstack argmax argmin count_nonzero nonzero searchsorted where unique_all unique_counts
unique_inverse unique_values argsort sort cumulative_sum cumulative_prod max mean min prod std sum var all
any diff __array_namespace_info__
""")
CONSTANTS = _names("e inf nan newaxis pi")
DTYPES = _names("bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128")
LINALG = _names("""
cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank matrix_transpose
outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm
""")
FFT = _names("fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift")


def test_every_name_of_the_standard_is_there() -> None:
    missing = [name for name in FUNCTIONS + CONSTANTS + DTYPES if not hasattr(lt, name)]
    missing += [f"linalg.{name}" for name in LINALG if not hasattr(lt.linalg, name)]
    missing += [f"fft.{name}" for name in FFT if not hasattr(lt.fft, name)]
    assert missing == []
    assert lt.__array_api_version__ == "2024.12"
    assert set(FUNCTIONS + CONSTANTS + DTYPES + ["linalg", "fft"]) <= set(lt.__all__)


def test_names_numpy_has_mean_what_numpy_means() -> None:
    assert (lt.float32, lt.bool, lt.int64) == (np.float32, np.bool_, np.int64)
    assert (lt.e, lt.pi, lt.inf, lt.newaxis) == (np.e, np.pi, np.inf, np.newaxis)
    assert np.isnan(lt.nan)
    assert lt.equal(lt.tensor([1, 2]), lt.tensor([1, 3])).tolist() == [True, False]  # elementwise
    assert lt.arange(10, step=3).tolist() == np.arange(0, 10, 3).tolist()


def test_the_array_object_answers_namespace_device_and_transpose() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    assert t.__array_namespace__() is lt
    assert t.__array_namespace__(api_version="2023.12") is lt
    with pytest.raises(ValueError, match=r"2099\.12"):
        t.__array_namespace__(api_version="2099.12")
    assert t.device == "cpu" and t.to_device("cpu") is t
    with pytest.raises(ValueError, match="one device"):
        t.to_device("cuda")
    with pytest.raises(ValueError, match="one device"):
        lt.zeros((2,), device="cuda")
    assert t.mT.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_dlpack_shares_memory_both_ways() -> None:
    t = lt.arange(6.0).reshape(2, 3).T
    out = np.from_dlpack(t)
    assert np.shares_memory(out, t.storage) and out.tolist() == t.tolist()
    assert t.__dlpack_device__() == (1, 0)
    a = np.arange(4.0)
    back = lt.from_dlpack(a)
    back[1] = 10.0
    assert a[1] == 10.0
    assert lt.from_dlpack(t).tolist() == t.tolist()


def test_the_inspection_namespace() -> None:
    info = lt.__array_namespace_info__()
    assert info.devices() == ["cpu"] and info.default_device() == "cpu"
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_dtypes() == {
        "real floating": np.float64,
        "complex floating": np.complex128,
        "integral": np.int64,
        "indexing": np.int64,
    }
    assert sorted(info.dtypes(kind="integral")) == sorted(
        f"{s}int{n}" for s in ("", "u") for n in (8, 16, 32, 64)
    )
    assert len(info.dtypes()) == 13
    # np.dtype instances, as numpy's info gives: a table keyed by them finds `x.dtype` (sklearn's do)
    names = {dtype: name for name, dtype in info.dtypes().items()}
    assert names[lt.zeros(1).dtype] == "float64" and names[info.default_dtypes()["indexing"]] == "int64"
    assert all(isinstance(d, np.dtype) for d in [*info.dtypes().values(), *info.default_dtypes().values()])
    assert sorted(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex128", "complex64"]


# -- data type functions ---------------------------------------------------------------------------

ALL_DTYPES = [getattr(lt, name) for name in DTYPES]


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if np.dtype(d).kind in "fc"])
def test_finfo_is_numpys_as_python_numbers(dtype: Any) -> None:
    info, expected = lt.finfo(dtype), np.finfo(dtype)
    assert (info.bits, info.eps, info.max, info.min) == (
        expected.bits,
        expected.eps,
        expected.max,
        expected.min,
    )
    assert isinstance(info.eps, float) and info.smallest_normal == float(expected.smallest_normal)
    assert info.dtype is expected.dtype.type
    assert lt.finfo(lt.zeros(1, dtype=dtype)) == info


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if np.dtype(d).kind in "iu"])
def test_iinfo_is_numpys_as_python_ints(dtype: Any) -> None:
    info, expected = lt.iinfo(dtype), np.iinfo(dtype)
    assert (info.bits, info.min, info.max, info.dtype) == (expected.bits, expected.min, expected.max, dtype)
    assert type(info.max) is int


def test_finfo_and_iinfo_refuse_the_other_kind() -> None:
    with pytest.raises(ValueError, match="floating-point"):
        lt.finfo(lt.int8)
    with pytest.raises(ValueError, match="integer"):
        lt.iinfo(lt.float32)


@given(st.sampled_from(ALL_DTYPES), st.sampled_from(ALL_DTYPES))
def test_result_type_and_can_cast_are_numpys(a: Any, b: Any) -> None:
    assert lt.result_type(a, b) == np.result_type(a, b)
    assert isinstance(lt.result_type(a, b), np.dtype)  # numpy's: hashes as `x.dtype` does
    assert lt.result_type(lt.zeros(1, dtype=a), b) == np.result_type(a, b)
    assert lt.can_cast(a, b) == np.can_cast(a, b)


def test_result_type_takes_python_scalars_weakly() -> None:
    assert lt.result_type(lt.float32, 1.0) == np.float32
    assert lt.result_type(lt.int8, 1) == np.int8
    # Python scalars alone: numpy's defaults (xarray asks `result_type(float("nan"))`)
    for scalars in [(1, 2.0), (float("nan"),), (1,), (True,), (1j, 1)]:
        assert lt.result_type(*scalars) == np.result_type(*scalars)


@given(st.sampled_from(ALL_DTYPES))
def test_isdtype_by_kind(dtype: Any) -> None:
    kind = np.dtype(dtype).kind
    assert lt.isdtype(dtype, "bool") == (kind == "b")
    assert lt.isdtype(dtype, "integral") == (kind in "iu")
    assert lt.isdtype(dtype, ("real floating", "complex floating")) == (kind in "fc")
    assert lt.isdtype(dtype, "numeric") == (kind != "b")
    assert lt.isdtype(dtype, dtype)
    with pytest.raises(ValueError, match="unknown dtype kind"):
        lt.isdtype(dtype, "floating")


# -- elementwise functions against numpy -----------------------------------------------------------

UNARY: dict[str, Callable[..., Any]] = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "ceil": np.ceil, "conj": np.conj, "cos": np.cos, "cosh": np.cosh,
    "exp": np.exp, "expm1": np.expm1, "floor": np.floor, "imag": np.imag, "isfinite": np.isfinite,
    "isinf": np.isinf, "isnan": np.isnan, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "negative": np.negative, "positive": np.positive, "real": np.real,
    "reciprocal": np.reciprocal, "round": np.round, "sign": np.sign, "sin": np.sin, "sinh": np.sinh,
    "square": np.square, "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc,
}  # fmt: skip
BINARY: dict[str, Callable[..., Any]] = {
    "add": np.add, "atan2": np.arctan2, "copysign": np.copysign, "divide": np.divide, "equal": np.equal,
    "greater": np.greater, "greater_equal": np.greater_equal, "hypot": np.hypot, "less": np.less,
    "less_equal": np.less_equal, "logaddexp": np.logaddexp, "maximum": np.maximum, "minimum": np.minimum,
    "multiply": np.multiply, "nextafter": np.nextafter, "not_equal": np.not_equal, "pow": np.power,
    "subtract": np.subtract,
}  # fmt: skip
LOGICAL: dict[str, Callable[..., Any]] = {
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
}  # fmt: skip


PER_FUNCTION = settings(max_examples=25)
"""Fewer examples for the tests parametrized by function (60 of them): each runs one numpy call."""


def _same(result: Any, expected: Any) -> None:
    expected = np.asarray(expected)
    assert isinstance(result, lt.AbstractTensor)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(UNARY))
@PER_FUNCTION
@given(data=st.data())
def test_unary_functions_are_numpys(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([np.float64, np.float32, np.complex128]), label="dtype")
    if name in ("ceil", "floor", "trunc", "signbit") and dtype is np.complex128:
        dtype = np.float64
    t, a = data.draw(view_pairs(data.draw(shapes, label="shape"), dtype))
    result = getattr(lt, name)(t)
    try:
        _same(result, UNARY[name](a))
    except AssertionError:  # numpy's own answer depends on the layout: its SIMD loops (expm1, sin, ...)
        _same(result, UNARY[name](t.numpy()))  # take unit strides, a reversed view the scalar one (#41)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(BINARY))
@PER_FUNCTION
@given(data=st.data())
def test_binary_functions_broadcast_as_numpy(name: str, data: st.DataObject) -> None:
    shape_a, shape_b = data.draw(broadcastable_shapes())
    t, a = data.draw(view_pairs(shape_a, np.float64))
    u, b = data.draw(view_pairs(shape_b, np.float32))
    for result, expected, same_layout in (
        (getattr(lt, name)(t, u), lambda: BINARY[name](a, b), lambda: BINARY[name](t.numpy(), u.numpy())),
        (getattr(lt, name)(t, 2.5), lambda: BINARY[name](a, 2.5), lambda: BINARY[name](t.numpy(), 2.5)),
    ):  # a Python scalar never widens; numpy's answer on the tensor's own layout is numpy's too
        try:
            _same(result, expected())
        except AssertionError:
            _same(result, same_layout())


@pytest.mark.parametrize("name", sorted(LOGICAL))
@PER_FUNCTION
@given(data=st.data())
def test_logical_and_bitwise_functions_are_numpys(name: str, data: st.DataObject) -> None:
    shape_a, shape_b = data.draw(broadcastable_shapes())
    dtype = np.bool_ if name.startswith("logical") else data.draw(st.sampled_from([np.int32, np.uint16]))
    t, a = data.draw(view_pairs(shape_a, dtype))
    u, b = data.draw(view_pairs(shape_b, dtype))
    _same(getattr(lt, name)(t, u), LOGICAL[name](a, b))


def test_clip_takes_tensors_for_its_bounds() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    _same(lt.clip(t, lt.tensor([1.0, 2.0, 3.0]), 4.0), np.clip(t.numpy(), [1.0, 2.0, 3.0], 4.0))
    _same(lt.clip(t, max=2.0), np.clip(t.numpy(), None, 2.0))


# -- creation --------------------------------------------------------------------------------------


def test_asarray_shares_or_copies_as_asked() -> None:
    a = np.arange(3.0)
    assert lt.asarray(a).shares_storage(a)
    assert not lt.asarray(a, copy=True).shares_storage(a)
    with pytest.raises(ValueError, match="copy"):
        lt.asarray(a[::2], copy=False)
    with pytest.raises(ValueError, match="copy"):
        lt.asarray(a, dtype=lt.float32, copy=False)
    t = lt.arange(3)
    assert lt.asarray(t) is t
    assert lt.asarray(t, copy=True) is not t and lt.asarray(t, copy=True).tolist() == [0, 1, 2]
    assert lt.asarray(t, dtype=lt.float32).dtype == np.float32
    assert (lt.asarray(True).dtype, lt.asarray(1).dtype, lt.asarray(1.0).dtype) == (
        np.bool_,
        np.int64,
        np.float64,
    )


@given(shape=shapes, dtype=st.sampled_from([None, np.int8, np.float32, np.complex64]))
def test_creation_functions_are_numpys(shape: tuple[int, ...], dtype: Any) -> None:
    _same(lt.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype))
    _same(lt.ones(shape, dtype=dtype), np.ones(shape, dtype=dtype))
    assert lt.empty(shape, dtype=dtype).shape == shape
    _same(lt.full(shape, 3, dtype=dtype), np.full(shape, 3, dtype=dtype))
    t = lt.arange(int(np.prod(shape)), dtype=lt.int16).reshape(shape)
    _same(lt.zeros_like(t, dtype=dtype), np.zeros_like(t.numpy(), dtype=dtype))
    _same(lt.ones_like(t), np.ones_like(t.numpy()))
    _same(lt.full_like(t, 7), np.full_like(t.numpy(), 7))
    assert lt.empty_like(t).dtype == np.int16


@given(
    start=st.integers(-20, 20),
    stop=st.none() | st.integers(-20, 20),
    step=st.integers(-5, 5).filter(bool),
)
def test_arange_is_numpys(start: int, stop: int | None, step: int) -> None:
    expected = np.arange(start, step=step) if stop is None else np.arange(start, stop, step)
    _same(lt.arange(start, stop, step), expected)


def test_eye_linspace_meshgrid_tril_triu_are_numpys() -> None:
    _same(lt.eye(3, 4, k=-1, dtype=lt.int8), np.eye(3, 4, k=-1, dtype=np.int8))
    _same(lt.linspace(1 + 1j, 2, 3), np.linspace(1 + 1j, 2, 3))
    x, y = np.arange(3), np.arange(4.0)
    for indexing in ("xy", "ij"):
        grids = lt.meshgrid(lt.tensor(x), lt.tensor(y), indexing=indexing)
        assert isinstance(grids, list)
        for got, expected in zip(grids, np.meshgrid(x, y, indexing=indexing), strict=True):
            _same(got, expected)
    m = np.arange(24).reshape(2, 3, 4)
    for k in (-1, 0, 2):
        _same(lt.tril(lt.tensor(m), k=k), np.tril(m, k))
        _same(lt.triu(lt.tensor(m), k=k), np.triu(m, k))


# -- manipulation: views stay views ------------------------------------------------------------------

VIEWS: dict[str, Callable[[Any], Any]] = {
    "permute_dims": lambda t: lt.permute_dims(t, (2, 0, 1)),
    "expand_dims": lambda t: lt.expand_dims(t, axis=1),
    "matrix_transpose": lt.matrix_transpose,
    "moveaxis": lambda t: lt.moveaxis(t, (0, 1), (-1, 0)),
    "broadcast_to": lambda t: lt.broadcast_to(t, (5, 2, 3, 4)),
    "flip": lambda t: lt.flip(t, axis=(0, 2)),
    "reshape": lambda t: lt.reshape(t, (4, -1)),
    "squeeze": lambda t: lt.squeeze(lt.expand_dims(t, axis=0), axis=0),
    "unstack": lambda t: lt.unstack(t, axis=1)[2],
    "diagonal": lambda t: lt.linalg.diagonal(t, offset=1),
    "broadcast_arrays": lambda t: lt.broadcast_arrays(t, lt.zeros(4))[0],
}
NUMPY_VIEWS: dict[str, Callable[[Any], Any]] = {
    "permute_dims": lambda a: np.permute_dims(a, (2, 0, 1)),
    "expand_dims": lambda a: np.expand_dims(a, 1),
    "matrix_transpose": np.matrix_transpose,
    "moveaxis": lambda a: np.moveaxis(a, (0, 1), (-1, 0)),
    "broadcast_to": lambda a: np.broadcast_to(a, (5, 2, 3, 4)),
    "flip": lambda a: np.flip(a, (0, 2)),
    "reshape": lambda a: np.reshape(a, (4, -1)),
    "squeeze": lambda a: a,
    "unstack": lambda a: a[:, 2],
    "diagonal": lambda a: np.linalg.diagonal(a, offset=1),
    "broadcast_arrays": lambda a: a,
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_stay_views_and_match_numpy(name: str) -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    view = VIEWS[name](t)
    assert view is not t and view.shares_storage(t) and not isinstance(view, lt.StorageTensor)
    np.testing.assert_array_equal(view.numpy(), NUMPY_VIEWS[name](t.numpy()))
    if name in ("broadcast_to", "broadcast_arrays"):
        return  # read-only, as in numpy
    position = (0,) * view.ndim
    view.set(position, -1.0)
    assert -1.0 in t  # the write reached the storage below


@given(data=st.data())
def test_concat_stack_and_unstack_are_numpys(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple), label="shape")
    pairs = [data.draw(view_pairs(shape, dtype)) for dtype in (np.int32, np.float32)]
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    tensors, arrays = [p[0] for p in pairs], [p[1] for p in pairs]
    _same(lt.concat(tensors, axis=axis), np.concatenate(arrays, axis=axis))
    _same(lt.concat(tensors, axis=None), np.concatenate(arrays, axis=None))
    _same(lt.stack(tensors, axis=axis), np.stack(arrays, axis=axis))
    for got, expected in zip(
        lt.unstack(tensors[0], axis=axis), np.unstack(arrays[0], axis=axis), strict=True
    ):
        _same(got, expected)


@given(data=st.data())
def test_repeat_tile_roll_are_numpys(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), label="shape")
    t, a = data.draw(view_pairs(shape, np.int64))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1), label="axis")
    count = data.draw(st.integers(0, 3), label="repeats")
    _same(lt.repeat(t, count, axis=axis), np.repeat(a, count, axis=axis))
    if axis is not None:
        counts = data.draw(st.lists(st.integers(0, 2), min_size=shape[axis], max_size=shape[axis]))
        _same(lt.repeat(t, lt.tensor(counts), axis=axis), np.repeat(a, counts, axis=axis))
    repetitions = tuple(data.draw(st.lists(st.integers(0, 2), max_size=4), label="repetitions"))
    _same(lt.tile(t, repetitions), np.tile(a, repetitions))
    shift = data.draw(st.integers(-5, 5), label="shift")
    _same(lt.roll(t, shift, axis=axis), np.roll(a, shift, axis=axis))


def test_repeat_tile_roll_of_a_dask_tensor_stay_lazy_and_give_numpys_answer(tmp_path: Path) -> None:
    a = np.arange(12).reshape(3, 4)
    t = on_base("dask", a, tmp_path)
    for got, expected in [
        (lt.repeat(t, 2, axis=1), np.repeat(a, 2, axis=1)),
        (lt.repeat(t, 3), np.repeat(a, 3)),
        (lt.tile(t, (2, 1)), np.tile(a, (2, 1))),
        (lt.roll(t, -1, axis=0), np.roll(a, -1, axis=0)),
    ]:
        assert got.base.defers_operations  # a dask collection still: nothing computed
        _same(got, expected)


# -- indexing, searching, sets, sorting ------------------------------------------------------------


@given(data=st.data())
def test_take_and_take_along_axis_are_numpys(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), label="shape")
    t, a = data.draw(view_pairs(shape, np.float64))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    indices = data.draw(st.lists(st.integers(-shape[axis], shape[axis] - 1), max_size=4), label="indices")
    _same(
        lt.take(t, lt.tensor(indices, dtype=lt.int64), axis=axis),
        np.take(a, np.array(indices, dtype=int), axis),
    )
    order = np.argsort(a, axis=axis)
    _same(lt.take_along_axis(t, lt.tensor(order), axis=axis), np.take_along_axis(a, order, axis))


@given(data=st.data())
def test_searching_functions_are_numpys(data: st.DataObject) -> None:
    t, a = data.draw(view_pairs(data.draw(shapes, label="shape"), np.int32))
    for axis in [None, *range(-a.ndim, a.ndim)]:
        for keepdims in (False, True):
            _same(
                lt.count_nonzero(t, axis=axis, keepdims=keepdims),
                np.count_nonzero(a, axis=axis, keepdims=keepdims),
            )
            if a.size and (axis is None or a.shape[axis]):
                _same(lt.argmax(t, axis=axis, keepdims=keepdims), np.argmax(a, axis=axis, keepdims=keepdims))
    ordered = np.sort(a.reshape(-1))
    for side in ("left", "right"):
        _same(lt.searchsorted(lt.tensor(ordered), t, side=side), np.searchsorted(ordered, a, side=side))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(data=st.data())
def test_set_functions_are_numpys(data: st.DataObject) -> None:
    t, a = data.draw(view_pairs(data.draw(shapes, label="shape"), np.float64))
    if a.size:
        a = a.copy()
        a.reshape(-1)[0] = np.nan  # every NaN is a distinct value
        t = lt.tensor(a)
    for got, expected in zip(lt.unique_all(t), np.unique_all(a), strict=True):
        _same(got, expected)
    _same(lt.unique_values(t), np.unique_values(a))
    counts, inverse = lt.unique_counts(t), lt.unique_inverse(t)
    _same(counts.counts, np.unique_counts(a).counts)
    _same(inverse.inverse_indices, np.unique_inverse(a).inverse_indices)


@given(data=st.data())
def test_sorting_is_numpys_and_descending_keeps_ties_in_order(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple), label="shape")
    t, a = data.draw(view_pairs(shape, np.int32))  # small values: many ties
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    _same(lt.sort(t, axis=axis), np.sort(a, axis=axis, stable=True))
    _same(lt.argsort(t, axis=axis), np.argsort(a, axis=axis, stable=True))
    _same(lt.sort(t, axis=axis, descending=True), -np.sort(-a, axis=axis, stable=True))
    _same(lt.argsort(t, axis=axis, descending=True), np.argsort(-a, axis=axis, stable=True))


# -- statistics and utilities ------------------------------------------------------------------------

axes_st = st.none() | st.integers(-2, 1) | st.lists(st.integers(-2, 1), unique=True, max_size=2).map(tuple)


def _distinct(axis: Any, ndim: int) -> bool:
    if axis is None or isinstance(axis, int):
        return axis is None or -ndim <= axis < ndim
    return all(-ndim <= a < ndim for a in axis) and len({a % ndim for a in axis}) == len(axis)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(data=st.data())
def test_statistics_are_numpys(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(0, 3), min_size=2, max_size=3).map(tuple), label="shape")
    t, a = data.draw(view_pairs(shape, np.float64))
    axis = data.draw(axes_st.filter(lambda axis: _distinct(axis, len(shape))), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    correction = data.draw(st.sampled_from([0, 1, 0.5]), label="correction")
    kw = {"axis": axis, "keepdims": keepdims}
    np.testing.assert_allclose(
        lt.var(t, correction=correction, **kw).numpy(), np.var(a, ddof=correction, **kw)
    )
    np.testing.assert_allclose(
        lt.std(t, correction=correction, **kw).numpy(), np.std(a, ddof=correction, **kw)
    )
    np.testing.assert_allclose(lt.mean(t, **kw).numpy(), np.mean(a, **kw))
    _same(lt.sum(t, dtype=lt.float32, **kw), np.sum(a, dtype=np.float32, **kw))
    _same(lt.prod(t, **kw), np.prod(a, **kw))
    _same(lt.all(t, **kw), np.all(a, **kw))
    _same(lt.any(t, **kw), np.any(a, **kw))
    if a.size:
        _same(lt.max(t, **kw), np.max(a, **kw))


def test_a_sum_in_a_small_dtype_wraps_round_as_numpys() -> None:
    t = lt.tensor([200, 100], dtype=lt.uint8)
    _same(lt.sum(t, dtype=lt.uint8), np.sum(np.array([200, 100], dtype=np.uint8), dtype=np.uint8))
    _same(lt.sum(t), np.sum(np.array([200, 100], dtype=np.uint8)))
    _same(lt.prod(lt.tensor([16, 16], dtype=lt.int8), dtype=lt.int8), np.int8(0))


@given(data=st.data())
def test_cumulative_functions_and_diff_are_numpys(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple), label="shape")
    t, a = data.draw(view_pairs(shape, np.int16))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    initial = data.draw(st.booleans(), label="include_initial")
    for name in ("cumulative_sum", "cumulative_prod"):
        expected = getattr(np, name)(a, axis=axis, include_initial=initial)
        _same(getattr(lt, name)(t, axis=axis, include_initial=initial), expected)
        _same(
            getattr(lt, name)(t, axis=axis, dtype=lt.int16), getattr(np, name)(a, axis=axis, dtype=np.int16)
        )
    n = data.draw(st.integers(0, 3), label="n")
    _same(lt.diff(t, axis=axis, n=n), np.diff(a, axis=axis, n=n))
    edge = np.ones(tuple(1 if i == axis % len(shape) else s for i, s in enumerate(shape)), dtype=np.int16)
    _same(
        lt.diff(t, axis=axis, prepend=lt.tensor(edge), append=edge),
        np.diff(a, axis=axis, prepend=edge, append=edge),
    )


def test_a_cumulative_sum_of_several_axes_needs_an_axis() -> None:
    with pytest.raises(ValueError, match=r"shape \(2, 2\) needs an axis"):
        lt.cumulative_sum(lt.ones(2, 2))


# -- linalg and fft --------------------------------------------------------------------------------


def _matrices(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 4 * np.eye(shape[-1])


@pytest.mark.parametrize("seed", range(3))
def test_linalg_is_numpys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = _matrices(rng, 2, 3, 3)
    spd = a @ np.swapaxes(a, -1, -2)
    t = lt.tensor(a)
    close = np.testing.assert_allclose
    close(lt.linalg.inv(t).numpy(), np.linalg.inv(a))
    close(lt.linalg.det(t).numpy(), np.linalg.det(a))
    close(lt.linalg.solve(t, lt.tensor(a[0, 0])).numpy(), np.linalg.solve(a, a[0, 0]))
    close(lt.linalg.cholesky(lt.tensor(spd), upper=True).numpy(), np.linalg.cholesky(spd, upper=True))
    close(lt.linalg.eigvalsh(lt.tensor(spd)).numpy(), np.linalg.eigvalsh(spd))
    close(lt.linalg.eigh(lt.tensor(spd)).eigenvalues.numpy(), np.linalg.eigh(spd).eigenvalues)
    close(lt.linalg.svdvals(t).numpy(), np.linalg.svdvals(a))
    close(lt.linalg.svd(t).S.numpy(), np.linalg.svd(a).S)
    close(lt.linalg.qr(t).R.numpy(), np.linalg.qr(a).R)
    close(lt.linalg.slogdet(t).logabsdet.numpy(), np.linalg.slogdet(a).logabsdet)
    close(lt.linalg.pinv(t).numpy(), np.linalg.pinv(a))
    close(lt.linalg.matrix_power(t, -2).numpy(), np.linalg.matrix_power(a, -2))
    _same(lt.linalg.matrix_rank(t), np.linalg.matrix_rank(a))
    for order in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        close(lt.linalg.matrix_norm(t, ord=order).numpy(), np.linalg.matrix_norm(a, ord=order))
    for order in (2, 1, 0, 3, np.inf, -np.inf):
        close(
            lt.linalg.vector_norm(t, axis=(0, 2), ord=order, keepdims=True).numpy(),
            np.linalg.vector_norm(a, axis=(0, 2), ord=order, keepdims=True),
        )
    close(lt.linalg.cross(t[..., :3], lt.tensor(a[0, 0])).numpy(), np.linalg.cross(a[..., :3], a[0, 0]))
    close(lt.linalg.outer(t[0, 0], t[1, 1]).numpy(), np.outer(a[0, 0], a[1, 1]))
    close(lt.linalg.trace(t, offset=1).numpy(), np.linalg.trace(a, offset=1))
    close(lt.vecdot(t, lt.tensor(a[0]), axis=-2).numpy(), np.vecdot(a, a[0], axis=-2))
    close(lt.tensordot(t, t, axes=([1, 2], [2, 1])).numpy(), np.tensordot(a, a, axes=([1, 2], [2, 1])))
    close(lt.tensordot(t, t, axes=0).numpy(), np.tensordot(a, a, axes=0))
    close(lt.linalg.matmul(t, t).numpy(), a @ a)


def test_vecdot_keeps_the_operands_dtype_and_refuses_unequal_axes() -> None:
    _same(lt.vecdot(lt.ones(2, dtype=lt.uint8), lt.ones(2, dtype=lt.uint8)), np.uint8(2))
    with pytest.raises(ValueError, match="differ along axis -1"):
        lt.vecdot(lt.ones(2, 3), lt.ones(2))


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_dimensional_transforms_are_numpys(name: str, dtype: Any) -> None:
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(dtype)
    for norm in ("backward", "ortho", "forward"):
        expected = getattr(np.fft, name)(a, n=5, axis=0, norm=norm)
        _same(getattr(lt.fft, name)(lt.tensor(a), n=5, axis=0, norm=norm), expected)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_n_dimensional_transforms_and_shifts_are_numpys(name: str) -> None:
    a = np.random.default_rng(1).standard_normal((3, 4, 2))
    _same(
        getattr(lt.fft, name)(lt.tensor(a), s=(2, 4), axes=(0, 1)),
        getattr(np.fft, name)(a, s=(2, 4), axes=(0, 1)),
    )
    _same(lt.fft.fftshift(lt.tensor(a), axes=1), np.fft.fftshift(a, axes=1))
    _same(lt.fft.ifftshift(lt.tensor(a)), np.fft.ifftshift(a))
    _same(lt.fft.fftfreq(5, d=0.5, dtype=lt.float32), np.fft.fftfreq(5, 0.5).astype(np.float32))
    _same(lt.fft.rfftfreq(6), np.fft.rfftfreq(6))


def test_namespace_functions_take_numpy_arrays_and_give_tensors() -> None:
    a = np.arange(6.0).reshape(2, 3)
    assert isinstance(lt.permute_dims(a, (1, 0)), lt.AbstractTensor)
    _same(lt.sum(a, axis=1), a.sum(axis=1))
    _same(lt.sin(a), np.sin(a))


@pytest.mark.parametrize(("shape", "mask_shape"), [((0, 1), (0, 0)), ((2, 3), (2, 0)), ((3,), (0,))])
def test_a_mask_axis_of_size_zero_selects_nothing_as_in_numpy(
    shape: tuple[int, ...], mask_shape: tuple[int, ...]
) -> None:
    mask = np.zeros(mask_shape, dtype=bool)
    _same(lt.zeros(shape)[mask], np.zeros(shape)[mask])
    with pytest.raises(IndexError, match="did not match"):
        lt.zeros(2, 3)[np.zeros((2, 1), dtype=bool)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("correction", [1, 0.5, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_var_and_std_with_a_correction_are_numpys_to_the_bit(correction: float, dtype: Any) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4)) + (1j * rng.standard_normal((3, 4)) if dtype is np.complex128 else 0)
    a = a.astype(dtype)
    for axis in (None, 0, (0, 1), -1):
        _same(lt.var(lt.tensor(a), axis=axis, correction=correction), np.var(a, axis=axis, ddof=correction))
        _same(lt.std(lt.tensor(a), axis=axis, correction=correction), np.std(a, axis=axis, ddof=correction))


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "full"])
def test_creation_functions_take_the_standards_shape_keyword(name: str) -> None:
    """The standard's signatures: `shape` is a positional-or-keyword parameter, never `*shape`."""
    parameter = inspect.signature(getattr(lt, name)).parameters["shape"]
    assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    args = {"fill_value": 1} if name == "full" else {}
    assert getattr(lt, name)(shape=(2, 3), **args).shape == (2, 3)

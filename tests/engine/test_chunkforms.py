"""The chunked forms, built directly on dask arrays of several chunks and compared with numpy: values,
dtypes, shapes and chunks (an operation that needs a whole axis must see one).

Reaches into `lazytensor.engine.chunkforms` and `lazytensor.kernels.callables`: each chunked form is
built directly on dask arrays and checked against numpy, below every door.
"""

from __future__ import annotations

import operator
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazytensor.engine import chunkforms
from lazytensor.engine.chunkforms import (
    ChunkedForm,
    NoChunkedForm,
    arg_extreme,
    blockwise,
    dask_function,
    join,
    refuse,
    result_dtype,
    scan,
    softmax,
    whole_axis,
)
from lazytensor.kernels import callables


def _computed(result: Any) -> np.ndarray:
    """The dask result computed, after checking it is still a dask array whose meta says its dtype."""
    assert chunkforms.is_dask(result)
    assert result._meta.dtype == result.dtype and result._meta.ndim == result.ndim
    with dask.config.set(scheduler="synchronous"):
        values = np.asarray(result.compute())
    assert values.dtype == result.dtype and values.shape == result.shape
    return values


def _chunked(values: np.ndarray, size: int = 2) -> Any:
    return da.from_array(values, chunks=size)


def test_a_refusal_needs_a_reason() -> None:
    assert refuse("writes by index") == NoChunkedForm("writes by index")
    for reason in ("", "   ", "\n\t"):
        with pytest.raises(ValueError) as caught:
            refuse(reason)
        assert str(caught.value) == "a refusal of a chunked form needs a reason users can act on"
    with pytest.raises(TypeError):
        refuse(3)  # type: ignore[arg-type]


def test_dask_collections_are_told_from_tensors_and_arrays() -> None:
    assert chunkforms.is_dask(da.ones(3))
    assert not chunkforms.is_dask(np.ones(3)) and not chunkforms.is_dask(3)

    class Layered:  # a tensor: it has a dask graph door and layers
        layers = ()

        def __dask_graph__(self) -> None:
            return None

    assert not chunkforms.is_dask(Layered())


def test_stand_ins_have_the_operand_s_dtype_and_axes() -> None:
    assert chunkforms._sample(2.5) == 2.5 and type(chunkforms._sample(2.5)) is float
    zero_d = np.float32(1.5)
    assert chunkforms._sample(zero_d) is zero_d
    for x in (
        np.zeros((3, 4), np.int8),
        da.zeros((2, 5, 1), dtype=np.complex64),
        da.zeros((), dtype=np.uint16),
    ):
        sample = chunkforms._sample(x)
        assert isinstance(sample, np.ndarray) and sample.shape == (1,) * np.ndim(x)
        assert sample.dtype == x.dtype and np.all(sample == 1)


def test_block_operands_are_dask_arrays_and_scalars_stay_as_they_are() -> None:
    d = da.ones(3)
    assert chunkforms._as_block_operand(da, d) is d
    assert chunkforms._as_block_operand(da, 2) == 2 and chunkforms._as_block_operand(da, np.int8(2)) == 2
    zero_d = np.array(2.0)
    assert chunkforms._as_block_operand(da, zero_d) is zero_d
    wrapped = chunkforms._as_block_operand(da, np.arange(3))
    assert chunkforms.is_dask(wrapped) and _computed(wrapped).tolist() == [0, 1, 2]


def test_result_dtype_is_named_probed_or_the_first_operand_s() -> None:
    assert result_dtype(np.add, (np.arange(3), 1.5), {"dtype": "float32"}) == np.float32
    assert result_dtype(np.add, (np.arange(3), 1.5), {"dtype": None}) == np.float64
    assert result_dtype(np.add, (np.arange(3, dtype=np.int8), 1), {}) == np.int8  # 1 stays weak
    assert result_dtype(np.true_divide, (da.arange(3), 2), {}) == np.float64
    assert result_dtype(np.sum, (np.arange(3, dtype=np.uint8),), {"dtype": np.int16}) == np.int16
    calls: list[Any] = []

    def divide(x: Any, y: Any) -> Any:
        calls.append((x, y))
        return x // y  # a zero stand-in would raise; ones do not

    assert result_dtype(divide, (np.arange(3, dtype=np.int16), np.arange(3, dtype=np.int16)), {}) == np.int16
    assert len(calls) == 1

    def broken(x: Any) -> Any:
        raise RuntimeError("only on real values")

    assert result_dtype(broken, (np.zeros(2, np.complex64),), {}) == np.complex64
    assert result_dtype(broken, (7,), {}) == np.dtype(int)


def test_meta_is_an_empty_array_of_the_result() -> None:
    m = chunkforms.meta(3, "int16")
    assert m.shape == (0, 0, 0) and m.dtype == np.int16
    assert chunkforms.meta(0, np.float32).shape == ()


@given(
    shape=st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple),
    other=st.sampled_from(["scalar", "row", "column", "zero-d"]),
)
def test_blockwise_broadcasts_like_numpy(shape: tuple[int, ...], other: str) -> None:
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3
    y: Any = {
        "scalar": 2,
        "row": np.arange(shape[-1] if shape else 1, dtype=np.int16),
        "column": np.arange(3, dtype=np.float64).reshape(3, *(1,) * len(shape)),
        "zero-d": np.array(2.5),
    }[other]
    result = blockwise().build(da, np.subtract, (_chunked(x), y), {})
    expected = np.subtract(x, y)
    values = _computed(result)
    assert values.dtype == expected.dtype
    np.testing.assert_array_equal(values, expected, strict=True)
    swapped = _computed(blockwise().build(da, np.subtract, (y, _chunked(x)), {}))
    np.testing.assert_array_equal(swapped, np.subtract(y, x), strict=True)


def test_blockwise_broadcasts_two_dask_operands_and_array_parameters() -> None:
    x = np.arange(12.0).reshape(3, 4)
    lo = np.array([1.0, 2.0, 3.0, 4.0])
    result = blockwise(("lo", "hi")).build(
        da,
        lambda v, lo, hi, out=None: np.clip(v, lo, hi, out=out),
        (_chunked(x),),
        {"lo": _chunked(lo), "hi": 8},
    )
    np.testing.assert_array_equal(_computed(result), np.clip(x, lo, 8), strict=True)
    both = blockwise().build(da, np.add, (_chunked(x, 3), _chunked(np.arange(4), 2)), {})
    np.testing.assert_array_equal(_computed(both), x + np.arange(4), strict=True)
    column = blockwise().build(da, np.add, (_chunked(x[:, :1]), _chunked(np.arange(4), 3)), {})
    np.testing.assert_array_equal(_computed(column), x[:, :1] + np.arange(4), strict=True)


def test_blockwise_passes_the_other_parameters_to_each_block() -> None:
    x = np.arange(6, dtype=np.int64)
    clip = blockwise(("hi",)).build(
        da, lambda v, lo, hi: np.clip(v, lo, hi), (_chunked(x),), {"lo": 1, "hi": 4}
    )
    assert _computed(clip).tolist() == [1, 1, 2, 3, 4, 4]
    hi = _chunked(np.array([0, 9, 9, 0, 9, 0]))
    clip = blockwise(("hi",)).build(
        da, lambda v, lo, hi: np.clip(v, lo, hi), (_chunked(x),), {"lo": 1, "hi": hi}
    )
    assert _computed(clip).tolist() == np.clip(x, 1, [0, 9, 9, 0, 9, 0]).tolist()
    keyword = blockwise().build(da, np.round, (_chunked(x / 7),), {"decimals": 2})
    np.testing.assert_array_equal(_computed(keyword), np.round(x / 7, decimals=2), strict=True)
    named = blockwise(("lo",)).build(da, lambda v, lo: v + lo, (_chunked(x),), {"lo": np.int8(1)})
    assert _computed(named).tolist() == (x + 1).tolist()


def test_blockwise_names_its_operand_parameters() -> None:
    assert blockwise(["lo", "hi"]).build.args == (("lo", "hi"),)
    assert blockwise().build.args == ((),)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, 1, [0, 1], (1,)])
def test_dask_reductions_take_the_table_s_parameter_names(dim: Any, keepdim: bool) -> None:
    x = np.arange(20.0).reshape(4, 5) ** 1.5
    axis = tuple(dim) if isinstance(dim, list) else dim
    for name in ("sum", "nanmax", "var"):
        params = {"dim": dim, "keepdim": keepdim}
        reference = {"ddof": 1} if name == "var" else {}
        if name == "var":
            params["correction"] = 1
        values = _computed(dask_function(name, reduction=True).build(da, None, (_chunked(x),), params))
        np.testing.assert_allclose(values, getattr(np, name)(x, axis=axis, keepdims=keepdim, **reference))


def test_dask_functions_take_dotted_names_and_parameters_as_they_are() -> None:
    x = np.arange(12.0).reshape(3, 4)
    norm = _computed(dask_function("linalg.norm").build(da, None, (_chunked(x),), {"axis": 1}))
    np.testing.assert_allclose(norm, np.linalg.norm(x, axis=1))
    rolled = _computed(dask_function("roll").build(da, None, (_chunked(x),), {"shift": 1, "axis": 0}))
    np.testing.assert_array_equal(rolled, np.roll(x, 1, axis=0), strict=True)
    with pytest.raises(TypeError):  # not a reduction: `dim` is no parameter of dask's roll
        dask_function("roll").build(da, None, (_chunked(x),), {"shift": 1, "dim": 0})
    assert chunkforms._axis_params({"dtype": np.float32, "split_every": 4}) == {
        "dtype": np.float32,
        "split_every": 4,
    }
    assert chunkforms._axis_params({"dim": [0, 2], "keepdim": True, "correction": 0, "out": None}) == {
        "axis": (0, 2),
        "keepdims": True,
        "ddof": 0,
        "out": None,
    }
    assert chunkforms._axis_params({"dim": 1}) == {"axis": 1}


@pytest.mark.parametrize("dim", [None, 0, 1, -1, "default"])
def test_whole_axis_sorts_like_numpy(dim: Any) -> None:
    x = np.random.default_rng(0).integers(0, 50, (5, 6)).astype(np.int32)
    params = {} if dim == "default" else {"dim": dim}
    axis = -1 if dim == "default" else dim
    for kernel in (np.sort, np.argsort):

        def along(values: Any, dim: Any = -1, kernel: Any = kernel) -> Any:
            return kernel(values, axis=dim, kind="stable")

        result = whole_axis().build(da, along, (_chunked(x),), params)
        expected = kernel(x, axis=axis, kind="stable")
        np.testing.assert_array_equal(_computed(result), expected, strict=True)
        if dim is None:
            assert result.chunks == ((30,),)
        else:
            assert result.chunks[axis] == (x.shape[axis],)
            other = 1 - axis % 2
            assert result.chunks[other] == ((2, 2, 1), (2, 2, 2))[other]


def test_whole_axis_of_a_0_d_array_and_its_default() -> None:
    result = whole_axis().build(da, lambda v, dim=-1: np.sort(v, axis=dim), (da.asarray(np.array(3)),), {})
    assert _computed(result).tolist() == [3]
    flattened = whole_axis(None).build(
        da, lambda v, dim=None: np.sort(v, axis=dim), (_chunked(np.eye(3)),), {}
    )
    assert _computed(flattened).tolist() == sorted(np.eye(3).reshape(-1).tolist())
    assert whole_axis().build.args == (-1,) and whole_axis(0).build.args == (0,)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_arg_extremes_keep_the_dim_like_numpy(name: str, keepdim: bool, dim: Any) -> None:
    x = np.random.default_rng(1).permutation(30).reshape(5, 6)
    result = arg_extreme(name).build(da, None, (_chunked(x),), {"dim": dim, "keepdim": keepdim})
    np.testing.assert_array_equal(
        _computed(result), getattr(np, name)(x, axis=dim, keepdims=keepdim), strict=True
    )


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64])
def test_softmax_from_dask_s_reductions(log: bool, dtype: Any) -> None:
    large = (np.arange(24).reshape(4, 6) % 7 * 100).astype(dtype)  # overflow without the shift
    for x, dim in [(large, 0), (large, 1), (large, -1), (large % 3, 1), ((large % 5).T, 0)]:
        shifted = x.astype(np.float64 if x.dtype.kind in "iu" else x.dtype) - x.max(axis=dim, keepdims=True)
        exps = np.exp(shifted)
        expected = (
            shifted - np.log(exps.sum(axis=dim, keepdims=True))
            if log
            else exps / exps.sum(axis=dim, keepdims=True)
        )
        result = _computed(softmax(log).build(da, None, (_chunked(x),), {"dim": dim}))
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result, expected, rtol=1e-6)
    assert softmax().build.args == (False,)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1, -2])
def test_scans_carry_across_blocks(name: str, dim: Any) -> None:
    x = (np.arange(20).reshape(4, 5) % 3 + 1).astype(np.int8)
    for dtype in (None, np.int64, np.int16, np.float32):
        result = _computed(scan(name).build(da, None, (_chunked(x),), {"dim": dim, "dtype": dtype}))
        expected = getattr(np, name)(x, axis=dim, dtype=dtype)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected, strict=True)


@pytest.mark.parametrize("name", ["concatenate", "stack"])
def test_joins_of_dask_and_numpy_operands(name: str) -> None:
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    for params, axis in (({}, 0), ({"dim": 1}, 1), ({"dim": -1}, -1)):
        result = _computed(join(name).build(da, None, (_chunked(a), b), params))
        np.testing.assert_array_equal(result, getattr(np, name)([a, b], axis=axis), strict=True)


def test_transform_runs_per_block() -> None:
    x = np.arange(-4, 5).reshape(3, 3)
    result = chunkforms.TRANSFORM.build(da, None, (_chunked(x),), {"op": lambda v: v * v - 1})
    np.testing.assert_array_equal(_computed(result), x * x - 1, strict=True)
    named = chunkforms.TRANSFORM.build(da, None, (_chunked(x),), {"op": abs, "dtype": np.float32})
    assert _computed(named).dtype == np.float32 and _computed(named).tolist() == np.abs(x).tolist()


def test_transform_s_dtype_is_its_callable_s() -> None:
    x = np.arange(6)
    halves = chunkforms.TRANSFORM.build(da, None, (_chunked(x),), {"op": lambda v: v / 2})
    assert halves.dtype == np.float64
    np.testing.assert_array_equal(_computed(halves), x / 2, strict=True)


def test_transform_calls_a_vectorized_callable_once_per_block() -> None:
    shapes: list[tuple[int, ...]] = []

    def op(v: np.ndarray) -> np.ndarray:
        shapes.append(v.shape)
        return v + 1

    x = np.arange(6)
    result = chunkforms.TRANSFORM.build(
        da, None, (_chunked(x),), {"op": op, "vectorized": True, "dtype": x.dtype}
    )
    assert shapes == []  # dask was given the meta: it called nothing to guess it
    np.testing.assert_array_equal(_computed(result), x + 1, strict=True)
    assert shapes == [(2,), (2,), (2,)]


def test_point_broadcasts_its_two_operands() -> None:
    x, y = np.arange(3).reshape(3, 1), np.arange(4)
    for first, second in ((_chunked(x), y), (x, _chunked(y)), (_chunked(x), _chunked(y))):
        result = chunkforms.POINT.build(da, None, (first, second), {"op": lambda a, b: 10 * a + b})
        np.testing.assert_array_equal(_computed(result), 10 * x + y, strict=True)
    text = chunkforms.POINT.build(da, None, (_chunked(x), 2), {"op": operator.mul, "dtype": np.int8})
    assert _computed(text).dtype == np.int8 and _computed(text).tolist() == (x * 2).tolist()


def test_point_calls_a_vectorized_callable_once_per_block() -> None:
    shapes: list[tuple[int, ...]] = []

    def op(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        shapes.append(a.shape)
        return a - b

    x, y = np.arange(6), np.arange(6)[::-1]
    params = {"op": op, "vectorized": True, "dtype": x.dtype}
    result = chunkforms.POINT.build(da, None, (_chunked(x), _chunked(y)), params)
    assert shapes == []  # dask was given the meta: it called nothing to guess it
    np.testing.assert_array_equal(_computed(result), x - y, strict=True)
    assert shapes == [(2,), (2,), (2,)]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_fold_sees_the_whole_axis_in_order(keepdim: bool, dim: int) -> None:
    x = np.arange(1, 16).reshape(3, 5)

    def op(acc: Any, v: Any) -> Any:
        return acc * 2 + v  # order matters

    params = {"dim": dim, "init": 0, "op": op, "keepdim": keepdim}
    result = chunkforms.FOLD.build(da, None, (_chunked(x),), params)
    np.testing.assert_array_equal(_computed(result), callables.fold(x, **params), strict=True)
    assert result.ndim == (2 if keepdim else 1)
    if keepdim:
        assert result.chunks[dim] == (1,)


def test_fold_s_dtype_is_its_callable_s() -> None:
    x = np.arange(1, 13).reshape(3, 4)
    params = {"dim": 1, "init": 0, "op": lambda acc, v: acc + v / 2}
    result = chunkforms.FOLD.build(da, None, (_chunked(x),), params)
    assert result.dtype == np.float64
    np.testing.assert_array_equal(_computed(result), callables.fold(x, **params), strict=True)


def test_declarations_are_frozen_values() -> None:
    form = ChunkedForm(chunkforms._transform)
    assert form == ChunkedForm(chunkforms._transform) and form != chunkforms.POINT
    assert chunkforms.TRANSFORM.build is chunkforms._transform
    assert chunkforms.POINT.build is chunkforms._point and chunkforms.FOLD.build is chunkforms._fold

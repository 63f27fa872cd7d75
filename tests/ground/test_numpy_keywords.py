"""numpy's keywords on every reduction and scan, against numpy on random shapes.

One property covers them all: a random shape (0-d, size-0 and size-1 axes included), a random
input dtype, the axes as an int (negative too), a tuple, or None, spelled numpy's way
(`axis=`, `keepdims=`) or PyTorch's (`dim=`, `keepdim=`) or positionally, with `dtype=` and
`ddof=`/`correction=` where numpy takes them. numpy's result (or the type of its exception)
is the reference. The other tests hold `out=`, the sorts' and joins' keywords, and the
refusals (both spellings at once, a keepdim that is not a bool).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt

Reference = Callable[..., Any]

# name: (numpy's function, whether numpy takes dtype=, whether it takes ddof=, whether it takes a tuple)
REDUCTIONS: dict[str, tuple[Reference, bool, bool, bool]] = {
    "sum": (np.sum, True, False, True),
    "mean": (np.mean, True, False, True),
    "prod": (np.prod, True, False, True),
    "max": (np.max, False, False, True),
    "min": (np.min, False, False, True),
    "argmax": (np.argmax, False, False, False),
    "argmin": (np.argmin, False, False, False),
    "all": (np.all, False, False, True),
    "any": (np.any, False, False, True),
    "std": (np.std, True, True, True),
    "var": (np.var, True, True, True),
    "nansum": (np.nansum, True, False, True),
    "nanmean": (np.nanmean, True, False, True),
    "nanmax": (np.nanmax, False, False, True),
    "nanmin": (np.nanmin, False, False, True),
}
SCANS: dict[str, Reference] = {"cumsum": np.cumsum, "cumprod": np.cumprod}
INPUT_DTYPES = ["float64", "float32", "int64", "int32", "bool"]


def _outcome(call: Callable[[], Any]) -> Any:
    """What `call()` gives as an array, or the class of the exception it raises."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(call())
        except (TypeError, ValueError, IndexError) as error:
            return type(error)


def _same(got: Any, expected: Any) -> None:
    if isinstance(expected, type):
        assert isinstance(got, type) and issubclass(got, expected), (got, expected)
        return
    assert not isinstance(got, type), f"lazytensor raised {got}, numpy gave {expected!r}"
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    tolerance = 1e-4 if np.float32 in (got.dtype.type, expected.dtype.type) else 1e-9
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance, equal_nan=True)


@st.composite
def axis_args(draw: st.DrawFn, ndim: int, many: bool) -> Any:
    """None, an int (negative half the time), or (where numpy takes one) a tuple of distinct axes."""
    kinds = ["none"] + (["int"] if ndim else []) + (["tuple"] if many and ndim else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None
    if kind == "int":
        axis = draw(st.integers(0, ndim - 1))
        return axis - ndim if draw(st.booleans()) else axis
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=0, max_size=ndim, unique=True))
    return tuple(axis - ndim if draw(st.booleans()) else axis for axis in axes)


def _values(draw: st.DrawFn, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    count = int(np.prod(shape))
    raw = draw(st.lists(st.integers(-3, 3), min_size=count, max_size=count))
    values = np.array(raw, dtype=np.int64).reshape(shape).astype(dtype)
    if dtype.startswith("float") and count and draw(st.booleans()):
        values.reshape(-1)[draw(st.integers(0, count - 1))] = np.nan  # the nan-reductions skip it
    return values


def _spelled(draw: st.DrawFn, axis: Any, keepdims: bool | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The axis (and keepdims) as numpy's keywords, PyTorch's keywords, or positionally."""
    spelling = draw(st.sampled_from(["numpy", "torch", "positional"]))
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    if spelling == "numpy":
        kwargs["axis"] = axis
        if keepdims is not None:
            kwargs["keepdims"] = keepdims
    elif spelling == "torch":
        kwargs["dim"] = axis
        if keepdims is not None:
            kwargs["keepdim"] = keepdims
    else:
        args = (axis,) if keepdims is None else (axis, keepdims)
    return args, kwargs


@pytest.mark.parametrize("name", [*REDUCTIONS, *SCANS])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_numpy_keywords_on_every_reduction_and_scan_match_numpy(name: str, data: st.DataObject) -> None:
    shape = data.draw(shapes(max_dims=4, max_side=3), label="shape")
    input_dtype = data.draw(st.sampled_from(INPUT_DTYPES), label="input dtype")
    values = _values(data.draw, shape, input_dtype)
    t = lt.tensor(values)
    if data.draw(st.booleans(), label="through a view"):
        t = lt.tensor(np.array(values.T, order="C")).T
    numpy_kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if name in SCANS:
        reference = SCANS[name]
        axis = data.draw(st.one_of(st.none(), axis_args(len(shape), many=False)), label="axis")
        args, spelled = _spelled(data.draw, axis, None)
        numpy_kwargs["axis"] = axis
        takes_dtype = True
        takes_ddof = False
    else:
        reference, takes_dtype, takes_ddof, many = REDUCTIONS[name]
        axis = data.draw(axis_args(len(shape), many), label="axis")
        keepdims = data.draw(st.booleans(), label="keepdims")
        args, spelled = _spelled(data.draw, axis, keepdims)
        numpy_kwargs.update(axis=axis, keepdims=keepdims)
    if takes_dtype and data.draw(st.booleans(), label="with dtype"):
        choices = ["float64", "float32"] + (["int64"] if input_dtype in ("int64", "int32", "bool") else [])
        extra["dtype"] = data.draw(st.sampled_from(choices), label="dtype")
        numpy_kwargs["dtype"] = extra["dtype"]
    if takes_ddof and data.draw(st.booleans(), label="with ddof"):
        ddof = data.draw(st.integers(0, 2), label="ddof")
        extra["ddof" if data.draw(st.booleans(), label="numpy's name") else "correction"] = ddof
        numpy_kwargs["ddof"] = ddof
    expected = _outcome(lambda: reference(values, **numpy_kwargs))
    got = _outcome(lambda: getattr(t, name)(*args, **spelled, **extra).numpy())
    _same(got, expected)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "argmin", "std", "nansum"])
def test_out_receives_the_result_and_is_returned(name: str) -> None:
    values = np.arange(12.0).reshape(3, 4)[::-1]
    out = lt.zeros(2, 4)
    target = out[1]  # a view: the result goes through it into storage
    result = getattr(lt.tensor(values), name)(axis=0, out=target)
    assert result is target
    expected = getattr(np, name)(values, axis=0)
    np.testing.assert_allclose(out.numpy()[1], expected)
    assert out.numpy()[0].tolist() == [0.0] * 4


def test_out_of_the_wrong_shape_or_kind_is_refused_before_anything_is_written() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    out = lt.zeros(2)
    with pytest.raises(ValueError, match=r"out has shape \(2,\) but the result has shape \(3,\)"):
        t.sum(axis=0, out=out)
    with pytest.raises(TypeError, match="out must be a tensor"):
        t.sum(out=np.zeros(()))
    assert out.tolist() == [0.0, 0.0]
    running = lt.zeros(6)
    assert t.cumsum(out=running) is running and running.tolist() == [0.0, 1.0, 3.0, 6.0, 10.0, 15.0]


def test_out_of_the_kept_shape_takes_a_reduction_with_keepdims() -> None:
    """With `keepdims`, `out` has the kept shape, as numpy's; the shape without the axis is refused."""
    values = np.arange(6.0).reshape(2, 3)
    t = lt.tensor(values)
    out = lt.zeros(1, 3)
    assert t.sum(0, keepdim=True, out=out) is out
    np.testing.assert_array_equal(out.numpy(), values.sum(0, keepdims=True))
    columns = lt.zeros(2, 1)
    assert t.mean(axis=1, keepdims=True, out=columns) is columns
    np.testing.assert_array_equal(columns.numpy(), values.mean(1, keepdims=True))
    with pytest.raises(ValueError, match=r"^sum: out has shape \(3,\) but the result has shape \(1, 3\)$"):
        t.sum(0, keepdim=True, out=lt.zeros(3))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.sum(0, axis=0), "sum() got both dim=0 and axis=0: they are one argument"),
        (
            lambda t: t.mean(keepdim=True, keepdims=True),
            "mean() got both keepdim=True and keepdims=True: they are one argument",
        ),
        (
            lambda t: t.std(ddof=1, correction=1),
            "std() got both ddof=1 and correction=1: they are one argument",
        ),
        (lambda t: t.cumsum(0, axis=0), "cumsum() got both dim=0 and axis=0: they are one argument"),
        (lambda t: t.sort(0, axis=0), "sort() got both dim=0 and axis=0: they are one argument"),
        (lambda t: t.flip(0, axis=0), "flip() got both dim=0 and axis=0: they are one argument"),
        (lambda t: t.roll(1, 0, axis=0), "roll() got both dim=0 and axis=0: they are one argument"),
        (lambda t: lt.cat([t, t], 0, axis=0), "cat() got both dim=0 and axis=0: they are one argument"),
        (
            lambda t: t.sum(0, np.float32),
            "sum: keepdim must be True or False, got <class 'numpy.float32'> (type); numpy's other "
            "arguments (dtype, out) are keywords here",
        ),
        (lambda t: t.sum(axis=1.5), "sum: an axis must be an int, a tuple of ints or None, got 1.5 (float)"),
        (lambda t: t.std(ddof=True), "std: ddof (correction) must be a number, got True"),
        (
            lambda t: t.var(correction=np.bool_(False)),
            "var: ddof (correction) must be a number, got np.False_",
        ),
        (lambda t: t.var(correction="1"), "var: ddof (correction) must be a number, got '1'"),
    ],
)
def test_both_spellings_or_a_wrong_kind_is_a_type_error(call: Callable[[Any], Any], message: str) -> None:
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        call(lt.arange(6.0).reshape(2, 3))


def test_a_repeated_axis_is_numpys_value_error() -> None:
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        lt.zeros(2, 3).sum(axis=(0, -2))


@settings(max_examples=60, deadline=None)
@given(
    shape=shapes(max_dims=3, max_side=4),
    data=st.data(),
)
def test_sort_and_argsort_keywords_match_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    values = np.array(
        data.draw(st.lists(st.integers(0, 3), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    ).reshape(shape)
    if not shape:
        return
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    descending = data.draw(st.booleans())
    order = lt.tensor(values).argsort(axis=axis, stable=True, descending=descending).numpy()
    flat = values.reshape(-1) if axis is None else values
    along = 0 if axis is None else axis
    if descending:  # numpy has no descending: the stable order of the negated values is the same
        expected = np.argsort(-flat, axis=along, kind="stable")
    else:
        expected = np.argsort(flat, axis=along, kind="stable")
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(
        lt.sort(lt.tensor(values), axis=axis, descending=descending).numpy(),
        np.take_along_axis(flat, expected, axis=along),
    )
    t = lt.tensor(values)
    if axis is not None:
        t.sort(axis=axis, stable=True, descending=descending)
        np.testing.assert_array_equal(t.numpy(), np.take_along_axis(values, expected, axis=axis))


def test_sort_refuses_kind_and_stable_together() -> None:
    with pytest.raises(ValueError, match="`kind` and `stable`"):
        lt.arange(3).sort(kind="stable", stable=True)


@settings(max_examples=40, deadline=None)
@given(shape=shapes(max_dims=3, max_side=3).filter(len), data=st.data())
def test_joins_splits_flips_and_rolls_take_axis_as_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    values = np.arange(int(np.prod(shape))).reshape(shape)
    t = lt.tensor(values)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    np.testing.assert_array_equal(
        lt.cat([t, t], axis=axis).numpy(), np.concatenate([values, values], axis=axis)
    )
    np.testing.assert_array_equal(
        lt.concatenate([t, values], axis).numpy(), np.concatenate([values, values], axis)
    )
    np.testing.assert_array_equal(
        lt.cat([t, t], axis=None).numpy(), np.concatenate([values, values], axis=None)
    )
    np.testing.assert_array_equal(
        lt.concatenate([t, t], axis=None).numpy(), np.concatenate([values, values], axis=None)
    )
    stack_axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    np.testing.assert_array_equal(
        lt.stack([t, t], axis=stack_axis).numpy(), np.stack([values, values], axis=stack_axis)
    )
    np.testing.assert_array_equal(t.flip(axis=axis).numpy(), np.flip(values, axis=axis))
    shift = data.draw(st.integers(-5, 5))
    roll_axis = data.draw(st.one_of(st.none(), st.just(axis)))
    np.testing.assert_array_equal(
        t.roll(shift, axis=roll_axis).numpy(), np.roll(values, shift, axis=roll_axis)
    )
    pieces = t.split(2, axis=axis)
    np.testing.assert_array_equal(np.concatenate([p.numpy() for p in pieces], axis=axis), values)


def test_numpys_reduction_functions_pass_their_keywords_to_the_methods() -> None:
    values = np.arange(6.0).reshape(2, 3)
    t = lt.tensor(values, requires_grad=True)
    result = np.std(t, axis=0, ddof=1)
    assert result.requires_grad  # the method ran: the table's entry, with its gradient
    np.testing.assert_allclose(result.numpy(), np.std(values, axis=0, ddof=1))
    assert np.sum(t, dtype=np.float32).dtype == np.float32
    with lt.no_grad():  # keywords the methods do not take run numpy on the values
        assert np.max(t, initial=10).item() == 10.0
        assert np.sum(t, where=np.array([True, False, True])).item() == 10.0

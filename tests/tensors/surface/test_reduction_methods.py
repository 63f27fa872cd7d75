"""The reduction and scan methods (`t.sum`, ..., `t.cumprod`): each names itself in its refusals,
and each writes its result into `out=` (a tensor of the result's shape) and returns it, as numpy
does, refusing an `out` it cannot write before anything is written."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

# name: numpy's function
REDUCTIONS = {
    "sum": np.sum,
    "mean": np.mean,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
    "argmax": np.argmax,
    "argmin": np.argmin,
    "all": np.all,
    "any": np.any,
    "std": np.std,
    "var": np.var,
    "nansum": np.nansum,
    "nanmean": np.nanmean,
    "nanmax": np.nanmax,
    "nanmin": np.nanmin,
}
SCANS = {"cumsum": np.cumsum, "cumprod": np.cumprod}
VALUES = np.array([[3.0, np.nan, -1.0], [0.5, 2.0, 4.0]])


@pytest.mark.parametrize("name", [*REDUCTIONS, *SCANS])
def test_every_reduction_and_scan_names_itself_in_its_refusals(name: str) -> None:
    t = lt.tensor(VALUES)
    with pytest.raises(np.exceptions.AxisError) as caught:
        getattr(t, name)(axis=2)
    assert str(caught.value) == (
        f"{name} of a tensor of shape (2, 3): axis 2 is out of bounds for array of dimension 2"
    )
    with pytest.raises(TypeError) as refused:
        getattr(t, name)(0, axis=0)
    assert str(refused.value) == f"{name}() got both dim=0 and axis=0: they are one argument"
    with pytest.raises(TypeError) as wrong_out:
        getattr(t, name)(axis=0, out=np.zeros(3))
    assert str(wrong_out.value) == f"{name}: out must be a tensor, got ndarray"


@pytest.mark.parametrize("name", [*REDUCTIONS, *SCANS])
def test_out_of_every_reduction_and_scan_receives_the_result_through_a_view(name: str) -> None:
    reference = {**REDUCTIONS, **SCANS}[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.asarray(reference(VALUES, axis=1))
    storage = lt.full((2, *expected.shape), -7, dtype=expected.dtype)
    target = storage[1]  # a view: the result goes through it into storage
    result = getattr(lt.tensor(VALUES), name)(axis=1, out=target)
    assert result is target
    np.testing.assert_array_equal(storage.numpy()[1], expected)
    np.testing.assert_array_equal(storage.numpy()[0], np.full(expected.shape, -7, dtype=expected.dtype))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_out_of_a_flattened_scan_has_every_element(name: str) -> None:
    out = lt.zeros(6)
    assert getattr(lt.tensor(VALUES), name)(out=out) is out
    np.testing.assert_array_equal(out.numpy(), SCANS[name](VALUES))
    with pytest.raises(
        ValueError, match=re.escape(f"{name}: out has shape (3,) but the result has shape (6,)")
    ):
        getattr(lt.tensor(VALUES), name)(out=lt.zeros(3))


@pytest.mark.parametrize("name", ["sum", "max", "nanmin", "cumprod"])
def test_an_out_that_is_part_of_a_gradient_graph_is_refused_by_name(name: str) -> None:
    x = lt.ones(2, 3, requires_grad=True)
    out = (x * 2.0)[0] if name != "cumprod" else x * 2.0
    before = out.numpy().copy()
    with pytest.raises(RuntimeError) as refused:
        getattr(lt.tensor(VALUES), name)(axis=0 if name != "cumprod" else 1, out=out)
    shape = tuple(out.shape)
    assert str(refused.value) == (
        f"in-place {name}(out=...) on a tensor of shape {shape} that requires grad is not "
        "differentiable: use an out-of-place operation, or lt.no_grad() for an update"
    )
    np.testing.assert_array_equal(out.numpy(), before)


def test_an_out_that_cannot_reach_storage_is_refused_before_anything_is_written() -> None:
    storage = lt.zeros(3)
    out = storage[None].expand(2, 3)[0][:2]  # through an expanded layer: read-only
    with pytest.raises(ValueError, match="cannot write through an expanded view"):
        lt.tensor(VALUES).min(axis=1, out=out)
    assert storage.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(("dtype", "out_dtype"), [("float32", "float64"), (None, "int64")])
def test_sum_over_everything_with_dtype_or_out_takes_them(dtype: Any, out_dtype: str) -> None:
    values = np.array([[1.5, 2.25], [3.0, 4.5]])
    out = lt.zeros((), dtype=out_dtype)
    result = lt.tensor(values).sum(dtype=dtype, out=out)
    assert result is out
    with np.errstate(all="ignore"):
        expected = np.sum(values, dtype=dtype, out=np.zeros((), dtype=out_dtype))
    assert out.item() == expected.item() and out.dtype == np.dtype(out_dtype)
    assert lt.tensor(values).sum(dtype="float32").dtype == np.float32


@pytest.mark.parametrize("spelling", ["keepdim", "keepdims"])
def test_a_sum_over_everything_that_keeps_the_axes_keeps_them(spelling: str) -> None:
    values = np.arange(6).reshape(2, 3)
    for keep in (True, False):
        got = lt.tensor(values).sum(**{spelling: keep})
        expected = values.sum(keepdims=keep)
        assert got.shape == expected.shape and got.tolist() == expected.tolist()

"""A bad argument's traceback is the user's line and the message: arguments are checked at the
public entry point, before the call descends into the kernels (issue 29, item 6).

Each call below raises numpy's exception type with a message naming the operation, the shape
and the value, after at most two frames inside the package (the method called and its check).

Reaches into `lazytensor.ground.keywords`: the `user_error` decorator's own bookkeeping (name, doc,
keywords) is checked on a function defined here.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.ground.keywords import user_error

PACKAGE = Path(lt.__file__).resolve().parent


def _t() -> lt.AbstractTensor:
    return lt.arange(6.0).reshape(2, 3)


BAD_CALLS: dict[str, tuple[Callable[[], Any], type[Exception], str]] = {
    "sum(axis=5)": (
        lambda: _t().sum(axis=5),
        np.exceptions.AxisError,
        r"sum of a tensor of shape \(2, 3\): axis 5 is out of bounds for array of dimension 2",
    ),
    "mean(axis=(0, 5))": (lambda: _t().mean(axis=(0, 5)), np.exceptions.AxisError, "axis 5"),
    "std(axis=-3)": (lambda: _t().std(axis=-3), np.exceptions.AxisError, "axis -3"),
    "argmax(dim=2)": (lambda: _t().argmax(dim=2), np.exceptions.AxisError, "axis 2"),
    "nansum(axis=2)": (lambda: _t().nansum(axis=2), np.exceptions.AxisError, "axis 2"),
    "sum(axis=(0, 0))": (lambda: _t().sum(axis=(0, 0)), ValueError, "duplicate value in 'axis'"),
    "sum(dim and axis)": (lambda: _t().sum(dim=0, axis=0), TypeError, "got both dim=0 and axis=0"),
    "var(ddof and correction)": (
        lambda: _t().var(ddof=1, correction=1),
        TypeError,
        "got both ddof=1 and correction=1",
    ),
    "sum(out of another shape)": (lambda: _t().sum(0, out=lt.zeros(2)), ValueError, r"out has shape \(2,\)"),
    "max of nothing": (lambda: lt.zeros(0, 2).max(axis=0), ValueError, "zero-size array"),
    "cumsum(axis=5)": (lambda: _t().cumsum(axis=5), np.exceptions.AxisError, "cumsum .* axis 5"),
    "cumprod(axis=(0, 1))": (lambda: _t().cumprod(axis=(0, 1)), TypeError, "takes one axis"),
    "sort(axis=2)": (lambda: _t().sort(axis=2), np.exceptions.AxisError, "sort .* axis 2"),
    "lt.sort(axis=2)": (lambda: lt.sort(_t(), axis=2), np.exceptions.AxisError, "axis 2"),
    "argsort(descending=1)": (
        lambda: _t().argsort(descending=1),
        TypeError,
        "descending must be True or False",
    ),
    "flip(axis=2)": (lambda: _t().flip(axis=2), np.exceptions.AxisError, "flip .* axis 2"),
    "roll(1, axis=2)": (lambda: _t().roll(1, axis=2), np.exceptions.AxisError, "roll .* axis 2"),
    "split(1, axis=2)": (lambda: _t().split(1, axis=2), np.exceptions.AxisError, "split .* axis 2"),
    "softmax(2)": (lambda: _t().softmax(2), np.exceptions.AxisError, "softmax .* axis 2"),
    "cat(axis=2)": (lambda: lt.cat([_t(), _t()], axis=2), np.exceptions.AxisError, "axis 2"),
    "cat of mismatched shapes": (
        lambda: lt.cat([_t(), lt.zeros(3, 3)], axis=1),
        ValueError,
        r"shape \(2, 3\) and tensor 1 of shape \(3, 3\)",
    ),
    "concatenate(axis=2)": (lambda: lt.concatenate([_t(), _t()], 2), np.exceptions.AxisError, "axis 2"),
    "take out of range": (lambda: _t().take([6]), IndexError, "index 6 is out of bounds"),
    "put out of range": (lambda: _t().put([-7], 1.0), IndexError, "index -7 is out of bounds"),
    "repeat with a count per element of another axis": (
        lambda: _t().repeat([1, 2], axis=1),
        ValueError,
        "2 counts for 3 elements",
    ),
    "tile(-1)": (lambda: _t().tile(-1), ValueError, "must not be negative"),
    "diagonal of one axis twice": (lambda: _t().diagonal(0, 1, -1), ValueError, "cannot be the same"),
    "view(int32) of a transpose": (lambda: _t().T.view(np.int32), ValueError, "must be contiguous"),
    "fill([1, 2])": (lambda: _t().fill([1, 2]), ValueError, "takes one value"),
    "add_ on a leaf that requires grad": (
        lambda: lt.ones(2, requires_grad=True).add_(1),
        RuntimeError,
        "leaf tensor of shape",
    ),
    "grad of another shape": (
        lambda: setattr(lt.ones(2, requires_grad=True), "grad", lt.ones(3)),
        ValueError,
        r"assigned grad has shape \(3,\), but the tensor has shape \(2,\)",
    ),
    "t + u of shapes that do not broadcast": (
        lambda: _t() + lt.zeros(4),
        ValueError,
        r"shapes \(2, 3\) and \(4,\) cannot be broadcast together",
    ),
    "t @ t of unaligned shapes": (lambda: _t() @ _t(), ValueError, r"matmul: shapes \(2, 3\) and \(2, 3\)"),
    "t += u of another shape": (lambda: _t().__iadd__(lt.zeros(3, 3)), ValueError, "broadcast"),
    "gather out of range": (lambda: _t().gather(0, [[5, 0, 0]]), IndexError, "5"),
    "t[5]": (lambda: _t()[5], IndexError, "index 5 is out of bounds for axis 0 with size 2"),
    "t[0] = three values into two": (
        lambda: _t().__setitem__((slice(None), 0), [1.0, 2.0, 3.0]),
        ValueError,
        "could not broadcast",
    ),
    "reshape(4, -1)": (lambda: _t().reshape(4, -1), ValueError, r"cannot reshape tensor of shape \(2, 3\)"),
    "transpose(0, 5)": (lambda: _t().transpose(0, 5), np.exceptions.AxisError, "axis 5"),
    "unsqueeze(5)": (lambda: _t().unsqueeze(5), np.exceptions.AxisError, "axis 5"),
    "squeeze(0)": (lambda: _t().squeeze(0), ValueError, "cannot squeeze axis 0"),
    "expand(3, 3)": (lambda: _t().expand(3, 3), ValueError, "cannot expand"),
    "arange(step=0)": (lambda: lt.arange(0, 10, 0), ValueError, "step must not be zero"),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_a_bad_argument_raises_from_the_entry_point(name: str) -> None:
    call, kind, message = BAD_CALLS[name]
    with pytest.raises(kind, match=message) as caught:
        call()
    inside = [
        frame
        for frame in traceback.extract_tb(caught.value.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(PACKAGE)
    ]
    assert len(inside) <= 2, "".join(traceback.format_list(inside))


def test_numpys_axis_error_is_both_an_index_error_and_a_value_error() -> None:
    for kind in (IndexError, ValueError):
        with pytest.raises(kind):
            _t().sum(axis=5)


def test_a_checked_function_takes_keywords_and_keeps_its_name_and_doc() -> None:
    def scale(value: float, *, by: float = 1.0) -> float:
        """`value` times `by`."""
        return value * by

    checked = user_error(scale)
    assert checked(2.0, by=3.0) == 6.0
    assert (checked.__name__, checked.__doc__, checked.__wrapped__) == ("scale", "`value` times `by`.", scale)

"""`isel` refuses what numpy's one-axis selection cannot mean, and the empty name is never a name.

`t.isel(a=True)` and `t.isel(a=None)` used to add an axis (they are `t[True]` and `t[None]` at that
axis' place); an index for one axis is an int, a slice, a list or an array, so a bool, None or `...`
is a TypeError naming the axis and the value. An axis given both in the dict and as a keyword is a
TypeError (it was silently the keyword's). The empty name `''` is refused by `names=` and `rename`
(as PyTorch refuses it; use None for an axis without a name), and a file's `''` names no axis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr

import lazytensor as lt


def _named() -> lt.AbstractTensor:
    return lt.arange(24).reshape(2, 3, 4, names=("a", "b", "c"))


@pytest.mark.parametrize("index", [True, False, np.True_, None, Ellipsis])
def test_isel_refuses_a_bool_none_or_ellipsis_for_an_axis(index: Any) -> None:
    with pytest.raises(TypeError) as caught:
        _named().isel(b=index)
    message = str(caught.value)
    assert "isel" in message and "'b'" in message and repr(index) in message


@pytest.mark.parametrize("index", [1, -1, slice(0, 2), [2, 0], np.array([1]), np.array([True, False, True])])
def test_isel_still_takes_ints_slices_lists_and_masks(index: Any) -> None:
    t = _named()
    np.testing.assert_array_equal(t.isel(b=index).numpy(), t.numpy()[:, index])


def test_isel_refuses_an_axis_given_twice() -> None:
    with pytest.raises(TypeError, match=r"isel: axis 'a' is given twice: 0 in the dict and 1 as a keyword"):
        _named().isel({"a": 0}, a=1)
    assert _named().isel({"a": 0}, c=1).tolist() == [1, 5, 9]  # different axes: both taken


@pytest.mark.parametrize(
    "make",
    [
        lambda: lt.zeros(2, 3, names=("", "b")),
        lambda: lt.zeros(2, 3).rename("a", ""),
        lambda: lt.zeros(2, 3, names=("a", "b")).rename(b=""),
        lambda: lt.from_array(np.zeros((2, 3)), names=("", None)),
        lambda: lt.arange(6).reshape(2, 3, names=("", None)),
    ],
)
def test_the_empty_name_is_refused(make: Any) -> None:
    with pytest.raises(ValueError, match=r"the empty name '' names no axis: use None"):
        make()


def test_a_files_empty_name_names_no_axis(tmp_path: Path) -> None:
    path = tmp_path / "dims.zarr"
    zarr.create_array(store=str(path), shape=(2, 3), dtype="f8", dimension_names=("", "b"))
    assert lt.open(path).names == (None, "b")

"""`sel`, selection by label, against xarray's `.sel` on the same data: random coordinates and random
selections (labels, lists, inclusive slices, `method="nearest"`), dates and strings; a view that
writes through; a missing label is one line naming the axis, the label and the nearest labels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt


def _pair(data: np.ndarray, coords: dict[str, np.ndarray]) -> tuple[lt.AbstractTensor, xr.DataArray]:
    names = tuple(coords)
    t = lt.tensor(data, names=names, coords=coords)
    return t, xr.DataArray(data, dims=names, coords=coords)


def _same(t: lt.AbstractTensor, da: xr.DataArray) -> None:
    assert t.shape == da.shape
    assert t.names == da.dims
    np.testing.assert_array_equal(t.numpy(), da.values)
    for name in da.dims:
        np.testing.assert_array_equal(t.coords[name], da.coords[name].values)


@st.composite
def labelled(draw: st.DrawFn, sort: bool) -> tuple[np.ndarray, np.ndarray]:
    """Unique integer labels (sorted up, down, or not at all) and data along them (and a second axis)."""
    labels = np.array(draw(st.lists(st.integers(-50, 50), min_size=1, max_size=8, unique=True)))
    if sort:
        labels = np.sort(labels)[:: draw(st.sampled_from([1, -1]))]
    return labels, np.arange(len(labels) * 2, dtype=float).reshape(len(labels), 2)


@given(labelled(sort=False), st.data())
def test_labels_and_lists_of_labels_select_as_xarray(found, data) -> None:
    labels, values = found
    t, da = _pair(values, {"x": labels, "y": np.array(["a", "b"])})
    one = data.draw(st.sampled_from(labels.tolist()))
    _same(t.sel(x=one), da.sel(x=one))
    some = data.draw(st.lists(st.sampled_from(labels.tolist()), max_size=5))
    _same(t.sel(x=some, y=["b", "a"]), da.sel(x=some, y=["b", "a"]))


@given(labelled(sort=True), st.integers(-60, 60) | st.none(), st.integers(-60, 60) | st.none())
def test_inclusive_slices_of_labels_select_as_xarray(found, start, stop) -> None:
    labels, values = found
    t, da = _pair(values, {"x": labels, "y": np.array([10, 20])})
    _same(t.sel(x=slice(start, stop)), da.sel(x=slice(start, stop)))


@given(labelled(sort=True), st.integers(-60, 60) | st.floats(-60, 60))
def test_nearest_selects_as_xarray(found, wanted) -> None:
    labels, values = found
    t, da = _pair(values, {"x": labels, "y": np.array([10, 20])})
    _same(t.sel(x=wanted, method="nearest"), da.sel(x=wanted, method="nearest"))
    _same(t.sel(x=[wanted, wanted], method="nearest"), da.sel(x=[wanted, wanted], method="nearest"))


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=6, unique=True), st.floats(-6, 6))
def test_float_labels_nearest_and_slices_as_xarray(labels, wanted) -> None:
    coord = np.sort(np.array(labels))
    t, da = _pair(np.arange(len(coord) * 2, dtype=float).reshape(-1, 2), {"x": coord, "y": np.array([1, 2])})
    _same(t.sel(x=wanted, method="nearest"), da.sel(x=wanted, method="nearest"))
    _same(t.sel(x=slice(wanted, None)), da.sel(x=slice(wanted, None)))


DAYS = pd.date_range("2024-01-01", periods=5, freq="D").values
HOURS = pd.date_range("2024-01-01", periods=72, freq="6h").values


@pytest.mark.parametrize(
    "coord, key",
    [
        (DAYS, "2024-01-03"),
        (DAYS, slice("2024-01-02", "2024-01-04")),
        (DAYS, ["2024-01-05", "2024-01-01"]),
        (DAYS, np.datetime64("2024-01-02")),
        (HOURS, slice("2024-01-02", "2024-01-04")),
        (HOURS, "2024-01-02"),
        (HOURS, "2024-01"),
        (HOURS, "2024-01-02T06:00"),
        (HOURS, slice("2024-01-02T03", "2024-01-03T12")),
    ],
)
def test_dates_select_as_xarray(coord, key) -> None:
    t, da = _pair(
        np.arange(len(coord) * 2, dtype=float).reshape(-1, 2), {"time": coord, "y": np.array([1, 2])}
    )
    _same(t.sel(time=key), da.sel(time=key))


def test_nearest_date_as_xarray() -> None:
    t, da = _pair(
        np.arange(len(HOURS) * 2, dtype=float).reshape(-1, 2), {"time": HOURS, "y": np.array([1, 2])}
    )
    key = "2024-01-02T04:00"
    _same(t.sel(time=key, method="nearest"), da.sel(time=key, method="nearest"))


def test_strings_select_as_xarray() -> None:
    stations = np.array(["rome", "oslo", "lima", "kyiv"])
    t, da = _pair(np.arange(8.0).reshape(4, 2), {"station": stations, "level": np.array([850, 500])})
    _same(t.sel(station="lima"), da.sel(station="lima"))
    _same(t.sel(station=["kyiv", "rome"], level=500), da.sel(station=["kyiv", "rome"], level=500))
    _same(t.sel(station=slice("oslo", "kyiv")), da.sel(station=slice("oslo", "kyiv")))


def test_sel_is_a_view_that_writes_through() -> None:
    t = lt.zeros(3, 2, names=("station", "level"), coords={"station": ["rome", "oslo", "lima"]})
    t.sel(station=["lima", "rome"])[...] = 1.0
    t.sel(station="oslo")[1] = 2.0
    assert t.numpy().tolist() == [[1.0, 1.0], [0.0, 2.0], [1.0, 1.0]]


def test_a_missing_label_is_one_line_naming_the_axis_the_label_and_the_nearest() -> None:
    t = lt.zeros(
        3, 2, names=("station", "level"), coords={"station": ["rome", "oslo", "lima"], "level": [850, 500]}
    )
    with pytest.raises(KeyError) as info:
        t.sel(station="paris")
    assert (
        info.value.args[0]
        == "sel: axis 'station' has no label 'paris'; the nearest are 'lima', 'oslo', 'rome'"
    )
    with pytest.raises(KeyError, match="axis 'level' has no label 700; the nearest are 850, 500"):
        t.sel(level=700)
    with pytest.raises(KeyError, match="axis 'level' has no label 1"):
        t.sel(level=[850, 1])
    with pytest.raises(ValueError, match="no axis is named 'time'"):
        t.sel(time=1)
    with pytest.raises(KeyError, match="has no coordinate"):
        lt.zeros(2, names=("x",)).sel(x=0)
    with pytest.raises(TypeError, match="sel: axis 'level' is given twice"):
        t.sel({"level": 850}, level=500)
    with pytest.raises(ValueError, match="method must be None or 'nearest'"):
        t.sel(level=850, method="pad")


def test_nearest_on_an_unsorted_coordinate_is_refused() -> None:
    t = lt.zeros(3, names=("x",), coords={"x": [3, 1, 2]})
    with pytest.raises(ValueError, match="needs a sorted coordinate"):
        t.sel(x=2.2, method="nearest")


def test_a_dimension_without_a_coordinate_variable_gets_no_labels(tmp_path: Path) -> None:
    """xarray makes up a range for a bare dimension (`coords.get`); the file has none, so neither has
    the tensor, and operations on reversed views of it are numpy's, not refused as mismatched."""
    path = tmp_path / "bare.nc"
    xr.DataArray(np.arange(5.0), name="data").to_netcdf(path, engine="h5netcdf")
    t = lt.from_array(xr.open_dataarray(path, engine="h5netcdf", cache=False))
    assert t.names == ("dim_0",) and t.axis_coords == (None,)
    assert (t * t[::-1]).tolist() == (np.arange(5.0) * np.arange(5.0)[::-1]).tolist()

"""Coordinates from files: a netCDF variable (`lt.open`), a zarr group written by xarray (the
coordinate arrays beside the variable), an xarray DataArray (`lt.from_array`), each labelled as
xarray labels it, and `sel` on them as xarray's. The files are made here with xarray.

Reaches into `lazytensor.ground.coords`: its `COORD_LIMIT` is lowered to see a longer coordinate
left behind.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import lazytensor as lt
from lazytensor.ground import coords as coordinates


def _temperatures() -> xr.DataArray:
    rng = np.random.default_rng(0)
    return xr.DataArray(
        rng.normal(size=(3, 2, 4)).astype("float32"),
        dims=("station", "level", "time"),
        coords={
            "station": ["rome", "oslo", "lima"],
            "level": [850, 500],
            "time": pd.date_range("2024-01-01", periods=4, freq="D"),
        },
        name="temp",
    )


def _check(t: lt.AbstractTensor, da: xr.DataArray) -> None:
    assert t.names == da.dims
    for name in da.dims:
        np.testing.assert_array_equal(t.coords[name], da.coords[name].values)
    key = {"station": ["lima", "rome"], "time": slice("2024-01-02", "2024-01-03")}
    np.testing.assert_array_equal(t.sel(key).numpy(), da.sel(key).values)
    np.testing.assert_array_equal(
        t.sel(level=600, method="nearest").numpy(), da.sel(level=600, method="nearest").values
    )


def test_a_netcdf_variable_comes_with_its_coordinates(tmp_path: Path) -> None:
    da = _temperatures()
    path = tmp_path / "t.nc"
    da.to_dataset().to_netcdf(path, engine="h5netcdf")
    _check(lt.open(path), da)


def test_a_zarr_group_written_by_xarray_gives_the_coordinate_arrays_beside_the_variable(
    tmp_path: Path,
) -> None:
    da = _temperatures()
    path = tmp_path / "t.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        da.to_dataset().to_zarr(path, mode="w")
        t = lt.open(path, "temp")
    _check(t, da)


def test_a_dataarray_gives_its_coordinates(tmp_path: Path) -> None:
    da = _temperatures()
    _check(lt.from_array(da), da)
    _check(lt.from_array(da.chunk({"station": 1})), da)


def test_a_coordinate_longer_than_the_limit_is_left_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(coordinates, "COORD_LIMIT", 3)
    t = lt.from_array(_temperatures())
    assert set(t.coords) == {"station", "level"}


def test_a_netcdf_backed_tensor_pickles_with_its_coordinates(tmp_path: Path) -> None:
    da = _temperatures()
    path = tmp_path / "t.nc"
    da.to_dataset().to_netcdf(path, engine="h5netcdf")
    view = lt.open(path).sel(station=["oslo", "rome"])
    again = pickle.loads(pickle.dumps(view))
    np.testing.assert_array_equal(again.coords["station"], ["oslo", "rome"])
    np.testing.assert_array_equal(again.coords["time"], da.coords["time"].values)

"""Named axes from files and array-likes: zarr v3 `dimension_names`, xarray `dims`, HDF5 dimension
labels and scales, netCDF dimensions; and back to zarr by `lt.save`. Real stores in tmp dirs."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
import xarray as xr
import zarr

import lazytensor as lt


def _zarr_v3(path: Path, names: tuple[str | None, ...] | None) -> None:
    z = zarr.create_array(str(path), shape=(2, 3, 4), chunks=(1, 3, 2), dtype="f8", dimension_names=names)
    z[...] = np.arange(24.0).reshape(2, 3, 4)


def test_a_zarr_v3_store_names_the_axes_and_every_view_keeps_them(tmp_path: Path) -> None:
    _zarr_v3(tmp_path / "a.zarr", ("trial", "channel", "time"))
    t = lt.open(tmp_path / "a.zarr")
    assert t.names == ("trial", "channel", "time")
    assert t.permute(2, 0, 1)[:, 1].names == ("time", "channel")
    assert lt.from_array(zarr.open_array(str(tmp_path / "a.zarr"), mode="r")).names == t.names


def test_zarr_dimension_names_may_leave_some_axes_unnamed(tmp_path: Path) -> None:
    _zarr_v3(tmp_path / "a.zarr", ("trial", None, "time"))
    assert lt.open(tmp_path / "a.zarr").names == ("trial", None, "time")
    _zarr_v3(tmp_path / "b.zarr", None)
    b = lt.open(tmp_path / "b.zarr")
    assert b.names == (None, None, None) and not b.base.names_used


def test_names_given_to_open_win_over_the_stores(tmp_path: Path) -> None:
    _zarr_v3(tmp_path / "a.zarr", ("trial", "channel", "time"))
    assert lt.open(tmp_path / "a.zarr", names=("a", "b", "c")).names == ("a", "b", "c")
    with pytest.raises(ValueError, match="give 2 names for the 3 axes"):
        lt.open(tmp_path / "a.zarr", names=("a", "b"))


def test_a_zarr_v2_array_written_by_xarray_names_its_axes(tmp_path: Path) -> None:
    z = zarr.create_array(
        str(tmp_path / "v2.zarr"),
        shape=(2, 3),
        chunks=(2, 3),
        dtype="i4",
        zarr_format=2,
        attributes={"_ARRAY_DIMENSIONS": ["y", "x"]},
    )
    z[...] = 1
    assert lt.open(tmp_path / "v2.zarr").names == ("y", "x")


def test_a_file_naming_an_axis_twice_keeps_the_first(tmp_path: Path) -> None:
    _zarr_v3(tmp_path / "a.zarr", ("trial", "trial", ""))
    assert lt.open(tmp_path / "a.zarr").names == ("trial", None, None)


def test_an_xarray_dataarray_gives_its_dims_in_memory_and_over_dask() -> None:
    a = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("trial", "time"))
    assert lt.from_array(a).names == ("trial", "time")
    assert lt.from_array(a.chunk({"trial": 1})).names == ("trial", "time")
    assert lt.from_array(a, names=("x", None)).names == ("x", None)


def test_an_hdf5_dataset_gives_its_dimension_labels_and_scales(tmp_path: Path) -> None:
    path = tmp_path / "f.h5"
    with h5py.File(path, "w") as f:
        data = f.create_dataset("data", data=np.zeros((2, 3, 4)))
        data.dims[0].label = "trial"
        f.create_dataset("time", data=np.arange(4.0))
        f["time"].make_scale("time")
        data.dims[2].attach_scale(f["time"])
        f.create_dataset("plain", data=np.zeros(2))
    assert lt.open(path, "data").names == ("trial", None, "time")
    assert lt.open(path, "plain").names == (None,)


def test_a_netcdf_variable_gives_its_dimensions(tmp_path: Path) -> None:
    path = tmp_path / "f.nc"
    xr.Dataset({"v": (("trial", "time"), np.zeros((2, 3)))}).to_netcdf(path, engine="h5netcdf")
    assert lt.open(path).names == ("trial", "time")
    with h5py.File(path, "r") as f:  # netCDF-4 on HDF5: the dimensions are scales h5py sees
        assert lt.from_array(f["v"]).names == ("trial", "time")


def test_save_to_zarr_writes_the_names_back(tmp_path: Path) -> None:
    t = lt.arange(24.0).reshape(2, 3, 4).rename("trial", None, "time").permute(2, 0, 1)
    lt.save(tmp_path / "t.zarr", t)
    metadata = json.loads((tmp_path / "t.zarr" / "zarr.json").read_text())
    assert metadata["dimension_names"] == ["time", "trial", None]
    back = lt.open(tmp_path / "t.zarr")
    assert back.names == ("time", "trial", None)
    assert back.tolist() == t.tolist()
    lt.save(tmp_path / "t.zarr", lt.zeros(2))  # replaces the store; no names, none written
    metadata = json.loads((tmp_path / "t.zarr" / "zarr.json").read_text())
    assert metadata.get("dimension_names") is None
    assert lt.open(tmp_path / "t.zarr").tolist() == [0.0, 0.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.zarr"]  # no temporary left behind


def test_npy_keeps_no_names_but_load_takes_them(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    lt.save(path, lt.zeros(2, 3, names=("row", "col")))
    assert lt.load(path).names == (None, None)
    assert lt.load(path, names=("row", "col")).names == ("row", "col")
    assert lt.open(path, names=("row", None)).names == ("row", None)
    np.save(tmp_path / "f.npy", np.asfortranarray(np.zeros((2, 3))))
    fortran = lt.load(tmp_path / "f.npy", names=("row", "col"))  # a transposed view of its storage
    assert fortran.names == ("row", "col") and fortran.shape == (2, 3)

"""Tensors of given values on every kind of base, for tests that run the same operation on each.

`on_base(kind, values, folder)` gives a tensor whose values are `values` and whose base is of
`kind`: numpy storage, a memory-mapped `.npy` file, a zarr array, a dask array, a real h5py
dataset, an xarray DataArray read lazily from a netCDF file, or a minimal array-like with
nothing but `shape`, `dtype` and `__getitem__` (counting its requests). Chunked kinds get small
chunks (2 along each axis), so every operation crosses chunk borders.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import dask.array as da
import h5py
import numpy as np
import xarray as xr
import zarr

import lazytensor as lt

KINDS = ("numpy", "mmap", "zarr", "dask", "h5py", "xarray", "getitem")
"""Every kind of base a tensor can stand on."""

_names = itertools.count()


class Plain:
    """An array-like with nothing but `shape`, `dtype` and `__getitem__` (and `__setitem__`), as
    h5py's datasets; it counts its read requests and its writes."""

    def __init__(self, array: np.ndarray, chunks: tuple[int, ...] | None = None) -> None:
        self.array = array
        self.shape = array.shape
        self.dtype = array.dtype
        if chunks is not None:
            self.chunks = chunks
        self.requests = 0
        self.writes = 0

    def __getitem__(self, key: Any) -> np.ndarray:
        self.requests += 1
        return np.array(self.array[key])

    def __setitem__(self, key: Any, value: Any) -> None:
        self.writes += 1
        self.array[key] = value


def chunks_of(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Two elements along each axis (one for an axis of size 0 or 1)."""
    return tuple(max(1, min(2, size)) for size in shape)


def on_base(kind: str, values: np.ndarray, folder: Path) -> lt.AbstractTensor:
    """A tensor of `values` on a base of `kind`; files go into `folder`."""
    values = np.asarray(values)
    name = f"a{next(_names)}"
    if kind == "numpy":
        return lt.tensor(values)
    if kind == "mmap":
        lt.save(folder / f"{name}.npy", lt.tensor(values))
        return lt.load(folder / f"{name}.npy")
    if kind == "zarr":
        array = zarr.create_array(
            store={}, shape=values.shape, chunks=chunks_of(values.shape), dtype=values.dtype
        )
        array[...] = values
        return lt.from_array(array)
    if kind == "dask":
        return lt.from_array(da.from_array(values, chunks=chunks_of(values.shape)))
    if kind == "h5py":
        file = h5py.File(folder / f"{name}.h5", "w")
        chunked = values.ndim > 0 and values.size > 0
        file.create_dataset("data", data=values, chunks=chunks_of(values.shape) if chunked else None)
        return lt.from_array(file["data"])
    if kind == "xarray":
        path = folder / f"{name}.nc"
        xr.DataArray(values, name="data").to_netcdf(path, engine="h5netcdf")
        return lt.from_array(xr.open_dataarray(path, engine="h5netcdf", cache=False))
    if kind == "getitem":
        return lt.from_array(Plain(values.copy()))
    raise ValueError(f"no base kind {kind!r}; the kinds are {KINDS}")

"""Time reading gzip-compressed HDF5 datasets through `lt.open` against h5py reading them directly.

`lt.open` checks, before HDF5 decodes them, that the deflate chunks a read touches do not inflate
past their declared size: a chunk that could is inflated once (bounded, in pieces), and the chunks
checked are remembered, so the first read of a chunk costs about a second inflate and later reads
of it almost nothing. Each case prints the first read's time (a fresh `lt.open`), a repeated read's,
and h5py's (xarray's for netCDF), with their ratios. The files are made in a temporary directory.
Run: `.venv/bin/python benchmarks/bench_hdf5.py`.
"""

from __future__ import annotations

import functools
import pathlib
import tempfile
import time
from collections.abc import Callable
from typing import Any

import h5netcdf
import h5py
import numpy as np
import xarray as xr

import lazytensor as lt

CASES = [
    # (name, shape, chunks, shuffle)
    ("gzip, 256x256 chunks", (2048, 2048), (256, 256), False),
    ("gzip+shuffle, 64x64 chunks", (2048, 2048), (64, 64), True),
    ("gzip, 1-row chunks", (20_000, 64), (1, 64), False),
    ("netCDF gzip, 256x256 chunks", (2048, 2048), (256, 256), False),
]
REPEATS = 5


def _best(run: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def _direct(path: pathlib.Path) -> None:
    if path.suffix == ".nc":
        with xr.open_dataset(path, engine="h5netcdf", cache=False) as ds:
            ds["x"].to_numpy()
        return
    with h5py.File(path, "r") as f:
        f["x"][...]


def _first(path: pathlib.Path) -> None:
    t = lt.open(path, mode="r")
    t.numpy()
    if path.suffix != ".nc":
        t.base.array.file.close()


def main() -> None:
    folder = pathlib.Path(tempfile.mkdtemp())
    rng = np.random.default_rng(0)
    print(f"{'case':32} {'h5py':>9} {'lt first':>9} {'ratio':>6} {'lt again':>9} {'ratio':>6}")
    for name, shape, chunks, shuffle in CASES:
        netcdf = name.startswith("netCDF")
        path = folder / f"{name.split(',')[0].replace('+', '_').replace(' ', '_')}-{chunks[0]}"
        path = path.with_suffix(".nc" if netcdf else ".h5")
        values = np.round(rng.normal(size=shape), 2)  # compresses, as measured data does
        if netcdf:
            with h5netcdf.File(path, "w") as f:
                f.dimensions = {"a": shape[0], "b": shape[1]}
                f.create_variable("x", ("a", "b"), "f8", chunks=chunks, compression="gzip")[...] = values
        else:
            with h5py.File(path, "w") as f:
                f.create_dataset("x", data=values, chunks=chunks, compression="gzip", shuffle=shuffle)

        again = lt.open(path, mode="r")
        again.numpy()
        plain, fresh = _best(functools.partial(_direct, path)), _best(functools.partial(_first, path))
        repeated = _best(again.numpy)
        print(
            f"{name:32} {plain * 1e3:7.1f}ms {fresh * 1e3:7.1f}ms {fresh / plain:6.2f} "
            f"{repeated * 1e3:7.1f}ms {repeated / plain:6.2f}"
        )


if __name__ == "__main__":
    main()

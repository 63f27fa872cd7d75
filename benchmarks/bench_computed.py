"""Computed tensors: an expression over a 4 GB store against the same view of the store.

On a zarr store and an HDF5 file of 10⁹ float32 (a fill value in 4 MB chunks: nothing written, so
they cost nothing on disk; made in a temporary directory, deleted after), each case runs in a child
process, which reports its time (best of a few) and its peak resident memory:

1. `(t * 2 + 1)[5, :10]` against `t[5, :10] * 2 + 1` [goal: within 2× the time and the memory];
2. printing `np.log(abs(t) + 1)` against printing `t` [goal: at most 1.5×].

Needs the extras: `pip install -e '.[zarr,h5py]'`. Run: `.venv/bin/python benchmarks/bench_computed.py`.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

import h5py
import numpy as np
import zarr

import lazytensor as lt

SHAPE = (10_000, 100_000)
CHUNKS = (100, 10_000)
CASES = {
    "(t * 2 + 1)[5, :10]": ("t[5, :10] * 2 + 1", 2.0),
    "print np.log(abs(t) + 1)": ("print t", 1.5),
}
"""Each measured case, the baseline it is held against, and the goal for the ratio."""


def _run(case: str, t: lt.AbstractTensor) -> None:
    if case == "(t * 2 + 1)[5, :10]":
        (t * 2 + 1)[5, :10].numpy()
    elif case == "t[5, :10] * 2 + 1":
        (t[5, :10] * 2 + 1).numpy()
    elif case == "print np.log(abs(t) + 1)":
        str(np.log(abs(t) + 1))
    elif case == "print t":
        str(t)


def _open(kind: str, folder: Path) -> lt.AbstractTensor:
    if kind == "zarr":
        return lt.open(folder / "t.zarr")
    return lt.open(folder / "t.h5", "t")


def _make(folder: Path) -> None:
    zarr.create_array(store=str(folder / "t.zarr"), shape=SHAPE, chunks=CHUNKS, dtype="f4", fill_value=1.5)
    with h5py.File(folder / "t.h5", "w") as f:
        f.create_dataset("t", shape=SHAPE, chunks=CHUNKS, dtype="f4", fillvalue=1.5)


def child(kind: str, case: str, folder: Path) -> None:
    """One case in this process: prints its best time (s) and this process's peak memory (MB)."""
    t = _open(kind, folder)
    best = min(timeit.repeat(lambda: _run(case, t), number=1, repeat=10))
    print(best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def measure(kind: str, case: str, folder: Path) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, case, str(folder)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        _make(folder)
        print(f"stores of {SHAPE} float32 ({np.prod(SHAPE) * 4 / 1e9:.0f} GB), chunks {CHUNKS}")
        for kind in ("zarr", "hdf5"):
            for case, (baseline, goal) in CASES.items():
                ours, ours_mb = measure(kind, case, folder)
                theirs, theirs_mb = measure(kind, baseline, folder)
                print(
                    f"{kind:5s} {case:26s} {ours * 1e3:8.1f} ms {ours_mb:6.0f} MB   {baseline:20s} "
                    f"{theirs * 1e3:8.1f} ms {theirs_mb:6.0f} MB   time {ours / theirs:4.2f}× "
                    f"memory {ours_mb / theirs_mb:4.2f}× (goal: at most {goal}×)"
                )
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], Path(sys.argv[4]))
    else:
        main()

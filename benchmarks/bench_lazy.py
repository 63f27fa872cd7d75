"""Bases bigger than memory: reductions that stream, timed with their peak memory (issue #40).

The script writes a float32 array of `--gb` gigabytes (rows of 10⁴ values, chunks of 100 rows:
4 MB) as a zarr store and as a chunked HDF5 file in a temporary directory (deleted after), and runs
each row in a child process of its own, which opens the store, runs the expression once and reports
its wall time, its CPU time and its peak resident memory while the expression ran (Linux's VmHWM,
reset just before it; the resident memory of the interpreter and its imports is shown apart as "at
start", and "added" is the peak less that: what the expression itself held).

Rows, on each format: `t.sum()`, `t.stats()` [goal: at most 1.3× the time of `t.sum()` and 2× its
peak memory], `t.mean(0)`, `(t - t.mean(0)).std(0)` [goal: peak memory under 300 MB].

Run: `.venv/bin/python benchmarks/bench_lazy.py` (0.25 GB, about a minute), `--gb N`, `--full`
(the issue's 4 GB), `--dir DIR` (where the temporary directory goes).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np
import zarr

import lazytensor as lt

COLUMNS = 10_000
CHUNK_ROWS = 100  # 4 MB chunks of float32
ROWS = ("t.sum()", "t.stats()", "t.mean(0)", "(t - t.mean(0)).std(0)")
GOALS = {"t.stats()": "≤ 1.3× time, ≤ 2× memory", "(t - t.mean(0)).std(0)": "peak < 300 MB"}

CHILD = """
import json, sys, time
import h5py
import lazytensor as lt

def status(field):
    with open("/proc/self/status") as file:
        return next(int(line.split()[1]) * 1024 for line in file if line.startswith(field))

path, kind, expression = sys.argv[1], sys.argv[2], sys.argv[3]
t = lt.open(path) if kind == "zarr" else lt.from_array(h5py.File(path, "r")["data"])
with open("/proc/self/clear_refs", "w") as file:  # the peak (VmHWM) starts again from here
    file.write("5")
start = status("VmRSS:")
wall, cpu = time.perf_counter(), time.process_time()
result = eval(expression)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu, "peak": status("VmHWM:"), "start": start}))
"""


def write_stores(folder: Path, gigabytes: float) -> dict[str, Path]:
    """The same random float32 values as a zarr store and a chunked HDF5 file, written in slabs."""
    rows = max(CHUNK_ROWS, int(gigabytes * 1e9 / 4 / COLUMNS) // CHUNK_ROWS * CHUNK_ROWS)
    zpath, hpath = folder / "t.zarr", folder / "t.h5"
    z = zarr.create_array(zpath, shape=(rows, COLUMNS), chunks=(CHUNK_ROWS, COLUMNS), dtype="float32")
    rng = np.random.default_rng(0)
    with h5py.File(hpath, "w") as file:
        h = file.create_dataset("data", shape=(rows, COLUMNS), chunks=(CHUNK_ROWS, COLUMNS), dtype="float32")
        for start in range(0, rows, 10 * CHUNK_ROWS):
            slab = rng.standard_normal((min(10 * CHUNK_ROWS, rows - start), COLUMNS), dtype=np.float32)
            z[start : start + len(slab)] = slab
            h[start : start + len(slab)] = slab
    return {"zarr": zpath, "hdf5": hpath}


def run_child(path: Path, kind: str, expression: str) -> dict[str, float]:
    """One expression in a fresh interpreter: wall and CPU seconds, peak and starting RSS in bytes."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), kind, expression],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, LAZYTENSOR_PROGRESS="0"),
    )
    measured: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def table(stores: dict[str, Path], gigabytes: float) -> None:
    versions = f"numpy {np.__version__}, zarr {zarr.__version__}, h5py {h5py.__version__}"
    print(f"lazytensor from {Path(lt.__file__).parent}, {versions}")
    print(f"{platform.machine()}, {platform.system()}, {_cores()} cores; float32 array of {gigabytes:g} GB")
    print()
    header = (
        f"{'format':6} {'expression':24} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'at start':>8} "
        f"{'added':>6}  ratio vs t.sum() (wall, cpu, added memory)"
    )
    print(header)
    print("-" * len(header))
    for kind, path in stores.items():
        sums: dict[str, float] = {}
        for expression in ROWS:
            m = run_child(path, kind, expression)
            ratio = ""
            m["added"] = m["peak"] - m["start"]
            if expression == "t.sum()":
                sums = m
            elif expression == "t.stats()":
                ratio = " ".join(f"{m[k] / max(sums[k], 1e-9):.2f}×" for k in ("wall", "cpu", "added"))
            goal = f"  [goal {GOALS[expression]}]" if expression in GOALS else ""
            print(
                f"{kind:6} {expression:24} {m['wall']:7.2f} {m['cpu']:7.2f} {m['peak'] / 1e6:8.0f} "
                f"{m['start'] / 1e6:8.0f} {m['added'] / 1e6:6.0f}  {ratio}{goal}".rstrip()
            )


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--gb", type=float, default=0.25, help="size of the array in GB (default 0.25)")
    parser.add_argument("--full", action="store_true", help="the issue's 4 GB")
    parser.add_argument("--dir", type=Path, default=None, help="where the temporary stores go")
    args = parser.parse_args()
    gigabytes = 4.0 if args.full else args.gb
    folder = Path(tempfile.mkdtemp(prefix="bench_lazy_", dir=args.dir))
    try:
        started = time.perf_counter()
        stores = write_stores(folder, gigabytes)
        print(f"stores written in {time.perf_counter() - started:.1f} s")
        table(stores, gigabytes)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

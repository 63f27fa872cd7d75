"""Bases bigger than memory: issue #40's table, each row timed with its peak memory.

The script writes a float32 array of `--gb` gigabytes (rows of 10⁴ values, chunks of 100 rows:
4 MB, random normal values) as a zarr store and as a chunked HDF5 file in a temporary directory
(deleted after, with everything the rows write), and runs each row in a child process of its
own, which opens the store (`lt.open`), runs the row's code and reports its wall time, its CPU
time and its peak resident memory while the code ran (Linux's VmHWM, reset just before it; the
resident memory of the interpreter, its imports and the opened store is shown apart as "at
start", and "added" is the peak less that: what the code itself held). A row that takes less
than half a second is run again, up to ten times in all, and its best time is shown (`t.sum()`
three times at least, and a row is run at least as often as the row it is held against); its peak
covers every run.

The rows, on each format, with the goals of issue #40:

- `(t * 2 + 1)[5, :10]` against `t[5, :10] * 2 + 1`: within 2× the time and the peak memory;
- printing `np.log(abs(t) + 1)` against printing `t`: at most 1.5× the time;
- `t.stats()` against `t.sum()`: at most 1.3× the wall time and 2× the added memory;
- `(t - t.mean(0)).std(0)`: peak memory under 300 MB;
- `lt.save` of `np.log(abs(t) + 1)` to a zarr store and to a `.npy` file: peak under 300 MB;
- then, in memory, `a * 2 + b - c / 3` at 10⁷ float64 under `lt.lazy()` against numpy and PyTorch:
  peak at most 1.25 result sizes, time at most numpy's (`benchmarks/bench_chain.py`).

A ratio of small reads is taken on the whole peak (what such a read adds is a few hundred kB, the
noise of page faults); `t.stats()` against `t.sum()` on the memory each added. Each row prints its
goal and whether it is met. Wall times on a shared machine move with its other work; CPU times
and memory are steadier.

Needs the extras: `pip install -e '.[zarr,h5py]'`. Run: `.venv/bin/python benchmarks/bench_lazy.py`
(0.25 GB, about a minute), `--gb N`, `--full` (the issue's 4 GB), `--dir DIR` (where the temporary
directory goes: it needs about three times the array's size), `--format zarr|hdf5` (one only).
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
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
import zarr

import lazytensor as lt

COLUMNS = 10_000
CHUNK_ROWS = 100  # 4 MB chunks of float32
EXPRESSION = "np.log(abs(t) + 1)"


@dataclass(frozen=True)
class Goal:
    """What a row must meet: a ratio to another row (`against`) or a ceiling on its peak."""

    text: str
    against: str | None = None  # the label of the row the ratios are taken to
    time: float | None = None  # at most this × the other row's wall time
    memory: float | None = None  # at most this × the other row's memory
    memory_field: str = "peak"  # which memory the ratio takes: "peak" or "added"
    peak_mb: float | None = None  # a peak below this many MB (1e6 bytes)


@dataclass(frozen=True)
class Row:
    """One line of the table: `code` is run (exec) in a child process after `setup`, with `t` the
    opened tensor (None for rows in memory), `out` a folder for what it writes, numpy as `np` and
    lazytensor as `lt`; only `code` is timed and measured."""

    label: str
    code: str
    goal: Goal | None = None
    setup: str = ""
    runs: int = 1  # run at least this often (and a row under half a second up to 10 times)


ROWS: tuple[Row, ...] = (
    Row("t[5, :10] * 2 + 1", "(t[5, :10] * 2 + 1).numpy()"),
    Row(
        "(t * 2 + 1)[5, :10]",
        "(t * 2 + 1)[5, :10].numpy()",
        Goal("≤ 2× time and peak", against="t[5, :10] * 2 + 1", time=2.0, memory=2.0),
    ),
    Row("print t", "str(t)"),
    Row(f"print {EXPRESSION}", f"str({EXPRESSION})", Goal("≤ 1.5× time", against="print t", time=1.5)),
    Row("t.sum()", "t.sum()", runs=3),
    Row(
        "t.stats()",
        "t.stats()",
        Goal("≤ 1.3× time, ≤ 2× added", against="t.sum()", time=1.3, memory=2.0, memory_field="added"),
    ),
    Row("t.mean(0)", "t.mean(0).numpy()"),
    Row("(t - t.mean(0)).std(0)", "(t - t.mean(0)).std(0).numpy()", Goal("peak < 300 MB", peak_mb=300)),
    Row(
        f"lt.save(out / 'e.zarr', {EXPRESSION})",
        f"lt.save(out / 'e.zarr', {EXPRESSION})",
        Goal("peak < 300 MB", peak_mb=300),
    ),
    Row(
        f"lt.save(out / 'e.npy', {EXPRESSION})",
        f"lt.save(out / 'e.npy', {EXPRESSION})",
        Goal("peak < 300 MB", peak_mb=300),
    ),
)
"""The rows run on each format, in this order (a row's `against` runs before it)."""


CHILD = """
import json, sys, time
from pathlib import Path
import numpy as np
import lazytensor as lt

def status(field):
    with open("/proc/self/status") as file:
        return next(int(line.split()[1]) * 1024 for line in file if line.startswith(field))

path, kind, out, setup, code, least = sys.argv[1:7]
out, least = Path(out), int(least)
t = None if kind == "memory" else lt.open(path) if kind == "zarr" else lt.open(path, "data")
exec(setup)
compiled = compile(code, "<row>", "exec")
with open("/proc/self/clear_refs", "w") as file:  # the peak (VmHWM) starts again from here
    file.write("5")
start = status("VmRSS:")
walls, cpus = [], []
while len(walls) < least or (len(walls) < 10 and min(walls) < 0.5):
    wall, cpu = time.perf_counter(), time.process_time()
    exec(compiled)
    walls.append(time.perf_counter() - wall)
    cpus.append(time.process_time() - cpu)
peak = status("VmHWM:")
print(json.dumps({"wall": min(walls), "cpu": min(cpus), "runs": len(walls), "peak": peak, "start": start}))
"""


def write_stores(folder: Path, gigabytes: float, kinds: tuple[str, ...]) -> dict[str, Path]:
    """The same random float32 values as a zarr store and a chunked HDF5 file, written in slabs."""
    rows = max(CHUNK_ROWS, int(gigabytes * 1e9 / 4 / COLUMNS) // CHUNK_ROWS * CHUNK_ROWS)
    paths = {"zarr": folder / "t.zarr", "hdf5": folder / "t.h5"}
    z = zarr.create_array(paths["zarr"], shape=(rows, COLUMNS), chunks=(CHUNK_ROWS, COLUMNS), dtype="float32")
    rng = np.random.default_rng(0)
    with h5py.File(paths["hdf5"], "w") as file:
        h = file.create_dataset("data", shape=(rows, COLUMNS), chunks=(CHUNK_ROWS, COLUMNS), dtype="float32")
        for start in range(0, rows, 10 * CHUNK_ROWS):
            slab = rng.standard_normal((min(10 * CHUNK_ROWS, rows - start), COLUMNS), dtype=np.float32)
            if "zarr" in kinds:
                z[start : start + len(slab)] = slab
            if "hdf5" in kinds:
                h[start : start + len(slab)] = slab
    return {kind: paths[kind] for kind in kinds}


def run_child(path: Path | None, kind: str, row: Row, out: Path, least: int = 1) -> dict[str, float]:
    """One row in a fresh interpreter, run at least `least` times: its best wall and CPU seconds, how
    many runs, and its peak and starting RSS in bytes."""
    out.mkdir(exist_ok=True)
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), kind, str(out), row.setup, row.code, str(least)],
            capture_output=True,
            text=True,
            env=_child_environment(),
        )
    finally:
        shutil.rmtree(out, ignore_errors=True)  # what the row wrote
    if done.returncode:
        raise RuntimeError(f"{kind} {row.label} failed:\n{done.stderr[-3000:]}")
    measured: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    measured["added"] = measured["peak"] - measured["start"]
    return measured


def _child_environment() -> dict[str, str]:
    """This environment, with progress lines off and the lazytensor this script imported first."""
    found = str(Path(lt.__file__).resolve().parent.parent)
    paths = [found, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return dict(os.environ, LAZYTENSOR_PROGRESS="0", PYTHONPATH=os.pathsep.join(paths))


def verdict(goal: Goal | None, m: dict[str, float], done: dict[str, dict[str, float]]) -> str:
    """The row's ratios to the row it is held against, its goal, and whether it is met."""
    if goal is None:
        return ""
    shown, met = [], True
    if goal.against is not None:
        other = done[goal.against]
        time_ratio = m["wall"] / max(other["wall"], 1e-9)
        memory_ratio = m[goal.memory_field] / max(other[goal.memory_field], 1.0)
        cpu_ratio = m["cpu"] / max(other["cpu"], 1e-9)
        shown.append(
            f"{time_ratio:.2f}× wall ({cpu_ratio:.2f}× cpu), {memory_ratio:.2f}× {goal.memory_field}"
        )
        met &= goal.time is None or time_ratio <= goal.time
        met &= goal.memory is None or memory_ratio <= goal.memory
    if goal.peak_mb is not None:
        met &= m["peak"] / 1e6 < goal.peak_mb
    ratios = f"{shown[0]}; " if shown else ""
    return f"{ratios}goal {goal.text}: {'met' if met else 'MISSED'}"


def print_rows(path: Path | None, kind: str, rows: tuple[Row, ...], folder: Path) -> None:
    done: dict[str, dict[str, float]] = {}
    for row in rows:
        against = row.goal.against if row.goal else None
        least = max(row.runs, int(done[against]["runs"]) if against else 1)
        m = run_child(path, kind, row, folder / "out", least)
        done[row.label] = m
        runs = f"{m['wall']:6.3f}" if m["runs"] == 1 else f"{m['wall']:6.3f}*"
        print(
            f"{kind:6} {row.label:44} {runs:>8} {m['cpu']:7.3f} {m['peak'] / 1e6:7.0f} "
            f"{m['start'] / 1e6:8.0f} {m['added'] / 1e6:6.0f}  {verdict(row.goal, m, done)}".rstrip(),
            flush=True,
        )


def table(stores: dict[str, Path], gigabytes: float, folder: Path) -> None:
    versions = f"numpy {np.__version__}, zarr {zarr.__version__}, h5py {h5py.__version__}"
    print(f"lazytensor from {Path(lt.__file__).parent}, {versions}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{platform.machine()}, {platform.system()}, {_cores()} cores, load average {load} at the start")
    print(f"float32 array of {gigabytes:g} GB, chunks ({CHUNK_ROWS}, {COLUMNS}) of 4 MB")
    print("* = the best of up to 10 runs (a row held against another runs at least as often)")
    print()
    header = (
        f"{'format':6} {'row':44} {'wall s':>8} {'cpu s':>7} {'peak MB':>7} {'at start':>8} {'added':>6}  "
        "ratio to the row it is held against; goal"
    )
    print(header)
    print("-" * len(header))
    for kind, path in stores.items():
        print_rows(path, kind, ROWS, folder)
    print(flush=True)
    chain = Path(__file__).with_name("bench_chain.py")  # the in-memory chain of item 6, lt.lazy()
    subprocess.run([sys.executable, str(chain)], check=True)
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--gb", type=float, default=0.25, help="size of the array in GB (default 0.25)")
    parser.add_argument("--full", action="store_true", help="the issue's 4 GB")
    parser.add_argument("--dir", type=Path, default=None, help="where the temporary stores go")
    parser.add_argument("--format", choices=("zarr", "hdf5"), help="only this format")
    args = parser.parse_args()
    gigabytes = 4.0 if args.full else args.gb
    kinds = (args.format,) if args.format else ("zarr", "hdf5")
    folder = Path(tempfile.mkdtemp(prefix="bench_lazy_", dir=args.dir))
    try:
        started = time.perf_counter()
        stores = write_stores(folder, gigabytes, kinds)
        print(f"stores written in {time.perf_counter() - started:.1f} s")
        table(stores, gigabytes, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

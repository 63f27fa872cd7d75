"""Per-call cost on a 10×10 float64 tensor: numpy, PyTorch (when installed) and lazytensor side by side.

Run: python benchmarks/bench_percall.py [--samples N]
What is timed is the path from one call to the result: views, an element read, small operations,
a list gather, a matmul. Each cell is the best of interleaved samples (every library timed in turn,
round after round, so a busy moment of the machine hits all of them alike), in µs per call. PyTorch
runs on one thread (`torch.set_num_threads(1)`): at this size threads only cost. Without PyTorch
(`pip install -e '.[bench]'`, see docs/performance.md) its column is skipped with a note and the
goals against numpy still decide each row.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import lazytensor as lt

try:
    import torch
except ImportError:  # the PyTorch column is optional
    torch = None


class Row(NamedTuple):
    """One call, written once and run on each library's 10×10 tensor, with its goals (None: no goal)."""

    name: str
    call: Callable[[Any], object]
    vs_torch: float | None
    vs_numpy: float | None


ROWS = (
    Row("t.T", lambda t: t.T, 1.0, 8.0),
    Row("t[1:5, ::2]", lambda t: t[1:5, ::2], 1.0, 8.0),
    Row("t.reshape(20, 5)", lambda t: t.reshape(20, 5), 1.0, 8.0),
    Row("t[3, 4]", lambda t: t[3, 4], 0.5, 8.0),
    Row("t + t", lambda t: t + t, 1.0, 4.0),
    Row("t.sum()", lambda t: t.sum(), 1.0, 1.5),
    Row("t.T + t", lambda t: t.T + t, 1.0, 2.0),
    Row("t[[1, 2, 3]]", lambda t: t[[1, 2, 3]], 1.0, 4.0),
    Row("t @ t", lambda t: t @ t, 1.0, None),
)


def per_call(fn: Callable[[], object], number: int) -> float:
    """µs per call over one sample of `number` calls."""
    return timeit.timeit(fn, number=number) / number * 1e6


def number_for(fn: Callable[[], object]) -> int:
    """Calls per sample so that one sample takes about 20 ms."""
    number = 1
    while timeit.timeit(fn, number=number) < 0.02:
        number *= 2
    return number


def measure(tensors: dict[str, Any], rows: list[Row], samples: int) -> dict[str, dict[str, float]]:
    """For every row and library, the best µs per call of `samples` interleaved samples."""
    best: dict[str, dict[str, float]] = {row.name: {} for row in rows}
    calls = {
        (row.name, lib): (lambda call=row.call, t=t: call(t)) for row in rows for lib, t in tensors.items()
    }
    numbers = {key: number_for(fn) for key, fn in calls.items()}
    for _ in range(samples):
        for (name, lib), fn in calls.items():
            took = per_call(fn, numbers[name, lib])
            best[name][lib] = min(took, best[name].get(lib, took))
    return best


def mark(ratio: float | None, goal: float | None) -> str:
    if ratio is None or goal is None:
        return "  "
    return "ok" if ratio <= goal else "NO"


def cell(ratio: float | None, goal: float | None) -> str:
    if ratio is None:
        return f"{'-':>21}"
    limit = f"≤ {goal:g}×" if goal is not None else "no goal"
    return f"{ratio:6.2f}× {mark(ratio, goal)} ({limit:>7})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=15, help="interleaved samples per cell (best kept)")
    parser.add_argument(
        "--only", action="append", help="time only this row (repeatable), e.g. --only 't + t'"
    )
    args = parser.parse_args(argv)
    rows = [row for row in ROWS if not args.only or row.name in args.only]
    values = np.random.default_rng(0).random((10, 10))
    tensors: dict[str, Any] = {"numpy": values.copy()}
    if torch is None:
        print("PyTorch is not installed: its column is skipped (pip install -e '.[bench]')")
    else:
        torch.set_num_threads(1)
        tensors["torch"] = torch.from_numpy(values.copy())
    tensors["lazytensor"] = lt.from_numpy(values.copy())
    best = measure(tensors, rows, args.samples)
    torch_head = f"{'torch µs':>9} " if torch is not None else ""
    ratio_head = f"{'lt / torch':>21} " if torch is not None else ""
    print(f"{'call':<18} {'numpy µs':>9} {torch_head}{'lt µs':>9}  {ratio_head}{'lt / numpy':>21}")
    missed = 0
    for row in rows:
        times = best[row.name]
        ours, numpy_time = times["lazytensor"], times["numpy"]
        vs_numpy = ours / numpy_time
        line = f"{row.name:<18} {numpy_time:9.2f} "
        if torch is not None:
            vs_torch = ours / times["torch"]
            line += f"{times['torch']:9.2f} {ours:9.2f}  {cell(vs_torch, row.vs_torch)} "
            missed += mark(vs_torch, row.vs_torch) == "NO"
        else:
            line += f"{ours:9.2f}  "
        line += cell(vs_numpy, row.vs_numpy)
        missed += mark(vs_numpy, row.vs_numpy) == "NO"
        print(line)
    print(f"goals missed: {missed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Bulk work side by side in one process: numpy, PyTorch (its default threads) and lazytensor.

    .venv/bin/python benchmarks/bench_bulk.py [--sizes 6 7] [--repeat 9] [--threads N]

Rows: the broadcast add `(n, 1) + (1, n)`, the elementwise chain `a * 2 + b`, and `sum`, `mean`, `max`
along each axis of a 2-D float64 array and over all of it, at about 10**6 and 10**7 elements. Samples
are interleaved (numpy, PyTorch, lazytensor, numpy, ...) so a busy neighbour slows all three alike,
and each column keeps its best sample. PyTorch is an optional extra (`pip install -e .[bench]`):
without it its column is skipped with a note. Every row also checks that the three agree.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import lazytensor as lt

try:
    import torch
except ImportError:  # the optional extra is not installed: two columns
    torch = None

Case = tuple[str, Callable[[], Any], Callable[[], Any] | None, Callable[[], Any]]
"""A row: its name, then the numpy, PyTorch (or None) and lazytensor calls."""


def cases(n: int) -> list[Case]:
    """The rows for a square float64 side `n` (n * n elements)."""
    rng = np.random.default_rng(n)
    column, row = rng.random((n, 1)), rng.random((1, n))
    a, b = rng.random((n, n)), rng.random((n, n))
    la, lb, lc, lr = (lt.from_numpy(x) for x in (a, b, column, row))
    ta = tb = tc = tr = None
    if torch is not None:
        ta, tb, tc, tr = (torch.from_numpy(x) for x in (a, b, column, row))
    rows: list[Case] = [
        ("(n,1) + (1,n)", lambda: column + row, torch and (lambda: tc + tr), lambda: lc + lr),
        ("a * 2 + b", lambda: a * 2 + b, torch and (lambda: ta * 2 + tb), lambda: la * 2 + lb),
    ]
    for name in ("sum", "mean", "max"):
        for axis in (0, 1, None):
            label = f"{name}({'' if axis is None else f'axis={axis}'})"
            rows.append(
                (
                    label,
                    _numpy_call(a, name, axis),
                    torch and _torch_call(ta, name, axis),
                    _numpy_call(la, name, axis),
                )
            )
    return rows


def _numpy_call(x: Any, name: str, axis: int | None) -> Callable[[], Any]:
    method = getattr(x, name)
    return lambda: method() if axis is None else method(axis)


def _torch_call(x: Any, name: str, axis: int | None) -> Callable[[], Any]:
    if name == "max" and axis is not None:  # torch's max along an axis also returns the indices
        return lambda: x.amax(axis)
    method = getattr(x, name)
    return lambda: method() if axis is None else method(axis)


def _as_numpy(value: Any) -> Any:
    if torch is not None and isinstance(value, torch.Tensor):
        return value.numpy()
    return np.asarray(value)


def check(case: Case) -> None:
    """Raise if the columns of a row disagree beyond the reassociation of float sums."""
    name, *calls = case
    expected = _as_numpy(calls[0]())
    for call in calls[1:]:
        if call is None:
            continue
        got = _as_numpy(call())
        if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-12, atol=0):
            raise AssertionError(f"{name}: results differ")


def calls_per_sample(call: Callable[[], Any], target: float = 0.02) -> int:
    """How many calls make one sample last about `target` seconds (at least one)."""
    start = time.perf_counter()
    call()
    once = time.perf_counter() - start
    return max(1, math.ceil(target / max(once, 1e-9)))


def interleaved_best(calls: list[Callable[[], Any] | None], repeat: int) -> list[float | None]:
    """The best time of one call of each, the samples taken in turn."""
    counts = [None if call is None else calls_per_sample(call) for call in calls]
    best: list[float | None] = [None if call is None else math.inf for call in calls]
    for _ in range(repeat):
        for i, (call, number) in enumerate(zip(calls, counts, strict=True)):
            if call is None or number is None:
                continue
            start = time.perf_counter()
            for _ in range(number):
                call()
            sample = (time.perf_counter() - start) / number
            current = best[i]
            best[i] = sample if current is None else min(current, sample)
    return best


def _ms(seconds: float | None) -> str:
    return f"{'—':>9s}" if seconds is None else f"{seconds * 1e3:9.3f}"


def _ratio(ours: float | None, theirs: float | None) -> str:
    return f"{'—':>7s}" if ours is None or theirs is None else f"{ours / theirs:6.2f}×"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 7], help="powers of ten of elements")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved samples per column")
    parser.add_argument("--threads", type=int, default=None, help="lt.set_num_threads before timing")
    args = parser.parse_args()
    if args.threads is not None:
        lt.set_num_threads(args.threads)
    if torch is None:
        print("PyTorch is not installed (pip install -e .[bench]): its column is skipped")
        threads = "—"
    else:
        threads = str(torch.get_num_threads())
    print(
        f"numpy {np.__version__}, PyTorch {torch.__version__ if torch else '—'} ({threads} threads), "
        f"lazytensor {lt.get_num_threads()} threads; best of {args.repeat} interleaved samples, ms"
    )
    print(f"{'row':16s} {'n':>6s} {'numpy':>9s} {'PyTorch':>9s} {'lt':>9s} {'lt/torch':>8s} {'lt/numpy':>8s}")
    for power in args.sizes:
        n = round(math.sqrt(10**power))
        for case in cases(n):
            check(case)
            name, *calls = case
            numpy_time, torch_time, ours = interleaved_best(list(calls), args.repeat)
            print(
                f"{name:16s} {n:6d} {_ms(numpy_time)} {_ms(torch_time)} {_ms(ours)} "
                f"{_ratio(ours, torch_time):>8s} {_ratio(ours, numpy_time):>8s}"
            )


if __name__ == "__main__":
    main()

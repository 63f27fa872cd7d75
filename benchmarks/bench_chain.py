"""An elementwise chain in memory, `a * 2 + b - c / 3` over 10⁷ float64, computed by numpy, by
lazytensor at once, by lazytensor under `lt.lazy()` (one pass of cache-sized blocks on every core,
into the result) and by PyTorch when it is installed (issue #40, item 6).

Goals for `lt.lazy()`: peak memory at most 1.25 result sizes (numpy holds 2: the result and one
temporary) and time at most numpy's.

Time: the best of `--repeat` samples, the four taken in turn in this one process (so a busy machine
slows each alike). Memory: each computation once in a child process of its own, its peak resident
memory (Linux's VmHWM, reset just before) less its resident memory before, in result sizes.

Run: `.venv/bin/python benchmarks/bench_chain.py` (about 20 s), `--n N`, `--repeat K`;
`benchmarks/bench_lazy.py` prints this table too, after its stores' rows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import lazytensor as lt

LIBRARIES = ("numpy", "lazytensor", "lazytensor, lt.lazy()", "PyTorch")


def has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def computations(n: int) -> dict[str, Callable[[], Any]]:
    """Each library's `a * 2 + b - c / 3` on the same three vectors, as a function to call."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.random(n) for _ in range(3))
    ta, tb, tc = (lt.tensor(x) for x in (a, b, c))

    def lazily() -> Any:
        with lt.lazy():
            r = ta * 2 + tb - tc / 3
        return r.compute()

    found: dict[str, Callable[[], Any]] = {
        "numpy": lambda: a * 2 + b - c / 3,
        "lazytensor": lambda: ta * 2 + tb - tc / 3,
        "lazytensor, lt.lazy()": lazily,
    }
    if has_torch():
        import torch

        pa, pb, pc = (torch.from_numpy(x) for x in (a, b, c))
        found["PyTorch"] = lambda: pa * 2 + pb - pc / 3
    return found


def _status(field: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def child(library: str, n: int) -> None:
    """Run one computation once and print its peak memory above what was resident before it."""
    compute = computations(n)[library]
    before = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM starts again from the resident memory
    result = compute()
    print(json.dumps({"added": _status("VmHWM") - before, "check": float(np.asarray(result)[-1])}))


def peak_added(library: str, n: int) -> int:
    """The child's report: bytes the computation added at its peak."""
    command = [sys.executable, __file__, "--child", library, "--n", str(n)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    added: int = json.loads(out.splitlines()[-1])["added"]
    return added


def best_times(found: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """The best time of each computation, the computations taken in turn `repeat` times."""
    best = dict.fromkeys(found, float("inf"))
    for _ in range(repeat):
        for name, compute in found.items():
            start = time.perf_counter()
            compute()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def report(n: int, repeat: int) -> None:
    """Print the table: each library's time (against numpy's) and peak memory (in result sizes)."""
    found = computations(n)
    expected = np.asarray(found["numpy"]())
    for compute in found.values():
        np.testing.assert_allclose(np.asarray(compute()), expected, rtol=1e-15)
    times = best_times(found, repeat)
    result = n * 8
    torch_note = ""
    if has_torch():
        import torch

        torch_note = f", PyTorch {torch.__version__} ({torch.get_num_threads()} threads)"
    print(
        f"`a * 2 + b - c / 3`, {n:.0e} float64: {platform.machine()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}; numpy {np.__version__}{torch_note}, lazytensor "
        f"{lt.get_num_threads()} threads; time: best of {repeat}"
    )
    print(f"{'':24}{'time':>10}{'× numpy':>10}{'peak added':>13}{'results':>9}   goal")
    for name in LIBRARIES:
        if name not in found:
            print(f"{name:24}{'not installed (pip install torch==2.13.0)':>45}")
            continue
        added = peak_added(name, n)
        goal = "≤ 1.25 results, ≤ 1× numpy's time" if name.endswith("lazy()") else ""
        if goal:
            met = added <= 1.25 * result and times[name] <= times["numpy"]
            goal += ": met" if met else ": MISSED"
        print(
            f"{name:24}{times[name] * 1e3:8.1f} ms{times[name] / times['numpy']:9.2f}×"
            f"{added / 1e6:10.0f} MB{added / result:8.2f}×   {goal}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.n)
        return
    report(args.n, args.repeat)


if __name__ == "__main__":
    main()

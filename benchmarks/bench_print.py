"""Time `repr` of a 4-D view of a 10⁸-element memory-mapped tensor against a 10³-element one.

Printing costs what is shown, not what the tensor holds: the big view is summarised
to its edge items and only those are read from the file, so the ratio should stay
at most about 3. The big file (400 MB of float32) is made in a temporary directory
and deleted afterwards. Run: `.venv/bin/python benchmarks/bench_print.py`.
"""

from __future__ import annotations

import pathlib
import tempfile
import timeit

import numpy as np

import lazytensor as lt

BIG = 10**8
SMALL = 10**3
REPEATS = 20


def _write_big(path: pathlib.Path) -> None:
    """A 10⁸-element float32 .npy file, written in chunks so memory stays small."""
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(BIG,))
    rng = np.random.default_rng(0)
    chunk = 10**7
    for start in range(0, BIG, chunk):
        array[start : start + chunk] = rng.uniform(-1.0, 1.0, chunk).astype(np.float32)
    array.flush()
    del array


def _view(t: lt.AbstractTensor, shape: tuple[int, int, int, int]) -> lt.AbstractTensor:
    """The same kind of 4-D view for both sizes: reshaped, two axes swapped, the first axis reversed."""
    view: lt.AbstractTensor = t.reshape(shape).transpose(1, 2)[::-1]
    return view


def _best_seconds(view: lt.AbstractTensor) -> float:
    repr(view)  # warm up
    return min(timeit.repeat(lambda: repr(view), number=1, repeat=REPEATS))


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "big.npy"
        _write_big(path)
        big = _view(lt.load(path), (100, 100, 100, 100))
        small = _view(lt.trandom(SMALL, seed=0).astype(np.float32), (2, 5, 10, 10))
        big_seconds = _best_seconds(big)
        small_seconds = _best_seconds(small)
        print(f"repr of a 4-D view, best of {REPEATS}:")
        print(f"  10^8 elements, memory-mapped, shape {big.shape}: {big_seconds * 1e3:7.2f} ms")
        print(f"  10^3 elements, in memory,     shape {small.shape}:       {small_seconds * 1e3:7.2f} ms")
        print(f"  ratio big / small: {big_seconds / small_seconds:.2f}  (goal: at most 3)")
        del big


if __name__ == "__main__":
    main()

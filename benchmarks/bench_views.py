"""Views: building stacks, reading elements and whole tensors, against numpy in one process.

Run: python benchmarks/bench_views.py
Each line prints a ratio and its goal; a ratio is the best of several timings of
each side, so that noise from the machine counts as little as it can.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

import numpy as np

import lazytensor as lt


def best(fn: Callable[[], object], number: int, repeat: int = 7) -> float:
    """Seconds per call: the best of `repeat` runs of `number` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def report(name: str, ratio: float, goal: str) -> None:
    print(f"{name:<66} {ratio:7.2f}x   goal {goal}")


def chain(t: lt.AbstractTensor) -> lt.AbstractTensor:
    """Five views, transpose then reshape among them; `.layout` makes each layer fuse."""
    rows, cols = t.shape
    view = t.T.reshape(rows * cols // 2, 2)[::-1, 1].unsqueeze(0)[..., 1:]
    assert view.layout is None  # the transpose->reshape cannot fuse: the slow path is timed
    return view


def strided_chain(t: lt.AbstractTensor) -> lt.AbstractTensor:
    view = t.T[::2].unsqueeze(0)[:, 1:, ::-1].squeeze(0)
    assert view.layout is not None
    return view


def bench_building() -> None:
    big, small = lt.zeros(10_000, 1_000), lt.zeros(10, 10)
    ratio = best(lambda: chain(big).shape, 2000) / best(lambda: chain(small).shape, 2000)
    report("build a 5-view chain with transpose->reshape: 1e7 vs 1e2 elements", ratio, "<= 1.5")


def bench_get() -> None:
    base = lt.arange(4 * 6 * 8).reshape(4, 6, 8)
    deep = base.T.T[1:][:, ::-1].permute(2, 0, 1).permute(1, 2, 0).unsqueeze(0).squeeze(0)
    assert len(deep.layers) - len(base.layers) == 8
    shallow = base[1:]
    pos = (1, 2, 3)
    deep_time = best(lambda: deep.get(pos), 20_000)
    shallow_time = best(lambda: shallow.get(pos), 20_000)
    report("get() through an 8-layer stack vs a 1-layer stack", deep_time / shallow_time, "<= 1.5")
    array = np.arange(4 * 6 * 8).reshape(4, 6, 8)[1:]
    numpy_time = best(lambda: array[pos], 20_000)
    report("get() vs numpy scalar indexing", shallow_time / numpy_time, "report")


def bench_numpy_view() -> None:
    big, small = lt.zeros(10_000, 1_000), lt.zeros(10, 10)
    big_view, small_view = strided_chain(big), strided_chain(small)
    ratio = best(big_view.numpy, 2000) / best(small_view.numpy, 2000)
    report("numpy() of a strided 5-view stack: 1e7 vs 1e2 elements", ratio, "<= 2")


def bench_contiguous() -> None:
    array = np.random.default_rng(0).random((1000, 1000))
    t = lt.from_numpy(array)
    ours = best(lambda: t.T.reshape(-1)[::2].contiguous(), 20)
    theirs = best(lambda: np.ascontiguousarray(array.T.reshape(-1)[::2]), 20)
    report("contiguous() of t.T.reshape(-1)[::2], 1e6 vs np.ascontiguousarray", ours / theirs, "<= 1.5")
    rows = np.random.default_rng(1).permutation(1000)
    ours = best(lambda: t[rows].contiguous(), 20)
    theirs = best(lambda: np.ascontiguousarray(array[rows]), 20)
    report("contiguous() through a permutation list index, 1e6 vs numpy", ours / theirs, "<= 3")


def main() -> None:
    bench_building()
    bench_get()
    bench_numpy_view()
    bench_contiguous()


if __name__ == "__main__":
    main()

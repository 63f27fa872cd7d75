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


def bench_view_creation() -> None:
    t, a = lt.zeros(10, 10), np.zeros((10, 10))
    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("t.T", lambda: t.T, lambda: a.T),
        ("t[1:5, ::2]", lambda: t[1:5, ::2], lambda: a[1:5, ::2]),
        ("t.reshape(20, 5)", lambda: t.reshape(20, 5), lambda: a.reshape(20, 5)),
    ]
    for name, ours, theirs in cases:
        report(f"create {name} on 10x10 vs numpy's view", best(ours, 20_000) / best(theirs, 20_000), "<= 15")
    report("read t[3, 4] vs numpy", best(lambda: t[3, 4], 20_000) / best(lambda: a[3, 4], 20_000), "<= 8")


def bench_named_view_creation() -> None:
    """Names cost a named view nothing at creation: they are derived when someone reads them."""
    t = lt.zeros(10, 10)
    named = lt.zeros(10, 10, names=("row", "col"))
    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("t.T", lambda: named.T, lambda: t.T),
        ("t[1:5, ::2]", lambda: named[1:5, ::2], lambda: t[1:5, ::2]),
        ("t.reshape(20, 5)", lambda: named.reshape(20, 5), lambda: t.reshape(20, 5)),
        ("t.unsqueeze(0)", lambda: named.unsqueeze(0), lambda: t.unsqueeze(0)),
    ]
    for name, ours, plain in cases:
        ratio = best(ours, 20_000) / best(plain, 20_000)
        report(f"create {name} on a named 10x10 vs an unnamed one", ratio, "<= 1.3")


def _alternating(t: lt.AbstractTensor, depth: int) -> lt.AbstractTensor:
    for i in range(depth):
        t = t.T if i % 2 == 0 else t[::1]
    return t


def bench_deep_stack() -> None:
    base = lt.zeros(10, 10)
    deep, shallow = _alternating(base, 10_000), _alternating(base, 10)
    deep_time = best(lambda: evaluate_fresh(deep), 5, repeat=5)
    shallow_time = best(lambda: evaluate_fresh(shallow), 200, repeat=5)
    per_layer = (deep_time / 10_000) / (shallow_time / 10)
    report("numpy() of a fresh 10,000-layer stack vs a 10-layer one, per layer", per_layer, "~1 (linear)")
    fused = best(deep.numpy, 20_000) / best(shallow.numpy, 20_000)
    report("numpy() of a built 10,000-layer stack vs a 10-layer one (fused)", fused, "~1")


def evaluate_fresh(t: lt.AbstractTensor) -> object:
    """Build the stack's layers again on the same base, then read it: the cost a new stack pays."""
    return _alternating(t.base, len(t.layers) - 1).numpy()


def _materialise_times(rows: int, cols: int) -> tuple[float, float]:
    array = np.random.default_rng(0).random((rows, cols))
    t = lt.from_numpy(array)  # t.T is (cols, rows); reshaped to (rows, cols) it cannot fuse
    ours = best(lambda: t.T.reshape(rows, cols)[::2, ::3].contiguous(), 10, repeat=5)
    theirs = best(lambda: np.ascontiguousarray(array.T.reshape(rows, cols)[::2, ::3]), 10, repeat=5)
    return ours, theirs


def bench_unfused() -> None:
    for n in (100_000, 1_000_000):
        ours, theirs = _materialise_times(500, n // 500)
        report(f"materialise t.T.reshape(r, c)[::2, ::3] of {n:.0e} vs numpy's copy", ours / theirs, "<= 1.5")
    base = lt.arange(12 * 16).reshape(12, 16)
    one = base.T.reshape(12, 16)  # a transpose and a reshape: the reshape cannot fuse
    deep = one
    for _ in range(3):  # cycles of transpose, reshape, slice, each reading through the one below
        deep = deep.T.reshape(12, 16)[::1]
    assert deep.layout is None and len(deep.layers) - len(one.layers) == 9
    report(
        "t[i, j] through 10 layers without a layout vs through 1",
        best(lambda: deep[5, 7], 20_000) / best(lambda: one[5, 7], 20_000),
        "report",
    )


def main() -> None:
    bench_building()
    bench_get()
    bench_numpy_view()
    bench_contiguous()
    bench_view_creation()
    bench_named_view_creation()
    bench_deep_stack()
    bench_unfused()


if __name__ == "__main__":
    main()

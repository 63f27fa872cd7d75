"""Operators against numpy on the same data: one run, printing each ratio with its goal.

    .venv/bin/python benchmarks/bench_ops.py

A ratio is lazytensor's best time over the baseline's best time (lower is better).
"""

from __future__ import annotations

import operator
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import lazytensor as lt
from lazytensor.tenxor import next_position, position_to_index


def best(fn: Callable[[], Any], repeat: int = 15, number: int = 3) -> float:
    """The best time of one call, in seconds."""
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def report(name: str, ours: Callable[[], Any], baseline: Callable[[], Any], goal: str, **kw: int) -> None:
    mine, theirs = best(ours, **kw), best(baseline, **kw)
    print(f"{name:58s} {mine * 1e3:9.3f} ms / {theirs * 1e3:9.3f} ms = {mine / theirs:6.2f}  [{goal}]")


def seed_style_tpoint(a: list[float], b: list[float], shape: list[int], op: Callable[..., Any]) -> list[Any]:
    """The seeds' per-element approach, rewritten: walk every position one at a time, find each
    operand's flat index from its position, call `op`, store the result at the result's index."""
    result: list[Any] = [None] * len(a)
    pos = [0] * len(shape)
    more = True
    while more:
        x = a[position_to_index(pos, shape)]
        y = b[position_to_index(pos, shape)]
        result[position_to_index(pos, shape)] = op(x, y)
        more = next_position(pos, shape)
    return result


def segment_sum_reduceat(targets: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    out = np.zeros((count, rows.shape[1]), dtype=rows.dtype)
    out[ordered[starts]] += np.add.reduceat(rows[order], starts, axis=0)
    return out


def segment_sum_bincount(targets: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    out = np.zeros((count, rows.shape[1]), dtype=rows.dtype)
    for column in range(rows.shape[1]):
        out[:, column] += np.bincount(targets, weights=rows[:, column], minlength=count)
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'operation':58s} {'lazytensor':>12s} / {'numpy':>12s} = ratio  [goal]")

    column, row = rng.random((1000, 1)), rng.random((1, 1000))
    tc, tr = lt.from_numpy(column), lt.from_numpy(row)
    report("(1000,1) + (1,1000)", lambda: tc + tr, lambda: column + row, "<= 1.3")

    square, other = rng.random((1000, 1000)), rng.random((1000, 1000))
    ts, to = lt.from_numpy(square), lt.from_numpy(other)
    report("transposed 1000x1000 view + tensor", lambda: ts.T + to, lambda: square.T + other, "<= 1.3")
    for axis in (0, 1):
        report(
            f"sum along axis {axis} of a transposed 1000x1000 view",
            lambda axis=axis: ts.T.sum(axis),
            lambda axis=axis: square.T.sum(axis),
            "<= 1.3",
        )
    report(
        "tredux(t, 1, 0.0, operator.add) vs np.add.reduce",
        lambda: lt.tredux(ts, 1, 0.0, operator.add),
        lambda: np.add.reduce(square, axis=1),
        "<= 1.3",
    )

    left, right = rng.random((512, 512)), rng.random((512, 512))
    tl, trr = lt.from_numpy(left), lt.from_numpy(right)
    report("512x512 matmul", lambda: tl @ trr, lambda: left @ right, "<= 1.1")

    picks = rng.permutation(1000)[:500].tolist()
    report(
        "list-indexed rows (500 of 1000) then sum(1)",
        lambda: ts[picks].sum(1),
        lambda: square[picks].sum(1),
        "<= 2",
    )

    xs, ys = rng.random(100_000), rng.random(100_000)
    tx, ty = lt.from_numpy(xs), lt.from_numpy(ys)

    def f(x: float, y: float) -> float:
        return x * y + 1.0

    report(
        "tpoint(lambda) on 1e5 vs list(map(f, xs.tolist(), ys.tolist()))",
        lambda: lt.tpoint(tx, ty, f),
        lambda: list(map(f, xs.tolist(), ys.tolist())),
        "<= 1.2",
    )
    xl, yl = xs.tolist(), ys.tolist()
    seed = best(lambda: seed_style_tpoint(xl, yl, [len(xl)], f), repeat=1, number=1)
    mine = best(lambda: lt.tpoint(tx, ty, f))
    print(
        f"{'tpoint(lambda) on 1e5 vs the seeds positions walk':58s} {mine * 1e3:9.3f} ms / "
        f"{seed * 1e3:9.3f} ms = {mine / seed:6.3f}  [report: {seed / mine:.0f}x faster, expect >= 10x]"
    )

    nodes, edges, features = 2708, 10556, 16  # a Cora-sized graph convolution layer
    targets = rng.integers(0, nodes, edges)
    messages = rng.random((edges, features))
    zeros, tm = lt.zeros(nodes, features), lt.from_numpy(messages)
    reduceat_time = best(lambda: segment_sum_reduceat(targets, messages, nodes))
    bincount_time = best(lambda: segment_sum_bincount(targets, messages, nodes))
    mine = best(lambda: zeros.index_add(0, targets, tm))
    better = min(reduceat_time, bincount_time)
    print(
        f"{'index_add (2708 nodes, 10556 edges, 16 features)':58s} {mine * 1e3:9.3f} ms / "
        f"{better * 1e3:9.3f} ms = {mine / better:6.2f}  [<= 1.0 vs the better of sort+reduceat "
        f"{reduceat_time * 1e3:.3f} ms and bincount per column {bincount_time * 1e3:.3f} ms]"
    )


def small() -> None:
    """Operations on 10x10 float64: the cost of the path from a call to numpy and back."""
    print(f"\n{'small tensors (10x10 float64)':58s} {'lazytensor':>12s} / {'numpy':>12s} = ratio  [goal]")
    rng = np.random.default_rng(1)
    a = rng.random((10, 10))
    t = lt.from_numpy(a)
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("t + t", lambda: t + t, lambda: a + a),
        ("t * 2", lambda: t * 2, lambda: a * 2),
        ("t.sum()", lambda: t.sum(), lambda: a.sum()),
        ("t.sum(0)", lambda: t.sum(0), lambda: a.sum(0)),
        ("t @ t", lambda: t @ t, lambda: a @ a),
        ("t.relu()", lambda: t.relu(), lambda: np.maximum(a, 0.0)),
        ("t[[1, 2, 3]]", lambda: t[[1, 2, 3]], lambda: a[[1, 2, 3]]),
        ("t.T + t", lambda: t.T + t, lambda: a.T + a),
    ]
    for name, ours, theirs in cases:
        report(name, ours, theirs, "<= 8", repeat=7, number=2000)
    w = lt.from_numpy(a.copy()).requires_grad_()
    grad_cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("w + w, w requires grad", lambda: w + w, lambda: a + a),
        ("(w * w).sum().backward()", lambda: (w * w).sum().backward(), lambda: (2 * a, (a * a).sum())),
        ("(w @ w).relu().sum().backward()", lambda: (w @ w).relu().sum().backward(), lambda: a @ a),
    ]
    for name, ours, theirs in grad_cases:
        report(name, ours, theirs, "report", repeat=7, number=500)


if __name__ == "__main__":
    main()
    small()

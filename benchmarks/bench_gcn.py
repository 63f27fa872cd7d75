"""GCN training epochs: examples/gcn.py (lazytensor, autograd) vs a hand-written numpy GCN, one process.

Run: python benchmarks/bench_gcn.py [--data DIR_OF_PLANETOID_FILES] [--sbm-nodes 100000]

Without --data, Cora comes from the files shipped in examples/data/planetoid.

Both sides train the same model with the same edge-list message passing and draw
their dropout masks the same way (one float32 uniform per element), so the ratio
is the cost of lazytensor's views, operators and autograd over hand-written numpy.
Also times index_add, the hot path of message passing, against the better of a
sort + np.add.reduceat segment sum and np.bincount per column.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "examples")]

import gcn  # noqa: E402
import graphs  # noqa: E402
import numpy_gcn  # noqa: E402

import lazytensor as lt  # noqa: E402


def seconds_per_epoch(train: Callable[[int], object], epochs: int, rounds: int = 3) -> float:
    """The best of `rounds` timings of `epochs` epochs (after one warm-up epoch)."""
    train(1)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        train(epochs)
        best = min(best, (time.perf_counter() - start) / epochs)
    return best


def compare_epochs(graph: graphs.Graph, epochs: int, goal: str) -> None:
    ours = seconds_per_epoch(lambda n: gcn.train(graph, n, seed=0), epochs)
    theirs = seconds_per_epoch(lambda n: numpy_gcn.train(graph, n, seed=0), epochs)
    print(
        f"{graph.name} ({graph.num_nodes:,} nodes, {graph.num_edges:,} edges): "
        f"lazytensor {ours * 1e3:.1f} ms / numpy {theirs * 1e3:.1f} ms per epoch "
        f"= {ours / theirs:.2f}x  [goal {goal}]"
    )


def best_time(fn: Callable[[], object], repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def compare_index_add(graph: graphs.Graph, features: int = 16) -> None:
    dst = lt.nn.add_self_loops(lt.nn.Edges(graph.src, graph.dst, graph.num_nodes)).dst  # GCNConv's edges
    rng = np.random.default_rng(0)
    messages = rng.random((len(dst), features), dtype=np.float32)
    base = lt.zeros(graph.num_nodes, features, dtype=np.float32)
    source = lt.from_numpy(messages)
    ours = best_time(lambda: base.index_add(0, dst, source))
    reduceat = best_time(lambda: numpy_gcn.segment_sum_reduceat(messages, dst, graph.num_nodes))
    bincount = best_time(lambda: numpy_gcn.segment_sum_bincount(messages, dst, graph.num_nodes))
    better = min(reduceat, bincount)
    print(
        f"index_add on {graph.name} ({len(dst):,} edges x {features}): {ours * 1e3:.3f} ms vs "
        f"sort+reduceat {reduceat * 1e3:.3f} ms, bincount per column {bincount * 1e3:.3f} ms "
        f"= {ours / better:.2f}x the better  [goal <= 1.2]"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=None, help="folder of the original Planetoid files")
    parser.add_argument("--sbm-nodes", type=int, default=100_000)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    cora = graphs.load("cora", data_dir=args.data)
    compare_epochs(cora, args.epochs, "<= 1.5")
    sbm = graphs.load("sbm", nodes=args.sbm_nodes)
    compare_epochs(sbm, max(args.epochs // 2, 2), "<= 2")
    compare_index_add(cora)
    compare_index_add(sbm)


if __name__ == "__main__":
    main()

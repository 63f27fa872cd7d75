"""examples/gnn.py's models (lazytensor, autograd) against hand-written numpy, one process, as ratios.

    python benchmarks/bench_gnn.py [--quick] [--sbm-nodes 100000] [--data DIR_OF_PLANETOID_FILES]

Every row times the same work on both sides with the same draws: a training epoch of GAT on Cora
(numpy_gat.py), of sampled GraphSAGE on an SBM graph (numpy_sage.py) and of the GCN on Cora and the SBM
graph (numpy_gcn.py); SGC's precomputation Â²X and APPNP's propagation (10 steps of
z ← 0.9 Â z + 0.1 h on (N, classes) logits) against numpy's gather-scale-reduceat. Each case is warmed
up once, then the two sides run alternately `--repeats` times (so a busy machine slows both alike); the
table shows the medians and lazytensor / numpy.

BLAS runs single-threaded unless `--blas-threads` says otherwise (set before numpy loads): on a small or
busy machine OpenBLAS's thread hand-offs make the small matmuls of a sampled batch ten times slower and
the timings erratic, on both sides alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


MODELS = ("gat", "sage", "sgc", "appnp", "gcn")


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    result.add_argument("--quick", action="store_true", help="3 timed repeats per case instead of 9")
    result.add_argument("--repeats", type=int, default=None, help="timed repeats per case")
    result.add_argument("--sbm-nodes", type=int, default=100_000)
    result.add_argument("--data", type=Path, default=None, help="folder of the original Planetoid files")
    result.add_argument(
        "--blas-threads", type=int, default=1, help="BLAS threads (0: the library's default); default 1"
    )
    result.add_argument(
        "--only", choices=MODELS, action="append", help="time only this model's rows (repeatable)"
    )
    return result


if __name__ == "__main__":  # before numpy is imported: BLAS reads its thread count once, when it loads
    _threads = parser().parse_known_args()[0].blas_threads
    if _threads > 0:
        for _variable in BLAS_THREAD_VARIABLES:
            os.environ[_variable] = str(_threads)

import attrs  # noqa: E402
import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "examples")]

import gcn  # noqa: E402
import gnn  # noqa: E402
import graphs  # noqa: E402
import numpy_gat  # noqa: E402
import numpy_gcn  # noqa: E402
import numpy_sage  # noqa: E402

import lazytensor as lt  # noqa: E402
from lazytensor import nn  # noqa: E402

Step = Callable[[], Any]


@attrs.frozen
class Row:
    case: str
    ours: float  # seconds
    theirs: float
    goal: float

    @property
    def ratio(self) -> float:
        return self.ours / self.theirs


def compare(ours: Step, theirs: Step, repeats: int) -> tuple[float, float]:
    """Median seconds of each after one warm-up call, the two run alternately."""
    ours()
    theirs()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for step, spent in ((ours, times[0]), (theirs, times[1])):
            start = time.perf_counter()
            step()
            spent.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


# ------------------------------------------------------------------------------------ training epochs


def model_epoch(name: str, graph: graphs.Graph, seed: int = 0) -> Step:
    """One `gnn.train_epoch` of a fresh lazytensor model per call (training continues across calls)."""
    rng = np.random.default_rng(seed)
    model = gnn.build(name, graph, rng, gnn.SAGE_FANOUT)
    optimizer = gnn.optimizer_for(name, model)
    data = gnn.Data.of(graph)
    return lambda: gnn.train_epoch(model, data, optimizer, rng)


def gcn_epoch(graph: graphs.Graph, seed: int = 0) -> Step:
    """One epoch of examples/gcn.py's training loop (masks, forward, backward, Adam)."""
    rng = np.random.default_rng(seed)
    features = lt.from_numpy(graph.features)
    edge_index = nn.Edges(graph.src, graph.dst, graph.num_nodes)
    model = gcn.GCN(graph.num_features, graph.num_classes, rng)
    optimizer = lt.optim.Adam(
        [
            {"params": model.conv1.parameters(), "weight_decay": gcn.WEIGHT_DECAY},
            {"params": model.conv2.parameters()},
        ],
        lr=gcn.LEARNING_RATE,
    )

    def step() -> float:
        optimizer.zero_grad()
        loss = gcn.loss_of(model(features, edge_index), graph)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def numpy_gcn_epoch(graph: graphs.Graph, seed: int = 0) -> Step:
    """One epoch of numpy_gcn.py's training loop."""
    rng = np.random.default_rng(seed)
    adjacency = numpy_gcn.NormalisedAdjacency.from_graph(graph)
    features = graph.features
    w0 = numpy_gcn.glorot_uniform(rng, graph.num_features, numpy_gcn.HIDDEN, np.float32)
    w1 = numpy_gcn.glorot_uniform(rng, numpy_gcn.HIDDEN, graph.num_classes, np.float32)
    optimiser = numpy_gcn.Adam([w0, w1], weight_decay=[numpy_gcn.WEIGHT_DECAY, 0.0])

    def step() -> float:
        mask_x = numpy_gcn.dropout_mask(rng, features.shape, numpy_gcn.DROPOUT, np.float32)
        mask_h = numpy_gcn.dropout_mask(
            rng, (graph.num_nodes, numpy_gcn.HIDDEN), numpy_gcn.DROPOUT, np.float32
        )
        grads = numpy_gcn.loss_and_grads(
            adjacency, features, graph.labels, graph.train_idx, w0, w1, mask_x, mask_h
        )
        optimiser.step([grads.w0, grads.w1])
        return grads.loss

    return step


# ----------------------------------------------------------------------------------------- propagation


def sgc_precompute(graph: graphs.Graph) -> tuple[Step, Step]:
    """Â²X: lazytensor's `lt.nn.gcn_norm` propagation twice (as `gnn.SGC`'s `SGConv`) vs numpy's,
    adjacency built once."""
    propagate = nn.gcn_norm(nn.Edges(graph.src, graph.dst, graph.num_nodes), dtype=np.float32)
    adjacency = numpy_gcn.NormalisedAdjacency.from_graph(graph)
    features = graph.features
    tensor = lt.from_numpy(features)

    def ours() -> np.ndarray:
        x: lt.AbstractTensor = tensor
        for _ in range(gnn.SGC_STEPS):
            x = propagate(x)
        return x.numpy()

    def theirs() -> np.ndarray:
        x = features
        for _ in range(gnn.SGC_STEPS):
            x = adjacency(x)
        return x

    return ours, theirs


def appnp_propagation(graph: graphs.Graph) -> tuple[Step, Step]:
    """Ten steps of z ← (1 - α) Â z + α h on (N, classes) logits, as `lt.nn.APPNP` (no gradient):
    lazytensor's (1 - α) Â is scaled once, as the layer's; numpy scales each step's result in place."""
    edges = nn.Edges(graph.src, graph.dst, graph.num_nodes)
    propagate = nn.gcn_norm(edges, scale=1 - gnn.APPNP_ALPHA, dtype=np.float32)
    adjacency = numpy_gcn.NormalisedAdjacency.from_graph(graph)
    h = np.random.default_rng(0).standard_normal((graph.num_nodes, graph.num_classes), dtype=np.float32)
    tensor = lt.from_numpy(h)
    alpha = gnn.APPNP_ALPHA

    def ours() -> np.ndarray:
        teleport = tensor * alpha
        z: lt.AbstractTensor = tensor
        for _ in range(gnn.APPNP_STEPS):
            z = propagate(z) + teleport
        return z.numpy()

    scaled_h = (h * np.float32(alpha)).astype(np.float32)

    def theirs() -> np.ndarray:
        z = h
        for _ in range(gnn.APPNP_STEPS):
            z = adjacency(z)
            z *= np.float32(1 - alpha)
            z += scaled_h
        return z

    return ours, theirs


# ------------------------------------------------------------------------------------------- the table


def check_same(ours: Step, theirs: Step, what: str) -> None:
    """The two sides compute the same thing (float32 rounding apart) before they are timed."""
    np.testing.assert_allclose(np.asarray(ours()), np.asarray(theirs()), rtol=1e-4, atol=1e-4, err_msg=what)


def run(args: argparse.Namespace, console: Console) -> list[Row]:
    repeats = args.repeats or (3 if args.quick else 9)
    cora = graphs.load("cora", data_dir=args.data)
    sbm = graphs.load("sbm", nodes=args.sbm_nodes)
    sbm_name = f"SBM-{args.sbm_nodes // 1000}k" if args.sbm_nodes >= 1000 else f"SBM-{args.sbm_nodes}"
    rows: list[Row] = []

    models = set(args.only or MODELS)

    def add(case: str, ours: Step, theirs: Step, goal: float) -> None:
        console.print(f"  {case} …", style="dim")
        rows.append(Row(case, *compare(ours, theirs, repeats), goal))

    if "gat" in models:
        add("GAT epoch, Cora", model_epoch("gat", cora), numpy_gat.Trainer.init(cora, 0).epoch, 1.5)
    if "sage" in models:
        sampled = f"GraphSAGE epoch (sampled 10,10), {sbm_name}"
        add(sampled, model_epoch("sage", sbm), numpy_sage.Trainer.init(sbm, 0).epoch, 1.3)
    for graph, name in ((cora, "Cora"), (sbm, sbm_name)):
        if "sgc" in models:
            ours, theirs = sgc_precompute(graph)
            check_same(ours, theirs, f"SGC {name}")
            add(f"SGC precompute Â²X, {name}", ours, theirs, 1.2)
    for graph, name in ((cora, "Cora"), (sbm, sbm_name)):
        if "appnp" in models:
            ours, theirs = appnp_propagation(graph)
            check_same(ours, theirs, f"APPNP {name}")
            add(f"APPNP propagation (10 steps), {name}", ours, theirs, 1.2)
    if "gcn" in models:
        add("GCN epoch, Cora", gcn_epoch(cora), numpy_gcn_epoch(cora), 1.25)
        add(f"GCN epoch, {sbm_name}", gcn_epoch(sbm), numpy_gcn_epoch(sbm), 2.0)
    return rows


def table(rows: list[Row], repeats_note: str) -> Table:
    result = Table(title=f"lazytensor vs hand-written numpy ({repeats_note})", title_justify="left")
    result.add_column("case")
    result.add_column("lazytensor ms", justify="right")
    result.add_column("numpy ms", justify="right")
    result.add_column("ratio", justify="right")
    result.add_column("goal", justify="right")
    for row in rows:
        met = row.ratio <= row.goal
        result.add_row(
            row.case,
            f"{row.ours * 1e3:.2f}",
            f"{row.theirs * 1e3:.2f}",
            f"[{'green' if met else 'red'}]{row.ratio:.2f}×[/]",
            f"≤ {row.goal:g}×",
        )
    return result


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    console = Console()
    rows = run(args, console)
    repeats = args.repeats or (3 if args.quick else 9)
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    console.print(table(rows, f"median of {repeats} after a warm-up, BLAS threads {threads}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A graph convolutional network (Kipf & Welling, ICLR 2017) written with lazytensor, as PyTorch
Geometric code reads: a `Module` of two `GCNConv` layers.

    python examples/gcn.py                                  # Zachary's karate club
    python examples/gcn.py --dataset cora                   # Cora or Citeseer, shipped in examples/data
    python examples/gcn.py --dataset cora --data DIR        # ... read from the original Planetoid files
    python examples/gcn.py --dataset sbm --nodes 10000      # a synthetic graph for scale

Message passing needs no dense adjacency: each `lt.nn.GCNConv` gathers neighbour rows with a
list-indexed view `h[src]` (no copy until it is read), scales them by the symmetric
normalisation D^-1/2 (A+I) D^-1/2, and sums them into their targets with `index_add`.
Gradients come from lazytensor's own autograd, through the views as well.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import lazytensor as lt
from lazytensor import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import graphs

HIDDEN, DROPOUT, LEARNING_RATE, WEIGHT_DECAY = 16, 0.5, 0.01, 5e-4


class GCN(nn.Module):
    """Two graph convolutions, `Â relu(Â (X W1)) W2`, with dropout on X and on the hidden layer; no
    biases, as Kipf & Welling's. `rng` draws the weights, then the dropout masks as the model runs."""

    def __init__(
        self, features: int, classes: int, rng: np.random.Generator, dtype: Any = np.float32
    ) -> None:
        super().__init__()
        self.dropout = nn.Dropout(DROPOUT, seed=rng)
        self.conv1 = nn.GCNConv(features, HIDDEN, cached=True, bias=False, seed=rng, dtype=dtype)
        self.conv2 = nn.GCNConv(HIDDEN, classes, cached=True, bias=False, seed=rng, dtype=dtype)

    def forward(self, x: lt.AbstractTensor, edge_index: nn.Edges) -> lt.AbstractTensor:
        """Logits for every node."""
        x = self.dropout(x)
        x = self.conv1(x, edge_index).relu()
        x = self.dropout(x)
        return self.conv2(x, edge_index)


def loss_of(logits: lt.AbstractTensor, graph: graphs.Graph) -> lt.StorageTensor:
    """Mean softmax cross-entropy over the labelled (train) nodes."""
    return nn.cross_entropy(logits[graph.train_idx], graph.labels[graph.train_idx])


def accuracy(logits: lt.AbstractTensor, graph: graphs.Graph, idx: np.ndarray) -> float:
    predicted = logits[idx].argmax(1).numpy()
    return float((predicted == graph.labels[idx]).mean())


@attrs.frozen
class Run:
    seed: int
    train_accuracy: float
    val_accuracy: float
    test_accuracy: float
    seconds_per_epoch: float


def train(
    graph: graphs.Graph, epochs: int, seed: int, on_epoch: Callable[[int, float], None] | None = None
) -> Run:
    """Train a fresh model with Adam (weight decay on the first layer only), then evaluate it."""
    rng = np.random.default_rng(seed)
    x = lt.from_numpy(graph.features)
    edge_index = nn.Edges(graph.src, graph.dst, graph.num_nodes)  # checked and grouped once
    model = GCN(graph.num_features, graph.num_classes, rng)
    optimizer = lt.optim.Adam(
        [
            {"params": model.conv1.parameters(), "weight_decay": WEIGHT_DECAY},
            {"params": model.conv2.parameters()},
        ],
        lr=LEARNING_RATE,
    )
    start = time.perf_counter()
    model.train()
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = loss_of(model(x, edge_index), graph)
        loss.backward()
        optimizer.step()
        if on_epoch is not None:
            on_epoch(epoch, loss.item())
    seconds = (time.perf_counter() - start) / max(epochs, 1)
    model.eval()
    with lt.no_grad():
        logits = model(x, edge_index)
    return Run(
        seed,
        accuracy(logits, graph, graph.train_idx),
        accuracy(logits, graph, graph.val_idx),
        accuracy(logits, graph, graph.test_idx),
        seconds,
    )


def summary(graph: graphs.Graph, epochs: int, runs: Sequence[Run]) -> dict[str, Any]:
    """The results with exactly the keys `--json` writes."""
    tests = [run.test_accuracy for run in runs]
    return {
        "dataset": graph.name,
        "nodes": graph.num_nodes,
        "edges": graph.num_edges,
        "epochs": epochs,
        "seconds_per_epoch": float(np.mean([run.seconds_per_epoch for run in runs])),
        "runs": [
            {
                "seed": run.seed,
                "train_accuracy": run.train_accuracy,
                "val_accuracy": run.val_accuracy,
                "test_accuracy": run.test_accuracy,
            }
            for run in runs
        ],
        "train_accuracy_mean": float(np.mean([run.train_accuracy for run in runs])),
        "val_accuracy_mean": float(np.mean([run.val_accuracy for run in runs])),
        "test_accuracy_mean": float(np.mean(tests)),
        "test_accuracy_std": float(np.std(tests)),
    }


def results_table(result: dict[str, Any], title: str = "GCN with lazytensor") -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("dataset", result["dataset"])
    table.add_row("nodes", f"{result['nodes']:,}")
    table.add_row("edges", f"{result['edges']:,}")
    table.add_row("epochs", str(result["epochs"]))
    table.add_row("seconds per epoch", f"{result['seconds_per_epoch']:.4f}")
    runs = len(result["runs"])
    spread = f" ± {result['test_accuracy_std']:.3f}" if runs > 1 else ""
    table.add_row(f"train accuracy{' (mean)' if runs > 1 else ''}", f"{result['train_accuracy_mean']:.3f}")
    table.add_row(f"validation accuracy{' (mean)' if runs > 1 else ''}", f"{result['val_accuracy_mean']:.3f}")
    table.add_row(
        f"test accuracy{' (mean)' if runs > 1 else ''}", f"{result['test_accuracy_mean']:.3f}{spread}"
    )
    return table


def runs_table(result: dict[str, Any]) -> Table:
    table = Table(title="runs", title_justify="left")
    for column in ("seed", "train", "validation", "test"):
        table.add_column(column, justify="right")
    for run in result["runs"]:
        accuracies = (run["train_accuracy"], run["val_accuracy"], run["test_accuracy"])
        table.add_row(str(run["seed"]), *(f"{a:.3f}" for a in accuracies))
    return table


def add_common_arguments(parser: argparse.ArgumentParser, epochs: int | None) -> None:
    """The flags every graph example shares: the data, the epochs and seeds, and what to print."""
    parser.add_argument("--dataset", help=f"one of {', '.join(graphs.DATASETS)} (default karate)")
    parser.add_argument(
        "--data",
        type=Path,
        help="directory of the original Planetoid files ind.NAME.* (with --dataset cora, citeseer or pubmed; "
        "cora and citeseer are shipped, so it is optional for them)",
    )
    parser.add_argument("--nodes", type=int, default=10_000, help="nodes of the sbm graph")
    parser.add_argument("--epochs", type=int, default=epochs, help="training epochs")
    parser.add_argument("--seeds", type=int, default=1, help="train this many seeds: 0, 1, ...")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--json", type=Path, help="write the results to this file")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Train a two-layer GCN with lazytensor.")
    add_common_arguments(parser, epochs=200)
    return parser.parse_args(argv)


def load_graph(args: argparse.Namespace, program: str) -> graphs.Graph | None:
    """The graph the flags name, or None after printing the one-line reason it cannot be had."""
    if args.data is not None and args.dataset not in graphs.PLANETOID_NAMES:
        print(
            f"{program}: --data reads the Planetoid files: "
            f"give --dataset {' or '.join(graphs.PLANETOID_NAMES)} with it",
            file=sys.stderr,
        )
        return None
    try:
        return graphs.load(args.dataset or "karate", data_dir=args.data, nodes=args.nodes)
    except (ValueError, OSError, ImportError, MemoryError, pickle.UnpicklingError) as error:
        print(f"{program}: {' '.join(str(error).split())}", file=sys.stderr)
        return None


def training_progress(console: Console, quiet: bool) -> Progress:
    """One bar per seed, with the latest loss."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]:.4f}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
    )


def report(console: Console, args: argparse.Namespace, result: dict[str, Any], title: str) -> None:
    """Write the JSON when asked, and print the tables unless quiet."""
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if not args.quiet:
        if len(result["runs"]) > 1:
            console.print(runs_table(result))
        console.print(results_table(result, title=title))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console()
    graph = load_graph(args, "gcn")
    if graph is None:
        return 2
    runs = []
    with training_progress(console, args.quiet) as progress:
        for seed in range(args.seeds):
            task = progress.add_task(f"{graph.name} seed {seed}", total=args.epochs, loss=float("nan"))
            runs.append(
                train(
                    graph, args.epochs, seed, lambda _, loss, t=task: progress.update(t, advance=1, loss=loss)
                )
            )
    report(console, args, summary(graph, args.epochs, runs), "GCN with lazytensor")
    return 0


if __name__ == "__main__":
    sys.exit(main())

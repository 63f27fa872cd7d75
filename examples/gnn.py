"""Five graph neural networks written with lazytensor's modules, as PyTorch Geometric code reads:
`lt.nn.GCNConv`, `GATConv`, `SAGEConv`, `SGConv` and `APPNP` in `lt.nn.Module`s.

    python examples/gnn.py --model gat --dataset cora --seeds 10
    python examples/gnn.py --model sage --dataset sbm --nodes 1000000
    python examples/gnn.py --model gat --dataset cora --explain-node 0
    python examples/gnn.py --dataset sbm --nodes 1000000 --write-features-zarr features.zarr
    python examples/gnn.py --model sage --dataset sbm --nodes 1000000 --features-zarr features.zarr

- gcn   Kipf & Welling 2017: two graph convolutions (examples/gcn.py's model).
- gat   Veličković et al. 2018: 8 attention heads of 8 units, ELU, one output head.
- sage  GraphSAGE-mean (Hamilton et al. 2017) trained on sampled neighbourhoods: fan-out 10, 10,
        batches of 1,024 nodes, features fetched as lazy gathered views of the full matrix; with
        `--features-zarr` the matrix is a zarr store on disk, and each batch reads only the chunks
        that hold its rows (the store can be larger than memory).
- sgc   Wu et al. 2019: Â^2 X precomputed, then logistic regression.
- appnp Klicpera et al. 2019: an MLP, then 10 steps of personalised PageRank (α = 0.1).

The layers pass messages on `lt.nn.Edges` (PyG's `edge_index`): `edges.sources(h)` is the view
`h[src]` (PyG's `x_j`), `edges.softmax` the edge softmax, `edges.sum` an `index_add` into the
targets. One numpy `Generator` per run draws the weights, the dropout masks and the samples, in
order. Each run trains for a fixed number of epochs and reports the test accuracy of the epoch
with the best validation accuracy (ties: the lower validation loss).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
from rich.console import Console

import lazytensor as lt
from lazytensor import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gcn
import graphs

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.floating[Any]]
FLOAT = np.float32
"""The dtype of every parameter (the tests of the numpy references set float64)."""


@attrs.frozen
class Settings:
    """The hyperparameters of one model family (the published ones)."""

    hidden: int
    dropout: float
    learning_rate: float
    weight_decay: float
    epochs: int


SETTINGS = {
    "gcn": Settings(hidden=16, dropout=0.5, learning_rate=0.01, weight_decay=5e-4, epochs=200),
    "gat": Settings(hidden=8, dropout=0.6, learning_rate=0.005, weight_decay=5e-4, epochs=300),
    "sage": Settings(hidden=64, dropout=0.5, learning_rate=0.01, weight_decay=5e-4, epochs=100),
    "sgc": Settings(hidden=0, dropout=0.0, learning_rate=0.2, weight_decay=5e-5, epochs=100),
    "appnp": Settings(hidden=64, dropout=0.5, learning_rate=0.01, weight_decay=5e-4, epochs=300),
}
MODELS = tuple(SETTINGS)
GAT_HEADS, GAT_SLOPE = 8, 0.2
SGC_STEPS = 2
APPNP_STEPS, APPNP_ALPHA = 10, 0.1
SAGE_FANOUT, SAGE_BATCH = (10, 10), 1024
STORE_ROWS = 64
"""Rows of a chunk of the feature store `--write-features-zarr` writes."""
PROJECTION_SEED = 7
"""The seed of the projection that widens the features `--write-features-zarr` writes."""
WRITE_BYTES = STREAM_BYTES = 1 << 26
"""Bytes of a store's rows held in memory at a time, writing it and evaluating from it (`SAGE.project`)."""


@attrs.frozen(eq=False)
class Data:
    """PyTorch Geometric's `data` for one graph: the node features `x` and the edges `edge_index`,
    made once (an `Edges` checks and groups its edges once, and the layers keep what they derive
    from it), with the graph they come from."""

    graph: graphs.Graph
    x: lt.AbstractTensor
    edge_index: nn.Edges

    @classmethod
    def of(cls, graph: graphs.Graph) -> Data:
        return cls(graph, lt.from_numpy(graph.features), nn.Edges(graph.src, graph.dst, graph.num_nodes))


def glorot_linear(fan_in: int, fan_out: int, rng: np.random.Generator) -> nn.Linear:
    """A linear layer with Glorot-uniform weights and a zero bias, as the papers' code starts them."""
    return nn.Linear(
        fan_in, fan_out, weight_initializer="glorot", bias_initializer="zeros", seed=rng, dtype=FLOAT
    )


# ----------------------------------------------------------------------------------------------- GAT


class GAT(nn.Module):
    """Two attention layers: 8 heads × 8 units with ELU, then one head of `classes` units; dropout 0.6
    on each layer's input and on its attention weights."""

    def __init__(self, features: int, classes: int, rng: np.random.Generator) -> None:
        super().__init__()
        units, p = SETTINGS["gat"].hidden, SETTINGS["gat"].dropout
        self.dropout = nn.Dropout(p, seed=rng)
        self.conv1 = nn.GATConv(
            features, units, heads=GAT_HEADS, negative_slope=GAT_SLOPE, dropout=p, seed=rng, dtype=FLOAT
        )
        self.conv2 = nn.GATConv(
            GAT_HEADS * units, classes, heads=1, concat=False, negative_slope=GAT_SLOPE, dropout=p,
            seed=rng, dtype=FLOAT,
        )  # fmt: skip

    def forward(
        self, x: lt.AbstractTensor, edge_index: nn.Edges, return_attention_weights: bool = False
    ) -> Any:
        """The logits; with `return_attention_weights`, also the last layer's edges and attention
        weights (for `--explain-node`)."""
        x = self.dropout(x)
        x = nn.elu(self.conv1(x, edge_index))
        x = self.dropout(x)
        return self.conv2(x, edge_index, return_attention_weights=return_attention_weights)


# ----------------------------------------------------------------------------------------------- SGC


class SGC(nn.Module):
    """Logistic regression on `Â^K X`, propagated once, at the first call (`cached`: the features are
    fixed, and no gradient is needed there)."""

    def __init__(self, features: int, classes: int, rng: np.random.Generator) -> None:
        super().__init__()
        self.conv = nn.SGConv(features, classes, K=SGC_STEPS, cached=True, seed=rng, dtype=FLOAT)

    def forward(self, x: lt.AbstractTensor, edge_index: nn.Edges) -> lt.AbstractTensor:
        return self.conv(x, edge_index)


# --------------------------------------------------------------------------------------------- APPNP


class APPNP(nn.Module):
    """Predict with a two-layer MLP, then propagate: `z ← (1 - α) Â z + α h`, ten times."""

    def __init__(self, features: int, classes: int, rng: np.random.Generator) -> None:
        super().__init__()
        hidden = SETTINGS["appnp"].hidden
        self.dropout = nn.Dropout(SETTINGS["appnp"].dropout, seed=rng)
        self.lin1 = glorot_linear(features, hidden, rng)
        self.lin2 = glorot_linear(hidden, classes, rng)
        self.prop = nn.APPNP(K=APPNP_STEPS, alpha=APPNP_ALPHA, cached=True)

    def forward(self, x: lt.AbstractTensor, edge_index: nn.Edges) -> lt.AbstractTensor:
        x = self.dropout(x)
        x = self.lin1(x).relu()
        x = self.dropout(x)
        return self.prop(self.lin2(x), edge_index)


# ------------------------------------------------------------------------------ GraphSAGE, sampled


@attrs.frozen(eq=False)
class Neighbours:
    """The in-neighbours of every node, grouped by target once: node `v`'s are
    `sources[starts[v]:starts[v + 1]]`."""

    starts: IntArray
    sources: IntArray

    @classmethod
    def of(cls, graph: graphs.Graph) -> Neighbours:
        order = np.argsort(graph.dst, kind="stable")
        counts = np.bincount(graph.dst, minlength=graph.num_nodes)
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        return cls(starts, graph.src[order].astype(np.intp))

    def sample(
        self, nodes: IntArray, fanout: int | None, rng: np.random.Generator | None
    ) -> tuple[IntArray, IntArray]:
        """Up to `fanout` in-neighbours of each node, without replacement (all of them when `fanout`
        is None): their global ids and, for each, the position in `nodes` of the node it feeds.

        One random key per candidate edge, drawn from `rng`; each node keeps its `fanout` smallest.
        """
        degree = self.starts[nodes + 1] - self.starts[nodes]
        owner = np.repeat(np.arange(len(nodes), dtype=np.intp), degree)
        first = np.concatenate([[0], np.cumsum(degree)[:-1]]).astype(np.intp)
        rank = np.arange(len(owner), dtype=np.intp) - first[owner]
        edge = self.starts[nodes][owner] + rank
        if fanout is not None and rng is not None and np.any(degree > fanout):
            keys = rng.random(len(owner))
            order = np.lexsort((keys, owner))  # by owner, then by key: a random order within each
            keep = order[rank < fanout]
            owner, edge = owner[keep], edge[keep]
        return self.sources[edge], owner


@attrs.frozen(eq=False)
class Block:
    """One layer of a sampled computation: `targets` output rows, fed by the edges `src → dst` in the
    layer's local ids (the first `targets` input rows are the targets themselves)."""

    targets: int
    edges: nn.Edges


def relabel(targets: IntArray, sources: IntArray) -> tuple[IntArray, IntArray]:
    """The layer's input nodes (the targets first, then each new source once) and the sources as
    positions among them."""
    nodes = np.concatenate([targets, sources])
    unique, first = np.unique(nodes, return_index=True)
    order = np.argsort(first, kind="stable")  # first appearance: the targets keep their places
    position = np.empty(len(unique), dtype=np.intp)
    position[order] = np.arange(len(unique))
    return unique[order], position[np.searchsorted(unique, sources)]


def sample_blocks(
    neighbours: Neighbours, seeds: IntArray, fanouts: Sequence[int | None], rng: np.random.Generator | None
) -> tuple[IntArray, list[Block]]:
    """The input nodes and the blocks (first layer first) that compute the output rows of `seeds`
    (distinct nodes)."""
    blocks: list[Block] = []
    targets = seeds
    for fanout in reversed(fanouts):
        sources, owner = neighbours.sample(targets, fanout, rng)
        nodes, local_sources = relabel(targets, sources)
        edges = nn.Edges(local_sources, owner, len(targets), num_sources=len(nodes))
        blocks.append(Block(len(targets), edges))
        targets = nodes
    return targets, blocks[::-1]


class SAGE(nn.Module):
    """Two GraphSAGE-mean layers on sampled neighbourhoods; the features of a batch's input nodes are
    the view `features[nodes]` of the full matrix, read only when multiplied. Training mode samples
    `fanouts` neighbours per layer and drops out; evaluation mode takes every neighbour."""

    def __init__(
        self,
        graph: graphs.Graph,
        rng: np.random.Generator,
        fanouts: Sequence[int | None],
        features: lt.AbstractTensor | None = None,
    ) -> None:
        """A fresh model; `features` (N, F) replace the graph's own (a zarr-backed tensor, say)."""
        super().__init__()
        self.features = lt.from_numpy(graph.features) if features is None else features
        self.neighbours = Neighbours.of(graph)
        self.fanouts = tuple(fanouts)
        hidden = SETTINGS["sage"].hidden
        self.dropout = nn.Dropout(SETTINGS["sage"].dropout, seed=rng)
        self.conv1 = nn.SAGEConv(self.features.shape[1], hidden, seed=rng, dtype=FLOAT)
        self.conv2 = nn.SAGEConv(hidden, graph.num_classes, seed=rng, dtype=FLOAT)

    @property
    def stored(self) -> bool:
        """Whether the features are an array-like base (a zarr store) rather than memory."""
        return not self.features.base.has_buffer

    def fetch(self, nodes: IntArray) -> lt.AbstractTensor:
        """The feature rows of `nodes`: a gathered view of the full matrix, read only when multiplied.
        From a store, the view is read once, here: one orthogonal request, each chunk that holds a row
        read once (the layers then reuse the rows in memory)."""
        rows = self.features[nodes]
        return rows.compute() if self.stored else rows

    def forward(self, seeds: IntArray, rng: np.random.Generator | None = None) -> lt.AbstractTensor:
        """The logits of `seeds` (distinct nodes): neighbourhoods sampled from `rng` in training mode,
        every neighbour in evaluation mode."""
        fanouts = self.fanouts if self.training else (None,) * len(self.fanouts)
        nodes, (first, second) = sample_blocks(self.neighbours, seeds, fanouts, rng)
        h = self.conv1(self.dropout(self.fetch(nodes)), first.edges).relu()
        return self.conv2(self.dropout(h), second.edges)

    def streamed_logits(self, seeds: IntArray) -> lt.AbstractTensor:
        """The logits of `seeds` with every neighbour (as in evaluation mode), reading a store once in
        order: the first layer is linear in the features, so each needed row is projected by both of
        its weights as its block of the store streams by (`project`), and the layers run on that.
        Every neighbour of every evaluated node is a large share of the rows: a gather of them would
        hold them all in memory at once, and batches of them would read the store once per batch."""
        nodes, (first_block, second_block) = sample_blocks(self.neighbours, seeds, (None, None), None)
        root, neighbour = self.conv1.lin_r.weight.numpy(), self.conv1.lin_l.weight.numpy()  # (out, in)
        hidden = root.shape[0]
        projected = lt.from_numpy(self.project(nodes, np.concatenate([root.T, neighbour.T], axis=1)))
        edges = first_block.edges
        neighbours = edges.mean(edges.sources(projected[:, hidden:]))
        h = projected[: first_block.targets, :hidden] + neighbours + self.conv1.lin_l.bias
        return self.conv2(h.relu(), second_block.edges)

    def project(self, nodes: IntArray, weights: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
        """`features[nodes] @ weights`, the store read in order one block of whole chunks of rows at a
        time, only the blocks that hold some of `nodes`, each once."""
        chunks = getattr(getattr(self.features.base, "array", None), "chunks", None) or (STORE_ROWS,)
        width = int(self.features.shape[1])
        step = int(chunks[0]) * max(1, STREAM_BYTES // (int(chunks[0]) * width * 4))
        order = np.argsort(nodes, kind="stable")
        ordered = nodes[order]
        out = np.empty((len(nodes), weights.shape[1]), dtype=np.float32)
        for block in np.unique(ordered // step).tolist():
            lo, hi = np.searchsorted(ordered, [block * step, (block + 1) * step])
            rows = self.features[block * step : (block + 1) * step].numpy()
            out[order[lo:hi]] = rows[ordered[lo:hi] - block * step] @ weights
        return out


# ------------------------------------------------------------------------------------------ training


@attrs.frozen
class Run:
    seed: int
    train_accuracy: float
    val_accuracy: float
    test_accuracy: float
    best_epoch: int
    seconds_per_epoch: float


Model = gcn.GCN | GAT | SGC | APPNP | SAGE
FULL_BATCH: dict[str, Callable[[int, int, np.random.Generator], Model]] = {
    "gcn": lambda features, classes, rng: gcn.GCN(features, classes, rng, dtype=FLOAT),
    "gat": GAT,
    "sgc": SGC,
    "appnp": APPNP,
}


def build(
    name: str,
    graph: graphs.Graph,
    rng: np.random.Generator,
    fanouts: Sequence[int | None],
    features: lt.AbstractTensor | None = None,
) -> Model:
    """A fresh model `name` for `graph`, its weights drawn from `rng` (and its dropout masks, as it runs)."""
    if name == "sage":
        return SAGE(graph, rng, fanouts, features)
    return FULL_BATCH[name](graph.num_features, graph.num_classes, rng)


def optimizer_for(name: str, model: Model) -> lt.optim.Adam:
    """Adam with L2 weight decay: on the first layer only for the GCN (as Kipf & Welling), on every
    parameter otherwise."""
    settings = SETTINGS[name]
    if isinstance(model, gcn.GCN):
        groups = [
            {"params": model.conv1.parameters(), "weight_decay": settings.weight_decay},
            {"params": model.conv2.parameters()},
        ]
        return lt.optim.Adam(groups, lr=settings.learning_rate)
    return lt.optim.Adam(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)


def train_epoch(model: Model, data: Data, optimizer: lt.optim.Adam, rng: np.random.Generator) -> float:
    """One epoch in training mode: one step for a full-batch model, one step per batch of training
    nodes for SAGE."""
    graph = data.graph
    model.train()
    if isinstance(model, SAGE):
        order = rng.permutation(graph.train_idx)
        losses = []
        for start in range(0, len(order), SAGE_BATCH):
            seeds = order[start : start + SAGE_BATCH]
            optimizer.zero_grad()
            loss = nn.cross_entropy(model(seeds, rng), graph.labels[seeds])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return float(np.mean(losses))
    optimizer.zero_grad()
    loss = nn.cross_entropy(model(data.x, data.edge_index)[graph.train_idx], graph.labels[graph.train_idx])
    loss.backward()
    optimizer.step()
    return loss.item()


@attrs.frozen
class Scores:
    """Accuracy (and the validation loss) of one evaluation."""

    train: float
    val: float
    test: float
    val_loss: float


def evaluate(model: Model, data: Data) -> Scores:
    """Accuracies in evaluation mode: without dropout, with every neighbour."""
    graph = data.graph
    splits = (graph.train_idx, graph.val_idx, graph.test_idx)
    model.eval()
    with lt.no_grad():
        if isinstance(model, SAGE):
            nodes = np.unique(np.concatenate(splits))  # a node in two splits is one target
            logits = (model.streamed_logits(nodes) if model.stored else model(nodes)).numpy()
        else:
            nodes = np.arange(graph.num_nodes)
            logits = model(data.x, data.edge_index).numpy()
    row = np.empty(graph.num_nodes, dtype=np.intp)
    row[nodes] = np.arange(len(nodes))
    accuracies = [float((logits[row[idx]].argmax(1) == graph.labels[idx]).mean()) for idx in splits]
    val_logits = lt.from_numpy(logits[row[graph.val_idx]])
    val_loss = nn.cross_entropy(val_logits, graph.labels[graph.val_idx]).item()
    return Scores(*accuracies, val_loss)


def train(
    name: str,
    graph: graphs.Graph,
    epochs: int,
    seed: int,
    on_epoch: Callable[[int, float], None] | None = None,
    fanouts: Sequence[int | None] = SAGE_FANOUT,
    features: lt.AbstractTensor | None = None,
) -> tuple[Run, Model]:
    """Train a fresh model; report the scores of the epoch with the best validation accuracy."""
    rng = np.random.default_rng(seed)
    data = Data.of(graph)
    model = build(name, graph, rng, fanouts, features)
    optimizer = optimizer_for(name, model)
    best, best_epoch, seconds = None, -1, 0.0
    for epoch in range(epochs):
        start = time.perf_counter()
        loss = train_epoch(model, data, optimizer, rng)
        seconds += time.perf_counter() - start
        scores = evaluate(model, data)
        if best is None or (scores.val, -scores.val_loss) > (best.val, -best.val_loss):
            best, best_epoch = scores, epoch
        if on_epoch is not None:
            on_epoch(epoch, loss)
    if best is None:
        best = evaluate(model, data)
    run = Run(seed, best.train, best.val, best.test, best_epoch, seconds / max(epochs, 1))
    return run, model


# -------------------------------------------------------------------------------- explaining a node


LAST_LAYER = {
    "gcn": "conv2 (GCNConv): messages weighted by Â = D^-1/2 (A + I) D^-1/2",
    "gat": "conv2 (GATConv, 1 head): messages weighted by head 0's attention",
    "sage": "conv2 (SAGEConv): the mean of the in-neighbours, beside the node's own row",
    "sgc": "conv (SGConv): Â applied twice, weights of Â's last step",
    "appnp": "prop (APPNP): z ← 0.9 Â z + 0.1 h, weights of 0.9 Â",
}
"""Which layer sends the messages `--explain-node` shows, and what weighs them, for each model."""


def _predictions(model: Model, data: Data) -> tuple[IntArray, FloatArray]:
    """Each node's predicted class and its probability, in evaluation mode."""
    model.eval()
    with lt.no_grad():
        nodes = np.arange(data.graph.num_nodes)
        logits = (model(nodes) if isinstance(model, SAGE) else model(data.x, data.edge_index)).numpy()
    shifted = np.exp(logits - logits.max(1, keepdims=True))
    probabilities = shifted / shifted.sum(1, keepdims=True)
    return logits.argmax(1), probabilities.max(1)


def _last_layer_messages(model: Model, data: Data) -> tuple[nn.Edges, lt.AbstractTensor | None, list[str]]:
    """The last layer's edges, the weight each message carries (None where all count alike) and the
    weights' column names."""
    if isinstance(model, GAT):
        with lt.no_grad():
            _, (edges, attention) = model(data.x, data.edge_index, return_attention_weights=True)
        return edges, attention, ["head 0"]
    if isinstance(model, SAGE):
        return data.edge_index, None, []
    scale = 1.0 - APPNP_ALPHA if isinstance(model, APPNP) else 1.0
    propagation = nn.gcn_norm(data.edge_index, scale=scale)
    return propagation.edges, propagation.weight, ["Â weight"]


def explain_node(model: Model, data: Data, node: int, console: Console, verbose: bool = False) -> None:
    """Why `node` got its class: the class predicted (and the true one), the last layer that sent it
    messages and what weighed them, and each message's source with its classes; with `verbose`, the
    trace of the first message's weight down to storage."""
    graph, node = data.graph, node % data.graph.num_nodes
    predicted, confidence = _predictions(model, data)
    kind = next(name for name in MODELS if type(model).__name__.lower() == name)
    console.print(
        f"node {node}: predicted class {predicted[node]} (p = {confidence[node]:.2f}), "
        f"true class {graph.labels[node]}",
        highlight=False,
    )
    console.print(f"last layer {LAST_LAYER[kind]}", highlight=False)
    edges, weights, names = _last_layer_messages(model, data)
    sources = {"true class": graph.labels, "predicted": predicted}
    console.print(edges.explain_node(node, weights, weight_names=names, sources=sources))
    into = edges.into(node)
    agree = int((predicted[edges.src[into]] == predicted[node]).sum())
    console.print(f"{agree} of {len(into)} messages come from nodes predicted as class {predicted[node]}")
    if verbose and weights is not None and len(into):
        console.print(edges.label(weights).explain((int(into[0]), *([0] * (weights.ndim - 1)))))


# ----------------------------------------------------------------------------- features in a store


def write_feature_store(graph: graphs.Graph, store: Any, width: int, rows: int = STORE_ROWS) -> Any:
    """The graph's features widened to `width` columns by a fixed random projection (the same
    information in a matrix `width / F` times bigger), written to a new zarr array in `store` (a path or
    a zarr store) in chunks of `rows` whole rows, uncompressed, a block of rows at a time (memory stays
    bounded). Returns the zarr array."""
    zarr = importlib.import_module("zarr")
    projection = np.random.default_rng(PROJECTION_SEED).normal(
        0.0, 1.0 / np.sqrt(graph.num_features), (graph.num_features, width)
    )
    array = zarr.create_array(
        store=str(store) if isinstance(store, Path) else store,
        shape=(graph.num_nodes, width),
        chunks=(rows, width),
        dtype="float32",
        compressors=None,
        fill_value=0.0,
    )
    step = rows * max(1, WRITE_BYTES // (rows * width * 4))
    for start in range(0, graph.num_nodes, step):
        block = graph.features[start : start + step].astype(np.float64) @ projection
        array[start : start + step] = block.astype(np.float32)
    return array


def open_feature_store(path: Path, graph: graphs.Graph) -> lt.AbstractTensor:
    """The feature store at `path` as a read-only zarr-backed tensor, one row per node of `graph`."""
    features = lt.open(path, mode="r")
    if features.ndim != 2 or features.shape[0] != graph.num_nodes:
        raise ValueError(
            f"{path}: features of shape {features.shape}, but {graph.name} has {graph.num_nodes:,} nodes: "
            "expected (nodes, features)"
        )
    if features.dtype != np.float32:
        raise ValueError(
            f"{path}: features of dtype {features.dtype}, expected float32 (as the model's weights)"
        )
    return features


def store_line(path: Path, features: lt.AbstractTensor) -> str:
    """What the run reads its features from, in one line."""
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return f"features: {path} · {features.shape} {features.dtype} · {size / 2**30:.2f} GiB on disk"


# ---------------------------------------------------------------------------------------------- CLI


def parse_fanouts(text: str) -> tuple[int | None, ...]:
    """`10,10` or `all` (every neighbour: full-batch training)."""
    if text == "all":
        return (None, None)
    try:
        fanouts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"fan-outs are positive integers like 10,10 or 'all', got {text!r}"
        ) from None
    if len(fanouts) != 2 or min(fanouts) < 1:
        raise argparse.ArgumentTypeError(f"give two positive fan-outs like 10,10, got {text!r}")
    return fanouts


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Train a graph neural network with lazytensor.")
    parser.add_argument("--model", choices=MODELS, default="gcn")
    gcn.add_common_arguments(parser, epochs=None)  # None: the model's own
    parser.add_argument(
        "--fanout",
        type=parse_fanouts,
        default=SAGE_FANOUT,
        help="sage: neighbours sampled per layer, or 'all'",
    )
    parser.add_argument(
        "--explain-node",
        type=int,
        help="print this node's prediction and where its last-layer messages came from",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="with --explain-node: trace a message's weight down to storage"
    )
    parser.add_argument(
        "--features-zarr",
        type=Path,
        help="sage: read the node features from this zarr store (rows: nodes), only the chunks a batch needs",
    )
    parser.add_argument(
        "--write-features-zarr",
        type=Path,
        help="write the graph's features, widened to --feature-width columns, to a new zarr store and exit",
    )
    parser.add_argument(
        "--feature-width", type=int, default=1024, help="columns of the store --write-features-zarr writes"
    )
    return parser.parse_args(argv)


def stored_features(
    args: argparse.Namespace, graph: graphs.Graph, console: Console
) -> lt.AbstractTensor | None:
    """The features `--features-zarr` names (None without it); ValueError when they do not fit."""
    if args.features_zarr is None:
        return None
    if args.model != "sage":
        raise ValueError(
            f"--features-zarr feeds GraphSAGE's sampled batches: give --model sage, not {args.model}"
        )
    features = open_feature_store(args.features_zarr, graph)
    if not args.quiet:
        console.print(store_line(args.features_zarr, features), highlight=False)
    return features


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console()
    graph = gcn.load_graph(args, "gnn")
    if graph is None:
        return 2
    if args.explain_node is not None and not -graph.num_nodes <= args.explain_node < graph.num_nodes:
        print(
            f"gnn: --explain-node {args.explain_node} is not a node of "
            f"{graph.name} ({graph.num_nodes:,} nodes)",
            file=sys.stderr,
        )
        return 2
    if args.write_features_zarr is not None:
        try:
            write_feature_store(graph, args.write_features_zarr, args.feature_width)
        except (ValueError, OSError) as error:
            print(f"gnn: {' '.join(str(error).split())}", file=sys.stderr)
            return 2
        if not args.quiet:
            console.print(store_line(args.write_features_zarr, lt.open(args.write_features_zarr, mode="r")))
        return 0
    try:
        features = stored_features(args, graph, console)
    except (ValueError, OSError) as error:
        print(f"gnn: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    epochs = SETTINGS[args.model].epochs if args.epochs is None else args.epochs
    runs, model = [], None
    with gcn.training_progress(console, args.quiet) as progress:
        for seed in range(args.seeds):
            description = f"{args.model} {graph.name} seed {seed}"
            task = progress.add_task(description, total=epochs, loss=float("nan"))
            run, model = train(
                args.model,
                graph,
                epochs,
                seed,
                lambda _, loss, t=task: progress.update(t, advance=1, loss=loss),
                args.fanout,
                features,
            )
            runs.append(run)
    result = {"model": args.model, **gcn.summary(graph, epochs, runs)}
    gcn.report(console, args, result, f"{args.model.upper()} with lazytensor")
    if args.explain_node is not None and model is not None:
        explain_node(model, Data.of(graph), args.explain_node, console, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())

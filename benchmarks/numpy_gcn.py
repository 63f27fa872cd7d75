"""A hand-written numpy GCN (Kipf & Welling 2017): the reference for lazytensor's GCN benchmark and gradients.

Two layers, logits = Â · (dropout(relu(Â · (dropout(X) W0))) W1) with Â = D^-1/2 (A+I) D^-1/2 applied by
edge-list message passing: gather the rows h[src], scale by the per-edge weight 1/sqrt(deg[src] deg[dst]),
segment-sum into dst. Forward and backward written out by hand; Adam with L2 weight decay on W0 only.

Randomness, in this order, all from one `np.random.default_rng(seed)`: W0 then W1 (`glorot_uniform`), then
per epoch the input mask then the hidden mask (`dropout_mask`). A lazytensor port that draws the same way
gets bit-for-bit the same masks and initial weights.

    python benchmarks/numpy_gcn.py --dataset cora --seeds 10
    python benchmarks/numpy_gcn.py --segment-sums     # time the segment-sum candidates
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from graphs import Graph, load

Array = npt.NDArray[Any]

HIDDEN = 16
DROPOUT = 0.5
LEARNING_RATE = 0.01
WEIGHT_DECAY = 5e-4
EPOCHS = 200


# -------------------------------------------------------------------------------------- segment sums


def segment_starts(sorted_ids: Array) -> tuple[Array, Array]:
    """For ids sorted ascending: where each run of equal ids starts, and the id of each run."""
    if sorted_ids.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], sorted_ids[1:] != sorted_ids[:-1]]))
    return starts, sorted_ids[starts]


def segment_sum_sorted(values: Array, starts: Array, run_ids: Array, num_segments: int) -> Array:
    """out[run_ids[k]] = values[starts[k]:starts[k+1]].sum(0): `np.add.reduceat` over pre-sorted rows.

    The fastest of the candidates measured (`--segment-sums`); empty segments stay zero.
    """
    if run_ids.size == num_segments:  # every segment present (true with self loops): no scatter needed
        return np.add.reduceat(values, starts, axis=0)
    out = np.zeros((num_segments, *values.shape[1:]), dtype=values.dtype)
    if starts.size:
        out[run_ids] = np.add.reduceat(values, starts, axis=0)
    return out


def segment_sum_reduceat(values: Array, ids: Array, num_segments: int) -> Array:
    """Segment sum of unsorted ids: a stable argsort, then `segment_sum_sorted`."""
    order = np.argsort(ids, kind="stable")
    starts, run_ids = segment_starts(ids[order])
    return segment_sum_sorted(values[order], starts, run_ids, num_segments)


def segment_sum_bincount(values: Array, ids: Array, num_segments: int) -> Array:
    """Segment sum with one `np.bincount` per column (accumulates in float64, cast back)."""
    columns = values.reshape(values.shape[0], -1)
    out = np.empty((num_segments, columns.shape[1]), dtype=values.dtype)
    for c in range(columns.shape[1]):
        out[:, c] = np.bincount(ids, weights=columns[:, c], minlength=num_segments)
    return out.reshape(num_segments, *values.shape[1:])


# --------------------------------------------------------------------------------- message passing


@attrs.frozen(eq=False)
class EdgeList:
    """Edges src -> dst with weights, sorted by dst, and the segment runs for summing into dst."""

    src: Array
    dst: Array
    weight: Array
    starts: Array
    run_ids: Array

    @classmethod
    def sorted_by_dst(cls, src: Array, dst: Array, weight: Array) -> EdgeList:
        order = np.lexsort((src, dst))
        starts, run_ids = segment_starts(dst[order])
        return cls(src[order], dst[order], weight[order], starts, run_ids)

    def propagate(self, h: Array, num_nodes: int) -> Array:
        """out[d] = sum over edges s -> d of weight * h[s]: gather rows, scale, segment-sum into dst."""
        messages = np.take(h, self.src, axis=0)  # = h[self.src], ~1.5x faster than fancy indexing
        messages *= self.weight[:, None]
        return segment_sum_sorted(messages, self.starts, self.run_ids, num_nodes)


@attrs.frozen(eq=False)
class NormalisedAdjacency:
    """Â = D^-1/2 (A+I) D^-1/2 as an edge list with self loops, and its transpose for the backward pass."""

    num_nodes: int
    forward: EdgeList
    transpose: EdgeList

    @classmethod
    def from_graph(cls, graph: Graph, dtype: npt.DTypeLike = np.float32) -> NormalisedAdjacency:
        n = graph.num_nodes
        loops = np.arange(n, dtype=np.int64)
        src = np.concatenate([graph.src, loops])
        dst = np.concatenate([graph.dst, loops])
        degree = np.bincount(dst, minlength=n).astype(np.float64)  # in-degree of A+I (= out-degree)
        weight = (1.0 / np.sqrt(degree[src] * degree[dst])).astype(dtype)
        return cls(n, EdgeList.sorted_by_dst(src, dst, weight), EdgeList.sorted_by_dst(dst, src, weight))

    def __call__(self, h: Array) -> Array:
        return self.forward.propagate(h, self.num_nodes)

    def backward(self, grad: Array) -> Array:
        """Âᵀ · grad, the gradient of `self(h)` with respect to h."""
        return self.transpose.propagate(grad, self.num_nodes)


# ------------------------------------------------------------------------- randomness and the model


def dropout_mask(rng: np.random.Generator, shape: tuple[int, ...], p: float, dtype: npt.DTypeLike) -> Array:
    """Inverted-dropout mask: keep where `rng.random(shape, dtype=np.float32) >= p`, kept entries 1/(1-p).

    The one documented draw shared with the lazytensor GCN (float32 draws: ~30% faster than float64).
    """
    keep = rng.random(shape, dtype=np.float32) >= p
    mask: Array = keep.astype(dtype) * np.asarray(1.0 / (1.0 - p), dtype=dtype)
    return mask


def glorot_uniform(rng: np.random.Generator, fan_in: int, fan_out: int, dtype: npt.DTypeLike) -> Array:
    """Glorot/Xavier uniform init: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)), drawn in float64."""
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, (fan_in, fan_out)).astype(dtype)


@attrs.frozen(eq=False)
class Gradients:
    """The mean train-node cross-entropy (no weight-decay term) and its gradients."""

    loss: float
    w0: Array
    w1: Array


def forward(
    adjacency: NormalisedAdjacency,
    features: Array,
    w0: Array,
    w1: Array,
    mask_x: Array | None = None,
    mask_h: Array | None = None,
) -> Array:
    """Logits (N, C); masks None means evaluation (no dropout)."""
    x = features if mask_x is None else features * mask_x
    h = np.maximum(adjacency(x @ w0), 0)
    if mask_h is not None:
        h = h * mask_h
    return adjacency(h @ w1)


def loss_and_grads(
    adjacency: NormalisedAdjacency,
    features: Array,
    labels: Array,
    train_idx: Array,
    w0: Array,
    w1: Array,
    mask_x: Array | None = None,
    mask_h: Array | None = None,
) -> Gradients:
    """Forward and hand-written backward of the mean softmax cross-entropy over `train_idx`.

    Works in the dtype of the inputs: give float64 everything for exact comparisons with autograd.
    """
    x = features if mask_x is None else features * mask_x
    pre_hidden = adjacency(x @ w0)  # (N, H)
    hidden = np.maximum(pre_hidden, 0)
    dropped = hidden if mask_h is None else hidden * mask_h
    logits = adjacency(dropped @ w1)  # (N, C)

    train_logits = logits[train_idx]
    shifted = train_logits - train_logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(len(train_idx))
    loss = -float(log_probs[rows, labels[train_idx]].mean())

    grad_train = np.exp(log_probs)  # softmax - one_hot, over the number of train nodes
    grad_train[rows, labels[train_idx]] -= 1
    grad_logits = np.zeros_like(logits)
    grad_logits[train_idx] = grad_train / len(train_idx)

    grad_z1 = adjacency.backward(grad_logits)  # logits = Â z1, z1 = dropped @ w1
    grad_w1 = dropped.T @ grad_z1
    grad_hidden = grad_z1 @ w1.T
    if mask_h is not None:
        grad_hidden = grad_hidden * mask_h
    grad_z0 = adjacency.backward(grad_hidden * (pre_hidden > 0))  # pre_hidden = Â z0, z0 = x @ w0
    grad_w0 = x.T @ grad_z0
    return Gradients(loss, grad_w0, grad_w1)


@attrs.define
class Adam:
    """Adam (β 0.9 / 0.999, ε 1e-8, bias-corrected) with L2 weight decay added to the gradient, as the
    reference GCN's `weight_decay * l2_loss(W0)` term; updates the parameters in place."""

    params: list[Array]
    lr: float = LEARNING_RATE
    weight_decay: list[float] = attrs.field(factory=list)
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    step_count: int = 0
    m: list[Array] = attrs.field(init=False)
    v: list[Array] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        if not self.weight_decay:
            self.weight_decay = [0.0] * len(self.params)

    def step(self, grads: list[Array]) -> None:
        self.step_count += 1
        beta1, beta2 = self.betas
        correction1 = 1 - beta1**self.step_count
        correction2 = 1 - beta2**self.step_count
        for p, g, m, v, decay in zip(self.params, grads, self.m, self.v, self.weight_decay, strict=True):
            if decay:
                g = g + decay * p
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            p -= self.lr * (m / correction1) / (np.sqrt(v / correction2) + self.eps)


def accuracy(logits: Array, labels: Array, idx: Array) -> float:
    return float(np.mean(logits[idx].argmax(axis=1) == labels[idx]))


def train(
    graph: Graph, epochs: int = EPOCHS, seed: int = 0, dtype: npt.DTypeLike = np.float32
) -> dict[str, float]:
    """Train from scratch for `epochs` full-batch epochs; accuracies of the final weights.

    seconds_per_epoch times the training steps only (masks, forward, backward, Adam), not evaluation.
    """
    rng = np.random.default_rng(seed)
    adjacency = NormalisedAdjacency.from_graph(graph, dtype)
    features = graph.features.astype(dtype, copy=False)
    w0 = glorot_uniform(rng, graph.num_features, HIDDEN, dtype)
    w1 = glorot_uniform(rng, HIDDEN, graph.num_classes, dtype)
    optimiser = Adam([w0, w1], weight_decay=[WEIGHT_DECAY, 0.0])
    loss = float("nan")
    start = time.perf_counter()
    for _ in range(epochs):
        mask_x = dropout_mask(rng, features.shape, DROPOUT, dtype)
        mask_h = dropout_mask(rng, (graph.num_nodes, HIDDEN), DROPOUT, dtype)
        grads = loss_and_grads(adjacency, features, graph.labels, graph.train_idx, w0, w1, mask_x, mask_h)
        optimiser.step([grads.w0, grads.w1])
        loss = grads.loss
    seconds = time.perf_counter() - start
    logits = forward(adjacency, features, w0, w1)
    return {
        "loss": loss,
        "train_accuracy": accuracy(logits, graph.labels, graph.train_idx),
        "val_accuracy": accuracy(logits, graph.labels, graph.val_idx),
        "test_accuracy": accuracy(logits, graph.labels, graph.test_idx),
        "seconds_per_epoch": seconds / max(epochs, 1),
    }


# ------------------------------------------------------------------------------------------- command


def time_segment_sums(graph: Graph, width: int, repeats: int = 10) -> dict[str, float]:
    """Milliseconds per segment sum of (E + N, width) float32 messages into the nodes, per candidate."""
    adjacency = NormalisedAdjacency.from_graph(graph)
    edges = adjacency.forward
    messages = np.random.default_rng(0).random((edges.src.size, width), dtype=np.float32)
    n = graph.num_nodes
    shuffled = np.random.default_rng(1).permutation(edges.src.size)
    unsorted_messages, unsorted_dst = messages[shuffled], edges.dst[shuffled]

    def add_at() -> Array:
        out = np.zeros((n, width), dtype=np.float32)
        np.add.at(out, edges.dst, messages)
        return out

    candidates = {
        "reduceat (pre-sorted)": lambda: segment_sum_sorted(messages, edges.starts, edges.run_ids, n),
        "sort + reduceat": lambda: segment_sum_reduceat(unsorted_messages, unsorted_dst, n),
        "bincount per column": lambda: segment_sum_bincount(messages, edges.dst, n),
        "np.add.at": add_at,
    }
    timings = {}
    for name, run in candidates.items():
        run()
        start = time.perf_counter()
        for _ in range(repeats):
            run()
        timings[name] = (time.perf_counter() - start) / repeats * 1e3
    return timings


# ------------------------------------------------------------------------------------------- command


def reference_parser(description: str | None, epochs: int) -> argparse.ArgumentParser:
    """The flags every numpy reference takes (those of the lazytensor examples they mirror)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dataset", default="karate")
    parser.add_argument("--data", default=None, help="folder with the Planetoid ind.* files")
    parser.add_argument("--nodes", type=int, default=None, help="sbm size")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--float64", action="store_true", help="train in float64 instead of float32")
    return parser


def load_reported(args: argparse.Namespace) -> Graph | None:
    """The graph the flags name, described in one line; None after printing why it cannot load."""
    try:
        graph = load(args.dataset, args.data, args.nodes)
    except (ValueError, FileNotFoundError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return None
    print(f"{graph.name}: {graph.num_nodes} nodes, {graph.num_edges} edges, {graph.num_features} features")
    return graph


def run_seeds(train_one: Any, seeds: int) -> None:
    """Train `seeds` seeds with `train_one(seed)` and print each run and the summary."""
    results = []
    for seed in range(seeds):
        result = train_one(seed)
        results.append(result)
        epoch = f"  (epoch {result['best_epoch']})" if "best_epoch" in result else ""
        print(
            f"  seed {seed}: train {result['train_accuracy']:.3f}  val {result['val_accuracy']:.3f}  "
            f"test {result['test_accuracy']:.4f}{epoch}  {result['seconds_per_epoch'] * 1e3:.2f} ms/epoch"
        )
    tests = np.array([r["test_accuracy"] for r in results])
    per_epoch = np.median([r["seconds_per_epoch"] for r in results])
    print(f"  test accuracy {tests.mean():.4f} ± {tests.std():.4f}, median {per_epoch * 1e3:.2f} ms/epoch")


def reference_main(argv: list[str] | None, description: str | None, epochs: int, train_one: Any) -> int:
    """The command line of a numpy reference: load a graph, train `--seeds` seeds with
    `train_one(graph, epochs, seed, dtype)`, print each run and the mean."""
    args = reference_parser(description, epochs).parse_args(argv)
    graph = load_reported(args)
    if graph is None:
        return 2
    dtype = np.float64 if args.float64 else np.float32
    run_seeds(lambda seed: train_one(graph, args.epochs, seed, dtype), args.seeds)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = reference_parser(__doc__.splitlines()[0] if __doc__ else None, EPOCHS)
    parser.add_argument("--segment-sums", action="store_true", help="time the segment-sum candidates")
    args = parser.parse_args(argv)
    graph = load_reported(args)
    if graph is None:
        return 2
    if args.segment_sums:
        for width in sorted({HIDDEN, graph.num_classes}):
            timings = time_segment_sums(graph, width)
            print(f"  width {width:2d}: " + ", ".join(f"{k} {v:.3f} ms" for k, v in timings.items()))
        return 0
    dtype = np.float64 if args.float64 else np.float32
    run_seeds(lambda seed: train(graph, args.epochs, seed, dtype), args.seeds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A hand-written numpy GAT (Veličković et al. 2018): the reference for examples/gnn.py's GAT benchmark and
gradients.

Two attention layers on the edges with a self loop at every node, grouped by target (sorted by (dst, src)):
8 heads of 8 units with ELU, then one head of `classes` units. Per layer and head, edge `s → d` scores
`leaky_relu(a_src · W h_s + a_dst · W h_d, 0.2)`, a softmax over the edges into `d` (shifted by the
per-target maximum), dropout on the attention weights, and the weighted rows `W h_s` summed into `d`.
Dropout 0.6 on each layer's input. Forward and backward written out by hand; Adam with L2 weight decay
5e-4 on every parameter, lr 0.005.

Segment reductions over the edges are `np.maximum.reduceat` / `np.add.reduceat` on the grouped edges
(every node has its self loop, so every segment is non-empty); sums into the *sources* (backward) go
through a permutation of the edges that groups them by source, computed once.

Randomness, in this order, all from one `np.random.default_rng(seed)`, as `gnn.GAT`: the hidden layer's
W, a_src, a_dst, then the output layer's (`glorot_uniform`); per epoch the input mask (N, F), the first
layer's attention mask (E, 8), the hidden mask (N, 64) and the second layer's attention mask (E, 1)
(`dropout_mask`).

    python benchmarks/numpy_gat.py --dataset cora --seeds 10
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "examples")]
from graphs import Graph  # noqa: E402
from numpy_gcn import Adam, dropout_mask, glorot_uniform, reference_main, segment_starts  # noqa: E402

Array = npt.NDArray[Any]

HEADS = 8
UNITS = 8
SLOPE = 0.2
DROPOUT = 0.6
LEARNING_RATE = 0.005
WEIGHT_DECAY = 5e-4
EPOCHS = 300


# ------------------------------------------------------------------------------------------ the edges


@attrs.frozen(eq=False)
class GatEdges:
    """The graph's edges and a self loop at every node, sorted by (dst, src), with the segment starts of
    each target and the permutation that groups the same edges by source (for the backward sums)."""

    src: Array
    dst: Array
    num_nodes: int
    starts: Array  # into the (dst, src) order: node d's edges are starts[d]:starts[d + 1]
    by_src: Array  # edge ids grouped by source
    src_starts: Array  # into the by_src order

    @classmethod
    def of(cls, graph: Graph) -> GatEdges:
        n = graph.num_nodes
        loops = np.arange(n)
        src = np.concatenate([graph.src, loops]).astype(np.intp)
        dst = np.concatenate([graph.dst, loops]).astype(np.intp)
        order = np.lexsort((src, dst))
        src, dst = src[order], dst[order]
        starts, run_ids = segment_starts(dst)
        by_src = np.argsort(src, kind="stable")
        src_starts, src_ids = segment_starts(src[by_src])
        assert run_ids.size == n and src_ids.size == n  # every node has its self loop
        return cls(src, dst, n, starts, by_src, src_starts)

    @property
    def count(self) -> int:
        return int(self.src.size)

    def sum_into_targets(self, values: Array) -> Array:
        """out[d] = sum of values[k] over the edges k into d."""
        return np.add.reduceat(values, self.starts, axis=0)

    def max_into_targets(self, values: Array) -> Array:
        return np.maximum.reduceat(values, self.starts, axis=0)

    def sum_into_sources(self, values: Array) -> Array:
        """out[s] = sum of values[k] over the edges k out of s."""
        return np.add.reduceat(np.take(values, self.by_src, axis=0), self.src_starts, axis=0)


# ----------------------------------------------------------------------------------- parameters, draws


@attrs.define(eq=False)
class Layer:
    """One attention layer's parameters: w (in, heads * units), att_src and att_dst (heads, units), bias."""

    w: Array
    att_src: Array
    att_dst: Array
    bias: Array

    @classmethod
    def init(cls, rng: np.random.Generator, fan_in: int, heads: int, units: int, dtype: Any) -> Layer:
        w = glorot_uniform(rng, fan_in, heads * units, dtype)
        att_src = glorot_uniform(rng, heads, units, dtype)
        att_dst = glorot_uniform(rng, heads, units, dtype)
        return cls(w, att_src, att_dst, np.zeros(heads * units, dtype=dtype))

    @property
    def heads(self) -> int:
        return int(self.att_src.shape[0])

    def parameters(self) -> list[Array]:
        return [self.w, self.att_src, self.att_dst, self.bias]


def init_layers(graph: Graph, rng: np.random.Generator, dtype: Any = np.float32) -> tuple[Layer, Layer]:
    """The two layers, drawn in `gnn.GAT`'s order."""
    hidden = Layer.init(rng, graph.num_features, HEADS, UNITS, dtype)
    output = Layer.init(rng, HEADS * UNITS, 1, graph.num_classes, dtype)
    return hidden, output


def parameters(layers: tuple[Layer, Layer]) -> list[Array]:
    """In the order of `gnn.GAT`'s layers: w, att_src, att_dst, bias each."""
    return layers[0].parameters() + layers[1].parameters()


@attrs.frozen(eq=False)
class Masks:
    """One epoch's dropout masks, in the order they are drawn."""

    x: Array  # (N, F)
    attention1: Array  # (E, heads)
    hidden: Array  # (N, heads * units)
    attention2: Array  # (E, 1)

    @classmethod
    def draw(cls, rng: np.random.Generator, graph: Graph, edges: GatEdges, dtype: Any) -> Masks:
        n = graph.num_nodes
        x = dropout_mask(rng, (n, graph.num_features), DROPOUT, dtype)
        attention1 = dropout_mask(rng, (edges.count, HEADS), DROPOUT, dtype)
        hidden = dropout_mask(rng, (n, HEADS * UNITS), DROPOUT, dtype)
        attention2 = dropout_mask(rng, (edges.count, 1), DROPOUT, dtype)
        return cls(x, attention1, hidden, attention2)


# ------------------------------------------------------------------------------- forward and backward


@attrs.frozen(eq=False)
class LayerCache:
    """What one layer's backward needs from its forward."""

    x: Array
    z: Array  # (N, heads, units) = x @ w
    raw: Array  # (E, heads) scores before leaky_relu
    attention: Array  # (E, heads)
    dropped: Array  # (E, heads) attention * mask
    z_src: Array  # (E, heads, units) = z[src]
    mask: Array | None


def layer_forward(
    layer: Layer, x: Array, edges: GatEdges, mask: Array | None
) -> tuple[Array, Array, LayerCache]:
    """The layer's output (N, heads * units), its attention weights (E, heads) and the cache."""
    n, heads = edges.num_nodes, layer.heads
    z = (x @ layer.w).reshape(n, heads, -1)
    score_src = np.einsum("nhu,hu->nh", z, layer.att_src)
    score_dst = np.einsum("nhu,hu->nh", z, layer.att_dst)
    raw = np.take(score_src, edges.src, axis=0)
    raw += np.take(score_dst, edges.dst, axis=0)
    scores = np.where(raw > 0, raw, raw * SLOPE)
    scores -= np.take(edges.max_into_targets(scores), edges.dst, axis=0)
    attention = np.exp(scores, out=scores)
    attention /= np.take(edges.sum_into_targets(attention), edges.dst, axis=0)
    dropped = attention if mask is None else attention * mask
    z_src = np.take(z, edges.src, axis=0)  # (E, heads, units)
    out = edges.sum_into_targets(z_src * dropped[:, :, None]).reshape(n, -1)
    out += layer.bias
    return out, attention, LayerCache(x, z, raw, attention, dropped, z_src, mask)


def layer_backward(
    layer: Layer, cache: LayerCache, grad_out: Array, edges: GatEdges, need_input: bool
) -> tuple[list[Array], Array | None]:
    """Gradients of (w, att_src, att_dst, bias), and of the input when `need_input`."""
    n, heads = edges.num_nodes, layer.heads
    grad_bias = grad_out.sum(axis=0)
    grad_out = grad_out.reshape(n, heads, -1)
    grad_messages = np.take(grad_out, edges.dst, axis=0)  # (E, heads, units)
    grad_dropped = np.einsum("ehu,ehu->eh", grad_messages, cache.z_src)
    grad_messages *= cache.dropped[:, :, None]
    grad_z = edges.sum_into_sources(grad_messages)  # through z[src]
    grad_attention = grad_dropped if cache.mask is None else grad_dropped * cache.mask
    # softmax over the edges into each target: g_s = a * (g_a - sum over the target's edges of a * g_a)
    weighted = cache.attention * grad_attention
    grad_scores = weighted - cache.attention * np.take(edges.sum_into_targets(weighted), edges.dst, axis=0)
    grad_raw = np.where(cache.raw > 0, grad_scores, grad_scores * SLOPE)
    grad_score_src = edges.sum_into_sources(grad_raw)  # (N, heads)
    grad_score_dst = edges.sum_into_targets(grad_raw)
    grad_att_src = np.einsum("nh,nhu->hu", grad_score_src, cache.z)
    grad_att_dst = np.einsum("nh,nhu->hu", grad_score_dst, cache.z)
    grad_z += grad_score_src[:, :, None] * layer.att_src
    grad_z += grad_score_dst[:, :, None] * layer.att_dst
    grad_z = grad_z.reshape(n, -1)
    grad_w = cache.x.T @ grad_z
    grad_x = grad_z @ layer.w.T if need_input else None
    return [grad_w, grad_att_src, grad_att_dst, grad_bias], grad_x


def elu(x: Array) -> Array:
    """`x` where positive, else `exp(x) - 1` (as `nn.elu`: the exponential sees `min(x, 0)` only)."""
    return np.where(x > 0, x, np.exp(np.minimum(x, 0)) - 1)


def forward(
    edges: GatEdges, features: Array, layers: tuple[Layer, Layer], masks: Masks | None = None
) -> tuple[Array, Array]:
    """The logits (N, classes) and the last layer's attention (E, 1); `masks` None evaluates."""
    x = features if masks is None else features * masks.x
    h, _, _ = layer_forward(layers[0], x, edges, None if masks is None else masks.attention1)
    h = elu(h)
    if masks is not None:
        h *= masks.hidden
    logits, attention, _ = layer_forward(layers[1], h, edges, None if masks is None else masks.attention2)
    return logits, attention


def cross_entropy(logits: Array, labels: Array) -> tuple[float, Array]:
    """The mean softmax cross-entropy and its gradient with respect to `logits`."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(len(labels))
    loss = -float(log_probs[rows, labels].mean())
    grad = np.exp(log_probs)
    grad[rows, labels] -= 1
    grad /= len(labels)
    return loss, grad


def loss_and_grads(
    edges: GatEdges,
    features: Array,
    labels: Array,
    train_idx: Array,
    layers: tuple[Layer, Layer],
    masks: Masks | None = None,
) -> tuple[float, list[Array]]:
    """The mean train cross-entropy (no weight-decay term) and the gradient of every parameter, in
    `parameters(layers)` order. Works in the inputs' dtype: float64 everything for exact comparisons."""
    x = features if masks is None else features * masks.x
    pre_hidden, _, cache1 = layer_forward(layers[0], x, edges, None if masks is None else masks.attention1)
    hidden = elu(pre_hidden)
    dropped = hidden if masks is None else hidden * masks.hidden
    logits, _, cache2 = layer_forward(layers[1], dropped, edges, None if masks is None else masks.attention2)

    loss, grad_train = cross_entropy(logits[train_idx], labels[train_idx])
    grad_logits = np.zeros_like(logits)
    grad_logits[train_idx] = grad_train

    grads2, grad_dropped = layer_backward(layers[1], cache2, grad_logits, edges, need_input=True)
    assert grad_dropped is not None
    grad_hidden = grad_dropped if masks is None else grad_dropped * masks.hidden
    # elu'(x) = 1 for x > 0, exp(x) otherwise
    grad_pre = np.where(pre_hidden > 0, grad_hidden, grad_hidden * np.exp(np.minimum(pre_hidden, 0)))
    grads1, _ = layer_backward(layers[0], cache1, grad_pre, edges, need_input=False)
    return loss, grads1 + grads2


# -------------------------------------------------------------------------------------------- training


@attrs.define(eq=False)
class Trainer:
    """A fresh model, its optimiser and its generator: `epoch()` trains one epoch, as `gnn.train_epoch`."""

    graph: Graph
    edges: GatEdges
    features: Array
    layers: tuple[Layer, Layer]
    optimiser: Adam
    rng: np.random.Generator
    dtype: Any

    @classmethod
    def init(cls, graph: Graph, seed: int | np.random.Generator = 0, dtype: Any = np.float32) -> Trainer:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        layers = init_layers(graph, rng, dtype)
        params = parameters(layers)
        optimiser = Adam(params, lr=LEARNING_RATE, weight_decay=[WEIGHT_DECAY] * len(params))
        features = graph.features.astype(dtype, copy=False)
        return cls(graph, GatEdges.of(graph), features, layers, optimiser, rng, dtype)

    def epoch(self) -> float:
        graph = self.graph
        masks = Masks.draw(self.rng, graph, self.edges, self.dtype)
        loss, grads = loss_and_grads(
            self.edges, self.features, graph.labels, graph.train_idx, self.layers, masks
        )
        self.optimiser.step(grads)
        return loss

    def evaluate(self) -> dict[str, float]:
        """Accuracies without dropout, and the validation loss (for picking the best epoch)."""
        logits, _ = forward(self.edges, self.features, self.layers)
        return scores(logits, self.graph)


def scores(logits: Array, graph: Graph) -> dict[str, float]:
    """Train / validation / test accuracy and the validation loss of full-graph logits."""
    splits = {"train": graph.train_idx, "val": graph.val_idx, "test": graph.test_idx}
    result = {
        name: float((logits[idx].argmax(1) == graph.labels[idx]).mean()) for name, idx in splits.items()
    }
    result["val_loss"], _ = cross_entropy(logits[graph.val_idx], graph.labels[graph.val_idx])
    return result


def best_of(trainer: Any, epochs: int) -> dict[str, float]:
    """Train `epochs` epochs; the scores of the epoch with the best validation accuracy (ties: the lower
    validation loss), as `gnn.train` picks them. seconds_per_epoch times the training steps only."""
    best: dict[str, float] | None = None
    best_epoch, seconds, loss = -1, 0.0, float("nan")
    for epoch in range(epochs):
        start = time.perf_counter()
        loss = trainer.epoch()
        seconds += time.perf_counter() - start
        current = trainer.evaluate()
        if best is None or (current["val"], -current["val_loss"]) > (best["val"], -best["val_loss"]):
            best, best_epoch = current, epoch
    if best is None:
        best = trainer.evaluate()
    return {
        "loss": loss,
        "train_accuracy": best["train"],
        "val_accuracy": best["val"],
        "test_accuracy": best["test"],
        "best_epoch": best_epoch,
        "seconds_per_epoch": seconds / max(epochs, 1),
    }


def train(graph: Graph, epochs: int = EPOCHS, seed: int = 0, dtype: Any = np.float32) -> dict[str, float]:
    """Train a fresh GAT; the scores of the epoch with the best validation accuracy."""
    return best_of(Trainer.init(graph, seed, dtype), epochs)


def main(argv: list[str] | None = None) -> int:
    return reference_main(argv, __doc__.splitlines()[0] if __doc__ else None, EPOCHS, train)


if __name__ == "__main__":
    raise SystemExit(main())

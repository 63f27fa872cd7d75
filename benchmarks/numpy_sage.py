"""A hand-written numpy GraphSAGE-mean (Hamilton et al. 2017) on sampled neighbourhoods: the reference for
examples/gnn.py's SAGE benchmark and gradients.

Two layers, `h_d W_self + mean(h_s W_neigh for the sampled s → d) + b`, relu between them, dropout 0.5 on
each layer's input; fan-out 10, 10 and batches of 1,024 training nodes. Forward and backward written out
by hand; Adam with L2 weight decay 5e-4 on every parameter, lr 0.01.

The sampler is examples/gnn.py's own numpy (`Neighbours.sample`, `relabel`), called in `sample_blocks`'s
order with plain arrays, so the draws are the same: per epoch `rng.permutation` of the train nodes, then
per batch the sampler's keys (last layer first) and the dropout masks of layer 1's input (n_src, F) and
layer 2's input (n_mid, 64). Parameters are drawn as `gnn.SAGE` draws them: per layer W_self (`lin_r`),
then W_neigh (`lin_l`).

The sampled edges of a block come grouped by target, so the mean is `np.add.reduceat`; the backward
sums into the sources through one stable argsort of the block's sources.

    python benchmarks/numpy_sage.py --dataset sbm --nodes 100000 --seeds 3
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "examples")]
from gnn import Neighbours, relabel  # noqa: E402
from graphs import Graph  # noqa: E402
from numpy_gat import best_of, cross_entropy, scores  # noqa: E402
from numpy_gcn import (  # noqa: E402
    Adam,
    dropout_mask,
    glorot_uniform,
    reference_main,
    segment_starts,
    segment_sum_sorted,
)

Array = npt.NDArray[Any]

HIDDEN = 64
DROPOUT = 0.5
LEARNING_RATE = 0.01
WEIGHT_DECAY = 5e-4
EPOCHS = 100
FANOUTS = (10, 10)
BATCH = 1024


# ---------------------------------------------------------------------------------------------- blocks


@attrs.frozen(eq=False)
class Block:
    """One sampled layer: `targets` output rows fed by the edges `src → dst` in local ids (`src` indexes
    the layer's `num_sources` input rows, whose first `targets` are the targets), grouped by `dst`."""

    targets: int
    num_sources: int
    src: Array
    dst: Array
    starts: Array  # segment runs of dst
    run_ids: Array
    inverse_degree: Array  # (targets, 1): 1 / in-degree, 0 without neighbours

    @classmethod
    def of(cls, targets: int, num_sources: int, src: Array, dst: Array, dtype: Any) -> Block:
        starts, run_ids = segment_starts(dst)
        degree = np.bincount(dst, minlength=targets).astype(np.float64)
        inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
        return cls(targets, num_sources, src, dst, starts, run_ids, inverse.astype(dtype)[:, None])

    def mean(self, h: Array) -> Array:
        """out[d] = the mean of h[s] over the edges s → d (0 for a target without any)."""
        summed = segment_sum_sorted(np.take(h, self.src, axis=0), self.starts, self.run_ids, self.targets)
        summed *= self.inverse_degree
        return summed

    def per_edge(self, grad: Array) -> Array:
        """The gradient of `mean(h)` on each edge's gathered row `h[src]`: grad / degree of its target."""
        return np.take(grad * self.inverse_degree, self.dst, axis=0)

    def mean_backward(self, grad: Array) -> Array:
        """The gradient of `mean(h)` with respect to h (num_sources rows): `per_edge` summed into the
        sources (one stable argsort of the sources, then `np.add.reduceat`)."""
        order = np.argsort(self.src, kind="stable")
        starts, run_ids = segment_starts(self.src[order])
        per_edge = np.take(grad * self.inverse_degree, self.dst[order], axis=0)
        return segment_sum_sorted(per_edge, starts, run_ids, self.num_sources)

    def weight_grad(self, h: Array, grad: Array) -> Array:
        """The gradient of `mean(h @ w)` with respect to w when h itself needs none: `h[src]ᵀ · per_edge`,
        without summing the edges into the sources first (sampled sources have about one edge each, and
        a reduceat over that many tiny segments is the slow part)."""
        return np.take(h, self.src, axis=0).T @ self.per_edge(grad)


def sample_blocks(
    neighbours: Neighbours,
    seeds: Array,
    fanouts: Sequence[int | None],
    rng: np.random.Generator | None,
    dtype: Any = np.float32,
) -> tuple[Array, list[Block]]:
    """The input nodes and the blocks (first layer first) computing the rows of `seeds`, with the draws
    of `gnn.sample_blocks`: the last layer is sampled first."""
    blocks: list[Block] = []
    targets = seeds
    for fanout in reversed(fanouts):
        sources, owner = neighbours.sample(targets, fanout, rng)
        nodes, local_sources = relabel(targets, sources)
        blocks.append(Block.of(len(targets), len(nodes), local_sources, owner, dtype))
        targets = nodes
    return targets, blocks[::-1]


# ------------------------------------------------------------------------------------------- the model


def init_params(graph: Graph, rng: np.random.Generator, dtype: Any = np.float32) -> list[Array]:
    """[W_self1, W_neigh1, b1, W_self2, W_neigh2, b2], drawn in `gnn.SAGE`'s order."""
    params = []
    for fan_in, fan_out in ((graph.num_features, HIDDEN), (HIDDEN, graph.num_classes)):
        w_self = glorot_uniform(rng, fan_in, fan_out, dtype)
        w_neigh = glorot_uniform(rng, fan_in, fan_out, dtype)
        params += [w_self, w_neigh, np.zeros(fan_out, dtype=dtype)]
    return params


@attrs.frozen(eq=False)
class Batch:
    """One batch's draws: its input nodes, blocks and dropout masks (None when evaluating)."""

    seeds: Array
    nodes: Array
    blocks: list[Block]
    masks: list[Array] | None

    @classmethod
    def draw(
        cls,
        neighbours: Neighbours,
        seeds: Array,
        rng: np.random.Generator | None,
        num_features: int,
        dtype: Any,
        fanouts: Sequence[int | None] = FANOUTS,
    ) -> Batch:
        """The sampled blocks, then the masks of layer 1's input (n_src, F) and layer 2's (n_mid, 64);
        every neighbour and no masks when `rng` is None."""
        if rng is None:
            fanouts = (None,) * len(fanouts)
        nodes, blocks = sample_blocks(neighbours, seeds, fanouts, rng, dtype)
        masks = None
        if rng is not None:
            mask1 = dropout_mask(rng, (len(nodes), num_features), DROPOUT, dtype)
            mask2 = dropout_mask(rng, (blocks[0].targets, HIDDEN), DROPOUT, dtype)
            masks = [mask1, mask2]
        return cls(seeds, nodes, blocks, masks)


def layer_forward(w_self: Array, w_neigh: Array, bias: Array, h: Array, block: Block) -> Array:
    out = h[: block.targets] @ w_self
    out += block.mean(h @ w_neigh)
    out += bias
    return out


def forward(params: list[Array], features: Array, batch: Batch) -> Array:
    """The logits of the batch's seeds."""
    h = np.take(features, batch.nodes, axis=0)
    if batch.masks is not None:
        h *= batch.masks[0]
    hidden = np.maximum(layer_forward(*params[:3], h, batch.blocks[0]), 0)
    if batch.masks is not None:
        hidden *= batch.masks[1]
    return layer_forward(*params[3:], hidden, batch.blocks[1])


def loss_and_grads(
    params: list[Array], features: Array, labels: Array, batch: Batch
) -> tuple[float, list[Array]]:
    """The batch's mean cross-entropy (no weight-decay term) and the gradient of every parameter, in
    `init_params` order. Works in the inputs' dtype: float64 everything for exact comparisons."""
    w_self1, w_neigh1, bias1, w_self2, w_neigh2, bias2 = params
    block1, block2 = batch.blocks
    x = np.take(features, batch.nodes, axis=0)
    if batch.masks is not None:
        x *= batch.masks[0]
    pre_hidden = layer_forward(w_self1, w_neigh1, bias1, x, block1)  # (n_mid, 64)
    hidden = np.maximum(pre_hidden, 0)
    if batch.masks is not None:
        hidden *= batch.masks[1]
    logits = layer_forward(w_self2, w_neigh2, bias2, hidden, block2)  # (seeds, classes)
    loss, grad_logits = cross_entropy(logits, labels[batch.seeds])

    # layer 2: logits = hidden[:T] @ W_self2 + mean(hidden @ W_neigh2) + b2
    grad_bias2 = grad_logits.sum(axis=0)
    grad_w_self2 = hidden[: block2.targets].T @ grad_logits
    grad_projected2 = block2.mean_backward(grad_logits)  # (n_mid, classes)
    grad_w_neigh2 = hidden.T @ grad_projected2
    grad_hidden = grad_projected2 @ w_neigh2.T
    grad_hidden[: block2.targets] += grad_logits @ w_self2.T
    if batch.masks is not None:
        grad_hidden *= batch.masks[1]
    grad_hidden *= pre_hidden > 0

    # layer 1, whose input (features) needs no gradient
    grad_bias1 = grad_hidden.sum(axis=0)
    grad_w_self1 = x[: block1.targets].T @ grad_hidden
    grad_w_neigh1 = block1.weight_grad(x, grad_hidden)
    return loss, [grad_w_self1, grad_w_neigh1, grad_bias1, grad_w_self2, grad_w_neigh2, grad_bias2]


# -------------------------------------------------------------------------------------------- training


@attrs.define(eq=False)
class Trainer:
    """A fresh model, its optimiser and its generator: `epoch()` trains one epoch as `gnn.train_epoch`
    trains `gnn.SAGE`."""

    graph: Graph
    neighbours: Neighbours
    features: Array
    params: list[Array]
    optimiser: Adam
    rng: np.random.Generator
    dtype: Any
    fanouts: tuple[int | None, ...]

    @classmethod
    def init(
        cls,
        graph: Graph,
        seed: int | np.random.Generator = 0,
        dtype: Any = np.float32,
        fanouts: Sequence[int | None] = FANOUTS,
    ) -> Trainer:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        params = init_params(graph, rng, dtype)
        optimiser = Adam(params, lr=LEARNING_RATE, weight_decay=[WEIGHT_DECAY] * len(params))
        features = graph.features.astype(dtype, copy=False)
        return cls(graph, Neighbours.of(graph), features, params, optimiser, rng, dtype, tuple(fanouts))

    def batch(self, seeds: Array) -> Batch:
        return Batch.draw(self.neighbours, seeds, self.rng, self.graph.num_features, self.dtype, self.fanouts)

    def epoch(self) -> float:
        order = self.rng.permutation(self.graph.train_idx)
        losses = []
        for start in range(0, len(order), BATCH):
            batch = self.batch(order[start : start + BATCH])
            loss, grads = loss_and_grads(self.params, self.features, self.graph.labels, batch)
            self.optimiser.step(grads)
            losses.append(loss)
        return float(np.mean(losses))

    def evaluate(self) -> dict[str, float]:
        """Accuracies with every neighbour and no dropout, as `gnn.evaluate`."""
        graph = self.graph
        nodes = np.unique(np.concatenate([graph.train_idx, graph.val_idx, graph.test_idx]))
        batch = Batch.draw(self.neighbours, nodes, None, graph.num_features, self.dtype, self.fanouts)
        logits = np.zeros((graph.num_nodes, graph.num_classes), dtype=self.dtype)
        logits[nodes] = forward(self.params, self.features, batch)
        return scores(logits, graph)


def train(
    graph: Graph,
    epochs: int = EPOCHS,
    seed: int = 0,
    dtype: Any = np.float32,
    fanouts: Sequence[int | None] = FANOUTS,
) -> dict[str, float]:
    """Train a fresh GraphSAGE; the scores of the epoch with the best validation accuracy."""
    return best_of(Trainer.init(graph, seed, dtype, fanouts), epochs)


# ------------------------------------------------------------------------------------------- command


def main(argv: list[str] | None = None) -> int:
    return reference_main(argv, __doc__.splitlines()[0] if __doc__ else None, EPOCHS, train)


if __name__ == "__main__":
    raise SystemExit(main())

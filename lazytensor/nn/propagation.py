"""The normalised adjacency of graph convolutions as weighted edges: self loops, `Â = D^-1/2 (A + I)
D^-1/2` (PyTorch Geometric's `gcn_norm`), and `Â h` by message passing, with no dense matrix.

Also the one way the graph layers read their `edge_index`: an `lt.nn.Edges`, or PyG's `(2, E)` array
of sources and targets.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.nn.message_passing import Edges
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor

__all__ = ["Propagation", "add_self_loops", "as_edges", "gcn_norm"]


def as_edges(edge_index: Any, num_nodes: int, num_sources: int | None = None) -> Edges:
    """`edge_index` as an `Edges`: itself when it is one (it must span `num_nodes` targets), else PyG's
    `(2, E)` integers, sources then targets, among `num_nodes` nodes (`num_sources` sources when they
    are another set).

    >>> as_edges([[0, 1], [1, 2]], 3).dst.tolist()
    [1, 2]
    """
    if isinstance(edge_index, Edges):
        if edge_index.num_nodes != num_nodes:
            raise ValueError(
                f"edges among {edge_index.num_nodes:,} target nodes cannot pass messages to "
                f"{num_nodes:,} rows"
            )
        return edge_index
    pairs = np.asarray(edge_index.numpy() if isinstance(edge_index, AbstractTensor) else edge_index)
    if pairs.ndim != 2 or pairs.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E): sources, then targets; got shape {pairs.shape}")
    return Edges(pairs[0], pairs[1], num_nodes, num_sources=num_nodes if num_sources is None else num_sources)


def add_self_loops(edges: Edges) -> Edges:
    """The edges with one self loop at every node (any loop they had is replaced by it), sorted by
    target, then source: the graph a graph convolution or attention layer passes messages on.

    >>> looped = add_self_loops(Edges([0, 1, 1], [1, 0, 1], num_nodes=2))
    >>> looped.src.tolist(), looped.dst.tolist()
    ([0, 1, 0, 1], [0, 0, 1, 1])
    """
    return _with_loops(edges).edges


@attrs.frozen(eq=False)
class Propagation:
    """`Â h` for the weighted edges `edges` (self loops included, if the graph has them): each target
    sums the rows of its sources, each scaled by its edge's weight (`weight`, of shape `(E, 1)`).

    >>> import lazytensor as lt
    >>> propagate = gcn_norm(Edges([0, 1], [1, 0], num_nodes=2))
    >>> propagate(lt.tensor([[2.0], [4.0]])).tolist()
    [[3.0], [3.0]]
    """

    edges: Edges
    weight: AbstractTensor = attrs.field()

    @weight.validator
    def _check_weight(self, _attribute: object, weight: AbstractTensor) -> None:
        if weight.shape != (self.edges.count, 1):
            raise ValueError(
                f"weights of shape {weight.shape} for {self.edges.count:,} edges: expected (E, 1)"
            )

    def __call__(self, h: AbstractTensor) -> StorageTensor:
        messages = self.edges.sources(h) * self.weight  # h[src] is a view: gathered once, when multiplied
        return self.edges.sum(messages)

    def astype(self, dtype: npt.DTypeLike) -> Propagation:
        """The same propagation with its weights in `dtype` (itself when they already are)."""
        if self.weight.dtype == np.dtype(dtype):
            return self
        return Propagation(self.edges, self.weight.astype(dtype))


def gcn_norm(
    edges: Edges,
    edge_weight: Any = None,
    *,
    add_self_loops: bool = True,
    normalize: bool = True,
    scale: float = 1.0,
    dtype: npt.DTypeLike = np.float64,
) -> Propagation:
    """Graph convolution's propagation: `Â = D^-1/2 (A + I) D^-1/2` as weighted edges (PyG's `gcn_norm`),
    where `D` counts each node's in-edges (their weights, given `edge_weight`), its self loop included.
    Every weight is multiplied by `scale` (APPNP propagates with `(1 - α) Â`), computed in float64 and
    stored in `dtype`. `normalize=False` keeps the weights as given (1 without `edge_weight`).

    >>> import lazytensor as lt
    >>> propagate = gcn_norm(Edges([0], [1], num_nodes=2))
    >>> propagate.edges.src.tolist(), [round(w, 4) for w in propagate.weight.numpy()[:, 0].tolist()]
    ([0, 0, 1], [1.0, 0.7071, 0.5])
    """
    weights = np.ones(edges.count) if edge_weight is None else _edge_weights(edge_weight, edges.count)
    if add_self_loops:
        looped = _with_loops(edges)
        weights = np.concatenate([weights[looped.kept], np.ones(edges.num_nodes)])[looped.order]
        edges = looped.edges
    if normalize:
        degree = np.zeros(edges.num_nodes)
        np.add.at(degree, edges.dst, weights)
        product = degree[edges.src] * degree[edges.dst]  # 0 only for a source with no in-edge: weight 0
        weights = np.divide(scale * weights, np.sqrt(product), out=np.zeros_like(product), where=product > 0)
    else:
        weights = scale * weights
    column = StorageTensor.from_array(weights.astype(dtype).reshape(-1, 1))
    return Propagation(edges, column)


@attrs.frozen
class _Looped:
    edges: Edges
    kept: npt.NDArray[np.bool_]
    order: npt.NDArray[np.intp]


def _with_loops(edges: Edges) -> _Looped:
    """`add_self_loops`, with what a per-edge value needs to follow the edges: which were kept (the
    ones that were not loops), and the order that sorted them and the loops after them."""
    if edges.num_sources != edges.num_nodes:
        raise ValueError(
            f"self loops join a node to itself: edges from {edges.num_sources:,} sources to "
            f"{edges.num_nodes:,} targets are between two sets"
        )
    kept = edges.src != edges.dst
    loops = np.arange(edges.num_nodes)
    src = np.concatenate([edges.src[kept], loops])
    dst = np.concatenate([edges.dst[kept], loops])
    order = np.lexsort((src, dst))
    return _Looped(Edges(src[order], dst[order], edges.num_nodes), kept, order)


def _edge_weights(values: Any, count: int) -> npt.NDArray[np.float64]:
    weights = np.asarray(values.numpy() if isinstance(values, AbstractTensor) else values, dtype=np.float64)
    if weights.shape != (count,):
        raise ValueError(f"edge_weight of shape {weights.shape}: one weight per edge, ({count},), expected")
    return weights

"""The graph layers of examples/gnn.py as modules, named and called as PyTorch Geometric's:
`GCNConv`, `GATConv`, `SAGEConv`, `SGConv`, `APPNP`; `layer(x, edge_index)`.

`edge_index` is an `lt.nn.Edges` (checked and grouped by target once: pass the same one every step)
or PyG's `(2, E)` integers. Messages are `lt.nn.Edges`' views (`edges.sources(h)` is `h[src]`, no
copy) summed into their targets, so gradients are those of the operations and views. The weights
start as PyG's graph layers start theirs, Glorot-uniform with zero biases (`GCNConv`, `GATConv`;
`SAGEConv` and `SGConv` too, where PyG keeps PyTorch's `Linear` default, as the papers' code does).
Each layer takes `seed=` and `dtype=` as `lt.nn.Linear` does.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.nn.functional import Seed, checked_probability, dropout, generator, glorot_uniform, leaky_relu
from lazytensor.nn.layers import Linear
from lazytensor.nn.message_passing import Edges
from lazytensor.nn.module import Module, Parameter
from lazytensor.nn.propagation import Propagation, add_self_loops, as_edges, gcn_norm
from lazytensor.tensors.tensor import AbstractTensor

__all__ = ["APPNP", "GATConv", "GCNConv", "SAGEConv", "SGConv"]


def _glorot_linear(fan_in: int, fan_out: int, bias: bool, rng: np.random.Generator, dtype: Any) -> Linear:
    return Linear(
        fan_in, fan_out, bias, weight_initializer="glorot", bias_initializer="zeros", seed=rng, dtype=dtype
    )


@attrs.define
class _Normalised:
    """A layer's `Â` of the last `edge_index` it was given, kept while the same `Edges` comes back (an
    `Edges` never changes), or for good after the first call when `cached` (PyG's `cached=True`, for
    one graph: an `edge_index` given later is not looked at)."""

    cached: bool
    add_self_loops: bool
    normalize: bool
    scale: float
    key: Any = None
    propagation: Propagation | None = None

    def of(self, edge_index: Any, edge_weight: Any, num_nodes: int, dtype: npt.DTypeLike) -> Propagation:
        """`Â` of `edge_index` (with `edge_weight`) over `num_nodes` nodes, its weights in `dtype`."""
        known = self.propagation
        same = isinstance(edge_index, Edges) and edge_index is self.key and edge_weight is None
        if known is None or not (self.cached or same):
            known = gcn_norm(
                as_edges(edge_index, num_nodes),
                edge_weight,
                add_self_loops=self.add_self_loops,
                normalize=self.normalize,
                scale=self.scale,
                dtype=dtype,
            )
            self.key, self.propagation = edge_index, known
        if known.edges.num_nodes != num_nodes:
            raise ValueError(
                f"the cached graph has {known.edges.num_nodes:,} nodes, the features {num_nodes:,} rows"
            )
        return known.astype(dtype)


def _float_dtype(x: AbstractTensor) -> np.dtype[Any]:
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


class GCNConv(Module):
    """Graph convolution (Kipf & Welling 2017): `Â (x W) + b` with `Â = D^-1/2 (A + I) D^-1/2`, as
    PyG's `GCNConv(in_channels, out_channels)`. `lin` holds `W` (a `Linear` without bias), `bias` the
    bias. `cached=True` keeps the first graph's `Â` for every call (one graph, as PyG's); an `Edges`
    given again is never normalised twice anyway.

    >>> import lazytensor as lt
    >>> conv = lt.nn.GCNConv(3, 2, seed=0)
    >>> edges = lt.nn.Edges([0, 1, 2], [1, 2, 0], num_nodes=3)
    >>> conv, conv(lt.ones(3, 3), edges).shape
    (GCNConv(3, 2), (3, 2))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        cached: bool = False,
        add_self_loops: bool = True,
        normalize: bool = True,
        bias: bool = True,
        seed: Seed = None,
        dtype: npt.DTypeLike = np.float64,
    ) -> None:
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.lin = _glorot_linear(in_channels, out_channels, False, generator(seed), dtype)
        if bias:
            self.bias = Parameter(np.zeros(self.lin.out_features, dtype=self.lin.weight.dtype))
        else:
            self.register_parameter("bias", None)
        self._normalised = _Normalised(cached, add_self_loops, normalize, 1.0)

    def forward(self, x: AbstractTensor, edge_index: Any, edge_weight: Any = None) -> AbstractTensor:
        """`Â (x W) + b` for node features `x` of shape `(N, in_channels)`."""
        h = self.lin(x)
        out: AbstractTensor = self._normalised.of(edge_index, edge_weight, x.shape[0], h.dtype)(h)
        return out if self.bias is None else out + self.bias

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.in_channels}, {self.out_channels})"


class GATConv(Module):
    """Graph attention (Veličković et al. 2018), PyG's `GATConv(in_channels, out_channels, heads)`: per
    head, each edge `s → d` scores `leaky_relu(a_src · W x_s + a_dst · W x_d)`, the scores are a
    softmax over the edges into `d` (with a self loop per node), and `d` sums the attention-weighted
    `W x_s`. The heads are concatenated (`concat=True`) or averaged. In training mode, the attention
    weights are dropped with probability `dropout`, from the generator `seed` names.

    `return_attention_weights=True` also returns the edges and their weights `(E, heads)`, as PyG's:
    `out, (edges, attention) = conv(x, edge_index, return_attention_weights=True)`.

    >>> import lazytensor as lt
    >>> conv = lt.nn.GATConv(3, 4, heads=2, seed=0)
    >>> out, (edges, attention) = conv(lt.ones(3, 3), [[0, 1], [1, 2]], return_attention_weights=True)
    >>> conv, out.shape, edges.count, attention.shape
    (GATConv(3, 4, heads=2), (3, 8), 5, (5, 2))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        seed: Seed = None,
        dtype: npt.DTypeLike = np.float64,
    ) -> None:
        super().__init__()
        self.in_channels, self.out_channels, self.heads, self.concat = (
            in_channels,
            out_channels,
            heads,
            concat,
        )
        self.negative_slope, self.dropout = negative_slope, checked_probability(dropout)
        self.add_self_loops = add_self_loops
        self.generator = generator(seed)
        self.lin = _glorot_linear(in_channels, heads * out_channels, False, self.generator, dtype)
        chosen = self.lin.weight.dtype
        self.att_src = self._attention(chosen)
        self.att_dst = self._attention(chosen)
        if bias:
            self.bias = Parameter(np.zeros(heads * out_channels if concat else out_channels, dtype=chosen))
        else:
            self.register_parameter("bias", None)
        self._looped: tuple[Any, Edges] | None = None

    def _attention(self, dtype: np.dtype[Any]) -> Parameter:
        """An attention vector per head, `(1, heads, out_channels)`, Glorot-uniform over `(heads, out)`."""
        draws = glorot_uniform(self.heads, self.out_channels, self.generator).numpy()
        return Parameter(draws.astype(dtype).reshape(1, self.heads, self.out_channels))

    def _edges(self, edge_index: Any, num_nodes: int) -> Edges:
        """The edges messages pass on (self loops added), made once per `Edges` given."""
        if self._looped is not None and self._looped[0] is edge_index:
            return self._looped[1]
        edges = as_edges(edge_index, num_nodes)
        looped = add_self_loops(edges) if self.add_self_loops else edges
        if isinstance(edge_index, Edges):
            self._looped = (edge_index, looped)
        return looped

    def forward(self, x: AbstractTensor, edge_index: Any, return_attention_weights: bool = False) -> Any:
        """The new node features `(N, heads * out_channels)` (or `(N, out_channels)` averaged); with
        `return_attention_weights`, also `(edges, attention)`."""
        edges = self._edges(edge_index, x.shape[0])
        h = self.lin(x).reshape(edges.num_nodes, self.heads, self.out_channels)
        score_src = (h * self.att_src).sum(2)  # (N, heads)
        score_dst = (h * self.att_dst).sum(2)
        scores = leaky_relu(edges.sources(score_src) + edges.targets(score_dst), self.negative_slope)
        attention = edges.softmax(scores)  # (E, heads): a softmax over the edges into each node
        kept = dropout(attention, self.dropout, training=self.training, seed=self.generator)
        messages = edges.sources(h) * kept.unsqueeze(2)  # (E, heads, out_channels)
        summed = edges.sum(messages)
        if self.concat or self.heads == 1:  # one head: its own mean
            out: AbstractTensor = summed.reshape(edges.num_nodes, -1)
        else:
            out = summed.mean(1)
        if self.bias is not None:
            out = out + self.bias
        return (out, (edges, attention)) if return_attention_weights else out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.in_channels}, {self.out_channels}, heads={self.heads})"


class SAGEConv(Module):
    """GraphSAGE (Hamilton et al. 2017), PyG's `SAGEConv(in_channels, out_channels)`: `x_d W_root +
    mean(x_s for s → d) W + b`; `lin_r` holds the root weight (`root_weight=False`: none), `lin_l`
    the neighbours' weight and the bias; `aggr="sum"` sums the neighbours instead.

    `x` is a tensor (the targets first among its rows when the edges go from one set of nodes to
    another, as sampled blocks order them) or a pair `(x_sources, x_targets)`. The neighbours' weight
    multiplies on the narrower side of the aggregation (it is linear): before it when it narrows the
    rows, after it when it widens them.

    >>> import lazytensor as lt
    >>> conv = lt.nn.SAGEConv(3, 2, seed=0)
    >>> conv, conv(lt.ones(3, 3), [[0, 1], [1, 2]]).shape
    (SAGEConv(3, 2, aggr=mean), (3, 2))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        aggr: str = "mean",
        root_weight: bool = True,
        bias: bool = True,
        *,
        seed: Seed = None,
        dtype: npt.DTypeLike = np.float64,
    ) -> None:
        super().__init__()
        if aggr not in ("mean", "sum"):
            raise ValueError(
                f"SAGEConv aggregates by 'mean' or 'sum' (a maximum has no gradient), got {aggr!r}"
            )
        self.in_channels, self.out_channels, self.aggr = in_channels, out_channels, aggr
        rng = generator(seed)
        if root_weight:  # drawn first: the root weight, then the neighbours'
            self.lin_r = _glorot_linear(in_channels, out_channels, False, rng, dtype)
        else:
            self.add_module("lin_r", None)
        self.lin_l = _glorot_linear(in_channels, out_channels, bias, rng, dtype)

    def forward(
        self, x: AbstractTensor | tuple[AbstractTensor, AbstractTensor], edge_index: Any
    ) -> AbstractTensor:
        """The targets' new features `(targets, out_channels)`."""
        if isinstance(x, tuple):
            x_src, x_dst = x
            edges = as_edges(edge_index, x_dst.shape[0], num_sources=x_src.shape[0])
        else:
            x_src = x
            edges = as_edges(edge_index, x.shape[0]) if not isinstance(edge_index, Edges) else edge_index
            x_dst = x[: edges.num_nodes]
        out: AbstractTensor = self.neighbours(x_src, edges)
        if self.lin_r is not None:
            out = self.lin_r(x_dst) + out
        return out if self.lin_l.bias is None else out + self.lin_l.bias

    def neighbours(self, h: AbstractTensor, edges: Edges) -> AbstractTensor:
        """The aggregated neighbours times the neighbours' weight, multiplied on the narrower side."""
        reduce = edges.mean if self.aggr == "mean" else edges.sum
        weight = self.lin_l.weight  # (out, in)
        if self.in_channels > self.out_channels:
            return reduce(edges.sources(h @ weight.T))
        projected: AbstractTensor = reduce(edges.sources(h)) @ weight.T
        return projected

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.in_channels}, {self.out_channels}, aggr={self.aggr})"


class SGConv(Module):
    """Simplified graph convolution (Wu et al. 2019), PyG's `SGConv(in_channels, out_channels, K)`:
    `Â^K x W + b`, a linear map (`lin`) of features propagated `K` times. `cached=True` propagates the
    first call's features once and keeps them (one graph, fixed features: the propagation is then
    paid once, not each step).

    >>> import lazytensor as lt
    >>> conv = lt.nn.SGConv(3, 2, K=2, cached=True, seed=0)
    >>> conv, conv(lt.ones(3, 3), [[0, 1], [1, 2]]).shape
    (SGConv(3, 2, K=2), (3, 2))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        K: int = 1,
        cached: bool = False,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        seed: Seed = None,
        dtype: npt.DTypeLike = np.float64,
    ) -> None:
        super().__init__()
        self.in_channels, self.out_channels, self.K, self.cached = in_channels, out_channels, K, cached
        self.lin = _glorot_linear(in_channels, out_channels, bias, generator(seed), dtype)
        self._normalised = _Normalised(False, add_self_loops, True, 1.0)
        self._propagated: AbstractTensor | None = None

    def forward(self, x: AbstractTensor, edge_index: Any) -> AbstractTensor:
        """`Â^K x W + b`."""
        propagated = self._propagated
        if propagated is None:
            propagate = self._normalised.of(edge_index, None, x.shape[0], _float_dtype(x))
            propagated = x
            for _ in range(self.K):
                propagated = propagate(propagated)
            if self.cached:
                self._propagated = propagated
        out: AbstractTensor = self.lin(propagated)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.in_channels}, {self.out_channels}, K={self.K})"


class APPNP(Module):
    """Personalised-PageRank propagation (Klicpera et al. 2019), PyG's `APPNP(K, alpha)`: from the
    predictions `h`, `K` steps of `z ← (1 - α) Â z + α h`. No parameters. `(1 - α)` is folded into
    the edge weights once (one multiplication per step fewer than PyG's order, the same values to
    rounding). In training mode each step's edge weights are dropped with probability `dropout`.

    >>> import lazytensor as lt
    >>> appnp = lt.nn.APPNP(K=10, alpha=0.1)
    >>> appnp, appnp(lt.ones(3, 2), [[0, 1], [1, 2]]).shape
    (APPNP(K=10, alpha=0.1), (3, 2))
    """

    def __init__(
        self,
        K: int,
        alpha: float,
        dropout: float = 0.0,
        cached: bool = False,
        add_self_loops: bool = True,
        normalize: bool = True,
        *,
        seed: Seed = None,
    ) -> None:
        super().__init__()
        if not 0 <= alpha <= 1:
            raise ValueError(f"APPNP's teleport probability alpha must be in [0, 1], got {alpha}")
        self.K, self.alpha, self.dropout = K, alpha, checked_probability(dropout)
        self.generator = generator(seed)
        self._normalised = _Normalised(cached, add_self_loops, normalize, 1.0 - alpha)

    def forward(self, x: AbstractTensor, edge_index: Any) -> AbstractTensor:
        """The propagated predictions, of the shape of `x`."""
        propagate = self._normalised.of(edge_index, None, x.shape[0], _float_dtype(x))
        teleport = x * self.alpha
        z: AbstractTensor = x
        for _ in range(self.K):
            step = propagate
            if self.training and self.dropout:
                dropped = dropout(propagate.weight, self.dropout, seed=self.generator)
                step = Propagation(propagate.edges, dropped)
            z = step(z) + teleport
        return z

    def __repr__(self) -> str:
        return f"{type(self).__name__}(K={self.K}, alpha={self.alpha})"

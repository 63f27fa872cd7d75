"""`lt.nn`'s graph layers (`GCNConv`, `GATConv`, `SAGEConv`, `SGConv`, `APPNP`) and `gcn_norm` against
dense numpy written from the papers' formulas, on random multigraphs (self loops, repeated edges,
nodes without in-edges); their gradients; and a few epochs on Zachary's karate club lowering the loss."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor import nn

Graph = tuple[np.ndarray, np.ndarray, int]


@st.composite
def graphs(draw: st.DrawFn, min_nodes: int = 1) -> Graph:
    """A random multigraph: 1-6 nodes, 0-12 edges, loops and repeats allowed."""
    nodes = draw(st.integers(min_nodes, 6))
    count = draw(st.integers(0, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.integers(0, nodes, count), rng.integers(0, nodes, count), nodes


def features(nodes: int, width: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((nodes, width))


def dense_adjacency(
    graph: Graph, weights: np.ndarray | None = None, loops: bool = True, normalize: bool = True
) -> np.ndarray:
    """`Â[d, s]`: the (weighted) count of edges s → d, any self loop replaced by one of weight 1 when
    `loops`, normalised by `D^-1/2 · D^-1/2` with `D` the row sums (zero rows stay zero)."""
    src, dst, n = graph
    w = np.ones(len(src)) if weights is None else weights
    keep = src != dst if loops else np.ones(len(src), dtype=bool)
    adjacency = np.zeros((n, n))
    np.add.at(adjacency, (dst[keep], src[keep]), w[keep])
    if loops:
        adjacency += np.eye(n)
    if not normalize:
        return adjacency
    degree = adjacency.sum(axis=1)
    inverse = np.divide(1.0, np.sqrt(degree), out=np.zeros(n), where=degree > 0)
    return inverse[:, None] * adjacency * inverse[None, :]


def edges_of(graph: Graph) -> nn.Edges:
    src, dst, n = graph
    return nn.Edges(src, dst, n)


# -- gcn_norm and self loops -----------------------------------------------------------------------


@settings(max_examples=150)
@given(
    graph=graphs(),
    weighted=st.booleans(),
    loops=st.booleans(),
    normalize=st.booleans(),
    scale=st.sampled_from([1.0, 0.9]),
)
def test_gcn_norm_propagates_with_the_dense_normalised_adjacency(
    graph: Graph, weighted: bool, loops: bool, normalize: bool, scale: float
) -> None:
    src, _, n = graph
    weights = np.random.default_rng(len(src)).uniform(0.5, 2.0, len(src)) if weighted else None
    propagate = nn.gcn_norm(edges_of(graph), weights, add_self_loops=loops, normalize=normalize, scale=scale)
    h = features(n, 3)
    expected = scale * dense_adjacency(graph, weights, loops, normalize) @ h
    np.testing.assert_allclose(propagate(lt.tensor(h)).numpy(), expected, rtol=1e-12, atol=1e-12)
    assert propagate.weight.shape == (propagate.edges.count, 1) and propagate.weight.dtype == np.float64


def test_gcn_norm_stores_its_weights_in_the_dtype_asked_and_refuses_a_weight_per_edge_missing() -> None:
    edges = nn.Edges([0, 1], [1, 2], num_nodes=3)
    assert nn.gcn_norm(edges, dtype="float32").weight.dtype == np.float32
    with pytest.raises(
        ValueError, match=r"^edge_weight of shape \(3,\): one weight per edge, \(2,\), expected$"
    ):
        nn.gcn_norm(edges, [1.0, 2.0, 3.0])


@given(graph=graphs())
def test_self_loops_replace_any_loop_and_sort_by_target_then_source(graph: Graph) -> None:
    src, dst, n = graph
    looped = nn.add_self_loops(edges_of(graph))
    kept = [(d, s) for s, d in zip(src.tolist(), dst.tolist(), strict=True) if s != d]
    expected = sorted(kept + [(v, v) for v in range(n)])
    assert list(zip(looped.dst.tolist(), looped.src.tolist(), strict=True)) == expected


def test_edge_index_is_an_edges_or_pygs_two_rows_and_errors_name_the_problem() -> None:
    x = lt.ones(3, 2)
    conv = nn.GCNConv(2, 1, seed=0)
    as_rows = conv(x, np.array([[0, 1], [1, 2]]))
    np.testing.assert_array_equal(conv(x, lt.tensor([[0, 1], [1, 2]])).numpy(), as_rows.numpy())
    np.testing.assert_array_equal(conv(x, nn.Edges([0, 1], [1, 2], num_nodes=3)).numpy(), as_rows.numpy())
    with pytest.raises(
        ValueError, match=r"^edge_index must have shape \(2, E\): sources, then targets; got shape \(3,\)$"
    ):
        conv(x, [0, 1, 2])
    with pytest.raises(ValueError, match=r"^edges among 4 target nodes cannot pass messages to 3 rows$"):
        conv(x, nn.Edges([0], [3], num_nodes=4))
    with pytest.raises(
        ValueError, match=r"self loops join a node to itself: edges from 3 sources to 2 targets"
    ):
        nn.add_self_loops(nn.Edges([0], [1], num_nodes=2, num_sources=3))


# -- GCNConv ---------------------------------------------------------------------------------------


@given(graph=graphs(), bias=st.booleans(), seed=st.integers(0, 1000))
def test_gcnconv_is_the_normalised_adjacency_times_x_w_plus_b(graph: Graph, bias: bool, seed: int) -> None:
    _, _, n = graph
    conv = nn.GCNConv(3, 2, bias=bias, seed=seed)
    np.testing.assert_array_equal(conv.lin.weight.numpy(), nn.glorot_uniform(3, 2, seed=seed).numpy().T)
    x = features(n, 3, seed)
    expected = dense_adjacency(graph) @ (x @ conv.lin.weight.numpy().T)
    got = conv(lt.tensor(x), edges_of(graph))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12)
    got.sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in conv.parameters())
    assert (conv.bias is not None) == bias


def test_a_cached_gcnconv_keeps_its_first_graph_and_an_uncached_one_follows_the_graph_given() -> None:
    x = lt.tensor(features(3, 2))
    first, second = nn.Edges([0, 1], [1, 2], num_nodes=3), nn.Edges([2], [0], num_nodes=3)
    cached, fresh = nn.GCNConv(2, 2, cached=True, seed=0), nn.GCNConv(2, 2, seed=0)
    before = cached(x, first).numpy()
    np.testing.assert_array_equal(cached(x, second).numpy(), before)  # PyG's cached: one graph
    np.testing.assert_array_equal(fresh(x, first).numpy(), before)
    assert not np.array_equal(fresh(x, second).numpy(), before)
    np.testing.assert_array_equal(fresh(x, first).numpy(), before)


def test_gcnconv_follows_the_features_dtype() -> None:
    conv = nn.GCNConv(2, 2, seed=0, dtype="float32")
    assert conv(lt.ones(3, 2, dtype="float32"), [[0], [1]]).dtype == np.float32


# -- GATConv ---------------------------------------------------------------------------------------


def dense_attention(
    conv: nn.GATConv, x: np.ndarray, graph: Graph
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Graph attention written out: the output, the attention of each self-looped edge (sorted by
    target, then source) and those edges."""
    src, dst, n = graph
    keep = src != dst
    pairs = sorted([*zip(dst[keep].tolist(), src[keep].tolist(), strict=True)] + [(v, v) for v in range(n)])
    targets = np.array([d for d, _ in pairs], dtype=np.intp)
    sources = np.array([s for _, s in pairs], dtype=np.intp)
    heads, units = conv.heads, conv.out_channels
    h = (x @ conv.lin.weight.numpy().T).reshape(n, heads, units)
    score = (h * conv.att_src.numpy()).sum(-1)[sources] + (h * conv.att_dst.numpy()).sum(-1)[targets]
    score = np.where(score > 0, score, conv.negative_slope * score)
    attention = np.zeros_like(score)
    for node in range(n):
        into = targets == node
        e = np.exp(score[into] - score[into].max(axis=0))
        attention[into] = e / e.sum(axis=0)
    out = np.zeros((n, heads, units))
    np.add.at(out, targets, attention[:, :, None] * h[sources])
    out = out.reshape(n, heads * units) if conv.concat else out.mean(axis=1)
    return out + conv.bias.numpy(), attention, sources, targets


@settings(max_examples=150)
@given(graph=graphs(), heads=st.integers(1, 3), concat=st.booleans(), seed=st.integers(0, 1000))
def test_gatconv_is_graph_attention_written_out(graph: Graph, heads: int, concat: bool, seed: int) -> None:
    _, _, n = graph
    conv = nn.GATConv(3, 2, heads=heads, concat=concat, seed=seed)
    assert conv.att_src.shape == conv.att_dst.shape == (1, heads, 2)
    assert conv.bias.shape == ((heads * 2,) if concat else (2,))
    x = features(n, 3, seed)
    out, (edges, attention) = conv(lt.tensor(x), edges_of(graph), return_attention_weights=True)
    expected, expected_attention, sources, targets = dense_attention(conv, x, graph)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(attention.numpy(), expected_attention, rtol=1e-10, atol=1e-12)
    assert edges.src.tolist() == sources.tolist() and edges.dst.tolist() == targets.tolist()
    out.sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in conv.parameters())


def test_gatconv_drops_attention_only_in_training_from_its_generator() -> None:
    graph = (np.array([0, 1, 2, 2]), np.array([1, 2, 0, 1]), 3)
    x = lt.tensor(features(3, 3))
    conv = nn.GATConv(3, 2, heads=2, dropout=0.5, seed=np.random.default_rng(4))
    draws = np.random.default_rng(4)
    nn.glorot_uniform(3, 4, draws), nn.glorot_uniform(2, 2, draws), nn.glorot_uniform(2, 2, draws)
    trained, (edges, attention) = conv(x, edges_of(graph), return_attention_weights=True)
    mask = nn.dropout_mask(attention.shape, 0.5, draws)  # the next draw of the layer's generator
    conv.eval()
    evaluated = conv(x, edges_of(graph))
    expected, _, _, _ = dense_attention(conv, x.numpy(), graph)
    np.testing.assert_allclose(evaluated.numpy(), expected, rtol=1e-10)
    h = (x.numpy() @ conv.lin.weight.numpy().T).reshape(3, 2, 2)
    dropped = np.zeros((3, 2, 2))
    np.add.at(dropped, edges.dst, (attention.numpy() * mask)[:, :, None] * h[edges.src])
    np.testing.assert_allclose(trained.numpy(), dropped.reshape(3, 4) + conv.bias.numpy(), rtol=1e-10)


# -- SAGEConv --------------------------------------------------------------------------------------


@settings(max_examples=150)
@given(
    graph=graphs(),
    widths=st.sampled_from([(3, 2), (2, 3)]),  # the weight narrows, or widens: multiplied before or after
    aggr=st.sampled_from(["mean", "sum"]),
    root=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_sageconv_is_the_root_plus_the_aggregated_neighbours(
    graph: Graph, widths: tuple[int, int], aggr: str, root: bool, seed: int
) -> None:
    src, dst, n = graph
    fan_in, fan_out = widths
    conv = nn.SAGEConv(fan_in, fan_out, aggr=aggr, root_weight=root, seed=seed)
    x = features(n, fan_in, seed)
    counts = np.zeros((n, n))
    np.add.at(counts, (dst, src), 1.0)
    if aggr == "mean":
        counts = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    expected = counts @ x @ conv.lin_l.weight.numpy().T + conv.lin_l.bias.numpy()
    if root:
        expected += x @ conv.lin_r.weight.numpy().T
    got = conv(lt.tensor(x), edges_of(graph))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    got.sum().backward()
    assert all(p.grad is not None for p in conv.parameters())
    assert [name for name, _ in conv.named_parameters()] == (["lin_r.weight"] if root else []) + [
        "lin_l.weight",
        "lin_l.bias",
    ]


def test_sageconv_takes_a_bipartite_block_as_a_pair_or_with_its_targets_first() -> None:
    x_src = lt.tensor(features(5, 3))
    block = nn.Edges([4, 2, 3, 0], [0, 0, 1, 1], num_nodes=2, num_sources=5)
    conv = nn.SAGEConv(3, 2, seed=0)
    as_pair = conv((x_src, x_src[:2]), [[4, 2, 3, 0], [0, 0, 1, 1]])
    np.testing.assert_array_equal(conv(x_src, block).numpy(), as_pair.numpy())
    assert as_pair.shape == (2, 2)
    with pytest.raises(
        ValueError, match=r"aggregates by 'mean' or 'sum' \(a maximum has no gradient\), got 'max'"
    ):
        nn.SAGEConv(3, 2, aggr="max")


# -- SGConv and APPNP ------------------------------------------------------------------------------


@given(graph=graphs(), k=st.integers(0, 3), seed=st.integers(0, 1000))
def test_sgconv_is_a_linear_map_of_features_propagated_k_times(graph: Graph, k: int, seed: int) -> None:
    _, _, n = graph
    conv = nn.SGConv(3, 2, K=k, seed=seed)
    x = features(n, 3, seed)
    propagated = np.linalg.matrix_power(dense_adjacency(graph), k) @ x
    expected = propagated @ conv.lin.weight.numpy().T + conv.lin.bias.numpy()
    np.testing.assert_allclose(conv(lt.tensor(x), edges_of(graph)).numpy(), expected, rtol=1e-10, atol=1e-12)


def test_a_cached_sgconv_propagates_the_first_features_once() -> None:
    graph = (np.array([0, 1]), np.array([1, 2]), 3)
    conv = nn.SGConv(2, 2, K=2, cached=True, seed=0)
    first = conv(lt.tensor(features(3, 2, 1)), edges_of(graph)).numpy()
    np.testing.assert_array_equal(conv(lt.tensor(features(3, 2, 2)), edges_of(graph)).numpy(), first)


@given(graph=graphs(), k=st.integers(0, 4), alpha=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_appnp_is_k_steps_of_personalised_pagerank(graph: Graph, k: int, alpha: float) -> None:
    _, _, n = graph
    h = features(n, 2)
    adjacency = dense_adjacency(graph)
    z = h
    for _ in range(k):
        z = (1 - alpha) * adjacency @ z + alpha * h
    appnp = nn.APPNP(K=k, alpha=alpha)
    assert list(appnp.parameters()) == []
    np.testing.assert_allclose(appnp(lt.tensor(h), edges_of(graph)).numpy(), z, rtol=1e-10, atol=1e-12)


def test_appnp_drops_edge_weights_only_in_training_and_checks_alpha() -> None:
    graph = (np.array([0, 1, 2]), np.array([1, 2, 0]), 3)
    h = lt.tensor(features(3, 2))
    appnp = nn.APPNP(K=3, alpha=0.1, dropout=0.5, seed=0)
    trained = appnp(h, edges_of(graph)).numpy()
    evaluated = appnp.eval()(h, edges_of(graph)).numpy()
    np.testing.assert_allclose(evaluated, nn.APPNP(K=3, alpha=0.1)(h, edges_of(graph)).numpy())
    assert not np.allclose(trained, evaluated)
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\], got 1.5"):
        nn.APPNP(K=1, alpha=1.5)


def test_the_layers_print_as_pytorch_geometrics() -> None:
    assert repr(nn.GCNConv(1433, 16)) == "GCNConv(1433, 16)"
    assert repr(nn.GATConv(1433, 8, heads=8)) == "GATConv(1433, 8, heads=8)"
    assert repr(nn.SAGEConv(1433, 64)) == "SAGEConv(1433, 64, aggr=mean)"
    assert repr(nn.SGConv(1433, 7, K=2)) == "SGConv(1433, 7, K=2)"
    assert repr(nn.APPNP(K=10, alpha=0.1)) == "APPNP(K=10, alpha=0.1)"


# -- a few epochs on the karate club ---------------------------------------------------------------


class TwoLayers(nn.Module):
    """A graph layer, an activation, a graph layer (or one layer alone)."""

    def __init__(self, first: nn.Module, second: nn.Module | None) -> None:
        super().__init__()
        self.first, self.second = first, second

    def forward(self, x: lt.AbstractTensor, edge_index: nn.Edges) -> lt.AbstractTensor:
        h = self.first(x, edge_index)
        return h if self.second is None else self.second(h.relu(), edge_index)


class PredictThenPropagate(nn.Module):
    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__()
        self.lin = nn.Linear(34, 2, seed=rng)
        self.prop = nn.APPNP(K=5, alpha=0.1)

    def forward(self, x: lt.AbstractTensor, edge_index: nn.Edges) -> lt.AbstractTensor:
        return self.prop(self.lin(x), edge_index)


MODELS: dict[str, Any] = {
    "gcn": lambda rng: TwoLayers(nn.GCNConv(34, 8, seed=rng), nn.GCNConv(8, 2, seed=rng)),
    "gat": lambda rng: TwoLayers(nn.GATConv(34, 4, heads=2, seed=rng), nn.GATConv(8, 2, seed=rng)),
    "sage": lambda rng: TwoLayers(nn.SAGEConv(34, 8, seed=rng), nn.SAGEConv(8, 2, seed=rng)),
    "sgc": lambda rng: TwoLayers(nn.SGConv(34, 2, K=2, cached=True, seed=rng), None),
    "appnp": PredictThenPropagate,
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_few_epochs_on_the_karate_club_lower_the_loss(name: str) -> None:
    club = nx.karate_club_graph()
    pairs = np.array(list(club.edges()))
    edges = nn.Edges(
        np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]]), 34
    )
    labels = np.array([club.nodes[v]["club"] == "Officer" for v in range(34)], dtype=np.int64)
    x = lt.eye(34)
    model = MODELS[name](np.random.default_rng(0))
    optimizer = lt.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(15):
        optimizer.zero_grad()
        loss = nn.cross_entropy(model(x, edges), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0], losses
    with lt.no_grad():
        predicted = model.eval()(x, edges).argmax(1).numpy()
    assert (predicted == labels).mean() > 0.8

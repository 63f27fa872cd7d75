"""`lt.nn.Edges`: message passing on an edge list against numpy loops, the edge-labelled views (reads,
writes, gradients, `explain()` naming edges), bipartite blocks, and errors naming the bad values.

Reaches into `lazytensor.nn.message_passing` and `lazytensor.ground.indexing`: the edge-labelled
view's class and the usable buffer of the edge ids are not exported.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.nn.message_passing import EdgesTensor


@st.composite
def graphs_and_rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """A random multigraph (self loops, repeats, nodes with no in-edge) and node rows of 1-3 axes."""
    nodes = draw(st.integers(1, 6))
    edges = draw(st.integers(0, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    trailing = draw(st.sampled_from([(), (1,), (3,), (2, 3)]))
    src, dst = rng.integers(0, nodes, size=edges), rng.integers(0, nodes, size=edges)
    return src, dst, nodes, rng.standard_normal((nodes, *trailing))


def _loop(rows: np.ndarray, dst: np.ndarray, nodes: int, reduce: str) -> np.ndarray:
    out = (
        np.zeros((nodes, *rows.shape[1:])) if reduce != "max" else np.full((nodes, *rows.shape[1:]), -np.inf)
    )
    for node in range(nodes):
        into = rows[dst == node]
        if len(into):
            out[node] = {"sum": np.sum, "mean": np.mean, "max": np.max}[reduce](into, axis=0)
    return out


# 200 examples over 0-12 edges on 1-6 nodes and four row shapes: empty graphs, nodes without
# in-edges and repeated edges all come up many times.
@settings(max_examples=200, deadline=None)
@given(graphs_and_rows(), st.sampled_from(["sum", "mean", "max"]))
def test_sum_mean_max_of_source_rows_match_a_loop(
    case: tuple[np.ndarray, np.ndarray, int, np.ndarray], reduce: str
) -> None:
    src, dst, nodes, rows = case
    edges = lt.nn.Edges(src, dst, nodes)
    got = getattr(edges, reduce)(edges.sources(lt.tensor(rows)))
    np.testing.assert_allclose(got.numpy(), _loop(rows[src], dst, nodes, reduce), rtol=1e-12, atol=1e-12)


def test_sources_and_targets_are_views_that_write_through() -> None:
    h = lt.arange(12.0).reshape(4, 3)
    edges = lt.nn.Edges([3, 0, 3], [1, 2, 0], num_nodes=4)
    x_j, x_i = edges.sources(h), edges.targets(h)
    assert isinstance(x_j, EdgesTensor) and x_j.shares_storage(h) and x_i.shares_storage(h)
    assert x_j.tolist() == h.numpy()[[3, 0, 3]].tolist() and x_i.tolist() == h.numpy()[[1, 2, 0]].tolist()
    assert x_j.layers[1].layer_name == "Indexed"  # the label sits on the gather, nothing copied
    x_j[1, 2] = -1.0  # edge 1 starts at node 0
    assert h[0, 2] == -1.0


def test_gradients_pass_through_the_labels_and_the_gather() -> None:
    h = lt.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
    edges = lt.nn.Edges([3, 0, 3, 1], [1, 2, 0, 0], num_nodes=4)
    weights = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    (edges.sources(h) * weights).sum().backward()
    expected = np.zeros((4, 2))
    np.add.at(expected, [3, 0, 3, 1], weights)
    assert h.grad is not None
    np.testing.assert_array_equal(h.grad.numpy(), expected)


def test_a_weighted_trace_names_the_edge_and_its_weight() -> None:
    edges = lt.nn.Edges([2, 0, 1], [1, 1, 0], num_nodes=3)
    weights = edges.label(lt.tensor([[0.25, 0.5], [0.75, 0.5], [1.0, 1.0]]))
    trace = str(weights.explain((1, 0)))
    assert "Edges    (3, 2)  (1, 0)    edge 1: 0 → 1, weight 0.75" in trace
    tree = str(weights.explain())
    assert tree.startswith("Edges (3, 2) · 3 edges src → dst over 3 nodes, each with its weight")


def test_a_gathered_trace_names_the_edge_then_the_source_row() -> None:
    h = lt.arange(8.0).reshape(4, 2)
    edges = lt.nn.Edges([3, 1, 2], [0, 0, 1], num_nodes=4)
    lines = str(edges.sources(h).explain((2, 1))).splitlines()
    assert lines[2].split() == ["Edges", "(3,", "2)", "(2,", "1)", "edge", "2:", "2", "→", "1"]
    assert lines[3].split()[:5] == ["Indexed", "(3,", "2)", "(2,", "1)"]
    assert lines[-2] == "storage index 5 holds 5.0"


def test_explain_node_lists_the_incoming_edges_with_their_weights() -> None:
    edges = lt.nn.Edges([0, 2, 1, 2], [1, 1, 0, 2], num_nodes=3)
    attention = lt.tensor([[0.5, 0.25], [0.5, 0.75], [1.0, 1.0], [1.0, 1.0]])
    text = str(edges.explain_node(1, attention))
    assert text.splitlines() == [
        "node 1 receives 2 messages",
        "edge  from → to  weight 0  weight 1",
        "   0  0 → 1        0.5000    0.2500",
        "   1  2 → 1        0.5000    0.7500",
    ]
    assert str(edges.explain_node(-3)).splitlines()[0] == "node 0 receives 1 messages"
    many = lt.nn.Edges(np.arange(30) % 3, np.zeros(30, dtype=int), num_nodes=3)
    assert str(many.explain_node(0, limit=5)).splitlines()[-1] == "… 25 more edges"


def test_a_bipartite_block_gathers_from_sources_and_sums_into_targets() -> None:
    h = lt.tensor([[1.0], [2.0], [4.0], [8.0]])  # four source rows
    block = lt.nn.Edges([3, 2, 0], [0, 0, 1], num_nodes=2, num_sources=4)
    assert block.sum(block.sources(h)).tolist() == [[12.0], [1.0]]
    assert block.mean(block.sources(h)).tolist() == [[6.0], [1.0]]


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"src": [0, 3], "dst": [0, 1], "num_nodes": 3}, IndexError, "index 3 is out of bounds"),
        ({"src": [0, 1], "dst": [0, -4], "num_nodes": 3}, IndexError, "-4"),
        ({"src": [0, 1], "dst": [0], "num_nodes": 3}, ValueError, "src of shape (2,) and dst of shape (1,)"),
        ({"src": [[0, 1]], "dst": [0, 1], "num_nodes": 3}, ValueError, "shape (1, 2)"),
        ({"src": [0.5], "dst": [0], "num_nodes": 3}, TypeError, "float64"),
        (
            {"src": [0], "dst": [0], "num_nodes": -1},
            ValueError,
            "num_nodes must be a non-negative integer, got -1",
        ),
        ({"src": [5], "dst": [0], "num_nodes": 1, "num_sources": 5}, IndexError, "index 5"),
        (
            {"src": [0], "dst": [0], "num_nodes": True},
            ValueError,
            "num_nodes must be a non-negative integer, got True",
        ),
    ],
)
def test_bad_edges_raise_naming_the_bad_value(
    kwargs: dict[str, object], error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as raised:
        lt.nn.Edges(**kwargs)  # type: ignore[arg-type]
    assert words in str(raised.value)


def test_a_graph_of_no_nodes_has_no_edges() -> None:
    edges = lt.nn.Edges([], [], num_nodes=0, num_sources=0)
    assert (edges.count, edges.num_nodes, edges.num_sources) == (0, 0, 0)
    assert edges.sum(lt.zeros(0, 2)).shape == (0, 2)


def test_labels_must_run_over_the_edges() -> None:
    edges = lt.nn.Edges([0, 1], [1, 0], num_nodes=2)
    with pytest.raises(ValueError, match=r"shape \(3,\) does not run over 2 edges along its first axis$"):
        edges.label(lt.zeros(3))
    with pytest.raises(ValueError, match=r"weights of shape \(3,\)"):
        edges.explain_node(0, lt.zeros(3))
    with pytest.raises(IndexError, match="index 2 is out of bounds"):
        edges.explain_node(2)


def test_edge_ids_are_read_only() -> None:
    edges = lt.nn.Edges(np.array([0, 1]), np.array([1, 0]), num_nodes=2)
    with pytest.raises(ValueError, match="read-only"):
        edges.src[0] = 1


def test_edge_ids_are_a_private_copy_that_numpy_indexes_without_copying() -> None:
    """numpy's `take` copies a read-only index before using it; the edge list keeps a read-only
    window whose writeable buffer (`indexing.usable`) numpy can use directly."""
    from lazytensor.ground.indexing import usable

    src = np.array([0, 1, 2])
    edges = lt.nn.Edges(src, np.array([1, 2, 0]), num_nodes=3)
    src[0] = 2
    assert edges.src.tolist() == [0, 1, 2]
    assert usable(edges.src).flags.writeable and np.shares_memory(usable(edges.src), edges.src)
    assert usable(src) is src


def test_sources_of_a_taller_tensor_and_of_a_shorter_one() -> None:
    """Ids were checked against `num_sources`: a tensor with more rows is gathered as it is, one with
    fewer rows gets numpy's error."""
    edges = lt.nn.Edges([2, 0], [0, 1], num_nodes=3)
    tall = lt.arange(10.0).reshape(5, 2)
    assert edges.sources(tall).tolist() == [[4.0, 5.0], [0.0, 1.0]]
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        edges.sources(lt.zeros(2, 2))


@settings(max_examples=100, deadline=None)
@given(graphs_and_rows())
def test_edges_softmax_is_the_edge_softmax(case: tuple[np.ndarray, np.ndarray, int, np.ndarray]) -> None:
    """`Edges.softmax` reuses the edge list's grouping; the free function groups afresh."""
    src, dst, nodes, rows = case
    edges = lt.nn.Edges(src, dst, nodes)
    scores = edges.sources(lt.tensor(rows))
    np.testing.assert_allclose(
        edges.softmax(scores).numpy(), lt.nn.edge_softmax(scores, dst, nodes).numpy(), rtol=1e-12
    )


def test_out_of_range_nodes_are_refused_naming_the_node_axis() -> None:
    edges = lt.nn.Edges([0, 1], [1, 0], num_nodes=2)
    for ask in (edges.into, edges.explain_node):
        for node in (2, -3):
            with pytest.raises(
                IndexError, match=rf"^index {node} is out of bounds for node axis 0 with size 2$"
            ):
                ask(node)


@pytest.mark.parametrize("node", [1.0, 0.5, "1", None])
def test_a_node_must_be_an_integer(node: object) -> None:
    """As numpy's `a[1.0]`: a float is no node id (it used to be truncated), nor is a string."""
    edges = lt.nn.Edges([0, 1], [1, 0], num_nodes=2)
    for ask in (edges.into, edges.explain_node):
        with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
            ask(node)  # type: ignore[arg-type]


def test_into_lists_the_edges_ending_at_a_node() -> None:
    edges = lt.nn.Edges([0, 1, 2, 2], [1, 2, 1, 0], num_nodes=3)
    assert edges.into(1).tolist() == [0, 2] and edges.into(-1).tolist() == [1]
    assert edges.into(np.int64(0)).tolist() == [3] and edges.into(np.uint8(1)).tolist() == [0, 2]


def test_a_target_row_trace_names_the_edge_alone() -> None:
    edges = lt.nn.Edges([0, 2], [1, 0], num_nodes=3)
    x_i = edges.targets(lt.arange(6.0).reshape(3, 2))
    assert x_i.carries == "target row" and x_i.edges is edges
    assert x_i.describe_position((1, 0)) == "edge 1: 2 → 0"
    assert x_i.describe() == "2 edges src → dst over 3 nodes, each with its target row"
    assert edges.label(lt.tensor([1.0, 2.0]), "score").describe_position((0,)) == "edge 0: 0 → 1, score 1.0"


def test_explain_node_of_one_weight_per_edge_and_of_no_weights() -> None:
    edges = lt.nn.Edges([0, 2, 1], [1, 1, 0], num_nodes=3)
    assert str(edges.explain_node(1, lt.tensor([0.5, 0.25, 1.0]))).splitlines() == [
        "node 1 receives 2 messages",
        "edge  from → to  weight",
        "   0  0 → 1      0.5000",
        "   1  2 → 1      0.2500",
    ]
    assert (
        str(edges.explain_node(1, lt.tensor([[0.5], [0.25], [1.0]]))).splitlines()[1]
        == "edge  from → to  weight"
    )
    assert str(edges.explain_node(1)).splitlines() == [
        "node 1 receives 2 messages",
        "edge  from → to",
        "   0  0 → 1",
        "   1  2 → 1",
    ]
    with pytest.raises(ValueError, match=r"^weights of shape \(\) do not give one row per edge of 3$"):
        edges.explain_node(1, lt.tensor(1.0))


def test_explain_node_shows_twenty_edges_by_default_and_counts_the_rest() -> None:
    def rows(count: int, **limit: int) -> list[str]:
        edges = lt.nn.Edges(np.zeros(count, dtype=int), np.zeros(count, dtype=int), num_nodes=1)
        return str(edges.explain_node(0, **limit)).splitlines()

    assert len(rows(20)) == 2 + 20 and rows(20)[-1] == "  19  0 → 0"
    assert len(rows(21)) == 2 + 20 + 1 and rows(21)[-1] == "… 1 more edges"
    assert rows(3, limit=3)[-1] == "   2  0 → 0"
    assert rows(4, limit=3)[-1] == "… 1 more edges"


def test_explain_node_prints_at_the_configured_line_width() -> None:
    edges = lt.nn.Edges([0], [0], num_nodes=1)
    weights = lt.ones(1, 12)
    with lt.printoptions(linewidth=200):
        wide = str(edges.explain_node(0, weights)).splitlines()
    assert len(wide) == 3 and wide[1].endswith("weight 11")
    with lt.printoptions(linewidth=40):
        assert len(str(edges.explain_node(0, weights)).splitlines()) > 3  # rich folds the table


def test_explain_node_dims_the_header_and_the_count_of_the_rest() -> None:
    from rich.console import Console

    edges = lt.nn.Edges([0, 0], [0, 0], num_nodes=1)
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80)
    segments = list(console.render(edges.explain_node(0, lt.tensor([1.0, 2.0]), limit=1)))
    styles = {s.text.strip(): s.style for s in segments if s.text.strip()}
    assert styles["from → to"] is not None and styles["from → to"].dim
    assert styles["… 1 more edges"] is not None and styles["… 1 more edges"].dim


def test_the_gradient_of_a_sum_over_edges_counts_each_sources_out_edges() -> None:
    edges = lt.nn.Edges([0, 2, 2, 1, 2], [1, 0, 1, 1, 2], num_nodes=3)
    h = lt.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    weights = lt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (edges.sum(edges.sources(h)) * weights).sum().backward()
    expected = np.zeros((3, 2))
    for s, d in zip([0, 2, 2, 1, 2], [1, 0, 1, 1, 2], strict=True):
        expected[s] += weights.numpy()[d]
    np.testing.assert_array_equal(h.grad.numpy(), expected)


@pytest.mark.parametrize(
    ("dtype", "mean_dtype"),
    [(np.float32, np.float32), (np.float64, np.float64), (np.int64, np.float64), (np.int32, np.float64)],
)
def test_the_mean_over_edges_is_a_float_of_at_least_the_messages_precision(
    dtype: type, mean_dtype: type
) -> None:
    """As numpy's mean: float32 stays float32, integers average in float64 (and are not truncated)."""
    edges = lt.nn.Edges([0, 1, 2, 0], [1, 1, 1, 2], num_nodes=4)
    rows = np.array([[1, 2], [2, 5], [4, 4]], dtype=dtype)
    got = edges.mean(edges.sources(lt.tensor(rows)))
    assert got.dtype == np.dtype(mean_dtype)
    expected = np.array([[0, 0], rows[[0, 1, 2]].mean(axis=0), rows[0], [0, 0]], dtype=mean_dtype)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_sources_of_a_0d_tensor_get_numpys_error() -> None:
    edges = lt.nn.Edges([0], [0], num_nodes=1)
    with pytest.raises(IndexError, match="too many indices for tensor: tensor is 0-dimensional"):
        edges.sources(lt.tensor(1.0))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"src": [0, 3], "dst": [0, 1], "num_nodes": 3},
            IndexError,
            "index 3 is out of bounds for node axis 0 with size 3",
        ),
        (
            {"src": [0, 1], "dst": [0, -4], "num_nodes": 3},
            IndexError,
            "index -4 is out of bounds for node axis 0 with size 3",
        ),
        (
            {"src": [[0, 1]], "dst": [0, 1], "num_nodes": 3},
            ValueError,
            "src must be 1-D (one node per edge), got shape (1, 2)",
        ),
        (
            {"src": [0], "dst": [[0]], "num_nodes": 3},
            ValueError,
            "dst must be 1-D (one node per edge), got shape (1, 1)",
        ),
        (
            {"src": [0.5], "dst": [0], "num_nodes": 3},
            TypeError,
            "src must hold integer node ids, got dtype float64",
        ),
        (
            {"src": [0], "dst": [0.5], "num_nodes": 3},
            TypeError,
            "dst must hold integer node ids, got dtype float64",
        ),
        (
            {"src": [0], "dst": [0], "num_nodes": 2, "num_sources": -1},
            ValueError,
            "num_sources must be a non-negative integer, got -1",
        ),
    ],
)
def test_bad_edges_are_refused_with_the_whole_message(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        lt.nn.Edges(**kwargs)  # type: ignore[arg-type]
    assert str(raised.value) == message

"""examples/gnn.py: every model trains from the command line, the neighbour sampler samples what it
says without copying the feature matrix, and `--explain-node` shows where messages came from."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import attrs
import numpy as np
import pytest
from repo_paths import ROOT

import lazytensor as lt

sys.path.insert(0, str(ROOT / "examples"))
import gnn
import graphs


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "gnn.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("model", gnn.MODELS)
def test_every_model_learns_the_karate_club(model: str, tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    assert gnn.main(["--model", model, "--epochs", "30", "--quiet", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["model"] == model and result["dataset"] == "karate" and result["epochs"] == 30
    assert result["test_accuracy_mean"] >= 0.6, result


def test_the_cli_prints_a_table_and_explains_a_node_with_attention_weights() -> None:
    """The node's predicted and true class, the layer and head the weights come from, each message's
    source with its classes; the storage trace only with --verbose."""
    done = run_cli("--model", "gat", "--epochs", "3", "--explain-node", "0")
    assert done.returncode == 0, done.stderr
    assert "GAT with lazytensor" in done.stdout and "test accuracy" in done.stdout
    lines = done.stdout.splitlines()
    start = lines.index("node 0 receives 17 messages")  # 16 friends and its self loop
    assert lines[start - 2].startswith("node 0: predicted class ")
    assert lines[start - 2].endswith(f"true class {graphs.karate().labels[0]}")
    assert lines[start - 1] == "last layer conv2 (GATConv, 1 head): messages weighted by head 0's attention"
    assert lines[start + 1].split() == ["edge", "from", "→", "to", "true", "class", "predicted", "head", "0"]
    rows = [line.split() for line in lines[start + 2 : start + 19]]
    assert sum(float(row[-1]) for row in rows) == pytest.approx(1.0, abs=1e-3)  # a softmax over the edges
    predicted = int(lines[start - 2].split()[4])
    agreeing = sum(int(row[-2]) == predicted for row in rows)
    assert lines[start + 19] == f"{agreeing} of 17 messages come from nodes predicted as class {predicted}"
    assert not any("Storage" in line or "strides" in line for line in lines[start:])
    verbose = run_cli("--model", "gat", "--epochs", "3", "--quiet", "--explain-node", "0", "--verbose")
    assert any("Edges" in line and "edge 0: 0 → 0, weight" in line for line in verbose.stdout.splitlines())


def test_explaining_a_node_without_attention_lists_its_edges() -> None:
    done = run_cli("--model", "sgc", "--epochs", "2", "--quiet", "--explain-node", "-1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("node 33: predicted class ")
    assert lines[1] == "last layer conv (SGConv): Â applied twice, weights of Â's last step"
    assert lines[2] == "node 33 receives 18 messages"
    assert lines[3].split()[-2:] == ["Â", "weight"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--explain-node", "34"), "--explain-node 34 is not a node of karate (34 nodes)"),
        (("--model", "mlp"), "invalid choice: 'mlp'"),
        (("--model", "sage", "--fanout", "10"), "give two positive fan-outs"),
        (("--model", "sage", "--fanout", "a,b"), "fan-outs are positive integers"),
        (("--dataset", "imagenet"), "imagenet"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr


# -- the neighbour sampler --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cora() -> graphs.Graph:
    return graphs.load("cora")


def test_sampling_picks_distinct_in_neighbours_up_to_the_fanout(cora: graphs.Graph) -> None:
    neighbours = gnn.Neighbours.of(cora)
    nodes = np.array([0, 1701, 2707, 1358, 5])
    sources, owner = neighbours.sample(nodes, 3, np.random.default_rng(0))
    edges = set(zip(cora.src.tolist(), cora.dst.tolist(), strict=True))
    degree = np.bincount(cora.dst, minlength=cora.num_nodes)
    for k, node in enumerate(nodes):
        picked = sources[owner == k]
        assert len(picked) == min(degree[node], 3) and len(set(picked.tolist())) == len(picked)
        assert all((s, node) in edges for s in picked.tolist())
    everything, owner_all = neighbours.sample(nodes, None, None)
    assert np.bincount(owner_all, minlength=len(nodes)).tolist() == degree[nodes].tolist()
    for k, node in enumerate(nodes):  # fanout None: every in-neighbour, once
        assert sorted(everything[owner_all == k].tolist()) == sorted(cora.src[cora.dst == node].tolist())
    again, _ = neighbours.sample(nodes, 3, np.random.default_rng(0))
    assert again.tolist() == sources.tolist()  # the same draws, the same sample


def test_blocks_relabel_targets_first_and_map_back_to_graph_edges(cora: graphs.Graph) -> None:
    seeds = np.array([10, 3, 2000])
    nodes, blocks = gnn.sample_blocks(gnn.Neighbours.of(cora), seeds, (10, 10), np.random.default_rng(1))
    edges = set(zip(cora.src.tolist(), cora.dst.tolist(), strict=True))
    inner, outer = blocks  # first layer first
    assert outer.targets == 3 and outer.edges.num_nodes == 3
    assert inner.edges.num_sources == len(nodes) and len(set(nodes.tolist())) == len(nodes)
    middle = nodes[: inner.targets]
    assert middle[:3].tolist() == seeds.tolist()  # each layer's targets come first among its inputs
    for block, (below, above) in ((inner, (nodes, middle)), (outer, (middle, seeds))):
        pairs = zip(below[block.edges.src].tolist(), above[block.edges.dst].tolist(), strict=True)
        assert all(pair in edges for pair in pairs)


def test_relabel_keeps_the_targets_in_place() -> None:
    nodes, positions = gnn.relabel(np.array([7, 2, 9]), np.array([5, 2, 5, 1, 9]))
    assert nodes.tolist() == [7, 2, 9, 5, 1]
    assert nodes[positions].tolist() == [5, 2, 5, 1, 9]


def test_feature_fetches_are_views_of_the_full_matrix(cora: graphs.Graph) -> None:
    model = gnn.SAGE(cora, np.random.default_rng(0), (10, 10))
    fetched = model.fetch(np.array([5, 0, 5, 2000]))
    assert isinstance(fetched, lt.IndexedTensor) and fetched.shares_storage(model.features)
    assert fetched.shares_storage(cora.features)  # not even the graph's array was copied


def test_a_sampled_epoch_allocates_far_less_than_the_feature_matrix() -> None:
    """A wide feature matrix (20,000 x 512 float32, 41 MB) and a fan-out of 2: one sampled epoch reads
    only the rows its 80 training nodes need (at most 80 x 3 x 3), so the memory it allocates stays a
    small fraction of the matrix."""
    small = graphs.load("sbm", nodes=20_000)
    wide = np.random.default_rng(0).standard_normal((small.num_nodes, 512)).astype(np.float32)
    graph = attrs.evolve(small, features=wide)
    rng = np.random.default_rng(0)
    model = gnn.SAGE(graph, rng, (2, 2))
    optimizer = gnn.optimizer_for("sage", model)
    data = gnn.Data.of(graph)
    tracemalloc.start()
    try:
        gnn.train_epoch(model, data, optimizer, rng)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < wide.nbytes / 4, f"peak {peak:,} bytes for a {wide.nbytes:,}-byte feature matrix"


def test_sgc_reaches_its_accuracy_on_cora_in_one_run(cora: graphs.Graph) -> None:
    run, _ = gnn.train("sgc", cora, 100, seed=0)
    assert run.test_accuracy >= 0.79

"""examples/gnn.py --features-zarr: GraphSAGE whose features live in a zarr store reads, for a sampled
batch, only the chunks that hold the batch's rows, each once, and learns what it learns in memory."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from repo_paths import ROOT
from store_support import CountingStore

import lazytensor as lt
from lazytensor import nn

sys.path.insert(0, str(ROOT / "examples"))
import gnn
import graphs

ROWS, WIDTH = 16, 24


@pytest.fixture(scope="module")
def graph() -> graphs.Graph:
    return graphs.sbm(3000)


def _stored(graph: graphs.Graph) -> tuple[lt.AbstractTensor, CountingStore]:
    store = CountingStore()
    array = gnn.write_feature_store(graph, store, WIDTH, rows=ROWS)
    return lt.from_array(array), store


def test_a_batch_reads_each_chunk_holding_its_rows_once(graph: graphs.Graph) -> None:
    features, store = _stored(graph)
    rng = np.random.default_rng(0)
    model = gnn.SAGE(graph, rng, (5, 5), features)
    nodes, _ = gnn.sample_blocks(model.neighbours, graph.train_idx[:10], model.fanouts, rng)
    store.chunk_reads.clear()
    rows = model.fetch(nodes)
    touched = {f"c/{row // ROWS}/0" for row in nodes.tolist()}
    assert collections.Counter(store.chunk_reads) == dict.fromkeys(touched, 1)
    assert len(touched) < graph.num_nodes // ROWS  # a batch is not the whole store
    assert np.array_equal(rows.numpy(), features.numpy()[nodes])


def test_a_training_step_reads_no_chunk_twice(graph: graphs.Graph) -> None:
    features, store = _stored(graph)
    rng = np.random.default_rng(1)
    model = gnn.SAGE(graph, rng, (5, 5), features)
    seeds = graph.train_idx[:16]
    store.chunk_reads.clear()
    loss = nn.cross_entropy(model(seeds, rng), graph.labels[seeds])
    loss.backward()
    reads = collections.Counter(store.chunk_reads)
    assert reads and max(reads.values()) == 1
    assert all(p.grad is not None for p in model.parameters())


def test_training_from_a_store_learns_what_training_in_memory_learns(graph: graphs.Graph) -> None:
    features, _ = _stored(graph)
    in_memory = lt.from_numpy(np.ascontiguousarray(features.numpy()))
    stored_run, stored_model = gnn.train("sage", graph, 3, seed=0, fanouts=(5, 5), features=features)
    memory_run, _ = gnn.train("sage", graph, 3, seed=0, fanouts=(5, 5), features=in_memory)
    assert isinstance(stored_model, gnn.SAGE) and stored_model.stored
    assert attrs_without_time(stored_run) == attrs_without_time(memory_run)


def attrs_without_time(run: gnn.Run) -> tuple[float, float, float, int]:
    return run.train_accuracy, run.val_accuracy, run.test_accuracy, run.best_epoch


def test_the_cli_writes_a_store_and_trains_from_it(tmp_path: Path) -> None:
    path, out = tmp_path / "features.zarr", tmp_path / "result.json"
    common = ["--dataset", "sbm", "--nodes", "3000", "--quiet"]
    assert gnn.main([*common, "--write-features-zarr", str(path), "--feature-width", "32"]) == 0
    assert lt.open(path, mode="r").shape == (3000, 32)
    assert gnn.main([*common, "--write-features-zarr", str(path)]) == 2  # never over an existing store
    args = ["--model", "sage", "--features-zarr", str(path), "--epochs", "3", "--json", str(out)]
    assert gnn.main([*common, *args]) == 0
    result = json.loads(out.read_text())
    assert result["model"] == "sage" and result["nodes"] == 3000


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model", "gcn"], "give --model sage, not gcn"),
        (["--model", "sage", "--nodes", "4000"], "has 4,000 nodes"),
    ],
)
def test_the_cli_refuses_a_store_it_cannot_use(
    extra: list[str], message: str, tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "features.zarr"
    write = ["--dataset", "sbm", "--nodes", "3000", "--quiet", "--feature-width", "8"]
    assert gnn.main([*write, "--write-features-zarr", str(path)]) == 0
    code = gnn.main(["--dataset", "sbm", "--nodes", "3000", *extra, "--features-zarr", str(path), "--quiet"])
    assert code == 2 and message in capsys.readouterr().err


def test_evaluation_from_a_store_streams_it_once_and_gives_the_logits(graph: graphs.Graph) -> None:
    features, store = _stored(graph)
    model = gnn.SAGE(graph, np.random.default_rng(2), (5, 5), features)
    nodes = np.unique(np.concatenate([graph.val_idx, graph.test_idx]))
    model.eval()
    with lt.no_grad():
        expected = model(nodes).numpy()
        store.chunk_reads.clear()
        streamed = model.streamed_logits(nodes).numpy()
    reads = collections.Counter(store.chunk_reads)
    assert max(reads.values()) == 1  # each chunk once, in order
    np.testing.assert_allclose(streamed, expected, rtol=1e-4, atol=1e-5)

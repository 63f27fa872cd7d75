"""examples/gnn.py's GAT and sampled GraphSAGE against the hand-written numpy references
(benchmarks/numpy_gat.py, benchmarks/numpy_sage.py): same draws, same loss, same gradients.

In float64 the two agree to rounding: gnn.py builds its parameters and masks in the dtype `gnn.FLOAT`
(patched to float64 here) and the features are swapped for a float64 copy.
"""

from __future__ import annotations

import sys
from typing import Any

import attrs
import numpy as np
import pytest
from repo_paths import ROOT

import lazytensor as lt
from lazytensor import nn

sys.path[:0] = [str(ROOT / "examples"), str(ROOT / "benchmarks")]

import gnn  # noqa: E402
import graphs  # noqa: E402
import numpy_gat  # noqa: E402
import numpy_sage  # noqa: E402

GRAPHS = ("karate", "cora")
TOLERANCE = 1e-10


@pytest.fixture(scope="module")
def loaded() -> dict[str, graphs.Graph]:
    return {name: graphs.load(name) for name in GRAPHS}


def float64_model(name: str, graph: graphs.Graph, rng: np.random.Generator, monkeypatch: Any) -> Any:
    """gnn's model `name` with float64 parameters, masks and features."""
    monkeypatch.setattr(gnn, "FLOAT", np.float64)
    model = gnn.build(name, graph, rng, gnn.SAGE_FANOUT)
    return attrs.evolve(model, features=lt.from_numpy(graph.features.astype(np.float64)))


def assert_same_arrays(ours: list[lt.StorageTensor], reference: list[np.ndarray], what: str) -> None:
    assert len(ours) == len(reference)
    for k, (param, expected) in enumerate(zip(ours, reference, strict=True)):
        assert param.shape == expected.shape, f"{what} {k}"
        np.testing.assert_allclose(param.numpy(), expected, rtol=0, atol=TOLERANCE, err_msg=f"{what} {k}")


def assert_same_grads(params: list[lt.StorageTensor], reference: list[np.ndarray]) -> None:
    assert all(param.grad is not None for param in params)
    assert_same_arrays([param.grad for param in params], reference, "gradient of parameter")  # type: ignore[misc]


# ------------------------------------------------------------------------------------------------ GAT


@pytest.mark.parametrize("dataset", GRAPHS)
def test_gat_loss_and_every_gradient_match_numpy(
    dataset: str, loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded[dataset]
    rng = np.random.default_rng(5)
    model = float64_model("gat", graph, rng, monkeypatch)
    loss = nn.cross_entropy(model(rng)[graph.train_idx], graph.labels[graph.train_idx])
    loss.backward()

    reference_rng = np.random.default_rng(5)
    layers = numpy_gat.init_layers(graph, reference_rng, np.float64)
    assert_same_arrays(model.parameters(), numpy_gat.parameters(layers), "parameter")
    edges = numpy_gat.GatEdges.of(graph)
    assert np.array_equal(edges.src, model.edges.src) and np.array_equal(edges.dst, model.edges.dst)
    masks = numpy_gat.Masks.draw(reference_rng, graph, edges, np.float64)
    features = graph.features.astype(np.float64)
    reference_loss, grads = numpy_gat.loss_and_grads(
        edges, features, graph.labels, graph.train_idx, layers, masks
    )
    assert loss.item() == pytest.approx(reference_loss, abs=1e-12)
    assert_same_grads(model.parameters(), grads)
    assert rng.random() == reference_rng.random()  # the same number of draws


def test_gat_evaluation_logits_match_numpy(
    loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded["karate"]
    model = float64_model("gat", graph, np.random.default_rng(2), monkeypatch)
    with lt.no_grad():
        logits, attention = model.forward(None)
    layers = numpy_gat.init_layers(graph, np.random.default_rng(2), np.float64)
    edges = numpy_gat.GatEdges.of(graph)
    reference_logits, reference_attention = numpy_gat.forward(
        edges, graph.features.astype(np.float64), layers
    )
    np.testing.assert_allclose(logits.numpy(), reference_logits, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(attention.numpy(), reference_attention, rtol=0, atol=TOLERANCE)


# ----------------------------------------------------------------------------------- GraphSAGE, sampled


@pytest.mark.parametrize("dataset", GRAPHS)
def test_sage_loss_and_every_gradient_match_numpy(
    dataset: str, loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded[dataset]
    rng = np.random.default_rng(5)
    model = float64_model("sage", graph, rng, monkeypatch)
    seeds = rng.permutation(graph.train_idx)[: gnn.SAGE_BATCH]
    loss = nn.cross_entropy(model.logits(seeds, rng), graph.labels[seeds])
    loss.backward()

    reference = numpy_sage.Trainer.init(graph, np.random.default_rng(5), np.float64)
    assert_same_arrays(model.parameters(), reference.params, "parameter")
    reference_seeds = reference.rng.permutation(graph.train_idx)[: numpy_sage.BATCH]
    assert np.array_equal(seeds, reference_seeds)
    batch = reference.batch(reference_seeds)
    assert max(block.inverse_degree.min() for block in batch.blocks) < 1  # some node had neighbours
    reference_loss, grads = numpy_sage.loss_and_grads(
        reference.params, reference.features, graph.labels, batch
    )
    assert loss.item() == pytest.approx(reference_loss, abs=1e-12)
    assert_same_grads(model.parameters(), grads)
    assert rng.random() == reference.rng.random()  # the same number of draws


def test_sage_samples_the_same_blocks(loaded: dict[str, graphs.Graph]) -> None:
    graph = loaded["cora"]
    neighbours = gnn.Neighbours.of(graph)
    seeds = np.random.default_rng(0).permutation(graph.train_idx)
    nodes, blocks = gnn.sample_blocks(neighbours, seeds, gnn.SAGE_FANOUT, np.random.default_rng(1))
    reference_nodes, reference_blocks = numpy_sage.sample_blocks(
        neighbours, seeds, numpy_sage.FANOUTS, np.random.default_rng(1)
    )
    assert np.array_equal(nodes, reference_nodes)
    for block, reference_block in zip(blocks, reference_blocks, strict=True):
        assert block.targets == reference_block.targets
        assert block.edges.num_sources == reference_block.num_sources
        assert np.array_equal(block.edges.src, reference_block.src)
        assert np.array_equal(block.edges.dst, reference_block.dst)


REFERENCES = {
    "gat": (numpy_gat.Trainer, lambda trainer: numpy_gat.parameters(trainer.layers)),
    "sage": (numpy_sage.Trainer, lambda trainer: trainer.params),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
@pytest.mark.parametrize(("dataset", "epochs"), [("karate", 8), ("cora", 3)])
def test_training_gives_the_same_losses(
    name: str, dataset: str, epochs: int, loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded[dataset]
    rng = np.random.default_rng(11)
    model = float64_model(name, graph, rng, monkeypatch)
    optimizer = gnn.optimizer_for(name, model)
    trainer, parameters = REFERENCES[name]
    reference = trainer.init(graph, 11, np.float64)
    for _ in range(epochs):
        loss = gnn.train_epoch(model, graph, optimizer, rng)
        assert loss == pytest.approx(reference.epoch(), abs=TOLERANCE)
    assert_same_arrays(model.parameters(), parameters(reference), "trained parameter")


def test_sage_evaluation_scores_match_numpy(
    loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded["cora"]
    model = float64_model("sage", graph, np.random.default_rng(4), monkeypatch)
    reference = numpy_sage.Trainer.init(graph, 4, np.float64)
    scores = gnn.evaluate(model, graph)
    expected = reference.evaluate()
    assert (scores.train, scores.val, scores.test) == (expected["train"], expected["val"], expected["test"])
    assert scores.val_loss == pytest.approx(expected["val_loss"], abs=1e-10)


# ----------------------------------------------------------------------------- float32, as benchmarked


@pytest.mark.parametrize("name", ["gat", "sage"])
def test_float32_draws_are_bit_identical_and_losses_close(name: str, loaded: dict[str, graphs.Graph]) -> None:
    """What the benchmark times: the float32 models start from the same parameters and stay close."""
    graph = loaded["karate"]
    rng = np.random.default_rng(0)
    model = gnn.build(name, graph, rng, gnn.SAGE_FANOUT)
    optimizer = gnn.optimizer_for(name, model)
    reference: Any = (numpy_gat if name == "gat" else numpy_sage).Trainer.init(graph, 0)
    params = numpy_gat.parameters(reference.layers) if name == "gat" else reference.params
    for param, expected in zip(model.parameters(), params, strict=True):
        assert param.dtype == expected.dtype == np.float32
        assert np.array_equal(param.numpy(), expected)
    for _ in range(3):
        assert gnn.train_epoch(model, graph, optimizer, rng) == pytest.approx(reference.epoch(), abs=1e-5)


@pytest.mark.parametrize("reference", [numpy_gat, numpy_sage])
def test_the_references_train_from_the_command_line(
    reference: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert reference.main(["--epochs", "3", "--seeds", "2"]) == 0  # karate: val and test share nodes
    out = capsys.readouterr().out
    assert out.startswith("karate: 34 nodes") and "seed 1:" in out and "test accuracy" in out

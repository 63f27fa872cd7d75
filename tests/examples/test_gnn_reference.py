"""examples/gnn.py's GAT and sampled GraphSAGE against the hand-written numpy references
(benchmarks/numpy_gat.py, benchmarks/numpy_sage.py): same draws, same loss, same gradients.

In float64 the two agree to rounding: gnn.py builds its parameters and masks in the dtype `gnn.FLOAT`
(patched to float64 here) and the features are swapped for a float64 copy. The references hold a
weight as `(in, out)` and an attention vector as `(heads, units)`; the modules, as PyTorch and PyG,
as `(out, in)` and `(1, heads, units)`: the same values, compared by name.
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
    """gnn's model `name` with float64 parameters (and, for SAGE, float64 features)."""
    monkeypatch.setattr(gnn, "FLOAT", np.float64)
    return gnn.build(name, graph, rng, gnn.SAGE_FANOUT, features64(graph) if name == "sage" else None)


def features64(graph: graphs.Graph) -> lt.StorageTensor:
    return lt.from_numpy(graph.features.astype(np.float64))


REFERENCE_NAMES = {
    "gat": [f"conv{k}.{name}" for k in (1, 2) for name in ("lin.weight", "att_src", "att_dst", "bias")],
    "sage": [f"conv{k}.{name}" for k in (1, 2) for name in ("lin_r.weight", "lin_l.weight", "lin_l.bias")],
}
"""Our parameters' names, in the order of the numpy references' lists (GAT: w, att_src, att_dst, bias
per layer; SAGE: W_self, W_neigh, b per layer)."""


def as_reference(name: str, values: np.ndarray) -> np.ndarray:
    """A parameter (or its gradient) as the references hold it: a linear layer's weight `(in, out)`
    where ours is PyTorch's `(out, in)`, an attention vector `(heads, units)` where ours is PyG's
    `(1, heads, units)`."""
    if name.endswith("weight"):
        return values.T
    if "att_" in name:
        return values.reshape(values.shape[1:])
    return values


def ours(model: Any, name: str, grads: bool = False) -> list[np.ndarray]:
    """The model's parameters (or their gradients) in the references' order and layout."""
    params = dict(model.named_parameters())
    assert sorted(params) == sorted(REFERENCE_NAMES[name])
    values = []
    for key in REFERENCE_NAMES[name]:
        tensor = params[key].grad if grads else params[key]
        assert tensor is not None, f"{key} has no gradient"
        values.append(as_reference(key, tensor.numpy()))
    return values


def assert_same_arrays(ours: list[np.ndarray], reference: list[np.ndarray], what: str) -> None:
    assert len(ours) == len(reference)
    for k, (param, expected) in enumerate(zip(ours, reference, strict=True)):
        assert param.shape == expected.shape, f"{what} {k}"
        np.testing.assert_allclose(param, expected, rtol=0, atol=TOLERANCE, err_msg=f"{what} {k}")


# ------------------------------------------------------------------------------------------------ GAT


@pytest.mark.parametrize("dataset", GRAPHS)
def test_gat_loss_and_every_gradient_match_numpy(
    dataset: str, loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded[dataset]
    rng = np.random.default_rng(5)
    model = float64_model("gat", graph, rng, monkeypatch)
    data = gnn.Data.of(graph)
    logits, (looped, _) = model(features64(graph), data.edge_index, return_attention_weights=True)
    loss = nn.cross_entropy(logits[graph.train_idx], graph.labels[graph.train_idx])
    loss.backward()

    reference_rng = np.random.default_rng(5)
    layers = numpy_gat.init_layers(graph, reference_rng, np.float64)
    assert_same_arrays(ours(model, "gat"), numpy_gat.parameters(layers), "parameter")
    edges = numpy_gat.GatEdges.of(graph)
    assert np.array_equal(edges.src, looped.src) and np.array_equal(edges.dst, looped.dst)
    masks = numpy_gat.Masks.draw(reference_rng, graph, edges, np.float64)
    features = graph.features.astype(np.float64)
    reference_loss, grads = numpy_gat.loss_and_grads(
        edges, features, graph.labels, graph.train_idx, layers, masks
    )
    assert loss.item() == pytest.approx(reference_loss, abs=1e-12)
    assert_same_arrays(ours(model, "gat", grads=True), grads, "gradient of parameter")
    assert rng.random() == reference_rng.random()  # the same number of draws


def test_gat_evaluation_logits_match_numpy(
    loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded["karate"]
    model = float64_model("gat", graph, np.random.default_rng(2), monkeypatch).eval()
    with lt.no_grad():
        logits, (_, attention) = model(
            features64(graph), gnn.Data.of(graph).edge_index, return_attention_weights=True
        )
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
    loss = nn.cross_entropy(model(seeds, rng), graph.labels[seeds])
    loss.backward()

    reference = numpy_sage.Trainer.init(graph, np.random.default_rng(5), np.float64)
    assert_same_arrays(ours(model, "sage"), reference.params, "parameter")
    reference_seeds = reference.rng.permutation(graph.train_idx)[: numpy_sage.BATCH]
    assert np.array_equal(seeds, reference_seeds)
    batch = reference.batch(reference_seeds)
    assert max(block.inverse_degree.min() for block in batch.blocks) < 1  # some node had neighbours
    reference_loss, grads = numpy_sage.loss_and_grads(
        reference.params, reference.features, graph.labels, batch
    )
    assert loss.item() == pytest.approx(reference_loss, abs=1e-12)
    assert_same_arrays(ours(model, "sage", grads=True), grads, "gradient of parameter")
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
    data = attrs.evolve(gnn.Data.of(graph), x=features64(graph))
    for _ in range(epochs):
        loss = gnn.train_epoch(model, data, optimizer, rng)
        assert loss == pytest.approx(reference.epoch(), abs=TOLERANCE)
    assert_same_arrays(ours(model, name), parameters(reference), "trained parameter")


def test_sage_evaluation_scores_match_numpy(
    loaded: dict[str, graphs.Graph], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = loaded["cora"]
    model = float64_model("sage", graph, np.random.default_rng(4), monkeypatch)
    reference = numpy_sage.Trainer.init(graph, 4, np.float64)
    scores = gnn.evaluate(model, gnn.Data.of(graph))
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
    for param, expected in zip(ours(model, name), params, strict=True):
        assert param.dtype == expected.dtype == np.float32
        assert np.array_equal(param, expected)
    data = gnn.Data.of(graph)
    for _ in range(3):
        assert gnn.train_epoch(model, data, optimizer, rng) == pytest.approx(reference.epoch(), abs=1e-5)


@pytest.mark.parametrize("reference", [numpy_gat, numpy_sage])
def test_the_references_train_from_the_command_line(
    reference: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert reference.main(["--epochs", "3", "--seeds", "2"]) == 0  # karate: val and test share nodes
    out = capsys.readouterr().out
    assert out.startswith("karate: 34 nodes") and "seed 1:" in out and "test accuracy" in out

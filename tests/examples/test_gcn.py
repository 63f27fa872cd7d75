"""The GCN example: it learns, its gradients match a hand-derived numpy backward, its CLI behaves."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from repo_paths import ROOT

import lazytensor as lt
from lazytensor import nn

sys.path[:0] = [str(ROOT / "examples"), str(ROOT / "benchmarks")]

import gcn  # noqa: E402
import graphs  # noqa: E402
import numpy_gcn  # noqa: E402


def test_karate_reaches_the_usual_accuracy_over_ten_seeds() -> None:
    graph = graphs.load("karate")
    runs = [gcn.train(graph, 200, seed) for seed in range(10)]
    assert np.mean([run.test_accuracy for run in runs]) >= 0.90


def test_cora_learns() -> None:
    run = gcn.train(graphs.load("cora"), 60, seed=0)  # the shipped data
    assert run.train_accuracy > 0.9 and run.test_accuracy > 0.75


def test_gradients_match_the_hand_derived_numpy_backward() -> None:
    graph = graphs.load("cora")
    rng = np.random.default_rng(7)
    model = gcn.GCN(graph.num_features, graph.num_classes, rng, dtype=np.float64)
    draws = copy.deepcopy(rng)  # the model draws its dropout masks from `rng` as it runs: these
    features = graph.features.astype(np.float64)
    mask_x = nn.dropout_mask(features.shape, 0.5, draws)
    mask_h = nn.dropout_mask((graph.num_nodes, gcn.HIDDEN), 0.5, draws)

    logits = model(lt.from_numpy(features), nn.Edges(graph.src, graph.dst, graph.num_nodes))
    loss = gcn.loss_of(logits, graph)
    loss.backward()

    w1, w2 = model.conv1.lin.weight, model.conv2.lin.weight  # (out, in), as PyTorch's
    reference = numpy_gcn.loss_and_grads(
        numpy_gcn.NormalisedAdjacency.from_graph(graph, np.float64),
        features,
        graph.labels,
        graph.train_idx,
        w1.numpy().T,
        w2.numpy().T,
        mask_x,
        mask_h,
    )
    assert rng.random() == draws.random()  # the model drew exactly those two masks
    assert loss.item() == pytest.approx(reference.loss, abs=1e-12)
    assert w1.grad is not None and w2.grad is not None
    np.testing.assert_allclose(w1.grad.numpy().T, reference.w0, rtol=0, atol=1e-10)
    np.testing.assert_allclose(w2.grad.numpy().T, reference.w1, rtol=0, atol=1e-10)


def test_the_model_reads_as_pytorch_geometric_code() -> None:
    model = gcn.GCN(34, 2, np.random.default_rng(0))
    assert repr(model) == (
        "GCN(\n  (dropout): Dropout(p=0.5)\n  (conv1): GCNConv(34, 16)\n  (conv2): GCNConv(16, 2)\n)"
    )
    assert [name for name, _ in model.named_parameters()] == ["conv1.lin.weight", "conv2.lin.weight"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "gcn.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_writes_exactly_the_json_keys(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    done = run_cli("--epochs", "20", "--seeds", "2", "--quiet", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    result = json.loads(out.read_text())
    assert list(result) == [
        "dataset", "nodes", "edges", "epochs", "seconds_per_epoch", "runs",
        "train_accuracy_mean", "val_accuracy_mean", "test_accuracy_mean", "test_accuracy_std",
    ]  # fmt: skip
    assert result["dataset"] == "karate" and result["nodes"] == 34 and result["epochs"] == 20
    assert [sorted(run) for run in result["runs"]] == [
        ["seed", "test_accuracy", "train_accuracy", "val_accuracy"]
    ] * 2


def test_cli_prints_a_table() -> None:
    done = run_cli("--epochs", "5")
    assert done.returncode == 0, done.stderr
    assert "test accuracy" in done.stdout and "karate" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--dataset", "imagenet"), "imagenet"),
        (("--dataset", "pubmed"), "--data DIR"),
        (("--data", "/somewhere"), "give --dataset"),
        (("--dataset", "karate", "--data", "/somewhere"), "give --dataset"),
        (("--dataset", "cora", "--data", "/nonexistent"), "nonexistent"),
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(args: tuple[str, ...], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_cli_trains_the_shipped_cora_without_data() -> None:
    done = run_cli("--dataset", "cora", "--epochs", "5", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def test_cli_refuses_a_pickle_that_loads_anything_else(planetoid_data: Path, tmp_path: Path) -> None:
    for path in planetoid_data.glob("ind.cora.*"):
        (tmp_path / path.name).write_bytes(path.read_bytes())

    class Exploit:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (print, ("pwned",))

    (tmp_path / "ind.cora.x").write_bytes(pickle.dumps(Exploit(), protocol=2))
    done = run_cli("--dataset", "cora", "--data", str(tmp_path))
    assert done.returncode == 2
    assert "pwned" not in done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1

"""The GCN example's datasets (examples/graphs.py) and the numpy reference GCN (benchmarks/numpy_gcn.py)."""

from __future__ import annotations

import collections
import pickle
import shutil
import sys
from pathlib import Path

import attrs
import numpy as np
import pytest
from repo_paths import ROOT

sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import graphs
import numpy_gcn
import planetoid_files


def assert_clean_undirected(graph: graphs.Graph) -> None:
    """Edges in range, symmetric, without self loops or duplicates, sorted by (dst, src)."""
    n = graph.num_nodes
    src, dst = graph.src, graph.dst
    assert src.min() >= 0 and max(src.max(), dst.max()) < n
    assert not np.any(src == dst)
    codes = dst * n + src
    assert np.all(np.diff(codes) > 0)  # strictly increasing: sorted and no duplicates
    np.testing.assert_array_equal(np.sort(src * n + dst), codes)  # the reverse of every edge is there


def assert_split(graph: graphs.Graph, train: int, val: int, test: int) -> None:
    assert (graph.train_idx.size, graph.val_idx.size, graph.test_idx.size) == (train, val, test)
    assert np.intersect1d(graph.train_idx, graph.val_idx).size == 0
    assert np.intersect1d(graph.train_idx, graph.test_idx).size == 0


# ---------------------------------------------------------------------------------------------- loaders


@pytest.fixture(scope="module")
def karate() -> graphs.Graph:
    return graphs.karate()  # networkx comes with the dev extra


def test_karate_is_unweighted_with_identity_features_and_two_seed_nodes(karate: graphs.Graph) -> None:
    assert (karate.num_nodes, karate.num_edges, karate.num_classes) == (34, 156, 2)
    assert_clean_undirected(karate)
    np.testing.assert_array_equal(karate.features, np.eye(34, dtype=np.float32))
    assert karate.labels[0] != karate.labels[33] and np.bincount(karate.labels).tolist() == [17, 17]
    np.testing.assert_array_equal(karate.train_idx, [0, 33])
    np.testing.assert_array_equal(karate.val_idx, np.arange(1, 33))
    np.testing.assert_array_equal(karate.test_idx, np.arange(1, 33))


@pytest.mark.parametrize("source", ["shipped", "raw"])
def test_cora_matches_the_standard_split(planetoid_data: Path, source: str) -> None:
    cora = graphs.load("cora") if source == "shipped" else graphs.load("cora", planetoid_data)
    assert (cora.num_nodes, cora.num_features, cora.num_classes) == (2708, 1433, 7)
    assert cora.num_edges == 10_556
    assert_clean_undirected(cora)
    assert_split(cora, 140, 500, 1000)
    np.testing.assert_array_equal(cora.train_idx, np.arange(140))
    np.testing.assert_array_equal(cora.val_idx, np.arange(140, 640))
    np.testing.assert_array_equal(cora.test_idx, np.arange(1708, 2708))
    np.testing.assert_allclose(cora.features.sum(axis=1), 1.0, rtol=1e-5)  # row-normalised, none empty
    assert np.bincount(cora.labels).tolist() == [351, 217, 418, 818, 426, 298, 180]
    assert np.bincount(cora.labels[cora.train_idx]).tolist() == [20] * 7


@pytest.mark.parametrize("source", ["shipped", "raw"])
def test_citeseer_keeps_isolated_test_range_nodes_as_zero_rows(planetoid_data: Path, source: str) -> None:
    citeseer = graphs.load("citeseer") if source == "shipped" else graphs.load("citeseer", planetoid_data)
    assert (citeseer.num_nodes, citeseer.num_features, citeseer.num_classes) == (3327, 3703, 6)
    assert citeseer.num_edges == 9104
    assert_clean_undirected(citeseer)
    assert_split(citeseer, 120, 500, 1000)
    empty = np.flatnonzero(citeseer.features.sum(axis=1) == 0)
    assert empty.size == 15
    assert np.intersect1d(empty, citeseer.test_idx).size == 0  # the holes are not test nodes
    assert np.all(citeseer.labels[empty] == 0)  # the reference's argmax of an all-zero row


@pytest.mark.parametrize("name", ["cora", "citeseer"])
def test_raw_files_made_from_the_shipped_data_load_to_the_same_graph(planetoid_data: Path, name: str) -> None:
    """The two loaders agree: --data DIR on files in the original format, and the shipped .npz."""
    raw, shipped = graphs.planetoid(name, planetoid_data), graphs.shipped(name)
    for field in ("features", "labels", "src", "dst", "train_idx", "val_idx", "test_idx"):
        np.testing.assert_array_equal(getattr(raw, field), getattr(shipped, field), err_msg=field)
    assert raw.num_classes == shipped.num_classes


def test_the_shipped_files_hold_plain_arrays_only() -> None:
    for name in graphs.SHIPPED_NAMES:
        path = graphs.SHIPPED / f"{name}.npz"
        assert path.stat().st_size < 400_000
        with np.load(path, allow_pickle=False) as arrays:  # would raise on an object array
            assert sorted(arrays.files) == sorted(graphs.SHIPPED_KEYS)
            assert all(arrays[key].dtype.kind in "iuf" for key in arrays.files)
    assert "MIT" in (graphs.SHIPPED / "README.md").read_text()


def test_a_replaced_npz_is_checked_like_the_raw_files(tmp_path: Path) -> None:
    with np.load(graphs.SHIPPED / "cora.npz", allow_pickle=False) as arrays:
        good = {key: arrays[key] for key in arrays.files}
    bad_edges = dict(good, edges=np.array([[0], [10**6]]))
    np.savez_compressed(tmp_path / "cora.npz", **bad_edges)
    with pytest.raises(graphs.PlanetoidError, match=r"cora\.npz: an edge endpoint lies outside"):
        graphs.shipped("cora", tmp_path)
    (tmp_path / "cora.npz").write_text("not a zip")
    with pytest.raises(ValueError, match=r"cora\.npz"):
        graphs.shipped("cora", tmp_path)
    with pytest.raises(ValueError, match="not shipped"):
        graphs.load("pubmed")


def malicious_pickle(marker: Path) -> bytes:
    """A protocol-2 pickle that would run `os.system("touch MARKER")` under plain pickle.load."""
    command = f"touch {marker}".encode()
    opcodes = [b"\x80\x02", b"cos\nsystem\n", b"X", len(command).to_bytes(4, "little"), command, b"\x85R."]
    return b"".join(opcodes)  # PROTO 2, GLOBAL os.system, BINUNICODE command, TUPLE1, REDUCE, STOP


def copy_planetoid(source: Path, tmp_path: Path, name: str = "cora", skip: str | None = None) -> Path:
    for path in source.glob(f"ind.{name}.*"):
        if path.name != skip:
            shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_restricted_unpickler_refuses_os_system(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pkl"
    evil.write_bytes(malicious_pickle(marker))
    with pytest.raises(pickle.UnpicklingError, match=r"os\.system"):
        graphs.restricted_load(evil)
    assert not marker.exists()


def test_planetoid_refuses_a_malicious_file_in_the_data_directory(
    planetoid_data: Path, tmp_path: Path
) -> None:
    folder = copy_planetoid(planetoid_data, tmp_path)
    marker = tmp_path / "pwned"
    (folder / "ind.cora.graph").write_bytes(malicious_pickle(marker))
    with pytest.raises(pickle.UnpicklingError, match=r"ind\.cora\.graph.*os\.system"):
        graphs.planetoid("cora", folder)
    assert not marker.exists()


def test_restricted_unpickler_reads_adjacency_lists_and_refuses_other_builtins(tmp_path: Path) -> None:
    path = tmp_path / "ok.pkl"
    path.write_bytes(pickle.dumps(collections.defaultdict(list, {0: [1, 2], 1: [0]}), protocol=2))
    assert graphs.restricted_load(path) == {0: [1, 2], 1: [0]}
    refused = tmp_path / "refused.pkl"
    refused.write_bytes(pickle.dumps({1, 2}, protocol=2))  # a set: harmless, but not in the Planetoid files
    with pytest.raises(pickle.UnpicklingError, match="set"):
        graphs.restricted_load(refused)


def test_missing_planetoid_files_are_named(planetoid_data: Path, tmp_path: Path) -> None:
    folder = copy_planetoid(planetoid_data, tmp_path, skip="ind.cora.graph")
    with pytest.raises(FileNotFoundError, match=r"ind\.cora\.graph"):
        graphs.planetoid("cora", folder)


def test_missing_directory_and_bad_names(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"ind\.citeseer\.x"):
        graphs.load("citeseer", tmp_path / "nowhere")
    with pytest.raises(ValueError, match="unknown dataset"):
        graphs.load("imagenet")
    with pytest.raises(ValueError, match="only read for"):
        graphs.load("karate", tmp_path)


def test_sbm_is_homophilous_sized_by_degree_and_reproducible() -> None:
    graph = graphs.sbm(4000, seed=3)
    assert (graph.num_nodes, graph.num_features, graph.num_classes) == (4000, 16, 4)
    assert_clean_undirected(graph)
    assert 11 < graph.num_edges / graph.num_nodes < 13  # ~10 intra + ~2 inter neighbours per node
    same_block = np.mean(graph.labels[graph.src] == graph.labels[graph.dst])
    assert 0.8 < same_block < 0.87
    assert_split(graph, 80, 500, 1000)
    assert np.intersect1d(graph.val_idx, graph.test_idx).size == 0
    assert np.bincount(graph.labels[graph.train_idx]).tolist() == [20] * 4
    again = graphs.sbm(4000, seed=3)
    np.testing.assert_array_equal(again.src, graph.src)
    np.testing.assert_array_equal(again.features, graph.features)
    assert not np.array_equal(graphs.sbm(4000, seed=4).src[:100], graph.src[:100])


# ------------------------------------------------------------------------------------------ numpy GCN


def test_segment_sums_agree_with_add_at_including_empty_segments() -> None:
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 50, 400) * 2  # odd segments stay empty
    values = rng.normal(size=(400, 3))
    expected = np.zeros((101, 3))
    np.add.at(expected, ids, values)
    np.testing.assert_allclose(numpy_gcn.segment_sum_reduceat(values, ids, 101), expected, atol=1e-12)
    np.testing.assert_allclose(numpy_gcn.segment_sum_bincount(values, ids, 101), expected, atol=1e-12)


def small_problem() -> tuple[numpy_gcn.NormalisedAdjacency, graphs.Graph, np.random.Generator]:
    graph = graphs.sbm(60, seed=1)
    graph = attrs.evolve(graph, features=graph.features[:, :5].copy())
    return numpy_gcn.NormalisedAdjacency.from_graph(graph, np.float64), graph, np.random.default_rng(2)


def test_normalised_adjacency_matches_the_dense_matrix() -> None:
    adjacency, graph, rng = small_problem()
    dense = np.eye(graph.num_nodes)
    dense[graph.dst, graph.src] = 1.0
    scale = 1 / np.sqrt(dense.sum(axis=1))
    h = rng.normal(size=(graph.num_nodes, 4))
    np.testing.assert_allclose(adjacency(h), scale[:, None] * dense * scale[None, :] @ h, atol=1e-12)


def test_hand_written_gradients_match_central_differences() -> None:
    adjacency, graph, rng = small_problem()
    features = graph.features.astype(np.float64)
    w0 = numpy_gcn.glorot_uniform(rng, 5, 6, np.float64)
    w1 = numpy_gcn.glorot_uniform(rng, 6, 4, np.float64)
    mask_x = numpy_gcn.dropout_mask(rng, features.shape, 0.5, np.float64)
    mask_h = numpy_gcn.dropout_mask(rng, (graph.num_nodes, 6), 0.5, np.float64)
    assert set(np.unique(mask_x)) <= {0.0, 2.0}

    def run(a: np.ndarray, b: np.ndarray) -> numpy_gcn.Gradients:
        return numpy_gcn.loss_and_grads(
            adjacency, features, graph.labels, graph.train_idx, a, b, mask_x, mask_h
        )

    def loss(a: np.ndarray, b: np.ndarray) -> float:
        return run(a, b).loss

    grads = run(w0, w1)
    eps = 1e-6
    for weights, grad, which in ((w0, grads.w0, 0), (w1, grads.w1, 1)):
        numeric = np.zeros_like(weights)
        for index in np.ndindex(weights.shape):
            step = np.zeros_like(weights)
            step[index] = eps
            pairs = ((w0 + step, w1), (w0 - step, w1)) if which == 0 else ((w0, w1 + step), (w0, w1 - step))
            numeric[index] = (loss(*pairs[0]) - loss(*pairs[1])) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, atol=1e-8)


def test_numpy_gcn_learns_karate(karate: graphs.Graph) -> None:
    result = numpy_gcn.train(karate, epochs=100, seed=0)
    assert result["train_accuracy"] == 1.0
    assert result["test_accuracy"] >= 0.9


def test_numpy_gcn_on_sbm_beats_features_alone() -> None:
    graph = graphs.sbm(3000, seed=0)
    no_edges = attrs.evolve(graph, src=graph.src[:0], dst=graph.dst[:0])  # an MLP on the features
    with_graph = numpy_gcn.train(graph, epochs=100, seed=0)["test_accuracy"]
    features_only = numpy_gcn.train(no_edges, epochs=100, seed=0)["test_accuracy"]
    assert with_graph >= 0.84
    assert features_only <= with_graph - 0.15


# ------------------------------------------------------------------------------- hostile Planetoid files


def gcn_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    import gcn

    status = gcn.main(["--quiet", "--epochs", "1", *args])
    return status, capsys.readouterr().err


def refused(capsys: pytest.CaptureFixture[str], folder: Path, *fragments: str) -> None:
    """The GCN example exits 2 with one line naming what is wrong, whatever the loader was given."""
    status, err = gcn_main(capsys, "--dataset", "cora", "--data", str(folder))
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("gcn: ") and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def test_tiny_planetoid_files_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = planetoid_files.tiny_parts()
    folder = planetoid_files.write_planetoid(tmp_path, "cora", planetoid_files.planetoid_pieces(parts))
    graph = graphs.planetoid("cora", folder)
    expected = parts.graph()
    np.testing.assert_array_equal(graph.features, expected.features)
    np.testing.assert_array_equal(graph.src, expected.src)
    np.testing.assert_array_equal(graph.test_idx, np.arange(550, 600))
    assert gcn_main(capsys, "--dataset", "cora", "--data", str(folder))[0] == 0


def hostile_pieces() -> dict[str, tuple[str, object, str]]:
    """name -> (file suffix, its hostile content, a fragment of the expected message)."""
    csr = planetoid_files.CSR.raw
    shared = list(range(600))
    rest = [str(i) for i in range(551, 600)]
    return {
        "ndarray-reduce": ("allx", planetoid_files.call_pickle("numpy", "ndarray", ((10**12,),)), "refusing"),
        "ndarray-newobj": (
            "allx",
            planetoid_files.call_pickle("numpy", "ndarray", ((10**12,),), pickle.NEWOBJ),
            "refusing",
        ),
        "huge-csr": (
            "allx",
            csr(
                {
                    "_shape": (10**6, 10**6),
                    "data": np.ones(1),
                    "indices": np.zeros(1, np.int32),
                    "indptr": np.array([0, 1], np.int32),
                    "format": "csr",
                }
            ),
            "ind.cora.allx: a 1,000,000 x 1,000,000 matrix",
        ),
        "bad-indptr": (
            "tx",
            csr(
                {
                    "_shape": (50, 5),
                    "data": np.ones(1),
                    "indices": np.array([7], np.int32),
                    "indptr": np.zeros(51, np.int32),
                    "format": "csr",
                }
            ),
            "inconsistent sparse matrix",
        ),
        "csr-shape-bool": ("allx", csr({"_shape": (True, 5), "format": "csr"}), "not two sizes"),
        "huge-neighbour": ("graph", {0: [2**70]}, "node number"),
        "negative-neighbour": ("graph", {0: [-1]}, "outside [0, 600)"),
        "string-neighbour": ("graph", {0: ["1"]}, "node number"),
        "shared-lists": ("graph", dict.fromkeys(range(600), shared), "adjacency entries"),
        "test-1e5": ("test.index", "\n".join(["100000", *rest]), "outside"),
        "test-1e20": (
            "test.index",
            "\n".join(["10" * 10, *rest]),
            "node number",
        ),
        "test-negative": ("test.index", "\n".join(["-550", *rest]), "'-550'"),
        "test-empty": ("test.index", "", "no test nodes"),
        "test-twice": ("test.index", "\n".join(["551", *rest]), "twice"),
        "test-in-train": ("test.index", "\n".join(["0", *rest]), "training"),
        "test-binary": ("test.index", b"\xff\xfe", "non-ASCII"),
        "y-rows": ("y", np.zeros((3, 3), np.int32), "rows"),
        "ally-columns": ("ally", np.zeros((550, 4), np.int32), "columns"),
        "object-array": ("ty", np.array([None] * 3, dtype=object), "not a plain number type"),
        "truncated": ("x", b"\x80\x02cnumpy\nndarray\n", "not a readable Planetoid pickle"),
        "not-a-pickle": ("x", b"hello", "ind.cora.x: "),
        "a-set": ("graph", {1, 2}, "set"),
    }


@pytest.mark.parametrize("case", sorted(hostile_pieces()))
def test_hostile_planetoid_files_are_one_line_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    suffix, content, fragment = hostile_pieces()[case]
    pieces = planetoid_files.planetoid_pieces(planetoid_files.tiny_parts())
    pieces[suffix] = content
    folder = planetoid_files.write_planetoid(tmp_path, "cora", pieces)
    refused(capsys, folder, fragment)


def test_a_memo_shared_string_cannot_expand_into_many_arrays(tmp_path: Path) -> None:
    """One 1 MB string referenced by 1,000 arrays would be 1 GB: the budget refuses it."""
    data = bytes(2**20)  # 1 MB, pickled once and fetched from the memo by every array

    class SharingArray:
        def __reduce__(self) -> tuple[object, ...]:
            return (
                graphs.NDARRAY_RECONSTRUCT,
                (np.ndarray, (0,), b"b"),
                (1, (2**17,), np.dtype("f8"), False, data),
            )

    path = tmp_path / "ind.cora.graph"
    path.write_bytes(planetoid_files.py2_pickle([SharingArray() for _ in range(1000)]))
    assert path.stat().st_size < 2**21
    with pytest.raises(pickle.UnpicklingError, match="far larger than the file"):
        graphs.restricted_load(path)

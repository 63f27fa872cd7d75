"""Graph datasets for the GCN example as plain numpy arrays: karate club, Planetoid (Cora, Citeseer), SBM.

Every loader returns one `Graph`. Its edges are the directed edges of the symmetrised, de-duplicated
adjacency without self loops (the model adds the identity itself), sorted by destination then source.
"""

from __future__ import annotations

import collections
import os
import pickle
from pathlib import Path
from typing import Any, ClassVar

import attrs
import numpy as np
import numpy.typing as npt

PathLike = str | os.PathLike[str]
FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

PLANETOID_NAMES = ("cora", "citeseer", "pubmed")
PLANETOID_SUFFIXES = ("x", "y", "tx", "ty", "allx", "ally", "graph", "test.index")
PLANETOID_DOWNLOAD = "https://github.com/kimiyoung/planetoid/tree/master/data"
DATASETS = ("karate", *PLANETOID_NAMES, "sbm")


@attrs.frozen(eq=False)
class Graph:
    """A node-classification dataset: features, labels, a directed edge list and the train/val/test split."""

    name: str
    features: FloatArray  # (N, F) float32
    labels: IntArray  # (N,) int64 in [0, num_classes)
    src: IntArray  # (E,) int64, edge src -> dst; both directions present, no self loops, no duplicates
    dst: IntArray  # (E,) int64
    train_idx: IntArray
    val_idx: IntArray
    test_idx: IntArray
    num_classes: int

    def __attrs_post_init__(self) -> None:
        n = self.features.shape[0]
        if self.features.ndim != 2 or self.features.dtype != np.float32:
            raise ValueError(f"{self.name}: features must be a 2-d float32 array")
        if self.labels.shape != (n,) or self.src.shape != self.dst.shape or self.src.ndim != 1:
            raise ValueError(f"{self.name}: labels must be (N,) and src/dst equal-length vectors")
        for field in (self.labels, self.src, self.dst, self.train_idx, self.val_idx, self.test_idx):
            if field.dtype != np.int64:
                raise ValueError(f"{self.name}: index arrays must be int64")

    @property
    def num_nodes(self) -> int:
        return int(self.features.shape[0])

    @property
    def num_edges(self) -> int:
        """Directed edges (each undirected edge counted twice), self loops excluded."""
        return int(self.src.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.features.shape[1])


def undirected_edges(u: npt.ArrayLike, v: npt.ArrayLike, num_nodes: int) -> tuple[IntArray, IntArray]:
    """Both directions of every pair (u, v), self loops dropped, duplicates merged, sorted by (dst, src)."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= num_nodes):
        raise ValueError(f"edge endpoints must lie in [0, {num_nodes})")
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    keep = src != dst
    codes = np.unique(dst[keep] * num_nodes + src[keep])
    return codes % num_nodes, codes // num_nodes


def row_normalise(features: npt.NDArray[np.floating[Any]]) -> FloatArray:
    """Divide each row by its sum as the reference GCN preprocessing does; all-zero rows stay zero."""
    values = np.asarray(features, dtype=np.float64)
    sums = values.sum(axis=1)
    inverse = np.zeros_like(sums)
    np.divide(1.0, sums, out=inverse, where=sums != 0)
    normalised: FloatArray = (values * inverse[:, None]).astype(np.float32)
    return normalised


# ---------------------------------------------------------------------------------------------- karate


def karate() -> Graph:
    """Zachary's karate club: unweighted edges, identity features, the two clubs, nodes 0 and 33 labelled."""
    try:
        import networkx as nx  # type: ignore[import-untyped]
    except ImportError:
        raise ImportError(
            "the karate dataset needs networkx: pip install -e '.[examples]' (or pip install networkx)"
        ) from None
    g = nx.karate_club_graph()
    n = g.number_of_nodes()
    pairs = np.array(list(g.edges()), dtype=np.int64)  # the 'weight' attribute (1-7) is ignored
    src, dst = undirected_edges(pairs[:, 0], pairs[:, 1], n)
    clubs = sorted({g.nodes[i]["club"] for i in range(n)})  # ['Mr. Hi', 'Officer']
    labels = np.array([clubs.index(g.nodes[i]["club"]) for i in range(n)], dtype=np.int64)
    train_idx = np.array([0, n - 1], dtype=np.int64)
    rest = np.arange(1, n - 1, dtype=np.int64)
    return Graph(
        name="karate",
        features=np.eye(n, dtype=np.float32),
        labels=labels,
        src=src,
        dst=dst,
        train_idx=train_idx,
        val_idx=rest,
        test_idx=rest.copy(),
        num_classes=len(clubs),
    )


# ------------------------------------------------------------------------------------------- planetoid


class PickledSparseMatrix:
    """Stands in for scipy.sparse.csr_matrix while unpickling: keeps the CSR arrays, converts to dense."""

    def __init__(self) -> None:
        self.shape: tuple[int, int] = (0, 0)
        self.data: npt.NDArray[Any] = np.zeros(0)
        self.indices: npt.NDArray[Any] = np.zeros(0, dtype=np.int64)
        self.indptr: npt.NDArray[Any] = np.zeros(1, dtype=np.int64)

    def __setstate__(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict):
            raise pickle.UnpicklingError("csr_matrix state is not a dict")
        if state.get("format", "csr") != "csr":
            raise pickle.UnpicklingError(f"expected a csr matrix, got format {state.get('format')!r}")
        shape: Any = state.get("_shape", state.get("shape"))
        try:
            rows, cols = (int(s) for s in shape)  # TypeError if absent
            self.data = np.asarray(state["data"])
            self.indices = np.asarray(state["indices"], dtype=np.int64)
            self.indptr = np.asarray(state["indptr"], dtype=np.int64)
        except (KeyError, TypeError, ValueError) as error:
            raise pickle.UnpicklingError(f"malformed csr_matrix state: {error}") from None
        self.shape = (rows, cols)

    def to_dense(self, dtype: npt.DTypeLike = np.float32) -> npt.NDArray[Any]:
        """The dense matrix; duplicate entries add up as in scipy."""
        rows, cols = self.shape
        indptr, indices = self.indptr, self.indices
        if (
            indptr.shape != (rows + 1,)
            or indptr[0] != 0
            or np.any(np.diff(indptr) < 0)
            or indptr[-1] != indices.size
            or indices.size != self.data.size
            or (indices.size and (indices.min() < 0 or indices.max() >= cols))
        ):
            raise ValueError(f"inconsistent csr_matrix of shape {self.shape}")
        row_of_entry = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
        flat = np.bincount(row_of_entry * cols + indices, weights=self.data, minlength=rows * cols)
        return flat.reshape(rows, cols).astype(dtype)


def _ndarray_reconstruct() -> Any:
    """numpy's `_reconstruct` (numpy.core.multiarray in old pickles, numpy._core in numpy 2), found safely."""
    return np.ndarray((0,)).__reduce__()[0]


class PlanetoidUnpickler(pickle.Unpickler):
    """Resolves only the names the Planetoid pickles contain; anything else is an UnpicklingError."""

    ALLOWED: ClassVar[dict[tuple[str, str], Any]] = {
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("numpy.core.multiarray", "_reconstruct"): _ndarray_reconstruct(),
        ("numpy._core.multiarray", "_reconstruct"): _ndarray_reconstruct(),
        ("scipy.sparse.csr", "csr_matrix"): PickledSparseMatrix,
        ("scipy.sparse._csr", "csr_matrix"): PickledSparseMatrix,
        ("scipy.sparse", "csr_matrix"): PickledSparseMatrix,
        ("collections", "defaultdict"): collections.defaultdict,
        ("__builtin__", "list"): list,
        ("builtins", "list"): list,
    }

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self.ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refusing to unpickle {module}.{name}: not one of the numpy / scipy-sparse names "
                "the Planetoid files contain"
            ) from None


def restricted_load(path: PathLike) -> Any:
    """Unpickle a Python-2 Planetoid file with `PlanetoidUnpickler` (never plain pickle.load)."""
    with open(path, "rb") as file:
        try:
            return PlanetoidUnpickler(file, encoding="latin1").load()
        except pickle.UnpicklingError as error:
            raise pickle.UnpicklingError(f"{os.fspath(path)}: {error}") from None
        except (EOFError, ValueError, TypeError, AttributeError, IndexError) as error:
            message = f"{os.fspath(path)}: not a readable Planetoid pickle ({error})"
            raise pickle.UnpicklingError(message) from None


def _dense(obj: Any, path: Path) -> npt.NDArray[np.float64]:
    if isinstance(obj, PickledSparseMatrix):
        return obj.to_dense(np.float64)
    if isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.dtype.kind in "biuf":
        return obj.astype(np.float64)
    raise ValueError(f"{path}: expected a matrix, found {type(obj).__name__}")


def planetoid(name: str, data_dir: PathLike) -> Graph:
    """A Planetoid citation graph with the standard split, loaded as Kipf & Welling's reference loader does.

    Test nodes come from `test.index`; `tx`/`ty` are placed by the sorted test indices. Citeseer's
    test range has holes (isolated nodes without features or labels): they get zero feature rows and
    label 0, as in the reference. Features are row-normalised; train = the first 20 x classes nodes,
    val = the next 500, test = the `test.index` nodes (sorted).
    """
    if name not in PLANETOID_NAMES:
        raise ValueError(f"unknown Planetoid dataset {name!r}: choose one of {', '.join(PLANETOID_NAMES)}")
    folder = Path(data_dir)
    paths = {suffix: folder / f"ind.{name}.{suffix}" for suffix in PLANETOID_SUFFIXES}
    missing = [path.name for path in paths.values() if not path.is_file()]
    if missing:
        raise FileNotFoundError(
            f"{folder}: missing Planetoid file(s) {', '.join(missing)} "
            f"(download ind.{name}.* from {PLANETOID_DOWNLOAD})"
        )
    loaded = {suffix: restricted_load(path) for suffix, path in paths.items() if suffix != "test.index"}
    x, tx, allx = (_dense(loaded[key], paths[key]) for key in ("x", "tx", "allx"))
    y, ty, ally = (_dense(loaded[key], paths[key]) for key in ("y", "ty", "ally"))
    adjacency_lists = loaded["graph"]
    if not isinstance(adjacency_lists, dict):
        raise ValueError(f"{paths['graph']}: expected a dict of adjacency lists")
    try:
        test_index = np.array(paths["test.index"].read_text().split(), dtype=np.int64)
    except ValueError:
        raise ValueError(f"{paths['test.index']}: expected one integer per line") from None

    test_sorted = np.sort(test_index)
    if name == "citeseer":  # isolated test-range nodes: zero rows, as the reference's tx/ty_extended
        span = test_sorted[-1] - test_sorted[0] + 1
        tx_full = np.zeros((span, x.shape[1]))
        tx_full[test_sorted - test_sorted[0]] = tx
        ty_full = np.zeros((span, y.shape[1]))
        ty_full[test_sorted - test_sorted[0]] = ty
        tx, ty = tx_full, ty_full
    features = np.vstack([allx, tx])
    features[test_index] = features[test_sorted]
    one_hot = np.vstack([ally, ty])
    one_hot[test_index] = one_hot[test_sorted]
    num_nodes = features.shape[0]
    if one_hot.shape[0] != num_nodes:
        raise ValueError(f"{folder}: {one_hot.shape[0]} label rows for {num_nodes} feature rows")

    u = [node for node, neighbours in adjacency_lists.items() for _ in neighbours]
    v = [neighbour for neighbours in adjacency_lists.values() for neighbour in neighbours]
    src, dst = undirected_edges(u, v, num_nodes)
    num_train = y.shape[0]
    return Graph(
        name=name,
        features=row_normalise(features),
        labels=one_hot.argmax(axis=1).astype(np.int64),
        src=src,
        dst=dst,
        train_idx=np.arange(num_train, dtype=np.int64),
        val_idx=np.arange(num_train, num_train + 500, dtype=np.int64),
        test_idx=test_sorted,
        num_classes=int(one_hot.shape[1]),
    )


# ------------------------------------------------------------------------------------------------- SBM

SBM_BLOCKS = 4
SBM_INTRA_DEGREE = 10.0  # expected neighbours inside a node's own block
SBM_INTER_DEGREE = 2.0  # expected neighbours in all other blocks together
SBM_FEATURES = 16
SBM_NOISE = 2.0  # std of the Gaussian noise on the one-hot block indicator: features alone ~0.28


def sbm(nodes: int, seed: int = 0) -> Graph:
    """A 4-block stochastic block model with noisy one-hot features, sampled in time linear in the edges.

    Expected degree ~10 inside the own block and ~2 across, whatever the size. Features: the block's
    one-hot in the first 4 of 16 dims plus N(0, 2²) noise everywhere, so features alone are a weak
    signal and neighbourhood averaging is what makes the task easy. Split: 20 labelled nodes per block
    for training, then 500 validation and 1,000 test nodes, all random (below 3,000 nodes the split is
    proportional: nodes // 200 per block for training, nodes // 6 validation and nodes // 3 test).
    """
    if nodes < 40:
        raise ValueError(f"sbm needs at least 40 nodes, got {nodes}")
    rng = np.random.default_rng(seed)
    sizes = np.full(SBM_BLOCKS, nodes // SBM_BLOCKS)
    sizes[: nodes % SBM_BLOCKS] += 1
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    labels = np.repeat(np.arange(SBM_BLOCKS, dtype=np.int64), sizes)

    p_intra = SBM_INTRA_DEGREE / (sizes - 1)  # per block
    u_parts: list[IntArray] = []
    v_parts: list[IntArray] = []
    for a in range(SBM_BLOCKS):
        for b in range(a, SBM_BLOCKS):
            if a == b:  # unordered pairs inside block a, self pairs dropped later
                pairs = sizes[a] * (sizes[a] - 1) // 2
                p = p_intra[a]
            else:
                pairs = sizes[a] * sizes[b]
                p = SBM_INTER_DEGREE / (nodes - sizes[a])  # summed over the 3 other blocks
            count = rng.binomial(pairs, min(p, 1.0))
            u_parts.append(starts[a] + rng.integers(0, sizes[a], count))
            v_parts.append(starts[b] + rng.integers(0, sizes[b], count))
    src, dst = undirected_edges(np.concatenate(u_parts), np.concatenate(v_parts), nodes)

    features = rng.normal(0.0, SBM_NOISE, (nodes, SBM_FEATURES))
    features[np.arange(nodes), labels] += 1.0
    if nodes >= 3000:
        per_block, num_val, num_test = 20, 500, 1000
    else:
        per_block, num_val, num_test = max(1, nodes // 200), nodes // 6, nodes // 3
    order = rng.permutation(nodes)
    train_parts = [order[labels[order] == block][:per_block] for block in range(SBM_BLOCKS)]
    train_idx = np.sort(np.concatenate(train_parts))
    rest = order[~np.isin(order, train_idx)]
    return Graph(
        name="sbm",
        features=features.astype(np.float32),
        labels=labels,
        src=src,
        dst=dst,
        train_idx=train_idx.astype(np.int64),
        val_idx=np.sort(rest[:num_val]).astype(np.int64),
        test_idx=np.sort(rest[num_val : num_val + num_test]).astype(np.int64),
        num_classes=SBM_BLOCKS,
    )


# ------------------------------------------------------------------------------------------- dispatch


def load(name: str, data_dir: PathLike | None = None, nodes: int | None = None, seed: int = 0) -> Graph:
    """The dataset called `name`: karate, cora / citeseer / pubmed (from `data_dir`) or sbm (`nodes`)."""
    if name == "karate":
        return karate()
    if name in PLANETOID_NAMES:
        if data_dir is None:
            raise ValueError(f"dataset {name!r} needs a data directory holding ind.{name}.*")
        return planetoid(name, data_dir)
    if name == "sbm":
        return sbm(10_000 if nodes is None else nodes, seed=seed)
    raise ValueError(f"unknown dataset {name!r}: choose one of {', '.join(DATASETS)}")

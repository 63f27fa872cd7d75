"""Graph datasets for the GCN example as plain numpy arrays: karate club, Planetoid (Cora, Citeseer), SBM.

Every loader returns one `Graph`. Its edges are the directed edges of the symmetrised, de-duplicated
adjacency without self loops (the model adds the identity itself), sorted by destination then source.
"""

from __future__ import annotations

import collections
import io
import math
import os
import pickle
import stat
import zipfile
import zlib
from collections.abc import Mapping
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

SHIPPED = Path(__file__).resolve().parent / "data" / "planetoid"  # cora.npz, citeseer.npz (see README there)
SHIPPED_NAMES = ("cora", "citeseer")
NUM_VAL = 500  # the standard split: the 500 nodes after the training nodes
MAX_FILE_BYTES = 256 * 2**20  # Pubmed's largest Planetoid file is a few MB
MAX_DENSE_CELLS = 50_000_000  # nodes x features of a dense matrix (Pubmed: 9.9 M, Citeseer: 12.3 M)
MAX_NDIM = 32


class PlanetoidError(ValueError):
    """A Planetoid file that is malformed, inconsistent or hostile: one line naming the file."""


def _is_count(value: Any) -> bool:
    """A plain non-negative int (not a bool, not a numpy scalar that might wrap around)."""
    return type(value) is int and value >= 0


def csr_to_dense(
    shape: tuple[int, int],
    indptr: npt.NDArray[Any],
    indices: npt.NDArray[Any],
    values: npt.NDArray[Any],
    where: str,
) -> npt.NDArray[np.float64]:
    """A dense float64 matrix from CSR arrays, every index and size checked first; duplicates add up."""
    rows, cols = shape
    if rows * cols > MAX_DENSE_CELLS:
        raise PlanetoidError(f"{where}: a {rows:,} x {cols:,} matrix is beyond {MAX_DENSE_CELLS:,} cells")
    if (
        indptr.ndim != 1
        or indices.ndim != 1
        or values.ndim != 1
        or indptr.shape[0] != rows + 1
        or indices.shape != values.shape
        or indptr.dtype.kind not in "iu"
        or indices.dtype.kind not in "iu"
        or values.dtype.kind not in "biuf"
    ):
        raise PlanetoidError(f"{where}: inconsistent sparse matrix of shape {shape}")
    indptr = indptr.astype(np.int64)
    indices = indices.astype(np.int64)
    if (
        indptr[0] != 0
        or np.any(np.diff(indptr) < 0)
        or indptr[-1] != indices.size
        or (indices.size and (indices.min() < 0 or indices.max() >= cols))
    ):
        raise PlanetoidError(f"{where}: inconsistent sparse matrix of shape {shape}")
    row_of_entry = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
    flat = np.bincount(
        row_of_entry * cols + indices, weights=values.astype(np.float64), minlength=rows * cols
    )
    return flat.reshape(rows, cols)


class PickledSparseMatrix:
    """Stands in for scipy.sparse.csr_matrix while unpickling: keeps the CSR arrays, converts to dense."""

    def __init__(self) -> None:
        self.shape: tuple[int, int] = (0, 0)
        self.data: npt.NDArray[Any] = np.zeros(0)
        self.indices: npt.NDArray[Any] = np.zeros(0, dtype=np.int64)
        self.indptr: npt.NDArray[Any] = np.zeros(1, dtype=np.int64)

    def __setstate__(self, state: Any) -> None:
        """scipy's state dict: shape and the three CSR arrays (already-built ndarrays, nothing else)."""
        if not isinstance(state, dict):
            raise pickle.UnpicklingError("csr_matrix state is not a dict")
        if state.get("format", "csr") != "csr":
            raise pickle.UnpicklingError(f"expected a csr matrix, got format {state.get('format')!r}")
        shape = state.get("_shape", state.get("shape"))
        if not (isinstance(shape, tuple) and len(shape) == 2 and all(_is_count(s) for s in shape)):
            raise pickle.UnpicklingError(f"csr_matrix shape {shape!r} is not two sizes")
        arrays = [state.get(key) for key in ("data", "indices", "indptr")]
        if not all(isinstance(array, np.ndarray) for array in arrays):
            raise pickle.UnpicklingError("csr_matrix data, indices and indptr must be arrays")
        self.shape = (shape[0], shape[1])
        self.data, self.indices, self.indptr = arrays

    def to_dense(self, where: str = "csr_matrix") -> npt.NDArray[np.float64]:
        """The dense matrix; duplicate entries add up as in scipy."""
        return csr_to_dense(self.shape, self.indptr, self.indices, self.data, where)


def _ndarray_reconstruct() -> Any:
    """numpy's `_reconstruct` (numpy.core.multiarray in old pickles, numpy._core in numpy 2), found safely."""
    return np.ndarray((0,)).__reduce__()[0]


NDARRAY_RECONSTRUCT = _ndarray_reconstruct()


def _dtype_arguments(args: tuple[Any, ...]) -> bool:
    """numpy.dtype's pickled arguments: a short type code and two flags."""
    code_ok = 1 <= len(args) <= 3 and isinstance(args[0], str) and len(args[0]) <= 8
    return code_ok and all(isinstance(flag, int) for flag in args[1:])


def _refuse_opcode(self: PlanetoidUnpickler) -> None:
    raise pickle.UnpicklingError("refusing a pickle opcode the Planetoid files do not use")


class PlanetoidUnpickler(pickle._Unpickler):
    """Rebuilds only what the Planetoid pickles contain, with every call and allocation checked.

    The pure-Python unpickler with its object-making opcodes replaced: `find_class` resolves a few
    names; REDUCE calls only numpy's array and dtype reconstructors (with the arguments the files
    use) and `defaultdict(list)`; NEWOBJ makes only the sparse-matrix stand-in; BUILD fills in only
    arrays (a numeric dtype, a shape whose size matches the bytes given), dtypes and sparse
    matrices. Every array's bytes count against a budget proportional to the file's size, so a
    small file whose memo shares one string among many arrays cannot expand into gigabytes.
    """

    ALLOWED: ClassVar[dict[tuple[str, str], Any]] = {
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("numpy.core.multiarray", "_reconstruct"): NDARRAY_RECONSTRUCT,
        ("numpy._core.multiarray", "_reconstruct"): NDARRAY_RECONSTRUCT,
        ("scipy.sparse.csr", "csr_matrix"): PickledSparseMatrix,
        ("scipy.sparse._csr", "csr_matrix"): PickledSparseMatrix,
        ("scipy.sparse", "csr_matrix"): PickledSparseMatrix,
        ("collections", "defaultdict"): collections.defaultdict,
        ("__builtin__", "list"): list,
        ("builtins", "list"): list,
    }
    dispatch: ClassVar[dict[int, Any]] = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]

    def __init__(self, file: io.BytesIO, budget: int) -> None:
        super().__init__(file, encoding="latin1")
        self.budget = budget

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self.ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refusing to unpickle {module}.{name}: not one of the numpy / scipy-sparse names "
                "the Planetoid files contain"
            ) from None

    def _spend(self, nbytes: int) -> None:
        self.budget -= nbytes
        if self.budget < 0:
            raise pickle.UnpicklingError("the arrays it holds are far larger than the file itself")

    def load_reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        self.stack[-1] = self._call(func, args)

    def _call(self, func: Any, args: Any) -> Any:
        if not isinstance(args, tuple):
            raise pickle.UnpicklingError("REDUCE arguments are not a tuple")
        if func is NDARRAY_RECONSTRUCT and len(args) == 3 and args[0] is np.ndarray and args[1] == (0,):
            return func(*args)  # an empty array; BUILD gives it its shape and data
        if func is np.dtype and _dtype_arguments(args):
            return np.dtype(args[0])
        if func is collections.defaultdict and args in ((), (list,)):
            return collections.defaultdict(*args)
        name = getattr(func, "__name__", type(func).__name__)
        raise pickle.UnpicklingError(f"refusing to call {name} with these arguments")

    def load_newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        if cls is not PickledSparseMatrix or args != ():
            raise pickle.UnpicklingError(f"refusing to create {getattr(cls, '__name__', cls)!s}")
        self.append(PickledSparseMatrix())

    def load_build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, np.ndarray):
            self._build_array(inst, state)
        elif isinstance(inst, np.dtype):
            self._build_dtype(inst, state)
        elif isinstance(inst, PickledSparseMatrix):
            inst.__setstate__(state)
        else:
            raise pickle.UnpicklingError(f"refusing to set the state of a {type(inst).__name__}")

    def _build_array(self, array: npt.NDArray[Any], state: Any) -> None:
        if not (isinstance(state, tuple) and len(state) == 5):
            raise pickle.UnpicklingError("ndarray state is not (version, shape, dtype, fortran, data)")
        _, shape, dtype, _, data = state
        if not (isinstance(shape, tuple) and len(shape) <= MAX_NDIM and all(_is_count(s) for s in shape)):
            raise pickle.UnpicklingError(f"ndarray shape {shape!r} is not a tuple of sizes")
        if not isinstance(dtype, np.dtype) or dtype.kind not in "biuf" or dtype.fields or dtype.subdtype:
            raise pickle.UnpicklingError(f"ndarray dtype {dtype!r} is not a plain number type")
        if not isinstance(data, str | bytes) or len(data) != math.prod(shape) * dtype.itemsize:
            raise pickle.UnpicklingError(f"ndarray data does not match shape {shape} of {dtype}")
        self._spend(len(data))
        array.__setstate__(state)

    def _build_dtype(self, dtype: np.dtype[Any], state: Any) -> None:
        if not (isinstance(state, tuple) and 8 <= len(state) <= 9 and state[2:5] == (None, None, None)):
            raise pickle.UnpicklingError("dtype state is not that of a plain number type")
        dtype.__setstate__(state)  # type: ignore[attr-defined]

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.BUILD[0]] = load_build
    for _opcode in (pickle.NEWOBJ_EX, pickle.INST, pickle.OBJ, pickle.EXT1, pickle.EXT2, pickle.EXT4):
        dispatch[_opcode[0]] = _refuse_opcode
    for _opcode in (pickle.PERSID, pickle.BINPERSID, pickle.STACK_GLOBAL):
        dispatch[_opcode[0]] = _refuse_opcode


def _read_bounded(path: PathLike) -> bytes:
    """A regular file's bytes, refused when it is not one or is beyond MAX_FILE_BYTES."""
    name = os.fspath(path)
    info = os.stat(name)
    if not stat.S_ISREG(info.st_mode):
        raise PlanetoidError(f"{name}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise PlanetoidError(
            f"{name}: {info.st_size:,} bytes; a Planetoid file is at most {MAX_FILE_BYTES:,}"
        )
    with open(name, "rb") as file:
        return file.read(MAX_FILE_BYTES + 1)


def restricted_load(path: PathLike) -> Any:
    """Unpickle a Python-2 Planetoid file with `PlanetoidUnpickler` (never plain pickle.load)."""
    content = _read_bounded(path)
    unpickler = PlanetoidUnpickler(io.BytesIO(content), budget=2 * len(content) + 2**16)
    try:
        return unpickler.load()
    except pickle.UnpicklingError as error:
        raise pickle.UnpicklingError(f"{os.fspath(path)}: {error}") from None
    except Exception as error:  # EOFError, ValueError, KeyError, OverflowError, MemoryError, ...
        detail = " ".join(str(error).split())[:200] or type(error).__name__
        raise pickle.UnpicklingError(
            f"{os.fspath(path)}: not a readable Planetoid pickle ({detail})"
        ) from None


def _matrix(obj: Any, path: Path) -> npt.NDArray[np.float64]:
    """A feature or label matrix from a loaded file: a sparse matrix or a 2-d numeric array."""
    if isinstance(obj, PickledSparseMatrix):
        return obj.to_dense(str(path))
    if isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.dtype.kind in "biuf":
        return obj.astype(np.float64)
    raise PlanetoidError(f"{path}: expected a matrix, found {type(obj).__name__}")


def _rows_cols(obj: Any, path: Path) -> tuple[int, int]:
    """The shape of a matrix without making it dense (x and y are only counted), within MAX_DENSE_CELLS."""
    if isinstance(obj, PickledSparseMatrix):
        rows, cols = obj.shape
    elif isinstance(obj, np.ndarray) and obj.ndim == 2:
        rows, cols = int(obj.shape[0]), int(obj.shape[1])
    else:
        raise PlanetoidError(f"{path}: expected a matrix, found {type(obj).__name__}")
    if rows * cols > MAX_DENSE_CELLS:
        raise PlanetoidError(f"{path}: a {rows:,} x {cols:,} matrix is beyond {MAX_DENSE_CELLS:,} cells")
    return rows, cols


def read_test_index(path: Path) -> IntArray:
    """`ind.NAME.test.index`: one non-negative node number per line, in the file's order."""
    try:
        words = _read_bounded(path).decode("ascii").split()
    except UnicodeDecodeError:
        raise PlanetoidError(f"{path}: expected one integer per line, found non-ASCII bytes") from None
    for word in words:
        if not word.isdigit() or len(word) > 12:
            raise PlanetoidError(f"{path}: expected one node number per line, found {word[:20]!r}")
    if not words:
        raise PlanetoidError(f"{path}: no test nodes")
    return np.array([int(word) for word in words], dtype=np.int64)


def adjacency_pairs(
    adjacency: Any, num_nodes: int, path: Path, max_entries: int
) -> tuple[IntArray, IntArray]:
    """The (node, neighbour) pairs of a dict of adjacency lists, every id checked against `num_nodes`."""
    if not isinstance(adjacency, dict):
        raise PlanetoidError(f"{path}: expected a dict of adjacency lists")
    if not all(isinstance(neighbours, list) for neighbours in adjacency.values()):
        raise PlanetoidError(f"{path}: every adjacency list must be a list of node numbers")
    total = sum(len(neighbours) for neighbours in adjacency.values())
    if total > max_entries:
        raise PlanetoidError(
            f"{path}: {total:,} adjacency entries from a file this small (at most {max_entries:,})"
        )
    nodes = list(adjacency)
    neighbours = [n for ns in adjacency.values() for n in ns]
    if not all(type(node) is int for node in nodes) or not all(type(n) is int for n in neighbours):
        raise PlanetoidError(f"{path}: node numbers must be integers")
    if any(not 0 <= node < num_nodes for node in (*nodes, *neighbours)):
        raise PlanetoidError(f"{path}: a node number lies outside [0, {num_nodes})")
    u = np.repeat(np.array(nodes, dtype=np.int64), [len(ns) for ns in adjacency.values()])
    return u, np.array(neighbours, dtype=np.int64)


@attrs.frozen(eq=False)
class PlanetoidParts:
    """A Planetoid dataset before preprocessing: what the raw files and the shipped `.npz` both hold.

    `features` and `one_hot` are in final node order (test rows already placed by `test_index`),
    unnormalised; `u`, `v` are the adjacency pairs as given (duplicates and self loops possible);
    `test_index` keeps the file's order, `num_train` is the number of labelled training nodes.
    """

    name: str
    features: npt.NDArray[np.float64]
    one_hot: npt.NDArray[np.float64]
    u: IntArray
    v: IntArray
    test_index: IntArray
    num_train: int

    def graph(self) -> Graph:
        """The preprocessed dataset, as Kipf & Welling's reference loader builds it."""
        num_nodes = self.features.shape[0]
        src, dst = undirected_edges(self.u, self.v, num_nodes)
        return Graph(
            name=self.name,
            features=row_normalise(self.features),
            labels=self.one_hot.argmax(axis=1).astype(np.int64),
            src=src,
            dst=dst,
            train_idx=np.arange(self.num_train, dtype=np.int64),
            val_idx=np.arange(self.num_train, self.num_train + NUM_VAL, dtype=np.int64),
            test_idx=np.sort(self.test_index),
            num_classes=int(self.one_hot.shape[1]),
        )


def _check_split(folder: Path, name: str, num_train: int, num_allx: int, test_index: IntArray) -> None:
    """Train, validation and test nodes are disjoint, non-empty and inside the graph."""
    if num_train < 1 or num_train + NUM_VAL > num_allx:
        raise PlanetoidError(
            f"{folder}: {num_train} training + {NUM_VAL} validation nodes do not fit in {num_allx} allx rows"
        )
    if np.unique(test_index).size != test_index.size:
        raise PlanetoidError(f"{folder / f'ind.{name}.test.index'}: a test node is listed twice")
    if test_index.min() < num_train + NUM_VAL:
        raise PlanetoidError(
            f"{folder / f'ind.{name}.test.index'}: "
            f"test node {test_index.min()} is a training or validation node"
        )


def read_planetoid(name: str, data_dir: PathLike) -> PlanetoidParts:
    """The raw Planetoid files of `name`, read with the restricted unpickler and checked for consistency.

    Test nodes come from `test.index`; `tx`/`ty` are placed by the sorted test indices. Citeseer's
    test range has holes (isolated nodes without features or labels): they get zero feature rows and
    zero labels, as in the reference.
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
    test_index = read_test_index(paths["test.index"])
    loaded = {suffix: restricted_load(path) for suffix, path in paths.items() if suffix != "test.index"}
    (num_train, num_features), (y_rows, num_classes) = (_rows_cols(loaded[k], paths[k]) for k in ("x", "y"))
    shapes = {key: _rows_cols(loaded[key], paths[key]) for key in ("allx", "ally", "tx", "ty")}
    if y_rows != num_train or shapes["ally"][0] != shapes["allx"][0] or shapes["ty"][0] != shapes["tx"][0]:
        raise PlanetoidError(f"{folder}: x/y, allx/ally or tx/ty disagree on their numbers of rows")
    if {shapes["allx"][1], shapes["tx"][1]} != {num_features} or {shapes["ally"][1], shapes["ty"][1]} != {
        num_classes
    }:
        raise PlanetoidError(f"{folder}: the feature or label matrices disagree on their numbers of columns")
    if num_classes < 1 or shapes["tx"][0] != test_index.size:
        raise PlanetoidError(f"{folder}: {shapes['tx'][0]} tx rows for {test_index.size} test nodes")
    num_allx = shapes["allx"][0]
    _check_split(folder, name, num_train, num_allx, test_index)
    test_sorted = np.sort(test_index)
    span = int(test_sorted[-1] - test_sorted[0]) + 1 if name == "citeseer" else test_index.size
    num_nodes = num_allx + span
    if num_nodes * max(num_features, 1) > MAX_DENSE_CELLS or test_sorted[-1] >= num_nodes:
        raise PlanetoidError(f"{paths['test.index']}: test node {test_sorted[-1]} lies outside the graph")
    allx, tx = _matrix(loaded["allx"], paths["allx"]), _matrix(loaded["tx"], paths["tx"])
    ally, ty = _matrix(loaded["ally"], paths["ally"]), _matrix(loaded["ty"], paths["ty"])
    if name == "citeseer":  # isolated test-range nodes: zero rows, as the reference's tx/ty_extended
        tx_full = np.zeros((span, num_features))
        tx_full[test_sorted - test_sorted[0]] = tx
        ty_full = np.zeros((span, num_classes))
        ty_full[test_sorted - test_sorted[0]] = ty
        tx, ty = tx_full, ty_full
    features = np.vstack([allx, tx])
    features[test_index] = features[test_sorted]
    one_hot = np.vstack([ally, ty])
    one_hot[test_index] = one_hot[test_sorted]
    max_entries = paths["graph"].stat().st_size  # each listed neighbour costs at least one byte
    u, v = adjacency_pairs(loaded["graph"], num_nodes, paths["graph"], max_entries)
    return PlanetoidParts(name, features, one_hot, u, v, test_index, num_train)


def planetoid(name: str, data_dir: PathLike) -> Graph:
    """A Planetoid citation graph with the standard split, from the original files in `data_dir`.

    Features are row-normalised; train = the first 20 x classes nodes, val = the next 500,
    test = the `test.index` nodes (sorted). See `read_planetoid` for the checks.
    """
    return read_planetoid(name, data_dir).graph()


# -- the shipped .npz files ----------------------------------------------------------------------------

SHIPPED_KEYS = (
    "features_shape", "features_indptr", "features_indices", "features_values",
    "labels", "num_classes", "edges", "test_index", "num_train",
)  # fmt: skip


def _smallest_int(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    top = int(values.max()) if values.size else 0
    return values.astype(np.int16 if top < 2**15 else np.int32)


def parts_to_arrays(parts: PlanetoidParts) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a shipped `.npz`: sparse features, labels (-1 = none), unique undirected edges."""
    features = parts.features
    if not np.array_equal(features.astype(np.float32), features):
        raise ValueError(f"{parts.name}: features are not exactly float32 values")
    rows, cols = np.nonzero(features)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=features.shape[0]))])
    one_hot = parts.one_hot
    labelled = one_hot.sum(axis=1) != 0
    if not np.all(np.isin(one_hot, (0.0, 1.0))) or np.any(one_hot.sum(axis=1) > 1):
        raise ValueError(f"{parts.name}: label rows are not one-hot")
    labels = np.where(labelled, one_hot.argmax(axis=1), -1).astype(np.int8)
    src, dst = undirected_edges(parts.u, parts.v, features.shape[0])
    keep = src < dst
    return {
        "features_shape": np.array(features.shape, dtype=np.int64),
        "features_indptr": indptr.astype(np.int32),
        "features_indices": _smallest_int(cols),
        "features_values": features[rows, cols].astype(np.float32),
        "labels": labels,
        "num_classes": np.array(one_hot.shape[1], dtype=np.int64),
        "edges": _smallest_int(np.stack([src[keep], dst[keep]])),
        "test_index": _smallest_int(parts.test_index),
        "num_train": np.array(parts.num_train, dtype=np.int64),
    }


def parts_from_arrays(name: str, arrays: Mapping[str, npt.NDArray[Any]], where: str) -> PlanetoidParts:
    """Inverse of `parts_to_arrays`, every index checked (the file could have been replaced)."""
    missing = [key for key in SHIPPED_KEYS if key not in arrays]
    if missing:
        raise PlanetoidError(f"{where}: missing arrays {', '.join(missing)}")
    shape = arrays["features_shape"]
    if shape.shape != (2,) or shape.dtype.kind not in "iu" or shape.min() < 0:
        raise PlanetoidError(f"{where}: features_shape must be two sizes")
    num_nodes, num_features = int(shape[0]), int(shape[1])
    features = csr_to_dense(
        (num_nodes, num_features),
        arrays["features_indptr"],
        arrays["features_indices"],
        arrays["features_values"],
        where,
    )
    labels, edges, test_index = arrays["labels"], arrays["edges"], arrays["test_index"]
    num_classes, num_train = _one_count(arrays, "num_classes", where), _one_count(arrays, "num_train", where)
    if labels.shape != (num_nodes,) or labels.dtype.kind != "i":
        raise PlanetoidError(f"{where}: labels must be one per node")
    if labels.size and (labels.min() < -1 or labels.max() >= num_classes):
        raise PlanetoidError(f"{where}: a label lies outside [-1, {num_classes})")
    if edges.ndim != 2 or edges.shape[0] != 2 or edges.dtype.kind not in "iu":
        raise PlanetoidError(f"{where}: edges must be a (2, E) integer array")
    if edges.size and (edges.min() < 0 or edges.max() >= num_nodes):
        raise PlanetoidError(f"{where}: an edge endpoint lies outside [0, {num_nodes})")
    if test_index.ndim != 1 or test_index.dtype.kind not in "iu" or test_index.size == 0:
        raise PlanetoidError(f"{where}: test_index must be a non-empty list of nodes")
    if test_index.min() < 0 or test_index.max() >= num_nodes or num_train + NUM_VAL > num_nodes:
        raise PlanetoidError(f"{where}: the split does not fit in {num_nodes} nodes")
    if test_index.min() < num_train + NUM_VAL:
        raise PlanetoidError(f"{where}: test node {test_index.min()} is a training or validation node")
    one_hot = np.zeros((num_nodes, num_classes))
    labelled = np.flatnonzero(labels >= 0)
    one_hot[labelled, labels[labelled]] = 1.0
    u, v = edges.astype(np.int64)
    return PlanetoidParts(name, features, one_hot, u, v, test_index.astype(np.int64), num_train)


NPY_HEADER_READERS = {
    (1, 0): np.lib.format.read_array_header_1_0,
    (2, 0): np.lib.format.read_array_header_2_0,
}  # each bounds the header's length (numpy's max_header_size) before parsing it


def _one_count(arrays: Mapping[str, npt.NDArray[Any]], key: str, where: str) -> int:
    """The 0-d integer array `key` as an int of at least 1 (a class count, a number of training nodes)."""
    value = arrays[key]
    if value.shape != () or value.dtype.kind not in "iu":
        raise PlanetoidError(
            f"{where}: {key} must be one integer, got a {value.dtype} array of shape {value.shape}"
        )
    if int(value) < 1:
        raise PlanetoidError(f"{where}: {key} must be at least 1, got {int(value)}")
    return int(value)


def _npz_member(archive: zipfile.ZipFile, key: str, path: Path, budget: int) -> npt.NDArray[Any]:
    """One plain array of the archive, its sizes checked before any allocation: the member's declared
    size against `budget`, then the `.npy` header's shape and dtype against that declared size."""
    where = f"{path}: member {key}.npy"
    try:
        info = archive.getinfo(f"{key}.npy")
    except KeyError:
        raise PlanetoidError(f"{path}: missing array {key}") from None
    if info.file_size > budget:
        raise PlanetoidError(f"{where} unpacks to {info.file_size:,} bytes; the budget left is {budget:,}")
    with archive.open(info) as member:
        data = member.read(info.file_size + 1)
    header = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(header)
        if version not in NPY_HEADER_READERS:
            raise ValueError(f".npy format {version[0]}.{version[1]}")
        shape, fortran, dtype = NPY_HEADER_READERS[version](header)
    except (ValueError, SyntaxError, TypeError) as error:
        raise PlanetoidError(f"{where}: not a .npy array ({' '.join(str(error).split())[:120]})") from None
    if dtype.hasobject or dtype.kind not in "iuf" or dtype.itemsize == 0:
        raise PlanetoidError(f"{where}: dtype {dtype} is not a plain integer or float type")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes != len(data) - header.tell():
        raise PlanetoidError(
            f"{where}: its header says shape {shape} of {dtype} ({nbytes:,} bytes), "
            f"the member holds {len(data) - header.tell():,}"
        )
    values = np.frombuffer(data, dtype=dtype, offset=header.tell())
    return values.reshape(shape, order="F" if fortran else "C").copy()


def read_shipped(path: PathLike) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a shipped `.npz`, read within MAX_FILE_BYTES in all (a regular file, every
    member's declared size and `.npy` header checked before its bytes are kept)."""
    path = Path(path)
    info = os.stat(path)  # before opening: a FIFO would block open(); a missing file names itself
    if not stat.S_ISREG(info.st_mode):
        raise PlanetoidError(f"{path}: not a regular file")
    with open(path, "rb") as file:
        if info.st_size > MAX_FILE_BYTES or file.read(4) != b"PK\x03\x04":
            raise PlanetoidError(f"{path}: not an .npz file of at most {MAX_FILE_BYTES:,} bytes")
        file.seek(0)
        arrays: dict[str, npt.NDArray[Any]] = {}
        budget = MAX_FILE_BYTES
        try:
            with zipfile.ZipFile(file) as archive:
                for key in SHIPPED_KEYS:
                    arrays[key] = _npz_member(archive, key, path, budget)
                    budget -= arrays[key].nbytes
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            detail = " ".join(str(error).split())[:120] or type(error).__name__
            raise PlanetoidError(f"{path}: not a readable .npz ({detail})") from None
    return arrays


def shipped(name: str, folder: PathLike = SHIPPED) -> Graph:
    """Cora or Citeseer from the `.npz` shipped with the examples (converted once from Planetoid's files)."""
    if name not in SHIPPED_NAMES:
        raise ValueError(
            f"dataset {name!r} is not shipped ({', '.join(SHIPPED_NAMES)} are): "
            f"pass --data DIR holding ind.{name}.* ({PLANETOID_DOWNLOAD})"
        )
    path = Path(folder) / f"{name}.npz"
    return parts_from_arrays(name, read_shipped(path), str(path)).graph()


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
    """The dataset called `name`: karate, cora / citeseer / pubmed or sbm (`nodes`).

    A Planetoid graph is read from the original files in `data_dir` when it is given, else from
    the `.npz` shipped beside this module (Cora and Citeseer).
    """
    if data_dir is not None and name not in PLANETOID_NAMES:
        raise ValueError(f"a data directory is only read for {', '.join(PLANETOID_NAMES)}, not {name!r}")
    if name == "karate":
        return karate()
    if name in PLANETOID_NAMES:
        return shipped(name) if data_dir is None else planetoid(name, data_dir)
    if name == "sbm":
        return sbm(10_000 if nodes is None else nodes, seed=seed)
    raise ValueError(f"unknown dataset {name!r}: choose one of {', '.join(DATASETS)}")

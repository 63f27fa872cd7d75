"""Write Planetoid-format files (`ind.NAME.*`, Python-2 style pickles) from arrays, for the loader's tests.

The original files are not in the repository; the shipped `.npz` files are. This writes files in
the originals' format from a `graphs.PlanetoidParts` (or from hand-made pieces), so the `--data DIR`
path can be tested on a fresh clone: pickle protocol 2 with byte strings as Python 2 `str`
(BINSTRING, read back with encoding="latin1"), sparse matrices under the name
`scipy.sparse.csr.csr_matrix`, numpy arrays under numpy's own reconstructor, and the graph as a
`collections.defaultdict(list)` — the names and opcodes the originals use.
"""

from __future__ import annotations

import collections
import copyreg
import io
import pickle
import struct
from pathlib import Path
from typing import Any, ClassVar

import graphs
import numpy as np


class CSR:
    """Pickles as scipy.sparse.csr.csr_matrix does: NEWOBJ of the class, then BUILD with its state dict."""

    def __init__(self, matrix: np.ndarray) -> None:
        rows, cols = np.nonzero(matrix)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=matrix.shape[0]))])
        self.state = {
            "_shape": (int(matrix.shape[0]), int(matrix.shape[1])),
            "data": matrix[rows, cols].astype(np.float32),
            "indices": cols.astype(np.int32),
            "indptr": indptr.astype(np.int32),
            "format": "csr",
            "maxprint": 50,
        }

    @classmethod
    def raw(cls, state: dict[str, Any]) -> CSR:
        """A sparse matrix with exactly this state, consistent or not (for hostile files)."""
        csr = cls(np.zeros((0, 0)))
        csr.state = state
        return csr

    def __reduce__(self) -> tuple[Any, ...]:
        return (copyreg.__newobj__, (CSR,), self.state)


class Python2Pickler(pickle._Pickler):  # type: ignore[name-defined,misc]
    """Protocol 2 as Python 2 wrote it: bytes are `str` (BINSTRING), CSR is scipy's class by name."""

    dispatch: ClassVar[dict[type, Any]] = dict(pickle._Pickler.dispatch)  # type: ignore[attr-defined]

    def save_py2_str(self, obj: bytes) -> None:
        if len(obj) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(obj)]) + obj)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(obj)) + obj)
        self.memoize(obj)

    dispatch[bytes] = save_py2_str

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if obj is CSR:
            self.write(pickle.GLOBAL + b"scipy.sparse.csr\ncsr_matrix\n")
            self.memoize(obj)
            return
        super().save_global(obj, name)


def py2_pickle(obj: Any) -> bytes:
    buffer = io.BytesIO()
    Python2Pickler(buffer, protocol=2).dump(obj)
    return buffer.getvalue()


def adjacency(parts: graphs.PlanetoidParts) -> collections.defaultdict[int, list[int]]:
    lists: collections.defaultdict[int, list[int]] = collections.defaultdict(list)
    for node in range(parts.features.shape[0]):
        lists[node]  # every node has a (possibly empty) list, as in the originals
    for u, v in zip(parts.u.tolist(), parts.v.tolist(), strict=True):
        lists[u].append(v)
    return lists


def planetoid_pieces(parts: graphs.PlanetoidParts) -> dict[str, Any]:
    """The eight files' contents (unpickled form) that load back to `parts`: the inverse of the loader."""
    start = int(parts.test_index.min())
    return {
        "x": CSR(parts.features[: parts.num_train]),
        "y": parts.one_hot[: parts.num_train].astype(np.int32),
        "allx": CSR(parts.features[:start]),
        "ally": parts.one_hot[:start].astype(np.int32),
        "tx": CSR(parts.features[parts.test_index]),  # tx[j] is the row of node test_index[j]
        "ty": parts.one_hot[parts.test_index].astype(np.int32),
        "graph": adjacency(parts),
        "test.index": "\n".join(str(i) for i in parts.test_index.tolist()) + "\n",
    }


def write_planetoid(folder: Path, name: str, pieces: dict[str, Any]) -> Path:
    """Write `ind.NAME.SUFFIX` for each piece: bytes as they are, text as text, anything else pickled."""
    folder.mkdir(parents=True, exist_ok=True)
    for suffix, piece in pieces.items():
        path = folder / f"ind.{name}.{suffix}"
        if isinstance(piece, bytes):
            path.write_bytes(piece)
        elif isinstance(piece, str):
            path.write_text(piece)
        else:
            path.write_bytes(py2_pickle(piece))
    return folder


def shipped_parts(name: str) -> graphs.PlanetoidParts:
    with np.load(graphs.SHIPPED / f"{name}.npz", allow_pickle=False) as arrays:
        return graphs.parts_from_arrays(name, {key: arrays[key] for key in arrays.files}, name)


def tiny_parts(seed: int = 0) -> graphs.PlanetoidParts:
    """A small valid Planetoid dataset: 20 train + 500 validation nodes, 50 test nodes, 5 features."""
    rng = np.random.default_rng(seed)
    nodes, test = 600, 50
    features = (rng.random((nodes, 5)) < 0.4).astype(np.float64)
    labels = rng.integers(0, 3, nodes)
    one_hot = np.eye(3)[labels]
    u = rng.integers(0, nodes, 1500)
    v = rng.integers(0, nodes, 1500)
    test_index = rng.permutation(np.arange(nodes - test, nodes))
    return graphs.PlanetoidParts("cora", features, one_hot, u, v, test_index, 20)


def call_pickle(module: str, name: str, args: tuple[Any, ...], opcode: bytes = pickle.REDUCE) -> bytes:
    """A protocol-2 pickle that calls module.name(*args) (REDUCE) or module.name.__new__ (NEWOBJ)."""
    arguments = pickle.dumps(args, protocol=2)[2:-1]  # the tuple's opcodes, without PROTO and STOP
    return b"\x80\x02" + pickle.GLOBAL + f"{module}\n{name}\n".encode() + arguments + opcode + pickle.STOP

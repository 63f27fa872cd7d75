"""The shipped Planetoid `.npz` loader (examples/graphs.py) against hostile replacements.

A replaced file must not give a silently wrong split (`num_train=-1000` made the validation nodes
the test nodes), a raw traceback (a vector `num_classes`), or a huge allocation from a small file
(a member whose `.npy` header claims 8 GiB): each is one `PlanetoidError` naming the file and what
is wrong, before anything big is allocated.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from typing import Any

import graphs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st


def _good() -> dict[str, np.ndarray]:
    with np.load(graphs.SHIPPED / "cora.npz", allow_pickle=False) as arrays:
        return {key: arrays[key] for key in arrays.files}


GOOD = _good()


def _write(folder: Path, members: dict[str, bytes]) -> Path:
    path = folder / "cora.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, data in members.items():
            archive.writestr(f"{key}.npy", data)
    return path


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _members(**replaced: Any) -> dict[str, bytes]:
    return {key: replaced.get(key, _npy(value)) for key, value in GOOD.items()}


@given(num_train=st.integers(-(2**40), 0))
def test_a_count_of_training_nodes_below_one_is_refused(tmp_path_factory: Any, num_train: int) -> None:
    folder = tmp_path_factory.mktemp("npz")
    _write(folder, _members(num_train=_npy(np.array(num_train))))
    with pytest.raises(
        graphs.PlanetoidError, match=f"cora.npz: num_train must be at least 1, got {num_train}"
    ):
        graphs.shipped("cora", folder)


def test_a_split_whose_validation_nodes_are_test_nodes_is_refused(tmp_path: Path) -> None:
    first_test = int(GOOD["test_index"].min())
    _write(tmp_path, _members(num_train=_npy(np.array(first_test - graphs.NUM_VAL + 1))))
    with pytest.raises(
        graphs.PlanetoidError, match=f"test node {first_test} is a training or validation node"
    ):
        graphs.shipped("cora", tmp_path)


@pytest.mark.parametrize(
    "value", [np.array([7, 7, 7]), np.array([[7]]), np.array(7.0), np.array(0)], ids=repr
)
@pytest.mark.parametrize("key", ["num_classes", "num_train"])
def test_a_count_that_is_no_single_positive_integer_is_refused(tmp_path: Path, key: str, value: Any) -> None:
    _write(tmp_path, _members(**{key: _npy(value)}))
    with pytest.raises(graphs.PlanetoidError, match=f"cora.npz: {key} must be"):
        graphs.shipped("cora", tmp_path)


def test_a_header_claiming_8_gib_in_a_small_member_is_refused_before_allocating(tmp_path: Path) -> None:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (2**30,)})
    _write(tmp_path, _members(features_values=header.getvalue() + bytes(64)))
    with pytest.raises(
        graphs.PlanetoidError,
        match=r"cora\.npz: member features_values\.npy: its header says shape \(1073741824,\) of float64 "
        r"\(8,589,934,592 bytes\), the member holds 64",
    ):
        graphs.shipped("cora", tmp_path)


def test_a_member_that_unpacks_beyond_the_budget_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deflate bomb: the declared uncompressed size is checked before a byte is inflated."""
    _write(tmp_path, _members(edges=bytes(2 * 2**20)))  # 2 MiB of zeros deflate to about 2 kB
    monkeypatch.setattr(graphs, "MAX_FILE_BYTES", 2**20)
    assert (tmp_path / "cora.npz").stat().st_size < 2**20
    with pytest.raises(graphs.PlanetoidError, match=r"member edges\.npy unpacks to 2,097,152 bytes"):
        graphs.shipped("cora", tmp_path)


@pytest.mark.parametrize(
    ("member", "message"),
    [
        (b"not an npy", "not a .npy array"),
        (_npy(np.array(["a", "b"])), "dtype <U1 is not a plain integer or float type"),
        (_npy(np.zeros(3, dtype=[("a", "<f8")])), r"dtype \[\('a', '<f8'\)\] is not a plain"),
        (_npy(np.array(b"7")), r"dtype \|S1 is not a plain"),
    ],
)
def test_members_that_are_no_plain_arrays_are_refused_naming_them(
    tmp_path: Path, member: bytes, message: str
) -> None:
    _write(tmp_path, _members(labels=member))
    with pytest.raises(graphs.PlanetoidError, match=rf"cora\.npz: member labels\.npy: {message}"):
        graphs.shipped("cora", tmp_path)


def test_a_missing_member_and_a_fifo_are_refused_naming_the_file(tmp_path: Path) -> None:
    members = _members()
    del members["edges"]
    _write(tmp_path, members)
    with pytest.raises(graphs.PlanetoidError, match=r"cora\.npz: missing array edges"):
        graphs.shipped("cora", tmp_path)
    folder = tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(folder / "cora.npz")  # opening it for reading would block until a writer comes
    with pytest.raises(graphs.PlanetoidError, match=r"cora\.npz: not a regular file"):
        graphs.shipped("cora", folder)


def test_the_shipped_files_still_load() -> None:
    for name in graphs.SHIPPED_NAMES:
        graph = graphs.shipped(name)
        assert graph.num_classes == int(np.load(graphs.SHIPPED / f"{name}.npz")["num_classes"])
        assert graph.test_idx.min() >= len(graph.train_idx) + graphs.NUM_VAL

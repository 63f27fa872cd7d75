"""Fuzzing the file doors: crafted `.npy` files for `lt.load` and `show`, crafted Planetoid pickles.

The only outcomes allowed are a correct result or the one-line error (ValueError and its
OSError siblings naming the file): never another exception, a hang, a changed file, or code
run from a pickle.
"""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import graphs
import numpy as np
import planetoid_files
import pytest
from fuzz_support import assert_one_line, marker_pickle, time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lazytensor as lt

DTYPES = ["<f8", ">i4", "|u1", "|b1", "<c16", "<U3", "|S2", "<f2", "<m8[s]", "<i8"]
SHAPE_ENTRIES = st.one_of(
    st.integers(0, 4),
    st.sampled_from(["True", "False", "-1", str(2**63), str(10**30), str(2**31), "1.5", "None", "'a'", "()"]),
)


def npy_file(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


@st.composite
def valid_arrays(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
    array = np.zeros(shape, dtype=dtype)
    flat = array.reshape(-1)
    flat[...] = np.arange(flat.size).astype(dtype) if dtype[1] not in "mUS" else flat
    return np.asfortranarray(array) if draw(st.booleans()) else array


def header_text(descr: str, fortran: str, shape: str) -> str:
    return f"{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}"


@st.composite
def mutated_npy(draw: st.DrawFn) -> bytes:
    """A valid `.npy` byte string with one mutation: its header, its length field, its data or its end."""
    array = draw(valid_arrays())
    content = npy_file(array)
    kind = draw(st.sampled_from(["none", "truncate", "flip", "length", "header", "version", "append"]))
    if kind == "truncate":
        return content[: draw(st.integers(0, len(content)))]
    if kind == "flip":
        position = draw(st.integers(0, len(content) - 1))
        return content[:position] + bytes([draw(st.integers(0, 255))]) + content[position + 1 :]
    if kind == "length":
        return content[:8] + draw(st.binary(min_size=2, max_size=2)) + content[10:]
    if kind == "version":
        return content[:6] + draw(st.binary(min_size=2, max_size=2)) + content[8:]
    if kind == "append":
        return content + draw(st.binary(max_size=64))
    if kind == "header":
        entries = draw(st.lists(SHAPE_ENTRIES, max_size=40))
        shape = "(" + "".join(f"{entry}, " for entry in entries) + ")"
        descr = draw(
            st.sampled_from([f"'{d}'" for d in DTYPES] + ["'|O'", "'<q99'", "[('a', '<i4')]", "3", "'"])
        )
        fortran = draw(st.sampled_from(["False", "True", "0", "'no'"]))
        prefix = draw(st.sampled_from(["", "- " * 3000, "(" * 50, "{"]))
        text = (prefix + header_text(descr, fortran, shape)).encode("latin1")
        padding = b" " * draw(st.integers(0, 16)) + b"\n"
        header = text + padding
        body = content[len(content) - array.nbytes :] if array.nbytes else b""
        return b"\x93NUMPY\x01\x00" + (len(header) % 65536).to_bytes(2, "little") + header + body
    return content


def check_load(path: Path, mmap: bool) -> None:
    """lt.load gives numpy's array or one ValueError line naming the file, and leaves the file alone."""
    before = path.read_bytes()
    with time_limit(10), warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            loaded = lt.load(path, mmap=mmap).numpy()
        except (ValueError, OSError) as error:
            assert_one_line(str(error), f"{path}: ")
            loaded = None
    assert path.read_bytes() == before
    if loaded is not None:  # then numpy must agree on every value
        expected = np.load(path, allow_pickle=False)
        assert loaded.shape == expected.shape and loaded.dtype == expected.dtype
        np.testing.assert_array_equal(loaded, expected)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=mutated_npy(), mmap=st.booleans())
def test_crafted_npy_files_load_or_fail_in_one_line(content: bytes, mmap: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.npy"
        path.write_bytes(content)
        check_load(path, mmap)


@settings(max_examples=150, deadline=None)
@given(content=st.binary(max_size=200))
def test_arbitrary_bytes_load_or_fail_in_one_line(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bytes.npy"
        path.write_bytes(b"\x93NUMPY" + content if content[:1] == b"\x01" else content)
        check_load(path, mmap=True)


def test_a_pickle_payload_never_runs_from_an_npy_file(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    payload = marker_pickle(marker)
    header = b"{'descr': '|O', 'fortran_order': False, 'shape': (1,), }" + b" " * 8 + b"\n"
    as_objects = tmp_path / "objects.npy"
    as_objects.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + payload)
    bare = tmp_path / "bare.npy"
    bare.write_bytes(payload)
    for path in (as_objects, bare):
        for mmap in (True, False):
            with pytest.raises(ValueError):
                lt.load(path, mmap=mmap)
        shown = subprocess.run(
            [sys.executable, "-m", "lazytensor", "show", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert shown.returncode == 2 and shown.stdout == ""
        assert_one_line(shown.stderr, str(path))
    assert not marker.exists()


# ------------------------------------------------------------------------------------------ Planetoid


@pytest.fixture(scope="module")
def tiny_pieces() -> dict[str, bytes]:
    """The eight files of a small valid Planetoid dataset, as bytes."""
    with tempfile.TemporaryDirectory() as folder:
        parts = planetoid_files.tiny_parts()
        planetoid_files.write_planetoid(Path(folder), "cora", planetoid_files.planetoid_pieces(parts))
        return {path.name.removeprefix("ind.cora."): path.read_bytes() for path in Path(folder).iterdir()}


def check_planetoid(pieces: dict[str, bytes]) -> None:
    """The loader gives a graph or one line naming the problem, within the time limit, files unchanged."""
    with tempfile.TemporaryDirectory() as folder:
        planetoid_files.write_planetoid(Path(folder), "cora", pieces)
        with time_limit(20):
            try:
                graph = graphs.planetoid("cora", folder)
            except (ValueError, OSError, pickle.UnpicklingError) as error:
                assert_one_line(str(error), folder)
                graph = None
        for suffix, content in pieces.items():
            assert (Path(folder) / f"ind.cora.{suffix}").read_bytes() == content
    if graph is not None:
        assert graph.num_nodes * graph.num_features <= graphs.MAX_DENSE_CELLS
        assert graph.test_idx.size > 0 and graph.test_idx.max() < graph.num_nodes


@st.composite
def mutations(draw: st.DrawFn, content: bytes) -> bytes:
    kind = draw(st.sampled_from(["truncate", "flip", "splice"]))
    if kind == "truncate":
        return content[: draw(st.integers(0, len(content)))]
    position = draw(st.integers(0, len(content) - 1))
    if kind == "flip":
        return content[:position] + bytes([draw(st.integers(0, 255))]) + content[position + 1 :]
    return content[:position] + draw(st.binary(min_size=1, max_size=12)) + content[position:]


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), suffix=st.sampled_from(["x", "y", "allx", "ally", "tx", "ty", "graph", "test.index"]))
def test_mutated_planetoid_files_load_or_fail_in_one_line(
    tiny_pieces: dict[str, bytes], data: st.DataObject, suffix: str
) -> None:
    pieces = dict(tiny_pieces)
    pieces[suffix] = data.draw(mutations(tiny_pieces[suffix]))
    check_planetoid(pieces)


@pytest.mark.parametrize("suffix", ["x", "y", "allx", "ally", "tx", "ty", "graph"])
@pytest.mark.parametrize("protocol", [0, 2, 5])
def test_a_pickle_payload_never_runs_from_a_planetoid_file(
    tmp_path: Path, tiny_pieces: dict[str, bytes], suffix: str, protocol: int
) -> None:
    marker = tmp_path / "marker"
    pieces = dict(tiny_pieces)
    pieces[suffix] = marker_pickle(marker, protocol)
    folder = planetoid_files.write_planetoid(tmp_path / "data", "cora", pieces)
    with pytest.raises(pickle.UnpicklingError) as caught:
        graphs.planetoid("cora", folder)
    assert_one_line(str(caught.value), f"ind.cora.{suffix}")
    assert not marker.exists()

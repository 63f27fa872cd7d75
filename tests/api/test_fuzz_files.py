"""Fuzzing the file doors: crafted `.npy` files for `lt.load` and `show`, hostile zarr stores for
`lt.open`, printing, slicing, `show` and `repl`, crafted Planetoid pickles.

The only outcomes allowed are a correct result or the one-line error (ValueError and its
OSError siblings naming the file, MemoryError for sizes no memory holds): never another
exception, a hang, a changed file, or code run from a pickle.
"""

from __future__ import annotations

import functools
import io
import json
import os
import pickle
import subprocess
import sys
import tempfile
import warnings
import zlib
from pathlib import Path

import graphs
import numcodecs
import numpy as np
import planetoid_files
import pytest
import zarr
from fuzz_support import OUTCOMES, assert_one_line, chunk_files, marker_pickle, time_limit, zarr_metadata_name
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


# ------------------------------------------------------------------------------------------ zarr stores

ZARR_DTYPES = ["<f8", "<i4", "|u1", "|b1", "<f4", ">i8", "<c8"]
CODECS = {
    3: {
        "none": None,
        "gzip": zarr.codecs.GzipCodec(),
        "zstd": zarr.codecs.ZstdCodec(),
        "blosc": zarr.codecs.BloscCodec(),
    },
    2: {
        "none": None,
        "gzip": numcodecs.GZip(),
        "zstd": numcodecs.Zstd(),
        "blosc": numcodecs.Blosc(),
        "zlib": numcodecs.Zlib(),
    },
}
HOSTILE_VALUES: list[object] = [
    None,
    "x",
    -1,
    0,
    1.5,
    2**63,
    10**30,
    [],
    [0],
    [-1],
    [2**62],
    [2**40, 2**40],
    [1] * 40,
    {"name": "nope"},
    {"id": "nope"},
    {"id": "blosc", "cname": "nope"},
    [{"name": "nope"}],
    "<f99",
    "|O",
    "|V0",
    "<U0",
    "NaN",
    [[1]],
]
FIELDS = {
    3: [
        "shape",
        "data_type",
        "fill_value",
        "codecs",
        "zarr_format",
        "node_type",
        "chunk_grid",
        "chunk_key_encoding",
        "chunk_grid.configuration.chunk_shape",
        "codecs.0",
        "codecs.1",
        "codecs.0.configuration.endian",
        "dimension_names",
    ],
    2: [
        "shape",
        "chunks",
        "dtype",
        "fill_value",
        "compressor",
        "filters",
        "order",
        "zarr_format",
        "dimension_separator",
        "compressor.id",
        "compressor.level",
    ],
}
MUTATIONS = [
    "none",
    "field",
    "field",
    "field",
    "metadata-bytes",
    "fifo-metadata",
    "fifo-chunk",
    "device-metadata",
    "device-chunk",
    "bomb",
    "chunk-bytes",
    "chunk-bytes",
    "chunk-directory",
    "loop-chunk",
    "huge-shape",
]


@functools.cache
def bomb(wbits: int) -> bytes:
    """64 MiB of zeros, deflated (zlib for wbits 15, gzip for 31) into about 64 KiB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(bytes(64 << 20)) + packer.flush()


def build_store(
    folder: Path, fmt: int, dtype: str, shape: tuple[int, ...], chunks: tuple[int, ...], codec: str
) -> None:
    """A valid zarr store of format `fmt` at `folder`, every element written."""
    compressor = CODECS[fmt][codec]
    z = zarr.create_array(
        str(folder),
        shape=shape,
        chunks=chunks,
        dtype=dtype,
        fill_value=0,
        zarr_format=fmt,
        compressors=compressor,
        overwrite=True,
    )
    if z.size:
        z[...] = np.arange(z.size).astype(dtype).reshape(shape)


def set_field(document: dict[str, object], field: str, value: object) -> None:
    """Set `field` (dotted: `codecs.0.name`) in a metadata document, creating nothing but the last step."""
    *path, last = field.split(".")
    node: object = document
    for step in path:
        if isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        elif isinstance(node, dict) and step in node:
            node = node[step]
        else:
            return
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value


@st.composite
def hostile_stores(draw: st.DrawFn) -> dict[str, object]:
    """A recipe for a zarr store: a valid one (format, dtype, shape, chunks, codec) and one mutation."""
    fmt = draw(st.sampled_from([2, 3]))
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim)))
    chunks = tuple(draw(st.integers(1, max(n, 1))) for n in shape)
    recipe: dict[str, object] = {
        "fmt": fmt,
        "dtype": draw(st.sampled_from(ZARR_DTYPES)),
        "shape": shape,
        "chunks": chunks,
        "codec": draw(st.sampled_from(sorted(CODECS[fmt]))),
        "mutation": draw(st.sampled_from(MUTATIONS)),
    }
    if recipe["mutation"] == "field":
        recipe["field"] = draw(st.sampled_from(FIELDS[fmt]))
        recipe["value"] = draw(st.sampled_from(HOSTILE_VALUES))
    if recipe["mutation"] in ("metadata-bytes", "chunk-bytes"):
        recipe["edit"] = draw(st.sampled_from(["truncate", "flip", "garbage", "extend", "empty"]))
        recipe["position"] = draw(st.integers(0, 10**6))
        recipe["byte"] = draw(st.integers(0, 255))
    recipe["chunk"] = draw(st.integers(0, 10**6))
    return recipe


def _edit_bytes(content: bytes, recipe: dict[str, object]) -> bytes:
    position = int(recipe["position"]) % max(len(content), 1)  # type: ignore[call-overload]
    edit = recipe["edit"]
    if edit == "truncate":
        return content[:position]
    if edit == "flip" and content:
        return content[:position] + bytes([int(recipe["byte"])]) + content[position + 1 :]  # type: ignore[call-overload]
    if edit == "extend":
        return content + bytes(position % 64 + 1)
    if edit == "empty":
        return b""
    return os.urandom(position % 100)


def make_store(folder: Path, recipe: dict[str, object]) -> None:
    """Build the valid store of `recipe` at `folder`, then apply its mutation."""
    fmt = int(recipe["fmt"])  # type: ignore[call-overload]
    mutation = recipe["mutation"]
    shape = recipe["shape"]
    chunks = recipe["chunks"]
    if mutation == "huge-shape":  # valid: a fill value only, too large for any memory
        shape, chunks = (2**40, 2**40)[: len(shape)] + (7,) * (len(shape) - 2), (1000,) * len(shape)  # type: ignore[arg-type]
        zarr.create_array(
            str(folder),
            shape=shape,
            chunks=chunks,
            dtype=str(recipe["dtype"]),
            fill_value=1,
            zarr_format=fmt,
            compressors=CODECS[fmt][str(recipe["codec"])],
        )
        return
    build_store(folder, fmt, str(recipe["dtype"]), shape, chunks, str(recipe["codec"]))  # type: ignore[arg-type]
    metadata = folder / zarr_metadata_name(folder)
    chunk_list = chunk_files(folder)
    chunk = (
        chunk_list[int(recipe["chunk"]) % len(chunk_list)]
        if chunk_list
        else folder / ("c/0" if fmt == 3 else "0")
    )  # type: ignore[call-overload]
    if mutation == "field":
        document = json.loads(metadata.read_text())
        set_field(document, str(recipe["field"]), recipe["value"])
        metadata.write_text(json.dumps(document))
    elif mutation == "metadata-bytes":
        metadata.write_bytes(_edit_bytes(metadata.read_bytes(), recipe))
    elif mutation == "chunk-bytes":
        chunk.parent.mkdir(parents=True, exist_ok=True)
        chunk.write_bytes(_edit_bytes(chunk.read_bytes() if chunk.exists() else b"", recipe))
    elif mutation in (
        "fifo-metadata",
        "fifo-chunk",
        "device-metadata",
        "device-chunk",
        "loop-chunk",
        "chunk-directory",
    ):
        target = metadata if mutation.endswith("metadata") else chunk
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            target.unlink()
        if mutation.startswith("fifo"):
            os.mkfifo(target)
        elif mutation.startswith("device"):
            target.symlink_to("/dev/zero")
        elif mutation == "loop-chunk":
            target.symlink_to(target)
        else:
            target.mkdir()
    elif mutation == "bomb":
        chunk.parent.mkdir(parents=True, exist_ok=True)
        chunk.write_bytes(bomb(31 if recipe["codec"] in ("gzip", "none") else 15))


def _corner(t: lt.AbstractTensor, last: bool) -> tuple[slice, ...]:
    return tuple(slice(-2, None) if last else slice(0, 2) for _ in t.shape)


def classify_store(folder: Path, reference: bool) -> str:
    """What lt.open, printing and slicing make of the store: one of OUTCOMES (see fuzz_support).

    With `reference`, a store plain zarr can read safely is also read by zarr, and any value
    that differs from lazytensor's is a wrong result."""
    try:
        with time_limit(20):
            try:
                t = lt.open(folder)
                text = str(t)
                corners = [t[_corner(t, last)].numpy() for last in (False, True)]
            except (ValueError, OSError, MemoryError) as error:
                assert_one_line(str(error), str(folder))
                return "clean error"
    except TimeoutError:
        return "hang"
    except Exception:
        return "raw traceback"
    if not text:
        return "raw traceback"
    if reference:
        try:
            z = zarr.open_array(str(folder), mode="r")
            expected = [np.asarray(z[_corner(t, last)]) for last in (False, True)]
        except Exception:  # zarr cannot read it, lazytensor did: nothing to compare
            return "opened and printed"
        for mine, theirs in zip(corners, expected, strict=True):
            if mine.shape != theirs.shape or not np.array_equal(
                mine, theirs, equal_nan=mine.dtype.kind in "fc"
            ):
                return "wrong result"
    return "opened and printed"


SAFE_FOR_ZARR = ("none", "huge-shape", "chunk-bytes")


@settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipe=hostile_stores())
def test_hostile_zarr_stores_open_print_and_slice_or_fail_in_one_line(recipe: dict[str, object]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store.zarr"
        make_store(store, recipe)
        outcome = classify_store(store, reference=recipe["mutation"] in SAFE_FOR_ZARR)
    assert outcome in OUTCOMES[:2], (outcome, recipe)


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize(
    "mutation",
    ["fifo-metadata", "fifo-chunk", "device-metadata", "device-chunk", "bomb", "loop-chunk", "huge-shape"],
)
def test_each_hostile_kind_of_zarr_store_fails_in_one_line(tmp_path: Path, fmt: int, mutation: str) -> None:
    recipe = {
        "fmt": fmt,
        "dtype": "<f8",
        "shape": (4, 4),
        "chunks": (2, 2),
        "codec": "gzip",
        "mutation": mutation,
        "chunk": 0,
    }
    store = tmp_path / "store.zarr"
    make_store(store, recipe)
    expected = "opened and printed" if mutation == "huge-shape" else "clean error"
    assert classify_store(store, reference=mutation == "huge-shape") == expected


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("length", [2**63, 10**30])
def test_an_axis_longer_than_numpy_can_index_is_refused_in_one_line(
    tmp_path: Path, fmt: int, length: int
) -> None:
    """A metadata document whose shape has an axis past 2**63 - 1: numpy's "Maximum allowed dimension
    exceeded", as one line naming the shape, when the store opens (it printed a raw OverflowError)."""
    recipe = {
        "fmt": fmt,
        "dtype": "<f8",
        "shape": (1,),
        "chunks": (1,),
        "codec": "gzip",
        "mutation": "field",
        "field": "shape",
        "value": length,
        "chunk": 0,
    }
    store = tmp_path / "store.zarr"
    make_store(store, recipe)
    try:
        opened = zarr.open_array(str(store), mode="r")
    except Exception:  # this zarr refuses the document itself: lazytensor must too, in one line
        assert classify_store(store, reference=False) == "clean error"
        return
    message = (
        f"an array of shape ({length},): axis 0 has {length} positions, "
        f"more than numpy can index ({2**63 - 1})"
    )
    with pytest.raises(ValueError) as caught:
        lt.from_array(opened)
    assert str(caught.value) == message
    with pytest.raises(ValueError) as caught:
        lt.open(store)
    assert str(caught.value) == f"{store}: {message}"
    assert classify_store(store, reference=False) == "clean error"


def test_a_decompression_bomb_within_the_file_limit_is_refused_before_inflating(tmp_path: Path) -> None:
    store = tmp_path / "bomb.zarr"
    build_store(
        store, 3, "<f8", (64, 64), (64, 64), "gzip"
    )  # a chunk holds 32 KiB: its file may hold 320 KiB
    chunk = chunk_files(store)[0]
    chunk.write_bytes(bomb(31))  # ~64 KiB that inflate to 64 MiB
    t = lt.open(store)
    with pytest.raises(ValueError) as caught:
        t[0, :3].tolist()
    assert_one_line(str(caught.value), str(store), "c/0/0", "inflates to more than")


def test_from_array_reads_a_local_zarr_array_through_the_safe_store(tmp_path: Path) -> None:
    store = tmp_path / "plain.zarr"
    build_store(store, 3, "<f8", (4, 4), (2, 2), "gzip")
    z = zarr.open_array(str(store), mode="r+")
    chunk = store / "c" / "0" / "0"
    chunk.unlink()
    os.mkfifo(chunk)  # zarr itself would block on it forever
    t = lt.from_array(z)
    t[2:] = 5.0  # writes reach the same files
    assert z[2:].tolist() == [[5.0] * 4] * 2 and t[2:, 1:3].tolist() == [[5.0] * 2] * 2
    with time_limit(20), pytest.raises(ValueError) as caught:
        str(t)
    assert_one_line(str(caught.value), f"{store}: key c/0/0: is a FIFO")


def test_a_zarr_chunk_larger_than_memory_is_a_memory_error_and_fill_values_still_read(tmp_path: Path) -> None:
    store = tmp_path / "wide.zarr"
    z = zarr.create_array(str(store), shape=(2**31,), chunks=(2**31,), dtype="<f8", fill_value=2.5)
    t = lt.open(store)
    assert t[-3:].tolist() == [2.5] * 3  # no chunk stored: the fill value, nothing decoded
    (store / "c").mkdir()
    (store / "c" / "0").write_bytes(b"\0" * 64)  # a stored chunk would decode to 16 GiB
    with time_limit(20), pytest.raises(MemoryError) as caught:
        t[:3].tolist()
    assert_one_line(
        str(caught.value), f"{store}: key c/0: a chunk of this array decodes to 17,179,869,184 bytes"
    )
    assert z.shape == (2**31,)


@pytest.mark.parametrize("fmt", [2, 3])
def test_operations_through_dask_on_a_bad_chunk_fail_in_one_line(tmp_path: Path, fmt: int) -> None:
    store = tmp_path / "bad.zarr"
    build_store(store, fmt, "<f8", (4, 4), (2, 2), "gzip")
    chunk_files(store)[0].write_bytes(b"garbage, not gzip")
    t = lt.open(store)
    for operation in (t.sum, t.stats, lambda: (t + 1).tolist()):
        with time_limit(20), pytest.raises(ValueError) as caught:
            operation()
        assert_one_line(str(caught.value), str(store), "BadGzipFile")


@pytest.mark.parametrize("fmt", [2, 3])
def test_metadata_zarr_refuses_is_one_line_naming_the_document(tmp_path: Path, fmt: int) -> None:
    store = tmp_path / "meta.zarr"
    build_store(store, fmt, "<f8", (3,), (2,), "none")
    key = zarr_metadata_name(store)
    document = json.loads((store / key).read_text())
    document["data_type" if fmt == 3 else "dtype"] = "<f99"
    (store / key).write_text(json.dumps(document))
    with pytest.raises(ValueError) as caught:
        lt.open(store)
    assert_one_line(str(caught.value), f"{store}: key {key}: not an array zarr can open")


CLI_KINDS = ["none", "fifo-chunk", "device-metadata", "bomb", "chunk-bytes", "huge-shape"]


@pytest.mark.parametrize("command", ["show", "repl"])
def test_the_cli_on_hostile_zarr_stores_prints_or_fails_in_one_line(tmp_path: Path, command: str) -> None:
    stores = []
    for number, mutation in enumerate(CLI_KINDS):
        recipe = {
            "fmt": 3 - number % 2,
            "dtype": "<i4",
            "shape": (3, 5),
            "chunks": (2, 2),
            "codec": "gzip",
            "mutation": mutation,
            "chunk": 1,
            "edit": "garbage",
            "position": 7,
            "byte": 0,
        }
        stores.append(tmp_path / f"{mutation}.zarr")
        make_store(stores[-1], recipe)
    for store in stores:
        done = subprocess.run(
            [sys.executable, "-m", "lazytensor", command, str(store)],
            input="t.shape\n",  # the repl starts (its banner summarises t); showing values is test_fuzz_cli's
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "Traceback" not in done.stdout + done.stderr, (store, done.stdout, done.stderr)
        if done.returncode == 2:
            assert_one_line(done.stderr, str(store))
        else:
            assert done.returncode == 0, (store, done.stderr)


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

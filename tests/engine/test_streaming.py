"""Reductions that stream: on zarr, HDF5 and bare array-like bases, and on views over them, every
streamed reduction equals numpy's (values, dtype, shape, errors), reads each stored chunk at most
once, holds a bounded amount of memory, and logs its progress when stderr is not a terminal.

Reaches into `lazytensor.engine.streaming` and `lazytensor.ground.progress`: the block size and the
progress delays are made small, so small tensors stream through many blocks and log at once.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
import xarray as xr
import zarr
from bases_support import Plain
from hypothesis import given, settings
from hypothesis import strategies as st
from store_support import CountingStore

import lazytensor as lt
from lazytensor.engine import streaming
from lazytensor.ground import progress

REDUCTIONS = sorted(streaming.STREAMED)
BASES = ("zarr", "h5py", "xarray", "getitem", "mmap")
TESTS = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def blocks_of(nbytes: int) -> Iterator[None]:
    """Streamed reductions read blocks of at most `nbytes` (unless a chunk is bigger)."""
    before = streaming.BLOCK_BYTES, streaming.MAPPED_BYTES
    streaming.BLOCK_BYTES, streaming.MAPPED_BYTES = nbytes, 0  # every memory map streams too
    try:
        yield
    finally:
        streaming.BLOCK_BYTES, streaming.MAPPED_BYTES = before


def on(kind: str, values: np.ndarray, chunks: tuple[int, ...], folder: Path, store: Any = None) -> Any:
    """A tensor of `values` on a base of `kind`, stored in `chunks`."""
    if kind == "zarr":
        array = zarr.create_array(
            store={} if store is None else store, shape=values.shape, chunks=chunks, dtype=values.dtype
        )
        array[...] = values
        return lt.from_array(array)
    if kind == "h5py":
        file = h5py.File(folder / f"a{len(list(folder.iterdir()))}.h5", "w")
        chunked = values.ndim > 0 and values.size > 0
        file.create_dataset("data", data=values, chunks=chunks if chunked else None)
        return lt.from_array(file["data"])
    if kind == "xarray":
        path = folder / f"a{len(list(folder.iterdir()))}.nc"
        xr.DataArray(values, name="data").to_netcdf(path, engine="h5netcdf")
        return lt.from_array(xr.open_dataarray(path, engine="h5netcdf", cache=False))
    if kind == "mmap":
        path = folder / f"a{len(list(folder.iterdir()))}.npy"
        lt.save(path, lt.tensor(values))
        return lt.load(path)
    return lt.from_array(Plain(values.copy(), chunks))


def numpys(name: str, values: np.ndarray, params: dict[str, Any]) -> Any:
    """numpy's answer (argmax/argmin over several axes count through them together, row-major)."""
    axis = params.get("axis")
    if name in ("argmax", "argmin") and (axis is None or isinstance(axis, tuple)):
        axes = tuple(range(values.ndim)) if axis is None else tuple(a % values.ndim for a in axis)
        kept = [a for a in range(values.ndim) if a not in axes]
        reduced = math.prod(values.shape[a] for a in axes)  # not -1: numpy cannot infer it beside a 0
        rows = values.transpose((*kept, *sorted(axes))).reshape((*(values.shape[a] for a in kept), reduced))
        found = getattr(np, name)(rows, axis=-1)
        if params.get("keepdims"):
            found = found.reshape(tuple(1 if a in axes else n for a, n in enumerate(values.shape)))
        return found
    return getattr(np, name)(values, **params)


def assert_same(got: Any, expected: Any, values: np.ndarray) -> None:
    expected = np.asarray(expected)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    if expected.dtype.kind in "fc":
        tolerance = 1e-4 if expected.dtype.itemsize <= 4 or values.dtype.itemsize <= 4 else 1e-9
        np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


@st.composite
def cases(draw: st.DrawFn) -> tuple[np.ndarray, tuple[int, ...], str, dict[str, Any], str]:
    """Values (with NaNs and infinities for floats), chunks, a reduction, numpy's keywords, a view."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=3)))
    dtype = draw(st.sampled_from(["float64", "float32", "int16", "uint8", "bool"]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 3, size=shape).astype(dtype) if dtype != "bool" else rng.random(shape) < 0.5
    values = np.asarray(values)
    if values.dtype.kind == "f" and values.size and draw(st.booleans()):
        picks = rng.integers(0, values.size, size=max(1, values.size // 6))
        values.reshape(-1)[picks] = rng.choice([np.nan, np.inf, -np.inf, 0.0], size=len(picks))
    if dtype.startswith("int") or dtype.startswith("uint"):
        values = np.round(values).astype(dtype)  # small ints: ties are common
    chunks = tuple(draw(st.integers(1, max(1, n))) for n in shape)
    name = draw(st.sampled_from(REDUCTIONS))
    params: dict[str, Any] = {}
    if shape:
        axes = draw(
            st.none()
            | st.integers(-len(shape), len(shape) - 1)
            | st.lists(st.integers(0, len(shape) - 1), unique=True, min_size=1).map(
                lambda a: tuple(x - len(shape) if draw(st.booleans()) else x for x in a)
            )
        )
        if axes is not None:
            params["axis"] = axes
    if draw(st.booleans()):
        params["keepdims"] = True
    if name in ("sum", "nansum", "mean", "nanmean", "prod") and draw(st.booleans()):
        params["dtype"] = draw(
            st.sampled_from(
                ["float64", "float32", "int64"] if name.endswith("sum") else ["float64", "float32"]
            )
        )
    if name in ("var", "std") and draw(st.booleans()):
        params["ddof"] = draw(st.sampled_from([1, 2]))
    view = draw(st.sampled_from(["none", "transpose", "flip", "slice", "expand", "flat transpose", "gather"]))
    return values, chunks, name, params, view


def viewed(t: Any, values: np.ndarray, view: str) -> tuple[Any, np.ndarray]:
    """The same view of the tensor and of its values."""
    if view == "transpose" or values.ndim == 0:
        return t.T, values.T
    if view == "flip":
        return t[::-1], values[::-1]
    if view == "slice":
        return t[1::2], values[1::2]
    if view == "expand":
        shape = (3, *values.shape)
        return t.expand(*shape), np.broadcast_to(values, shape)
    if view == "flat transpose":  # no strided layout: the transpose's rows run across the base's
        rows = values.shape[-1] if values.size else 1
        return t.T.reshape(rows, -1), values.T.reshape(rows, -1)
    if view == "gather":  # repeats and skips rows: no strided layout either
        picks = [n % len(values) for n in (2, 0, 0, 1, -1)] if len(values) else []
        return t[picks], values[picks]
    return t, values


@pytest.mark.parametrize("kind", BASES)
@settings(max_examples=60, deadline=None)
@given(case=cases(), block=st.sampled_from([1, 16, 64, 1 << 20]))
def test_streamed_reductions_equal_numpys(kind: str, case: Any, block: int) -> None:
    values, chunks, name, params, view = case
    with tempfile.TemporaryDirectory() as folder:
        t, expected_values = viewed(on(kind, values, chunks, Path(folder)), values, view)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = numpys(name, expected_values, params)
            except (ValueError, TypeError) as error:
                with blocks_of(block), pytest.raises(type(error)):
                    getattr(t, name)(**params)
                return
            with blocks_of(block):
                got = getattr(t, name)(**params).numpy()
        assert_same(got, expected, expected_values)


@pytest.mark.parametrize(
    ("name", "axis", "view"),
    [
        ("sum", None, "none"),
        ("std", 0, "none"),
        ("mean", (0, 2), "transpose"),
        ("argmax", None, "flip"),
        ("max", -1, "slice"),
        ("var", 1, "transpose"),
        ("sum", None, "flat transpose"),
        ("nanmax", None, "flat transpose"),
        ("std", (0, 1), "flat transpose"),
    ],
)
def test_each_chunk_is_read_at_most_once(name: str, axis: Any, view: str) -> None:
    store = CountingStore()
    values = np.random.default_rng(1).normal(size=(13, 10, 7))
    t = on("zarr", values, (4, 3, 5), Path("."), store)
    store.chunk_reads.clear()
    t, expected_values = viewed(t, values, view)
    with blocks_of(8 * 60):
        got = getattr(t, name)(axis=axis).numpy()
    assert_same(got, numpys(name, expected_values, {"axis": axis}), expected_values)
    assert len(store.chunk_reads) == len(set(store.chunk_reads)) > 1


def test_in_memory_tensors_keep_their_path(tmp_path: Path) -> None:
    assert not streaming.streams("sum", lt.zeros(10))
    assert not streaming.streams("sum", on("mmap", np.zeros(10), (10,), tmp_path))  # a small memory map
    with blocks_of(64):
        assert streaming.streams("sum", on("mmap", np.zeros(10), (10,), tmp_path))
    assert not streaming.streams("cumsum", lt.from_array(np.zeros(3)))
    assert streaming.streams("sum", lt.from_array(np.zeros(3)))


def test_progress_is_logged_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    stderr = io.StringIO()  # not a terminal
    monkeypatch.setattr(sys, "stderr", stderr)
    t = on("zarr", np.arange(1000.0).reshape(100, 10), (10, 10), Path("."))
    with blocks_of(800):
        assert t.sum().item() == np.arange(1000.0).sum()
    lines = stderr.getvalue().splitlines()
    assert lines[0].startswith("lazytensor: sum of a zarr tensor of shape (100, 10) (float64): 1/10 blocks")
    assert lines[-1].endswith(", done")
    stderr.truncate(0)
    previous = progress.set_enabled(False)
    try:
        with blocks_of(800):
            t.sum()
    finally:
        progress.set_enabled(previous)
    assert stderr.getvalue() == ""
    monkeypatch.setenv("LAZYTENSOR_PROGRESS", "0")
    with blocks_of(800):
        t.max()
    assert stderr.getvalue() == ""


MEMORY_SCRIPT = """
import sys
import numpy as np
import zarr
import lazytensor as lt
from memory_support import peak_bytes

path, expression = sys.argv[1], sys.argv[2]
t = lt.open(path)
out = path + ".out.zarr"
print(peak_bytes(lambda: eval(expression)))
"""


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A zarr store of 200 MB of float32 (5·10⁷ values in 4 MB chunks)."""
    path = tmp_path_factory.mktemp("big") / "big.zarr"
    array = zarr.create_array(path, shape=(5000, 10000), chunks=(100, 10000), dtype="float32")
    rng = np.random.default_rng(0)
    for start in range(0, 5000, 500):
        array[start : start + 500] = rng.standard_normal((500, 10000), dtype=np.float32)
    return path


@pytest.mark.parametrize(
    "expression",
    [
        "t.sum()",
        "t.std(axis=0)",
        "t.argmax()",
        "t.mean(axis=1)",
        "(t - t.mean(0)).std(0)",  # the mean, then a computed tensor's deviations streamed
        "np.log(abs(t * 2) + 1).max(axis=1)",
        "lt.save(out, np.log(abs(t) + 1))",  # written block by block, never held
    ],
)
def test_memory_stays_far_below_the_array(big_store: Path, expression: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    script = textwrap.dedent(MEMORY_SCRIPT)
    run = subprocess.run(
        [sys.executable, "-c", script, str(big_store), expression],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    shutil.rmtree(f"{big_store}.out.zarr", ignore_errors=True)
    peak = int(run.stdout.split()[-1])
    print(expression, peak)
    bound = 5 * streaming.BLOCK_BYTES  # a few blocks: the one read, zarr's chunks of it, a float64 copy
    assert peak < min(bound, 200e6 / 2), f"{expression} peaked at {peak / 1e6:.0f} MB of a 200 MB array"


class Computed:
    """An array-like whose values are computed from another's when read (what a computed tensor
    stands on): `np.exp` of a stored array, in declared chunks, counting the values it computes."""

    def __init__(self, source: np.ndarray, chunks: tuple[int, ...]) -> None:
        self.source = source
        self.shape = source.shape
        self.dtype = source.dtype
        self.chunks = chunks
        self.computed = 0

    def __getitem__(self, key: Any) -> np.ndarray:
        values = np.exp(self.source[key])
        self.computed += values.size
        return values


@pytest.mark.parametrize("name", ["sum", "std", "argmin", "nanmax"])
def test_reductions_stream_over_a_computed_array_like(name: str) -> None:
    source = np.random.default_rng(2).normal(size=(40, 30))
    computed = Computed(source, (7, 30))
    t = lt.from_array(computed)
    with blocks_of(8 * 7 * 30):
        got = getattr(t.T, name)(axis=1).numpy()
    expected = numpys(name, np.exp(source).T, {"axis": 1})
    assert_same(got, expected, source)
    assert computed.computed == source.size  # every value computed once, a block at a time

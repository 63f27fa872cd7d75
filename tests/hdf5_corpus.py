"""Hostile HDF5 and netCDF files for the fuzz tests and `scripts/fuzz_outcomes.py`.

`hostile_files()` draws a recipe (a valid file, then one mutation: bit flips in its metadata, a cut,
external storage on `/etc/passwd`, a secret file, a FIFO or `/dev/zero`, a virtual dataset or an
external link to another file, a decompression bomb, two compressors, a corrupt chunk, a FIFO in the
file's place, a subarray dtype, an empty dataspace, a huge declared dataset read strided);
`make_file` writes it; `classify_file` opens, prints and reads it with lazytensor in a child process
(HDF5's C loops ignore signals, and a damaged file may crash the library), killed past a time limit.
"""

from __future__ import annotations

import multiprocessing
import os
import zlib
from pathlib import Path
from typing import Any

import h5netcdf
import h5py
import numpy as np
from fuzz_support import OUTCOMES
from hypothesis import strategies as st

SECRET = b"lazytensor-fuzz-secret:" + bytes(range(65, 91)) * 3
"""The bytes of the file outside every HDF5 file that external storage and virtual datasets point at."""
PASSWD_HEAD = Path("/etc/passwd").read_bytes()[:12] if Path("/etc/passwd").is_file() else SECRET
HDF5_OUTCOMES = (*OUTCOMES, "foreign bytes read", "crash")
MUTATIONS = (
    "valid",
    "bit flips",
    "cut",
    "external storage",
    "virtual dataset",
    "external link",
    "bomb",
    "inflating chunk",
    "two compressors",
    "corrupt chunk",
    "fifo",
    "subarray",
    "empty",
    "huge strided",
)
NETCDF_MUTATIONS = ("valid", "bit flips", "cut", "external storage", "external link", "corrupt chunk", "fifo")
TARGETS = ("secret", "passwd", "fifo", "zero")
DTYPES = ("<f8", ">i4", "|u1", "|b1", "<c8", "|S3", "<f2")


@st.composite
def hostile_files(draw: st.DrawFn, netcdf: bool = False) -> dict[str, Any]:
    """A recipe for one hostile HDF5 (or netCDF-4) file: its valid start, then one mutation."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim)))
    return {
        "netcdf": netcdf,
        "mutation": draw(st.sampled_from(NETCDF_MUTATIONS if netcdf else MUTATIONS)),
        "dtype": draw(st.sampled_from(DTYPES[:3] if netcdf else DTYPES)),
        "shape": shape,
        "chunks": tuple(draw(st.integers(1, n)) for n in shape),
        "compression": draw(st.sampled_from([None, "gzip", "lzf"])),
        "shuffle": draw(st.booleans()),
        "target": draw(st.sampled_from(TARGETS)),
        "flips": draw(
            st.lists(
                st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=8
            )
        ),
        "cut": draw(st.floats(0.05, 0.95)),
    }


def _values(recipe: dict[str, Any]) -> np.ndarray:
    dtype = np.dtype(recipe["dtype"])
    raw = np.arange(int(np.prod(recipe["shape"]))).reshape(recipe["shape"]) % 7
    return raw.astype(str).astype(dtype) if dtype.kind == "S" else raw.astype(dtype)


def _outside(folder: Path, target: str) -> tuple[str, int]:
    """A file outside the HDF5 file, and how many bytes of it to point at."""
    if target == "passwd":
        return "/etc/passwd", len(PASSWD_HEAD)
    if target == "zero":
        return "/dev/zero", 1 << 20
    if target == "fifo":
        fifo = folder / "pipe"
        if not fifo.exists():
            os.mkfifo(fifo)
        return str(fifo), 64
    secret = folder / "secret.bin"
    secret.write_bytes(SECRET)
    return str(secret), len(SECRET)


def _valid(path: Path, recipe: dict[str, Any]) -> None:
    values = _values(recipe)
    options: dict[str, Any] = {"chunks": recipe["chunks"], "shuffle": recipe["shuffle"]}
    if recipe["compression"] is not None and not recipe["netcdf"]:
        options["compression"] = recipe["compression"]
    if recipe["netcdf"]:
        with h5netcdf.File(path, "w") as f:
            f.dimensions = {f"d{i}": n for i, n in enumerate(values.shape)}
            v = f.create_variable(
                "v", tuple(f.dimensions), values.dtype, chunks=recipe["chunks"], compression="gzip"
            )
            v[...] = values
        return
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=values, **options)


def make_file(folder: Path, recipe: dict[str, Any]) -> tuple[Path, str]:
    """Write the recipe's file in `folder`: its path and the key `lt.open` is given."""
    suffix = ".nc" if recipe["netcdf"] else ".h5"
    key = "v" if recipe["netcdf"] else "x"
    path = folder / f"fuzz{suffix}"
    mutation = recipe["mutation"]
    if mutation == "fifo":
        os.mkfifo(path)
        return path, key
    _valid(path, recipe)
    if mutation in ("bit flips", "cut"):
        data = bytearray(path.read_bytes())
        if mutation == "cut":
            del data[int(len(data) * recipe["cut"]) :]
        for where, xor in recipe["flips"] if mutation == "bit flips" else ():
            data[int(where * len(data))] ^= xor
        path.write_bytes(bytes(data))
    elif mutation in ("external storage", "virtual dataset", "external link"):
        _point_outside(folder, path, recipe, key)
    else:
        _odd_dataset(path, recipe, key)
    return path, key


def _point_outside(folder: Path, path: Path, recipe: dict[str, Any], key: str) -> None:
    target, size = _outside(folder, recipe["target"])
    with h5py.File(path, "a") as f:
        if recipe["mutation"] == "external storage":
            name = "leak" if recipe["netcdf"] else key
            if name in f:
                del f[name]
            f.create_dataset(name, shape=(size,), dtype="u1", external=[(target, 0, size)])
        elif recipe["mutation"] == "virtual dataset":
            source = folder / "source.h5"
            with h5py.File(source, "w") as s:
                s.create_dataset("s", shape=(size,), dtype="u1", external=[(target, 0, size)])
            layout = h5py.VirtualLayout(shape=(size,), dtype="u1")
            layout[:] = h5py.VirtualSource(str(source), "s", shape=(size,))
            del f[key]
            f.create_virtual_dataset(key, layout)
        else:
            name = "far" if recipe["netcdf"] else key
            if name in f:
                del f[name]
            f[name] = h5py.ExternalLink(target, "/s")


def _odd_dataset(path: Path, recipe: dict[str, Any], key: str) -> None:
    mutation = recipe["mutation"]
    if mutation == "corrupt chunk":  # the first chunk's stored bytes scrambled in place
        with h5py.File(path, "r") as f:
            info = f[key].id.get_chunk_info(0)
        data = bytearray(path.read_bytes())
        for at in range(info.byte_offset, info.byte_offset + info.size):
            data[at] ^= 0x5A
        path.write_bytes(bytes(data))
        return
    with h5py.File(path, "a") as f:
        if mutation == "valid":
            return
        del f[key]
        if mutation == "bomb":  # one chunk of 1 GiB: a few KB on disk
            ds = f.create_dataset(key, shape=(1 << 30,), chunks=(1 << 30,), dtype="u1", compression="gzip")
            ds.id.write_direct_chunk((0,), zlib.compress(b"\0" * (1 << 20), 9))
        elif mutation == "inflating chunk":  # a 1 KB chunk whose stream inflates to 16 MiB
            ds = f.create_dataset(key, shape=(1024,), chunks=(1024,), dtype="u1", compression="gzip")
            ds.id.write_direct_chunk((0,), zlib.compress(b"\0" * (16 << 20), 9))
        elif mutation == "two compressors":
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk((4,))
            dcpl.set_deflate(1)
            dcpl.set_deflate(9)
            h5py.h5d.create(
                f.id, key.encode(), h5py.h5t.NATIVE_INT32, h5py.h5s.create_simple((8,)), dcpl=dcpl
            )
        elif mutation == "subarray":
            f.create_dataset(key, shape=recipe["shape"], dtype=np.dtype(("i4", (2,))))
        elif mutation == "empty":
            f.create_dataset(key, data=h5py.Empty("f4"))
        elif mutation == "huge strided":
            f.create_dataset(key, shape=(2**40, 2**4), chunks=(2, 2), dtype="f8", fillvalue=0.5)


# -- opening, printing and reading one file, in a child process ---------------------------------------


def _read(t: Any) -> np.ndarray:
    """All of a small tensor; a strided sample and the last element of a large one."""
    if t.size <= 1 << 20:
        return np.asarray(t.numpy())
    sample = t[tuple(slice(None, None, max(1, n // 3)) for n in t.shape)].numpy()
    return np.concatenate(
        [np.asarray(sample).reshape(-1), np.asarray(t[(slice(-1, None),) * t.ndim].numpy()).reshape(-1)]
    )


def _child(path: str, key: str, valid: bool, conn: Any) -> None:
    """Open, print and read `path` with lazytensor; send back (outcome, detail)."""
    import warnings

    import lazytensor as lt

    warnings.simplefilter("ignore")
    outcome, detail = "opened and printed", ""
    try:
        t = lt.open(path, key, mode="r")
        seen = str(t).encode("utf-8", "replace") + _read(t).tobytes()
        if SECRET[:16] in seen or PASSWD_HEAD in seen:
            outcome = "foreign bytes read"
        elif valid:
            with h5py.File(path, "r") as f:
                expected = f[key][...]
            if not np.array_equal(t.numpy(), expected):
                outcome = "wrong result"
    except (ValueError, OSError, KeyError, MemoryError) as error:
        message = str(error)
        if message and "\n" not in message.strip() and path in message:
            outcome = "clean error"
        else:
            outcome, detail = "raw traceback", f"{type(error).__name__}: {message[:300]}"
    except Exception as error:
        outcome, detail = "raw traceback", f"{type(error).__name__}: {str(error)[:300]}"
    conn.send((outcome, detail))
    conn.close()


def _context() -> Any:
    """A forkserver: children forked from a fresh process with lazytensor and h5py loaded (this process
    may run threads, which fork copies badly), each in well under a second."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["lazytensor", "h5py", "hdf5_corpus"])
    return context


def classify_file(path: Path, key: str, recipe: dict[str, Any], seconds: float = 20) -> tuple[str, str]:
    """One of HDF5_OUTCOMES for `lt.open(path, key)`, a print and a read, and what went wrong; a child
    still running after `seconds` is killed (a hang), one killed by a signal is a crash."""
    context = _context()
    ours, theirs = context.Pipe(duplex=False)
    valid = recipe["mutation"] == "valid"
    child = context.Process(target=_child, args=(str(path), key, valid, theirs), daemon=True)
    child.start()
    theirs.close()
    if not ours.poll(seconds):
        child.kill()
        child.join()
        return ("crash", f"exit {child.exitcode}") if child.exitcode not in (None, -9) else ("hang", "")
    try:
        result: tuple[str, str] = ours.recv()
    except EOFError:
        result = ("crash", "no answer")
    child.join()
    if child.exitcode and child.exitcode < 0:
        return "crash", f"signal {-child.exitcode}"
    return result

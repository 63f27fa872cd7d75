"""Local zarr stores read as carefully as `.npy` files: one error path for every hostile store.

A zarr store is a folder of small files, and any of them may be a FIFO (reading it blocks
forever), a link to `/dev/zero` (it never ends), a huge file, or a compressed chunk that
inflates to gigabytes. `SafeLocalStore` is zarr's `LocalStore` that reads only regular files,
never more bytes than a metadata document or a chunk can need, and checks what a compressed
chunk says it inflates to before zarr decodes it. `lazytensor.bases.zarrreads` turns whatever zarr or a
codec raises on a read into one line naming the store and the key. zarr is optional: it is
imported when a store is opened.
"""

from __future__ import annotations

import asyncio
import atexit
import bz2
import contextlib
import dataclasses
import functools
import importlib
import json
import lzma
import math
import os
import stat
import zlib
from typing import Any

import numpy as np

from lazytensor.ground.filekinds import file_kind

MAX_METADATA_BYTES = 16 << 20
"""A metadata document (`zarr.json`, `.zarray`, ...) larger than this is refused unread."""
MAX_CHUNK_FILE_BYTES = 1 << 30
"""A chunk (or shard) file larger than this is refused unread, whatever the array says; so is any
chunk of an array whose chunks decode to more (MemoryError)."""
ENCODED_SLACK = 8
"""How much larger than its decoded size a chunk's encoded or inflated bytes may be (a filter
such as `astype` can widen them); past that, a file or stream is refused unread."""
SLACK_BYTES = 1 << 16
METADATA_NAMES = ("zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata")
SETTLE_SECONDS = 2.0
"""How long a failed read waits for zarr's other requests of it to finish."""


class StoreError(ValueError):
    """A store that cannot be read as a zarr array: the one-line message names the store and key."""


def shown(path: Any) -> str:
    """`path` as an error message shows it: control characters (a newline, a terminal escape) and
    bytes that are not text escaped, so the message stays one line and prints only text.

    >>> print(shown("runs/a\\nb.zarr"))
    runs/a\\nb.zarr
    """
    text = os.fsdecode(os.fspath(path)) if isinstance(path, bytes | os.PathLike) else str(path)
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _is_metadata(key: str) -> bool:
    return key.rsplit("/", 1)[-1] in METADATA_NAMES


def _byte_span(byte_range: Any, size: int) -> tuple[int, int]:
    """The [start, stop) bytes of a file of `size` that zarr's byte request asks for."""
    if byte_range is None:
        return 0, size
    if hasattr(byte_range, "end"):
        return min(byte_range.start, size), min(byte_range.end, size)
    if hasattr(byte_range, "offset"):
        return min(byte_range.offset, size), size
    return max(0, size - byte_range.suffix), size


# -- what a compressed chunk inflates to, asked before it is decoded ---------------------------------


def _stream_size(data: bytes, make: Any, bound: int) -> int:
    """The bytes the (possibly concatenated) streams in `data` inflate to, counted up to `bound + 1`."""
    total = 0
    rest = data
    while rest and total <= bound:
        decompressor = make()
        try:
            total += len(decompressor.decompress(rest, bound + 1 - total))
        except (OSError, ValueError, EOFError, lzma.LZMAError, zlib.error):
            return total  # not such a stream: the codec will say so
        if total > bound or not decompressor.eof:  # past the bound, or a cut stream the codec refuses
            return total
        rest = decompressor.unused_data
    return total


def _zstd_size(data: bytes) -> int | None:
    """The content size a zstd frame header declares, or None."""
    if len(data) < 6 or data[:4] != b"\x28\xb5\x2f\xfd":
        return None
    descriptor = data[4]
    single_segment = descriptor >> 5 & 1
    field = {0: single_segment, 1: 2, 2: 4, 3: 8}[descriptor >> 6]
    if not field:
        return None
    start = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 3]
    value = int.from_bytes(data[start : start + field], "little")
    return value + 256 if field == 2 else value


def _declared_size(data: bytes, codec: str, bound: int) -> int | None:
    """What `data` inflates to under `codec` (counted or as its header declares), or None."""
    if codec in ("zlib", "numcodecs.zlib"):
        return _stream_size(data, zlib.decompressobj, bound)
    if codec in ("gzip", "numcodecs.gzip"):
        return _stream_size(data, functools.partial(zlib.decompressobj, wbits=31), bound)
    if codec in ("bz2", "numcodecs.bz2"):
        return _stream_size(data, bz2.BZ2Decompressor, bound)
    if codec in ("lzma", "numcodecs.lzma"):
        return _stream_size(data, lzma.LZMADecompressor, bound)
    if codec in ("zstd", "numcodecs.zstd"):
        return _zstd_size(data)
    if codec in ("blosc", "numcodecs.blosc") and len(data) >= 16:
        return int.from_bytes(data[4:8], "little")
    if codec in ("lz4", "numcodecs.lz4") and len(data) >= 4:
        return int.from_bytes(data[:4], "little")
    return None


def _codec_names(document: Any) -> set[str]:
    """Every codec named in an array's metadata (v2 compressor and filters, v3 codecs, nested)."""
    names: set[str] = set()
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key in ("name", "id"):
                if isinstance(item.get(key), str):
                    names.add(item[key])
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return names


# -- the store ------------------------------------------------------------------------------------


class Limits:
    """What one array's chunks may hold: their decoded bytes, and the codecs that compress them."""

    def __init__(self, decoded: int = MAX_CHUNK_FILE_BYTES, file: int = MAX_CHUNK_FILE_BYTES) -> None:
        self.decoded = decoded
        self.file = file
        self.codecs: set[str] = set()


def read_key(root: str, key: str, byte_range: Any, limits: Limits) -> bytes | None:
    """The bytes of `key` under `root` (None when there is none), refusing what is not a regular
    file and anything larger than the key can need."""
    path = os.path.join(root, key)
    where = f"{shown(root)}: key {shown(key)}"
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise StoreError(f"{where}: cannot be read ({error.strerror or error})") from None
    if stat.S_ISDIR(mode):
        return None
    if not stat.S_ISREG(mode):
        raise StoreError(f"{where}: is {file_kind(mode)}, not a file")
    try:  # O_NONBLOCK: should it turn into a FIFO after the stat, opening must not wait
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise StoreError(f"{where}: cannot be read ({error.strerror or error})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{where}: is not a regular file")
        metadata = _is_metadata(key)
        if not metadata and limits.decoded > MAX_CHUNK_FILE_BYTES:
            raise MemoryError(
                f"{where}: a chunk of this array decodes to {limits.decoded:,} bytes; at most "
                f"{MAX_CHUNK_FILE_BYTES:,} are read at once"
            )
        limit = MAX_METADATA_BYTES if metadata else limits.file
        start, stop = _byte_span(byte_range, info.st_size)
        if stop - start > limit:
            what = "metadata document" if metadata else "chunk of this array"
            raise StoreError(f"{where}: holds {stop - start:,} bytes; a {what} needs at most {limit:,}")
        data = os.pread(fd, stop - start, start)
    finally:
        os.close(fd)
    if not metadata:
        _check_inflation(where, data, limits)
    return data


def _check_inflation(where: str, data: bytes, limits: Limits) -> None:
    bound = ENCODED_SLACK * limits.decoded + SLACK_BYTES
    if limits.codecs & {"blosc", "numcodecs.blosc"} and data:
        # blosc decodes a cut buffer into uninitialised memory, silently: refuse it here
        held = int.from_bytes(data[12:16], "little") if len(data) >= 16 else None
        if held is None or held > len(data):
            raise StoreError(
                f"{where}: its blosc data is cut ({len(data):,} bytes; its header says {held or 16:,})"
            )
    for codec in limits.codecs:
        size = _declared_size(data, codec, bound)
        if size is not None and size > bound:
            raise StoreError(
                f"{where}: its {codec} data inflates to more than {bound:,} bytes; a chunk of this "
                f"array holds {limits.decoded:,} (a decompression bomb?)"
            )


async def _others_done() -> None:
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    if others:
        await asyncio.wait(others, timeout=SETTLE_SECONDS)


def _settle() -> None:
    """Let zarr's event loop finish the reads a failed request left running (its other chunks) before
    the process exits: else Python prints "Task was destroyed but it is pending!" for each."""
    with contextlib.suppress(Exception):
        importlib.import_module("zarr.core.sync").sync(_others_done())


def settle() -> None:
    """Wait (at most SETTLE_SECONDS) for the requests zarr's event loop still runs, such as the chunk
    writes of a save interrupted in the middle of one, so that what they write can then be removed."""
    _settle()


@functools.cache
def _settle_at_exit() -> None:
    atexit.register(_settle)


@functools.cache
def _store_class() -> type[Any]:
    """zarr's LocalStore, made safe (built on first use: zarr is optional)."""
    storage = importlib.import_module("zarr.storage")
    buffers = importlib.import_module("zarr.core.buffer")

    class SafeLocalStore(storage.LocalStore):  # type: ignore[misc, name-defined]
        """A local zarr store that reads regular files only, never more than a key can need."""

        limits: Limits

        def __init__(self, root: Any, *, read_only: bool = False) -> None:
            super().__init__(root, read_only=read_only)
            self.limits = Limits()

        def _read(self, key: str, prototype: Any, byte_range: Any) -> Any:
            data = read_key(str(self.root), key, byte_range, self.limits)
            if data is None:
                return None
            return (prototype or buffers.default_buffer_prototype()).buffer.from_bytes(data)

        def get_sync(self, key: str, *, prototype: Any = None, byte_range: Any = None) -> Any:
            self._ensure_open_sync()
            return self._read(key, prototype, byte_range)

        async def get(self, key: str, prototype: Any = None, byte_range: Any = None) -> Any:
            if not self._is_open:
                await self._open()
            return await asyncio.to_thread(self._read, key, prototype, byte_range)

        async def get_partial_values(self, prototype: Any, key_ranges: Any) -> list[Any]:
            return [await self.get(key, prototype, byte_range) for key, byte_range in key_ranges]

        def with_read_only(self, read_only: bool = False) -> Any:
            twin = type(self)(self.root, read_only=read_only)
            twin.limits = self.limits
            return twin

        def __reduce__(self) -> tuple[Any, ...]:
            """Pickle as the folder, the mode and the limits: the class is made on first use, so
            pickle cannot name it; unpickling makes the same safe store over the same folder."""
            return (_reopened_store, (str(self.root), bool(self.read_only), self.limits))

    return SafeLocalStore


def _reopened_store(root: str, read_only: bool, limits: Limits) -> Any:
    """The safe store a pickle of one holds: over `root`, in its mode, with its limits."""
    store = safe_store(root, read_only)
    store.limits = limits
    return store


def safe_store(root: str, read_only: bool) -> Any:
    """A zarr store over the local folder `root` that reads hostile files safely.

    >>> import tempfile, zarr
    >>> store = safe_store(tempfile.mkdtemp(), read_only=False)
    >>> z = zarr.create_array(store, shape=(4,), chunks=(2,), dtype="i4", fill_value=7)
    >>> type(store).__name__, z[:3].tolist()
    ('SafeLocalStore', [7, 7, 7])
    """
    store: Any = _store_class()(root, read_only=read_only)
    _settle_at_exit()
    return store


def _plain(value: Any) -> Any:
    """A codec of zarr's metadata as JSON values: its own dict (v3 `to_dict`, v2 numcodecs `get_config`);
    None for any other value that is not JSON (a data type object): it names no codec."""
    for name in ("to_dict", "get_config"):
        with contextlib.suppress(Exception):
            return getattr(value, name)()
    return None


def _fields_document(metadata: Any) -> Any:
    """An array's metadata (a dataclass) as JSON values field by field, all but the fill value."""
    fields = dataclasses.fields(metadata)
    values = {field.name: getattr(metadata, field.name) for field in fields if field.name != "fill_value"}
    return json.loads(json.dumps(values, default=_plain))


def _document(metadata: Any) -> Any:
    """An array's metadata as JSON values, for the names of its codecs: zarr's own dict or, where zarr
    cannot make one (a v3 bool array whose fill value is a list), `_fields_document`."""
    with contextlib.suppress(Exception):
        return json.loads(json.dumps(metadata.to_dict(), default=str))
    return _fields_document(metadata)


def fit_limits(array: Any) -> None:
    """Bound what the safe store under `array` reads per chunk by the array's own chunks and codecs."""
    store = getattr(array, "store", None)
    if not isinstance(store, _store_class()):
        return
    with contextlib.suppress(Exception):  # metadata zarr accepted but numpy cannot size: the defaults
        store.limits.codecs = _codec_names(_document(array.metadata))
        dtype = np.dtype(array.dtype)
        if dtype.itemsize == 0 or dtype.hasobject:
            return
        stored = math.prod(getattr(array, "shards", None) or array.chunks) * dtype.itemsize
        store.limits.decoded = math.prod(array.chunks) * dtype.itemsize
        store.limits.file = min(MAX_CHUNK_FILE_BYTES, ENCODED_SLACK * stored + SLACK_BYTES)


def open_array(path: str, mode: str, inside: str | None = None) -> Any:
    """The zarr array at the local `path` (or at `inside`, a path in the group there), through a safe store
    whose limits fit it.

    >>> import tempfile, zarr
    >>> folder = tempfile.mkdtemp()
    >>> _ = zarr.create_array(folder, shape=(3,), chunks=(2,), dtype="f8", fill_value=0.5)
    >>> open_array(folder, "r")[:].tolist()
    [0.5, 0.5, 0.5]
    """
    zarr = importlib.import_module("zarr")
    try:
        array = zarr.open_array(safe_store(path, read_only=mode == "r"), mode=mode, path=inside or "")
    except StoreError:
        raise
    except Exception as error:  # metadata zarr refuses: one line naming the document, when there is one
        key = next(
            (
                name
                for name in ("zarr.json", ".zarray")
                if os.path.isfile(os.path.join(path, inside or "", name))
            ),
            None,
        )
        if key is None:
            raise
        detail = shown(" ".join(str(error).split())) or type(error).__name__
        detail = detail if len(detail) <= 200 else detail[:200] + "…"
        raise StoreError(
            f"{shown(path)}: key {key}: not an array zarr can open ({type(error).__name__}: {detail})"
        ) from None
    refuse_empty_chunks(array, shown(path))
    fit_limits(array)
    return array


def refuse_empty_chunks(array: Any, where: str) -> None:
    """StoreError naming `where` for a chunk shape with a 0 along an axis that holds elements: zarr
    accepts the metadata but divides by the chunk size on every read of it. Along an empty axis a
    chunk of 0 is harmless (there is nothing to read), as zarr finds.

    >>> import zarr
    >>> refuse_empty_chunks(zarr.create_array({}, shape=(0, 4), chunks=(0, 2), dtype="i1"), "z")
    >>> full = zarr.create_array({}, shape=(3, 4), chunks=(0, 2), dtype="i1")
    >>> refuse_empty_chunks(full, "z")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lazytensor.bases.zarrstore.StoreError: z: chunk shape (0, 2) has size 0 along axis 0 (of length 3): ...
    """
    chunks = tuple(getattr(array, "chunks", ()) or ())
    for axis, (chunk, length) in enumerate(zip(chunks, array.shape, strict=False)):
        if chunk == 0 and length > 0:
            raise StoreError(
                f"{where}: chunk shape {chunks} has size 0 along axis {axis} (of length {length}): zarr "
                "cannot read its chunks"
            )


def reopening(array: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """How to open `array` again, for pickle: `open_array` and its arguments (the store's folder, the
    mode, the array's path in it) for an array over a safe store; None for any other.

    >>> import tempfile, zarr
    >>> folder = tempfile.mkdtemp()
    >>> _ = zarr.create_array(folder, shape=(2,), chunks=(1,), dtype="i1", fill_value=3)
    >>> opener, arguments = reopening(open_array(folder, "r"))
    >>> opener(*arguments)[:].tolist(), arguments[1:]
    ([3, 3], ('r', None))
    """
    store = getattr(array, "store", None)
    if not isinstance(store, _store_class()):
        return None
    return open_array, (str(store.root), "r" if store.read_only else "r+", getattr(array, "path", "") or None)


def guarded(array: Any) -> Any:
    """`array` itself, or, for a zarr array over zarr's plain local store, the same array over a safe
    store (so `lt.from_array(zarr.open_array(path))` reads as carefully as `lt.open(path)`).

    >>> import tempfile, zarr
    >>> z = zarr.create_array(tempfile.mkdtemp(), shape=(2,), chunks=(1,), dtype="i1", fill_value=1)
    >>> type(guarded(z).store).__name__, guarded(z)[:].tolist()
    ('SafeLocalStore', [1, 1])
    """
    store: Any = getattr(array, "store", None)
    if hasattr(array, "store_path") and hasattr(array, "chunks"):  # any zarr array, wherever it is
        refuse_empty_chunks(array, shown(str(array.store_path)))
    if type(store).__name__ != "LocalStore" or type(store).__module__.split(".")[0] != "zarr":
        return array
    zarr = importlib.import_module("zarr")
    read_only = bool(store.read_only)
    safe = zarr.open_array(
        safe_store(str(store.root), read_only=read_only),
        path=getattr(array, "path", "") or None,
        mode="r" if read_only else "r+",
        zarr_format=array.metadata.zarr_format,
    )
    fit_limits(safe)
    return safe

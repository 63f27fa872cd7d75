"""Local zarr stores read as carefully as `.npy` files: one error path for every hostile store.

A zarr store is a folder of small files, and any of them may be a FIFO (reading it blocks
forever), a link to `/dev/zero` (it never ends), a huge file, or a compressed chunk that
inflates to gigabytes. `SafeLocalStore` is zarr's `LocalStore` that reads only regular files,
never more bytes than a metadata document or a chunk can need, and checks what a compressed
chunk says it inflates to before zarr decodes it. `reading` turns whatever zarr or a codec
raises on a read (ZeroDivisionError, zlib.error, RuntimeError, ...) into one ValueError line
naming the store and the key. zarr is optional: it is imported when a store is opened.
"""

from __future__ import annotations

import asyncio
import bz2
import contextlib
import functools
import importlib
import json
import lzma
import math
import os
import stat
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

MAX_METADATA_BYTES = 16 << 20
"""A metadata document (`zarr.json`, `.zarray`, ...) larger than this is refused unread."""
MAX_CHUNK_FILE_BYTES = 1 << 30
"""A chunk (or shard) file larger than this is refused unread, whatever the array says."""
ENCODED_SLACK = 8
"""How much larger than its decoded size a chunk's encoded or inflated bytes may be (a filter
such as `astype` can widen them); past that, a file or stream is refused unread."""
SLACK_BYTES = 1 << 16
METADATA_NAMES = ("zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata")
MAX_NAMED_CHUNKS = 16
"""After a failed read, at most this many chunks are read one by one to name the one that fails."""
FILE_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


class StoreError(ValueError):
    """A store that cannot be read as a zarr array: the one-line message names the store and key."""


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
        if not decompressor.eof:
            return total if decompressor.needs_input else bound + 1
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
    where = f"{root}: key {key}"
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise StoreError(f"{where}: cannot be read ({error.strerror or error})") from None
    if stat.S_ISDIR(mode):
        return None
    if not stat.S_ISREG(mode):
        raise StoreError(f"{where}: is {FILE_KINDS.get(stat.S_IFMT(mode), 'not a regular file')}, not a file")
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
    for codec in limits.codecs:
        size = _declared_size(data, codec, bound)
        if size is not None and size > bound:
            raise StoreError(
                f"{where}: its {codec} data inflates to more than {bound:,} bytes; a chunk of this "
                f"array holds {limits.decoded:,} (a decompression bomb?)"
            )


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

    return SafeLocalStore


def safe_store(root: str, read_only: bool) -> Any:
    """A zarr store over the local folder `root` that reads hostile files safely.

    >>> import tempfile, zarr
    >>> store = safe_store(tempfile.mkdtemp(), read_only=False)
    >>> z = zarr.create_array(store, shape=(4,), chunks=(2,), dtype="i4", fill_value=7)
    >>> type(store).__name__, z[:3].tolist()
    ('SafeLocalStore', [7, 7, 7])
    """
    store: Any = _store_class()(root, read_only=read_only)
    return store


def fit_limits(array: Any) -> None:
    """Bound what the safe store under `array` reads per chunk by the array's own chunks and codecs."""
    store = getattr(array, "store", None)
    if not isinstance(store, _store_class()):
        return
    try:
        itemsize = np.dtype(array.dtype).itemsize
        document = json.loads(json.dumps(array.metadata.to_dict(), default=str))
    except (TypeError, ValueError):
        return
    if itemsize == 0 or np.dtype(array.dtype).hasobject:
        return
    decoded = math.prod(array.chunks) * itemsize
    stored = math.prod(getattr(array, "shards", None) or array.chunks) * itemsize
    store.limits.decoded = decoded
    store.limits.file = min(MAX_CHUNK_FILE_BYTES, ENCODED_SLACK * stored + SLACK_BYTES)
    store.limits.codecs = _codec_names(document)


def open_array(path: str, mode: str) -> Any:
    """The zarr array at the local `path`, through a safe store whose limits fit it.

    >>> import tempfile, zarr
    >>> folder = tempfile.mkdtemp()
    >>> _ = zarr.create_array(folder, shape=(3,), chunks=(2,), dtype="f8", fill_value=0.5)
    >>> open_array(folder, "r")[:].tolist()
    [0.5, 0.5, 0.5]
    """
    zarr = importlib.import_module("zarr")
    array = zarr.open_array(safe_store(path, read_only=mode == "r"), mode=mode)
    fit_limits(array)
    return array


# -- reads through a zarr base -----------------------------------------------------------------------


def _where(array: Any) -> str:
    store = getattr(array, "store", None)
    root = getattr(store, "root", None)
    name = str(root) if root is not None else str(getattr(array, "store_path", "") or "the zarr store")
    path = getattr(array, "path", "")
    return f"{name}/{path}" if path else name


def _chunk_coords(array: Any, request: Any) -> list[tuple[int, ...]]:
    """The chunk grid positions (file-level: shards where the array has them) a request touches."""
    grid = getattr(array, "shards", None) or array.chunks
    keys = request if isinstance(request, tuple) else (request,)
    per_axis: list[list[int]] = []
    for key, size, extent in zip(keys, grid, array.shape, strict=False):
        if isinstance(key, slice):
            indices = range(*key.indices(extent))
            touched = sorted({i // size for i in (indices[0], indices[-1])}) if len(indices) else []
            touched = list(range(touched[0], touched[-1] + 1)) if touched else []
        else:
            touched = sorted({int(i) // size for i in np.asarray(key).reshape(-1)})
        per_axis.append(touched)
        if math.prod(len(t) for t in per_axis) > MAX_NAMED_CHUNKS:
            return []
    if len(per_axis) != len(grid):
        return []
    coords: list[tuple[int, ...]] = [()]
    for touched in per_axis:
        coords = [(*c, i) for c in coords for i in touched]
    return coords


def _failing_key(array: Any, request: Any) -> str | None:
    """The key of the first chunk the request touches that cannot be read alone, or None."""
    with contextlib.suppress(Exception):
        grid = getattr(array, "shards", None) or array.chunks
        if math.prod(grid) * np.dtype(array.dtype).itemsize > 64 << 20:
            return None
        for coords in _chunk_coords(array, request):
            region = tuple(
                slice(c * n, min((c + 1) * n, extent))
                for c, n, extent in zip(coords, grid, array.shape, strict=True)
            )
            try:
                array[region]
            except Exception:
                return str(array.metadata.encode_chunk_key(coords))
    return None


@contextlib.contextmanager
def reading(array: Any, request: Any, action: str = "read") -> Iterator[None]:
    """Turn whatever a read (or write) of a zarr array raises into one line naming store and key:
    a StoreError (a ValueError), or a MemoryError when the chunks are larger than memory.

    >>> import zarr
    >>> z = zarr.create_array({}, shape=(4,), chunks=(2,), dtype="i4")
    >>> with reading(z, (slice(0, 4),)):
    ...     raise ZeroDivisionError("division by zero")
    Traceback (most recent call last):
    lazytensor.stores.StoreError: memory://...: cannot read (ZeroDivisionError: division by zero)
    """
    try:
        yield
    except StoreError:
        raise
    except Exception as error:
        key = _failing_key(array, request)
        detail = " ".join(str(error).split()) or type(error).__name__
        if len(detail) > 200:
            detail = detail[:200] + "…"
        where = f"{_where(array)}: key {key}" if key is not None else _where(array)
        message = f"{where}: cannot {action} ({type(error).__name__}: {detail})"
        if isinstance(error, MemoryError):
            raise MemoryError(message) from None
        raise StoreError(message) from None

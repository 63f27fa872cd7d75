"""The safe zarr store piece by piece: byte requests, inflation sizes, which files it reads, the limits
it fits to an array, and the one-line errors of `open_array` (the whole-store fuzzing is in
test_fuzz_files.py).

Reaches into `lazytensor.bases.zarrstore`: the safe store is checked piece by piece (byte spans,
inflation sizes, limits, settling at exit), parts no public call isolates.
"""

from __future__ import annotations

import asyncio
import bz2
import errno
import gzip
import json
import lzma
import os
import socket
import stat
import zlib
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr
import zarr.storage
from fuzz_support import assert_one_line
from hypothesis import given
from hypothesis import strategies as st
from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest
from zarr.core.buffer import BufferPrototype, cpu, default_buffer_prototype

from lazytensor.bases import zarrstore
from lazytensor.bases.zarrstore import Limits, StoreError, read_key

# -- byte requests and metadata keys ----------------------------------------------------------------


def test_metadata_keys_are_named_by_their_last_part() -> None:
    for name in zarrstore.METADATA_NAMES:
        assert zarrstore._is_metadata(name)
        assert zarrstore._is_metadata(f"group/inner/{name}")
    for key in ("c/0/0", "0.0", "zarr.json/c", "xzarr.json", "group/.zarrayx"):
        assert not zarrstore._is_metadata(key)


@given(size=st.integers(0, 40), a=st.integers(0, 50), b=st.integers(0, 50))
def test_byte_spans_are_python_s_slices_of_the_file(size: int, a: int, b: int) -> None:
    data = bytes(range(size))
    cases = [
        (None, data),
        (RangeByteRequest(min(a, b), max(a, b)), data[min(a, b) : max(a, b)]),
        (OffsetByteRequest(a), data[a:]),
        (SuffixByteRequest(a), data[max(0, size - a) :]),
    ]
    for request, expected in cases:
        start, stop = zarrstore._byte_span(request, size)
        assert 0 <= start <= size and stop <= size
        assert data[start:stop] == expected, (request, start, stop)


# -- what a compressed chunk says it inflates to ----------------------------------------------------


@pytest.mark.parametrize(
    ("codecs", "compress"),
    [
        (("zlib", "numcodecs.zlib"), zlib.compress),
        (("gzip", "numcodecs.gzip"), gzip.compress),
        (("bz2", "numcodecs.bz2"), bz2.compress),
        (("lzma", "numcodecs.lzma"), lzma.compress),
    ],
)
def test_streams_are_counted_up_to_one_past_the_bound(codecs: tuple[str, str], compress: Any) -> None:
    data = bytes(range(256)) * 40  # 10,240 bytes
    for codec in codecs:
        assert zarrstore._declared_size(compress(data), codec, 1 << 20) == len(data)
        assert zarrstore._declared_size(compress(data), codec, len(data)) == len(data)
        assert zarrstore._declared_size(compress(data), codec, 100) == 101  # stops counting there
        # concatenated streams are all counted, as the codecs decode them all
        assert zarrstore._declared_size(compress(data) + compress(data[:7]), codec, 1 << 20) == len(data) + 7
        assert zarrstore._declared_size(b"", codec, 100) == 0


def test_a_stream_that_is_not_one_or_is_cut_counts_what_it_gave() -> None:
    data = zlib.compress(np.random.default_rng(0).bytes(5000))
    assert zarrstore._stream_size(b"not a zlib stream", zlib.decompressobj, 100) == 0
    cut = zarrstore._stream_size(data[: len(data) // 2], zlib.decompressobj, 1 << 20)
    assert 0 < cut < 5000
    # a second stream that is garbage ends the count at the first one
    assert zarrstore._stream_size(data + b"garbage", zlib.decompressobj, 1 << 20) == 5000
    # the bound applies to the total over the streams, not to each stream
    two = zlib.compress(bytes(60)) + zlib.compress(bytes(60)) + zlib.compress(bytes(60))
    assert zarrstore._stream_size(two, zlib.decompressobj, 100) == 101
    assert zarrstore._stream_size(two, zlib.decompressobj, 120) == 121
    assert zarrstore._stream_size(two, zlib.decompressobj, 180) == 180


def _zstd_header(descriptor: int, window: bool, dictionary: int, size: bytes) -> bytes:
    return b"\x28\xb5\x2f\xfd" + bytes([descriptor]) + (b"\x07" if window else b"") + bytes(dictionary) + size


def test_zstd_sizes_are_read_from_the_frame_header() -> None:
    for n in (0, 1, 255, 256, 1000, 70_000, 5_000_000):
        frame = numcodecs.Zstd(level=1).encode(bytes(n))
        assert zarrstore._declared_size(frame, "zstd", 0) == n
        assert zarrstore._declared_size(frame, "numcodecs.zstd", 0) == n
    dictionary_sizes = {0: 0, 1: 1, 2: 2, 3: 4}
    for flag, size in dictionary_sizes.items():
        # single segment, 1-byte size; no window byte
        assert zarrstore._zstd_size(_zstd_header(0x20 | flag, False, size, b"\xab")) == 0xAB
        # 2-byte size (+256), with a window byte
        assert zarrstore._zstd_size(_zstd_header(0x40 | flag, True, size, b"\x01\x02")) == 0x0201 + 256
        assert zarrstore._zstd_size(_zstd_header(0x60 | flag, False, size, b"\x01\x02")) == 0x0201 + 256
        # 4 and 8 bytes, little endian
        assert zarrstore._zstd_size(_zstd_header(0x80 | flag, True, size, b"\x01\x02\x03\x04")) == 0x04030201
        eight = bytes(range(1, 9))
        value = int.from_bytes(eight, "little")
        assert zarrstore._zstd_size(_zstd_header(0xC0 | flag, True, size, eight)) == value
        # the block header after the size is no part of it
        assert zarrstore._zstd_size(_zstd_header(0xC0 | flag, True, size, eight + b"\xff")) == value
        assert zarrstore._zstd_size(_zstd_header(0x80 | flag, True, size, eight)) == int.from_bytes(
            eight[:4], "little"
        )
    # no size field: a frame without a declared size
    assert zarrstore._zstd_size(_zstd_header(0x00, True, 0, b"")) is None
    # too short, or another magic number
    assert zarrstore._zstd_size(b"\x28\xb5\x2f\xfd\x20") is None
    assert zarrstore._zstd_size(b"\x28\xb5\x2f\xfd\x20\x05") == 5
    assert zarrstore._zstd_size(b"\x29\xb5\x2f\xfd\x20\x05") is None


def test_blosc_and_lz4_sizes_are_read_from_their_headers() -> None:
    for n in (0, 100, 123_456):
        for codec in ("blosc", "numcodecs.blosc"):
            assert zarrstore._declared_size(numcodecs.Blosc().encode(bytes(n)), codec, 0) == n
        for codec in ("lz4", "numcodecs.lz4"):
            assert zarrstore._declared_size(numcodecs.LZ4().encode(bytes(n)), codec, 0) == n
    assert zarrstore._declared_size(bytes(16), "blosc", 0) == 0
    assert zarrstore._declared_size(bytes(15), "blosc", 0) is None
    assert zarrstore._declared_size(b"\x01\x00\x00\x00", "lz4", 0) == 1
    assert zarrstore._declared_size(b"\x01\x00\x00", "lz4", 0) is None
    assert zarrstore._declared_size(zlib.compress(bytes(9)), "bytes", 100) is None
    for codec in ("bytes", "transpose", "crc32c"):  # no size to read: whatever the data holds
        assert zarrstore._declared_size(bytes(range(1, 21)), codec, 100) is None
    # a zlib stream is no gzip stream: the gzip codec will refuse it, nothing is counted
    assert zarrstore._declared_size(zlib.compress(bytes(1000)), "gzip", 1 << 20) == 0
    assert zarrstore._declared_size(gzip.compress(bytes(1000)), "zlib", 1 << 20) == 0


def test_codec_names_are_found_anywhere_in_the_metadata() -> None:
    v3 = {
        "codecs": [
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "sharding_indexed", "configuration": {"codecs": ({"name": "zstd"},)}},
        ],
        "name": 3,
    }
    v2 = {"compressor": {"id": "blosc", "cname": "lz4"}, "filters": [{"id": "delta", "name": None}]}
    assert zarrstore._codec_names(v3) == {"bytes", "sharding_indexed", "zstd"}
    assert zarrstore._codec_names(v2) == {"blosc", "delta"}
    assert zarrstore._codec_names([v2, (v3,)]) == {"blosc", "delta", "bytes", "sharding_indexed", "zstd"}
    assert zarrstore._codec_names({"name": ["gzip"], "id": {"x": 1}}) == set()


# -- which files are read, and how much of them -----------------------------------------------------


def test_limits_default_to_the_largest_chunk_file() -> None:
    limits = Limits()
    assert (limits.decoded, limits.file, limits.codecs) == (zarrstore.MAX_CHUNK_FILE_BYTES,) * 2 + (set(),)


def test_read_key_reads_regular_files_and_the_bytes_asked_for(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "0").write_bytes(b"0123456789")
    (tmp_path / "zarr.json").write_bytes(b"{}")
    root = str(tmp_path)
    assert read_key(root, "c/0", None, Limits()) == b"0123456789"
    assert read_key(root, "c/0", RangeByteRequest(2, 5), Limits()) == b"234"
    assert read_key(root, "c/0", SuffixByteRequest(3), Limits()) == b"789"
    assert read_key(root, "zarr.json", None, Limits()) == b"{}"
    # what is not there, a folder, and a key below a file are no data
    assert read_key(root, "c/1", None, Limits()) is None
    assert read_key(root, "c", None, Limits()) is None
    assert read_key(root, "c/0/0", None, Limits()) is None


def test_read_key_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    root = str(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    os.symlink("/dev/null", tmp_path / "device")
    os.symlink("loop", tmp_path / "loop")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "socket"))
        expected = {
            "fifo": "is a FIFO (named pipe), not a file",
            "device": "is a character device, not a file",
            "socket": "is a socket, not a file",
            "loop": "cannot be read (Too many levels of symbolic links)",
        }
        for key, what in expected.items():
            with pytest.raises(StoreError) as caught:
                read_key(root, key, None, Limits())
            assert str(caught.value) == f"{root}: key {key}: {what}"


def test_read_key_says_why_a_file_cannot_be_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = str(tmp_path)
    (tmp_path / "c").write_bytes(b"x")
    real_open, real_stat = os.open, os.stat

    def denied(path: str, flags: int) -> int:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(StoreError) as caught:
        read_key(root, "c", None, Limits())
    assert str(caught.value) == f"{root}: key c: cannot be read (Permission denied)"

    def vanished(path: str, flags: int) -> int:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)

    monkeypatch.setattr(os, "open", vanished)  # removed between the stat and the open
    assert read_key(root, "c", None, Limits()) is None
    monkeypatch.setattr(os, "open", real_open)

    def unexplained(path: Any) -> Any:
        raise OSError("the disk is gone")

    monkeypatch.setattr(os, "stat", unexplained)
    with pytest.raises(StoreError) as caught:
        read_key(root, "c", None, Limits())
    assert str(caught.value) == f"{root}: key c: cannot be read (the disk is gone)"
    monkeypatch.setattr(os, "stat", real_stat)


def test_read_key_refuses_a_file_that_turned_into_something_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = str(tmp_path)
    (tmp_path / "c").write_bytes(b"x")
    closed: list[int] = []
    real_close = os.close

    def close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(
        os, "fstat", lambda fd: os.stat_result((stat.S_IFIFO | 0o644, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    )
    monkeypatch.setattr(os, "close", close)
    with pytest.raises(StoreError) as caught:
        read_key(root, "c", None, Limits())
    assert str(caught.value) == f"{root}: key c: is not a regular file"
    assert len(closed) == 1


def test_read_key_refuses_more_bytes_than_a_key_can_need(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = str(tmp_path)
    (tmp_path / ".zarray").write_bytes(b"x" * 40)
    (tmp_path / "0.0").write_bytes(b"y" * 40)
    monkeypatch.setattr(zarrstore, "MAX_METADATA_BYTES", 39)
    with pytest.raises(StoreError) as caught:
        read_key(root, ".zarray", None, Limits())
    assert str(caught.value) == f"{root}: key .zarray: holds 40 bytes; a metadata document needs at most 39"
    assert read_key(root, ".zarray", RangeByteRequest(0, 39), Limits()) == b"x" * 39
    monkeypatch.setattr(zarrstore, "MAX_METADATA_BYTES", 40)
    assert read_key(root, ".zarray", None, Limits()) == b"x" * 40
    # a chunk is held to the array's file limit, not to the metadata's
    assert read_key(root, "0.0", None, Limits(decoded=10, file=40)) == b"y" * 40
    with pytest.raises(StoreError) as caught:
        read_key(root, "0.0", None, Limits(decoded=10, file=39))
    assert str(caught.value) == f"{root}: key 0.0: holds 40 bytes; a chunk of this array needs at most 39"
    assert read_key(root, "0.0", OffsetByteRequest(1), Limits(decoded=10, file=39)) == b"y" * 39
    with pytest.raises(StoreError) as caught:
        read_key(root, "0.0", RangeByteRequest(3, 40), Limits(decoded=10, file=36))
    assert str(caught.value) == f"{root}: key 0.0: holds 37 bytes; a chunk of this array needs at most 36"


def test_a_chunk_that_decodes_past_the_limit_is_a_memory_error_but_metadata_reads(tmp_path: Path) -> None:
    root = str(tmp_path)
    (tmp_path / "zarr.json").write_bytes(b"{}")
    (tmp_path / "c").write_bytes(b"z")
    big = Limits(decoded=zarrstore.MAX_CHUNK_FILE_BYTES + 1)
    assert read_key(root, "zarr.json", None, big) == b"{}"
    assert read_key(root, "c", None, Limits(decoded=zarrstore.MAX_CHUNK_FILE_BYTES)) == b"z"
    with pytest.raises(MemoryError) as caught:
        read_key(root, "c", None, big)
    assert str(caught.value) == (
        f"{root}: key c: a chunk of this array decodes to 1,073,741,825 bytes; "
        "at most 1,073,741,824 are read at once"
    )


def test_a_compressed_chunk_is_checked_before_it_inflates(tmp_path: Path) -> None:
    root = str(tmp_path)
    limits = Limits(decoded=100)
    limits.codecs = {"gzip", "bytes"}
    bound = zarrstore.ENCODED_SLACK * 100 + zarrstore.SLACK_BYTES
    (tmp_path / "ok").write_bytes(gzip.compress(bytes(bound)))
    (tmp_path / "bomb").write_bytes(gzip.compress(bytes(bound + 1)))
    assert read_key(root, "ok", None, limits) == (tmp_path / "ok").read_bytes()
    with pytest.raises(StoreError) as caught:
        read_key(root, "bomb", None, limits)
    assert str(caught.value) == (
        f"{root}: key bomb: its gzip data inflates to more than {bound:,} bytes; a chunk of this array "
        "holds 100 (a decompression bomb?)"
    )
    # metadata is not a chunk: never taken for compressed data
    (tmp_path / "zarr.json").write_bytes(gzip.compress(bytes(bound + 1)))
    assert read_key(root, "zarr.json", None, limits) == (tmp_path / "zarr.json").read_bytes()


def test_a_cut_blosc_chunk_is_refused(tmp_path: Path) -> None:
    root = str(tmp_path)
    data = numcodecs.Blosc().encode(np.arange(64.0).tobytes())
    for codec in ("blosc", "numcodecs.blosc"):
        limits = Limits(decoded=512)
        limits.codecs = {codec}
        (tmp_path / "whole").write_bytes(data)
        assert read_key(root, "whole", None, limits) == data
        (tmp_path / "cut").write_bytes(data[:-1])
        with pytest.raises(StoreError) as caught:
            read_key(root, "cut", None, limits)
        assert str(caught.value) == (
            f"{root}: key cut: its blosc data is cut ({len(data) - 1:,} bytes; its header says {len(data):,})"
        )
        (tmp_path / "header").write_bytes(data[:16])
        with pytest.raises(StoreError) as caught:
            read_key(root, "header", None, limits)
        assert str(caught.value) == (
            f"{root}: key header: its blosc data is cut (16 bytes; its header says {len(data):,})"
        )
        (tmp_path / "short").write_bytes(data[:15])
        with pytest.raises(StoreError) as caught:
            read_key(root, "short", None, limits)
        assert str(caught.value) == f"{root}: key short: its blosc data is cut (15 bytes; its header says 16)"
        (tmp_path / "empty").write_bytes(b"")
        assert read_key(root, "empty", None, limits) == b""


# -- settling zarr's event loop ---------------------------------------------------------------------


def test_a_failed_read_waits_for_the_other_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    finished: list[str] = []

    async def request(name: str, seconds: float) -> None:
        await asyncio.sleep(seconds)
        finished.append(name)

    async def main() -> None:
        soon = asyncio.ensure_future(request("soon", 0.01))
        never = asyncio.ensure_future(request("never", 600))
        await zarrstore._others_done()  # the settling time below bounds the wait
        assert soon.done() and not never.done()
        never.cancel()

    monkeypatch.setattr(zarrstore, "SETTLE_SECONDS", 0.5)
    asyncio.run(main())
    assert finished == ["soon"]


def test_settling_waits_for_the_others_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zarrstore, "SETTLE_SECONDS", 600)  # waiting on itself would wait this long

    async def main() -> None:
        soon = asyncio.ensure_future(asyncio.sleep(0.01))
        await zarrstore._others_done()
        assert soon.done()
        await zarrstore._others_done()  # nothing else running: nothing to wait for

    asyncio.run(main())


def test_settling_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken() -> None:
        raise RuntimeError("the loop is closed")

    monkeypatch.setattr(zarrstore, "_others_done", broken)
    zarrstore._settle()  # at exit: nothing to report, nothing to raise


def test_settling_runs_on_zarr_s_loop_and_is_registered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []

    async def others_done() -> None:
        ran.append(type(asyncio.get_running_loop()).__name__)

    monkeypatch.setattr(zarrstore, "_others_done", others_done)
    zarrstore._settle()
    assert len(ran) == 1
    registered: list[Any] = []
    monkeypatch.setattr(zarrstore.atexit, "register", registered.append)
    zarrstore._settle_at_exit.__wrapped__()
    assert registered == [zarrstore._settle]


# -- the store over a folder, and the limits fitted to an array ---------------------------------------


def test_the_safe_store_reads_through_every_entry_point(tmp_path: Path) -> None:
    z = zarr.create_array(str(tmp_path), shape=(6,), chunks=(3,), dtype="<i2", fill_value=0, compressors=None)
    z[:] = np.arange(6, dtype="<i2")
    store = zarrstore.safe_store(str(tmp_path), read_only=True)
    assert store.read_only
    prototype = default_buffer_prototype()
    chunk = store.get_sync("c/1", prototype=prototype)
    assert np.frombuffer(chunk.to_bytes(), "<i2").tolist() == [3, 4, 5]
    assert store.get_sync("c/1", byte_range=RangeByteRequest(2, 4)).to_bytes() == np.int16(4).tobytes()
    assert store.get_sync("c/9") is None

    async def read() -> list[Any]:
        whole = await store.get("c/0", prototype)
        parts = await store.get_partial_values(
            prototype, [("c/0", SuffixByteRequest(2)), ("c/1", None), ("c/7", None)]
        )
        return [whole, *parts]

    whole, last, other, missing = asyncio.run(read())
    assert np.frombuffer(whole.to_bytes(), "<i2").tolist() == [0, 1, 2]
    assert last.to_bytes() == np.int16(2).tobytes()
    assert np.frombuffer(other.to_bytes(), "<i2").tolist() == [3, 4, 5]
    assert missing is None
    twin = store.with_read_only(False)
    assert type(twin) is type(store) and not twin.read_only and twin.limits is store.limits
    assert str(twin.root) == str(store.root)
    assert store.with_read_only().read_only is False
    os.mkfifo(tmp_path / "c" / "2")
    with pytest.raises(StoreError, match="is a FIFO"):
        twin.get_sync("c/2")


class _TaggedBuffer(cpu.Buffer):
    """A buffer class of the caller's own: a read must come back in the prototype asked for."""


def test_the_safe_store_reads_into_the_prototype_asked_for_and_keeps_read_only_when_asked(
    tmp_path: Path,
) -> None:
    z = zarr.create_array(str(tmp_path), shape=(4,), chunks=(2,), dtype="u1", fill_value=0, compressors=None)
    z[:] = [1, 2, 3, 4]
    store = zarrstore.safe_store(str(tmp_path), read_only=False)
    tagged = BufferPrototype(buffer=_TaggedBuffer, nd_buffer=cpu.NDBuffer)

    async def read() -> list[Any]:
        whole = await store.get("c/1", tagged)
        return [whole, *await store.get_partial_values(tagged, [("c/0", RangeByteRequest(1, 2))])]

    reads = [store.get_sync("c/0", prototype=tagged), *asyncio.run(read())]
    assert [type(read) for read in reads] == [_TaggedBuffer] * 3
    assert [read.to_bytes() for read in reads] == [b"\x01\x02", b"\x03\x04", b"\x02"]
    assert store.with_read_only(True).read_only and not store.read_only


def test_a_new_safe_store_opens_on_first_read(tmp_path: Path) -> None:
    z = zarr.create_array(str(tmp_path), shape=(2,), chunks=(2,), dtype="u1", fill_value=0, compressors=None)
    z[:] = [5, 6]
    assert asyncio.run(zarrstore.safe_store(str(tmp_path), False).get("c/0")).to_bytes() == b"\x05\x06"
    assert zarrstore.safe_store(str(tmp_path), False).get_sync("c/0").to_bytes() == b"\x05\x06"


@pytest.mark.parametrize("fmt", [2, 3])
def test_limits_fit_the_array_s_chunks_and_codecs(tmp_path: Path, fmt: int) -> None:
    compressors = {2: numcodecs.Zlib(), 3: zarr.codecs.GzipCodec()}[fmt]
    zarr.create_array(
        str(tmp_path), shape=(10, 9), chunks=(4, 3), dtype="<i4", zarr_format=fmt, compressors=compressors
    )
    array = zarrstore.open_array(str(tmp_path), "r")
    limits = array.store.limits
    assert limits.decoded == 4 * 3 * 4
    assert limits.file == zarrstore.ENCODED_SLACK * 48 + zarrstore.SLACK_BYTES
    assert {2: "zlib", 3: "gzip"}[fmt] in limits.codecs


def test_limits_of_one_byte_elements(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path), shape=(10,), chunks=(5,), dtype="u1")
    limits = zarrstore.open_array(str(tmp_path), "r").store.limits
    assert (limits.decoded, limits.file) == (5, zarrstore.ENCODED_SLACK * 5 + zarrstore.SLACK_BYTES)


def test_limits_of_a_sharded_array_bound_the_shard_file(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path), shape=(16,), chunks=(2,), shards=(8,), dtype="<f8")
    limits = zarrstore.open_array(str(tmp_path), "r").store.limits
    assert (limits.decoded, limits.file) == (16, zarrstore.ENCODED_SLACK * 64 + zarrstore.SLACK_BYTES)
    assert {"sharding_indexed", "bytes"} <= limits.codecs


def test_the_file_limit_is_at_most_the_largest_chunk_file(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path), shape=(2**40,), chunks=(2**28,), dtype="<f8", fill_value=0)
    limits = zarrstore.open_array(str(tmp_path), "r").store.limits
    assert (limits.decoded, limits.file) == (2**31, zarrstore.MAX_CHUNK_FILE_BYTES)


def test_limits_stay_the_defaults_where_numpy_cannot_size_a_chunk(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path), shape=(4,), chunks=(2,), dtype=str, zarr_format=3)
    limits = zarrstore.open_array(str(tmp_path), "r").store.limits
    assert (limits.decoded, limits.file) == (zarrstore.MAX_CHUNK_FILE_BYTES,) * 2
    assert "vlen-utf8" in limits.codecs


def test_limits_are_fitted_only_to_a_safe_store(tmp_path: Path) -> None:
    memory = zarr.create_array({}, shape=(4,), chunks=(2,), dtype="i4")
    zarrstore.fit_limits(memory)  # not a safe store: nothing to fit, nothing raised
    zarrstore.fit_limits(np.arange(3))
    z = zarr.create_array(str(tmp_path), shape=(4,), chunks=(2,), dtype="i4")
    zarrstore.fit_limits(z)
    assert not hasattr(z.store, "limits")


# -- opening, and guarding arrays opened elsewhere --------------------------------------------------


def test_open_array_opens_an_array_inside_a_group(tmp_path: Path) -> None:
    group = zarr.open_group(str(tmp_path), mode="w")
    group.create_array("inner/a", shape=(3,), chunks=(3,), dtype="<i8")[:] = [7, 8, 9]
    array = zarrstore.open_array(str(tmp_path), "r", inside="inner/a")
    assert array[:].tolist() == [7, 8, 9]
    assert array.store.read_only and array.store.limits.decoded == 24
    writable = zarrstore.open_array(str(tmp_path), "r+", inside="inner/a")
    assert not writable.store.read_only
    writable[0] = 1
    assert array[:].tolist() == [1, 8, 9]


@pytest.mark.parametrize("fmt", [2, 3])
def test_metadata_zarr_refuses_is_named_in_one_line(tmp_path: Path, fmt: int) -> None:
    group = zarr.open_group(str(tmp_path), mode="w", zarr_format=fmt)
    group.create_array("a", shape=(3,), chunks=(3,), dtype="<i8")
    key = {2: ".zarray", 3: "zarr.json"}[fmt]
    document = json.loads((tmp_path / "a" / key).read_text())
    document["shape"] = "x" * 300
    (tmp_path / "a" / key).write_text(json.dumps(document))
    with pytest.raises(StoreError) as caught:
        zarrstore.open_array(str(tmp_path), "r", inside="a")
    message = str(caught.value)
    assert_one_line(message, f"{tmp_path}: key {key}: not an array zarr can open (")
    detail = message.split(" can open (", 1)[1]
    name, text = detail.split(": ", 1)
    assert name.isidentifier() and len(text) == 200 + 1 + 1 and text.endswith("…)")
    assert " ".join(text.split()) == text


def test_a_store_error_opening_passes_through_and_no_document_raises_zarr_s_error(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path / "a"), shape=(3,), chunks=(3,), dtype="<i8")
    os.replace(tmp_path / "a" / "zarr.json", tmp_path / "moved")
    os.mkfifo(tmp_path / "a" / "zarr.json")
    with pytest.raises(StoreError) as caught:
        zarrstore.open_array(str(tmp_path / "a"), "r")
    assert str(caught.value) == f"{tmp_path / 'a'}: key zarr.json: is a FIFO (named pipe), not a file"
    with pytest.raises(FileNotFoundError) as plain:  # no document to name: zarr's own error
        zarrstore.open_array(str(tmp_path / "nothing"), "r")
    assert str(plain.value) == f"{tmp_path / 'nothing'} does not exist"


def test_a_short_refusal_keeps_its_whole_detail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zarr.create_array(str(tmp_path), shape=(3,), chunks=(3,), dtype="<i8")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise KeyError()

    monkeypatch.setattr(zarr, "open_array", refuse)
    with pytest.raises(StoreError) as caught:
        zarrstore.open_array(str(tmp_path), "r")
    assert str(caught.value) == f"{tmp_path}: key zarr.json: not an array zarr can open (KeyError: KeyError)"

    def refuse_long(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a\n  b " + "c" * 196)

    monkeypatch.setattr(zarr, "open_array", refuse_long)
    with pytest.raises(StoreError) as caught:
        zarrstore.open_array(str(tmp_path), "r")
    assert str(caught.value).endswith("(ValueError: a b " + "c" * 196 + ")")

    def refuse_longer(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("d" * 201)

    monkeypatch.setattr(zarr, "open_array", refuse_longer)
    with pytest.raises(StoreError) as caught:
        zarrstore.open_array(str(tmp_path), "r")
    assert str(caught.value).endswith("(ValueError: " + "d" * 200 + "…)")


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("read_only", [True, False])
def test_guarded_reopens_a_local_array_over_the_safe_store(tmp_path: Path, fmt: int, read_only: bool) -> None:
    group = zarr.open_group(str(tmp_path), mode="w", zarr_format=fmt)
    group.create_array("a", shape=(4,), chunks=(2,), dtype="<i2")[:] = [1, 2, 3, 4]
    plain = zarr.open_array(zarr.storage.LocalStore(str(tmp_path), read_only=read_only), path="a")
    safe = zarrstore.guarded(plain)
    assert type(safe.store).__name__ == "SafeLocalStore"
    assert safe.store.read_only is read_only and safe.metadata.zarr_format == fmt
    assert safe.store.limits.decoded == 4
    assert safe[:].tolist() == [1, 2, 3, 4]
    if not read_only:
        safe[0] = 9
        assert plain[:].tolist() == [9, 2, 3, 4]


def test_guarded_leaves_other_arrays_alone(tmp_path: Path) -> None:
    memory = zarr.create_array({}, shape=(2,), chunks=(1,), dtype="i1")
    assert zarrstore.guarded(memory) is memory
    plain = np.arange(3)
    assert zarrstore.guarded(plain) is plain
    safe = zarrstore.open_array(str(zarr.create_array(str(tmp_path), shape=(2,), dtype="i1").store.root), "r")
    assert zarrstore.guarded(safe) is safe

    class LocalStore:  # named as zarr's, but not zarr's
        root = str(tmp_path)
        read_only = True

    class Array:
        store = LocalStore()

    imitation = Array()
    assert zarrstore.guarded(imitation) is imitation


def test_guarded_keeps_the_format_the_array_was_opened_in(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path / "a"), shape=(2,), dtype="i1", zarr_format=2, fill_value=0)[:] = [1, 2]
    zarr.create_array(str(tmp_path / "b"), shape=(3,), dtype="i1", zarr_format=3, fill_value=0)[:] = [4, 5, 6]
    os.replace(tmp_path / "b" / "zarr.json", tmp_path / "a" / "zarr.json")  # a folder holding both formats
    plain = zarr.open_array(zarr.storage.LocalStore(str(tmp_path / "a")), zarr_format=2)
    safe = zarrstore.guarded(plain)
    assert safe.metadata.zarr_format == 2 and safe[:].tolist() == [1, 2]


def test_guarded_reopens_a_root_array(tmp_path: Path) -> None:
    zarr.create_array(str(tmp_path), shape=(2,), chunks=(1,), dtype="i1")[:] = [3, 4]
    safe = zarrstore.guarded(zarr.open_array(str(tmp_path), mode="r"))
    assert type(safe.store).__name__ == "SafeLocalStore" and safe[:].tolist() == [3, 4]

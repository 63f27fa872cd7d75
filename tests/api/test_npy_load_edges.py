"""The edges of loading a `.npy` file in-process: data bytes that look like header syntax, the
bound on elements of zero bytes at its exact value, huge shapes of one-byte elements, and a
memory-mapped file that shrinks after loading, named in the error.

Reaches into `lazytensor.api.files` and `lazytensor.bases.memmap`: the element bound is the module's
own constant, and a load must be a checked memory map (`MappedTensor`) before a shrunk file is read,
or the read would kill the process.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

import lazytensor as lt
import lazytensor.api.files as ltio
from lazytensor.bases.memmap import MappedTensor


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("data", [b"(" * 40, b"-" * 40, b"'" + b"[" * 40])
def test_data_that_looks_like_header_syntax_is_not_read_as_header(
    tmp_path: Path, mmap: bool, data: bytes
) -> None:
    path = tmp_path / "d.npy"
    array = np.frombuffer(data, dtype=np.uint8)
    np.save(path, array)
    assert lt.load(path, mmap=mmap).tolist() == np.load(path).tolist() == array.tolist()


def zero_byte_elements(path: Path, count: int) -> Path:
    header = f"{{'descr': [], 'fortran_order': False, 'shape': ({count},), }}".encode("latin1")
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
    return path


@pytest.mark.parametrize("mmap", [True, False])
def test_the_bound_on_zero_byte_elements_is_exact(tmp_path: Path, mmap: bool) -> None:
    limit = ltio.MAX_EMPTY_ELEMENTS
    at = zero_byte_elements(tmp_path / "at.npy", limit)
    loaded = lt.load(at, mmap=mmap)
    assert loaded.shape == np.load(at).shape == (limit,)
    past = zero_byte_elements(tmp_path / "past.npy", limit + 1)
    with pytest.raises(MemoryError) as caught:
        lt.load(past, mmap=mmap)
    assert str(caught.value) == (
        f"{past}: its header's shape ({limit + 1},) of [] holds {limit + 1:,} elements of 0 bytes; "
        f"at most {limit:,} are loaded (each costs work, though no data)"
    )


@pytest.mark.parametrize("descr", ["|u1", "|b1", "<f8"])
def test_a_huge_shape_of_elements_with_bytes_is_a_short_file_not_a_memory_error(
    tmp_path: Path, descr: str
) -> None:
    path = tmp_path / "huge.npy"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({2**30},), }}".encode("latin1")
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + bytes(8))
    itemsize = np.dtype(descr).itemsize
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    assert str(caught.value) == (
        f"{path}: truncated or corrupt .npy file (its header's shape ({2**30},) of {np.dtype(descr)} "
        f"needs {2**30 * itemsize:,} bytes of data; the file holds 8)"
    )


def test_a_memory_mapped_file_that_shrinks_is_named_in_the_error(tmp_path: Path) -> None:
    path = tmp_path / "shrinking.npy"
    np.save(path, np.arange(1000.0))
    t = lt.load(path)
    assert isinstance(t, MappedTensor) and t[999].item() == 999.0  # else a read below would SIGBUS
    os.truncate(path, 4096)  # the check before each read refuses, so nothing reads past the end
    with pytest.raises(OSError) as caught:
        t.tolist()
    assert caught.value.errno == errno.EIO
    assert str(caught.value).startswith(f"{path}: the file shrank to 4,096 bytes while memory-mapped")


@pytest.mark.parametrize("shape", [(4,), (1, 4), (4, 1), (1, 1, 4)])
def test_row_major_files_whose_layout_is_also_column_major_load_untransposed(
    tmp_path: Path, shape: tuple[int, ...]
) -> None:
    path = tmp_path / "c.npy"
    np.save(path, np.arange(4).reshape(shape))
    for mmap in (True, False):
        loaded = lt.load(path, mmap=mmap)
        assert loaded.layer_name == "Storage" and loaded.shape == shape
        assert loaded.tolist() == np.load(path).tolist()

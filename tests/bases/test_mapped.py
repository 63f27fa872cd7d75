"""A memory-mapped `.npy` file checks, in this process, that it still holds its data before each read:
every kind of read of a truncated file is one OSError naming the file and the sizes; a file that still
holds every byte reads as numpy reads it.

Reaches into `lazytensor.bases.memmap`: `MappedTensor.over` is built directly on maps `lt.load`
never makes (anonymous, over bytes, unnamed).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.bases.memmap import MappedTensor

HEADER = 128
"""The bytes of a version 1 `.npy` header of a small array (np.save pads it to 128)."""


def _saved(tmp_path: Path, values: np.ndarray) -> Path:
    path = tmp_path / "t.npy"
    np.save(path, values)
    assert path.stat().st_size == HEADER + values.nbytes
    return path


READS: dict[str, Callable[[Any], Any]] = {
    "strided": lambda t: t.T[::-3].numpy(),  # one fused layout
    "flat": lambda t: t.reshape(10, 100).T.reshape(-1)[[3, 7]].numpy(),  # a few positions gathered
    "one": lambda t: t[999].item(),
}
"""The three doors of a read into the base: `read_strided`, `read_flat`, `read_one`."""


@pytest.mark.parametrize("read", READS)
def test_every_read_of_a_truncated_memory_map_is_one_os_error(tmp_path: Path, read: str) -> None:
    values = np.arange(1000.0)
    path = _saved(tmp_path, values)
    t = lt.load(path)
    assert isinstance(t, MappedTensor)
    assert np.array_equal(np.asarray(READS[read](t)), np.asarray(READS[read](lt.tensor(values))))
    os.truncate(path, 4096)  # the first page is still there: a read without the check would not crash
    with pytest.raises(OSError) as info:
        READS[read](t)
    assert str(info.value) == (
        f"{path}: the file shrank to 4,096 bytes while memory-mapped (its data needs 8,128); "
        "it was truncated or rewritten in place: load it again"
    )
    assert info.value.errno == errno.EIO


@pytest.mark.parametrize("read", READS)
def test_a_file_that_holds_exactly_its_data_reads(tmp_path: Path, read: str) -> None:
    values = np.arange(1000.0)
    path = _saved(tmp_path, values)
    t = lt.load(path)
    os.truncate(path, HEADER + values.nbytes)  # the same size: nothing is missing
    assert np.array_equal(np.asarray(READS[read](t)), np.asarray(READS[read](lt.tensor(values))))
    os.truncate(path, HEADER + values.nbytes - 1)  # one byte short of the last element
    with pytest.raises(OSError, match=r"shrank to 8,127 bytes .*needs 8,128\)"):
        READS[read](t)


def test_errors_name_the_file_as_given_or_as_the_map_knows_it(tmp_path: Path) -> None:
    path = _saved(tmp_path, np.arange(1000.0))
    named = MappedTensor.over(np.load(path, mmap_mode="r"), "my data")
    unnamed = MappedTensor.over(np.load(path, mmap_mode="r"))
    anonymous_map = np.load(path, mmap_mode="r")
    anonymous_map.filename = None
    anonymous = MappedTensor.over(anonymous_map)
    assert (named.file_name, str(unnamed.file_name), anonymous.file_name) == (
        "my data",
        str(path),
        "the memory-mapped file",
    )
    os.truncate(path, 4096)
    for t, name in ((named, "my data"), (unnamed, str(path)), (anonymous, "the memory-mapped file")):
        with pytest.raises(OSError, match=f"^{name}: the file shrank to 4,096 bytes"):
            t.numpy()


def test_a_map_is_checked_when_it_is_made(tmp_path: Path) -> None:
    path = _saved(tmp_path, np.arange(1000.0))
    mapped = np.load(path, mmap_mode="r")
    os.truncate(path, 4096)
    with pytest.raises(OSError, match=r"shrank to 4,096 bytes .*needs 8,128\)"):
        MappedTensor.over(mapped, "late")


def test_a_memory_mapped_tensor_is_a_storage_tensor_with_its_shape(tmp_path: Path) -> None:
    values = np.arange(24.0).reshape(2, 3, 4)
    t = MappedTensor.over(np.load(_saved(tmp_path, values), mmap_mode="r"))
    assert t.shape == (2, 3, 4) and t.buffer.shape == (24,)
    assert t.layer_name == "Storage" and t.storage_note == "memory-mapped"
    assert t[1, :, ::2].tolist() == values[1, :, ::2].tolist()
    assert t._fused_values is None  # no view of the map is kept between reads
    assert not MappedTensor.keeps_views


def test_a_buffer_that_maps_no_file_is_not_checked() -> None:
    values = np.arange(6.0).reshape(2, 3)
    t = MappedTensor.over(values, "in memory")  # type: ignore[arg-type]  # an array, not a memmap
    assert t.T.tolist() == values.T.tolist() and t[1, 2].item() == 5.0
    unnamed = MappedTensor.over(values)  # type: ignore[arg-type]  # no name, no filename
    assert unnamed.file_name == "the memory-mapped file" and unnamed.tolist() == values.tolist()
    over_bytes = np.frombuffer(np.arange(4.0).tobytes(), dtype=np.float64)  # its base is a bytes object
    assert MappedTensor.over(over_bytes, "bytes").tolist() == [0.0, 1.0, 2.0, 3.0]  # type: ignore[arg-type]

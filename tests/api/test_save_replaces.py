"""What `lt.save` replaces and what it refuses: it deletes nothing it did not write (a folder of other
files, a zarr group, what a symbolic link points to), leaves no hidden folder or file behind on
success, failure or Ctrl-C, refuses a result larger than its limit before writing anything, and
reads the tensor block by block.

Reaches into `lazytensor.api.files`: the size of the blocks a save reads (`BLOCK_BYTES`) is made
small to see a save read more than one, and the hidden names are the module's own.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
import lazytensor.api.files as ltio

zarr = pytest.importorskip("zarr")


def listing(folder: Path) -> list[str]:
    """Every path under `folder` (symbolic links not followed), relative, sorted."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def hidden(name: str) -> str:
    return ltio.temporary_name(name)


class Rows:
    """An array-like that records each region read from it, and can fail (or be interrupted) on a read."""

    def __init__(self, values: np.ndarray, fail_on: int | None = None, error: BaseException | None = None):
        self.values, self.shape, self.dtype = values, values.shape, values.dtype
        self.reads: list[Any] = []
        self.fail_on, self.error = fail_on, error

    def __getitem__(self, key: Any) -> np.ndarray:
        self.reads.append(key)
        if self.fail_on is not None and len(self.reads) > self.fail_on and self.error is not None:
            raise self.error
        return self.values[key]


# -- what is replaced ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 3])
def test_a_zarr_array_is_replaced_and_nothing_is_left_beside_it(tmp_path: Path, version: int) -> None:
    target = tmp_path / "x.zarr"
    old = zarr.create_array(target, shape=(4, 4), chunks=(2, 2), dtype="i4", zarr_format=version)
    old[...] = 7
    lt.save(target, lt.arange(6).reshape(2, 3))
    assert zarr.open_array(target, mode="r")[...].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert [p.name for p in tmp_path.iterdir()] == ["x.zarr"]


def test_a_npy_file_at_a_zarr_path_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "x.zarr"
    with open(target, "wb") as file:
        np.save(file, np.arange(3))
    lt.save(target, lt.arange(4))
    assert zarr.open_array(target, mode="r")[...].tolist() == [0, 1, 2, 3]
    assert [p.name for p in tmp_path.iterdir()] == ["x.zarr"]


# -- what is refused ----------------------------------------------------------------------------------


def test_a_folder_of_other_files_is_refused_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "x.zarr"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(IsADirectoryError) as caught:
        lt.save(target, lt.arange(3))
    assert str(caught.value) == (
        f"{target}: is a directory that is not a zarr array (no zarr.json or .zarray in it); lt.save "
        "replaces only a zarr array: remove it or save elsewhere"
    )
    assert caught.value.errno == errno.EISDIR
    assert listing(tmp_path) == ["x.zarr", "x.zarr/notes.txt"]


def test_a_zarr_array_holding_another_file_is_refused_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "x.zarr"
    zarr.create_array(target, shape=(2,), chunks=(1,), dtype="i1")[...] = 1
    (target / "c" / "notes.txt").write_text("mine")
    before = listing(tmp_path)
    with pytest.raises(
        IsADirectoryError, match=r"x\.zarr: is a directory that is not a zarr array \(it holds c/notes\.txt\)"
    ):
        lt.save(target, lt.arange(3))
    assert listing(tmp_path) == before


@pytest.mark.parametrize("version", [2, 3])
def test_a_zarr_group_is_refused_and_kept(tmp_path: Path, version: int) -> None:
    target = tmp_path / "x.zarr"
    group = zarr.open_group(target, mode="w", zarr_format=version)
    group.create_array("a", shape=(2,), dtype="i1")[...] = 5
    before = listing(tmp_path)
    with pytest.raises(
        IsADirectoryError, match=r"x\.zarr: is a directory that is not a zarr array \(a zarr group\)"
    ):
        lt.save(target, lt.arange(3))
    assert listing(tmp_path) == before
    assert zarr.open_array(target / "a", mode="r")[...].tolist() == [5, 5]


@pytest.mark.parametrize("points_to", ["folder", "store"])
def test_a_symbolic_link_is_refused_and_what_it_points_to_kept(tmp_path: Path, points_to: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    if points_to == "folder":
        elsewhere.mkdir()
        (elsewhere / "precious.txt").write_text("mine")
    else:
        zarr.create_array(elsewhere, shape=(2,), dtype="i1")[...] = 3
    link = tmp_path / "x.zarr"
    link.symlink_to(elsewhere)
    before = listing(tmp_path)
    with pytest.raises(FileExistsError) as caught:
        lt.save(link, lt.arange(3))
    assert str(caught.value) == (
        f"{link}: is a symbolic link (to {elsewhere}); lt.save never writes through a link: save to the "
        "path it points to, or remove the link"
    )
    assert listing(tmp_path) == before and link.is_symlink()


@pytest.mark.parametrize("kind", ["text", "fifo"])
def test_a_file_that_is_not_npy_is_refused_and_kept(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "x.zarr"
    if kind == "text":
        target.write_text("mine")
    else:
        os.mkfifo(target)
    what = "a file that is not a .npy file" if kind == "text" else "a FIFO (named pipe)"
    with pytest.raises(FileExistsError) as caught:
        lt.save(target, lt.arange(3))
    assert str(caught.value) == (
        f"{target}: is {what}; lt.save replaces only a zarr array or a .npy file: remove it or save elsewhere"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["x.zarr"]
    assert kind == "fifo" or target.read_text() == "mine"


def test_a_directory_at_a_npy_path_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "x.npy"
    target.mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        lt.save(target, lt.arange(3))
    assert str(caught.value) == f"{target}: is a directory, not a .npy file"
    assert listing(tmp_path) == ["x.npy"]


# -- no leftovers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".zarr", ".npy"])
@pytest.mark.parametrize("error", [OSError(errno.EIO, "Input/output error"), KeyboardInterrupt()])
def test_a_save_that_fails_or_is_interrupted_midway_keeps_the_old_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str, error: BaseException
) -> None:
    monkeypatch.setattr(ltio, "BLOCK_BYTES", 64)
    target = tmp_path / f"x{suffix}"
    lt.save(target, lt.arange(3))
    source = Rows(np.arange(300_000.0).reshape(600, 500), fail_on=2, error=error)  # chunks of zarr's choice
    with pytest.raises(type(error)) as caught:
        lt.save(target, lt.from_array(source))
    assert caught.value is error or str(caught.value) == str(error)  # the read's own error
    assert len(source.reads) == 3  # it failed on the third block, after writing two
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert lt.open(target).tolist() == [0, 1, 2]


def test_a_killed_save_s_folder_is_emptied_and_the_old_store_restored(tmp_path: Path) -> None:
    target = tmp_path / "x.zarr"
    work = tmp_path / hidden("x.zarr")
    work.mkdir()
    zarr.create_array(work / "old", shape=(2,), dtype="i1")[...] = 4  # killed between its two renames
    zarr.create_array(work / "new", shape=(3,), dtype="i1")[...] = 1
    lt.save(tmp_path / "y.zarr", lt.arange(2))  # another target: this folder is left alone
    assert sorted(p.name for p in work.iterdir()) == ["new", "old"]
    lt.save(target, lt.arange(2))
    assert zarr.open_array(target, mode="r")[...].tolist() == [0, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.zarr", "y.zarr"]


def test_a_killed_save_s_folder_holding_other_files_is_refused_and_kept(tmp_path: Path) -> None:
    work = tmp_path / hidden("x.zarr")
    work.mkdir()
    (work / "mine.txt").write_text("mine")
    with pytest.raises(FileExistsError) as caught:
        lt.save(tmp_path / "x.zarr", lt.arange(2))
    assert str(caught.value) == (
        f"{tmp_path / 'x.zarr'}: {work} holds mine.txt, which lt.save did not write: remove it"
    )
    assert listing(tmp_path) == [work.name, f"{work.name}/mine.txt"]


def test_a_save_of_the_same_store_already_running_is_refused(tmp_path: Path) -> None:
    work = tmp_path / hidden("x.zarr")
    work.mkdir()
    fd = os.open(work, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(BlockingIOError) as caught:
            lt.save(tmp_path / "x.zarr", lt.arange(2))
    finally:
        os.close(fd)
    assert str(caught.value) == f"{tmp_path / 'x.zarr'}: another save to this store is in progress"
    assert [p.name for p in tmp_path.iterdir()] == [work.name]


# -- the size limit, and blocks -----------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".zarr", ".npy"])
def test_a_result_larger_than_the_limit_is_refused_before_anything_is_written(
    tmp_path: Path, suffix: str
) -> None:
    target = tmp_path / f"big{suffix}"
    with pytest.raises(ValueError) as caught:
        lt.save(target, lt.ones(1).expand(10**10))
    assert str(caught.value) == (
        f"{target}: the tensor holds 80,000,000,000 bytes (74.5 GiB), more than lt.save writes unless "
        "asked (17,179,869,184); to write it, pass lt.save(path, t, max_bytes=80_000_000_000)"
    )
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match=r"holds 24 bytes .* \(16\); .* max_bytes=24\)$"):
        lt.save(target, lt.arange(3.0), max_bytes=16)
    lt.save(target, lt.arange(3.0), max_bytes=24)
    assert lt.open(target).tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1"])
def test_max_bytes_must_be_a_number_of_bytes(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(TypeError, match=r"^save: max_bytes must be a number of bytes \(an int >= 0\), not "):
        lt.save(tmp_path / "t.npy", lt.arange(3), max_bytes=bad)


@pytest.mark.parametrize("suffix", [".zarr", ".npy"])
@pytest.mark.parametrize("shape", [(), (0, 3), (7,), (5, 9), (3, 4, 6)])
def test_a_save_writes_what_numpy_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str, shape: tuple[int, ...]
) -> None:
    monkeypatch.setattr(ltio, "BLOCK_BYTES", 40)  # five float64s
    values = np.arange(float(np.prod(shape))).reshape(shape)
    source = Rows(values)
    target = tmp_path / f"t{suffix}"
    lt.save(target, lt.from_array(source))
    assert lt.open(target).numpy().tolist() == values.tolist()
    if suffix == ".npy":
        read = [values[region].size for region in source.reads]
        assert sum(read) == values.size and all(size <= 5 for size in read)
        np.save(tmp_path / "np.npy", values)
        assert target.read_bytes() == (tmp_path / "np.npy").read_bytes()


def test_a_save_to_zarr_reads_blocks_of_whole_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ltio, "BLOCK_BYTES", 1 << 20)
    values = np.arange(600 * 500.0).reshape(600, 500)
    source = Rows(values)
    target = tmp_path / "t.zarr"
    lt.save(target, lt.from_array(source))
    saved = zarr.open_array(target, mode="r")
    assert saved[...].tolist() == values.tolist()
    chunks = saved.chunks
    assert 1 < len(source.reads) < values.nbytes // np.prod(chunks) // 8
    for region in source.reads:
        for piece, chunk, length in zip(region, chunks, values.shape, strict=True):
            assert piece.start % chunk == 0 and (piece.stop % chunk == 0 or piece.stop == length)


CHILD = """
import sys, time
import numpy as np
import lazytensor as lt
import lazytensor.api.files as ltio

ltio.BLOCK_BYTES = 1 << 14


class Slow:
    shape, dtype = (1024, 512), np.dtype("f8")

    def __getitem__(self, key):
        print("read", flush=True)
        time.sleep(0.05)
        return np.ones(self.shape)[key]


lt.save(sys.argv[1], lt.from_array(Slow()))
"""


@pytest.mark.parametrize("suffix", [".zarr", ".npy"])
def test_ctrl_c_during_a_save_keeps_the_old_and_leaves_nothing(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"x{suffix}"
    lt.save(target, lt.arange(3))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    for _ in range(3):  # a few blocks written
        assert child.stdout.readline() == "read\n"
    child.send_signal(signal.SIGINT)
    _, errors = child.communicate(timeout=60)
    assert child.returncode != 0 and "KeyboardInterrupt" in errors
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert lt.open(target).tolist() == [0, 1, 2]


shapes = st.lists(st.integers(0, 6), max_size=4).map(tuple)


@given(shape=shapes, itemsize=st.sampled_from([0, 1, 8]), budget=st.integers(1, 400))
def test_c_order_blocks_are_the_array_in_c_order(shape: tuple[int, ...], itemsize: int, budget: int) -> None:
    values = np.arange(int(np.prod(shape))).reshape(shape)
    blocks = [values[region].reshape(-1) for region in ltio._c_order_blocks(shape, itemsize, budget)]
    joined = np.concatenate(blocks) if blocks else np.zeros(0, dtype=values.dtype)
    assert joined.tolist() == values.reshape(-1).tolist()
    assert all(block.size * max(itemsize, 1) <= budget or block.size == 1 for block in blocks)


@given(data=st.data(), shape=shapes)
def test_chunk_blocks_tile_the_array_with_whole_chunks(data: st.DataObject, shape: tuple[int, ...]) -> None:
    chunks = tuple(data.draw(st.integers(1, max(n, 1))) for n in shape)
    seen = np.zeros(shape, dtype=int)
    for region in ltio._chunk_blocks(shape, chunks, 8):
        seen[region] += 1
        for piece, chunk, length in zip(region, chunks, shape, strict=True):
            assert piece.start % chunk == 0 and (piece.stop % chunk == 0 or piece.stop == length)
    assert (seen == 1).all()


def test_a_file_at_the_old_hidden_name_that_no_save_wrote_is_left_alone(tmp_path: Path) -> None:
    legacy = tmp_path / (hidden("x.zarr") + ".old")  # where an earlier lazytensor moved the old store
    legacy.write_text("mine")
    lt.save(tmp_path / "x.zarr", lt.arange(2))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([legacy.name, "x.zarr"])
    assert legacy.read_text() == "mine" and lt.open(tmp_path / "x.zarr").tolist() == [0, 1]


def test_a_npy_file_the_device_has_no_room_for_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.npy"
    real = os.statvfs(tmp_path)
    full = os.statvfs_result((*real[:4], 2, *real[5:]))  # two blocks free for the user
    monkeypatch.setattr(os, "statvfs", lambda path: full)
    size = 10**6 * 8
    with pytest.raises(OSError) as caught:
        lt.save(target, lt.ones(1).expand(10**6))
    assert caught.value.errno == errno.ENOSPC
    assert str(caught.value) == (
        f"{target}: no space left on the device (saving {size:,} bytes; {2 * real.f_frsize:,} are free)"
    )
    assert list(tmp_path.iterdir()) == []

"""The key of a stored array's write lock: a local store's identity on disk (so every spelling of
its path shares one lock), else its store path, else the object itself, so that two arrays without
a path never share one lock.

Reaches into `lazytensor.bases.writelock`: the lock's key (`array_key`) and `serialised` are the
module's own functions.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.bases.writelock import array_key, serialised

zarr = pytest.importorskip("zarr")


def test_arrays_without_a_store_path_are_named_by_their_identity() -> None:
    first, second = object(), SimpleNamespace(store_path="")
    assert array_key(first) == f"object at {id(first):#x}"
    assert array_key(second) == f"object at {id(second):#x}"
    assert array_key(first) != array_key(second)


def test_an_array_with_a_store_path_is_named_by_it() -> None:
    assert array_key(SimpleNamespace(store_path="data/x")) == "data/x"
    assert array_key(SimpleNamespace(store_path="data/x")) == array_key(SimpleNamespace(store_path="data/x"))


def test_writes_to_two_arrays_do_not_wait_for_each_other() -> None:
    first, second = np.zeros(2), np.zeros(2)
    holding, release = threading.Event(), threading.Event()

    def hold_first() -> None:
        with serialised(first):
            holding.set()
            release.wait(10)

    def write_second() -> None:
        with serialised(second):
            second[0] = 1

    holder, writer = threading.Thread(target=hold_first), threading.Thread(target=write_second)
    holder.start()
    assert holding.wait(10)
    writer.start()
    writer.join(5)  # while the first array's lock is held
    finished = not writer.is_alive()
    release.set()
    holder.join()
    writer.join()
    assert finished and second[0] == 1


def _spellings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """One zarr array of one chunk of 400 rows, opened by a relative path, an absolute path through
    a symbolic link, and its group's path with the array's key."""
    zarr.create_array(tmp_path / "s.zarr", shape=(400, 2), chunks=(400, 2), dtype="f8", fill_value=0)
    group = zarr.open_group(tmp_path / "g.zarr", mode="w")
    group.create_array("a", shape=(400, 2), chunks=(400, 2), dtype="f8", fill_value=0)
    (tmp_path / "link.zarr").symlink_to("s.zarr")
    monkeypatch.chdir(tmp_path)
    return [lt.open("s.zarr"), lt.open(tmp_path / "link.zarr"), lt.open("g.zarr", "a"), lt.open("g.zarr/a")]


def test_every_spelling_of_a_local_store_names_one_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    relative, linked, in_group, by_folder = (t.base.array for t in _spellings(tmp_path, monkeypatch))
    assert (
        array_key(relative)
        == array_key(linked)
        == f"inode {os.stat('s.zarr').st_dev}:{os.stat('s.zarr').st_ino}"
    )
    assert array_key(in_group) == array_key(by_folder) != array_key(relative)


def test_threads_writing_rows_of_one_chunk_through_two_spellings_lose_no_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    relative, linked = _spellings(tmp_path, monkeypatch)[:2]

    def write(t: Any, rows: range) -> None:
        for row in rows:
            t[row][...] = row + 1  # a read-modify-write of the one chunk

    threads = [
        threading.Thread(target=write, args=(relative, range(0, 400, 2))),
        threading.Thread(target=write, args=(linked, range(1, 400, 2))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert zarr.open_array(tmp_path / "s.zarr", mode="r")[:, 0].tolist() == [float(r + 1) for r in range(400)]

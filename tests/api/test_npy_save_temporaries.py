"""The temporary file `save` writes before its rename: named within the file system's own limit,
never followed through a symbolic link planted at its name, and a stale one reused.

Reaches into `lazytensor.api.files`: the temporary a save writes is found by the module's own naming
rule, and its lock is taken or swapped there to stage the races.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
import lazytensor.api.files as ltio


def test_a_stale_temporary_cut_to_the_file_system_s_limit_is_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_pathconf = os.pathconf

    def pathconf(path: Any, name: str) -> int:
        return 28 if name == "PC_NAME_MAX" else real_pathconf(path, name)

    monkeypatch.setattr(os, "pathconf", pathconf)
    target = tmp_path / "a-long-array-name.npy"
    stale = tmp_path / ltio.temporary_name(target.name, 28)  # a killed save's, on a 28-byte file system
    assert len(stale.name) == 28
    stale.write_bytes(b"half of an earlier save")
    lt.save(target, lt.arange(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    assert np.load(target).tolist() == [0, 1, 2]


def test_a_symbolic_link_at_the_temporary_name_is_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "t.npy"
    np.save(target, np.arange(3))
    victim = tmp_path / "victim"
    planted = tmp_path / ltio.temporary_name(target.name)
    planted.symlink_to(victim)  # a save through it would create or overwrite `victim`
    with pytest.raises(OSError) as caught:
        lt.save(target, lt.arange(4))
    assert caught.value.errno == errno.ELOOP
    assert str(caught.value) == f"{target}: cannot be saved ({os.strerror(errno.ELOOP)})"
    assert not victim.exists() and np.load(target).tolist() == [0, 1, 2]


def test_a_temporary_swapped_for_a_link_to_itself_while_waiting_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.npy"
    np.save(target, np.arange(3))
    temporary = tmp_path / ltio.temporary_name(target.name)
    moved = tmp_path / "moved"
    real_flock = ltio.fcntl.flock

    def flock_then_swap(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        if not moved.exists():  # meanwhile the file we opened went elsewhere, a link took its name
            os.replace(temporary, moved)
            temporary.symlink_to(moved)

    monkeypatch.setattr(ltio.fcntl, "flock", flock_then_swap)
    with pytest.raises(OSError) as caught:
        lt.save(target, lt.arange(4))
    assert caught.value.errno == errno.ELOOP
    assert not target.is_symlink() and np.load(target).tolist() == [0, 1, 2]
    assert moved.read_bytes() == b""


def test_a_temporary_removed_by_another_during_a_failed_save_keeps_the_first_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.npy"
    temporary = tmp_path / ltio.temporary_name(target.name)

    def fsync_fails(fd: int) -> None:
        temporary.unlink()
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync_fails)
    with pytest.raises(OSError) as caught:
        lt.save(target, lt.arange(4))
    assert type(caught.value) is OSError and caught.value.errno == errno.EIO
    assert str(caught.value) == f"{target}: cannot be saved (Input/output error)"
    assert list(tmp_path.iterdir()) == []


def test_a_save_already_running_is_refused_with_eagain(tmp_path: Path) -> None:
    target = tmp_path / "t.npy"
    temporary = tmp_path / ltio.temporary_name(target.name)
    with open(temporary, "wb") as running:
        ltio.fcntl.flock(running.fileno(), ltio.fcntl.LOCK_EX)
        with pytest.raises(BlockingIOError) as caught:
            lt.save(target, lt.arange(4))
    assert caught.value.errno == errno.EAGAIN
    assert str(caught.value) == f"{target}: another save to this file is in progress"
    assert not target.exists()

"""Who may load and save what, as numpy decides it: a new file gets the mode `np.save` gives it
under the same umask, and a file the effective user may not read (or, to save, write) is a
PermissionError with EACCES in one line (a set-user-ID program's rights are its effective user's)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import lazytensor as lt

NOBODY = 65534


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077])
def test_a_new_file_gets_the_mode_numpy_gives_it(tmp_path: Path, mask: int) -> None:
    with umask(mask):
        np.save(tmp_path / "np.npy", np.arange(3))
        lt.save(tmp_path / "lt.npy", lt.arange(3))
    modes = [stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("np.npy", "lt.npy")]
    assert modes[0] == modes[1] == 0o666 & ~mask


@contextmanager
def effective_user(uid: int) -> Iterator[None]:
    """Act as `uid` where this process is root (as a set-user-ID program does); else stay as is."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(uid)
    try:
        yield
    finally:
        os.seteuid(0)


def test_a_read_only_file_is_refused_for_the_effective_user_as_numpy_refuses_it() -> None:
    with tempfile.TemporaryDirectory() as name:  # under /tmp: another user can reach it
        folder = Path(name)
        folder.chmod(0o777)
        owner = NOBODY if os.geteuid() == 0 else os.geteuid()
        for file in ("np.npy", "lt.npy"):
            np.save(folder / file, np.zeros(2))
            (folder / file).chmod(0o444)
            if os.geteuid() == 0:
                os.chown(folder / file, owner, owner)
        with effective_user(owner):
            with pytest.raises(PermissionError):
                np.save(folder / "np.npy", np.arange(3.0))
            with pytest.raises(PermissionError) as caught:
                lt.save(folder / "lt.npy", lt.arange(3.0))
        target = folder / "lt.npy"
        assert str(caught.value) == f"{target}: permission denied (the file is read-only)"
        assert caught.value.errno == errno.EACCES
        assert np.load(target).tolist() == [0.0, 0.0]
        assert sorted(p.name for p in folder.iterdir()) == ["lt.npy", "np.npy"]


def test_a_file_the_effective_user_may_not_reach_or_read_is_a_permission_error() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        folder.chmod(0o777)
        closed = folder / "closed"  # a folder the user may not search: the stat is refused
        closed.mkdir()
        np.save(closed / "t.npy", np.arange(3))
        unreadable = folder / "unreadable.npy"  # a file the user may not read: the open is refused
        np.save(unreadable, np.arange(3))
        closed.chmod(0o000)
        unreadable.chmod(0o000)
        owner = NOBODY if os.geteuid() == 0 else os.geteuid()
        try:
            with effective_user(owner):
                for path in (closed / "t.npy", unreadable):
                    with pytest.raises(PermissionError):
                        np.load(path)
                    with pytest.raises(PermissionError) as caught:
                        lt.load(path)
                    assert str(caught.value) == f"{path}: permission denied"
                    assert caught.value.errno == errno.EACCES
        finally:
            closed.chmod(0o700)

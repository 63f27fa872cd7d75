"""The temporary file `save` writes before its rename: named within the file system's own limit,
never followed through a symbolic link planted at its name, and a stale one reused."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
import lazytensor.io as ltio


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

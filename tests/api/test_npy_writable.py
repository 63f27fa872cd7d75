"""`lt.load(path, mode="r+")` maps a `.npy` file for writing: writes through any view reach the file,
a read-only load refuses a write in one line that says how to ask for it, and nothing changes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import lazytensor as lt


@pytest.fixture
def path(tmp_path: Path) -> Path:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(12.0).reshape(3, 4))
    return path


def test_a_writable_load_writes_through_every_view_to_the_file(path: Path) -> None:
    t = lt.load(path, mode="r+")
    t.T[::-1][[0, 2], 1] = -1.0  # a fancy view over a reversed transpose
    expected = np.arange(12.0).reshape(3, 4)
    expected.T[::-1][[0, 2], 1] = -1.0
    np.testing.assert_array_equal(np.load(path), expected)
    assert lt.load(path).tolist() == expected.tolist()


def test_a_fortran_file_maps_for_writing_too(tmp_path: Path) -> None:
    path = tmp_path / "f.npy"
    np.save(path, np.asfortranarray(np.arange(6).reshape(2, 3)))
    t = lt.load(path, mode="r+")
    t[1, 2] = 50
    assert np.load(path)[1, 2] == 50


def test_a_read_only_load_refuses_in_one_line_saying_how(path: Path) -> None:
    t = lt.load(path)
    with pytest.raises(ValueError) as raised:
        t[::2] = 0.0
    assert str(raised.value) == (
        f"cannot write to {path}: it is memory-mapped read-only; "
        "lt.load(path, mode='r+') maps it for writing (in the repl: --writable)"
    )
    np.testing.assert_array_equal(np.load(path), np.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "w"}, "load: mode must be 'r' (read-only) or 'r+' (write through to the file), got 'w'"),
        (
            {"mode": "r+", "mmap": False},
            "load: mode='r+' writes through a memory map; with mmap=False writes would not reach the file",
        ),
    ],
)
def test_a_mode_that_cannot_be_kept_is_refused(path: Path, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        lt.load(path, **kwargs)  # type: ignore[arg-type]

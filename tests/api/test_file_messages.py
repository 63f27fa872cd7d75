"""The smaller file messages: a file name with a newline or another control character is escaped in
every error (one line, nothing sent to the terminal but text); a folder that is not writable is
named as the reason a save fails; an `.npz` archive is named as what `lt.open` does not read; a
`|S0` `.npy` file loads as `|S0`, as numpy loads it."""

from __future__ import annotations

import errno
import io
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

zarr = pytest.importorskip("zarr")

NOBODY = 65534
ODD = "a\nb\x1b[31m\t"
ESCAPED = "a\\nb\\x1b[31m\\t"


def raised(call: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


def one_line(error: BaseException, folder: Path, name: str) -> str:
    """The message of `error`, checked to be one line of text naming `folder / name` escaped."""
    message = str(error)
    assert message.isprintable(), message
    assert f"{folder}/{name.replace(ODD, ESCAPED)}" in message
    return message


def test_a_missing_or_broken_npy_file_is_named_escaped(tmp_path: Path) -> None:
    name = f"{ODD}.npy"
    message = one_line(raised(lambda: lt.load(tmp_path / name)), tmp_path, name)
    assert message.endswith(": no such file")
    (tmp_path / name).write_text("hello")
    assert one_line(raised(lambda: lt.open(tmp_path / name)), tmp_path, name).endswith("(it is text)")


def test_a_shrunk_memory_mapped_file_is_named_escaped(tmp_path: Path) -> None:
    path = tmp_path / f"{ODD}.npy"
    np.save(path, np.arange(1000.0))
    t = lt.load(path)
    os.truncate(path, 64)
    one_line(raised(t.sum), tmp_path, path.name)


def test_zarr_stores_are_named_escaped(tmp_path: Path) -> None:
    empty = tmp_path / f"{ODD}.zarr"
    empty.mkdir()
    assert "not a .npy file nor a zarr array" in one_line(
        raised(lambda: lt.open(empty)), tmp_path, empty.name
    )
    (empty / "notes.txt").write_text("mine")
    one_line(raised(lambda: lt.save(empty, lt.arange(3))), tmp_path, empty.name)
    store = tmp_path / f"{ODD}s.zarr"
    zarr.create_array(store, shape=(4,), chunks=(2,), dtype="f8")[...] = 1.0
    (store / "c" / "0").write_bytes(b"not what the codec wrote")
    t = lt.open(store)
    assert ": key c/0: cannot read" in one_line(raised(t.sum), tmp_path, store.name)


def test_an_npz_archive_is_named_as_what_open_does_not_read(tmp_path: Path) -> None:
    path = tmp_path / f"{ODD}.npz"
    np.savez(path, a=np.arange(3))
    message = one_line(raised(lambda: lt.open(path)), tmp_path, path.name)
    assert message.endswith(
        ": an .npz archive holds several arrays, which lt.open does not read: load one with numpy "
        "(np.load(path)[name]) and pass it to lt.tensor, or save each as .npy"
    )
    other = tmp_path / "t.bin"
    other.write_bytes(b"data")
    assert str(raised(lambda: lt.open(other))) == (
        f"{other}: not a .npy (by its name), HDF5 or netCDF file (by its suffix: .h5, .hdf5, .he5, .nc, "
        ".nc4, .cdf) nor a zarr store (a folder)"
    )


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("descr", ["|S0", "|V0", "<U0"])
def test_a_zero_byte_string_npy_loads_with_its_dtype_as_numpy_loads_it(
    tmp_path: Path, mmap: bool, descr: str
) -> None:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False, "shape": (3,)})
    path = tmp_path / "empty-strings.npy"
    path.write_bytes(header.getvalue())
    expected = np.load(path)
    loaded = lt.load(path, mmap=mmap)
    assert loaded.dtype == expected.dtype == np.dtype(descr) and loaded.shape == (3,)
    assert loaded.numpy().tolist() == expected.tolist()


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


@pytest.mark.parametrize("name", ["t.npy", "t.zarr"])
@pytest.mark.parametrize("exists", [False, True])
def test_saving_into_a_folder_that_is_not_writable_names_the_folder(name: str, exists: bool) -> None:
    with tempfile.TemporaryDirectory() as parent:  # under /tmp: another user can reach it
        Path(parent).chmod(0o755)
        folder = Path(parent) / "read-only"
        folder.mkdir()
        target = folder / name
        if exists:
            lt.save(target, lt.zeros(2))
            if name == "t.npy":
                target.chmod(0o666)  # the file itself writable: np.save would write it in place
        before = sorted(p.name for p in folder.iterdir())
        folder.chmod(0o555)
        try:
            with (
                effective_user(NOBODY if os.geteuid() == 0 else os.geteuid()),
                pytest.raises(PermissionError) as caught,
            ):
                lt.save(target, lt.arange(3.0))
        finally:
            folder.chmod(0o755)
        assert str(caught.value) == (
            f"{target}: permission denied (the folder {folder} is not writable; lt.save writes a new "
            "file there, then renames it over the old one)"
        )
        assert caught.value.errno == errno.EACCES
        assert sorted(p.name for p in folder.iterdir()) == before

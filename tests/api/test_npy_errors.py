"""Every refusal of `load`, `save` and `open` in full (the file named, what is wrong, the right
exception type and errno), and the edges of what they accept: header limits at their bounds,
Fortran order with names, zero-size arrays, partial writes.

Reaches into `lazytensor.api.files` and `lazytensor.bases.zarrstore`: the failures planted here (a
short write, a rename race under the lock, no netCDF engine) can only be planted in the module that
meets them, its private checks and temporary names are called directly, and zarr's own error is read
from the safe store to compare.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
import xarray as xr
import zarr
from import_support import refuse_import

import lazytensor as lt
import lazytensor.api.files as ltio
from lazytensor.bases import zarrstore


def npy_bytes(header: str, version: int = 1) -> bytes:
    encoded = header.encode("latin1")
    return (
        b"\x93NUMPY"
        + bytes([version, 0])
        + len(encoded).to_bytes(2 if version == 1 else 4, "little")
        + encoded
    )


def header_of(shape: str, descr: str = "<f8", fortran: bool = False) -> str:
    return f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}"


REFUSED = {
    "short.npy": (b"\x93NUMPY\x01", "truncated .npy file (it ends inside the header)"),
    "no-length.npy": (b"\x93NUMPY\x01\x00\x05", "truncated .npy file (it ends inside the header)"),
    "short-length-2.npy": (b"\x93NUMPY\x02\x00\x05\x00", "truncated .npy file (it ends inside the header)"),
    "short-length-3.npy": (b"\x93NUMPY\x03\x00\x05\x00", "truncated .npy file (it ends inside the header)"),
    "version-1-1.npy": (b"\x93NUMPY\x01\x01\x00\x00", "unsupported .npy format version 1.1"),
    "version-0-0.npy": (b"\x93NUMPY\x00\x00\x00\x00", "unsupported .npy format version 0.0"),
    "cut-header.npy": (
        b"\x93NUMPY\x01\x00\x50\x00{'descr'",
        "truncated .npy file (it ends inside its 80-byte header)",
    ),
    "header-10001.npy": (
        b"\x93NUMPY\x02\x00\x11\x27\x00\x00",
        "corrupt .npy header (10001 bytes; at most 10000)",
    ),
    "header-10000.npy": (
        b"\x93NUMPY\x02\x00\x10\x27\x00\x00",
        "truncated .npy file (it ends inside its 10000-byte header)",
    ),
    "negative.npy": (npy_bytes(header_of("(-1,)")), "corrupt .npy header (shape (-1,) holds -1, not a size)"),
    "axes-33.npy": (
        npy_bytes(header_of("(" + "1, " * 33 + ")", "|u1")) + b"\0",
        "the array has 33 axes; at most 32 are supported",
    ),
    "short-data.npy": (
        npy_bytes(header_of("(3,)")) + bytes(16),
        "truncated or corrupt .npy file (its header's shape (3,) of float64 needs 24 bytes of data; "
        "the file holds 16)",
    ),
    "objects.npy": (
        npy_bytes(header_of("(1,)", "|O")) + bytes(8),
        "holds Python objects (pickled data); lazytensor never unpickles",
    ),
    "pickle-2.npy": (
        b"\x80\x02" + bytes(10),
        "not a .npy file (it is a Python pickle (lazytensor never unpickles))",
    ),
    "pickle-5.npy": (
        b"\x80\x05" + bytes(10),
        "not a .npy file (it is a Python pickle (lazytensor never unpickles))",
    ),
    "protocol-6.npy": (
        b"\x80\x06" + bytes(10),
        "not a .npy file (it is binary data without the .npy magic string)",
    ),
    "protocol-1.npy": (
        b"\x80\x01" + bytes(10),
        "not a .npy file (it is binary data without the .npy magic string)",
    ),
    "zip.npy": (b"PK\x03\x04" + bytes(20), "not a .npy file (it is a zip archive (an .npz file?))"),
    "empty-zip.npy": (b"PK\x05\x06" + bytes(20), "not a .npy file (it is a zip archive (an .npz file?))"),
    "binary.npy": (b"\xff\xfe\x00", "not a .npy file (it is binary data without the .npy magic string)"),
    "control.npy": (b"\x01\x02abc", "not a .npy file (it is something else)"),
    "spaces.npy": (b"   \t  ", "not a .npy file (it is text)"),
    "lines.npy": (b"a\x01\nb", "not a .npy file (it is text)"),
    "empty.npy": (b"", "not a .npy file (it is empty)"),
    "nested-17.npy": (
        npy_bytes(header_of("(" + "(" * 16 + "1" + ")" * 16 + ",)")),
        "corrupt .npy header (brackets nested deeper than 16)",
    ),
    "signs-5.npy": (
        npy_bytes(header_of("(- - - - - 1,)")),
        "corrupt .npy header (a run of more than 4 signs)",
    ),
    "signs-mixed.npy": (
        npy_bytes(header_of("(+-~-+1,)")),
        "corrupt .npy header (a run of more than 4 signs)",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("mmap", [True, False])
def test_each_malformed_file_is_refused_in_full(tmp_path: Path, name: str, mmap: bool) -> None:
    content, message = REFUSED[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ValueError) as caught:
        lt.load(path, mmap=mmap)
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        (header_of("[1]"), re.escape("[1]")),  # numpy's parser refuses a list before we see it
        (header_of("(1.0,)"), re.escape("(1.0,)")),
        ("{'descr': 5, 'fortran_order': False, 'shape': (1,), }", "5"),
        ("[1, 2, 3]", ".+"),
    ],
)
def test_what_numpys_parser_refuses_is_one_line_of_ours(tmp_path: Path, header: str, detail: str) -> None:
    path = tmp_path / "h.npy"
    path.write_bytes(npy_bytes(header) + bytes(8))
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))}: corrupt \.npy header \([^\n]*{detail}[^\n]*\)$"
    ):
        lt.load(path)


def test_a_long_parser_message_is_cut_at_200_characters(tmp_path: Path) -> None:
    path = tmp_path / "long.npy"
    path.write_bytes(npy_bytes("{'descr': '" + "q" * 300 + "', 'fortran_order': False, 'shape': (1,), }"))
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    prefix = f"{path}: corrupt .npy header ("
    message = str(caught.value)
    assert message.startswith(prefix) and message.endswith("q…)")
    assert len(message) == len(prefix) + 200 + len("…)")


def test_a_parser_error_without_a_message_is_named_by_its_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise RecursionError

    monkeypatch.setattr(np.lib.format, "read_array_header_1_0", fail)
    path = tmp_path / "r.npy"
    np.save(path, np.arange(3))
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))}: corrupt \.npy header \(RecursionError\)$"
    ):
        lt.load(path)


def test_a_parser_error_whose_argument_is_no_string_is_shown_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise ValueError(17, "text\n  spread")

    monkeypatch.setattr(np.lib.format, "read_array_header_1_0", fail)
    path = tmp_path / "r.npy"
    np.save(path, np.arange(3))
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))}: corrupt \.npy header \(\(17, 'text\\n spread'\)\)$"
    ):
        lt.load(path)


def test_a_parser_that_returns_no_dtype_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(np.lib.format, "read_array_header_1_0", lambda *a, **k: ((1,), False, "<f8"))
    path = tmp_path / "d.npy"
    np.save(path, np.arange(1.0))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: corrupt \.npy header \(no dtype\)$"):
        lt.load(path)


@pytest.mark.parametrize(
    ("shape", "shown"),
    [(["x"], "['x']"), ((1, True), "(1, True)"), ((2, 1.0), "(2, 1.0)")],
)
def test_shapes_numpy_lets_through_are_checked_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: Any, shown: str
) -> None:
    monkeypatch.setattr(
        np.lib.format, "read_array_header_1_0", lambda *a, **k: (shape, False, np.dtype("u1"))
    )
    path = tmp_path / "s.npy"
    np.save(path, np.zeros(4, dtype=np.uint8))
    if isinstance(shape, list):
        message = f"{path}: corrupt .npy header (shape {shown} is not a tuple)"
    else:
        message = (
            f"{path}: corrupt .npy header (shape {shown} holds {shown[1:-1].split(', ')[1]}, not a size)"
        )
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    assert str(caught.value) == message


def test_limits_are_inclusive(tmp_path: Path) -> None:
    """16 nested brackets, 4 signs in a row and 32 axes (a subarray's included) pass our checks."""
    nested = tmp_path / "nested.npy"
    nested.write_bytes(
        npy_bytes(header_of("(" + "(" * 14 + "1" + ")" * 14 + ",)")) + bytes(8)
    )  # 16 with the dict's
    assert lt.load(nested).tolist() == [0.0]
    signs = tmp_path / "signs.npy"
    signs.write_bytes(npy_bytes(header_of("(- - - - 1,)")))
    with pytest.raises(ValueError, match=r"corrupt \.npy header") as caught:
        lt.load(signs)
    assert "a run of more than" not in str(caught.value)
    quoted = tmp_path / "quoted.npy"  # brackets and signs inside a string are not counted
    quoted.write_bytes(
        npy_bytes(
            "{'descr': '<f8', 'x': '((((((((((((((((((((-----\\'', 'fortran_order': False, 'shape': (1,), }"
        )
    )
    with pytest.raises(ValueError, match="correct keys"):
        lt.load(quoted)
    axes = tmp_path / "axes.npy"
    np.save(axes, np.zeros((1,) * 32, dtype=np.uint8))
    assert lt.load(axes).shape == (1,) * 32


def test_a_subarray_dtype_counts_its_axes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        np.lib.format, "read_array_header_1_0", lambda *a, **k: ((1,) * 31, False, np.dtype(("u1", (1, 1))))
    )
    path = tmp_path / "sub.npy"
    np.save(path, np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    assert str(caught.value) == f"{path}: the array has 33 axes; at most 32 are supported"


def test_headers_are_quoted_with_escapes_and_odd_quotes_intact(tmp_path: Path) -> None:
    # a quoted '(' after an escaped quote, and a double-quoted string: neither counts as nesting
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    escaped = tmp_path / "escaped.npy"
    escaped.write_bytes(npy_bytes(header.replace("'<f8'", "'<f8'") + " " * 4 + "\n") + bytes(16))
    assert lt.load(escaped).tolist() == [0.0, 0.0]
    double = tmp_path / "double.npy"
    double.write_bytes(npy_bytes(header.replace("'<f8'", '"<f8"')) + bytes(16))
    assert lt.load(double).tolist() == [0.0, 0.0]


# -- what loads ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (0, 3), (3,), ()])
def test_fortran_order_files_load_as_numpy_with_names_in_order(
    tmp_path: Path, mmap: bool, shape: tuple[int, ...]
) -> None:
    array = np.array(np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape), order="F")
    path = tmp_path / "f.npy"
    np.save(path, array)
    names = tuple(f"ax{k}" for k in range(len(shape)))
    loaded = lt.load(path, mmap=mmap, names=names)
    np.testing.assert_array_equal(loaded.numpy(), np.load(path))
    assert loaded.dtype == np.int16 and loaded.names == names
    assert lt.load(path, mmap=mmap).names == (None,) * len(shape)
    base = loaded.base
    assert isinstance(base, lt.StorageTensor)
    assert base.storage.flags.c_contiguous
    assert (base.storage_note == "memory-mapped") is (mmap and 0 not in shape)


@pytest.mark.parametrize("mmap", [True, False])
def test_arrays_without_elements_or_bytes_load_without_a_map(tmp_path: Path, mmap: bool) -> None:
    for array in (np.zeros((0, 3)), np.zeros((2, 0), order="F"), np.empty((2, 3), dtype=[])):
        path = tmp_path / "e.npy"
        np.save(path, array)
        loaded = lt.load(path, mmap=mmap)
        expected = np.load(path)
        assert loaded.shape == expected.shape and loaded.dtype == expected.dtype
        assert loaded.base.storage_note != "memory-mapped"


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("mmap", [True, False])
def test_every_format_version_loads(tmp_path: Path, version: tuple[int, int], mmap: bool) -> None:
    array = np.arange(6.0).reshape(2, 3)
    path = tmp_path / "v.npy"
    with open(path, "wb") as file:
        np.lib.format.write_array(file, array, version=version)
    loaded = lt.load(path, mmap=mmap)
    np.testing.assert_array_equal(loaded.numpy(), array)
    assert (loaded.storage_note == "memory-mapped") is mmap


def test_unreadable_data_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "d.npy"
    np.save(path, np.arange(4.0))

    def fail(*args: Any, **kwargs: Any) -> None:
        raise OSError("mmap length\n is greater")

    monkeypatch.setattr(np, "memmap", fail)
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    assert str(caught.value) == f"{path}: cannot read the array data (mmap length is greater)"


def test_special_files_in_full(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.npy"
    os.mkfifo(fifo)
    with pytest.raises(ValueError) as caught:
        lt.load(fifo)
    assert str(caught.value) == f"{fifo}: is a FIFO (named pipe), not a regular .npy file"
    with pytest.raises(ValueError) as caught:
        lt.load("/dev/null")
    assert str(caught.value) == "/dev/null: is a character device, not a regular .npy file"
    with pytest.raises(IsADirectoryError) as directory:
        lt.load(tmp_path)
    assert str(directory.value) == f"{tmp_path}: is a directory, not a .npy file"
    assert directory.value.errno == errno.EISDIR
    with pytest.raises(FileNotFoundError) as missing:
        lt.load(tmp_path / "missing.npy")
    assert (
        str(missing.value) == f"{tmp_path / 'missing.npy'}: no such file"
        and missing.value.errno == errno.ENOENT
    )
    loop = tmp_path / "loop.npy"
    loop.symlink_to(loop)
    with pytest.raises(ValueError) as caught:
        lt.load(loop)
    assert str(caught.value) == f"{loop}: cannot be opened (Too many levels of symbolic links)"


def test_a_socket_and_other_kinds_are_named() -> None:
    for kind, words in (
        (stat.S_IFSOCK, "a socket"),
        (stat.S_IFBLK, "a block device"),
        (stat.S_IFLNK, "a symbolic link"),
        (0, "not a regular file"),
    ):
        with pytest.raises(ValueError) as caught:
            ltio._require_regular("x.npy", kind)
        assert str(caught.value) == f"x.npy: is {words}, not a regular .npy file"
    ltio._require_regular("x.npy", stat.S_IFREG)


def test_a_file_replaced_by_a_fifo_after_the_stat_is_refused_without_blocking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "swapped.npy"
    os.mkfifo(fifo)
    real_stat = os.stat
    regular = real_stat(__file__)
    monkeypatch.setattr(
        os, "stat", lambda name, *a, **k: regular if name == str(fifo) else real_stat(name, *a, **k)
    )
    with pytest.raises(ValueError) as caught:
        lt.load(fifo)  # opened non-blocking, then refused by fstat
    assert str(caught.value) == f"{fifo}: is a FIFO (named pipe), not a regular .npy file"


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (FileNotFoundError(errno.ENOENT, "gone"), FileNotFoundError, "no such file"),
        (PermissionError(errno.EACCES, "no"), PermissionError, "permission denied"),
        (OSError(errno.ELOOP, "Too many levels"), ValueError, "cannot be opened (Too many levels)"),
        (OSError("no strerror"), ValueError, "cannot be opened (no strerror)"),
    ],
)
def test_a_failed_open_after_the_stat_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, kind: type, message: str
) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(3))

    def fail(*args: Any, **kwargs: Any) -> int:
        raise error

    monkeypatch.setattr(os, "open", fail)
    with pytest.raises(kind) as caught:
        lt.load(path)
    assert str(caught.value) == f"{path}: {message}"
    if kind is not ValueError:
        assert caught.value.errno == error.errno


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (PermissionError(errno.EACCES, "no"), PermissionError, "permission denied"),
        (
            OSError(errno.ENAMETOOLONG, "File name too long"),
            ValueError,
            "cannot be opened (File name too long)",
        ),
    ],
)
def test_a_failed_stat_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, kind: type, message: str
) -> None:
    def fail(*args: Any, **kwargs: Any) -> os.stat_result:
        raise error

    monkeypatch.setattr(os, "stat", fail)
    with pytest.raises(kind) as caught:
        lt.load(tmp_path / "t.npy")
    assert str(caught.value) == f"{tmp_path / 't.npy'}: {message}"


def test_load_closes_the_file_it_refuses(tmp_path: Path) -> None:
    path = tmp_path / "bad.npy"
    path.write_bytes(b"not npy at all")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        with pytest.raises(ValueError):
            lt.load(path)
    assert len(os.listdir("/proc/self/fd")) == before


# -- saving ---------------------------------------------------------------------------------------


def test_save_refusals_in_full(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        lt.save(tmp_path / "o.npy", lt.tensor([object()], dtype=object))
    assert str(caught.value) == f"cannot save a tensor of dtype object to {tmp_path / 'o.npy'} without pickle"
    with pytest.raises(FileNotFoundError) as missing:
        lt.save(tmp_path / "nowhere" / "o.npy", lt.arange(3))
    assert (
        str(missing.value) == f"{tmp_path / 'nowhere' / 'o.npy'}: cannot be saved (No such file or directory)"
    )
    assert missing.value.errno == errno.ENOENT


def test_save_writes_what_numpy_reads_whatever_the_layout(tmp_path: Path) -> None:
    for t in (lt.arange(24).reshape(2, 3, 4).T[::2], lt.tensor(2.5), lt.zeros(0, 3), lt.arange(5)[::-1]):
        path = tmp_path / "s.npy"
        lt.save(path, t)
        np.testing.assert_array_equal(np.load(path), t.numpy())
        assert np.load(path).shape == t.shape
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.npy"]


def test_save_writes_through_partial_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:7])))
    path = tmp_path / "p.npy"
    lt.save(path, lt.arange(100.0))
    monkeypatch.undo()
    np.testing.assert_array_equal(np.load(path), np.arange(100.0))


@pytest.mark.parametrize(
    ("code", "strerror", "kind", "message"),
    [
        (errno.ENOSPC, "No space", OSError, "no space left on the device (saving 80 bytes)"),
        (errno.EDQUOT, "Quota", OSError, "disk quota exceeded (saving 80 bytes)"),
        (errno.EIO, "I/O error", OSError, "cannot be saved (I/O error)"),
        (errno.EPERM, None, PermissionError, "cannot be saved (ugly message)"),
        (None, None, OSError, "cannot be saved (ugly message)"),
    ],
)
def test_a_failed_write_is_one_line_with_its_errno(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    code: int | None,
    strerror: str | None,
    kind: type,
    message: str,
) -> None:
    def fail(self: Any, data: Any) -> int:
        if strerror is None:
            error = (PermissionError if code == errno.EPERM else OSError)("ugly\n  message")
            error.errno = code
            raise error
        raise OSError(code, strerror)

    monkeypatch.setattr(ltio._Sink, "write", fail)
    path = tmp_path / "w.npy"
    with pytest.raises(OSError) as caught:
        lt.save(path, lt.arange(10.0))
    assert type(caught.value) is kind
    assert str(caught.value) == f"{path}: {message}"
    assert caught.value.errno == (code or errno.EIO)
    assert list(tmp_path.iterdir()) == []


def test_save_keeps_the_mode_of_the_file_it_replaces_and_gives_new_files_the_umask_s(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.npy"
    old_mask = os.umask(0o027)
    try:
        lt.save(fresh, lt.arange(2))
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    fresh.chmod(0o604)
    lt.save(fresh, lt.arange(3))
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o604


def test_save_of_a_name_without_the_suffix_follows_links(tmp_path: Path) -> None:
    target = tmp_path / "real.npy"
    (tmp_path / "alias.npy").symlink_to(target)
    lt.save(tmp_path / "alias", lt.arange(3))
    assert np.load(target).tolist() == [0, 1, 2] and (tmp_path / "alias.npy").is_symlink()
    lt.save(str(tmp_path / "x.npy.npy"), lt.arange(1))
    assert (tmp_path / "x.npy.npy").exists() and not (tmp_path / "x.npy.npy.npy").exists()


def test_a_temporary_that_is_renamed_away_while_waiting_is_opened_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.npy"
    temporary = tmp_path / f".t.npy{ltio.SAVE_SUFFIX}"
    real_flock = ltio.fcntl.flock
    calls = []

    def flock_then_rename(fd: int, operation: int) -> None:
        calls.append(fd)
        real_flock(fd, operation)
        if len(calls) == 1:  # the save we waited for renamed this file meanwhile
            os.replace(temporary, tmp_path / "elsewhere")

    monkeypatch.setattr(ltio.fcntl, "flock", flock_then_rename)
    lt.save(path, lt.arange(4))
    assert len(calls) == 2 and np.load(path).tolist() == [0, 1, 2, 3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "t.npy"]


def test_a_temporary_replaced_every_time_is_refused_after_three_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.npy"
    temporary = tmp_path / f".t.npy{ltio.SAVE_SUFFIX}"
    real_flock = ltio.fcntl.flock
    calls = []

    def flock_then_replace(fd: int, operation: int) -> None:
        calls.append(fd)
        real_flock(fd, operation)
        temporary.unlink()
        temporary.write_bytes(b"another save's")

    monkeypatch.setattr(ltio.fcntl, "flock", flock_then_replace)
    with pytest.raises(BlockingIOError) as caught:
        lt.save(path, lt.arange(4))
    assert str(caught.value) == f"{path}: another save to this file is in progress"
    assert caught.value.errno == errno.EAGAIN and len(calls) == 3


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), PermissionError, "permission denied"),
        (OSError(errno.EROFS, "Read-only file system"), OSError, "cannot be saved (Read-only file system)"),
    ],
)
def test_a_temporary_that_cannot_be_made_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, kind: type, message: str
) -> None:
    def fail(*args: Any, **kwargs: Any) -> int:
        raise error

    monkeypatch.setattr(os, "open", fail)
    path = tmp_path / "t.npy"
    with pytest.raises(kind) as caught:
        lt.save(path, lt.arange(4))
    assert str(caught.value) == f"{path}: {message}" and caught.value.errno == error.errno


def test_the_name_limit_comes_from_the_file_system(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert ltio._name_limit(str(tmp_path)) == os.pathconf(str(tmp_path), "PC_NAME_MAX")
    assert ltio._name_limit(str(tmp_path / "missing")) == ltio.NAME_MAX
    monkeypatch.setattr(os, "pathconf", lambda *a: 20)
    lt.save(tmp_path / "a-long-name-here.npy", lt.arange(2))
    assert np.load(tmp_path / "a-long-name-here.npy").tolist() == [0, 1]


def test_temporary_names_are_cut_to_the_limit_with_a_digest() -> None:
    assert ltio.temporary_name("abcdef.npy", 19) == ".abcdef.npy.lt-save"  # exactly at the limit
    digest = hashlib.sha256(b"x" * 300).hexdigest()[:16]
    assert ltio.temporary_name("x" * 300) == "." + "x" * 229 + f"~{digest}.lt-save"  # 255 characters
    other = hashlib.sha256(b"abcdefghijklmnopqrstuvwxyz.npy").hexdigest()[:16]
    assert ltio.temporary_name("abcdefghijklmnopqrstuvwxyz.npy", 38) == f".abcdefghijkl~{other}.lt-save"


# -- open -----------------------------------------------------------------------------------------


def test_open_refusals_in_full(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        lt.open("s3://bucket/x.zarr")
    assert str(caught.value) == (
        "s3://bucket/x.zarr: lt.open opens local paths only; open a URL with zarr or xarray "
        "(zarr.open_array('s3://bucket/x.zarr', mode='r')) and pass the array to lt.from_array"
    )
    with pytest.raises(ValueError) as caught:
        lt.open(tmp_path / "x.zarr", mode="w")
    assert str(caught.value) == (
        f"{tmp_path / 'x.zarr'}: lt.open never creates or truncates, and mode='w' would; pass mode='r' "
        "(read-only) or mode='r+' (read and write the existing array); to make a new store, "
        "create it with zarr or h5py and pass the array to lt.from_array"
    )
    np.save(tmp_path / "a.npy", np.arange(3))
    with pytest.raises(ValueError) as caught:
        lt.open(tmp_path / "a.npy", "key")
    assert (
        str(caught.value) == f"{tmp_path / 'a.npy'}: a .npy file holds one array, so there is no 'key' in it"
    )
    with pytest.raises(FileNotFoundError) as missing:
        lt.open(tmp_path / "missing.zarr")
    assert missing.value.errno == errno.ENOENT and missing.value.filename == str(tmp_path / "missing.zarr")
    assert missing.value.strerror == "no .npy file, HDF5 or netCDF file or zarr store here"
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(tmp_path / 'empty'))}: not a \.npy file nor a zarr array \(.+\)$"
    ):
        lt.open(tmp_path / "empty")


def test_open_of_a_npy_file_names_its_axes(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.arange(6).reshape(2, 3))
    opened = lt.open(tmp_path / "a.npy", names=("r", "c"))
    assert opened.names == ("r", "c") and opened.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert lt.open(str(tmp_path / "a.npy"), mode="r").storage_note == "memory-mapped"


def test_open_hdf5_refusals_in_full(tmp_path: Path) -> None:
    bad = tmp_path / "bad.H5"
    bad.write_bytes(b"garbage")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(bad))}: not an HDF5 file \(.+\)$"):
        lt.open(bad)
    two = tmp_path / "two.hdf5"
    with h5py.File(two, "w") as file:
        file["a"] = np.arange(3)
        file["g/b"] = np.arange(2)
    with pytest.raises(ValueError) as caught:
        lt.open(two)
    assert str(caught.value) == f"{two} holds 2 datasets (a, g/b): name one, lt.open(path, key)"
    with pytest.raises(KeyError) as key:
        lt.open(two, "c")
    assert key.value.args[0] == f"{two} has no dataset 'c'; it has a, g/b"
    assert lt.open(two, "/g/b/").tolist() == [0, 1]
    none = tmp_path / "none.he5"
    with h5py.File(none, "w") as file:
        file.create_group("g")
    with pytest.raises(ValueError) as caught:
        lt.open(none)
    assert str(caught.value) == f"{none} holds 0 datasets (no datasets): name one, lt.open(path, key)"
    with pytest.raises(KeyError) as key:
        lt.open(none, "x")
    assert key.value.args[0] == f"{none} has no dataset 'x'; it has no datasets"
    one = tmp_path / "one.h5"
    with h5py.File(one, "w") as file:
        file["only"] = np.arange(4)
    writable = lt.open(one)
    writable[0] = 5
    assert writable.tolist() == [5, 1, 2, 3]
    copy = tmp_path / "copy.h5"
    copy.write_bytes(one.read_bytes())
    read_only = lt.open(copy, mode="r")
    with pytest.raises(Exception, match=r"(?i)read.?only|no write intent|permission"):
        read_only[0] = 6


def test_open_netcdf_refusals_in_full(tmp_path: Path) -> None:
    two = tmp_path / "two.NC"
    xr.Dataset({"u": ("x", np.arange(3.0)), "v": ("x", np.arange(3.0) * 2)}).to_netcdf(two, engine="h5netcdf")
    with pytest.raises(ValueError) as caught:
        lt.open(two)
    assert str(caught.value) == f"{two} holds 2 variables (u, v): name one, lt.open(path, key)"
    with pytest.raises(KeyError) as key:
        lt.open(two, "w")
    assert key.value.args[0] == f"{two} has no variable 'w'; it has u, v"
    assert lt.open(two, "v").tolist() == [0.0, 2.0, 4.0]
    bad = tmp_path / "bad.cdf"
    bad.write_bytes(b"garbage")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(bad))}: not a netCDF file \(.+\)$"):
        lt.open(bad)


def test_from_array_of_a_dataset_names_its_variables() -> None:
    with pytest.raises(TypeError) as caught:
        lt.from_array(xr.Dataset({"u": ("x", np.arange(3.0)), "v": ("x", np.arange(3.0))}))
    assert str(caught.value) == "a Dataset holds several arrays (u, v): pass one, lt.from_array(ds[name])"


@pytest.mark.parametrize(
    ("name", "module", "extra"),
    [("t.h5", "h5py", "h5py"), ("t.nc", "xarray", "xarray"), ("t.zarr", "zarr", "zarr")],
)
def test_a_missing_optional_dependency_names_the_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, module: str, extra: str
) -> None:
    path = tmp_path / name
    path.mkdir()
    refuse_import(monkeypatch, module)
    with pytest.raises(ImportError) as caught:
        lt.open(path)
    assert str(caught.value) == (
        f"this needs the optional dependency {module}: from a lazytensor checkout, "
        f"pip install -e '.[{extra}]'"
    )


def test_netcdf_without_a_backend_says_how_to_install_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.nc"
    path.write_bytes(b"")
    monkeypatch.setattr(ltio.importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ImportError) as caught:
        lt.open(path)
    assert str(caught.value) == (
        f"{path}: reading netCDF needs xarray's h5netcdf (or netCDF4) backend: from a lazytensor "
        "checkout, pip install -e '.[xarray]'"
    )


def test_files_that_are_not_hdf5_or_netcdf_quote_the_reader_s_error_on_one_line(tmp_path: Path) -> None:
    for name, what in (("bad.h5", "an HDF5 file"), ("bad.nc", "a netCDF file")):
        path = tmp_path / name
        path.write_bytes(b"garbage")
        with pytest.raises(OSError) as reader:  # what h5py (and h5netcdf through it) says
            h5py.File(path, "r")
        with pytest.raises(ValueError) as caught:
            lt.open(path)
        assert str(caught.value) == f"{path}: not {what} ({' '.join(str(reader.value).split())})"


def test_a_key_loses_only_its_slashes(tmp_path: Path) -> None:
    path = tmp_path / "x.nc"
    xr.Dataset({"Xu": ("x", np.arange(2.0)), "w": ("x", np.arange(2.0) + 5)}).to_netcdf(
        path, engine="h5netcdf"
    )
    assert lt.open(path, "/Xu/").tolist() == [0.0, 1.0]
    assert lt.open(path, "w/").tolist() == [5.0, 6.0]
    for key in (" w", "u"):
        with pytest.raises(KeyError) as caught:
            lt.open(path, key)
        assert caught.value.args[0] == f"{path} has no variable {key!r}; it has Xu, w"


# -- saving to zarr ---------------------------------------------------------------------------------


def test_save_to_zarr_clears_a_killed_save_s_leftovers(tmp_path: Path) -> None:
    target = tmp_path / "t.zarr"
    temporary = tmp_path / ltio.temporary_name("t.zarr")
    old = tmp_path / (ltio.temporary_name("t.zarr") + ".old")
    for leftover in (temporary, old):  # a killed save's half-written stores
        zarr.create_array(str(leftover), shape=(1,), dtype="i8")
    lt.save(target, lt.arange(6).reshape(2, 3))
    assert zarr.open_array(str(target), mode="r")[...].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.zarr"]
    assert zarr.open_array(str(target), mode="r").metadata.zarr_format == 3


def test_save_to_zarr_uses_the_file_system_s_name_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "pathconf", lambda *a: 28)
    stale = tmp_path / ltio.temporary_name("a-long-store-name.zarr", 28)
    assert len(stale.name) == 28
    stale.mkdir()
    lt.save(tmp_path / "a-long-store-name.zarr", lt.arange(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-long-store-name.zarr"]


def test_a_failed_save_to_zarr_keeps_the_old_store_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.zarr"
    lt.save(target, lt.arange(3))
    real_create = zarr.create_array

    class Failing:
        def __init__(self, array: Any) -> None:
            self.array = array
            self.chunks = array.chunks

        def __setitem__(self, key: Any, value: Any) -> None:
            self.array[key] = value
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(zarr, "create_array", lambda *a, **k: Failing(real_create(*a, **k)))
    with pytest.raises(OSError, match=r"t\.zarr: no space left on the device \(saving 40 bytes\)$"):
        lt.save(target, lt.arange(5))
    monkeypatch.undo()
    assert zarr.open_array(str(target), mode="r")[...].tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.zarr"]


def test_save_to_zarr_without_zarr_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_import(monkeypatch, "zarr")
    with pytest.raises(ImportError) as caught:
        lt.save(tmp_path / "t.zarr", lt.arange(3))
    assert str(caught.value) == (
        "this needs the optional dependency zarr: from a lazytensor checkout, pip install -e '.[zarr]'"
    )
    assert list(tmp_path.iterdir()) == []


# -- open: the mode and the names reach every kind of file -------------------------------------------


def test_open_read_only_refuses_writes_to_a_zarr_store(tmp_path: Path) -> None:
    path = tmp_path / "t.zarr"
    lt.save(path, lt.arange(3))
    read_only = lt.open(path, mode="r")
    with pytest.raises(Exception, match=r"(?i)read.?only"):
        read_only[0] = 7
    writable = lt.open(path)
    writable[0] = 7
    assert lt.open(path, mode="r").tolist() == [7, 1, 2]


def test_open_gives_the_names_asked_for_to_every_kind_of_file(tmp_path: Path) -> None:
    h5 = tmp_path / "t.h5"
    with h5py.File(h5, "w") as file:
        file["d"] = np.arange(6).reshape(2, 3)
    nc = tmp_path / "t.nc"
    xr.Dataset({"v": (("x", "y"), np.arange(6.0).reshape(2, 3))}).to_netcdf(nc, engine="h5netcdf")
    store = tmp_path / "t.zarr"
    lt.save(store, lt.zeros(2, 3, names=("p", "q")))
    for path in (h5, nc, store):
        assert lt.open(path, names=("row", "col")).names == ("row", "col")
    assert lt.open(nc).names == ("x", "y") and lt.open(store).names == ("p", "q")


def test_a_store_that_is_no_array_quotes_zarr_s_error_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.mkdir()
    with pytest.raises(Exception) as reader:
        zarrstore.open_array(str(path), "r+")
    with pytest.raises(ValueError) as caught:
        lt.open(path)
    assert (
        str(caught.value)
        == f"{path}: not a .npy file nor a zarr array ({' '.join(str(reader.value).split())})"
    )


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.int16, np.float64])
def test_every_item_size_is_memory_mapped(tmp_path: Path, dtype: Any) -> None:
    path = tmp_path / "b.npy"
    np.save(path, np.ones((2, 2), dtype=dtype))
    loaded = lt.load(path)
    assert loaded.storage_note == "memory-mapped" and loaded.dtype == dtype
    assert lt.load(path, mmap=False).storage_note != "memory-mapped"


@pytest.mark.parametrize(
    ("error", "detail"),
    [
        (ValueError("first words", 17), "first words"),  # numpy's message is its first argument
        (ValueError("x" * 200), "x" * 200),  # 200 characters are kept whole
        (ValueError("x" * 201), "x" * 200 + "…"),
        (ValueError("y" * 202), "y" * 200 + "…"),
    ],
)
def test_a_parser_message_is_its_first_argument_cut_after_200_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, detail: str
) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(np.lib.format, "read_array_header_1_0", fail)
    path = tmp_path / "m.npy"
    np.save(path, np.arange(3))
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    assert str(caught.value) == f"{path}: corrupt .npy header ({detail})"

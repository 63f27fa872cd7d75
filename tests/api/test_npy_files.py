"""The edges of `.npy` files: shapes no loop could walk, files that shrink under a memory map,
saving onto read-only files, full disks and long names, killed saves, and format 3.0.

Reaches into `lazytensor.api.files`: a full disk is planted in its writer, and the temporary file a
killed save leaves is named by the module's own rule.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fuzz_support import assert_one_line, time_limit
from repo_paths import ROOT

import lazytensor as lt
import lazytensor.api.files
from lazytensor.api.files import SAVE_SUFFIX, temporary_name


def npy_with_header(header: str) -> bytes:
    encoded = header.encode("latin1")
    encoded += b" " * (63 - (10 + len(encoded)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(encoded).to_bytes(2, "little") + encoded


def run_python(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


# -- a 128-byte file whose elements have no bytes ----------------------------------------


@pytest.fixture
def zero_itemsize(tmp_path: Path) -> Path:
    path = tmp_path / "zero.npy"
    path.write_bytes(npy_with_header(f"{{'descr': [], 'fortran_order': False, 'shape': ({10**18},), }}"))
    assert path.stat().st_size == 128
    return path


@pytest.mark.parametrize("mmap", [True, False])
def test_zero_byte_elements_past_any_loop_are_a_memory_error(zero_itemsize: Path, mmap: bool) -> None:
    code = f"""
        import lazytensor as lt
        path = {str(zero_itemsize)!r}
        for load in (lambda: lt.load(path, mmap={mmap}), lambda: lt.open(path)):
            try:
                load()
            except MemoryError as error:
                print(error)
    """
    done = run_python(code, timeout=30)  # in a process of its own: the loop it replaces ignores signals
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]
    assert_one_line(lines[0], f"{zero_itemsize}: ", "(1000000000000000000,)", "1,000,000,000,000,000,000")


@pytest.mark.parametrize("command", ["show", "repl"])
def test_the_cli_refuses_zero_byte_elements_in_one_line(zero_itemsize: Path, command: str) -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "lazytensor", command, str(zero_itemsize)],
        input="t\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert shown.returncode == 2 and shown.stdout == ""
    assert_one_line(shown.stderr, str(zero_itemsize), "elements of 0 bytes")


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("shape", [(0,), (5,), (3, 4), (1000, 1000)])
def test_few_zero_byte_elements_still_load_as_numpy_does(
    tmp_path: Path, mmap: bool, shape: tuple[int, ...]
) -> None:
    path = tmp_path / "empty-struct.npy"
    np.save(path, np.empty(shape, dtype=[]))
    with time_limit(10):
        loaded = lt.load(path, mmap=mmap).numpy()
    expected = np.load(path)
    assert loaded.shape == expected.shape and loaded.dtype == expected.dtype


# -- a memory-mapped file truncated while a tensor reads it --------------------------------


TRUNCATE = """
    import os, sys
    import numpy as np, lazytensor as lt
    path = sys.argv[1] if len(sys.argv) > 1 else {path!r}
    np.save(path, np.arange(100_000.0).reshape(100, 1000))
    t = lt.load(path)
    v = t.T[::3, 1:]
    assert t.sum().item() == np.arange(100_000.0).sum() and v.shape == (334, 99)
    os.truncate(path, 4096)
    for read in (t.tolist, v.numpy, lambda: t[99, 999].item(), lambda: str(t), lambda: t + 1, t.numpy):
        try:
            read()
        except OSError as error:
            print(type(error).__name__, error)
        else:
            print("read")
"""


def test_a_truncated_memory_map_is_an_os_error_not_sigbus(tmp_path: Path) -> None:
    path = tmp_path / "shrinking.npy"
    done = run_python(TRUNCATE.format(path=str(path)))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # -SIGBUS before the check
    lines = done.stdout.splitlines()
    assert len(lines) == 6
    for line in lines:
        assert line.startswith(f"OSError {path}: the file shrank to 4,096 bytes"), line
        assert "800,128" in line


def test_a_memory_map_that_keeps_its_size_reads_fresh_values(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(6.0))
    t = lt.load(path)
    view = t[1::2]
    assert view.tolist() == [1.0, 3.0, 5.0]
    with open(path, "r+b") as file:  # rewritten in place, same size: the map sees the new bytes
        file.seek(-8, os.SEEK_END)
        file.write(np.float64(50.0).tobytes())
    assert view.tolist() == [1.0, 3.0, 50.0] and t.numpy()[-1] == 50.0
    assert t.storage_note == "memory-mapped" and t.layer_name == "Storage"


# -- saving ---------------------------------------------------------------------------------


AS_OWNER = """
    import os, numpy as np, lazytensor as lt
    if os.geteuid() == 0:  # root writes anywhere: be the owner of a read-only file instead
        os.setgid(65534)
        os.setuid(65534)
    outcomes = []
    for save, name in ((np.save, "np.npy"), (lt.save, "lt.npy")):
        path = os.path.join({folder!r}, name)
        try:
            save(path, np.arange(3.0) if save is np.save else lt.arange(3.0))
            outcomes.append("saved")
        except PermissionError as error:
            outcomes.append(f"PermissionError {{error}}")
        outcomes.append(repr(np.load(path).tolist()))
    print(*outcomes, sep="\\n")
"""


def test_save_refuses_a_read_only_file_as_numpy_does() -> None:
    with tempfile.TemporaryDirectory() as name:  # under /tmp: another user can reach it
        check_read_only_refused(Path(name))


def check_read_only_refused(folder: Path) -> None:
    for name in ("np.npy", "lt.npy"):
        np.save(folder / name, np.zeros(2))
        (folder / name).chmod(0o444)
        if os.geteuid() == 0:
            os.chown(folder / name, 65534, 65534)
    folder.chmod(0o777)
    done = run_python(AS_OWNER.format(folder=str(folder)))
    assert done.returncode == 0, done.stderr
    np_outcome, np_data, lt_outcome, lt_data = done.stdout.splitlines()
    assert np_outcome.startswith("PermissionError") and np_data == "[0.0, 0.0]"
    assert lt_outcome == f"PermissionError {folder / 'lt.npy'}: permission denied (the file is read-only)"
    assert lt_data == "[0.0, 0.0]"
    assert sorted(p.name for p in folder.iterdir()) == ["lt.npy", "np.npy"]


KILLED_SAVE = """
    import os, sys, numpy as np, lazytensor as lt
    import lazytensor.api.files as io
    def write_then_hang(fd, *args, **kwargs):
        os.write(fd, b"partial data")
        print("writing", flush=True)
        sys.stdin.read()  # killed here
    class Stuck(io._Sink):
        def write(self, data):
            write_then_hang(self.fd)
            return 0
    io._Sink = Stuck
    lt.save({path!r}, lt.arange(1000.0))
"""


def test_a_killed_save_leaves_one_reused_temporary(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(3))
    for _ in range(3):
        process = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(KILLED_SAVE.format(path=str(path)))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert process.stdout is not None and process.stdout.readline() == "writing\n"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        leftovers = sorted(p.name for p in tmp_path.iterdir())
        assert leftovers == [f".t.npy{SAVE_SUFFIX}", "t.npy"]  # one temporary, however many kills
        assert np.load(path).tolist() == [0, 1, 2]
    lt.save(path, lt.arange(4))  # the next save reuses it, and leaves nothing behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npy"]
    assert np.load(path).tolist() == [0, 1, 2, 3]


def test_a_full_disk_is_said_in_words_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True, check=False
    )
    if mounted.returncode != 0:  # not root: a disk that fills up after 7152 bytes, faked

        def fill_up(self: lazytensor.api.files._Sink, data: object) -> int:
            os.write(self.fd, bytes(memoryview(data).cast("B"))[:7152])  # type: ignore[arg-type]
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(lazytensor.api.files._Sink, "write", fill_up)
    try:
        path = disk / "big.npy"
        np.save(path, np.arange(10.0))
        free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        with pytest.raises(OSError) as caught:
            lt.save(path, lt.zeros(100_000))
        assert caught.value.errno == errno.ENOSPC
        known = f"; {free:,} are free" if mounted.returncode == 0 else ""  # a real disk: refused up front
        assert_one_line(
            str(caught.value), f"{path}: no space left on the device (saving 800,000 bytes{known})"
        )
        assert np.load(path).tolist() == list(np.arange(10.0))  # the old file is kept
        assert sorted(p.name for p in disk.iterdir()) == ["big.npy"]
    finally:
        if mounted.returncode == 0:
            subprocess.run(["umount", str(disk)], check=True)


def test_a_second_save_of_the_same_file_at_once_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(3))
    temporary = tmp_path / f".t.npy{SAVE_SUFFIX}"
    with open(temporary, "wb") as running:  # another process's save, midway
        fcntl.flock(running.fileno(), fcntl.LOCK_EX)
        with pytest.raises(BlockingIOError) as caught:
            lt.save(path, lt.arange(4))
    assert_one_line(str(caught.value), f"{path}: another save to this file is in progress")
    assert np.load(path).tolist() == [0, 1, 2]
    lt.save(path, lt.arange(4))  # once it is gone (or its process killed), saving goes on
    assert np.load(path).tolist() == [0, 1, 2, 3] and not temporary.exists()


@pytest.mark.parametrize("length", [200, 235, 236, 247, 250, 251])
def test_long_names_save_where_numpy_does(tmp_path: Path, length: int) -> None:
    name = "n" * length + ".npy"  # up to 255 bytes, the usual limit of one name
    np.save(tmp_path / ("np" + name[2:]), np.arange(3))
    lt.save(tmp_path / name, lt.arange(3))
    lt.save(tmp_path / name, lt.arange(4))
    assert np.load(tmp_path / name).tolist() == [0, 1, 2, 3]
    assert len([p for p in tmp_path.iterdir() if p.name.startswith(".")]) == 0


def test_temporary_names_fit_and_differ_per_target() -> None:
    names = {temporary_name(prefix + "x" * 250) for prefix in ("a", "b", "ж")}
    assert len(names) == 3
    assert all(len(os.fsencode(n)) <= 255 and n.endswith(SAVE_SUFFIX) for n in names)
    assert len(os.fsencode(temporary_name("ж" * 125 + ".npy"))) <= 255


# -- format 3.0 ------------------------------------------------------------------------


@pytest.mark.parametrize("mmap", [True, False])
def test_format_3_files_load(tmp_path: Path, mmap: bool) -> None:
    array = np.zeros((2, 3), dtype=[("ж", "<i4"), ("名前", "<f8", (2,))])
    array["ж"] = np.arange(6).reshape(2, 3)
    path = tmp_path / "v3.npy"
    with pytest.warns(UserWarning, match="format 3.0"):  # numpy's own word on writing it
        lt.save(path, lt.from_numpy(array))
    assert path.read_bytes()[6:8] == b"\x03\x00"  # lt.save (as np.save) writes 3.0 for these names
    loaded = lt.load(path, mmap=mmap).numpy()
    assert loaded.dtype == array.dtype and loaded.dtype.names == ("ж", "名前")
    np.testing.assert_array_equal(loaded, array)
    np.testing.assert_array_equal(lt.open(path).numpy(), np.load(path))

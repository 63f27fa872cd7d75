"""The real command in a real (pseudo-)terminal: `python -m lazytensor browse FILE` draws its screen,
walks with the arrows and quits with `q`, exit status 0; and the command's one-line refusals.

Reaches into `lazytensor.browse`: the command's starter, with textual hidden, says how to install it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.browse import launch

REPOSITORY = Path(__file__).resolve().parents[2]


def _read_until(fd: int, wanted: bytes, seconds: float = 60.0) -> bytes:
    """What the terminal shows until `wanted` appears (or the time is up, or the program ends)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the program ended: the terminal is closed
                break
            if not chunk:
                break
            seen += chunk
    return seen


def _wait(pid: int, seconds: float = 30.0) -> int | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.1)
    return None


@pytest.mark.skipif(not launch.textual_installed(), reason="the browse extra (textual) is not installed")
def test_the_command_runs_in_a_terminal_and_quits_with_q(tmp_path: Path) -> None:
    path = tmp_path / "eeg.npy"
    lt.save(path, lt.tensor(np.arange(2 * 3 * 20 * 30, dtype=np.float32).reshape(2, 3, 20, 30)))
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, in the terminal
        os.chdir(REPOSITORY)
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
        env.pop("NO_COLOR", None)
        os.execve(sys.executable, [sys.executable, "-m", "lazytensor", "browse", str(path)], env)
    status = None
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        first = _read_until(fd, b"read-only")
        assert b"read-only" in first, first[-2000:]
        assert b"t[0, 0, :, :]" in _read_until(fd, b"t[0, 0, :, :]", 10) + first
        os.write(fd, b"\x1b[C")  # the right arrow
        assert b"t[0, 1, :, :]" in _read_until(fd, b"t[0, 1, :, :]")
        os.write(fd, b"q")
        _read_until(fd, b"\x00never", 5)  # drain what it writes while it leaves
        status = _wait(pid)
        assert status == 0
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


def _command(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lazytensor", "browse", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
    )


def test_a_missing_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    run = _command("nothing.zarr", cwd=tmp_path)
    if not launch.textual_installed():
        pytest.skip("the browse extra (textual) is not installed")
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == "error: nothing.zarr: no such file\n"


def test_without_textual_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(launch, "textual_installed", lambda: False)
    assert launch.browse_file(str(tmp_path / "a.npy")) == 2
    assert capsys.readouterr().err == (
        "error: browsing needs textual: pip install 'lazytensor[browse]' "
        "(in a checkout: pip install -e '.[browse]')\n"
    )
    with pytest.raises(ImportError, match=r"pip install 'lazytensor\[browse\]'"):
        lt.arange(3).browse()


def test_the_arrays_of_a_store_are_listed_to_pick_from(tmp_path: Path) -> None:
    zarr = pytest.importorskip("zarr")
    group = zarr.open_group(str(tmp_path / "two.zarr"), mode="w")
    group.create_array("temperature", shape=(2, 3), dtype="f4")
    group.create_array("wind/speed", shape=(4,), dtype="i2")
    assert launch.array_names(str(tmp_path / "two.zarr")) == ["temperature", "wind/speed"]
    assert launch.array_names(str(tmp_path / "missing.zarr")) == []
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "f.h5", "w") as file:
        file["a"] = np.zeros(3)
        file["g/b"] = np.ones(2)
    assert launch.array_names(str(tmp_path / "f.h5")) == ["a", "g/b"]

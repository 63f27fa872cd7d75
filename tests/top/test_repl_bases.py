"""`python -m lazytensor repl` over every base (zarr, dask, h5py, numpy), run as users run it (a subprocess,
commands piped in), and IPython's display formatter: tensors over every base print, containers of tensors
print one line per tensor, errors are one line.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import dask.array as da
import h5py
import numpy as np
import pytest
import zarr
from IPython.core.interactiveshell import InteractiveShell
from ipython_support import registered_shell

import lazytensor as lt

VALUES = np.arange(20.0).reshape(4, 5)
SUMMARY = "tensor (4, 5) float64 n=20 x∈[0, 19] μ=9.5 σ=5.766"

# a line of repl input that makes `u` a tensor over each kind of base; `t` is the zarr store opened
BASES = {
    "zarr": "u = t",
    "dask": "u = lt.from_array(__import__('dask.array').array.from_array(t.numpy(), chunks=2))",
    "h5py": "u = lt.from_array(__import__('h5py').File({h5!r}, 'r')['x'])",
    "numpy-array": "u = lt.from_array(t.numpy())",
    "storage": "u = lt.tensor(t.numpy())",
}


def run_repl(*files: str, commands: str) -> subprocess.CompletedProcess[str]:
    """The repl as a user runs it, `commands` piped in, plain text (NO_COLOR), under a time limit."""
    environment = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.run(
        [sys.executable, "-m", "lazytensor", "repl", *files],
        input=commands,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**environment, "NO_COLOR": "1"},
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("repl") / "store.zarr"
    array = zarr.create_array(store=str(path), shape=VALUES.shape, chunks=(2, 5), dtype=VALUES.dtype)
    array[...] = VALUES
    return path


@pytest.fixture(scope="module")
def h5(store: pathlib.Path) -> pathlib.Path:
    path = store.parent / "values.h5"
    with h5py.File(path, "w") as file:
        file["x"] = VALUES
    return path


def test_the_repl_prints_a_zarr_store_it_opened(store: pathlib.Path) -> None:
    done = run_repl(str(store), commands="t\nt[1:3, ::2]\nt.T.sum(0)\nt.explain()\n")
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    assert f"t = {store}: {SUMMARY}" in done.stderr  # the banner
    assert "shape (4, 5) · float64 · 20 elements · zarr" in done.stdout
    assert "shape (2, 3) · float64 · 6 elements · zarr" in done.stdout
    assert "10.  12.  14." in done.stdout
    assert "10.  35.  60.  85." in done.stdout  # an operation on it
    assert "Zarr (4, 5) · zarr array (4, 5)" in done.stdout


@pytest.mark.parametrize("base", sorted(BASES))
def test_any_base_prints_in_the_repl(store: pathlib.Path, h5: pathlib.Path, base: str) -> None:
    make = BASES[base].format(h5=str(h5))
    done = run_repl(str(store), commands=f"{make}\nu\nu[1:3]\nu.T[::2, 1:2]\n")
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    assert done.stdout.count("shape (4, 5) · float64 · 20 elements") == 1
    assert "shape (2, 5) · float64 · 10 elements" in done.stdout
    assert "shape (3, 1) · float64 · 3 elements" in done.stdout


@pytest.mark.parametrize("base", sorted(BASES))
def test_containers_of_tensors_print_one_line_per_tensor_in_the_repl(
    store: pathlib.Path, h5: pathlib.Path, base: str
) -> None:
    make = BASES[base].format(h5=str(h5))
    commands = f"{make}\n[u, u]\n(u, 'label', u)\n{{'a': u, 'b': u}}\n[u, 1]\n"
    done = run_repl(str(store), commands=commands)
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    lines = done.stdout.replace(">>> ", "").splitlines()
    assert lines[:7] == [
        f"[{SUMMARY},",
        f" {SUMMARY}]",
        f"({SUMMARY},",
        " 'label',",
        f" {SUMMARY})",
        f"{{'a': {SUMMARY},",
        f" 'b': {SUMMARY}}}",
    ]
    assert lines[7].startswith("[shape (4, 5)")  # one tensor: its ordinary print, as in IPython
    assert lines[-1].endswith(", 1]")


def test_errors_in_the_repl_are_one_line(store: pathlib.Path) -> None:
    done = run_repl(str(store), commands="t[99]\n1 / 0\nt.reshape(3, 3)\nt\n")
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.replace(">>> ", "").splitlines() if "Error" in line]
    assert errors[0] == "IndexError: index 99 is out of bounds for axis 0 with size 4"
    assert errors[1] == "ZeroDivisionError: division by zero"
    assert errors[2].startswith("ValueError: cannot reshape") and "(3, 3)" in errors[2]
    assert "shape (4, 5) · float64 · 20 elements · zarr" in done.stdout  # and the session goes on


def test_a_store_that_cannot_be_opened_is_one_line(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "empty.zarr"
    folder.mkdir()
    done = run_repl(str(folder), commands="")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {folder}") and done.stderr.count("\n") == 1, done.stderr


# -- IPython's display formatter -------------------------------------------------------------------


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    with registered_shell(terminal=True) as instance:
        yield instance


def _chunked(kind: str, h5: pathlib.Path) -> lt.AbstractTensor:
    if kind == "zarr":
        array = zarr.create_array(store={}, shape=VALUES.shape, chunks=(2, 5), dtype=VALUES.dtype)
        array[...] = VALUES
        return lt.from_array(array)
    if kind == "dask":
        return lt.from_array(da.from_array(VALUES, chunks=2))
    return lt.from_array(h5py.File(h5, "r")["x"])


def _plain(shell: InteractiveShell, value: Any, capsys: pytest.CaptureFixture[str]) -> str:
    data, _ = shell.display_formatter.format(value)
    assert "Traceback" not in capsys.readouterr().out  # IPython prints a failed formatter's traceback
    text: str = data["text/plain"]
    return text


@pytest.mark.parametrize("kind", ["zarr", "dask", "h5py"])
def test_ipython_shows_containers_holding_chunked_tensors(
    shell: InteractiveShell,
    h5: pathlib.Path,
    kind: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    t = _chunked(kind, h5)
    assert _plain(shell, t, capsys) == repr(t)
    assert _plain(shell, [t], capsys) == f"[{t!r}]"  # one tensor: IPython's own printer, as for numpy
    pair = _plain(shell, (t, 1), capsys)  # IPython's printer breaks the line before the 1
    assert pair.startswith(f"({t!r},") and pair.endswith("1)")
    assert _plain(shell, {"a": t}, capsys) == f"{{'a': {t!r}}}"
    two = _plain(shell, [t, t.T[0]], capsys).splitlines()
    assert two[0] == f"[{SUMMARY},"
    assert two[1].startswith(" tensor (4,) float64 n=4 x∈[0, 15] μ=7.5 σ=5.59 Sliced")
    as_dict = _plain(shell, {"a": t, "b": t}, capsys)
    assert as_dict.splitlines() == [f"{{'a': {SUMMARY},", f" 'b': {SUMMARY}}}"]

"""`python -m lazytensor repl [FILE ...]`, run as users run it, with the session typed on stdin.

Reaches into `lazytensor.cli`: the repl's display hook is called on a console built here.
"""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from rich.console import Console

import lazytensor as lt
from lazytensor.cli import repl_display


def run_repl(*files: str, typed: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(environment)
    return subprocess.run(
        [sys.executable, "-m", "lazytensor", "repl", *files],
        input=typed,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def npy(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(12.0).reshape(3, 4) - 5)
    return path


def test_the_file_is_t_and_lt_is_imported(npy: pathlib.Path) -> None:
    result = run_repl(str(npy), typed="t\nlt.arange(2)\n(t, t.T)\n1 + 1\n", NO_COLOR="1")
    assert result.returncode == 0, result.stderr
    assert f"t = {npy}: tensor (3, 4) float64 n=12 x∈[-5, 6] μ=0.5 σ=3.452" in result.stderr  # the banner
    assert ">>> shape (3, 4) · float64 · 12 elements · memory-mapped\n" in result.stdout
    assert "-5.  -4.  -3.  -2.\n" in result.stdout
    assert ">>> shape (2,) · int64 · 2 elements\n" in result.stdout
    assert ">>> (tensor (3, 4) float64 n=12" in result.stdout
    assert "\n tensor (4, 3) float64 n=12 x∈[-5, 6] μ=0.5 σ=3.452 Transposed∘Storage)\n" in result.stdout
    assert ">>> 2\n" in result.stdout
    assert "\x1b[" not in result.stdout


def test_several_files_are_t0_t1(npy: pathlib.Path) -> None:
    result = run_repl(str(npy), str(npy), typed="t0.shape == t1.shape\n", NO_COLOR="1")
    assert result.returncode == 0 and ">>> True\n" in result.stdout


def test_colour_is_on_with_force_color_and_off_with_no_color(npy: pathlib.Path) -> None:
    coloured = run_repl(str(npy), typed="t\n", FORCE_COLOR="1")
    assert "\x1b[31m-5.\x1b[0m" in coloured.stdout  # negatives red
    plain = run_repl(str(npy), typed="t\n", FORCE_COLOR="1", NO_COLOR="1")
    assert "\x1b[" not in plain.stdout


def test_a_bad_file_is_one_line_and_status_2(tmp_path: pathlib.Path) -> None:
    missing = run_repl(str(tmp_path / "nope.npy"), typed="")
    assert missing.returncode == 2 and missing.stderr == f"error: {tmp_path / 'nope.npy'}: no such file\n"
    store = tmp_path / "s.zarr"
    store.mkdir()
    zarr = run_repl(str(store), typed="")
    assert zarr.returncode == 2 and zarr.stderr.startswith("error: ") and zarr.stderr.count("\n") == 1


def test_no_files_is_a_console_with_lt() -> None:
    result = run_repl(typed="lt.tensor(3)\n", NO_COLOR="1")
    assert result.returncode == 0 and ">>> tensor(3, dtype=int64)\n" in result.stdout


def test_the_display_hook() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    repl_display(None, console)
    repl_display("text", console)
    repl_display(lt.arange(2).explain(), console)
    repl_display([lt.arange(2), lt.arange(3)], console)
    assert out.getvalue().splitlines() == [
        "'text'",
        "Storage (2,) · buffer of 2 × int64",
        "strides (1,), offset 0",
        "[tensor (2,) int64 n=2 x∈[0, 1] μ=0.5 σ=0.5,",
        " tensor (3,) int64 n=3 x∈[0, 2] μ=1 σ=0.8165]",
    ]

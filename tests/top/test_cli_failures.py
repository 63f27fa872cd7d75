"""Every failure of the command line is one line on stderr, never a traceback: a file that cannot be opened
(whatever the exception), values the printer cannot show, Ctrl-C. Run in this process, with the failure
planted (the real ones are in the fuzzers, tests/top/test_fuzz_cli.py).

Reaches into `lazytensor.cli`: `main(argv)` runs in this process so that each failure can be
planted.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
from typing import Any

import numpy as np
import pytest
from fuzz_support import assert_one_line

import lazytensor as lt
from lazytensor.cli import INTERRUPTED, USAGE_ERROR, main


def run_main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def raiser(error: BaseException) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    return fail


@pytest.fixture
def npy(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(6.0).reshape(2, 3))
    return path


@pytest.mark.parametrize("command", ["show", "repl"])
@pytest.mark.parametrize("error", [ZeroDivisionError("division by zero"), RuntimeError("zstd\nfailed")])
def test_any_error_opening_a_file_is_one_line_naming_it(
    npy: pathlib.Path, monkeypatch: pytest.MonkeyPatch, command: str, error: Exception
) -> None:
    monkeypatch.setattr(lt, "load", raiser(error))
    monkeypatch.setattr(lt, "open", raiser(error))
    status, out, err = run_main(command, str(npy))
    assert status == USAGE_ERROR and out == ""
    assert_one_line(err, f"error: {npy}: {type(error).__name__}: ")


def test_values_the_printer_cannot_show_are_one_line(
    npy: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lt, "tprint", raiser(SystemError("a code point beyond 0x10ffff")))
    status, _, err = run_main("show", str(npy))
    assert status == USAGE_ERROR
    assert_one_line(err, f"error: {npy}: cannot print it: SystemError: a code point beyond 0x10ffff")


@pytest.mark.parametrize("command", ["show", "repl"])
def test_ctrl_c_is_one_line(npy: pathlib.Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.setattr(lt, "load", raiser(KeyboardInterrupt()))
    monkeypatch.setattr(lt, "open", raiser(KeyboardInterrupt()))
    status, out, err = run_main(command, str(npy))
    assert (status, out, err) == (INTERRUPTED, "", "interrupted\n")

"""The progress of a long statistics pass: a bar on the terminal's stderr with the pass's description and
its blocks done of all, shown once the pass has run `PROGRESS_AFTER` seconds and gone when it ends.

Reaches into `lazytensor.printer.streamstats`: the progress bar's delay, clock and console are
planted.
"""

from __future__ import annotations

import io
import re
import sys
import types
from typing import Any

import numpy as np
import pytest
from rich.console import Console

import lazytensor as lt
from lazytensor.printer import streamstats
from lazytensor.printer.streamstats import PassProgress, one_pass

TOKENS = re.compile(r"\x1b\[\??(\d*)([A-Za-z])|\r|\n|[^\x1b\r\n]+")
"""What a live display writes: escapes (cursor and colour), carriage returns, newlines and text."""

FRAME = re.compile(r"^(?P<description>.+?) ━+ +(?P<done>\d+)/(?P<total>\d+) \d+:\d\d:\d\d$")
"""One drawing of the bar: the description, the bar, blocks done of all, the time elapsed."""


class Terminal(io.StringIO):
    """A stream that says it is a terminal (what a user's stderr is)."""

    def isatty(self) -> bool:
        return True


def play(output: str) -> tuple[list[str], list[str]]:
    """Plays `output` on a screen: the lines it leaves, and every line drawn before it was erased."""
    lines, row, column, drawn = [""], 0, 0, []
    for match in TOKENS.finditer(output):
        token = match.group(0)
        if token == "\r":
            column = 0
        elif token == "\n":
            row, column = row + 1, 0
            lines += [""] * (row + 1 - len(lines))
        elif match.group(2) == "K":  # erase the line
            drawn.append(lines[row])
            lines[row] = ""
        elif match.group(2) == "A":  # cursor up
            row -= int(match.group(1) or 1)
        elif not token.startswith("\x1b"):
            lines[row] = lines[row][:column] + token + lines[row][column + len(token) :]
            column += len(token)
    return [line.rstrip() for line in lines], [line.rstrip() for line in drawn if line.strip()]


def frames(output: str) -> list[re.Match[str]]:
    _, drawn = play(output)
    matches = [FRAME.match(line) for line in drawn]
    assert drawn and all(matches), drawn
    return [m for m in matches if m is not None]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """A terminal console for every pass, and progress at once."""
    output = io.StringIO()
    console = Console(file=output, force_terminal=True, width=80)
    monkeypatch.setattr(streamstats, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(streamstats, "progress_console", lambda: console)
    return output


def _values() -> np.ndarray:
    return np.arange(120.0).reshape(12, 10) - 40.0


def test_a_pass_over_blocks_shows_its_blocks_done_of_all(terminal: io.StringIO) -> None:
    t = lt.from_numpy(_values())[::-1]  # a box of the base: the region pass, 10 values a block
    one_pass(t, chunk=10)
    shown = frames(terminal.getvalue())
    assert {m["description"] for m in shown} == {"stats: 12 blocks"}
    assert {m["total"] for m in shown} == {"12"}
    assert shown[-1]["done"] == "12"
    assert all(0 <= int(m["done"]) <= 12 for m in shown)


def test_a_streamed_pass_shows_its_values_and_reads_done_of_all(terminal: io.StringIO) -> None:
    t = lt.from_numpy(_values())[[0, 3, 5, 7]]  # a gather: no box, 40 values streamed 7 at a time
    one_pass(t, chunk=7)
    shown = frames(terminal.getvalue())
    assert {m["description"] for m in shown} == {"stats: 40 values"}
    assert {m["total"] for m in shown} == {"6"}
    assert shown[-1]["done"] == "6"


def test_the_bar_is_gone_when_the_pass_ends(terminal: io.StringIO) -> None:
    one_pass(lt.from_numpy(_values()), chunk=10)
    left, drawn = play(terminal.getvalue())
    assert drawn, "the bar was drawn"
    assert all(line == "" for line in left), left


def test_a_pass_of_one_read_shows_no_progress(terminal: io.StringIO) -> None:
    one_pass(lt.from_numpy(_values())[[0, 3, 5, 7]], chunk=40)
    one_pass(lt.from_numpy(_values()), chunk=120)
    assert terminal.getvalue() == ""


def _terminals(monkeypatch: pytest.MonkeyPatch) -> tuple[Terminal, Terminal]:
    stdout, stderr = Terminal(), Terminal()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(streamstats, "PROGRESS_AFTER", 0.0)
    return stdout, stderr


def test_progress_goes_to_stderr_never_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout, stderr = _terminals(monkeypatch)
    one_pass(lt.from_numpy(_values()), chunk=10)
    assert {m["description"] for m in frames(stderr.getvalue())} == {"stats: 12 blocks"}
    assert stdout.getvalue() == ""


def test_a_progress_with_no_console_draws_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout, stderr = _terminals(monkeypatch)
    progress = PassProgress(3, "stats: 3 blocks")
    for _ in range(3):
        progress.advance()
    progress.close()
    assert [m["done"] for m in frames(stderr.getvalue())][-1] == "3"
    assert stdout.getvalue() == ""


@pytest.mark.parametrize(("elapsed", "shown"), [(0.999, False), (1.0, True), (1.001, True)])
def test_progress_shows_once_the_pass_has_run_progress_after_seconds(
    elapsed: float, shown: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [100.0]
    clock: Any = types.SimpleNamespace(monotonic=lambda: now[0])
    monkeypatch.setattr(streamstats, "time", clock)
    monkeypatch.setattr(streamstats, "PROGRESS_AFTER", 1.0)
    output = io.StringIO()
    progress = PassProgress(2, "stats: 2 blocks", Console(file=output, force_terminal=True, width=80))
    now[0] += elapsed
    progress.advance()
    progress.close()
    assert ("stats: 2 blocks" in output.getvalue()) == shown

"""Printing where stdout is not a terminal: the plain text is 80 columns whatever `COLUMNS` says
(tests and pipes compare strings), `tprint` prints with the options of its call, and a console
without a colour system gets no styles, not even in what it records (`printer/__init__.py`,
`printer/prompt.py`, `printer/tensorprint.py`, issue #25).

Reaches into `lazytensor.printer.prompt`: the prompt's registration is called on an IPython shell
built here.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from ipython_support import ipython_shell
from rich.console import Console

import lazytensor as lt
from lazytensor.printer.prompt import register_ipython


@pytest.fixture
def piped(monkeypatch: pytest.MonkeyPatch) -> None:
    """stdout a pipe, and an environment that says 40 columns."""
    monkeypatch.setattr("sys.stdout", io.StringIO())
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


WIDE = lt.arange(60.0).reshape(2, 30) * 1000


@pytest.mark.usefixtures("piped")
def test_to_string_outside_a_terminal_is_80_columns_whatever_columns_says() -> None:
    text = lt.to_string(WIDE)
    assert text == lt.to_string(WIDE, linewidth=80)
    assert 40 < max(len(line) for line in text.splitlines()) <= 80


@pytest.fixture
def terminal_shell() -> Iterator[InteractiveShell]:
    """IPython in a terminal: its front end shows text only."""
    with ipython_shell() as instance:
        register_ipython(instance)
        instance.display_formatter.active_types = ["text/plain"]
        yield instance


@pytest.mark.usefixtures("piped")
def test_the_prompt_outside_a_terminal_is_80_columns_whatever_columns_says(
    terminal_shell: InteractiveShell,
) -> None:
    data, _ = terminal_shell.display_formatter.format(WIDE)
    assert data["text/plain"] == lt.to_string(WIDE, linewidth=80)


def test_tprint_prints_with_the_options_of_its_call(capsys: pytest.CaptureFixture[str]) -> None:
    t = lt.arange(40.0).reshape(4, 10) / 3
    options: dict[str, Any] = {"precision": 2, "threshold": 10, "edgeitems": 1, "linewidth": 60}
    lt.tprint(t, **options)
    printed = capsys.readouterr().out
    assert printed == lt.to_string(t, **options) + "\n"
    assert printed != lt.to_string(t, linewidth=60) + "\n"


def test_a_console_without_colours_records_no_styles() -> None:
    t = lt.tensor([[-1.5, 0.0], [float("nan"), 2.0]])
    console = Console(file=io.StringIO(), width=80, color_system=None, record=True)
    console.print(t)
    assert console.export_text(styles=True) == lt.to_string(t, linewidth=80) + "\n"

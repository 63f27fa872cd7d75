"""The consoles whatever the environment says: a given width kept on a dumb terminal (TERM=dumb with
FORCE_COLOR or TTY_COMPATIBLE), on a legacy Windows console and against COLUMNS; the notebook's HTML
in Unicode whatever stdout's encoding; and the text rich draws at the repl shown as written (no
markup, emoji codes or highlighted numbers).

Reaches into `lazytensor.printer.render` and `lazytensor.cli`: the consoles and renderings are
called with the widths and environments a user's terminal would give them.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Group
from rich.text import Text
from styled_text import ANSI

import lazytensor as lt
from lazytensor.cli import repl_display
from lazytensor.printer import TensorPrint, render

WORDS = Text("a long line of words")
WRAPPED_AT_10 = ["a long", "line of", "words"]


def lines(text: str) -> list[str]:
    """The lines a reader sees: no colour escapes, no trailing spaces."""
    return [line.rstrip() for line in ANSI.sub("", text).splitlines()]


class Terminal(io.StringIO):
    """A stdout that says it is a terminal, as a shell's is."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No colour settings from the machine running the tests; COLUMNS says 80 where rich reads it."""
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    return monkeypatch


@pytest.mark.parametrize("terminal", ["FORCE_COLOR", "TTY_COMPATIBLE"])
def test_plain_text_keeps_its_width_on_a_dumb_terminal(clean_env: pytest.MonkeyPatch, terminal: str) -> None:
    t = lt.arange(12).reshape(3, 4).T[1:, ::2]
    with lt.printoptions(linewidth=24):
        explained = str(t.explain((0, 1)))
    clean_env.setenv(terminal, "1")  # rich then takes the output for a terminal ...
    clean_env.setenv("TERM", "dumb")  # ... a dumb one (Emacs' shell), where it falls back to 80 columns
    assert render.render_plain(WORDS, 10).splitlines() == WRAPPED_AT_10
    with lt.printoptions(linewidth=24):
        assert str(t.explain((0, 1))) == explained
    assert max(len(line) for line in explained.splitlines()) <= 24


@pytest.mark.parametrize("env", [{"FORCE_COLOR": "1", "TERM": "dumb"}, {"TERM": "unknown"}])
def test_the_prompt_keeps_its_width_on_a_dumb_terminal(
    clean_env: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    clean_env.setattr("sys.stdout", Terminal())
    for name, value in env.items():
        clean_env.setenv(name, value)
    assert render.colour_wanted()  # FORCE_COLOR, or a terminal not named `dumb`: the ANSI rendering
    wide = lt.arange(-12.0, 12.0).reshape(2, 12) * 1000
    prompt = render.render_for_prompt(TensorPrint(wide), 30)
    assert lines(prompt) == render.render_plain(TensorPrint(wide), 30).splitlines()
    assert lines(render.render_ansi(WORDS, 10)) == WRAPPED_AT_10


def test_notebook_html_keeps_its_width_on_a_dumb_terminal(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("TERM", "dumb")  # a kernel started from Emacs
    assert render.renderable_html(WORDS, 10) == WRAPPED_AT_10


def test_the_renderings_keep_their_width_on_a_legacy_windows_console(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setattr("rich.console.detect_legacy_windows", lambda: True)  # as rich finds cmd.exe without VT
    words = Text("one two three")
    assert lines(render.render_ansi(words, 7)) == ["one two", "three"]
    assert render.render_plain(words, 7).splitlines() == ["one two", "three"]
    assert render.renderable_html(words, 7) == ["one two", "three"]  # the notebook's explain trees


@pytest.mark.parametrize("colour", ["NO_COLOR", "FORCE_COLOR"])
def test_the_terminal_console_keeps_a_given_width(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], colour: str
) -> None:
    clean_env.setenv(colour, "1")
    render.output_console(10).print(WORDS)
    assert lines(capsys.readouterr().out) == WRAPPED_AT_10  # not COLUMNS' 80
    terminal = Terminal()
    clean_env.setattr("sys.stdout", terminal)
    clean_env.setenv("TERM", "dumb")
    render.output_console(10).print(WORDS)
    assert lines(terminal.getvalue()) == WRAPPED_AT_10  # not a dumb terminal's 80


@pytest.mark.parametrize("colour", ["NO_COLOR", "FORCE_COLOR"])
def test_the_repl_shows_the_text_of_what_rich_draws_as_written(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], colour: str
) -> None:
    clean_env.setenv(colour, "1")
    written = "[b]x[/b] :smile: 12"  # rich's markup, an emoji code and a number rich would colour
    repl_display(Group(written, lt.arange(3)), render.output_console(None))  # a caption over a tensor
    out = capsys.readouterr().out
    assert out.splitlines()[0] == written
    assert ("\x1b[" in out) == (colour == "FORCE_COLOR")  # the tensor in colour, the caption as written


def test_a_print_ending_in_x_keeps_it() -> None:
    t = lt.tensor(["aX", "bX"])
    assert lt.to_string(t).splitlines()[-1] == "aX  bX"
    assert lines(render.render_ansi(TensorPrint(t), 40))[-1] == "aX  bX"


def test_notebook_html_draws_unicode_whatever_the_encoding_of_stdout(clean_env: pytest.MonkeyPatch) -> None:
    t = lt.arange(12).reshape(3, 4).T[1:]
    tree = render.renderable_html(t.explain(), 60)
    assert any("└── " in line for line in tree)  # the notebook is UTF-8: the tree's own guides
    clean_env.setattr(
        "sys.stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    )  # PYTHONIOENCODING=ascii
    assert render.renderable_html(t.explain(), 60) == tree

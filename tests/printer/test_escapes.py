"""Terminal escapes in user text (file names, store paths, string data, error messages) never reach the
terminal raw: every place that prints such text shows its control characters as visible escapes.

Reaches into `lazytensor.printer.escapes`, `lazytensor.printer.summary` and `lazytensor.cli`: every
place that prints user text is called with hostile text, the repl's console and error line included.
"""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys
import unicodedata

import numpy as np
import pytest
import zarr
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

import lazytensor as lt
from lazytensor.cli import ReplConsole, error_line, repl_display
from lazytensor.printer.escapes import printable
from lazytensor.printer.summary import container_summary

# ESC sequences (clear screen, retitle the window), BEL, a C1 CSI, DEL, a right-to-left override
HOSTILE = "a\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\u202eb"
RAW = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e")
SHOWN = r"a\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\u202eb"


def assert_escaped(text: str) -> None:
    """No raw control character in `text`, and the hostile name shown as its escapes."""
    assert not any(raw in text for raw in RAW), repr(text)
    assert SHOWN in text.replace("\n", ""), text  # a long line may wrap inside the name


class Hostile:
    """An object whose repr is a terminal escape sequence."""

    def __repr__(self) -> str:
        return HOSTILE

    __str__ = __repr__


def run(*args: str, commands: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lazytensor", *args],
        input=commands,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "NO_COLOR": "1"},
        timeout=120,
        check=False,
    )


# -- the function ------------------------------------------------------------------------------------


@given(st.text())
def test_printable_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable()
    assert (shown == text) == text.isprintable()


@given(st.lists(st.text(), max_size=4))
def test_printable_keeps_newlines_when_asked(lines: list[str]) -> None:
    text = "\n".join(line.replace("\n", "") for line in lines)
    shown = printable(text, keep_newlines=True)
    assert shown.count("\n") == text.count("\n")
    assert all(line.isprintable() for line in shown.split("\n"))


def test_printable_characters_beside_a_control_one_pass_unchanged_backslashes_and_quotes_too() -> None:
    assert printable('C:\\data\\it\'s "here"\x07') == 'C:\\data\\it\'s "here"\\x07'


@pytest.mark.parametrize(
    "char",
    [
        "\x00",
        "\x07",
        "\x1b",
        "\x7f",
        "\x85",
        "\x9b",
        "\u200f",
        "\u202a",
        "\u202e",
        "\u2066",
        "\u2069",
        "\ud800",
    ],
)
def test_every_kind_of_control_character_is_escaped(char: str) -> None:
    assert unicodedata.category(char) in ("Cc", "Cf", "Cs")
    assert printable(f"x{char}y") == f"x{char!r}y".replace("'", "")


# -- the command line ----------------------------------------------------------------------------------


def test_show_escapes_a_missing_file_name(tmp_path: pathlib.Path) -> None:
    done = run("show", str(tmp_path / f"{HOSTILE}.npy"))
    assert done.returncode == 2
    assert_escaped(done.stderr)


def test_show_escapes_the_name_of_a_corrupt_file_and_its_title(tmp_path: pathlib.Path) -> None:
    corrupt = tmp_path / f"{HOSTILE}.npy"
    corrupt.write_bytes(b"\x93NUMPY nonsense")
    done = run("show", str(corrupt))
    assert done.returncode == 2
    assert_escaped(done.stderr)
    good = tmp_path / f"{HOSTILE}-good.npy"
    np.save(good, np.arange(3))
    shown = run("show", str(good))
    assert shown.returncode == 0
    assert_escaped(shown.stdout)


def test_usage_errors_escape_the_arguments_they_quote(tmp_path: pathlib.Path) -> None:
    done = run("show", str(tmp_path / "a.npy"), HOSTILE)  # an unrecognised argument
    assert done.returncode == 2
    assert_escaped(done.stderr)


def test_the_repl_escapes_a_missing_file_name(tmp_path: pathlib.Path) -> None:
    done = run("repl", str(tmp_path / f"{HOSTILE}.npy"))
    assert done.returncode == 2
    assert_escaped(done.stderr)


def test_the_repl_escapes_file_names_in_its_banner_and_errors(tmp_path: pathlib.Path) -> None:
    path = tmp_path / f"{HOSTILE}.npy"
    np.save(path, np.arange(3))
    missing = str(tmp_path / f"{HOSTILE}-missing.npy")
    done = run("repl", str(path), commands=f"lt.load({missing!r})\nfoo({HOSTILE!r}\x1b\n")
    assert done.returncode == 0
    banner, errors = done.stderr.split("Ctrl-D to leave", 1)
    assert_escaped(banner)
    assert_escaped(errors)  # the FileNotFoundError of lt.load: one line
    assert "SyntaxError" in errors and "Traceback" not in errors


def test_the_repl_console_and_display_hook_escape_what_they_write(capsys: pytest.CaptureFixture[str]) -> None:
    ReplConsole({}).write(f"{HOSTILE}\n")
    assert_escaped(capsys.readouterr().err)
    assert_escaped(error_line(FileNotFoundError(f"{HOSTILE}: no such file")))
    out = io.StringIO()
    repl_display(Hostile(), Console(file=out, color_system=None))
    assert_escaped(out.getvalue())


# -- the printer and explain -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [object, str])
def test_separators_escape_string_data(dtype: type) -> None:
    t = lt.tensor(np.array([HOSTILE, "ok"], dtype=dtype))
    assert_escaped(lt.to_string(t, style="separators"))
    assert_escaped(lt.to_string(t[:1], style="separators"))


def test_explain_escapes_the_path_of_a_zarr_store(tmp_path: pathlib.Path) -> None:
    path = tmp_path / f"{HOSTILE}.zarr"
    array = zarr.create_array(store=str(path), shape=(2, 3), chunks=(1, 3), dtype="f8")
    array[...] = 1.0
    t = lt.open(str(path))
    assert_escaped(str(t.explain()))
    assert_escaped(str(t.T[1:].explain((0, 0))))


def test_explain_escapes_a_value_and_containers_escape_items_and_keys() -> None:
    t = lt.tensor(np.array([Hostile(), 1], dtype=object))
    assert_escaped(str(t.explain((0,))))
    summary = container_summary({Hostile(): t, "b": t, "c": Hostile()})
    assert summary is not None
    assert_escaped(summary.plain)


def test_control_characters_in_data_are_shown_escaped() -> None:
    values = np.array(["\x1b[2J\x1b[Hhi", "ok\x07", "\x1b]0;title\x07", "two\nlines"])
    text = lt.to_string(lt.tensor(values))
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J\\x1b[Hhi" in text and "\\x1b]0;title\\x07" in text and "two\\nlines" in text

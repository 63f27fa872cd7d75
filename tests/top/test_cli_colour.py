"""How `show` and `tour` style their output, run in this process (`main(argv)`): the bold title and
prompts and the dim rules with `FORCE_COLOR`, no escape at all with `NO_COLOR` (not even bold), the
heatmap's backgrounds, `--width` kept on a dumb terminal, and tour values shown whole and as the
repl shows them.

Reaches into `lazytensor.cli`: `main(argv)` runs in this process, so the consoles' styles can be
read, and the tour is replaced by a short one.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from styled_text import ANSI

import lazytensor.cli as cli

BOLD = "\x1b[1m"
DIM = "\x1b[2m"


def run(*args: str) -> tuple[int, str, str]:
    """main(args): (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No colour or size settings from the environment the tests run in."""
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLORTERM", "COLUMNS", "LINES", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture
def thirds(tmp_path: Path) -> Path:
    path = tmp_path / "thirds.npy"
    np.save(path, np.array([[1 / 3, 2 / 3, 1.0], [0.0, -1.0, 5.0]]))
    return path


# -- show ---------------------------------------------------------------------------------------


def test_show_s_title_is_bold_in_colour(thirds: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    status, out, err = run("show", str(thirds))
    assert status == 0 and err == ""
    assert out.splitlines()[0] == f"{BOLD}{thirds}\x1b[0m"


@pytest.mark.parametrize("term", [None, "dumb"])
def test_no_color_means_no_escape_at_all_in_show(
    thirds: Path, monkeypatch: pytest.MonkeyPatch, term: str | None
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    if term is not None:
        monkeypatch.setenv("TERM", term)
    status, out, _ = run("show", str(thirds), "--index", "0")
    assert status == 0 and out.splitlines()[0] == f"{thirds}[0]"
    assert "\x1b" not in out
    assert run("show", str(thirds), "--heatmap")[1] == run("show", str(thirds))[1]


def backgrounds(text: str) -> list[str]:
    """The SGR codes in `text` that set a background colour (40-47, 48;..., 100-107)."""
    found = []
    for code in ANSI.findall(text):
        parameters = [int(p) for p in code[2:-1].split(";") if p]
        k = 0
        while k < len(parameters):
            if parameters[k] in (38, 48):
                if parameters[k] == 48:
                    found.append(code)
                k += 3 if parameters[k + 1] == 5 else 5
                continue
            if 40 <= parameters[k] <= 47 or 100 <= parameters[k] <= 107:
                found.append(code)
            k += 1
    return found


def test_the_heatmap_colours_backgrounds(thirds: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    status, plain, _ = run("show", str(thirds))
    assert status == 0 and backgrounds(plain) == []
    status, heat, _ = run("show", str(thirds), "--heatmap")
    assert status == 0 and ANSI.sub("", heat) == ANSI.sub("", plain)
    assert len(backgrounds(heat)) == 6  # one per value


def test_show_keeps_its_width_on_a_dumb_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rich gives a dumb terminal 80 columns whatever the width asked for, unless a height comes with it."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "dumb")
    path = tmp_path / ("a_long_file_name_" * 3 + ".npy")
    np.save(path, np.arange(3))
    status, out, _ = run("show", str(path), "--width", "20")
    assert status == 0
    lines = ANSI.sub("", out).splitlines()
    assert max(len(line) for line in lines) <= 20
    title = "".join(lines[: len(str(path)) // 20 + 1])
    assert title == str(path)


# -- the tour -----------------------------------------------------------------------------------


def tour_of(monkeypatch: pytest.MonkeyPatch, *steps: str) -> str:
    monkeypatch.setattr(cli, "TOUR", (("A title", steps),))
    monkeypatch.setattr(cli, "TOUR_END", "")  # the real tour's last line, on browsing
    status, out, err = run("tour")
    assert status == 0 and err == ""
    return out


def test_the_tour_s_prompts_are_bold_and_its_rules_dim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "40")
    out = tour_of(monkeypatch, "x = 2  # a comment", "x + 1")
    assert out.splitlines() == [
        "",
        f"{DIM}{'─' * 15} \x1b[0mA title{DIM} {'─' * 16}\x1b[0m",  # 40 columns
        "",
        f"{BOLD}>>> x = 2  # a comment\x1b[0m",
        "",
        f"{BOLD}>>> x + 1\x1b[0m",
        "3",
    ]


def test_no_color_means_no_escape_at_all_in_the_tour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    out = tour_of(monkeypatch, "t = lt.arange(6).reshape(2, 3)", "t", "t.explain()")
    assert ">>> t.explain()" in out and "\x1b" not in out


def test_tour_values_show_as_the_repl_shows_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tensor through rich (in colour here), anything else by its repr: a string keeps its quotes."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = tour_of(monkeypatch, "lt.arange(3)", "'a' + 'b'", "[1, 2]", "None")
    tensor = out[out.index(">>> lt.arange(3)") : out.index(">>> 'a'")].split("\n", 1)[1]
    assert tensor.startswith(f"shape {BOLD}(3,)\x1b[0m{DIM} · \x1b[0m")  # the tensor's own styles
    assert tensor.endswith(f"\n{DIM}0\x1b[0m  1  2\n\n{BOLD}")
    assert out.endswith(
        f">>> 'a' + 'b'\x1b[0m\n'ab'\n\n{BOLD}>>> [1, 2]\x1b[0m\n[1, 2]\n\n{BOLD}>>> None\x1b[0m\n"
    )


def test_a_tour_step_s_comment_is_python_s_to_drop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a real comment ends a step: `  #` inside a string is part of it."""
    out = tour_of(monkeypatch, "s = 'a  #b'  # a string", "s + '  # c'", "len(s)  # five")
    assert out.splitlines()[3:] == [
        ">>> s = 'a  #b'  # a string",
        "",
        ">>> s + '  # c'",
        "'a  #b  # c'",
        "",
        ">>> len(s)  # five",
        "5",
    ]


def test_tour_values_wider_than_the_terminal_are_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "12")
    out = tour_of(monkeypatch, "lt.tensor([10**15, 1])")
    assert "max 1000000000000000\n" in out
    assert out.endswith("\n1000000000000000\n               1\n")

"""The print options: every default, every refusal in full, the `None`-keeps-the-value rule of
`set_printoptions`, a copy from `get_printoptions`, and the widths and heights taken from the terminal
only when stdout is one.

Reaches into `lazytensor.printer.options`: the defaults, the widths and heights read from the
terminal and the current options are the module's own.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
from typing import Any

import attrs
import pytest

import lazytensor as lt
from lazytensor.printer import options as print_options
from lazytensor.printer.options import (
    DEFAULT_MAXLINES,
    OPTION_NAMES,
    PrintOptions,
    current_options,
    line_width,
    max_lines,
    notebook_line_width,
    terminal_width,
)

DEFAULTS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": None,
    "sci_mode": None,
    "stats_limit": None,
    "heatmap": False,
    "style": "grid",
    "notebook_width": 120,
    "maxlines": None,
}


def test_every_default() -> None:
    assert attrs.asdict(PrintOptions()) == DEFAULTS
    assert lt.get_printoptions() == DEFAULTS
    assert tuple(DEFAULTS) == OPTION_NAMES
    assert DEFAULT_MAXLINES == 100


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("precision", -1, "print option precision must be a non-negative int, got -1"),
        ("threshold", True, "print option threshold must be a non-negative int, got True"),
        ("edgeitems", 1.0, "print option edgeitems must be a non-negative int, got 1.0"),
        ("linewidth", 0, "print option linewidth must be a positive int or None, got 0"),
        ("linewidth", False, "print option linewidth must be a positive int or None, got False"),
        ("linewidth", "80", "print option linewidth must be a positive int or None, got '80'"),
        ("maxlines", 0, "print option maxlines must be a positive int or None, got 0"),
        ("stats_limit", -1, "print option stats_limit must be a non-negative int, got -1"),
        ("stats_limit", 2.5, "print option stats_limit must be a non-negative int, got 2.5"),
        ("sci_mode", 1, "print option sci_mode must be True, False or None, got 1"),
        ("heatmap", None, "print option heatmap must be True or False, got None"),
        ("heatmap", 1, "print option heatmap must be True or False, got 1"),
        ("style", "fancy", "print option style must be one of grid, separators, line, got 'fancy'"),
        ("notebook_width", 0, "print option notebook_width must be a positive int, got 0"),
        ("notebook_width", True, "print option notebook_width must be a positive int, got True"),
        ("notebook_width", 1.5, "print option notebook_width must be a positive int, got 1.5"),
    ],
)
def test_bad_values_are_refused_in_full(name: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        PrintOptions(**{name: value})
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("precision", 0),
        ("threshold", 0),
        ("edgeitems", 0),
        ("linewidth", 1),
        ("maxlines", 1),
        ("stats_limit", 0),
        ("sci_mode", False),
        ("heatmap", True),
        ("style", "line"),
        ("notebook_width", 1),
    ],
)
def test_the_smallest_values_are_accepted(name: str, value: Any) -> None:
    assert getattr(PrintOptions(**{name: value}), name) == value


def test_unknown_options_are_named_with_every_option() -> None:
    with pytest.raises(TypeError) as refused:
        current_options(colour=True, bold=1)
    assert str(refused.value) == (
        "unknown print option bold, colour; the options are precision, threshold, edgeitems, linewidth, "
        "sci_mode, stats_limit, heatmap, style, notebook_width, maxlines"
    )


def test_set_printoptions_leaves_alone_what_it_is_given_as_none() -> None:
    changed = PrintOptions(precision=2, threshold=5, edgeitems=1, linewidth=40, heatmap=True)
    try:
        lt.set_printoptions(precision=2, threshold=5, edgeitems=1, linewidth=40, heatmap=True)
        assert current_options() == changed
        lt.set_printoptions(precision=3)
        assert current_options() == attrs.evolve(changed, precision=3)
        lt.set_printoptions(**DEFAULTS)  # the Nones among them keep linewidth 40
        assert current_options() == PrintOptions(linewidth=40)
    finally:
        print_options._current.set(print_options.DEFAULTS)
    assert current_options() == PrintOptions()


def test_get_printoptions_is_a_copy() -> None:
    options = lt.get_printoptions()
    options["precision"] = 9
    assert lt.get_printoptions()["precision"] == 4


def test_printoptions_yields_the_options_in_force() -> None:
    with lt.printoptions(precision=1, style="line") as inside:
        assert inside == PrintOptions(precision=1, style="line") == current_options()
    assert current_options() == PrintOptions()


# -- the terminal ----------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _size(columns: int, lines: int) -> Any:
    return lambda fallback=(80, 24): os.terminal_size((columns, lines))


def test_widths_and_heights_of_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Terminal())
    monkeypatch.setattr(shutil, "get_terminal_size", _size(133, 41))
    assert terminal_width() == 133
    assert line_width(PrintOptions()) == 133 and line_width(PrintOptions(linewidth=50)) == 50
    assert max_lines(PrintOptions()) == 41 and max_lines(PrintOptions(maxlines=7)) == 7
    assert notebook_line_width(PrintOptions()) == 120


@pytest.mark.parametrize("stdout", [None, io.StringIO(), object()], ids=["none", "file", "no_isatty"])
def test_without_a_terminal_80_columns_and_100_lines(stdout: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(shutil, "get_terminal_size", _size(133, 41))
    assert terminal_width() == 80
    assert line_width(PrintOptions()) == 80
    assert max_lines(PrintOptions()) == DEFAULT_MAXLINES == 100


def test_a_terminal_that_cannot_say_its_size_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Terminal())
    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback: os.terminal_size(fallback))
    assert terminal_width() == 80
    assert max_lines(PrintOptions()) == 100


def test_notebook_width_is_an_option() -> None:
    assert notebook_line_width(PrintOptions(notebook_width=90)) == 90
    assert notebook_line_width(PrintOptions(notebook_width=90, linewidth=70)) == 70


def test_a_print_that_fits_its_maxlines_is_never_cut() -> None:
    t = lt.arange(3 * 8 * 4).reshape(3, 8, 4) / 3
    full = lt.to_string(t, maxlines=10**6)
    height = len(full.splitlines())
    assert lt.to_string(t, maxlines=height) == full
    assert len(lt.to_string(t, maxlines=height - 1).splitlines()) <= height - 1


@pytest.mark.parametrize("maxlines", [None, 12])  # 12 lines: rows cut to the edge items
def test_precision_and_sci_mode_hold_in_a_whole_print_and_a_cut_one(maxlines: int | None) -> None:
    t = lt.arange(3 * 8 * 4).reshape(3, 8, 4) / 3
    two = lt.to_string(t, maxlines=maxlines, precision=2).split("\n\n", 1)[1]
    numbers = re.findall(r"-?\d+\.\d*", two)
    assert numbers and "0.33" in numbers and all(len(n.split(".")[1]) <= 2 for n in numbers)
    assert ("⋮" in two) == (maxlines is not None)
    sci = lt.to_string(t, maxlines=maxlines, sci_mode=True).split("\n\n", 1)[1]
    assert "3.3333e-01" in sci and not re.search(r"\d\.\d+(?!\d*e)", sci)

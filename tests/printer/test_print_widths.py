"""Prints for any width and any height (issue 29, items 3 and 4).

- Side-by-side slices re-flow into as many rows as the width needs, in a terminal by its width
  (golden text at 40 to 200 columns; the notebook's HTML is checked in a browser, test_browser.py).
- `explain(position)` wraps to the console's width, or the notebook's, its table's last column
  within its own column.
- A print taller than `maxlines` (the terminal's height) keeps its first and last 2-D slices.

Regenerate the golden files with `LAZYTENSOR_UPDATE_GOLDEN=1`, then read every changed file.

Reaches into `lazytensor.printer.options`: the height read from a terminal is planted and read back
as the module computes it.
"""

from __future__ import annotations

import io
import math
import os
import re
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.printer import options as print_options

PANEL_WIDTHS = (40, 56, 80, 120, 200)


def _four_axes() -> lt.AbstractTensor:
    return lt.arange(120).reshape(2, 3, 4, 5).transpose(1, 2)[:, ::-1]


def test_golden_side_by_side_slices_by_terminal_width() -> None:
    t = _four_axes()
    text = "".join(f"== width {width} ==\n{lt.to_string(t, linewidth=width)}\n" for width in PANEL_WIDTHS)
    check_golden("print", "panels_by_width", text)


@pytest.mark.parametrize("width", PANEL_WIDTHS)
def test_slices_fill_each_row_the_width_allows(width: int) -> None:
    t = _four_axes()
    lines = lt.to_string(t, linewidth=width).split("\n")
    assert max(len(line) for line in lines) <= width
    per_row = max(1, (width + 4) // (23 + 4))  # a slice is 23 columns wide, 4 between slices
    label_rows = [line.count("[") for line in lines if line.startswith("[")]
    assert label_rows[0] == min(per_row, 4), label_rows
    assert sum(label_rows) == 8


def _long_trace() -> Any:
    t = lt.zeros(10**6).reshape(10, 10, 10, 10, 10, 10)[1:, ::2]
    return t.explain((3, 2, 1, 4, 5, 6))


def test_golden_explain_position_by_width() -> None:
    explanation = _long_trace()
    sections = []
    for width in (60, 80, 120):
        with lt.printoptions(linewidth=width):
            sections.append(f"== width {width} ==\n{explanation}\n")
    check_golden("explain", "trace_by_width", "".join(sections))


def test_explain_wraps_its_table_within_the_last_column() -> None:
    with lt.printoptions(linewidth=80):
        lines = str(_long_trace()).split("\n")
    assert max(len(line) for line in lines) <= 80
    start = lines[1].index("parameters")
    continued = [line for line in lines[2:5] if line.startswith(" ")]
    assert continued and all(len(line) - len(line.lstrip()) == start for line in continued)


def test_explain_in_a_notebook_wraps_at_the_notebook_width() -> None:
    bundle = _long_trace()._repr_mimebundle_()
    plain = bundle["text/plain"]
    assert "offset 100000) gives 441456 in one step" in plain  # one line at 120 columns, two at 80
    assert max(len(line) for line in plain.split("\n")) <= 120
    with lt.printoptions(notebook_width=70):
        assert max(len(line) for line in _long_trace()._repr_mimebundle_()["text/plain"].split("\n")) <= 70


@st.composite
def tall_tensors(draw: st.DrawFn) -> tuple[lt.AbstractTensor, int, int]:
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=3, max_size=6)))
    return (
        lt.arange(math.prod(shape)).reshape(*shape),
        draw(st.integers(8, 120)),
        draw(st.sampled_from([40, 120])),
    )


def _labels(text: str) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in m.group(1).split(", ")) for m in re.finditer(r"\[([\d, ]+), :, :\]", text)]


@given(tall_tensors())
def test_a_print_taller_than_maxlines_keeps_its_first_and_last_slices(case: Any) -> None:
    t, maxlines, width = case
    text = lt.to_string(t, maxlines=maxlines, linewidth=width, threshold=10**6)
    every = lt.to_string(t, maxlines=10**6, linewidth=width, threshold=10**6)
    all_labels = list(np.ndindex(*t.shape[:-2]))
    assert _labels(every) == all_labels
    labels = _labels(text)
    if len(every.split("\n")) <= maxlines or len(all_labels) <= 2:  # fits, or nothing to leave out
        assert text == every
        return
    kept = len(labels) // 2
    assert labels == all_labels[:kept] + all_labels[len(all_labels) - kept :]
    assert f"⋮ {len(all_labels) - 2 * kept:,} more slices ⋮" in text
    assert len(text.split("\n")) <= maxlines or kept == 1  # fewer than one slice at each end: never
    if kept > 1:  # the most slices that fit: one more at each end would not
        longer = lt.to_string(t, maxlines=len(text.split("\n")), linewidth=width, threshold=10**6)
        assert _labels(longer) == labels


@given(st.integers(1, 400), st.integers(1, 4), st.integers(12, 60))
def test_rows_are_cut_when_even_two_slices_are_too_tall(rows: int, columns: int, maxlines: int) -> None:
    t = lt.arange(rows * columns).reshape(rows, columns)
    text = lt.to_string(t, maxlines=maxlines)
    every = lt.to_string(t, maxlines=10**6)
    if len(every.split("\n")) <= maxlines or rows <= 6:  # fits, or no more than 3 rows at each end
        assert text == every
        return
    values = text.split("\n\n", 1)[1].split("\n")
    assert len(values) == 7 and set(values[3].split()) == {"⋮"}  # three rows, ⋮, three rows
    assert values[0].split()[0] == "0" and values[-1].split()[-1] == str(rows * columns - 1)


def test_maxlines_is_a_print_option() -> None:
    t = lt.arange(2 * 3 * 4 * 5 * 6 * 7).reshape(2, 3, 4, 5, 6, 7)  # numpy would print it all
    assert len(repr(t).split("\n")) <= 100  # not a terminal: 100 lines
    assert "more slices ⋮" in repr(t)
    with lt.printoptions(maxlines=40):
        assert len(repr(t).split("\n")) <= 40
    assert lt.get_printoptions()["maxlines"] is None
    with pytest.raises(ValueError, match="maxlines"):
        lt.set_printoptions(maxlines=0)


def test_on_a_terminal_maxlines_is_its_height(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdout", Terminal())
    monkeypatch.setattr(
        print_options.shutil, "get_terminal_size", lambda fallback: os.terminal_size((80, 30))
    )
    assert print_options.max_lines(print_options.current_options()) == 30
    t = lt.arange(240).reshape(20, 3, 4)
    assert len(lt.to_string(t).split("\n")) <= 30


def test_the_printer_never_cuts_a_number_or_a_string() -> None:
    text = lt.to_string(lt.tensor([123456, 7, 99999999]), linewidth=4)
    assert "123456" in text.split("\n") or " 123456" in text  # whole, however narrow the line
    assert "99999999" in text
    wide = lt.to_string(lt.tensor(np.array(["a" * 50, "b" * 60])), linewidth=30)
    assert "b" * 60 in wide and "a" * 50 in wide

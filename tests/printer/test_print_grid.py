"""The grid of a print's values: lines fill the width greedily, columns are dropped only when they must
be, the grid's height is what it draws, and a tall print keeps as many edge slices as fit.

Properties over random shapes and widths, checked against the laid-out text itself.

Reaches into `lazytensor.printer`: the grid's pieces (`fit_columns`, `fit_grid`, `SliceGrid`, ...)
are checked as properties at random widths.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import numpy as np
from hypothesis import given
from rich.text import Text

import lazytensor as lt
from lazytensor.printer.cells import CellPainter
from lazytensor.printer.grid import (
    BLOCK_GAP,
    COLUMN_GAP,
    Block,
    Rule,
    SliceGrid,
    TextBuilder,
    draw_rules,
    fit_columns,
    fit_grid,
)
from lazytensor.printer.numberformat import format_values
from lazytensor.printer.options import DEFAULTS, PrintOptions
from lazytensor.printer.shown import ShownAxis, read_shown, select_shown
from lazytensor.printer.styles import DIM


def _grid(t: lt.AbstractTensor, width: int, **options: Any) -> SliceGrid:
    selection = select_shown(t, None, PrintOptions(**options))
    painter = CellPainter(format_values(read_shown(selection), DEFAULTS), DEFAULTS)
    return SliceGrid(selection, painter, width)


@given(count=st.integers(1, 80), width=st.integers(4, 60))
def test_a_vector_fills_each_line_before_starting_the_next(count: int, width: int) -> None:
    lines = [line.plain for line in _grid(lt.arange(count), width).body()]  # type: ignore[union-attr]
    assert " ".join(lines).split() == [str(k) for k in range(count)]
    cell = len(str(count - 1))  # every cell is as wide as the widest number
    for line in lines:
        assert len(line) <= max(width, cell)
    for line in lines[:-1]:
        assert len(line) + len(COLUMN_GAP) + cell > width


def test_a_vector_line_may_end_exactly_at_the_width() -> None:
    lines = [line.plain for line in _grid(lt.arange(10, 20), 10).body()]  # type: ignore[union-attr]
    assert lines == ["10  11  12", "13  14  15", "16  17  18", "19"]


def test_a_summarised_vector_shows_a_dim_ellipsis_between_its_ends() -> None:
    (line,) = _grid(lt.arange(2000), 200).body()
    assert isinstance(line, Text)
    assert line.plain == "   0     1     2  …  1997  1998  1999"
    assert [line.plain[span.start : span.end] for span in line.spans if span.style == DIM] == ["…"]


@given(columns=st.integers(1, 40), width=st.integers(10, 120), summarise=st.booleans())
def test_the_columns_that_fit_are_as_many_as_the_width_allows(
    columns: int, width: int, summarise: bool
) -> None:
    head = min(3, columns) if summarise else columns
    tail = min(3, columns - head) if summarise else 0
    axis = ShownAxis(axis=1, size=columns + (5 if summarise and tail else 0), head=head, tail=tail)
    cell = 4
    fitted = fit_columns(axis, cell, width)
    shown = len(fitted.positions)
    count = head + tail
    gap_cost = 1 + len(COLUMN_GAP) if fitted.gap is not None else 0
    row = shown * cell + (shown - 1) * len(COLUMN_GAP) + gap_cost
    natural_gap = 1 + len(COLUMN_GAP) if axis.omitted else 0
    natural = count * cell + (count - 1) * len(COLUMN_GAP) + natural_gap
    if natural <= width or count <= 2:
        assert fitted.positions == tuple(range(count))
        assert fitted.gap == (head if axis.omitted else None)
        return
    assert shown >= 2 and row <= max(width, 2 * (cell + 2) + 1)
    assert shown == count or (shown + 1) * (cell + len(COLUMN_GAP)) + 1 > width  # one more would not fit
    if shown < count:
        assert fitted.gap == (shown + 1) // 2
        assert fitted.positions == (*range(fitted.gap), *range(count - (shown - fitted.gap), count))


def test_columns_dropped_from_the_middle_leave_the_first_half_rounded_up() -> None:
    axis = ShownAxis(axis=1, size=30, head=30, tail=0)
    fitted = fit_columns(axis, 4, 6 * 5 + 1)  # room for 5 cells and the `…`
    assert fitted.positions == (0, 1, 2, 28, 29) and fitted.gap == 3
    assert fit_columns(axis, 4, 12).positions == (0, 29)  # never fewer than two
    two = ShownAxis(axis=1, size=2, head=2, tail=0)
    assert fit_columns(two, 40, 10).positions == (0, 1)


@given(
    shape=st.lists(st.integers(1, 4), min_size=0, max_size=5),
    width=st.integers(10, 90),
    edgeitems=st.integers(1, 3),
)
def test_the_height_of_a_grid_is_the_number_of_lines_it_draws(
    shape: list[int], width: int, edgeitems: int
) -> None:
    t = lt.arange(int(np.prod(shape))).reshape(*shape) if shape else lt.tensor(5)
    grid = _grid(t, width, edgeitems=edgeitems)
    assert grid.height() == len(grid.body())
    for edge in (1, 2):
        cut = SliceGrid(grid.selection, grid.painter, width, edge_slices=edge)
        assert cut.height() == len(cut.body())


@given(leading=st.integers(3, 12), room=st.integers(4, 40), width=st.integers(10, 40))
def test_a_tall_print_keeps_the_most_edge_slices_that_fit(leading: int, room: int, width: int) -> None:
    t = lt.arange(leading * 4).reshape(leading, 2, 2)
    selection = select_shown(t, None, PrintOptions())
    painter = CellPainter(format_values(read_shown(selection), DEFAULTS), DEFAULTS)
    grid = fit_grid(selection, painter, width, room)
    every = SliceGrid(selection, painter, width)
    if every.height() <= room:
        assert grid.edge_slices is None
        return
    edge = grid.edge_slices
    assert edge is not None and 1 <= edge <= leading // 2
    assert edge == 1 or grid.height() <= room
    more = SliceGrid(selection, painter, width, edge_slices=edge + 1)
    assert 2 * (edge + 1) >= leading or more.height() > room


def test_a_print_of_two_slices_is_never_cut() -> None:
    t = lt.arange(2 * 30 * 2).reshape(2, 30, 2)
    selection = select_shown(t, None, PrintOptions())
    painter = CellPainter(format_values(read_shown(selection), DEFAULTS), DEFAULTS)
    assert fit_grid(selection, painter, 20, 5).edge_slices is None


def test_a_cut_print_counts_the_slices_it_leaves_out() -> None:
    t = lt.arange(10 * 4).reshape(10, 2, 2)
    lines = [line.plain for line in draw_rules(_grid(t, 12).body())]
    cut = SliceGrid(_grid(t, 12).selection, _grid(t, 12).painter, 12, edge_slices=2)
    cut_lines = [line.plain for line in draw_rules(cut.body())]
    assert "⋮ 6 more slices ⋮" in cut_lines
    assert cut_lines[: cut_lines.index("⋮ 6 more slices ⋮")] == lines[: len(lines) // 5]
    assert SliceGrid(cut.selection, cut.painter, 12, edge_slices=5).body() == _grid(t, 12).body()


def test_side_by_side_slices_pack_greedily_with_the_block_gap() -> None:
    t = lt.arange(3 * 4).reshape(1, 3, 2, 2)  # three 2x2 slices, each 5 cells wide ("0  1")
    label_width = len("[0, 0, :, :]")
    exact = 3 * label_width + 2 * len(BLOCK_GAP)
    assert len(draw_rules(_grid(t, exact).body())) == 3  # one row of slices, labels on the first line
    assert len(draw_rules(_grid(t, exact - 1).body())) == 3 + 1 + 3  # two rows, a blank line between


def test_rules_are_as_wide_as_the_widest_line_and_dim() -> None:
    lines = draw_rules([Text("abc"), Rule("═"), Text("abcde")])
    assert lines[1].plain == "═════" and lines[1].style == DIM
    assert draw_rules([Rule("─")])[0].plain == "─"


def test_a_block_is_as_wide_as_its_widest_line() -> None:
    assert Block.of([Text("ab"), Text("abcd"), Text("")]).width == 4
    assert Block.of([]).width == 0


def test_the_text_builder_styles_only_styled_pieces() -> None:
    builder = TextBuilder()
    builder.add("ab")
    builder.add("cd", DIM)
    builder.add("e", None)
    text = builder.text()
    assert text.plain == "abcde"
    assert [(span.start, span.end, span.style) for span in text.spans] == [(2, 4, DIM)]

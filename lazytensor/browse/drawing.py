"""The browser's text: the header, the slice as the printer draws its numbers (or a heatmap), and
the status line's statistics of the shown cells. Rich `Text`, no terminal: the app places it.

The numbers come from the printer's own pieces (`format_values`, `CellPainter`, `statistics`), so
a cell reads the same in the browser as in a print at the same precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from rich.style import Style
from rich.text import Text

from lazytensor.browse.state import BrowseState
from lazytensor.browse.window import Window
from lazytensor.ground.blockplan import chunk_shape
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.axisnames import COLUMNS, ROWS, name_text, shape_text
from lazytensor.printer.cells import CellPainter, heat_style
from lazytensor.printer.escapes import printable
from lazytensor.printer.header import statistics, storage_kind
from lazytensor.printer.numberformat import Values, format_values
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.styles import DIM, DTYPE, LABEL, SHAPE

CURSOR = Style(reverse=True)
"""The cell Enter edits."""
MIN_CELL = 1
"""The narrowest cell: how many columns a window reads at most is the width over this plus one."""


def options_of(state: BrowseState) -> PrintOptions:
    """The printer's options for the state: its precision and heatmap."""
    return PrintOptions(precision=state.precision, heatmap=state.heatmap)


def axis_label(state: BrowseState, axis: int | None, arrow: str) -> str:
    """`time↓` for a named axis, `axis 2↓` for an unnamed one, empty for none."""
    if axis is None:
        return ""
    name = state.names[axis]
    return (f"axis {axis}" if name is None else name_text(name)) + arrow


def base_text(t: Tensor) -> str:
    """What holds the values: `zarr`, `memory-mapped`, `in memory`, with the chunks when chunked."""
    kind = storage_kind(t) or "in memory"
    chunks = None if t.base.has_buffer else chunk_shape(t.base)
    return kind if chunks is None else f"{kind}, chunks {'×'.join(str(n) for n in chunks)}"


def header_lines(t: Tensor, state: BrowseState, title: str, writable: bool) -> list[Text]:
    """Two lines: the title, the named shape, dtype, base and chunking, read-only or writable; then
    the selection as keys and the axis ←/→ moves."""
    dot = Text(" · ", style=DIM)
    first = Text.assemble(
        (printable(title), "bold"),
        dot,
        (shape_text(state.shape, None if all(n is None for n in state.names) else state.names), SHAPE),
        dot,
        (str(t.dtype), DTYPE),
        dot,
        base_text(t),
        dot,
        ("writable" if writable else "read-only", "bold" if writable else DIM),
    )
    second = Text.assemble((state.key_text(), LABEL))
    for text in (state.isel_text(), state.sel_text()):
        if text is not None:
            second.append_text(Text.assemble(("  =  ", DIM), (text, LABEL)))
    if state.moving is not None:
        size = state.shape[state.moving]
        moving = axis_label(state, state.moving, "")
        label = state.label(state.moving, state.index[state.moving])
        at = f"{moving} {'' if label is None else cut(label, ROW_LABEL_MOST) + ' '}"
        second.append_text(Text(f"   ←/→ {at}{state.index[state.moving]}/{size - 1}", style=DIM))
    return [first, second]


ROW_LABEL_MOST = 16
"""The most characters a row's coordinate label takes; a longer one is cut with an ellipsis."""


def cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, its end replaced by `…` when it is longer.

    >>> cut("2024-01-02", 5), cut("rome", 5)
    ('2024…', 'rome')
    """
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"[: max(width, 0)]


def row_labels(state: BrowseState, top: int, rows: int, width: int) -> list[str]:
    """The labels of the rows `top` to `top + rows - 1`: their coordinate's labels when the rows'
    axis has one (cut to `ROW_LABEL_MOST`, and to a quarter of a narrow `width`), else their positions."""
    positions = range(top, top + max(rows, 1))
    if state.coord(state.rows) is None or state.slice_shape[0] == 0:
        return [str(row) for row in positions]
    last = state.slice_shape[0] - 1
    most = max(min(ROW_LABEL_MOST, width // 4), 2)
    labels = state.labels(state.rows, [min(row, last) for row in positions]) or []
    return [cut(label, most) for label in labels]


def label_width(state: BrowseState, top: int, rows: int, width: int) -> int:
    """The characters the row labels take in `width`: the rows' axis, a space, the widest row label."""
    widest = max(len(label) for label in row_labels(state, top, rows, width))
    return len(axis_label(state, state.rows, ROWS)) + 1 + widest


def fitting_columns(cell_width: int, labels: int, width: int) -> int:
    """How many cells of `cell_width` fit beside row labels of `labels` characters in `width` (one at least).

    >>> fitting_columns(5, 8, 80)
    12
    """
    return max((width - labels) // (cell_width + 1), 1)


def widest_cell(dtype: np.dtype[Any], precision: int) -> int:
    """The widest cell values of `dtype` take at `precision`: a first read of a window asks for the
    columns that fit cells this wide, so it never reads a column the screen has no room for.

    >>> widest_cell(np.dtype("f8"), 4), widest_cell(np.dtype("i1"), 4), widest_cell(np.dtype("?"), 4)
    (11, 4, 5)
    """
    if dtype.kind == "f":
        return precision + 7  # -1.2345e+00: sign, digit, point, the digits, the exponent
    if dtype.kind == "c":
        return 2 * (precision + 7) + 1
    if dtype.kind in "iu":
        return len(str(np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max))
    if dtype.kind == "b":
        return 5
    return 12


@attrs.frozen
class Drawn:
    """A window drawn: its `lines`, the `values` they show, the shown cells' width and how many
    cells of that width the width holds (`fits`: more than shown when the window read was narrow)."""

    lines: list[Text]
    values: Values
    cell_width: int
    fits: int


def grid_lines(window: Window, state: BrowseState, width: int, height: int) -> Drawn:
    """The slice's window as lines (a line of column positions, then one line per row with its row
    position) cut to `width` × `height`, with the values those lines show."""
    values = window.values[: max(height - 1, 1)]
    row_name = axis_label(state, state.rows, ROWS)
    shown_rows = row_labels(state, window.top, values.shape[0], width)
    digits = max(len(label) for label in shown_rows)
    labels = label_width(state, window.top, values.shape[0], width)
    cells = format_values(values, options_of(state))
    shown_columns = fitting_columns(cells.width, labels, width)
    if shown_columns < values.shape[1]:
        values = values[:, :shown_columns]
        cells = format_values(values, options_of(state))
    painter = CellPainter(cells, options_of(state))
    lines = [_column_line(state, window.left, values.shape[1], cells.width, labels)]
    for r in range(values.shape[0]):
        row = window.top + r
        label = (row_name if r == 0 else " " * len(row_name)) + " " + shown_rows[r].rjust(digits)
        line = Text(label + " ", style=DIM)
        for c in range(values.shape[1]):
            text, style = painter.piece((r, c))
            if (row, window.left + c) == state.cursor:
                style = style + CURSOR
            line.append(" " if c else "")
            line.append(text, style)
        lines.append(line)
    return Drawn(lines, values, cells.width, fitting_columns(cells.width, labels, width))


def _column_line(state: BrowseState, left: int, count: int, cell: int, label_width: int) -> Text:
    """The columns' positions above the cells, under the columns' axis label; their coordinate's
    labels instead, cut to the cell width, when the columns' axis has one."""
    name = axis_label(state, state.cols, COLUMNS)
    line = Text(name[:label_width].ljust(label_width), style=LABEL)
    labels = state.labels(state.cols, range(left, left + count))
    heads = [str(left + c) for c in range(count)] if labels is None else [cut(text, cell) for text in labels]
    line.append(" ".join(head.rjust(cell) for head in heads), style=DIM)
    return line


def heat_scale(values: Values, width: int) -> Text:
    """The heatmap's colour scale: the shown minimum, the viridis steps, the shown maximum."""
    numbers = values[np.isfinite(values)] if values.dtype.kind in "fc" else values
    if values.dtype.kind not in "biuf" or numbers.size == 0:
        return Text("no colour scale: no finite numbers shown", style=DIM)
    low, high = str(numbers.min()), str(numbers.max())
    steps = max(min(width - len(low) - len(high) - 2, 24), 2)
    scale = Text(low + " ")
    for k in range(steps):
        scale.append(" ", heat_style(k / (steps - 1)))
    scale.append(" " + high)
    return scale


def status_line(values: Values, state: BrowseState, cell: object | None) -> Text:
    """The shown cells' statistics (as the printer's header writes them) and the cursor's value."""
    line = Text()
    if cell is not None:
        line.append_text(
            Text.assemble((f"[{state.cursor[0]}, {state.cursor[1]}] ", DIM), printable(str(cell)))
        )
        line.append(" · ", DIM)
    shown = f"shown {values.shape[0]}×{values.shape[1]} of {state.slice_shape[0]}×{state.slice_shape[1]}"
    line.append(shown, DIM)
    for name, value in statistics(values, options_of(state)):
        line.append_text(Text.assemble((" · ", DIM), (name + " ", DIM), value))
    return line


def join_lines(lines: Sequence[Text]) -> Text:
    """Lines as one `Text`, a newline between each."""
    return Text("\n").join(lines)

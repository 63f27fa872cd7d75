"""The values of one print as lines of text: a 2-D slice grid, its cells, columns and rules.

Every 2-D slice of a tensor of 3 or more axes is labelled with its index
(`[1, 0, :, :]`); slices of the next axis out stand side by side while the width
allows, axes further out are stacked with a rule. Summarised axes show `…`, `⋮`
and `⋱` where items are left out, and columns that do not fit the width are
dropped from the middle.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from rich.style import Style
from rich.text import Span, Text

from lazytensor.printer.cells import CellPainter
from lazytensor.printer.shown import Selection, ShownAxis
from lazytensor.printer.styles import DIM, LABEL

COLUMN_GAP = "  "
BLOCK_GAP = "    "
RULES = ("─", "═", "━")


class TextBuilder:
    """Builds one `Text` from styled pieces faster than appending to it (one span per styled piece)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._spans: list[Span] = []
        self._length = 0

    def add(self, text: str, style: Style | None = None) -> None:
        end = self._length + len(text)
        if style:
            self._spans.append(Span(self._length, end, style))
        self._parts.append(text)
        self._length = end

    def text(self) -> Text:
        return Text("".join(self._parts), spans=self._spans)


@attrs.frozen
class Rule:
    """A horizontal rule, drawn at the end as wide as the widest line."""

    character: str


Line = Text | Rule


@attrs.frozen
class Block:
    """Lines of text that stay together, and the width of the widest."""

    lines: tuple[Text, ...]
    width: int

    @classmethod
    def of(cls, lines: Sequence[Text]) -> Block:
        return cls(tuple(lines), max((line.cell_len for line in lines), default=0))


@attrs.frozen
class Columns:
    """The shown columns of every 2-D slice: positions in the shown values, and where `…` goes."""

    positions: tuple[int, ...]
    gap: int | None


def fit_columns(axis: ShownAxis, cell_width: int, width: int) -> Columns:
    """The columns that fit in `width`: all shown ones, or as many from each end as fit around `…`."""
    count = axis.head + axis.tail
    positions = tuple(range(count))
    gap = axis.head if axis.omitted else None
    natural = count * cell_width + (count - 1) * len(COLUMN_GAP) + (1 + len(COLUMN_GAP) if gap else 0)
    if natural <= width or count <= 2:
        return Columns(positions, gap)
    fitting = max(2, (width - 1) // (cell_width + len(COLUMN_GAP)))
    if fitting >= count:
        return Columns(positions, gap)
    head = (fitting + 1) // 2
    tail = fitting - head
    return Columns(positions[:head] + positions[count - tail :], head)


def _pad(line: Text, width: int) -> Text:
    padded = line.copy()
    padded.pad_right(width - line.cell_len)
    return padded


@attrs.frozen
class SliceGrid:
    """The shown values of one print laid out at one width: 2-D slices, labelled, side by side.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.numberformat import format_values
    >>> from lazytensor.printer.options import PrintOptions
    >>> from lazytensor.printer.shown import read_shown, select_shown
    >>> selection = select_shown(lt.arange(6).reshape(2, 3), None, PrintOptions())
    >>> painter = CellPainter(format_values(read_shown(selection), 4), heatmap=False)
    >>> [line.plain for line in draw_rules(SliceGrid(selection, painter, 80).body())]
    ['0  1  2', '3  4  5']
    """

    selection: Selection
    painter: CellPainter
    width: int

    @property
    def ndim(self) -> int:
        return len(self.selection.axes)

    def body(self) -> list[Line]:
        if self.ndim == 0:
            return [self._scalar()]
        if self.ndim == 1:
            return list(self._vector())
        return self._outer(0, ())

    def _scalar(self) -> Text:
        text, style = self.painter.piece(())
        return Text(text.strip(), style=style)

    def _vector(self) -> list[Text]:
        axis = self.selection.axes[0]
        tokens = [self.painter.text((p,)) for p in range(axis.head + axis.tail)]
        if axis.omitted:
            tokens.insert(axis.head, Text("…", style=DIM))
        lines: list[Text] = []
        line = Text()
        for token in tokens:
            if line.cell_len and line.cell_len + len(COLUMN_GAP) + token.cell_len > self.width:
                lines.append(line)
                line = Text()
            if line.cell_len:
                line.append(COLUMN_GAP)
            line.append_text(token)
        lines.append(line)
        return lines

    def _labelled(self) -> bool:
        return len(self.selection.tensor.shape) >= 3

    def _block(self, outer: tuple[int, ...], columns: Columns) -> Block:
        rows = self.selection.axes[-2]
        lines = [Text(self.selection.label(outer), style=LABEL)] if self._labelled() else []
        for r in range(rows.head + rows.tail):
            if rows.omitted and r == rows.head:
                lines.append(self._skipped_row(columns))
            lines.append(self._row((*outer, r), columns))
        return Block.of(lines)

    def _row(self, position: tuple[int, ...], columns: Columns) -> Text:
        row = TextBuilder()
        for k, column in enumerate(columns.positions):
            if k:
                row.add(COLUMN_GAP)
            if k == columns.gap:
                row.add("…", DIM)
                row.add(COLUMN_GAP)
            row.add(*self.painter.piece((*position, column)))
        return row.text()

    def _skipped_row(self, columns: Columns) -> Text:
        cell = "⋮".center(self.painter.cells.width)
        pieces = [cell] * len(columns.positions)
        if columns.gap is not None:
            pieces.insert(columns.gap, "⋱")
        return Text(COLUMN_GAP.join(pieces).rstrip(), style=DIM)

    def _columns(self) -> Columns:
        return fit_columns(self.selection.axes[-1], self.painter.cells.width, self.width)

    def _outer(self, level: int, outer: tuple[int, ...]) -> list[Line]:
        if self.ndim == 2:
            return list(self._block((), self._columns()).lines)
        if level == self.ndim - 3:
            return self._side_by_side(outer)
        axis = self.selection.axes[level]
        rule = Rule(RULES[min(self.ndim - 4 - level, len(RULES) - 1)])
        lines: list[Line] = []
        for p in range(axis.head + axis.tail):
            if p and axis.omitted and p == axis.head:
                message = f"⋮ {axis.omitted:,} slices along axis {axis.axis} omitted"
                lines.append(Text(message, style=DIM))
            elif p:
                lines.append(rule)
            lines.extend(self._outer(level + 1, (*outer, p)))
        return lines

    def _side_by_side(self, outer: tuple[int, ...]) -> list[Line]:
        axis = self.selection.axes[-3]
        columns = self._columns()
        blocks = [self._block((*outer, p), columns) for p in range(axis.head + axis.tail)]
        if axis.omitted:
            blocks.insert(axis.head, Block.of([Text(f"… {axis.omitted:,} more", style=DIM)]))
        lines: list[Line] = []
        for row in self._pack(blocks):
            if lines:
                lines.append(Text())
            lines.extend(self._join(row))
        return lines

    def _pack(self, blocks: list[Block]) -> list[list[Block]]:
        rows: list[list[Block]] = []
        used = 0
        for block in blocks:
            if rows and used + len(BLOCK_GAP) + block.width <= self.width:
                rows[-1].append(block)
                used += len(BLOCK_GAP) + block.width
            else:
                rows.append([block])
                used = block.width
        return rows

    def _join(self, row: list[Block]) -> list[Text]:
        height = max(len(block.lines) for block in row)
        lines = []
        for i in range(height):
            line = Text()
            for k, block in enumerate(row):
                piece = block.lines[i] if i < len(block.lines) else Text()
                if k:
                    line.append(BLOCK_GAP)
                line.append_text(_pad(piece, block.width) if k < len(row) - 1 else piece)
            line.rstrip()
            lines.append(line)
        return lines


def draw_rules(lines: list[Line]) -> list[Text]:
    """The lines with every `Rule` drawn as wide as the widest text line."""
    width = max((line.cell_len for line in lines if isinstance(line, Text)), default=1)
    return [Text(line.character * width, style=DIM) if isinstance(line, Rule) else line for line in lines]

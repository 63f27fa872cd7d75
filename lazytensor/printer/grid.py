"""The values of one print as lines of text: a 2-D slice grid, its cells, columns and rules.

Every 2-D slice of a tensor of 3 or more axes is labelled with its index
(`[1, 0, :, :]`); slices of the next axis out stand side by side while the width
allows, axes further out are stacked with a rule. Summarised axes show `…`, `⋮`
and `⋱` where items are left out, and columns that do not fit the width are
dropped from the middle. A print too tall for the screen keeps only its first
and last slices, with `⋮ N more slices ⋮` between.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs
import numpy as np
from rich.cells import cell_len
from rich.style import Style
from rich.text import Span, Text

from lazytensor.printer.axisnames import axis_text, wrap_entries
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
    """Lines of text that stay together, and the width of the widest; a block that `ends_row` (the
    `… N more` marker) is the last of its row, so the slices after it start the next."""

    lines: tuple[Text, ...]
    width: int
    ends_row: bool = False

    @classmethod
    def of(cls, lines: Sequence[Text], ends_row: bool = False) -> Block:
        return cls(tuple(lines), max((line.cell_len for line in lines), default=0), ends_row)


@attrs.frozen
class Panels:
    """2-D slices that stand side by side while the width allows: packed into rows of text for a
    terminal, or left as blocks that a notebook wraps to its own width."""

    blocks: tuple[Block, ...]


Part = Text | Rule | Panels


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
    fitting = max(2, (width - 1) // (cell_width + len(COLUMN_GAP)))  # fewer than count: natural > width
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
    >>> options = PrintOptions()
    >>> selection = select_shown(lt.arange(6).reshape(2, 3), None, options)
    >>> painter = CellPainter(format_values(read_shown(selection), options), options)
    >>> [line.plain for line in draw_rules(SliceGrid(selection, painter, 80).body())]
    ['0  1  2', '3  4  5']
    """

    selection: Selection
    painter: CellPainter
    width: int
    edge_slices: int | None = None
    """Print only the first and last this many 2-D slices (a note counts the rest); None prints all."""
    blocks: dict[tuple[int, ...], Block] = attrs.field(factory=dict, eq=False, repr=False)
    """The slices drawn so far, by outer position: grids that differ only in `edge_slices` share them."""

    @property
    def ndim(self) -> int:
        return len(self.selection.axes)

    def body(self) -> list[Line]:
        """The values as lines at this grid's width: side-by-side slices packed into rows."""
        lines: list[Line] = []
        for part in self.parts():
            if isinstance(part, Panels):
                lines.extend(self._packed(part))
            else:
                lines.append(part)
        return lines

    def parts(self) -> list[Part]:
        """The values as lines, rules, and runs of slices that stand side by side."""
        if self.ndim == 0:
            return [self._scalar()]
        if self.ndim == 1:
            return list(self._vector())
        if self.ndim == 2:
            return list(self._block((), self._columns()).lines)
        return self._stacked(self._kept_slices())

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
        """Slices of a tensor of 3 or more axes are labelled, and so is a named tensor's one 2-D slice
        (its label names the axes of its rows and columns)."""
        return len(self.selection.tensor.shape) >= 3 or self.selection.names is not None

    def height(self) -> int:
        """The number of lines of `body()`, without joining slices into lines."""
        count = 0
        for part in self.parts():
            if not isinstance(part, Panels):
                count += 1
                continue
            rows = self._pack(list(part.blocks))
            count += sum(max(len(block.lines) for block in row) for row in rows) + len(rows) - 1
        return count

    def _block(self, outer: tuple[int, ...], columns: Columns) -> Block:
        if outer in self.blocks:
            return self.blocks[outer]
        block = self._drawn_block(outer, columns)
        if outer:  # a 2-D tensor's one block is drawn once anyway
            self.blocks[outer] = block
        return block

    def _drawn_block(self, outer: tuple[int, ...], columns: Columns) -> Block:
        rows = self.selection.axes[-2]
        lines = self._label_lines(outer, self._values_width(columns)) if self._labelled() else []
        for r in range(rows.head + rows.tail):
            if rows.omitted and r == rows.head:
                lines.append(self._skipped_row(columns))
            lines.append(self._row((*outer, r), columns))
        return Block.of(lines)

    def _label_lines(self, outer: tuple[int, ...], room: int) -> list[Text]:
        """The label of one slice: one line, or with names, as many as the width needs; with the first
        and last labels of its rows and columns when the label still fits in one line over the
        values (`room` cells), so coordinates never widen a slice."""
        if self.selection.names is None:
            return [Text(self.selection.label(outer), style=LABEL)]
        if self.selection.coords is not None:
            spanned = wrap_entries(self.selection.label_entries(outer, spans=True), self.width)
            if len(spanned) == 1 and cell_len(spanned[0]) <= room:
                return [Text(spanned[0], style=LABEL)]
        entries = self.selection.label_entries(outer)
        return [Text(line, style=LABEL) for line in wrap_entries(entries, self.width)]

    def _values_width(self, columns: Columns) -> int:
        """The cells a slice's rows of values take."""
        count = len(columns.positions)
        gap = 0 if columns.gap is None else 1 + len(COLUMN_GAP)
        return count * self.painter.cells.width + max(count - 1, 0) * len(COLUMN_GAP) + gap

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

    def _all_slices(self) -> list[tuple[int, ...]]:
        """The shown positions of every 2-D slice (over the leading axes), in order."""
        leading = self.selection.axes[:-2]
        return list(itertools.product(*(range(axis.head + axis.tail) for axis in leading)))

    def _kept_slices(self) -> list[tuple[int, ...] | None]:
        """The slices printed: all, or the first and last `edge_slices` with None where the rest are cut."""
        slices: list[tuple[int, ...] | None] = list(self._all_slices())
        keep = self.edge_slices
        if keep is None or 2 * keep >= len(slices):
            return slices
        return [*slices[:keep], None, *slices[len(slices) - keep :]]

    def _flat_index(self, outer: tuple[int, ...]) -> int:
        """Where a slice is among all of the tensor's slices (its leading indices in row-major order)."""
        leading = self.selection.axes[:-2]
        indices = [axis.indices[p] for axis, p in zip(leading, outer, strict=True)]
        return int(np.ravel_multi_index(indices, [axis.size for axis in leading]))

    def _between(self, before: tuple[int, ...], after: tuple[int, ...]) -> Line:
        """What separates two stacked rows of slices: a note of the slices left out, or a rule."""
        level = next(k for k, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
        axis = self.selection.axes[level]
        if axis.omitted and before[level] == axis.head - 1 and after[level] == axis.head:
            along = axis_text(axis.axis, self.selection.names)
            return Text(f"⋮ {axis.omitted:,} slices along {along} omitted", style=DIM)
        return Rule(RULES[min(self.ndim - 4 - level, len(RULES) - 1)])

    def _stacked(self, slices: list[tuple[int, ...] | None]) -> list[Part]:
        """Rows of slices side by side (one per position of the axes further out), stacked."""
        groups: list[list[tuple[int, ...]]] = []
        cut_before: set[int] = set()
        for outer in slices:
            if outer is None:
                cut_before.add(len(groups))
                groups.append([])
            elif groups and groups[-1] and groups[-1][-1][:-1] == outer[:-1]:
                groups[-1].append(outer)
            else:
                groups.append([outer])
        lines: list[Part] = []
        previous: tuple[int, ...] | None = None
        for k, group in enumerate(groups):
            if not group:
                continue
            if previous is not None and k - 1 in cut_before:
                left_out = self._flat_index(group[0]) - self._flat_index(previous) - 1
                lines.append(Text(f"⋮ {left_out:,} more slices ⋮", style=DIM))
            elif previous is not None:
                lines.append(self._between(previous, group[0]))
            lines.append(self._side_by_side(group))
            previous = group[-1]
        return lines

    def _side_by_side(self, group: list[tuple[int, ...]]) -> Panels:
        axis = self.selection.axes[-3]
        columns = self._columns()
        blocks: list[Block] = []
        for outer in group:
            if blocks and axis.omitted and outer[-1] == axis.head:
                blocks.append(Block.of([Text(f"… {axis.omitted:,} more", style=DIM)], ends_row=True))
            blocks.append(self._block(outer, columns))
        return Panels(tuple(blocks))

    def _packed(self, panels: Panels) -> list[Line]:
        """Side-by-side slices as rows of text that fit the width, a blank line between rows."""
        lines: list[Line] = []
        for row in self._pack(list(panels.blocks)):
            if lines:
                lines.append(Text())
            lines.extend(self._join(row))
        return lines

    def _pack(self, blocks: list[Block]) -> list[list[Block]]:
        rows: list[list[Block]] = []
        used = 0
        for block in blocks:
            if rows and not rows[-1][-1].ends_row and used + len(BLOCK_GAP) + block.width <= self.width:
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


def fit_height(selection: Selection, painter: CellPainter, width: int, room: int) -> list[Text]:
    """The lines of `fit_grid`'s grid, rules drawn."""
    return draw_rules(fit_grid(selection, painter, width, room).body())


def fit_grid(selection: Selection, painter: CellPainter, width: int, room: int) -> SliceGrid:
    r"""The grid of the values in at most `room` lines when it can be: all slices if they fit, else
    the most edge slices that fit (one at each end at least), found by bisection.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.numberformat import format_values
    >>> from lazytensor.printer.options import PrintOptions
    >>> from lazytensor.printer.shown import read_shown, select_shown
    >>> options = PrintOptions()
    >>> selection = select_shown(lt.arange(60).reshape(10, 3, 2), None, options)
    >>> painter = CellPainter(format_values(read_shown(selection), options), options)
    >>> print("\n".join(line.plain for line in fit_height(selection, painter, 20, 9)))
    [0, :, :]
     0   1
     2   3
     4   5
    ⋮ 8 more slices ⋮
    [9, :, :]
    54  55
    56  57
    58  59
    """

    every = SliceGrid(selection, painter, width)

    def height(edge: int | None) -> int:
        return attrs.evolve(every, edge_slices=edge).height()

    count = 1
    for axis in selection.axes[:-2]:
        count *= axis.head + axis.tail
    if len(selection.axes) < 3 or count <= 2 or height(None) <= room:
        return every
    low, high = 1, count // 2  # the most edge slices that fit lie in [low, high] (or there is only 1)
    while low < high:
        middle = (low + high + 1) // 2
        if height(middle) <= room:
            low = middle
        else:
            high = middle - 1
    return attrs.evolve(every, edge_slices=low)

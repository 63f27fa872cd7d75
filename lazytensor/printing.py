"""The printer: a tensor as rich renderables, plain text, or the seeds' separators text.

The default ("grid") style shows a header (shape, dtype, element count, the
layer chain of a view, and statistics for small tensors) and then the values:
every 2-D slice of a tensor of 3 or more axes labelled with its index
(`[1, 0, :, :]`), slices of the next axis out side by side while the width
allows, axes further out stacked with a rule. A big tensor is summarised with
`edgeitems` per axis, and only the shown values are read: the printer builds a
view of exactly those (`t.oindex[...]`) and evaluates that view alone.

Everything is built as `rich.text.Text` (never markup, which would swallow
`[1, 0, :, :]`); plain text is the same renderable through a colourless console.
"""

from __future__ import annotations

import io
import math
import sys
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from rich.color import Color
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

from lazytensor.buffers import is_memory_mapped
from lazytensor.positions import normalize_index
from lazytensor.printer.numberformat import Cells, Kind, Values, format_values, separators_text
from lazytensor.printer.options import PrintOptions, current_options, line_width
from lazytensor.tensor import AbstractTensor

Dims = Sequence[int | None] | None

COLUMN_GAP = "  "
BLOCK_GAP = "    "
RULES = ("─", "═", "━")
SEPARATORS = ("\n", "\n---\n", "\n===\n", "\n***\n", "\n###\n")

LABEL = Style(color="cyan", bold=True)
DIM = Style(dim=True)
SHAPE = Style(bold=True)
DTYPE = Style(color="green")
CHAIN = Style(color="blue")
WARN = Style(color="yellow")
KIND_STYLES = {
    Kind.PLAIN: Style.null(),
    Kind.NEGATIVE: Style(color="red"),
    Kind.ZERO: Style(dim=True),
    Kind.NAN: Style(color="magenta", bold=True),
    Kind.INF: Style(color="yellow", bold=True),
}
_STYLE_OF_KIND = [KIND_STYLES[kind] for kind in sorted(Kind)]
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b")


# -- what is shown ------------------------------------------------------------------------------


@attrs.frozen
class ShownAxis:
    """One axis of the shown tensor: `head` indices from its start and `tail` from its end."""

    axis: int
    size: int
    head: int
    tail: int

    @property
    def indices(self) -> list[int]:
        """The indices shown, in order."""
        return [*range(self.head), *range(self.size - self.tail, self.size)]

    @property
    def omitted(self) -> int:
        return self.size - self.head - self.tail


def _shown_axis(axis: int, size: int, summarise: bool, edgeitems: int) -> ShownAxis:
    edge = max(edgeitems, 1)
    if summarise and size > 2 * edge:
        return ShownAxis(axis, size, edge, edge)
    return ShownAxis(axis, size, size, 0)


@attrs.frozen
class Selection:
    """The tensor, the fixed indices of `dims`, the view they leave, and what of it is shown."""

    tensor: AbstractTensor
    fixed: tuple[int | None, ...]
    sub: AbstractTensor
    axes: tuple[ShownAxis, ...]

    @property
    def summarised(self) -> bool:
        return any(axis.omitted for axis in self.axes)

    @property
    def is_slice(self) -> bool:
        return any(index is not None for index in self.fixed)

    def label(self, outer: Sequence[int]) -> str:
        """The index of one 2-D slice in the original tensor, outer positions given as shown positions.

        Fixed axes show their index, the outer shown axes the index at `outer`, the rest `:`.
        """
        entries = [str(index) if index is not None else ":" for index in self.fixed]
        for axis, shown_position in zip(self.axes, outer, strict=False):
            entries[axis.axis] = str(axis.indices[shown_position])
        return "[" + ", ".join(entries) + "]"

    def slice_text(self) -> str:
        return self.label(())


def resolve_dims(t: AbstractTensor, dims: Dims) -> tuple[int | None, ...]:
    """The seeds' per-axis spec, checked: None keeps an axis, an int fixes it (negatives from the end).

    >>> import lazytensor as lt
    >>> resolve_dims(lt.zeros(4, 2, 3), (-1, None))
    (3, None, None)
    """
    if dims is None:
        return (None,) * t.ndim
    entries = tuple(dims)
    if len(entries) > t.ndim:
        raise IndexError(f"dims {entries} has {len(entries)} entries for a tensor of shape {t.shape}")
    resolved: list[int | None] = []
    for axis, size in enumerate(t.shape):
        entry = entries[axis] if axis < len(entries) else None
        if entry is None:
            resolved.append(None)
        elif isinstance(entry, int | np.integer) and not isinstance(entry, bool):
            resolved.append(normalize_index(int(entry), size, axis))
        else:
            raise TypeError(f"dims entries must be None or an int, got {entry!r} for axis {axis}")
    return tuple(resolved)


def select(t: AbstractTensor, dims: Dims, options: PrintOptions) -> Selection:
    """Which part of `t` a print shows: the `dims` slice, summarised when it is over `threshold`."""
    fixed = resolve_dims(t, dims)
    sub = t
    if any(index is not None for index in fixed):
        key = tuple(slice(None) if index is None else index for index in fixed)
        sub = t[(*key, Ellipsis)]
    free_axes = [axis for axis, index in enumerate(fixed) if index is None]
    summarise = sub.numel() > options.threshold
    axes = tuple(
        _shown_axis(axis, size, summarise, options.edgeitems)
        for axis, size in zip(free_axes, sub.shape, strict=True)
    )
    return Selection(t, fixed, sub, axes)


def read_shown(selection: Selection) -> Values:
    """The shown values: the whole view when it is not summarised, else a view of the edge items only."""
    sub = selection.sub
    if not selection.summarised:
        return np.asarray(sub.numpy())
    key = tuple(
        slice(None) if axis.omitted == 0 else np.array(axis.indices, dtype=np.intp) for axis in selection.axes
    )
    return np.asarray(sub.oindex[key].numpy())


# -- the header ---------------------------------------------------------------------------------


def _number(value: Any, precision: int) -> str:
    if isinstance(value, int | np.integer):
        return str(int(value))
    return f"{float(value):.{max(precision, 1)}g}"


def statistics(values: Values, precision: int) -> list[tuple[str, str]]:
    """Summary numbers of the values, by kind: min, max, mean, std, and counts of zeros, NaN, inf.

    >>> dict(statistics(np.array([1.0, np.nan, 0.0, 3.0]), 4))
    {'min': '0', 'max': '3', 'mean': '1.333', 'std': '1.247', 'zeros': '1', 'nan': '1', 'inf': '0'}
    """
    kind = values.dtype.kind
    if values.size == 0 or kind not in "biufc":
        return []
    if kind == "b":
        true = int(np.count_nonzero(values))
        return [("true", str(true)), ("false", str(values.size - true))]
    entries: list[tuple[str, str]] = []
    finite = values[np.isfinite(values)] if kind in "fc" else values
    if kind != "c" and finite.size:
        entries += [
            ("min", _number(finite.min(), precision)),
            ("max", _number(finite.max(), precision)),
            ("mean", _number(finite.mean(dtype=np.float64), precision)),
            ("std", _number(finite.std(dtype=np.float64), precision)),
        ]
    entries.append(("zeros", str(int(np.count_nonzero(values == 0)))))
    if kind in "fc":
        entries.append(("nan", str(int(np.count_nonzero(np.isnan(values))))))
        entries.append(("inf", str(int(np.count_nonzero(np.isinf(values))))))
    return entries


def _statistics_source(selection: Selection, shown: Values, options: PrintOptions) -> Values | None:
    """The values the statistics are computed on, or None when reading them would cost too much."""
    sub = selection.sub
    if sub.numel() == 0 or sub.numel() > options.stats_limit or is_memory_mapped(sub.storage):
        return None
    return shown if not selection.summarised else np.asarray(sub.numpy())


def pack_parts(parts: Sequence[Text], separator: Text, width: int) -> list[Text]:
    """Parts joined by `separator` into as few lines as fit `width`; a line never starts with it.

    >>> [line.plain for line in pack_parts([Text("aaa"), Text("bbb"), Text("cc")], Text(" · "), 10)]
    ['aaa · bbb', 'cc']
    """
    lines: list[Text] = []
    for part in parts:
        if lines and lines[-1].cell_len + separator.cell_len + part.cell_len <= width:
            lines[-1].append_text(separator)
            lines[-1].append_text(part)
        else:
            lines.append(part.copy())
    return lines


def header_lines(selection: Selection, shown: Values, options: PrintOptions, width: int) -> list[Text]:
    """The lines above the values: which slice, shape and dtype, layers, statistics."""
    t, sub = selection.tensor, selection.sub
    dot = Text(" · ", style=DIM)
    lines: list[Text] = []
    if selection.is_slice:
        lines.append(
            Text.assemble("slice ", (selection.slice_text(), LABEL), f" of a tensor of shape {t.shape}")
        )
    count = sub.numel()
    parts = [
        Text.assemble("shape ", (str(sub.shape), SHAPE)),
        Text(str(sub.dtype), style=DTYPE),
        Text(f"{count:,} element{'' if count == 1 else 's'}"),
    ]
    if is_memory_mapped(t.storage):
        parts.append(Text("memory-mapped", style=WARN))
    lines += pack_parts(parts, dot, width)
    if len(t.layers) > 1:
        names = [Text(layer.layer_name, style=CHAIN) for layer in t.layers]
        names[0] = Text.assemble("layers ", names[0])
        names[-1].append_text(dot)
        names[-1].append("strided" if t.layout is not None else "gather")
        lines += pack_parts(names, Text(" ∘ ", style=CHAIN), width)
    source = _statistics_source(selection, shown, options)
    entries = [] if source is None else statistics(source, options.precision)
    stats = [Text.assemble((name + " ", DIM), value) for name, value in entries]
    lines += pack_parts(stats, dot, width)
    return lines


# -- cells --------------------------------------------------------------------------------------


def _heat_style(heat: float) -> Style:
    """A viridis background for a place between 0 and 1, with a text colour that stays readable."""
    scaled = min(max(heat, 0.0), 1.0) * (len(VIRIDIS) - 1)
    low = math.floor(scaled)
    high = min(low + 1, len(VIRIDIS) - 1)
    a, b = Color.parse(VIRIDIS[low]).get_truecolor(), Color.parse(VIRIDIS[high]).get_truecolor()
    mix = scaled - low
    rgb = tuple(round(x + (y - x) * mix) for x, y in zip(a, b, strict=True))
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    foreground = "black" if luminance > 140 else "white"
    return Style(color=foreground, bgcolor=Color.from_rgb(*rgb))


Piece = tuple[str, Style]


@attrs.frozen
class CellPainter:
    """Text and style of the cell at a shown position."""

    cells: Cells
    heatmap: bool

    def piece(self, position: tuple[int, ...]) -> Piece:
        kind = int(self.cells.kinds[position])
        style = _STYLE_OF_KIND[kind]
        if self.heatmap and kind not in (Kind.NAN, Kind.INF):
            heat = float(self.cells.heat[position])
            style = style if math.isnan(heat) else _heat_style(heat)
        return str(self.cells.texts[position]), style

    def text(self, position: tuple[int, ...]) -> Text:
        return Text.assemble(self.piece(position))


# -- laying out ---------------------------------------------------------------------------------


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
class Layout2D:
    """Lays out the shown values of one print at one width."""

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
        return self.selection.tensor.ndim >= 3

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


def _draw_rules(lines: list[Line]) -> list[Text]:
    width = max((line.cell_len for line in lines if isinstance(line, Text)), default=1)
    return [Text(line.character * width, style=DIM) if isinstance(line, Rule) else line for line in lines]


# -- the renderables ----------------------------------------------------------------------------


@attrs.frozen
class TensorPrint:
    """A tensor (or its `dims` slice) as a rich renderable: header, then the values.

    >>> import lazytensor as lt
    >>> print(to_string(lt.arange(4)))
    shape (4,) · int64 · 4 elements
    min 0 · max 3 · mean 1.5 · std 1.118 · zeros 1
    <BLANKLINE>
    0  1  2  3
    """

    tensor: AbstractTensor
    dims: tuple[int | None, ...] | None = None
    options: PrintOptions = attrs.field(factory=current_options)

    def lines(self, width: int) -> list[Text]:
        """Every line of the print at `width` columns, styled."""
        selection = select(self.tensor, self.dims, self.options)
        shown = read_shown(selection)
        lines = header_lines(selection, shown, self.options, width)
        lines.append(Text())
        if shown.size == 0:
            lines.append(Text("(no elements)", style=DIM))
            return lines
        cells = format_values(shown, self.options.precision, self.options.sci_mode)
        layout = Layout2D(selection, CellPainter(cells, self.options.heatmap), width)
        body = _draw_rules(layout.body())
        for line in body:
            line.rstrip()
        return lines + body

    def _width(self, available: int) -> int:
        return self.options.linewidth if self.options.linewidth is not None else available

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        plain = console.color_system is None
        for line in self.lines(self._width(options.max_width)):
            if plain:
                yield Segment(line.plain)
            else:
                yield from _with_base_style_as_span(line).render(console)
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max(line.cell_len for line in self.lines(self._width(options.max_width)))
        return Measurement(min(widest, options.max_width), widest)


def _with_base_style_as_span(line: Text) -> Text:
    """`Text.render` ignores a text's own style (its `__rich_console__` turns it into a span first)."""
    if not line.style:
        return line
    return Text(line.plain, spans=[Span(0, len(line.plain), line.style), *line.spans])


def _plain_console(width: int) -> Console:
    return Console(
        file=io.StringIO(),
        width=width,
        color_system=None,
        force_terminal=False,
        force_jupyter=False,
        force_interactive=False,
        no_color=True,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
        legacy_windows=False,
    )


def render_plain(renderable: Any, width: int) -> str:
    """Any renderable as plain text at `width` columns: no colour, no trailing spaces, no final newline."""
    console = _plain_console(width)
    console.print(renderable)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def render_html(renderable: Any, width: int) -> str:
    """Any renderable as coloured HTML (for Jupyter), inline styles, in a `<pre>`."""
    console = Console(
        file=io.StringIO(),
        record=True,
        width=width,
        force_terminal=True,
        force_jupyter=False,
        color_system="truecolor",
        highlight=False,
        markup=False,
        emoji=False,
    )
    console.print(renderable)
    code_format = (
        "<pre style=\"font-family:Menlo,'DejaVu Sans Mono',consolas,monospace;line-height:1.25\">{code}</pre>"
    )
    return console.export_html(inline_styles=True, code_format=code_format)


def mimebundle(renderable: Any, plain: str, width: int) -> dict[str, str]:
    """The Jupyter display bundle: plain text, and HTML with the colours."""
    return {"text/plain": plain, "text/html": render_html(renderable, width)}


# -- the separators style -----------------------------------------------------------------------


def separators_string(t: AbstractTensor, dims: Dims = None, precision: int = 2, width: int = 7) -> str:
    """The seeds' text: each value `"%7.2f "`, rows ended by `\\n`, 2-D blocks by `---`, 3-D by `===` ...

    Fixed axes of `dims` are left out; every value of the slice is printed (no summary).

    >>> import lazytensor as lt
    >>> to_string(lt.arange(4).reshape(2, 2), style="separators")
    '   0.00    1.00 \\n   2.00    3.00 \\n'
    """
    fixed = resolve_dims(t, dims)
    key = tuple(slice(None) if index is None else index for index in fixed)
    values = np.asarray((t[(*key, Ellipsis)] if any(i is not None for i in fixed) else t).numpy())
    if values.ndim == 0:
        return separators_text(values.item(), precision, width) + "\n"
    pieces: list[str] = []
    flat = values.reshape(-1)
    inner = values.shape[::-1]
    for index, value in enumerate(flat.tolist()):
        pieces.append(separators_text(value, precision, width))
        if index + 1 < flat.size:
            pieces.append(_separator_after(index + 1, inner))
    pieces.append("\n")
    return "".join(pieces)


def _separator_after(count: int, inner: Sequence[int]) -> str:
    """What follows the `count`-th value: nothing inside a row, else the separator of the block that ends."""
    ended = -1
    product = 1
    for size in inner:
        product *= size
        if count % product:
            break
        ended += 1
    if ended < 0:
        return ""
    return SEPARATORS[min(ended, len(SEPARATORS) - 1)]


# -- the public functions -----------------------------------------------------------------------


def _split_style_options(style: str | None, options: dict[str, Any]) -> tuple[PrintOptions, dict[str, int]]:
    separator_args = {name: options.pop(name) for name in ("width",) if name in options}
    resolved = current_options(style=style, **options)
    if resolved.style == "separators":
        precision = options.get("precision")
        separator_args["precision"] = 2 if precision is None else int(precision)
    elif separator_args:
        raise TypeError("width is the separators style's field width; use linewidth for the grid style")
    return resolved, separator_args


def to_string(t: AbstractTensor, dims: Dims = None, style: str | None = None, **options: Any) -> str:
    """The printed text of `t` (or of its `dims` slice), plain, without colour.

    `style` is `"grid"` (the default print option) or `"separators"` (the seeds' text,
    byte for byte: `precision` defaults to 2 and `width` to 7 there). Other keyword
    arguments override print options for this call.

    >>> import lazytensor as lt
    >>> print(to_string(lt.arange(24).reshape(2, 3, 4), dims=(1, None, None)))
    slice [1, :, :] of a tensor of shape (2, 3, 4)
    shape (3, 4) · int64 · 12 elements
    layers Reshaped ∘ Storage · strided
    min 12 · max 23 · mean 17.5 · std 3.452 · zeros 0
    <BLANKLINE>
    [1, :, :]
    12  13  14  15
    16  17  18  19
    20  21  22  23
    """
    resolved, separator_args = _split_style_options(style, dict(options))
    if resolved.style == "separators":
        return separators_string(t, dims, **separator_args)
    printable = TensorPrint(t, resolve_dims(t, dims), resolved)
    return render_plain(printable, line_width(resolved))


def tprint(t: AbstractTensor, dims: Dims = None, **options: Any) -> None:
    """Print `t` (or its `dims` slice) to stdout: in colour on a terminal, plain text otherwise.

    >>> import lazytensor as lt
    >>> tprint(lt.tensor([1.5, -2.0]), linewidth=40)
    shape (2,) · float64 · 2 elements
    min -2 · max 1.5 · mean -0.25 · std 1.75
    zeros 0 · nan 0 · inf 0
    <BLANKLINE>
     1.5  -2.
    """
    style = options.pop("style", None)
    resolved, separator_args = _split_style_options(style, options)
    if resolved.style == "separators":
        sys.stdout.write(separators_string(t, dims, **separator_args))
        return
    console = _output_console(resolved.linewidth)
    console.print(TensorPrint(t, resolve_dims(t, dims), resolved))


def _output_console(width: int | None) -> Console:
    """A console on stdout: colour on a terminal; a given width is kept even on a dumb terminal."""
    height = None if width is None else 25  # rich keeps a width only when a height comes with it
    return Console(width=width, height=height, highlight=False, markup=False, emoji=False)


def tensor_mimebundle(t: AbstractTensor) -> dict[str, str]:
    """What Jupyter shows for `t`: the plain print and the coloured HTML one."""
    options = current_options()
    width = line_width(options)
    return mimebundle(TensorPrint(t, None, options), to_string(t), width)

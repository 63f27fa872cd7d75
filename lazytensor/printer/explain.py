"""`t.explain()`: the layers of a view as a tree, or the trace of one position through them.

The tree shows, for every layer from the top down to the storage, its class, its
parameters (axes, key, new shape), its shape and its fused layout (strides and
offset) or "gather" when positions must be translated one layer at a time. The
trace walks one position down with each layer's `translate` and shows where it
is at every layer, then the storage index and the value found there.

A reader: it meets tensors only through the tensor protocol (`lazytensor.ground.protocol`: `layers`,
`layer_name`, `describe()`, `describe_position()`, `names` (optional for a duck-typed layer), a
wrapper's `translate` and `wrapped`, `layout`, the base's `read_one`), walks a stack with a loop,
and shows a deep stack as its top and bottom `EDGE_LAYERS` layers with a count of the rest
between, so a 10,000-layer stack explains in a few lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, cast

import attrs
import numpy as np
from rich.console import Console, ConsoleOptions
from rich.text import Text
from rich.tree import Tree

from lazytensor.ground.positions import Shape, normalize_position
from lazytensor.ground.protocol import Tensor, Wrapper
from lazytensor.printer.axisnames import (
    AxisNames,
    coords_of,
    names_of,
    one_line_or_two,
    position_entries,
    position_text,
    shape_entries,
    shape_text,
    wrapped,
)
from lazytensor.printer.escapes import printable
from lazytensor.printer.options import current_options, line_width, notebook_line_width
from lazytensor.printer.prompt import pretty, running_shell, shows_html
from lazytensor.printer.render import mimebundle, render_plain
from lazytensor.printer.styles import DIM, LABEL

EDGE_LAYERS = 5
"""Layers shown at the top and at the bottom of a deeper stack (the tree nests no deeper than
11 levels); the ones between are counted."""

T = TypeVar("T")


def as_wrapper(layer: Tensor) -> Wrapper | None:
    """The layer as a wrapper when it wraps another (duck typing on `wrapped`), None at the bottom.

    >>> import lazytensor as lt
    >>> as_wrapper(lt.arange(3)) is None, as_wrapper(lt.arange(3)[1:]) is not None
    (True, True)
    """
    return cast("Wrapper", layer) if getattr(layer, "wrapped", None) is not None else None


def layout_text(layer: Tensor) -> str:
    """`strides (3, 1), offset 0`, or `gather` when the stack has no strided layout."""
    layout = layer.layout
    if layout is None:
        return "gather: no strided layout"
    return f"strides {layout.strides}, offset {layout.offset}"


def aligned_rows(rows: Sequence[Sequence[Text]], gap: int = 2, width: int | None = None) -> list[Text]:
    """Rows of cells as lines, each column as wide as its widest cell, no trailing spaces; with a
    `width`, a last cell that would pass it wraps at its spaces within its own column.

    >>> [line.plain for line in aligned_rows([[Text("a"), Text("bb")], [Text("ccc"), Text("d")]])]
    ['a    bb', 'ccc  d']
    >>> [line.plain for line in aligned_rows([[Text("a"), Text("one two three")]], width=12)]
    ['a  one two', '   three']
    """
    widths = [max(row[k].cell_len for row in rows) for k in range(len(rows[0]))]
    last_column = sum(widths[:-1]) + gap * (len(widths) - 1)
    lines = []
    for row in rows:
        line = Text()
        for k, cell in enumerate(row):
            padded = cell.copy()
            if k < len(row) - 1:
                padded.pad_right(widths[k] - cell.cell_len + gap)
            line.append_text(padded)
        line.rstrip()
        lines += _wrap_last_column(line, last_column, width)
    return lines


def _wrap_last_column(line: Text, start: int, width: int | None) -> list[Text]:
    """`line` as lines of at most `width` cells, breaking its text from `start` on at spaces and
    indenting what follows to `start`; a word longer than the column (a file's path) is shortened
    from the left (`…/data/t.nc:temperature`); unchanged when it fits or the column has no room."""
    if width is None or line.cell_len <= width or width - start < 8:
        return [line]
    head, rest = line[:start], line[start:]
    room = width - start
    pieces: list[Text] = []
    while rest.cell_len > room:
        cut = rest.plain.rfind(" ", 0, room + 1)
        if cut <= 0:  # the first word alone is longer than the column
            word_end = rest.plain.find(" ")
            word_end = rest.cell_len if word_end < 0 else word_end
            if word_end == 0:  # a space to skip, not a word
                rest = rest[1:]
                continue
            pieces.append(shortened_from_left(rest[:word_end], room))
            rest = rest[word_end + 1 :]
            if not rest.plain:
                break
            continue
        pieces.append(rest[:cut])
        rest = rest[cut + 1 :]
    if rest.plain or not pieces:
        pieces.append(rest)
    return [head + pieces[0], *(Text(" " * start) + piece for piece in pieces[1:])]


def shortened_from_left(word: Text, room: int) -> Text:
    """`word` in at most `room` cells, its start replaced by `…` when it is longer: a path keeps its
    file name, the part that tells files apart.

    >>> shortened_from_left(Text("/home/me/data/run7/t.nc:temperature"), 20).plain
    '…n7/t.nc:temperature'
    """
    if word.cell_len <= room:
        return word
    return Text("…") + word[word.cell_len - (room - 1) :]


def shortened_words(text: str, room: int) -> str:
    """`text` with each word longer than `room` shortened from the left (see `shortened_from_left`).

    >>> shortened_words("zarr array at /a/very/long/path/store.zarr", 12)
    'zarr array at …/store.zarr'
    """
    return " ".join(
        word if len(word) <= room else "…" + word[len(word) - (room - 1) :] for word in text.split(" ")
    )


TREE_INDENT = 4
"""The cells each level of rich's `Tree` indents its label by."""


def split_layers(layers: Sequence[T], edge: int = EDGE_LAYERS) -> tuple[Sequence[T], Sequence[T], int]:
    """The layers shown at the top and at the bottom of a stack, and how many between are left out.

    A stack of at most `2 * edge + 1` layers is shown whole (a count would not be shorter).

    >>> split_layers("abcdefg", edge=2)
    ('ab', 'fg', 3)
    >>> split_layers("abcde", edge=2)
    ('abcde', '', 0)
    """
    count = len(layers)
    if count <= 2 * edge + 1:
        return layers, layers[count:], 0
    return layers[:edge], layers[count - edge :], count - 2 * edge


def more_layers(omitted: int) -> Text:
    """The line standing for the layers a deep stack leaves out.

    >>> more_layers(9984).plain
    '… 9,984 more layers'
    """
    return Text(f"… {omitted:,} more layers", style=DIM)


def layer_names(layer: Tensor) -> AxisNames | None:
    """The names of a layer's axes, None when none is named; a duck-typed layer without `names`
    (they are optional in the layer protocol, as `describe_position` is) has none.

    >>> import lazytensor as lt
    >>> layer_names(lt.zeros(2, names=("edge",)).T), layer_names(lt.zeros(2))
    (('edge',), None)
    """
    if not hasattr(type(layer), "names"):
        return None
    return names_of(layer)


def _layer_label(layer: Tensor, room: int | None = None) -> Text:
    """A layer's line in the tree; with `room`, a word of its description longer than that (a path)
    is shortened from the left so that it fits the tree's column."""
    description = printable(layer.describe())
    return Text.assemble(
        (printable(layer.layer_name), LABEL),
        f" {shape_text(layer.shape, layer_names(layer))}",
        (" · ", DIM),
        description if room is None else shortened_words(description, max(room, 16)),
        "\n",
        (layout_text(layer), DIM),
    )


def operands_of(base: Any) -> tuple[Tensor, ...]:
    """The tensors a computed base computes from (its `operands`, duck-typed), none for storage."""
    array = getattr(base, "array", None)
    operands = getattr(array, "operands", ()) if getattr(base, "operand_positions", None) else ()
    return tuple(x for x in operands if hasattr(x, "layers"))


def _value_text(value: Any) -> str:
    return printable(repr(value.item()) if isinstance(value, np.generic) else repr(value))


@attrs.frozen
class Explanation:
    """The layer tree of a tensor, or the trace of one position: prints as text, rich and HTML.

    >>> import lazytensor as lt
    >>> print(lt.arange(6).reshape(2, 3).T.explain())
    Transposed (3, 2) · axes (1, 0)
    strides (1, 3), offset 0
    └── Reshaped (2, 3) · new shape (2, 3)
        strides (3, 1), offset 0
        └── Storage (6,) · buffer of 6 × int64
            strides (1,), offset 0
    """

    tensor: Tensor
    position: Shape | None = None

    def _tree(self, width: int | None = None) -> Iterator[Any]:
        top, bottom, omitted = split_layers(self.tensor.layers)
        layers: list[Tensor | None] = [*top, *([None] if omitted else []), *bottom]
        labels = [
            more_layers(omitted)
            if layer is None
            else _layer_label(layer, None if width is None else width - TREE_INDENT * depth)
            for depth, layer in enumerate(layers)
        ]
        root = node = Tree(labels[0], guide_style=DIM)
        for label in labels[1:]:
            node = node.add(label)
        for operand in operands_of(bottom[-1] if bottom else top[-1]):  # a computed base: its operands
            node.children.extend(Explanation(operand)._tree())
        yield root

    def _trace(self, position: Shape, width: int | None = None) -> Iterator[Any]:
        yield Text("\n").join(self._position_lines(position, width))
        layer, pos, rows, omitted = self._walk(position)
        lines = aligned_rows(rows, width=width)
        if omitted:
            lines.insert(1 + EDGE_LAYERS, more_layers(omitted))
        yield Text("\n").join(lines)
        index = layer.layout.index(pos) if layer.layout is not None else self.tensor.locate(position)
        value = layer.base.read_one(index)  # the bottom of the stack: its base
        yield Text.assemble("storage index ", (str(index), LABEL), " holds ", _value_text(value))
        yield self._shortcut(position)
        follow = getattr(layer.base, "operand_positions", None)  # a computed base: into each operand
        for k, (operand, at) in enumerate(follow(pos) if follow is not None else ()):
            yield Text.assemble(
                ("operand ", DIM), (str(k), LABEL), (" of the computation, at ", DIM), str(at)
            )
            yield from Explanation(operand, at)._trace(at, width)

    def _position_lines(self, position: Shape, width: int | None) -> list[Text]:
        """`position (2, 0) of a tensor of shape (3, 4)`; with names, in as many lines as `width` needs."""
        names = layer_names(self.tensor)
        if names is None:
            shape = self.tensor.shape
            return [Text.assemble("position ", (str(position), LABEL), f" of a tensor of shape {shape}")]
        room = width if width is not None else 10**9
        labels = coords_of(self.tensor)
        where = wrapped("position ", position_entries(position, names, labels), "()", LABEL, room)
        of = wrapped("of a tensor of shape ", shape_entries(self.tensor.shape, names), "()", None, room)
        return one_line_or_two(where, of, room)

    def _walk(self, position: Shape) -> tuple[Tensor, Shape, list[list[Text]], int]:
        """Walk `position` down the stack in a loop, with each layer's `translate`.

        Returns the bottom layer, the position there, the table rows of the shown layers
        (headings first) and how many layers between were left out.
        """
        rows = [[Text(header, style=DIM) for header in ("layer", "shape", "position", "parameters")]]
        count = len(self.tensor.layers)
        top, _, omitted = split_layers(range(count))
        layer, pos, depth = self.tensor, position, 0
        while True:
            if depth < len(top) or depth >= len(top) + omitted:
                rows.append(_trace_row(layer, pos))
            wrapper = as_wrapper(layer)
            if wrapper is None:
                return layer, pos, rows, omitted
            pos, layer, depth = wrapper.translate(pos), wrapper.wrapped, depth + 1

    def _shortcut(self, position: Shape) -> Text:
        layout = self.tensor.layout
        if layout is None:
            return Text("no fused layout: the position goes down layer by layer", style=DIM)
        return Text(
            f"the fused layout (strides {layout.strides}, offset {layout.offset}) "
            f"gives {layout.index(position)} in one step",
            style=DIM,
        )

    def renderables(self, width: int | None = None) -> Iterator[Any]:
        """The tree, or the trace with its table wrapped to `width` (the console's, when rendered)."""
        if self.position is None:
            return self._tree(width)
        return self._trace(self.position, width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
        yield from self.renderables(options.max_width)

    def __str__(self) -> str:
        return render_plain(self, line_width(current_options()))

    def __repr__(self) -> str:
        return str(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter: plain text and the notebook HTML; nothing in IPython in a terminal (`_repr_pretty_`)."""
        shell = running_shell()
        if shell is not None and not shows_html(shell):
            return {}
        width = notebook_line_width(current_options())  # the notebook's width (120), not a terminal's 80
        return mimebundle(self, render_plain(self, width), width)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's prompt: in colour on a terminal."""
        pretty(self, printer, cycle)


def _trace_row(layer: Tensor, pos: Shape) -> list[Text]:
    name = Text(printable(layer.layer_name), style=LABEL)
    names = layer_names(layer)  # in the position column: the shape column stays narrow
    return [name, Text(str(layer.shape)), Text(position_text(pos, names)), Text(_position_text(layer, pos))]


def _position_text(layer: Tensor, pos: Shape) -> str:
    """What the layer says of `pos` (a layer over edges names the edge), or what it was made with when
    it has nothing to say of single positions (`describe_position` is optional)."""
    describe_position = getattr(layer, "describe_position", None)
    return printable(layer.describe() if describe_position is None else str(describe_position(pos)))


def explain(t: Tensor, position: Sequence[int] | int | None = None) -> Explanation:
    """The layer tree of `t`, or the trace of `position` (negatives count from the end).

    >>> import lazytensor as lt
    >>> explain(lt.arange(4), (-1,)).position
    (3,)
    """
    if position is None:
        return Explanation(t)
    entries = (position,) if isinstance(position, int | np.integer) else position
    return Explanation(t, normalize_position(entries, t.shape))

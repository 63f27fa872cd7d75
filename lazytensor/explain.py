"""`t.explain()`: the layers of a view as a tree, or the trace of one position through them.

The tree shows, for every layer from the top down to the storage, its class, its
parameters (axes, key, new shape), its shape and its fused layout (strides and
offset) or "gather" when positions must be translated one layer at a time. The
trace walks one position down with each layer's `translate` and shows where it
is at every layer, then the storage index and the value found there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import attrs
import numpy as np
from rich.console import Console, ConsoleOptions
from rich.text import Text
from rich.tree import Tree

from lazytensor.positions import Shape, normalize_position
from lazytensor.printer.options import current_options, line_width
from lazytensor.printer.render import mimebundle, render_plain
from lazytensor.printer.styles import DIM, LABEL
from lazytensor.tensor import AbstractTensor
from lazytensor.views import View


def layout_text(layer: AbstractTensor) -> str:
    """`strides (3, 1), offset 0`, or `gather` when the stack has no strided layout."""
    layout = layer.layout
    if layout is None:
        return "gather: no strided layout"
    return f"strides {layout.strides}, offset {layout.offset}"


def aligned_rows(rows: Sequence[Sequence[Text]], gap: int = 2) -> list[Text]:
    """Rows of cells as lines, each column as wide as its widest cell, no trailing spaces.

    >>> [line.plain for line in aligned_rows([[Text("a"), Text("bb")], [Text("ccc"), Text("d")]])]
    ['a    bb', 'ccc  d']
    """
    widths = [max(row[k].cell_len for row in rows) for k in range(len(rows[0]))]
    lines = []
    for row in rows:
        line = Text()
        for k, cell in enumerate(row):
            padded = cell.copy()
            if k < len(row) - 1:
                padded.pad_right(widths[k] - cell.cell_len + gap)
            line.append_text(padded)
        line.rstrip()
        lines.append(line)
    return lines


def _value_text(value: Any) -> str:
    return repr(value.item()) if isinstance(value, np.generic) else repr(value)


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

    tensor: AbstractTensor
    position: Shape | None = None

    def _tree(self) -> Iterator[Any]:
        root: Tree | None = None
        node: Tree | None = None
        for layer in self.tensor.layers:
            label = Text.assemble(
                (layer.layer_name, LABEL),
                f" {layer.shape}",
                (" · ", DIM),
                layer.describe(),
                "\n",
                (layout_text(layer), DIM),
            )
            if node is None:
                root = node = Tree(label, guide_style=DIM)
            else:
                node = node.add(label)
        yield root

    def _trace(self, position: Shape) -> Iterator[Any]:
        yield Text.assemble("position ", (str(position), LABEL), f" of a tensor of shape {self.tensor.shape}")
        rows = [[Text(header, style=DIM) for header in ("layer", "shape", "position", "parameters")]]
        layer, pos = self.tensor, position
        while True:
            rows.append(
                [
                    Text(layer.layer_name, style=LABEL),
                    Text(str(layer.shape)),
                    Text(str(pos)),
                    Text(layer.describe()),
                ]
            )
            if not isinstance(layer, View):
                break
            pos, layer = layer.translate(pos), layer.wrapped
        yield Text("\n").join(aligned_rows(rows))
        index = layer.layout.index(pos) if layer.layout is not None else self.tensor.locate(position)
        value = self.tensor.storage[index]
        yield Text.assemble("storage index ", (str(index), LABEL), " holds ", _value_text(value))
        yield self._shortcut(position)

    def _shortcut(self, position: Shape) -> Text:
        layout = self.tensor.layout
        if layout is None:
            return Text("no fused layout: the position goes down layer by layer", style=DIM)
        return Text(
            f"the fused layout (strides {layout.strides}, offset {layout.offset}) "
            f"gives {layout.index(position)} in one step",
            style=DIM,
        )

    def renderables(self) -> Iterator[Any]:
        if self.position is None:
            return self._tree()
        return self._trace(self.position)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
        yield from self.renderables()

    def __str__(self) -> str:
        return render_plain(self, line_width(current_options()))

    def __repr__(self) -> str:
        return str(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return mimebundle(self, str(self), line_width(current_options()))


def explain(t: AbstractTensor, position: Sequence[int] | int | None = None) -> Explanation:
    """The layer tree of `t`, or the trace of `position` (negatives count from the end).

    >>> import lazytensor as lt
    >>> explain(lt.arange(4), (-1,)).position
    (3,)
    """
    if position is None:
        return Explanation(t)
    entries = (position,) if isinstance(position, int | np.integer) else tuple(position)
    return Explanation(t, normalize_position(entries, t.shape))

"""`TensorPrint`, a tensor (or its `dims` slice) as one rich renderable: the header, then the values.

It composes the other printer modules: `shown` picks and reads the shown values,
`numberformat` turns them into cells, `header` and `grid` lay out the lines. Plain
text is the same renderable through a colourless console.

A print reads the base once: the shown values are read on first use and kept by the
`TensorPrint`, whatever widths rich then measures and draws it at. A tensor inside a
rich `Table` is measured (to size the columns) before it is drawn, through two calls of
its own; `rich_print` hands both the same `TensorPrint`, so a zarr-backed tensor is
fetched once, not twice.
"""

from __future__ import annotations

import attrs
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Span, Text

from lazytensor.ground.once import once
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.cells import CellPainter
from lazytensor.printer.grid import SliceGrid, draw_rules, fit_grid
from lazytensor.printer.header import Header, header
from lazytensor.printer.numberformat import Values, format_values
from lazytensor.printer.options import PrintOptions, current_options, max_lines
from lazytensor.printer.shown import Selection, read_shown, select_shown, with_edge_rows
from lazytensor.printer.styles import DIM
from lazytensor.printer.summary import summary_text


@attrs.frozen(slots=False)
class TensorPrint:
    """A tensor (or its `dims` slice) as a rich renderable: header, then the values. It reads them
    once, when first laid out, and shows those at every width after (one print, one read); a print
    made later shows later writes.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.render import render_plain
    >>> print(render_plain(TensorPrint(lt.arange(4)), 80))
    shape (4,) · int64 · 4 elements
    min 0 · max 3 · mean 1.5 · std 1.118 · zeros 1
    <BLANKLINE>
    0  1  2  3
    """

    tensor: Tensor
    dims: tuple[int | None, ...] | None = None
    options: PrintOptions = attrs.field(factory=current_options)
    version: int = attrs.field(init=False)
    """How many writes the base had seen when the print was made (before it reads)."""

    @version.default
    def _version_now(self) -> int:
        return self.tensor.base.version

    @property
    def one_line(self) -> bool:
        """A 0-d tensor (not a slice of a bigger one), or the `"line"` style: the print is one line."""
        return self.options.style == "line" or (len(self.tensor.shape) == 0 and self.dims in (None, ()))

    @once
    def shown(self) -> tuple[Selection, Values]:
        """What the print shows and the values there, read once (at any width it is laid out)."""
        selection = select_shown(self.tensor, self.dims, self.options)
        return selection, read_shown(selection)

    def is_current(self) -> bool:
        """Whether this print still shows what the tensor holds: made with today's options, and no
        write through lazytensor has reached the base since its values were read."""
        return self.options == current_options() and self.version == self.tensor.base.version

    def sections(self, width: int) -> tuple[Header, list[Text]]:
        """The header and the lines of values at `width` columns, styled (no header for one line)."""
        head, _, body = self.laid_out(width)
        return head, body

    def laid_out(self, width: int) -> tuple[Header, SliceGrid | None, list[Text]]:
        """The header, the grid of the values (None for one line or no elements), and its lines."""
        if self.one_line:
            return Header((), (), ()), None, [summary_text(self.tensor, self.options)]
        selection, shown = self.shown
        head = header(selection, shown, self.options, width)
        if shown.size == 0:
            return head, None, [Text("(no elements)", style=DIM)]
        room = max_lines(self.options) - len(head.lines()) - 1
        grid = self._grid(selection, shown, width, room)
        body = draw_rules(grid.body())
        for line in body:
            line.rstrip()
        return head, grid, body

    def _grid(self, selection: Selection, shown: Values, width: int, room: int) -> SliceGrid:
        """The grid in `room` lines: the first and last slices that fit, and if even one at each end
        does not, the first and last `edgeitems` rows of each slice as well."""
        grid = fit_grid(selection, self._painter(shown), width, room)
        if grid.height() <= room:
            return grid
        cut = with_edge_rows(selection, shown, self.options)
        if cut is None:
            return grid
        selection, shown = cut
        return fit_grid(selection, self._painter(shown), width, room)

    def _painter(self, shown: Values) -> CellPainter:
        """The shown values as cells in one format, painted as the options say."""
        return CellPainter(format_values(shown, self.options), self.options)

    def lines(self, width: int) -> list[Text]:
        """Every line of the print at `width` columns, styled: the header, a blank line, the values."""
        head, body = self.sections(width)
        if self.one_line:
            return body
        return [*head.lines(), Text(), *body]

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


PENDING_LIMIT = 16
"""Prints measured and not yet drawn that are kept for their drawing, at most."""

_pending: dict[int, TensorPrint] = {}
"""The print of each tensor that rich measured, by `id` (the print holds the tensor, so the id
stays its own), until rich draws it."""


def rich_print(t: Tensor, measuring: bool) -> TensorPrint:
    """The print of `t` for rich: the one its measuring made, while it is current, so that the
    drawing that follows reads nothing again. Drawing takes it away; a tensor in memory reads
    cheaply (a view of its buffer) and always gets a fresh one.

    >>> import lazytensor as lt
    >>> t = lt.arange(3)
    >>> rich_print(t, measuring=True) is rich_print(t, measuring=False)
    False
    """
    if t.base.has_buffer:
        return TensorPrint(t)
    kept = _pending.get(id(t)) if measuring else _pending.pop(id(t), None)
    if kept is not None and kept.tensor is t and kept.is_current():
        return kept
    printed = TensorPrint(t)
    if measuring:
        while len(_pending) >= PENDING_LIMIT:
            del _pending[next(iter(_pending))]
        _pending[id(t)] = printed
    return printed

"""The look of one value's cell: its text, coloured by its kind (negative, zero, NaN, inf) or by heat.

The colour only repeats what the text already says; the heatmap option instead gives
each cell a viridis background for its place between the shown minimum and maximum.
"""

from __future__ import annotations

import math

import attrs
from rich.color import Color
from rich.style import Style
from rich.text import Text

from lazytensor.printer.numberformat import Cells, Kind

KIND_STYLES = {
    Kind.PLAIN: Style.null(),
    Kind.NEGATIVE: Style(color="red"),
    Kind.ZERO: Style(dim=True),
    Kind.NAN: Style(color="magenta", bold=True),
    Kind.INF: Style(color="yellow", bold=True),
}
_STYLE_OF_KIND = [KIND_STYLES[kind] for kind in sorted(Kind)]
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b")

Piece = tuple[str, Style]


def heat_style(heat: float) -> Style:
    """A viridis background for a place between 0 and 1, with a text colour that stays readable.

    >>> str(heat_style(0.0))
    'white on #440154'
    """
    scaled = min(max(heat, 0.0), 1.0) * (len(VIRIDIS) - 1)
    low = math.floor(scaled)
    high = min(low + 1, len(VIRIDIS) - 1)
    a, b = Color.parse(VIRIDIS[low]).get_truecolor(), Color.parse(VIRIDIS[high]).get_truecolor()
    mix = scaled - low
    rgb = tuple(round(x + (y - x) * mix) for x, y in zip(a, b, strict=True))
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    foreground = "black" if luminance > 140 else "white"
    return Style(color=foreground, bgcolor=Color.from_rgb(*rgb))


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
            style = style if math.isnan(heat) else heat_style(heat)
        return str(self.cells.texts[position]), style

    def text(self, position: tuple[int, ...]) -> Text:
        return Text.assemble(self.piece(position))

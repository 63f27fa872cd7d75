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
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.styles import CSS, INF, NAN, NEGATIVE, ZERO, contrast_ratio

KIND_STYLES = {
    Kind.PLAIN: Style.null(),
    Kind.NEGATIVE: NEGATIVE,
    Kind.ZERO: ZERO,
    Kind.NAN: NAN,
    Kind.INF: INF,
}
_STYLE_OF_KIND = [KIND_STYLES[kind] for kind in sorted(Kind)]
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b")

Piece = tuple[str, Style]


BLACK, WHITE = (0, 0, 0), (255, 255, 255)


def heat_bin(heat: float) -> int:
    """The viridis step nearest to a place between 0 and 1: the CSS class `lt-h0` ... `lt-h8`.

    >>> heat_bin(0.0), heat_bin(0.5), heat_bin(1.0)
    (0, 4, 8)
    """
    return round(min(max(heat, 0.0), 1.0) * (len(VIRIDIS) - 1))


def readable_on(rgb: tuple[int, int, int]) -> str:
    """`"black"` or `"white"`, whichever contrasts more with the background `rgb` (WCAG).

    >>> readable_on((68, 1, 84)), readable_on((181, 222, 43))
    ('white', 'black')
    """
    return "black" if contrast_ratio(rgb, BLACK) >= contrast_ratio(rgb, WHITE) else "white"


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
    red, green, blue = rgb
    css = f"lt-heat lt-h{heat_bin(heat)}"
    return Style(color=readable_on((red, green, blue)), bgcolor=Color.from_rgb(*rgb), meta={CSS: css})


@attrs.frozen
class CellPainter:
    """Text and style of the cell at a shown position: coloured by its kind, or by its heat when the
    options ask for a `heatmap`."""

    cells: Cells
    options: PrintOptions

    def piece(self, position: tuple[int, ...]) -> Piece:
        kind = int(self.cells.kinds[position])
        style = _STYLE_OF_KIND[kind]
        if self.options.heatmap and kind not in (Kind.NAN, Kind.INF):
            heat = float(self.cells.heat[position])
            style = style if math.isnan(heat) else heat_style(heat)
        return str(self.cells.texts[position]), style

    def text(self, position: tuple[int, ...]) -> Text:
        return Text.assemble(self.piece(position))

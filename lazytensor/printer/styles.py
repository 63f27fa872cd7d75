"""The rich styles the printer and `explain` share: labels, dim text, shapes, dtypes, layer chains.

Ground floor: rich only. One place for them, so a tensor's print and its explanation
colour the same things the same way. Every style carries its CSS class in rich's
`meta` (`{"css": "lt-neg"}`): the terminal ignores it, and the notebook's HTML uses
it instead of fixed colours, so that a theme (light, dark) decides the colour.
"""

from __future__ import annotations

from rich.style import Style

CSS = "css"
"""The key of a style's `meta` that names its CSS class."""


def _styled(css_class: str, **attributes: str | bool) -> Style:
    return Style(**attributes, meta={CSS: css_class})  # type: ignore[arg-type]


LABEL = _styled("lt-label", color="cyan", bold=True)
"""Slice labels (`[1, 0, :, :]`), layer names in `explain`, positions."""
DIM = _styled("lt-dim", dim=True)
"""Secondary text: separators, rules, `…`, statistic names, layouts."""
SHAPE = _styled("lt-shape", bold=True)
DTYPE = _styled("lt-dtype", color="green")
CHAIN = _styled("lt-chain", color="blue")
"""The layer names of the header's chain."""
WARN = _styled("lt-warn", color="yellow")
"""What the reader should know before relying on the print (`memory-mapped`, `stats skipped`)."""
HINT = _styled("lt-hint", color="cyan")
"""What to type to see more (`t.stats()`)."""
NEGATIVE = _styled("lt-neg", color="red")
ZERO = _styled("lt-zero", dim=True)
NAN = _styled("lt-nan", color="magenta", bold=True)
INF = _styled("lt-inf", color="yellow", bold=True)


def css_class(style: Style | None) -> str | None:
    """The CSS class a style carries, if any.

    >>> css_class(LABEL), css_class(Style(bold=True))
    ('lt-label', None)
    """
    if style is None or not style.meta:
        return None
    value = style.meta.get(CSS)
    return value if isinstance(value, str) else None


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0 black to 1 white).

    >>> relative_luminance((255, 255, 255)), relative_luminance((0, 0, 0))
    (1.0, 0.0)
    """

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(channel) for channel in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio of two colours, 1 to 21 (AA asks 4.5 for text).

    >>> round(contrast_ratio((0, 0, 0), (255, 255, 255)), 1)
    21.0
    """
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)

"""Print options: the defaults, the current values (a `ContextVar`), and per-call overrides.

A `ContextVar` rather than a module global so that `printoptions(...)` blocks nest,
unwind on exceptions, and stay private to their thread or asyncio task.
"""

from __future__ import annotations

import contextlib
import contextvars
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import attrs

STYLES = ("grid", "separators", "line")


def _non_negative(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"print option {attribute.name} must be a non-negative int, got {value!r}")


def _positive_or_none(_instance: object, attribute: attrs.Attribute[int | None], value: int | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"print option {attribute.name} must be a positive int or None, got {value!r}")


def _non_negative_or_none(
    _instance: object, attribute: attrs.Attribute[int | None], value: int | None
) -> None:
    if value is not None:
        _non_negative(_instance, attribute, value)  # type: ignore[arg-type]


def _positive(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"print option {attribute.name} must be a positive int, got {value!r}")


def _optional_bool(_instance: object, attribute: attrs.Attribute[bool | None], value: bool | None) -> None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"print option {attribute.name} must be True, False or None, got {value!r}")


def _boolean(_instance: object, attribute: attrs.Attribute[bool], value: bool) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"print option {attribute.name} must be True or False, got {value!r}")


def _style(_instance: object, _attribute: attrs.Attribute[str], value: str) -> None:
    if value not in STYLES:
        raise ValueError(f"print option style must be one of {', '.join(STYLES)}, got {value!r}")


@attrs.frozen
class PrintOptions:
    """Every print option with its value; `attrs.evolve` makes the per-call variants.

    >>> PrintOptions().precision, PrintOptions(threshold=10).threshold
    (4, 10)
    """

    precision: int = attrs.field(default=4, validator=_non_negative)
    """Digits after the decimal point, at most (numpy's `maxprec`)."""
    threshold: int = attrs.field(default=1000, validator=_non_negative)
    """More elements than this and the print is summarised to `edgeitems` per axis."""
    edgeitems: int = attrs.field(default=3, validator=_non_negative)
    """Items shown at each end of a summarised axis."""
    linewidth: int | None = attrs.field(default=None, validator=_positive_or_none)
    """Characters per line; None means the terminal's width (80 when not a terminal)."""
    sci_mode: bool | None = attrs.field(default=None, validator=_optional_bool)
    """Scientific notation: None decides as numpy does, True or False forces it."""
    stats_limit: int | None = attrs.field(default=None, validator=_non_negative_or_none)
    """Header statistics only for tensors of at most this many elements, whatever their storage.

    None (the default) means `AUTO_STATS_LIMIT` elements for a tensor in memory, and for a
    memory-mapped or chunked one only when the print reads every value anyway (it is not
    summarised); the header says when and why statistics were skipped."""
    heatmap: bool = attrs.field(default=False, validator=_boolean)
    """Colour each value's background by its place between the shown minimum and maximum."""
    style: str = attrs.field(default="grid", validator=_style)
    """`"grid"` (labelled 2-D slices), `"separators"` (the seeds' `---` / `===` text), `"line"`."""
    notebook_width: int = attrs.field(default=120, validator=_positive)
    """Characters per line of the notebook (HTML) print when `linewidth` is None."""
    maxlines: int | None = attrs.field(default=None, validator=_positive_or_none)
    """Lines a print may take: a taller one shows only its first and last 2-D slices (`⋮ N more
    slices ⋮`). None means the terminal's height, or `DEFAULT_MAXLINES` when not a terminal."""


DEFAULT_MAXLINES = 100
"""The lines a print may take when `maxlines` is None and the output is not a terminal."""

AUTO_STATS_LIMIT = 100_000
"""The statistics limit when `stats_limit` is None, for tensors in memory."""

OPTION_NAMES = tuple(field.name for field in attrs.fields(PrintOptions))

DEFAULTS = PrintOptions()
_current: contextvars.ContextVar[PrintOptions] = contextvars.ContextVar(
    "lazytensor_print_options",
    default=DEFAULTS,
)


def _check_names(overrides: dict[str, Any]) -> None:
    unknown = sorted(set(overrides) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(
            f"unknown print option {', '.join(unknown)}; the options are {', '.join(OPTION_NAMES)}"
        )


def current_options(**overrides: Any) -> PrintOptions:
    """The options in force, with `overrides` (options given as None keep the current value).

    >>> current_options(precision=2).precision
    2
    """
    _check_names(overrides)
    given = {name: value for name, value in overrides.items() if value is not None}
    return attrs.evolve(_current.get(), **given)


def set_printoptions(
    precision: int | None = None,
    threshold: int | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    **options: Any,
) -> None:
    """Change the print options from now on (in this context); a None argument leaves that option alone.

    Every other field of `PrintOptions` is a keyword too (`lt.get_printoptions()` lists them all).

    >>> import lazytensor as lt
    >>> lt.set_printoptions(precision=2)
    >>> lt.get_printoptions()["precision"]
    2
    >>> lt.set_printoptions(precision=4)
    """
    named = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    _current.set(current_options(**named, **options))


def get_printoptions() -> dict[str, Any]:
    """The print options in force, as a dict (a copy: changing it changes nothing).

    >>> import lazytensor as lt
    >>> lt.get_printoptions()["threshold"]
    1000
    """
    return attrs.asdict(_current.get())


@contextlib.contextmanager
def printoptions(**options: Any) -> Iterator[PrintOptions]:
    """Print options in force inside a `with` block only; blocks nest and unwind on errors.

    >>> import lazytensor as lt
    >>> with lt.printoptions(precision=1):
    ...     lt.get_printoptions()["precision"]
    1
    >>> lt.get_printoptions()["precision"]
    4
    """
    token = _current.set(current_options(**options))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def terminal_width() -> int:
    """The width of the terminal on stdout, or 80 when stdout is not a terminal."""
    stdout = sys.stdout
    if stdout is None or not hasattr(stdout, "isatty") or not stdout.isatty():
        return 80
    return shutil.get_terminal_size((80, 24)).columns


def max_lines(options: PrintOptions) -> int:
    """The lines a print may take: `maxlines`, else the terminal's height (`DEFAULT_MAXLINES`, 100,
    when stdout is not a terminal).

    >>> max_lines(PrintOptions(maxlines=30)), max_lines(PrintOptions())
    (30, 100)
    """
    if options.maxlines is not None:
        return options.maxlines
    stdout = sys.stdout
    if stdout is None or not hasattr(stdout, "isatty") or not stdout.isatty():
        return DEFAULT_MAXLINES
    return shutil.get_terminal_size((80, DEFAULT_MAXLINES)).lines


def line_width(options: PrintOptions) -> int:
    """The configured line width, else the terminal's (80 when not a terminal)."""
    return options.linewidth if options.linewidth is not None else terminal_width()


def notebook_line_width(options: PrintOptions) -> int:
    """The line width of a notebook print: the configured one, else `notebook_width` (120).

    >>> notebook_line_width(PrintOptions()), notebook_line_width(PrintOptions(linewidth=70))
    (120, 70)
    """
    return options.linewidth if options.linewidth is not None else options.notebook_width

"""Axis names as the printer writes them: a named shape, a named position, a slice label's entries.

A tensor whose axes nobody named has no names here (`None`), and every function then
writes exactly what the printer wrote before names existed: `(2, 3)`, `[1, :, :]`. When
any axis is named, named axes are written with their name and unnamed ones as before,
so the text still reads positionally: `(trial 4, 64, time 1000)`, `[trial=1, 0, time↓, :]`.
Names are user text: each is cut to a bounded length (`naming.shown_name`: a 10 MB name prints as
40 characters) and then goes through `printable` (no escape sequence reaches a terminal), both by
`name_text`, the one door a name takes into printed text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from lazytensor.ground import coords as coordinates
from lazytensor.ground.coords import Coords
from lazytensor.ground.naming import shown_name
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.escapes import printable

AxisNames = tuple[str | None, ...]
"""One entry per axis: its name, or None for an unnamed axis."""

ROWS = "↓"
"""After the name of the axis that runs down a 2-D slice's rows, in its label."""
COLUMNS = "→"
"""After the name of the axis that runs across a 2-D slice's columns, in its label."""


def name_text(name: str) -> str:
    r"""A name as printed: cut when long (`shown_name`), its control characters escaped (`printable`).

    >>> name_text("time"), name_text("a\x1bb"), len(name_text("x" * 10_000_000))
    ('time', 'a\\x1bb', 40)
    """
    return printable(shown_name(name))


def given_names(names: Sequence[str | None] | None) -> AxisNames | None:
    """The names, or None when there are none or none of them is set (the unnamed print).

    >>> given_names(("time", None)), given_names((None, None)), given_names(None)
    (('time', None), None, None)
    """
    if names is None or all(name is None for name in names):
        return None
    return tuple(names)


def names_of(t: Tensor) -> AxisNames | None:
    """The names of `t`'s axes, or None when no axis is named (asked of `t` only when its base says
    that anything over it was ever named, so an unnamed print never derives names).

    >>> import lazytensor as lt
    >>> names_of(lt.zeros(2, 3)) is None, names_of(lt.zeros(2, 3, names=("row", None)))
    (True, ('row', None))
    """
    if not t.base.names_used:
        return None
    return given_names(t.names)


def coords_of(t: Tensor) -> Coords | None:
    """The coordinates of `t`'s axes, or None when no axis has one (asked only of a named tensor).

    >>> import lazytensor as lt
    >>> coords_of(lt.zeros(2, names=("x",))) is None
    True
    >>> coords_of(lt.zeros(2, names=("x",), coords={"x": [5, 7]}))
    (array([5, 7]),)
    """
    if not getattr(t.base, "coords_used", False):
        return None
    found: Coords = getattr(t, "axis_coords", None) or ()
    return found if coordinates.has_any(found) else None


def label_at(coord: Any, index: int) -> str:
    """The label at `index` of a coordinate as printed: dates in their shortest exact form, long ones
    cut like long names, control characters escaped.

    >>> import numpy as np
    >>> label_at(np.array(["2024-01-02", "2024-01-03"], dtype="M8[ns]"), 1), label_at(np.array([850.0]), 0)
    ('2024-01-03', '850')
    """
    return printable(coordinates.label_text(coord, index))


def span_text(coord: Any) -> str:
    """A coordinate's first and last labels, `rome…lima` (one label alone, none for an empty axis).

    >>> import numpy as np
    >>> span_text(np.array(["rome", "oslo", "lima"])), span_text(np.array([850])), span_text(np.array([]))
    ('rome…lima', '850', '')
    """
    if not len(coord):
        return ""
    if len(coord) == 1:
        return label_at(coord, 0)
    return f"{label_at(coord, 0)}…{label_at(coord, len(coord) - 1)}"


def coords_entries(names: Sequence[str | None], coords: Coords) -> list[str]:
    """The header's entries of the axes that have coordinates: `station rome…lima`.

    >>> import numpy as np
    >>> coords_entries(("station", None), (np.array(["rome", "lima"]), None))
    ['station rome…lima']
    """
    return [
        f"{name_text(name)} {span_text(coord)}".rstrip()
        for name, coord in zip(names, coords, strict=True)
        if name is not None and coord is not None
    ]


def kept_names(names: AxisNames | None, fixed: Sequence[int | None]) -> AxisNames | None:
    """The names left when the axes with an index in `fixed` are dropped (an int index drops its name).

    >>> kept_names(("trial", "time", None), (1, None, None)), kept_names(("trial", None), (0, None))
    (('time', None), None)
    """
    if names is None:
        return None
    return given_names([name for name, index in zip(names, fixed, strict=True) if index is None])


def shape_text(shape: Sequence[int], names: AxisNames | None) -> str:
    """A shape as the printer writes it: `(4, 64)` unnamed, `(trial 4, 64)` with names.

    >>> shape_text((4, 64), None), shape_text((4, 64), ("trial", None)), shape_text((5,), ("time",))
    ('(4, 64)', '(trial 4, 64)', '(time 5)')
    """
    if names is None:
        return str(shape)
    return "(" + ", ".join(shape_entries(shape, names)) + ")"


def position_text(position: Sequence[int], names: AxisNames | None) -> str:
    """A position as the printer writes it: `(2, 0)` unnamed, `(time=2, 0)` with names.

    >>> position_text((2, 0), None), position_text((2, 0), ("time", None))
    ('(2, 0)', '(time=2, 0)')
    """
    if names is None:
        return str(position)
    return "(" + ", ".join(position_entries(position, names)) + ")"


def labelled_entry(name: str | None, coord: Any, index: int) -> str:
    """One fixed axis of a label or position: `station=rome` when the axis has a coordinate, else as
    `entry`: `station=1`, or `1` unnamed.

    >>> import numpy as np
    >>> labelled_entry("station", np.array(["rome", "oslo"]), 1), labelled_entry("station", None, 1)
    ('station=oslo', 'station=1')
    """
    if name is None or coord is None:
        return entry(name, str(index))
    return entry(name, label_at(coord, index))


def entry(name: str | None, text: str) -> str:
    """One axis of a label or position: `name=text` for a named axis, `text` alone for an unnamed one.

    >>> entry("trial", "1"), entry(None, ":")
    ('trial=1', ':')
    """
    return text if name is None else f"{name_text(name)}={text}"


def grid_entry(name: str | None, arrow: str) -> str:
    """A label's entry for an axis the 2-D slice shows: `time↓` (its rows), `freq→` (its columns), or
    `:` when that axis has no name.

    >>> grid_entry("time", ROWS), grid_entry(None, COLUMNS)
    ('time↓', ':')
    """
    return ":" if name is None else name_text(name) + arrow


def axis_text(axis: int, names: AxisNames | None) -> str:
    """An axis as the print's notes call it: by its name when it has one, else by number.

    >>> axis_text(2, None), axis_text(0, ("trial", None)), axis_text(1, ("trial", None))
    ('axis 2', 'trial', 'axis 1')
    """
    name = None if names is None else names[axis]
    return f"axis {axis}" if name is None else name_text(name)


def wrap_entries(entries: Sequence[str], width: int, indent: int = 0, brackets: str = "[]") -> list[str]:
    """A bracketed list `[a, b, c]` in lines that fit `width` cells after `indent` cells (of a prefix
    on the first line, of spaces on the others), broken after a comma; the lines after the first
    start with a space, so their entries align with the first one. An entry is never split.

    >>> wrap_entries(["trial=1", "channel=0", "time↓", "freq→"], 22)
    ['[trial=1, channel=0,', ' time↓, freq→]']
    >>> wrap_entries(["trial 2", "time 4"], 16, indent=6, brackets="()")
    ['(trial 2,', ' time 4)']
    """
    opening, closing = brackets[0], brackets[1]
    room = width - indent
    lines: list[str] = []
    line = opening
    for k, item in enumerate(entries):
        piece = item + ("," if k < len(entries) - 1 else closing)
        if len(line) > 1 and cell_len(line) + 1 + cell_len(piece) > room:
            lines.append(line)
            line = " " + piece
        else:
            line += (" " if len(line) > 1 else "") + piece
    lines.append(line)
    return lines


def shape_entries(shape: Sequence[int], names: AxisNames) -> list[str]:
    """The entries of a named shape: `trial 4` for a named axis, the size alone for an unnamed one."""
    return [
        f"{name_text(name)} {size}" if name is not None else str(size)
        for name, size in zip(names, shape, strict=True)
    ]


def position_entries(position: Sequence[int], names: AxisNames, coords: Coords | None = None) -> list[str]:
    """The entries of a named position: `time=2` for a named axis (`station=rome` for one with a
    coordinate), the index alone for an unnamed one."""
    labels = coordinates.none(len(names)) if coords is None else coords
    return [
        labelled_entry(name, coord, index) for name, index, coord in zip(names, position, labels, strict=True)
    ]


def wrapped(
    prefix: str, entries: Sequence[str], brackets: str, style: Style | None, width: int
) -> list[Text]:
    """`prefix` and the bracketed `entries` (styled) in lines that fit `width`, aligned after the bracket.

    >>> [line.plain for line in wrapped("shape ", ["trial 2", "time 4"], "()", None, 16)]
    ['shape (trial 2,', '       time 4)']
    """
    lines = wrap_entries(entries, width, indent=cell_len(prefix), brackets=brackets)
    pad = " " * cell_len(prefix)
    return [
        Text.assemble(prefix if k == 0 else pad, Text(line, style=style or ""))
        for k, line in enumerate(lines)
    ]


def one_line_or_two(first: Sequence[Text], second: Sequence[Text], width: int) -> list[Text]:
    """Two wrapped phrases (`slice [...]` and `of a tensor of shape (...)`) on one line when both
    fit in it, else each on lines of its own.

    >>> [line.plain for line in one_line_or_two([Text("a b")], [Text("c")], 5)]
    ['a b c']
    >>> [line.plain for line in one_line_or_two([Text("a b")], [Text("c")], 4)]
    ['a b', 'c']
    """
    if len(first) == len(second) == 1 and first[0].cell_len + 1 + second[0].cell_len <= width:
        return [Text.assemble(first[0], " ", second[0])]
    return [*first, *second]

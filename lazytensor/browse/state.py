"""What the browser shows, as a value: which axes form the slice, the index of every other axis, the
scroll offsets, the cell under the cursor, precision and heatmap. Pure: no terminal, no reads.

Every key is a method that returns a new state, so the tests walk the browser without a screen.
The slice on screen is `t[state.key()]` (transposed when the rows' axis comes after the columns'),
written as a user would type it by `key_text()` (`t[2, :, 7, :]`) and `isel_text()`
(`t.isel(trial=2, time=7)`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

import attrs

from lazytensor.ground import coords as coordinates
from lazytensor.printer.axisnames import label_at
from lazytensor.printer.escapes import printable

WHOLE_DATES = 10_000
"""Dates of a coordinate this long or shorter are written in the unit that fits all of them (as the
printer's `label_at` does): the browser formats them in one pass per screen."""
MAX_PRECISION = 16
"""Digits after the point, at most (float64 has 17 significant ones)."""


def _check(state: BrowseState) -> None:
    ndim = len(state.shape)
    if len(state.names) != ndim or len(state.index) != ndim:
        raise ValueError(f"{ndim} axes need {ndim} names and indices, got {state.names} and {state.index}")
    for axis in (state.rows, state.cols, state.moving):
        if axis is not None and not 0 <= axis < ndim:
            raise ValueError(f"axis {axis} is out of bounds for {ndim} axes")
    if state.rows is not None and state.rows == state.cols:
        raise ValueError(f"the rows and the columns are both axis {state.rows}")
    if state.moving is not None and state.moving in (state.rows, state.cols):
        raise ValueError(f"axis {state.moving} moves but the slice shows it")
    if not 0 <= state.precision <= MAX_PRECISION:
        raise ValueError(f"precision {state.precision} is not between 0 and {MAX_PRECISION}")
    if state.coords and len(state.coords) != ndim:
        raise ValueError(f"{ndim} axes need {ndim} coordinates (or None each), got {len(state.coords)}")


@attrs.frozen
class BrowseState:
    """The browser's view of a tensor of `shape`: `rows` and `cols` are the axes of the 2-D slice
    (None when the tensor has fewer axes), `index` the position of every axis (those of the slice
    unused), `moving` the outer axis ←/→ steps; `top`/`left` the first shown row and column and
    `cursor` the (row, column) of the cell Enter edits, both in the slice's own positions.

    >>> s = BrowseState.start((4, 3, 100, 50), ("trial", "channel", "time", "freq"))
    >>> s.key_text(), s.step(1).key_text(), s.step(1).isel_text()
    ('t[0, 0, :, :]', 't[0, 1, :, :]', 't.isel(trial=0, channel=1)')
    """

    shape: tuple[int, ...]
    names: tuple[str | None, ...]
    index: tuple[int, ...]
    rows: int | None
    cols: int | None
    moving: int | None
    precision: int = 4
    heatmap: bool = False
    top: int = 0
    left: int = 0
    cursor: tuple[int, int] = (0, 0)
    coords: tuple[Any, ...] = attrs.field(default=(), eq=False)
    """One 1-D array of labels (or None) per axis, as `t.axis_coords`; empty when no axis has one.
    Left out of equality: a browser's coordinates never change, and arrays do not compare as one."""

    def __attrs_post_init__(self) -> None:
        _check(self)

    @classmethod
    def start(
        cls,
        shape: Sequence[int],
        names: Sequence[str | None] | None = None,
        precision: int = 4,
        coords: Sequence[Any] | None = None,
    ) -> BrowseState:
        """The first view: the last two axes as rows and columns, the axis before them moving;
        `coords` the axes' labels (`t.axis_coords`), when the tensor has any."""
        shape = tuple(int(n) for n in shape)
        ndim = len(shape)
        rows = ndim - 2 if ndim >= 2 else (0 if ndim == 1 else None)
        cols = ndim - 1 if ndim >= 2 else None
        outer = [a for a in range(ndim) if a not in (rows, cols)]
        given = tuple(names) if names is not None else (None,) * ndim
        labels = tuple(coords) if coords is not None and coordinates.has_any(tuple(coords)) else ()
        moving = outer[-1] if outer else None
        return cls(shape, given, (0,) * ndim, rows, cols, moving, precision, coords=labels)

    # -- what is shown ----------------------------------------------------------------------

    @property
    def outer(self) -> tuple[int, ...]:
        """The axes fixed at one index: every axis but the slice's."""
        return tuple(a for a in range(len(self.shape)) if a not in (self.rows, self.cols))

    @property
    def transposed(self) -> bool:
        """Whether the rows' axis comes after the columns' (the slice is `t[key].T`)."""
        return self.rows is not None and self.cols is not None and self.rows > self.cols

    @property
    def slice_shape(self) -> tuple[int, int]:
        """(rows, columns) of the slice on screen; a 1-D tensor is one column, a 0-d one one cell."""
        height = 1 if self.rows is None else self.shape[self.rows]
        width = 1 if self.cols is None else self.shape[self.cols]
        return height, width

    def key(self) -> tuple[Any, ...]:
        """The numpy key of the slice: the index of each outer axis, `:` for the slice's axes."""
        return tuple(
            slice(None) if a in (self.rows, self.cols) else self.index[a] for a in range(len(self.shape))
        )

    def key_text(self) -> str:
        """The slice as typed at a prompt: `t[2, :, 7, :]`, `.T` after it when transposed.

        >>> BrowseState.start((2, 3, 4)).transpose().key_text()
        't[0, :, :].T'
        """
        items = [":" if a in (self.rows, self.cols) else str(self.index[a]) for a in range(len(self.shape))]
        return f"t[{', '.join(items)}]" + (".T" if self.transposed else "") if items else "t[()]"

    def isel_text(self) -> str | None:
        """The slice by name, `t.isel(time=7)`, when every outer axis has a name (else None)."""
        outer = self.outer
        if not outer or any(self.names[a] is None for a in outer):
            return None
        picks = ", ".join(f"{self.names[a]}={self.index[a]}" for a in outer)
        return f"t.isel({picks})" + (".T" if self.transposed else "")

    def coord(self, axis: int | None) -> Any:
        """The labels of `axis` (a 1-D array), or None when it has none."""
        return None if axis is None or not self.coords else self.coords[axis]

    def label(self, axis: int | None, position: int) -> str | None:
        """The label at `position` of `axis` as the printer shows it (dates shortest, long ones cut),
        or None when the axis has no coordinate.

        >>> import numpy as np
        >>> stations = np.array(["rome", "oslo", "lima"])
        >>> s = BrowseState.start((3, 2, 2), ("station", None, None), coords=(stations, None, None))
        >>> s.label(0, 1), s.label(1, 0)
        ('oslo', None)
        """
        coord = self.coord(axis)
        if axis is None or coord is None or not 0 <= position < len(coord):
            return None
        return label_at(coord, position)

    def labels(self, axis: int | None, positions: Sequence[int]) -> list[str] | None:
        """The labels at `positions` of `axis`, as `label` writes each but formatted together (one
        pass over a coordinate of dates, not one per label); None when the axis has no coordinate."""
        coord = self.coord(axis)
        if axis is None or coord is None:
            return None
        if coord.dtype.kind != "M" or len(coord) > WHOLE_DATES:
            return [str(self.label(axis, p)) for p in positions]
        texts = coordinates.labels_text(coord)
        return [printable(texts[p]) if 0 <= p < len(texts) else "None" for p in positions]

    def sel_text(self) -> str | None:
        """The slice by label, `t.sel(station="rome", time="2024-01-02")`, when the outer axes are
        named and some have coordinates (those without, or whose label `sel` would not find at this
        one position, follow as `.isel(level=0)`); else None.

        >>> import numpy as np
        >>> stations = np.array(["rome", "oslo"])
        >>> names = ("station", "level", None, None)
        >>> s = BrowseState.start((2, 3, 4, 5), names, coords=(stations, None, None, None))
        >>> s.choose_axis(1).step(1).sel_text()
        't.sel(station="oslo").isel(level=0)'
        """
        outer = self.outer
        if not outer or any(self.names[a] is None or self.shape[a] == 0 for a in outer):
            return None
        by_label = [a for a in outer if self._by_label(a)]
        if not by_label:
            return None
        picks = ", ".join(f"{self.names[a]}={_quoted(self.coord(a), self.index[a])}" for a in by_label)
        rest = ", ".join(f"{self.names[a]}={self.index[a]}" for a in outer if a not in by_label)
        return f"t.sel({picks})" + (f".isel({rest})" if rest else "") + (".T" if self.transposed else "")

    def _by_label(self, axis: int) -> bool:
        """Whether `t.sel` finds the axis' position by its label as shown: not when the axis has no
        coordinate, or the label is repeated, cut, or not a label `sel` matches (NaN)."""
        if self.coord(axis) is None:
            return False
        try:
            return (
                self.position_of(axis, _quoted(self.coord(axis), self.index[axis]), True) == self.index[axis]
            )
        except (KeyError, ValueError, TypeError):
            return False

    # -- the keys ---------------------------------------------------------------------------

    def step(self, delta: int) -> BrowseState:
        """←/→: the previous or next index of the moving axis (stopping at its ends)."""
        if self.moving is None:
            return self
        size = self.shape[self.moving]
        moved = min(max(self.index[self.moving] + delta, 0), max(size - 1, 0))
        return self._at(self.moving, moved)

    def choose_axis(self, delta: int) -> BrowseState:
        """↑/↓: the outer axis before or after the moving one moves next (round the list)."""
        outer = self.outer
        if self.moving is None or not outer:
            return self
        return attrs.evolve(self, moving=outer[(outer.index(self.moving) + delta) % len(outer)])

    def make_columns(self) -> BrowseState:
        """x: the moving axis becomes the columns; the columns' axis takes its place, keeping its index."""
        if self.moving is None:
            return self
        if self.cols is None:
            return attrs.evolve(self, cols=self.moving, moving=None, left=0, cursor=(self.cursor[0], 0))
        return attrs.evolve(self, cols=self.moving, moving=self.cols, left=0, cursor=(self.cursor[0], 0))

    def make_rows(self) -> BrowseState:
        """y: the moving axis becomes the rows; the rows' axis takes its place, keeping its index."""
        if self.moving is None or self.rows is None:
            return self
        return attrs.evolve(self, rows=self.moving, moving=self.rows, top=0, cursor=(0, self.cursor[1]))

    def transpose(self) -> BrowseState:
        """t: rows and columns swap."""
        if self.rows is None or self.cols is None:
            return self
        return attrs.evolve(
            self,
            rows=self.cols,
            cols=self.rows,
            top=self.left,
            left=self.top,
            cursor=(self.cursor[1], self.cursor[0]),
        )

    def toggle_heatmap(self) -> BrowseState:
        """h: colour backgrounds by value, or numbers coloured by kind."""
        return attrs.evolve(self, heatmap=not self.heatmap)

    def with_precision(self, delta: int) -> BrowseState:
        """+/-: one digit more or fewer after the point (0 to `MAX_PRECISION`)."""
        return attrs.evolve(self, precision=min(max(self.precision + delta, 0), MAX_PRECISION))

    def scrolled(self, rows: int, cols: int, visible: tuple[int, int]) -> BrowseState:
        """The first shown row and column moved by `rows` and `cols`, kept where the slice has cells;
        the cursor follows into the shown window."""
        height, width = self.slice_shape
        top = min(max(self.top + rows, 0), max(height - visible[0], 0))
        left = min(max(self.left + cols, 0), max(width - visible[1], 0))
        row = min(max(self.cursor[0], top), top + max(visible[0], 1) - 1, height - 1)
        col = min(max(self.cursor[1], left), left + max(visible[1], 1) - 1, width - 1)
        return attrs.evolve(self, top=top, left=left, cursor=(max(row, 0), max(col, 0)))

    def moved_cursor(self, rows: int, cols: int, visible: tuple[int, int]) -> BrowseState:
        """The cursor moved by (rows, cols) inside the slice, the window scrolled to keep it shown."""
        height, width = self.slice_shape
        row = min(max(self.cursor[0] + rows, 0), height - 1)
        col = min(max(self.cursor[1] + cols, 0), width - 1)
        top = min(self.top, row) if row < self.top else max(self.top, row - max(visible[0], 1) + 1)
        left = min(self.left, col) if col < self.left else max(self.left, col - max(visible[1], 1) + 1)
        return attrs.evolve(self, top=top, left=left, cursor=(max(row, 0), max(col, 0)))

    def _at(self, axis: int, value: int) -> BrowseState:
        index = list(self.index)
        index[axis] = value
        return attrs.evolve(self, index=tuple(index))

    # -- `/`: a key typed to jump -----------------------------------------------------------

    def jump(self, text: str) -> BrowseState:
        """`/`: a numpy key (`2, :, 7, :`, `t[2, :, 7, :]`) fixes every int axis and makes the two `:`
        axes the slice; `name=index` pairs (`time=7, trial=2`, `t.isel(time=7)`) fix those axes, and
        `name=label` pairs (`station=rome`, `time=2024-01-02`, `t.sel(level=850)`) fix them at a label
        of their coordinate (an int is a position, except inside `t.sel(...)`). A bad key is a
        ValueError, IndexError or KeyError (an unknown label, with the nearest ones) naming what is
        wrong, and changes nothing.

        >>> s = BrowseState.start((4, 3, 100, 50), ("trial", "channel", "time", "freq"))
        >>> s.jump("2, :, 7, :").key_text(), s.jump("t.isel(trial=3)").key_text()
        ('t[2, :, 7, :]', 't[3, 0, :, :]')
        """
        body = text.strip()
        by_label = body.startswith("t.sel(") and body.endswith(")")
        for prefix, suffix in (("t.sel(", ")"), ("t.isel(", ")"), ("t[", "]"), ("[", "]")):
            if body.startswith(prefix) and body.endswith(suffix):
                body = body[len(prefix) : -len(suffix)]
                break
        pairs = _pairs(body)
        if pairs is not None:
            return self._jump_by_pairs(pairs, by_label)
        try:
            call = ast.parse(f"f({body})", mode="eval").body
        except SyntaxError:
            try:
                call = ast.parse(f"f[{body}]", mode="eval").body
            except SyntaxError:
                raise ValueError(f"{text.strip()!r} is neither a numpy key nor name=index pairs") from None
        if isinstance(call, ast.Call) and call.keywords and not call.args:
            return self._jump_by_name(call.keywords)
        items = call.slice if isinstance(call, ast.Subscript) else None
        if items is None and isinstance(call, ast.Call):
            items = ast.Tuple(elts=list(call.args)) if len(call.args) != 1 else call.args[0]
        if items is None:
            raise ValueError(f"{text.strip()!r} is neither a numpy key nor name=index pairs")
        return self._jump_by_key(list(items.elts) if isinstance(items, ast.Tuple) else [items])

    def _jump_by_name(self, keywords: list[ast.keyword]) -> BrowseState:
        return self._jump_by_pairs([(str(k.arg), ast.unparse(k.value)) for k in keywords], False)

    def _jump_by_pairs(self, pairs: list[tuple[str, str]], by_label: bool) -> BrowseState:
        state = self
        for name, value in pairs:
            axis = self._outer_axis(name)
            position = self.position_of(axis, value, by_label)
            state = state._at(axis, _position(position, self.shape[axis], axis))
        return attrs.evolve(state, moving=self.names.index(pairs[-1][0]))

    def _outer_axis(self, name: str) -> int:
        if name not in self.names:
            known = ", ".join(str(name) for name in self.names if name is not None) or "none"
            raise ValueError(f"no axis is named {name!r} (the names: {known})")
        axis = self.names.index(name)
        if axis in (self.rows, self.cols):
            raise ValueError(f"{name} is an axis of the slice; x or y makes it an outer axis")
        return axis

    def position_of(self, axis: int, value: str, by_label: bool = False) -> int:
        """The position `value` (as typed after `name=`) names on `axis`: an int is a position (unless
        `by_label`), anything else a label of the axis' coordinate, found as `t.sel` finds it (a
        KeyError naming the nearest labels when it is not there).

        >>> import numpy as np
        >>> stations = np.array(["rome", "oslo", "lima"])
        >>> s = BrowseState.start((3, 2, 2), ("station", None, None), coords=(stations, None, None))
        >>> s.position_of(0, "oslo"), s.position_of(0, '"lima"'), s.position_of(0, "1")
        (1, 2, 1)
        """
        text = value.strip()
        number = _literal(text)
        if isinstance(number, int) and not isinstance(number, bool) and not by_label:
            return number
        name = str(self.names[axis])
        coord = self.coord(axis)
        label: Any = number if number is not None else text
        if coord is not None and coord.dtype.kind not in "biuf" and not isinstance(label, str):
            label = text
        found = coordinates.index_for(coord, name, label, None)
        if not isinstance(found, int):
            raise KeyError(f"sel: axis {name!r}: {text} names several positions, {found}; give one")
        return found

    def _jump_by_key(self, items: list[ast.expr]) -> BrowseState:
        ndim = len(self.shape)
        if len(items) != ndim:
            raise IndexError(f"the key has {len(items)} items; the tensor has {ndim} axes (one each)")
        whole = [a for a, item in enumerate(items) if _is_colon(item)]
        wanted = 2 if ndim >= 2 else ndim
        if len(whole) != wanted:
            raise IndexError(f"the key needs {wanted} ':' (the slice's axes), got {len(whole)}")
        index = list(self.index)
        for axis, item in enumerate(items):
            if axis not in whole:
                index[axis] = _position(_int(item), self.shape[axis], axis)
        rows, cols = (whole[0], whole[1]) if wanted == 2 else (self.rows, self.cols)
        if self.transposed and wanted == 2:
            rows, cols = cols, rows
        outer = [a for a in range(ndim) if a not in (rows, cols)]
        moving = self.moving if self.moving in outer else (outer[-1] if outer else None)
        keep = (rows, cols) == (self.rows, self.cols)
        return attrs.evolve(
            self,
            index=tuple(index),
            rows=rows,
            cols=cols,
            moving=moving,
            top=self.top if keep else 0,
            left=self.left if keep else 0,
            cursor=self.cursor if keep else (0, 0),
        )


_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*=(?!=)\s*(.*?)\s*$", re.DOTALL)


def _pairs(body: str) -> list[tuple[str, str]] | None:
    """`name=value` pairs split at commas (`station=rome, time=2024-01-02`), values as typed; None
    when the text is not such pairs (a numpy key)."""
    found = [_NAME.match(part) for part in body.split(",")]
    if not body.strip() or any(match is None or not match.group(2) for match in found):
        return None
    return [(match.group(1), match.group(2)) for match in found if match is not None]


def _literal(text: str) -> Any:
    """A number or quoted string as Python reads it (`-2`, `850.5`, `"rome"`), else None."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, int | float | str) else None


def _quoted(coord: Any, position: int) -> str:
    """A label as typed in `t.sel(...)`: numbers bare, strings and dates in double quotes."""
    text = label_at(coord, position)
    if coord.dtype.kind in "biuf":
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_colon(item: ast.expr) -> bool:
    return isinstance(item, ast.Slice) and item.lower is None and item.upper is None and item.step is None


def _int(node: ast.expr) -> int:
    """An int written in the key (a sign allowed); anything else is a ValueError."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        return sign * _int(node.operand)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    raise ValueError(f"{ast.unparse(node)!r} is not an index (an int, or ':' for the slice's axes)")


def _position(value: int, size: int, axis: int) -> int:
    """`value` as a position on an axis of `size`, negatives from the end, as numpy takes it."""
    if not -size <= value < size:
        raise IndexError(f"index {value} is out of bounds for axis {axis} with size {size}")
    return value % size

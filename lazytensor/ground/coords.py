"""Coordinates: a 1-D array of labels per named axis (strings, numbers, datetime64), the rules each
view and operation follows for them, their printed text, and selection by label (`t.sel`).

A base holds the coordinates it was given (`lt.tensor(..., coords=...)`, a file's coordinate
variables); a view derives its own from the ones below it the first time someone asks, as it does
its names: an axis that keeps its name keeps its labels, indexed as numpy indexes the axis (steps,
reversal, lists, masks, transposes), a new axis has none, and a reshape that merges or splits axes
drops theirs. Coordinates are small numpy arrays held beside the names (at most `COORD_LIMIT`
labels an axis; a file's longer coordinate is not read). (Ground floor: it imports nothing of ours.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from lazytensor.ground.naming import Names, Shape, axis_of, shown_name

Coord = npt.NDArray[Any]
Coords = tuple[Coord | None, ...]

COORD_LIMIT = 1_000_000
"""The most labels a coordinate holds: coordinates are read whole, when a file is opened."""

_KINDS = "biufUMm"
"""The dtype kinds a coordinate may have: bool, integers, floats, strings, datetime64, timedelta64."""


def none(ndim: int) -> Coords:
    """The coordinates of a tensor nobody labelled: None for every axis.

    >>> none(2)
    (None, None)
    """
    return (None,) * ndim


def has_any(coords: Coords) -> bool:
    """Whether any axis has a coordinate."""
    return any(coord is not None for coord in coords)


def coord_array(values: Any, name: str, size: int) -> Coord:
    """`values` as the read-only 1-D coordinate of the axis `name` of length `size`: strings as str,
    numbers and datetime64 as they are; ValueError when it is not 1-D, not of the axis' length or
    longer than `COORD_LIMIT`, TypeError for other kinds of labels.

    >>> coord_array(["rome", "oslo"], "station", 2)
    array(['rome', 'oslo'], dtype='<U4')
    >>> coord_array([1, 2, 3], "station", 2)
    Traceback (most recent call last):
    ValueError: coordinate of axis 'station' has 3 labels for an axis of length 2
    """
    array = np.array(values, copy=True)
    if array.dtype.kind == "O" and all(isinstance(label, str) for label in array.ravel().tolist()):
        array = array.astype(str)
    if array.dtype.kind == "S":
        array = array.astype(str)
    if array.ndim != 1:
        raise ValueError(f"coordinate of axis {shown_name(name)!r} must be 1-D, got shape {array.shape}")
    if len(array) > COORD_LIMIT:
        raise ValueError(
            f"coordinate of axis {shown_name(name)!r} has {len(array):,} labels, more than the "
            f"{COORD_LIMIT:,} a coordinate may hold"
        )
    if len(array) != size:
        raise ValueError(
            f"coordinate of axis {shown_name(name)!r} has {len(array)} labels for an axis of length {size}"
        )
    if array.dtype.kind not in _KINDS:
        raise TypeError(
            f"coordinate of axis {shown_name(name)!r}: labels are str, numbers or datetime64, got dtype "
            f"{array.dtype}"
        )
    array.flags.writeable = False
    return array


def checked(given: Mapping[str, Any], names: Names, shape: Shape, below: Coords | None = None) -> Coords:
    """The coordinates `given` by axis name, one per axis (`below`'s, or None, for the others): each
    name must name an axis (ValueError as `axis_of`), each coordinate fit it (`coord_array`).

    >>> checked({"station": ["rome", "oslo"]}, ("station", None), (2, 3))
    (array(['rome', 'oslo'], dtype='<U4'), None)
    """
    if not isinstance(given, Mapping):
        raise TypeError(f"coords must be a dict of axis name to labels, got {type(given).__name__}")
    found = list(none(len(shape)) if below is None else below)
    for name, values in given.items():
        axis = axis_of(name, names, shape)
        found[axis] = None if values is None else coord_array(values, name, shape[axis])
    return tuple(found)


def from_file(found: Mapping[str, Any], names: Names, shape: Shape) -> Coords:
    """The coordinates a file keeps beside a variable, by dimension name, made valid: those that are
    1-D, of their axis' length, no longer than `COORD_LIMIT` and of a label dtype; the rest dropped.

    >>> from_file({"x": [1, 2], "y": [[1]]}, ("x", "y"), (2, 1))
    (array([1, 2]), None)
    """
    coords: list[Coord | None] = []
    for name, size in zip(names, shape, strict=True):
        values = None if name is None else found.get(name)
        try:
            coords.append(None if values is None or name is None else coord_array(values, name, size))
        except (TypeError, ValueError):
            coords.append(None)
    return tuple(coords)


def followed(view: Any, coords_below: Coords) -> Coords:
    """The coordinates of a view, as numpy's index arithmetic says: an axis that keeps the name of an
    axis below takes that axis' labels at the positions `view.translate_batch` maps it to (so steps,
    reversal, lists, masks and transposes index the labels as they index the values); every other
    axis has none. A view of no elements keeps a coordinate only where the axis' length is kept."""
    if not has_any(coords_below):
        return none(len(view.shape))
    names, shape = view.names, view.shape
    below_names, below_shape = view.wrapped.names, view.wrapped.shape
    empty = 0 in shape and len(shape) == 1
    found: list[Coord | None] = []
    for axis, (name, size) in enumerate(zip(names, shape, strict=True)):
        there = below_names.index(name) if name is not None and name in below_names else None
        coord = None if there is None else coords_below[there]
        if coord is None or there is None:
            found.append(None)
        elif empty:
            found.append(coord if size == below_shape[there] else coord[:0] if size == 0 else None)
        else:
            found.append(_along(view, axis, there, coord))
    return tuple(found)


def _along(view: Any, axis: int, there: int, coord: Coord) -> Coord | None:
    """The labels of `axis` of `view`: `coord`, of axis `there` below, at the positions the view maps
    the axis to (every other axis at 0). None when the view cannot map them (an empty axis beside
    it, inside an index block)."""
    size = view.shape[axis]
    index = [np.zeros(size, dtype=np.intp)] * len(view.shape)
    index[axis] = np.arange(size, dtype=np.intp)
    try:
        positions = np.broadcast_to(view.translate_batch(tuple(index))[there], (size,))
        return frozen(coord[positions])
    except (IndexError, ValueError):  # an empty axis beside it: no position to map
        return None


def frozen(array: Coord) -> Coord:
    """`array` made read-only: coordinates are shared between views, never written."""
    array.flags.writeable = False
    return array


def equal(a: Coord, b: Coord) -> bool:
    """Whether two coordinates hold the same labels (NaN equal to NaN)."""
    if a is b:
        return True
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    try:
        return bool(np.array_equal(a, b))
    except (TypeError, ValueError):
        return False


def broadcast(operands: Sequence[tuple[Names, Shape, Coords]], shape: Shape) -> Coords:
    """The coordinates of the broadcast result (of shape `shape`): axes aligned from the right keep
    a coordinate where an operand's axis is of the result's length (an axis stretched from 1 gives
    none); two coordinates of one axis must hold the same labels, else a one-line ValueError.

    >>> a = (("x",), (2,), (np.array([1, 2]),))
    >>> broadcast([a, ((None,), (1,), (None,))], (2,))
    (array([1, 2]),)
    >>> broadcast([a, (("x",), (2,), (np.array([2, 1]),))], (2,))
    Traceback (most recent call last):
    ValueError: coordinates of axis 'x' do not match: [1 2] against [2 1] (align them with sel or isel first)
    """
    found: list[Coord | None] = list(none(len(shape)))
    for names, operand_shape, coords in operands:
        for back in range(1, len(coords) + 1):
            coord = coords[-back]
            if coord is None or back > len(shape) or operand_shape[-back] != shape[-back]:
                continue
            known = found[-back]
            if known is None:
                found[-back] = coord
            elif not equal(known, coord):
                name = names[-back] or str(len(shape) - back)
                raise ValueError(
                    f"coordinates of axis {shown_name(name)!r} do not match: {_short(known)} against "
                    f"{_short(coord)} (align them with sel or isel first)"
                )
    return tuple(found)


def broadcast_checked(operands: Sequence[tuple[Names, Shape, Coords]]) -> None:
    """Refuse (ValueError) operands whose coordinates `broadcast` would find mismatched, before any
    work; shapes that do not broadcast are left to the kernel's own error."""
    if not any(has_any(coords) for _, _, coords in operands):
        return
    try:
        shape = tuple(np.broadcast_shapes(*(found_shape for _, found_shape, _ in operands)))
    except ValueError:
        return
    broadcast(operands, shape)


def _short(coord: Coord) -> str:
    """A coordinate quoted in a message: its first labels."""
    return np.array2string(coord, threshold=6, edgeitems=3, max_line_width=10_000)


def operand(x: Any) -> tuple[Names, Shape, Coords]:
    """An operand's names, shape and coordinates: a tensor's own, an array's or a number's none."""
    shape = tuple(getattr(x, "shape", ()))
    coords = getattr(x, "axis_coords", None)
    names = getattr(x, "names", None)
    return (
        (None,) * len(shape) if names is None else names,
        shape,
        none(len(shape)) if coords is None else coords,
    )


def result_coords(
    shapes: str, operands: Sequence[Any], params: dict[str, Any], op: str, out: Shape
) -> Coords:
    """The coordinates of the result (of shape `out`) of operation `op`, which treats shapes as
    `shapes` says (an entry of the operation table), as `naming.result_names` names it: broadcast
    operands agree by `broadcast`; an operation that keeps the shape keeps its first operand's; a
    reduction drops the reduced axes'; `cat` keeps those of the axes it does not join, `stack` gives
    its new axis none, `matmul` keeps the batch axes', the rows' and the columns'; the rest none."""
    given = [operand(x) for x in operands]
    if not any(has_any(coords) for _, _, coords in given):
        return none(len(out))
    if shapes == "broadcast":
        return broadcast(given, out)
    if shapes == "join":
        dim = params.get("axis", params.get("dim", 0))
        if not isinstance(dim, int):
            return none(len(out))
        if op == "stack":
            kept = broadcast(given, tuple(np.delete(np.array(out, dtype=int), dim)))
            axis = dim % len(out)
            return (*kept[:axis], None, *kept[axis:])
        found = list(broadcast([_without(found, dim) for found in given], out))
        found[dim % len(out)] = None
        return tuple(found)
    first = given[0] if given else ((), (), ())
    if op == "matmul" and len(operands) == 2:
        return _matmul(first, given[1], out)
    if shapes == "same" and first[1] == out:
        return first[2]
    if shapes == "reduce":
        _names, shape, coords = first
        dim = params.get("dim")
        dims = (
            set(range(len(shape)))
            if dim is None
            else {d % len(shape) for d in ((dim,) if isinstance(dim, int) else dim)}
        )
        if params.get("keepdim"):
            return tuple(None if axis in dims else coord for axis, coord in enumerate(coords))
        kept = tuple(coord for axis, coord in enumerate(coords) if axis not in dims)
        return kept if len(kept) == len(out) else none(len(out))
    return none(len(out))


def _without(found: tuple[Names, Shape, Coords], dim: int) -> tuple[Names, Shape, Coords]:
    """An operand of `cat` with no coordinate on the joined axis (its length changes)."""
    names, shape, coords = found
    if not shape:
        return found
    axis = dim % len(shape)
    return names, shape, tuple(None if k == axis else coord for k, coord in enumerate(coords))


def _matmul(left: tuple[Names, Shape, Coords], right: tuple[Names, Shape, Coords], out: Shape) -> Coords:
    """`left @ right`'s coordinates: the batch axes broadcast, the rows the left's, the columns the
    right's."""
    (names_a, shape_a, coords_a), (names_b, shape_b, coords_b) = left, right
    if not shape_a or not shape_b:
        return none(len(out))
    rows = coords_a[-2:-1]
    columns = coords_b[-1:] if len(shape_b) > 1 else ()
    batch_shape = out[: len(out) - len(rows) - len(columns)]
    batch = broadcast(
        [(names_a[:-2], shape_a[:-2], coords_a[:-2]), (names_b[:-2], shape_b[:-2], coords_b[:-2])],
        batch_shape,
    )
    found = (*batch, *rows, *columns)
    return found if len(found) == len(out) else none(len(out))


# -- labels as text -------------------------------------------------------------------------------------

_DATE_UNITS = ("D", "m", "s", "ms", "us", "ns")
"""The units dates are printed in, the coarsest that shows every label of a coordinate exactly."""


def labels_text(coord: Coord) -> list[str]:
    """Each label of a coordinate as printed: numbers in their shortest form, dates in the coarsest
    unit that shows all of them exactly (a day when all are midnight), strings as they are; each cut
    like a long name (`shown_name`).

    >>> labels_text(np.array(["2024-01-02T00", "2024-01-03T00"], dtype="datetime64[h]"))
    ['2024-01-02', '2024-01-03']
    >>> labels_text(np.array(["2024-01-02T06", "2024-01-02T18"], dtype="datetime64[h]"))
    ['2024-01-02T06:00', '2024-01-02T18:00']
    >>> labels_text(np.array([850.0, 500.5])), labels_text(np.array(["rome"]))
    (['850', '500.5'], ['rome'])
    """
    kind = coord.dtype.kind
    if kind == "M":
        texts = [str(text) for text in np.datetime_as_string(coord, unit=cast(Any, _date_unit(coord)))]
    elif kind == "f":
        texts = [_float_text(float(value)) for value in coord.tolist()]
    else:
        texts = [str(value) for value in coord.tolist()]
    return [shown_name(text) for text in texts]


def _date_unit(coord: Coord) -> str:
    """The coarsest of `_DATE_UNITS` in which every (not NaT) label of `coord` is exact."""
    valid = coord[~np.isnat(coord)]
    for unit in _DATE_UNITS:
        if np.datetime_data(coord.dtype)[0] == unit or np.all(valid.astype(f"M8[{unit}]") == valid):
            return unit
    return np.datetime_data(coord.dtype)[0]


def _float_text(value: float) -> str:
    if not np.isfinite(value):
        return str(value)
    return np.format_float_positional(value, trim="-") if abs(value) < 1e16 else repr(value)


def label_text(coord: Coord, position: int) -> str:
    """The label at `position` of `coord` as printed (dates in the unit that fits the whole coordinate)."""
    if coord.dtype.kind == "M":
        return (
            labels_text(coord)[position]
            if len(coord) <= 10_000
            else labels_text(coord[position : position + 1])[0]
        )
    return labels_text(coord[position : position + 1])[0]


# -- selection by label ---------------------------------------------------------------------------------

METHODS = (None, "nearest")
"""The `method` values `sel` takes: exact labels, or the nearest label (on a sorted coordinate)."""


def index_for(coord: Coord | None, name: str, label: Any, method: str | None) -> Any:
    """The position key that selects `label` (a label, a list of labels, or an inclusive slice of
    labels) on the axis `name` labelled by `coord`, as xarray's `sel` reads it: an int for one
    label, a list of ints for a list, a slice for a slice; a missing label is a one-line KeyError
    naming the axis, the label and the nearest labels.

    >>> coord = np.array(["rome", "oslo", "lima"])
    >>> index_for(coord, "station", "oslo", None), index_for(coord, "station", ["lima", "rome"], None)
    (1, [2, 0])
    >>> index_for(np.array([10, 20, 30]), "level", slice(15, 30), None)
    slice(1, 3, None)
    >>> index_for(np.array([10, 20, 30]), "level", 24, "nearest")
    1
    """
    if coord is None:
        raise KeyError(
            f"sel: axis {shown_name(name)!r} has no coordinate: give it one with assign_coords, or use isel"
        )
    if method not in METHODS:
        raise ValueError(f"sel: method must be None or 'nearest', got {method!r}")
    if isinstance(label, slice):
        if method is not None:
            raise ValueError(
                f"sel: axis {shown_name(name)!r}: method={method!r} does not apply to a slice of labels"
            )
        return _slice_for(coord, name, label)
    if isinstance(label, list | tuple | np.ndarray) and np.ndim(label) == 1:
        return [_one_for(coord, name, item, method, scalar_only=True) for item in label]
    return _one_for(coord, name, label, method, scalar_only=False)


def _label_value(coord: Coord, label: Any) -> Any:
    """`label` as a value comparable with `coord`'s labels (a date string as datetime64)."""
    if coord.dtype.kind == "M" and not isinstance(label, np.datetime64):
        try:
            return np.datetime64(label)
        except (TypeError, ValueError):
            return label
    if coord.dtype.kind == "m" and not isinstance(label, np.timedelta64):
        try:
            return np.timedelta64(label)
        except (TypeError, ValueError):
            return label
    return label


def _period(coord: Coord, label: Any) -> tuple[Any, Any] | None:
    """The half-open span of time a date string names when it is coarser than the coordinate's
    labels ("2024-01-02" on hourly labels: that whole day), as pandas' partial string indexing;
    None for an exact label."""
    if coord.dtype.kind != "M" or not isinstance(label, str):
        return None
    try:
        start = np.datetime64(label)
    except ValueError:
        return None
    label_unit = np.datetime_data(start.dtype)[0]
    order = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]
    coord_unit = _date_unit(coord) if len(coord) else np.datetime_data(coord.dtype)[0]
    if (
        coord_unit not in order
        or label_unit not in order
        or order.index(label_unit) >= order.index(coord_unit)
    ):
        return None
    return start, start + np.timedelta64(1, cast(Any, label_unit))


def _one_for(coord: Coord, name: str, label: Any, method: str | None, scalar_only: bool) -> Any:
    period = None if method is not None else _period(coord, label)
    if period is not None and not scalar_only:
        inside = np.flatnonzero((coord >= period[0]) & (coord < period[1]))
        if len(inside):
            return (
                slice(int(inside[0]), int(inside[-1]) + 1)
                if np.all(np.diff(inside) == 1)
                else inside.tolist()
            )
    value = _label_value(coord, label)
    if method == "nearest":
        return _nearest(coord, name, value)
    try:
        matches = np.flatnonzero(coord == value)
    except (TypeError, ValueError):
        matches = np.array([], dtype=np.intp)
    if len(matches) == 1 or (len(matches) > 1 and scalar_only):
        return int(matches[0])
    if len(matches) > 1:
        return matches.tolist()
    raise KeyError(_missing(coord, name, label))


def _missing(coord: Coord, name: str, label: Any) -> str:
    """The one line of a missing label: the axis, the label, and the labels nearest it."""
    near = _nearest_labels(coord, _label_value(coord, label))
    text = f"sel: axis {shown_name(name)!r} has no label {shown_name(repr(label))}"
    return text + (
        f"; the nearest are {', '.join(near)}" if near else f" (its {len(coord)} labels: none near)"
    )


def _nearest_labels(coord: Coord, value: Any, count: int = 3) -> list[str]:
    """Up to `count` labels of `coord` nearest `value`: by distance for numbers and dates, by sort
    order for strings (the ones it would sit between)."""
    if not len(coord):
        return []
    try:
        if coord.dtype.kind in "biufmM":
            distance = np.abs((coord - np.asarray(value, dtype=coord.dtype)).astype(float))
            order = np.argsort(distance, kind="stable")[:count]
        else:
            ranks = np.argsort(coord, kind="stable")
            at = int(np.searchsorted(coord[ranks], str(value)))
            order = ranks[max(0, at - count // 2 - 1) : at + count // 2 + 1][:count]
    except (TypeError, ValueError):
        order = np.arange(min(count, len(coord)))
    texts = labels_text(coord)
    return [repr(texts[k]) if coord.dtype.kind == "U" else texts[k] for k in order]


def _monotonic(coord: Coord) -> int:
    """1 when the labels increase (or stay), -1 when they decrease, 0 otherwise."""
    if len(coord) < 2:
        return 1
    try:
        if np.all(coord[1:] >= coord[:-1]):
            return 1
        if np.all(coord[1:] <= coord[:-1]):
            return -1
    except TypeError:
        pass
    return 0


def _nearest(coord: Coord, name: str, value: Any) -> int:
    """The position of the label nearest `value` (pandas' rule: a tie goes to the larger label)."""
    direction = _monotonic(coord)
    if direction == 0 or coord.dtype.kind not in "biufmM":
        raise ValueError(
            f"sel: axis {shown_name(name)!r}: method='nearest' needs a sorted coordinate of numbers or dates"
        )
    ordered = coord if direction == 1 else coord[::-1]
    target = np.asarray(value, dtype=coord.dtype) if coord.dtype.kind in "mM" else value
    right = int(np.searchsorted(ordered, target, side="left"))
    left = right - 1 if right == len(ordered) or ordered[right] != target else right
    if left == right or left < 0:
        chosen = right
    elif right >= len(ordered):
        chosen = left
    else:
        to_left = abs(float((target - ordered[left]) / _one(coord)))
        to_right = abs(float((ordered[right] - target) / _one(coord)))
        chosen = left if to_left < to_right else right
    return chosen if direction == 1 else len(coord) - 1 - chosen


def _one(coord: Coord) -> Any:
    """The unit distances are measured in: 1, or one tick of the coordinate's time unit."""
    if coord.dtype.kind in "mM":
        return np.timedelta64(1, cast(Any, np.datetime_data(coord.dtype)[0]))
    return 1


def _slice_for(coord: Coord, name: str, key: slice) -> slice:
    """The positions of an inclusive slice of labels on a sorted coordinate (either direction), as
    pandas slices an index; on an unsorted one both ends must be labels."""
    direction = _monotonic(coord)
    step = key.step
    if direction == 0:
        start = None if key.start is None else _one_for(coord, name, key.start, None, scalar_only=True)
        stop = None if key.stop is None else _one_for(coord, name, key.stop, None, scalar_only=True) + 1
        return slice(start, stop, step)
    ordered = coord if direction == 1 else coord[::-1]
    low, high = (key.start, key.stop) if direction == 1 else (key.stop, key.start)
    start = 0 if low is None else _bound(ordered, low, lower=True)
    stop = len(coord) if high is None else _bound(ordered, high, lower=False)
    if direction == -1:  # positions in the decreasing coordinate
        start, stop = len(coord) - stop, len(coord) - start
    return slice(start, max(start, stop), step)


def _bound(ordered: Coord, label: Any, lower: bool) -> int:
    """Where an inclusive bound falls in increasing labels: before the first label >= a lower bound,
    after the last label <= an upper one (a coarse date string: its whole span)."""
    period = _period(ordered, label)
    if period is not None:
        return int(np.searchsorted(ordered, period[0] if lower else period[1], side="left"))
    value = _label_value(ordered, label)
    if ordered.dtype.kind in "mM":
        value = np.asarray(value, dtype=ordered.dtype)
    return int(np.searchsorted(ordered, value, side="left" if lower else "right"))


# -- coordinates held by a stack -----------------------------------------------------------------------


def own_coords(t: Any) -> Coords:
    """The coordinates of one layer, those below it already derived (`once.stacked` walks the stack
    from the bottom up): a view's by its rule (`coords_of`), a base nobody labelled none."""
    below = getattr(t, "wrapped", None)
    if below is None or not t.base.coords_used:
        return none(len(t.shape))
    found: Coords = t.coords_of(below.axis_coords)
    return found


def label_base(base: Any, coords: Coords | None) -> None:
    """Give a new base (already named) its coordinates, for constructors, loaders and operations,
    before the base is handed out."""
    if coords is None or not has_any(coords):
        return
    type(base).axis_coords.prime(base, tuple(coords))
    mark_labelled(base)


def mark_labelled(base: Any) -> None:
    """Flag `base` as one that something over it labels: from then on views and operations over it
    derive and check coordinates (a base's flag is False until then, a class attribute)."""
    object.__setattr__(base, "coords_used", True)  # a flag on a frozen class, set as attrs does

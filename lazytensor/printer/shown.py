"""Which part of a tensor one print shows: the `dims` slice, the items of each axis, and reading them.

A big tensor is summarised with `edgeitems` per axis, and only the shown values are
read: the printer builds a view of exactly those (`t.oindex[...]`) and evaluates
that view alone. Tensors are met through the protocol only (shape, `t[...]`,
`oindex`, `numel`, `numpy`).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import numpy as np

from lazytensor.ground.coords import Coords
from lazytensor.ground.positions import normalize_index, numel
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.axisnames import (
    COLUMNS,
    ROWS,
    AxisNames,
    coords_of,
    entry,
    grid_entry,
    kept_names,
    labelled_entry,
    names_of,
    span_text,
)
from lazytensor.printer.numberformat import Values
from lazytensor.printer.options import PrintOptions

DimsSpec = Sequence[int | None] | None
"""The seeds' per-axis slice spec of a print: None keeps an axis, an int fixes it; None keeps them all."""


@attrs.frozen
class ShownAxis:
    """One axis of the shown tensor: `head` indices from its start and `tail` from its end.

    >>> ShownAxis(axis=0, size=10, head=2, tail=2).indices
    [0, 1, 8, 9]
    """

    axis: int
    size: int
    head: int
    tail: int

    @property
    def indices(self) -> list[int]:
        """The indices shown, in order."""
        return [*range(self.head), *range(self.size - self.tail, self.size)]

    @property
    def omitted(self) -> int:
        return self.size - self.head - self.tail


def edge_count(options: PrintOptions) -> int:
    """Items shown at each end of a summarised axis: the options' `edgeitems`, and at least 1.

    >>> edge_count(PrintOptions(edgeitems=2)), edge_count(PrintOptions(edgeitems=0))
    (2, 1)
    """
    return max(options.edgeitems, 1)


def _shown_axis(axis: int, size: int, summarise: bool, edge: int) -> ShownAxis:
    if summarise and size > 2 * edge:
        return ShownAxis(axis, size, edge, edge)
    return ShownAxis(axis, size, size, 0)


@attrs.frozen
class Selection:
    """The tensor, the fixed indices of `dims`, the view they leave, what of it is shown, and the
    tensor's axis names (None when no axis is named) and coordinates (None when no axis has one)."""

    tensor: Tensor
    fixed: tuple[int | None, ...]
    sub: Tensor
    axes: tuple[ShownAxis, ...]
    names: AxisNames | None = None
    coords: Coords | None = None

    @property
    def labels(self) -> Coords:
        """The coordinate of each axis of the tensor (None where it has none)."""
        return (None,) * len(self.fixed) if self.coords is None else self.coords

    @property
    def sub_coords(self) -> Coords:
        """The coordinates of the shown view's axes: the tensor's, less those of the fixed axes."""
        return tuple(coord for coord, index in zip(self.labels, self.fixed, strict=True) if index is None)

    @property
    def summarised(self) -> bool:
        return any(axis.omitted for axis in self.axes)

    @property
    def is_slice(self) -> bool:
        return any(index is not None for index in self.fixed)

    @property
    def sub_names(self) -> AxisNames | None:
        """The names of the shown view's axes: the tensor's, less those of the fixed axes."""
        return kept_names(self.names, self.fixed)

    def label(self, outer: Sequence[int]) -> str:
        """The index of one 2-D slice in the original tensor, outer positions given as shown positions.

        Fixed axes show their index, the outer shown axes the index at `outer`, the rest `:`. With
        names, a named axis reads `name=index`, and the two axes the slice shows `name↓` (its rows)
        and `name→` (its columns): `[trial=1, channel=0, time↓, freq→]`.
        """
        return "[" + ", ".join(self.label_entries(outer)) + "]"

    def label_entries(self, outer: Sequence[int], spans: bool = False) -> list[str]:
        """The entries of `label(outer)`, one per axis of the original tensor; with `spans`, the axes
        of the rows and columns followed by their first and last labels (`time↓ 2024-01-01…2024-01-04`)."""
        if self.names is not None:
            return self._named_entries(outer, self.names, spans)
        entries = [str(index) if index is not None else ":" for index in self.fixed]
        for axis, shown_position in zip(self.axes, outer, strict=False):
            entries[axis.axis] = str(axis.indices[shown_position])
        return entries

    def _named_entries(self, outer: Sequence[int], names: AxisNames, spans: bool) -> list[str]:
        labels = self.labels
        entries = self.slice_entries(names)
        for axis, shown_position in zip(self.axes, outer, strict=False):
            at = axis.axis
            entries[at] = labelled_entry(names[at], labels[at], axis.indices[shown_position])
        if len(self.axes) >= 2:  # the rows and the columns of the 2-D slice, with their first and last labels
            for grid_axis, arrow in ((self.axes[-2].axis, ROWS), (self.axes[-1].axis, COLUMNS)):
                coord = labels[grid_axis]
                span = "" if coord is None or names[grid_axis] is None or not spans else span_text(coord)
                entries[grid_axis] = grid_entry(names[grid_axis], arrow) + (f" {span}" if span else "")
        return entries

    def slice_text(self) -> str:
        """Which slice of the tensor `dims` asked for: `[1, :, :]`, or `[trial=1, time=:, :]` with names."""
        if self.names is None:
            return self.label(())
        return "[" + ", ".join(self.slice_entries(self.names)) + "]"

    def slice_entries(self, names: AxisNames) -> list[str]:
        """The entries of the named `slice_text`: `trial=1` for a fixed axis (`station=rome` when it
        has a coordinate), `time=:` for a kept one."""
        return [
            entry(name, ":") if index is None else labelled_entry(name, coord, index)
            for name, index, coord in zip(names, self.fixed, self.labels, strict=True)
        ]


def resolve_dims(t: Tensor, dims: DimsSpec) -> tuple[int | None, ...]:
    """The seeds' per-axis spec, checked: None keeps an axis, an int fixes it (negatives from the end).

    >>> import lazytensor as lt
    >>> resolve_dims(lt.zeros(4, 2, 3), (-1, None))
    (3, None, None)
    """
    if dims is None:
        return (None,) * len(t.shape)
    entries = tuple(dims)
    if len(entries) > len(t.shape):
        raise IndexError(f"dims {entries} has {len(entries)} entries for a tensor of shape {t.shape}")
    resolved: list[int | None] = []
    for axis, size in enumerate(t.shape):
        entry = entries[axis] if axis < len(entries) else None
        if entry is None:
            resolved.append(None)
        elif isinstance(entry, int | np.integer) and not isinstance(entry, bool):
            resolved.append(normalize_index(int(entry), size, axis))
        else:
            raise TypeError(f"dims entries must be None or an int, got {entry!r} for axis {axis}")
    return tuple(resolved)


def fixed_slice(t: Tensor, fixed: tuple[int | None, ...]) -> Tensor:
    """The view `fixed` leaves of `t` (`t` itself when nothing is fixed).

    >>> import lazytensor as lt
    >>> fixed_slice(lt.zeros(4, 2, 3), (3, None, None)).shape
    (2, 3)
    """
    if all(index is None for index in fixed):
        return t
    key = tuple(slice(None) if index is None else index for index in fixed)
    sliced: Tensor = t[(*key, Ellipsis)]
    return sliced


def select_shown(t: Tensor, dims: DimsSpec, options: PrintOptions) -> Selection:
    """Which part of `t` a print shows: the `dims` slice, summarised when it is over `threshold`.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.options import PrintOptions
    >>> [axis.indices for axis in select_shown(lt.zeros(9, 2), None, PrintOptions(threshold=4)).axes]
    [[0, 1, 2, 6, 7, 8], [0, 1]]
    """
    fixed = resolve_dims(t, dims)
    sub = fixed_slice(t, fixed)
    free_axes = [axis for axis, index in enumerate(fixed) if index is None]
    summarise = sub.numel() > options.threshold
    edge = edge_count(options)
    axes = tuple(
        _shown_axis(axis, size, summarise, edge) for axis, size in zip(free_axes, sub.shape, strict=True)
    )
    names = names_of(t)
    return Selection(t, fixed, sub, axes, names, None if names is None else coords_of(t))


def read_shown(selection: Selection) -> Values:
    """The shown values: the whole view when it is not summarised, else a view of the edge items only."""
    sub = selection.sub
    if not selection.summarised:
        return np.asarray(sub.numpy())
    key = tuple(
        slice(None) if axis.omitted == 0 else np.array(axis.indices, dtype=np.intp) for axis in selection.axes
    )
    if numel(sub.base.shape) > MAX_FLAT_INDEX:  # flat positions would pass int64: read the corners
        return _read_corners(sub, selection)
    return np.asarray(sub.oindex[key].numpy())


MAX_FLAT_INDEX = int(np.iinfo(np.intp).max)


def _read_corners(sub: Tensor, selection: Selection) -> Values:
    """The shown values as basic slices, one per corner of the summary (each axis: its head and
    its tail), for a base with more elements than int64 can number (a fill-only zarr array)."""
    per_axis = [
        [slice(None)] if axis.omitted == 0 else [slice(0, axis.head), slice(axis.size - axis.tail, axis.size)]
        for axis in selection.axes
    ]
    blocks = np.empty(tuple(len(parts) for parts in per_axis), dtype=object)
    for picks in np.ndindex(*blocks.shape):
        blocks[picks] = np.asarray(
            sub[tuple(parts[i] for parts, i in zip(per_axis, picks, strict=True))].numpy()
        )
    return np.block(blocks.tolist()) if blocks.ndim else blocks[()]


def with_edge_rows(
    selection: Selection, shown: Values, options: PrintOptions
) -> tuple[Selection, Values] | None:
    """The selection with the rows of its 2-D slices cut to the options' `edgeitems` at each end, and
    the shown values that remain (nothing read again); None when those rows are already cut or too few.

    >>> import lazytensor as lt
    >>> t = lt.arange(20).reshape(10, 2)
    >>> selection = select_shown(t, None, PrintOptions())
    >>> cut, values = with_edge_rows(selection, read_shown(selection), PrintOptions(edgeitems=2))
    >>> cut.axes[0].indices, values[:, 0].tolist()
    ([0, 1, 8, 9], [0, 2, 16, 18])
    """
    if len(selection.axes) < 2:
        return None
    rows = selection.axes[-2]
    edge = edge_count(options)
    if rows.omitted or rows.size <= 2 * edge:
        return None
    positions = np.r_[0:edge, rows.size - edge : rows.size]
    axes = (*selection.axes[:-2], ShownAxis(rows.axis, rows.size, edge, edge), selection.axes[-1])
    return attrs.evolve(selection, axes=axes), np.take(shown, positions, axis=-2)

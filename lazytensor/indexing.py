"""Turning an index key into a stack of view wrappers.

Three forms of key, one parser:

- `t[key]`: numpy's rules. Ints, slices, `...` and `None` make a `SlicedTensor`
  (after a `ReshapedTensor` that inserts the new axes); lists, int arrays and
  boolean masks add an `IndexedTensor` on top, with numpy's placement of the
  broadcast block. Unlike numpy, the result is a view even then: writes go through.
- `t.oindex[key]`: outer indexing, every list on its own axis: one `SlicedTensor`.
- `t.slice(specs)`: the seeds' per-axis specs, where an int keeps a size-1 axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor import evaluate
from lazytensor.layout import IndexArray
from lazytensor.positions import is_plain_position, normalize_index
from lazytensor.tensor import AbstractTensor
from lazytensor.views import IndexedTensor, Range, ReshapedTensor, SlicedTensor, Spec

_VALID = "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays are valid indices"


@attrs.frozen
class _Mask:
    """A boolean mask in a key, before it is turned into index arrays."""

    array: npt.NDArray[np.bool_]


def _classify(item: Any) -> Any:
    """One key item as int, slice, None, Ellipsis, an intp array or a `_Mask`."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    if isinstance(item, bool | np.bool_):
        return _Mask(np.asarray(item))
    if isinstance(item, int | np.integer):
        return int(item)
    array = item.numpy() if isinstance(item, AbstractTensor) else np.asarray(item)
    if array.dtype == np.bool_:
        return _Mask(array)
    if array.dtype.kind in "iu":
        return int(array) if array.ndim == 0 else array.astype(np.intp)
    if array.size == 0 and array.dtype.kind == "f":  # numpy accepts `t[[]]`
        return array.astype(np.intp)
    raise IndexError(f"{_VALID}; got {item!r}")


def _consumed(entry: Any) -> int:
    """How many axes of the tensor one key entry indexes."""
    if entry is None or entry is Ellipsis:
        return 0
    if isinstance(entry, _Mask):
        return entry.array.ndim
    return 1


def _normalize_array(array: IndexArray, axis: int, size: int) -> IndexArray:
    """Negative indices counted from the end; IndexError naming the first bad value."""
    if array.size:
        low, high = int(array.min()), int(array.max())
        if low < -size or high >= size:
            bad = low if low < -size else high
            raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {size}")
    return np.where(array < 0, array + size, array) if array.size and low < 0 else array


@attrs.frozen
class ParsedKey:
    """A key resolved against a shape: new axes to insert, then one spec per axis."""

    new_axes: tuple[int, ...]
    specs: tuple[Spec, ...]
    is_element: bool


def parse(key: Any, shape: Sequence[int]) -> ParsedKey:
    """Resolve `...`, `None`, masks and negative indices of a numpy key against `shape`.

    The specs are for the tensor with the new axes inserted (at `new_axes`): an int,
    a `Range`, or an index array (a mask becomes one array per axis it covers).
    """
    items = key if isinstance(key, tuple) else (key,)
    entries = [_classify(item) for item in items]
    if sum(entry is Ellipsis for entry in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    indexed = sum(_consumed(entry) for entry in entries)
    if indexed > len(shape):
        raise IndexError(
            f"too many indices for tensor: tensor is {len(shape)}-dimensional, but {indexed} were indexed"
        )
    has_ellipsis = any(entry is Ellipsis for entry in entries)
    is_element = not has_ellipsis and indexed == len(shape)
    is_element = is_element and all(isinstance(entry, int) for entry in entries)
    if not has_ellipsis:
        entries.append(Ellipsis)
    at = next(i for i, entry in enumerate(entries) if entry is Ellipsis)
    entries[at : at + 1] = [slice(None)] * (len(shape) - indexed)
    return _resolve(entries, shape, is_element)


def _resolve(entries: list[Any], shape: Sequence[int], is_element: bool) -> ParsedKey:
    new_axes: list[int] = []
    specs: list[Spec] = []
    axis = 0  # axis of the original tensor
    for entry in entries:
        if entry is None:
            new_axes.append(len(specs))
            specs.append(Range.full(1))
        elif isinstance(entry, _Mask) and entry.array.ndim == 0:  # numpy: a new axis, masked
            new_axes.append(len(specs))
            specs.append(np.flatnonzero(entry.array.reshape(1)))
        elif isinstance(entry, _Mask):
            specs.extend(_mask_indices(entry.array, shape, axis))
            axis += entry.array.ndim
        elif isinstance(entry, int):
            specs.append(normalize_index(entry, shape[axis], axis))
            axis += 1
        elif isinstance(entry, slice):
            specs.append(Range.from_slice(entry, shape[axis]))
            axis += 1
        else:
            specs.append(_normalize_array(entry, axis, shape[axis]))
            axis += 1
    return ParsedKey(tuple(new_axes), tuple(specs), is_element)


def _mask_indices(mask: npt.NDArray[np.bool_], shape: Sequence[int], axis: int) -> list[IndexArray]:
    for k, size in enumerate(mask.shape):
        if size != shape[axis + k]:
            raise IndexError(
                f"boolean index did not match indexed tensor along axis {axis + k}; size of axis "
                f"is {shape[axis + k]} but size of corresponding boolean axis is {size}"
            )
    return [indices.astype(np.intp) for indices in np.nonzero(mask)]


def _with_new_axes(t: AbstractTensor, new_axes: tuple[int, ...]) -> AbstractTensor:
    if not new_axes:
        return t
    shape = list(t.shape)
    for axis in new_axes:
        shape.insert(axis, 1)
    return ReshapedTensor(t, tuple(shape))


def _is_full(spec: Spec, size: int) -> bool:
    return isinstance(spec, Range) and spec.is_full(size)


def index_view(t: AbstractTensor, key: Any) -> AbstractTensor:
    """The view `t[key]` by numpy's rules (a 0-d view for an all-int key)."""
    return _numpy_view(t, parse(key, t.shape))


def _numpy_view(t: AbstractTensor, parsed: ParsedKey) -> AbstractTensor:
    base = _with_new_axes(t, parsed.new_axes)
    specs = parsed.specs
    if not any(isinstance(spec, np.ndarray) for spec in specs):
        if base is not t and all(_is_full(s, n) for s, n in zip(specs, base.shape, strict=True)):
            return base
        return SlicedTensor(base, specs)
    ranges = tuple(
        spec if isinstance(spec, Range) else Range.full(n) for spec, n in zip(specs, base.shape, strict=True)
    )
    if not all(_is_full(r, n) for r, n in zip(ranges, base.shape, strict=True)):
        base = SlicedTensor(base, ranges)
    # beside index arrays, numpy treats ints as 0-d index arrays
    arrays = tuple(None if isinstance(spec, Range) else np.asarray(spec) for spec in specs)
    return IndexedTensor(base, arrays)


def getitem(t: AbstractTensor, key: Any) -> Any:
    """`t[key]`: the element for an all-int key, else a view."""
    if type(key) is tuple and is_plain_position(key, t.shape):
        return t.storage[evaluate.locate(t, key)]
    parsed = parse(key, t.shape)
    if parsed.is_element:
        return _element(t, parsed)
    return _numpy_view(t, parsed)


def outer_view(t: AbstractTensor, key: Any) -> AbstractTensor:
    """`t.oindex[key]`: each 1-D list or mask selects along its own axis."""
    for item in key if isinstance(key, tuple) else (key,):
        entry = _classify(item)
        array = entry.array if isinstance(entry, _Mask) else entry
        if isinstance(array, np.ndarray) and array.ndim != 1:
            raise IndexError(f"oindex takes 1-D index lists or masks, got shape {array.shape}")
    parsed = parse(key, t.shape)
    return SlicedTensor(_with_new_axes(t, parsed.new_axes), parsed.specs)


def _element(t: AbstractTensor, parsed: ParsedKey) -> Any:
    position = tuple(int(spec) for spec in parsed.specs)  # type: ignore[arg-type]
    return t.storage[t.locate(position)]


@attrs.frozen
class OuterIndexer:
    """`t.oindex`: outer (orthogonal) indexing, reading and writing."""

    tensor: AbstractTensor

    def __getitem__(self, key: Any) -> Any:
        parsed = parse(key, self.tensor.shape)
        if parsed.is_element:
            return _element(self.tensor, parsed)
        return outer_view(self.tensor, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        evaluate.write(outer_view(self.tensor, key), value)


def seed_slice(t: AbstractTensor, specs: Sequence[Any]) -> SlicedTensor:
    """The seeds' per-axis specs: None = all, int = that index as a size-1 axis, list, slice."""
    if len(specs) > t.ndim:
        raise IndexError(f"{len(specs)} slice specs for a tensor of shape {t.shape}")
    resolved: list[Spec] = []
    for axis, size in enumerate(t.shape):
        spec = specs[axis] if axis < len(specs) else None
        if spec is None:
            resolved.append(Range.full(size))
        elif isinstance(spec, slice):
            resolved.append(Range.from_slice(spec, size))
        elif isinstance(spec, int | np.integer):
            resolved.append(Range(normalize_index(int(spec), size, axis), 1, 1))
        else:
            indices = np.asarray(spec)
            if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
                raise IndexError(f"slice spec for axis {axis} must be a list of ints, got {spec!r}")
            resolved.append(_normalize_array(indices.astype(np.intp), axis, size))
    return SlicedTensor(t, tuple(resolved))

"""Index keys resolved against a shape: numpy's rules, outer indexing and the seeds' per-axis specs.

Nothing here knows about tensors. A key becomes one *spec* per axis: an int
(that index, the axis dropped), a `Range` (a normalised slice), or an intp
index array (non-negative, in range). `views` turns specs into wrappers.

- `parse(key, shape)`: numpy's rules. Ints, slices, `...`, `None`, lists, int
  arrays and boolean masks (a mask becomes one index array per axis it covers).
- `parse_outer(key, shape)`: the same key read as outer indexing (`t.oindex`).
- `parse_axis_specs(specs, shape)`: the seeds' per-axis specs, where an int
  keeps a size-1 axis.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.ground.find_nonzero import nonzero
from lazytensor.ground.layout import IndexArray
from lazytensor.ground.positions import normalize_index

_VALID = "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays are valid indices"


@attrs.frozen
class Range:
    """The indices `start, start + step, ...`, `count` of them: a normalised slice.

    >>> Range.from_slice(slice(None, None, -2), 5), str(Range(1, 2, 3))
    (Range(start=4, step=-2, count=3), '1:7:2')
    """

    start: int = attrs.field(converter=int)
    step: int = attrs.field(converter=int)
    count: int = attrs.field(converter=int)

    @count.validator
    def _check(self, _attribute: object, count: int) -> None:
        if count < 0 or self.step == 0:
            raise ValueError(f"a range needs count >= 0 and a non-zero step, got {self}")

    @classmethod
    def from_slice(cls, key: slice, size: int) -> Range:
        start, stop, step = key.indices(size)
        count = len(range(start, stop, step))
        return cls.derived(start if count else 0, step, count)

    @classmethod
    def full(cls, size: int) -> Range:
        return cls.derived(0, 1, size)

    @classmethod
    def derived(cls, start: int, step: int, count: int) -> Range:
        """A range from values valid by construction (ints, step ≠ 0, count ≥ 0): no checks. A range
        is immutable, so the ones met recently are shared (setting a frozen class's three fields
        costs more than finding them)."""
        key = (start, step, count)
        made = _RANGES.get(key)
        if made is not None:
            return made
        made = object.__new__(cls)
        object.__setattr__(made, "start", start)
        object.__setattr__(made, "step", step)
        object.__setattr__(made, "count", count)
        if len(_RANGES) >= _RANGES_KEPT:
            _RANGES.clear()  # a bound, not a policy: a loop over fresh slices refills what it needs
        _RANGES[key] = made
        return made

    def is_full(self, size: int) -> bool:
        return self.start == 0 and self.step == 1 and self.count == size

    def last(self) -> int:
        return self.start + (self.count - 1) * self.step

    def fits(self, size: int) -> bool:
        """Whether every index of the range lies in `[0, size)`."""
        return self.count == 0 or (0 <= self.start < size and 0 <= self.last() < size)

    def as_slice(self) -> slice:
        """The same indices as a Python slice (on an axis where they are valid)."""
        stop = self.start + self.count * self.step
        return slice(self.start, None if stop < 0 else stop, self.step)

    def __str__(self) -> str:
        stop = self.start + self.count * self.step
        stop_text = "" if stop < 0 else str(stop)
        step_text = "" if self.step == 1 else f":{self.step}"
        return f"{self.start}:{stop_text}{step_text}"


Spec = int | Range | IndexArray

_RANGES: dict[tuple[int, int, int], Range] = {}
_RANGES_KEPT = 4096
"""How many ranges `Range.derived` keeps for sharing, at most."""


def normalize_indices(
    array: IndexArray, axis: int, size: int, negatives: bool = True, axis_word: str = "axis"
) -> IndexArray:
    """Integer indices along an axis of `size`, negatives counted from the end (when allowed);
    IndexError naming the first bad value. The one place index arrays are checked.

    >>> normalize_indices(np.array([0, -1]), axis=0, size=3).tolist()
    [0, 2]
    """
    if array.size == 0:
        return array
    if array.size <= 64:  # Python's min and max beat two numpy reductions on a short list
        listed = array.reshape(-1).tolist()
        low, high = min(listed), max(listed)
    else:
        low, high = int(array.min()), int(array.max())
    lowest = -size if negatives else 0
    if low < lowest or high >= size:
        bad = low if low < lowest else high
        raise IndexError(f"index {bad} is out of bounds for {axis_word} {axis} with size {size}")
    return np.where(array < 0, array + size, array) if low < 0 else array


def read_only_window(private: IndexArray) -> IndexArray:
    """A read-only view of an index array nobody else holds, for a view or an edge list to keep.

    It stays a window on that writeable buffer because numpy's `take` and fancy indexing copy
    every read-only index before using it: `usable` hands them the buffer instead.

    >>> kept = read_only_window(np.array([2, 0]))
    >>> kept.flags.writeable, usable(kept).flags.writeable, np.shares_memory(kept, usable(kept))
    (False, True, True)
    """
    window = private.view()
    window.setflags(write=False)
    return window


def usable(indices: IndexArray) -> IndexArray:
    """The writeable buffer under a `read_only_window`, which numpy indexes with no copy; any other
    array as it is (a read-only slice such as `a[::-1]` is not its base).

    >>> a = np.array([0, 1, 2])
    >>> reversed_window = a[::-1]
    >>> reversed_window.setflags(write=False)
    >>> usable(reversed_window).tolist()
    [2, 1, 0]
    """
    private = indices.base
    if not (
        isinstance(private, np.ndarray)
        and private.flags.writeable
        and private.dtype == indices.dtype
        and private.shape == indices.shape
        and private.strides == indices.strides
    ):
        return indices
    flags = private.flags
    if flags.owndata and flags.c_contiguous:  # it spans its memory: a same-shaped view inside starts
        return private  # where it starts (cheaper to ask than a data pointer)
    return private if private.ctypes.data == indices.ctypes.data else indices


@attrs.frozen
class _Mask:
    """A boolean mask in a key, before it is turned into index arrays."""

    array: npt.NDArray[np.bool_]


def _classify(item: Any) -> Any:
    """One key item as int, slice, None, Ellipsis, an intp array or a `_Mask` (tensors via `__array__`)."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    if isinstance(item, bool | np.bool_):
        return _Mask(np.asarray(item))
    if isinstance(item, int | np.integer):
        return int(item)
    if not isinstance(item, np.ndarray):  # numpy: any other object with `__index__` is an integer
        try:
            return operator.index(item)
        except TypeError:
            pass
    array = np.asarray(item)
    if array.dtype == np.bool_:
        return _Mask(array)
    if array.dtype.kind in "iu":
        return int(array) if array.ndim == 0 else array.astype(np.intp)
    if array.size == 0 and array.dtype.kind == "f" and isinstance(item, list | tuple):  # `t[[]]`
        return array.astype(np.intp)
    if array.ndim > 0:
        raise IndexError(f"arrays used as indices must be of integer (or boolean) type, got {array.dtype}")
    raise IndexError(f"{_VALID}; got {item!r}")


def _consumed(entry: Any) -> int:
    """How many axes of the tensor one key entry indexes."""
    if entry is None or entry is Ellipsis:
        return 0
    if isinstance(entry, _Mask):
        return entry.array.ndim
    return 1


@attrs.frozen
class ParsedKey:
    """A key resolved against a shape: new axes to insert, then one spec per axis."""

    new_axes: tuple[int, ...]
    specs: tuple[Spec, ...]
    is_element: bool
    separated: bool = False
    """Whether a slice, `...` or None stands between two advanced entries of the key (even an
    `...` of no axes): numpy then puts the broadcast block first."""

    def element_position(self) -> tuple[int, ...]:
        """The position an all-int key names."""
        return tuple(operator.index(spec) for spec in self.specs)  # type: ignore[arg-type]


def parse(key: Any, shape: Sequence[int]) -> ParsedKey:
    """Resolve `...`, `None`, masks and negative indices of a numpy key against `shape`.

    The specs are for the tensor with the new axes inserted (at `new_axes`); a mask
    becomes one index array per axis it covers.

    >>> parse((None, -1, slice(1, None)), (2, 3)).specs
    (Range(start=0, step=1, count=1), 1, Range(start=1, step=1, count=2))
    """
    items = key if isinstance(key, tuple) else (key,)
    if len(items) <= len(shape) and all(type(item) is slice or type(item) is int for item in items):
        return _basic(items, shape)
    entries = [_classify(item) for item in items]
    if sum(entry is Ellipsis for entry in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    indexed = sum(_consumed(entry) for entry in entries)
    if indexed > len(shape):
        raise IndexError(
            f"too many indices for tensor: tensor is {len(shape)}-dimensional, but {indexed} were indexed"
        )
    separated = _advanced_separated(entries)
    has_ellipsis = any(entry is Ellipsis for entry in entries)
    is_element = not has_ellipsis and indexed == len(shape)
    is_element = is_element and all(isinstance(entry, int) for entry in entries)
    if not has_ellipsis:
        entries.append(Ellipsis)
    at = next(i for i, entry in enumerate(entries) if entry is Ellipsis)
    entries[at : at + 1] = [slice(None)] * (len(shape) - indexed)
    return _resolve(entries, shape, is_element, separated)


_SLICE_RANGES: dict[tuple[int, int, int], Range] = {}
"""The shared range of each `slice.indices` result `basic_specs` has met, at most `_RANGES_KEPT`."""


def _slice_range(bounds: tuple[int, int, int]) -> Range:
    """The range of a slice's resolved `(start, stop, step)`, kept in `_SLICE_RANGES` for the next key.

    >>> _slice_range(slice(None, None, 2).indices(10))
    Range(start=0, step=2, count=5)
    """
    start, stop, step = bounds
    count = len(range(start, stop, step))
    made = Range.derived(start if count else 0, step, count)
    if len(_SLICE_RANGES) >= _RANGES_KEPT:
        _SLICE_RANGES.clear()  # a bound, as `_RANGES`'s
    _SLICE_RANGES[bounds] = made
    return made


def basic_specs(key: Any, shape: Sequence[int], elements: bool = False) -> tuple[Spec, ...] | None:
    """The specs of the commonest view key, Python ints and slices, at most one per axis and not an
    int for every axis (that names an element) unless `elements`, straight from the key; None for any
    other key (which `parse` reads, giving the same specs and the same errors).

    >>> basic_specs((slice(1, 5), slice(None, None, 2)), (10, 10))
    (Range(start=1, step=1, count=4), Range(start=0, step=2, count=5))
    >>> basic_specs((3, 4), (10, 10)), basic_specs([1, 2], (10, 10)), basic_specs((3, -1), (10, 10), True)
    (None, None, (3, 9))
    """
    items = key if type(key) is tuple else (key,)
    if len(items) > len(shape):
        return None
    specs: list[Spec] = []
    whole = True  # no slice yet: an all-int key for every axis is an element, not a view
    for axis, item in enumerate(items):
        kind = type(item)
        if kind is slice:
            try:
                bounds = item.indices(shape[axis])
            except TypeError:  # `parse` checks the other items first, as numpy (`a[0.0:, 0.0]`: IndexError)
                return None
            shared = _SLICE_RANGES.get(bounds)  # a hot path: numpy's bounds straight to the shared range
            if shared is None:
                shared = _slice_range(bounds)
            specs.append(shared)
            whole = False
        elif kind is int:
            specs.append(normalize_index(item, shape[axis], axis))
        else:
            return None
    if whole and len(items) == len(shape) and not elements:
        return None
    for size in shape[len(items) :]:
        specs.append(Range.derived(0, 1, size))
    return tuple(specs)


def lone_list(key: Any, shape: Sequence[int]) -> IndexArray | None:
    """The indices of a key that is one list of Python ints along the first axis (`t[[1, 2, 3]]`), as
    a new intp array with negatives counted from the end; None for any other key (which `parse`
    reads, giving the same indices and the same errors).

    >>> lone_list([1, -1], (4, 2)).tolist(), lone_list([True, False], (2,)), lone_list([], (3,))
    ([1, 3], None, None)
    """
    if type(key) is not list or not shape:
        return None
    array = np.array(key)
    if array.dtype != np.intp or array.ndim != 1:  # bools (a mask), floats, nested lists, [] ...
        return None
    return normalize_indices(array, 0, shape[0])


def _basic(items: tuple[Any, ...], shape: Sequence[int]) -> ParsedKey:
    """The commonest key: Python ints and slices, at most one per axis (the rest taken whole)."""
    specs: list[Spec] = [
        Range.from_slice(item, size) if type(item) is slice else normalize_index(item, size, axis)
        for axis, (item, size) in enumerate(zip(items, shape, strict=False))
    ]
    specs.extend(Range.full(size) for size in shape[len(items) :])
    is_element = len(items) == len(shape) and all(type(item) is int for item in items)
    return ParsedKey((), tuple(specs), is_element)


def _advanced_separated(entries: Sequence[Any]) -> bool:
    """numpy's rule for where the broadcast block goes: the advanced entries (arrays, masks, and ints
    when an array is present) are apart when anything else of the key stands between them."""
    if not any(isinstance(entry, np.ndarray | _Mask) for entry in entries):
        return False
    advanced = [i for i, entry in enumerate(entries) if isinstance(entry, np.ndarray | _Mask | int)]
    return advanced[-1] - advanced[0] + 1 != len(advanced)


def _resolve(entries: list[Any], shape: Sequence[int], is_element: bool, separated: bool) -> ParsedKey:
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
            specs.append(normalize_indices(entry, axis, shape[axis]))
            axis += 1
    return ParsedKey(tuple(new_axes), tuple(specs), is_element, separated)


def _mask_indices(mask: npt.NDArray[np.bool_], shape: Sequence[int], axis: int) -> list[IndexArray]:
    for k, size in enumerate(mask.shape):
        if size != shape[axis + k] and size != 0:  # numpy: a mask axis of size 0 selects nothing from any
            raise IndexError(
                f"boolean index did not match indexed tensor along axis {axis + k}; size of axis "
                f"is {shape[axis + k]} but size of corresponding boolean axis is {size}"
            )
    return list(nonzero(mask))  # in blocks: a broadcast mask repeats its elements cheaply


def parse_outer(key: Any, shape: Sequence[int]) -> ParsedKey:
    """A key for `t.oindex`: every list or mask must be 1-D, and selects along its own axis.

    >>> parse_outer(([0, 2], 1), (3, 4)).specs[0].tolist()
    [0, 2]
    """
    for item in key if isinstance(key, tuple) else (key,):
        entry = _classify(item)
        array = entry.array if isinstance(entry, _Mask) else entry
        if isinstance(array, np.ndarray) and array.ndim != 1:
            raise IndexError(f"oindex takes 1-D index lists or masks, got shape {array.shape}")
    return parse(key, shape)


def parse_axis_specs(specs: Sequence[Any], shape: Sequence[int]) -> tuple[Spec, ...]:
    """The seeds' per-axis specs: None = all, int = that index kept as a size-1 axis, list, slice.

    >>> parse_axis_specs([1, None], (3, 2))
    (Range(start=1, step=1, count=1), Range(start=0, step=1, count=2))
    """
    if len(specs) > len(shape):
        raise IndexError(f"{len(specs)} slice specs for a tensor of shape {tuple(shape)}")
    resolved: list[Spec] = []
    for axis, size in enumerate(shape):
        spec = specs[axis] if axis < len(specs) else None
        if spec is None:
            resolved.append(Range.full(size))
        elif isinstance(spec, slice):
            resolved.append(Range.from_slice(spec, size))
        elif isinstance(spec, int | np.integer) or hasattr(type(spec), "__index__"):
            resolved.append(Range(normalize_index(operator.index(spec), size, axis), 1, 1))
        else:
            indices = np.asarray(spec)
            if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
                raise IndexError(f"slice spec for axis {axis} must be a list of ints, got {spec!r}")
            resolved.append(normalize_indices(indices.astype(np.intp), axis, size))
    return tuple(resolved)

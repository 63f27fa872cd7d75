"""The functions that make views: each turns user arguments (axes, shapes, keys) into validated
wrappers (`permute`, `reshape`, `squeeze`, `expand`, `split`, `getitem`, `setitem`, `outer_view`,
...). `AbstractTensor`'s methods call them through the `_views` primitive."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

import lazytensor.tensors.evaluate as evaluate
from lazytensor.ground import indexing
from lazytensor.ground.buffers import check_fits
from lazytensor.ground.coords import Coords
from lazytensor.ground.indexing import Range, Spec
from lazytensor.ground.layout import IndexArray
from lazytensor.ground.naming import Names
from lazytensor.ground.positions import (
    Shape,
    infer_shape,
    normalize_dim,
    normalize_dims,
    numel,
)
from lazytensor.tensors.tensor import AbstractTensor
from lazytensor.tensors.views.expanded import ExpandedTensor
from lazytensor.tensors.views.indexed import IndexedTensor, check_broadcast
from lazytensor.tensors.views.labelled import LabelledTensor
from lazytensor.tensors.views.renamed import RenamedTensor
from lazytensor.tensors.views.reshaped import ReshapedTensor
from lazytensor.tensors.views.sliced import SlicedTensor
from lazytensor.tensors.views.transposed import TransposedTensor
from lazytensor.tensors.views.view import View


def rename(t: AbstractTensor, names: Names) -> RenamedTensor:
    """`t` under the (checked) `names`."""
    return RenamedTensor.trusted(t, names)


def assign_coords(t: AbstractTensor, labels: Coords) -> LabelledTensor:
    """`t` with the (checked) coordinates `labels`, one per axis."""
    return LabelledTensor.trusted(t, tuple(labels))


def _exactly_named(view: ReshapedTensor, sources: Sequence[int | None]) -> AbstractTensor:
    """`view`, a reshape that adds or drops size-1 axes, named and labelled as the axes of the tensor
    below it that `sources` gives (None: a new axis): the reshape rule cannot tell which of two
    neighbouring size-1 axes came or went, so there a rename (and new coordinates) say it."""
    below = view.wrapped
    names = tuple(None if axis is None else below.names[axis] for axis in sources)
    if 1 not in view.shape or 1 not in below.shape or view.names == names:
        return view
    renamed = RenamedTensor.trusted(view, names)
    labels = tuple(None if axis is None else below.axis_coords[axis] for axis in sources)
    if not any(label is not None for label in labels):
        return renamed
    return LabelledTensor.trusted(renamed, labels)


# -- making views from user arguments ---------------------------------------------------------


def permute(t: AbstractTensor, axes: Sequence[int]) -> TransposedTensor:
    if len(axes) != t.ndim:
        raise ValueError(f"axes {tuple(axes)} don't match tensor of shape {t.shape}")
    normalized = tuple(normalize_dim(axis, t.ndim) for axis in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"repeated axis in permutation {tuple(axes)} of shape {t.shape}")
    return TransposedTensor.trusted(t, normalized)


_REVERSED: dict[int, Shape] = {}
"""Every axis reversed, per number of axes: `t.T` is common enough to make the tuple once."""


def reverse_axes(t: AbstractTensor) -> TransposedTensor:
    """`t.T`: every axis reversed."""
    ndim = len(t.shape)
    axes = _REVERSED.get(ndim)
    if axes is None:
        axes = _REVERSED[ndim] = tuple(range(ndim - 1, -1, -1))
    return TransposedTensor.trusted(t, axes)


def swapaxes(t: AbstractTensor, dim0: int, dim1: int) -> TransposedTensor:
    order = list(range(t.ndim))
    a, b = normalize_dim(dim0, t.ndim), normalize_dim(dim1, t.ndim)
    order[a], order[b] = order[b], order[a]
    return TransposedTensor.trusted(t, tuple(order))


def reshape(t: AbstractTensor, shape: Sequence[int]) -> ReshapedTensor:
    below = t.shape
    return ReshapedTensor.trusted(t, infer_shape(shape, math.prod(below), below))  # `numel`, inline


def squeeze(t: AbstractTensor, dim: int | Sequence[int] | None) -> AbstractTensor:
    if dim is None:
        dims = tuple(axis for axis, size in enumerate(t.shape) if size == 1)
    else:
        dims = normalize_dims(dim, t.ndim)
    for axis in dims:
        if t.shape[axis] != 1:
            raise ValueError(
                f"cannot squeeze axis {axis} of size {t.shape[axis]} in a tensor of shape "
                f"{t.shape}: only size-1 axes can be squeezed"
            )
    squeezed = ReshapedTensor(t, tuple(size for axis, size in enumerate(t.shape) if axis not in dims))
    if not t.base.names_used:  # first: free for a tensor over a base nobody named
        return squeezed
    return _exactly_named(squeezed, [axis for axis in range(t.ndim) if axis not in dims])


def unsqueeze(t: AbstractTensor, dim: int) -> AbstractTensor:
    axis = normalize_dim(dim, t.ndim + 1)
    unsqueezed = ReshapedTensor(t, (*t.shape[:axis], 1, *t.shape[axis:]))
    if not t.base.names_used:
        return unsqueezed
    return _exactly_named(unsqueezed, [*range(axis), None, *range(axis, t.ndim)])


def flatten(t: AbstractTensor, start_dim: int, end_dim: int) -> ReshapedTensor:
    if t.ndim == 0:
        return ReshapedTensor(t, (1,))
    start, end = normalize_dim(start_dim, t.ndim), normalize_dim(end_dim, t.ndim)
    if start > end:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    merged = numel(t.shape[start : end + 1])
    return ReshapedTensor(t, (*t.shape[:start], merged, *t.shape[end + 1 :]))


def expand(t: AbstractTensor, shape: Sequence[int]) -> ExpandedTensor:
    lead = len(shape) - t.ndim
    if lead < 0:
        raise ValueError(f"cannot expand tensor of shape {t.shape} to {tuple(shape)}: fewer axes")
    resolved = list(shape)
    for axis, size in enumerate(shape):
        if size != -1:
            continue
        if axis < lead:
            raise ValueError(f"cannot expand to {tuple(shape)}: -1 in new leading axis {axis}")
        resolved[axis] = t.shape[axis - lead]
    return ExpandedTensor(t, tuple(resolved))


def narrow(t: AbstractTensor, dim: int, start: int, length: int) -> SlicedTensor:
    """The indices `start .. start + length` along `dim`, every other axis whole."""
    specs: list[Spec] = [Range.full(size) for size in t.shape]
    specs[dim] = Range(start if length else 0, 1, length)
    return SlicedTensor(t, tuple(specs))


def index_along(t: AbstractTensor, dim: int, index: int) -> SlicedTensor:
    """Index `index` along `dim`, that axis dropped."""
    specs: list[Spec] = [Range.full(size) for size in t.shape]
    specs[dim] = index
    return SlicedTensor(t, tuple(specs))


VIEW_BYTES = 1024
"""What one small view object costs in memory, about: a tuple of more views than fit is refused."""


def split(t: AbstractTensor, size: int | Sequence[int], dim: int) -> tuple[SlicedTensor, ...]:
    axis = normalize_dim(dim, t.ndim)
    total = t.shape[axis]
    if isinstance(size, int | np.integer):
        size = int(size)
        if size <= 0:
            raise ValueError(f"split size must be positive, got {size}")
        pieces = -(-total // size)
        check_fits(
            pieces, VIEW_BYTES, lambda: f"split({size}) of shape {t.shape}: a tuple of {pieces:,} views"
        )
        sizes = [min(size, total - start) for start in range(0, total, size)] or [0]
    else:
        try:
            sizes = [operator.index(s) for s in size]
        except TypeError:
            raise TypeError(f"split takes an int size or a sequence of int sizes, got {size!r}") from None
        if sum(sizes) != total or any(s < 0 for s in sizes):
            raise ValueError(
                f"split sizes {sizes} do not add up to size {total} of axis {axis} of shape {t.shape}"
            )
    starts = np.cumsum([0, *sizes[:-1]])
    return tuple(narrow(t, axis, int(start), n) for start, n in zip(starts, sizes, strict=True))


def chunk(t: AbstractTensor, chunks: int, dim: int) -> tuple[SlicedTensor, ...]:
    if not isinstance(chunks, int | np.integer):
        raise TypeError(f"chunk takes an int number of chunks, got {chunks!r} ({type(chunks).__name__})")
    if chunks <= 0:
        raise ValueError(f"chunk needs a positive number of chunks, got {chunks}")
    total = t.shape[normalize_dim(dim, t.ndim)]
    return split(t, max(math.ceil(total / chunks), 1), dim)


def unbind(t: AbstractTensor, dim: int) -> tuple[SlicedTensor, ...]:
    axis = normalize_dim(dim, t.ndim)
    count = t.shape[axis]
    check_fits(count, VIEW_BYTES, lambda: f"unbind({dim}) of shape {t.shape}: a tuple of {count:,} views")
    return tuple(index_along(t, axis, i) for i in range(count))


# -- indexing keys ----------------------------------------------------------------------------


def _with_new_axes(t: AbstractTensor, new_axes: tuple[int, ...]) -> AbstractTensor:
    if not new_axes:
        return t
    shape = list(t.shape)
    for axis in new_axes:
        shape.insert(axis, 1)
    reshaped = ReshapedTensor.trusted(t, tuple(shape))
    if not t.base.names_used:
        return reshaped
    return _exactly_named(reshaped, _inserted(tuple(range(t.ndim)), new_axes))


def _inserted(names: Sequence[Any], new_axes: tuple[int, ...]) -> tuple[Any, ...]:
    """`names` (or axes) with None at each new axis, inserted in order as `_with_new_axes` inserts sizes."""
    result = list(names)
    for axis in new_axes:
        result.insert(axis, None)
    return tuple(result)


def _is_full(spec: Spec, size: int) -> bool:
    return isinstance(spec, Range) and spec.is_full(size)


def _numpy_view(t: AbstractTensor, parsed: indexing.ParsedKey) -> AbstractTensor:
    """The wrappers for a parsed numpy key: new axes, then a SlicedTensor for the basic part, then an
    IndexedTensor for the index arrays (ints beside them act as 0-d arrays, as in numpy)."""
    base = _with_new_axes(t, parsed.new_axes)
    specs = parsed.specs
    if not any(isinstance(spec, np.ndarray) for spec in specs):
        if base is not t and all(_is_full(s, n) for s, n in zip(specs, base.shape, strict=True)):
            return base
        return SlicedTensor.trusted(base, specs)
    ranges = tuple(
        spec if isinstance(spec, Range) else Range.full(n) for spec, n in zip(specs, base.shape, strict=True)
    )
    if not all(_is_full(r, n) for r, n in zip(ranges, base.shape, strict=True)):
        base = SlicedTensor(base, ranges)
    arrays = tuple(_adopted(spec) for spec in specs)
    check_broadcast([array for array in arrays if array is not None])
    return IndexedTensor.trusted(base, arrays, parsed.separated)


def _adopted(spec: Spec) -> IndexArray | None:
    """A parsed key's entry as the view keeps it: None for a range, an int as a 0-d array (as numpy
    treats ints beside arrays), an index array frozen in place. Parsing made that array and checked
    its bounds, so it needs neither another copy nor another check."""
    if isinstance(spec, Range):
        return None
    return indexing.read_only_window(np.array(spec, dtype=np.intp) if isinstance(spec, int) else spec)


def _common_view(t: AbstractTensor, key: Any, elements: bool = False) -> AbstractTensor | None:
    """The view of the commonest keys (ints and slices, an element's ints too when `elements`; one list
    of ints) made straight from the key, or None for any other key. The same wrappers `_numpy_view`
    makes from the parsed key."""
    shape = t.shape
    specs = indexing.basic_specs(key, shape, elements)
    if specs is not None:
        return SlicedTensor.trusted(t, specs)
    indices = indexing.lone_list(key, shape)
    if indices is not None:
        return IndexedTensor.trusted(
            t, (indexing.read_only_window(indices), *[None] * (len(shape) - 1)), False
        )
    return None


def index_view(t: AbstractTensor, key: Any) -> AbstractTensor:
    """The view `t[key]` by numpy's rules (a 0-d view for an all-int key)."""
    common = _common_view(t, key, elements=True)
    return _numpy_view(t, indexing.parse(key, t.shape)) if common is None else common


def setitem(t: AbstractTensor, key: Any, value: Any) -> None:
    """`t[key] = value`. An all-int key names one element, which takes `value` as it is: in an
    object tensor an array (or list) is stored as one element, as numpy does."""
    parsed = indexing.parse(key, t.shape)
    if parsed.is_element and t.dtype.hasobject:
        evaluate.write_one(t, parsed.element_position(), value)
        return
    evaluate.write(_numpy_view(t, parsed), value)


def getitem(t: AbstractTensor, key: Any) -> Any:
    """`t[key]`: the element for an all-int key, else a view."""
    common = _common_view(t, key)
    if common is not None:
        return common
    parsed = indexing.parse(key, t.shape)
    if parsed.is_element:
        return t.base.read_one(evaluate.locate(t, parsed.element_position()))
    return _numpy_view(t, parsed)


def _outer(t: AbstractTensor, specs: tuple[Spec, ...]) -> AbstractTensor:
    """Per-axis specs, each list selecting along its own axis. One list among ranges and ints is a
    lone list whatever door made it: the ints and ranges as a SlicedTensor (none when they keep
    everything), then the list as the IndexedTensor `t[src]` makes, with its fast gather and
    backward. Several lists select outer, in one SlicedTensor.

    >>> import lazytensor as lt
    >>> t = lt.arange(12).reshape(3, 4)
    >>> [type(layer).__name__ for layer in t.oindex[[2, 0], :].layers]
    ['IndexedTensor', 'ReshapedTensor', 'StorageTensor']
    >>> [type(layer).__name__ for layer in t.oindex[[2, 0], 1:].layers]
    ['IndexedTensor', 'SlicedTensor', 'ReshapedTensor', 'StorageTensor']
    """
    lists = [axis for axis, spec in enumerate(specs) if isinstance(spec, np.ndarray)]
    if len(lists) != 1:
        return SlicedTensor(t, specs)
    axis = lists[0]
    basic = tuple(Range.full(t.shape[k]) if k == axis else spec for k, spec in enumerate(specs))
    below = t
    if not all(_is_full(spec, size) for spec, size in zip(basic, t.shape, strict=True)):
        below = SlicedTensor.trusted(t, basic)
    indices: list[IndexArray | None] = [None] * below.ndim
    indices[axis - sum(isinstance(spec, int) for spec in specs[:axis])] = _adopted(specs[axis])
    return IndexedTensor.trusted(below, tuple(indices), False)


def outer_view(t: AbstractTensor, key: Any) -> AbstractTensor:
    """`t.oindex[key]`: each 1-D list or mask selects along its own axis."""
    parsed = indexing.parse_outer(key, t.shape)
    return _outer(_with_new_axes(t, parsed.new_axes), parsed.specs)


def axis_specs_view(t: AbstractTensor, specs: Sequence[Any]) -> SlicedTensor:
    """`t.slice(specs)`: the seeds' per-axis specs (an int keeps its axis, with size 1), as the seeds
    made them: one SlicedTensor, whose `translate` is the seeds' map to the full position."""
    return SlicedTensor(t, indexing.parse_axis_specs(specs, t.shape))


@attrs.frozen
class OuterIndexer:
    """`t.oindex`: outer (orthogonal) indexing, reading and writing."""

    tensor: AbstractTensor

    def __getitem__(self, key: Any) -> Any:
        parsed = indexing.parse_outer(key, self.tensor.shape)
        if parsed.is_element:
            return self.tensor.base.read_one(evaluate.locate(self.tensor, parsed.element_position()))
        return _outer(_with_new_axes(self.tensor, parsed.new_axes), parsed.specs)

    def __setitem__(self, key: Any, value: Any) -> None:
        evaluate.write(outer_view(self.tensor, key), value)


def restack(t: AbstractTensor, old: AbstractTensor, new: AbstractTensor) -> AbstractTensor:
    """`t`'s stack with layer `old` (and what is below it) replaced by `new`, rebuilt bottom-up."""
    above: list[View] = []
    layer = t
    while layer is not old:
        if not isinstance(layer, View):
            raise ValueError(f"{old.layer_name} of shape {old.shape} is not a layer of this stack")
        above.append(layer)
        layer = layer.wrapped
    rebuilt = new
    for view in reversed(above):
        rebuilt = view.with_wrapped(rebuilt)
    return rebuilt


def flip(t: AbstractTensor, dim: int | Sequence[int] | None) -> AbstractTensor:
    """`t` with the order reversed along the axes `dim` (None: all): a SlicedTensor of negative steps."""
    axes = range(t.ndim) if dim is None else normalize_dims(dim, t.ndim)
    if not axes:
        return t
    specs = tuple(
        Range.from_slice(slice(None, None, -1), size) if axis in axes else Range.full(size)
        for axis, size in enumerate(t.shape)
    )
    return SlicedTensor.trusted(t, specs)

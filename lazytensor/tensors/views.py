"""The view wrappers: each one holds the tensor below it and never copies.

Every wrapper implements the `Wrapper` protocol of `lazytensor.ground.protocol`; it answers
three questions, in the same order:

- `shape`: what is my shape?
- `translate_batch(index_arrays)`: where do these positions go one layer down, as numpy
  arrays? (the one map; `View.translate(pos)`, for one position, is derived from it)
- `layout`: can my whole stack be one strided map onto storage? (`Layout` or None, by one
  method of `Layout`: `permute`, `select`, `gather`, `expand`, `try_reshape`)

and says what differs per kind of wrapper: its numpy equivalent, its parameters
(`describe`), whether a write can go through it (`read_only_reason`). Base, shape
and layout are derived on first use and kept (`once.stacked`): making a view costs
only its fields, and the first read of a deep stack derives upward in a loop, so a
stack of any depth is built, read and written without recursion.

The functions at the end (`permute`, `reshape`, `getitem`, ...) turn user
arguments into validated wrappers; `AbstractTensor`'s methods call them.
"""

from __future__ import annotations

import abc
import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple, Self, cast

import attrs
import numpy as np

from lazytensor.engine import autograd
from lazytensor.ground import indexing, naming
from lazytensor.ground.buffers import check_fits
from lazytensor.ground.indexing import Range, Spec
from lazytensor.ground.layout import IndexArray, Layout, progression
from lazytensor.ground.naming import Names
from lazytensor.ground.once import once, stacked
from lazytensor.ground.positions import (
    Shape,
    infer_shape,
    int_tuple,
    normalize_dim,
    normalize_dims,
    numel,
    row_major_strides,
)
from lazytensor.kernels import scatter
from lazytensor.tensors import evaluate
from lazytensor.tensors.tensor import AbstractTensor, BaseTensor, Buffer

IndexArrays = tuple[IndexArray, ...]


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The attribute names of a wrapper class's fields, `wrapped` first (a dict lookup after the first
    call per class: `functools.cache` costs more than the rest of making a view)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(field.name for field in attrs.fields(cls))
    return names


_ZERO: IndexArray = np.zeros((), dtype=np.intp)


@attrs.frozen(eq=False, repr=False, slots=False)
class View(AbstractTensor):
    """What every wrapper shares: the tensor one layer down, and the storage tensor at the bottom."""

    wrapped: AbstractTensor = attrs.field(
        validator=attrs.validators.instance_of(AbstractTensor)  # type: ignore[type-abstract]
    )

    @abc.abstractmethod
    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        """Where positions go one layer down: one index array per axis, broadcast together, in; one
        per axis below out. The one map a kind of wrapper defines (`translate` follows from it)."""

    def translate(self, pos: Shape) -> Shape:
        """The position one layer down of the (valid, non-negative) position `pos`: `translate_batch`
        of that one position, its Python ints standing for 0-d index arrays (numpy's arithmetic and
        indexing treat them alike, and they cost less to make and to compute with)."""
        below = self.translate_batch(cast("IndexArrays", pos))
        return tuple([int(index) for index in below])

    @abc.abstractmethod
    def numpy_equivalent(self, below: Buffer) -> Buffer:
        """What numpy computes for this one layer, applied to the evaluated tensor below it."""

    @abc.abstractmethod
    def names_of(self, names_below: Names) -> Names:
        """The names of this view's axes, given the names of the axes of the tensor below it."""

    @stacked
    def base(self) -> BaseTensor:
        return self.wrapped.base

    @property
    def layers(self) -> tuple[AbstractTensor, ...]:
        found: list[AbstractTensor] = [self]
        layer: AbstractTensor = self
        while isinstance(layer, View):
            layer = layer.wrapped
            found.append(layer)
        return tuple(found)

    @classmethod
    def trusted(cls, wrapped: AbstractTensor, *params: Any) -> Self:
        """A wrapper whose parameters are valid by construction (a factory below checked the user's
        arguments, or they come from a valid wrapper): no converters, no validators, just the fields,
        one parameter for each, in order (defaults too)."""
        view = object.__new__(cls)
        names = _FIELD_NAMES.get(cls) or _field_names(cls)  # `_field_names` read inline: a hot path
        fields = view.__dict__  # filled key by key: `fields.update(zip(...))` costs twice as much
        fields[names[0]] = wrapped
        if len(params) == 1:  # most wrappers have one parameter: no loop
            fields[names[1]] = params[0]
        else:
            for index, param in enumerate(params, 1):
                fields[names[index]] = param
        return view

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the tensor at the bottom plus each layer's class and parameters, gathered by a
        loop (pickle's own recursion fails on a stack of thousands of layers) and without any
        cached values: unpickling rebuilds the layers over the one unpickled base."""
        layers: list[tuple[type[View], tuple[Any, ...]]] = []
        layer: AbstractTensor = self
        while isinstance(layer, View):
            names = _field_names(type(layer))[1:]
            layers.append((type(layer), tuple(getattr(layer, name) for name in names)))
            layer = layer.wrapped
        layers.reverse()
        return (_unpickle_stack, (layer, tuple(layers)))

    def with_wrapped(self, wrapped: AbstractTensor) -> View:
        """The same wrapper over another tensor of the same shape."""
        params = (getattr(self, name) for name in _field_names(type(self))[1:])
        return self.trusted(wrapped, *params)

    def grad_parents(self) -> tuple[AbstractTensor, ...]:
        return (self.wrapped,) if self.wrapped.requires_grad else ()

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        return [(self.wrapped, autograd.view_backward(self, grad))]


def _unpickle_stack(
    bottom: AbstractTensor, layers: Sequence[tuple[type[View], tuple[Any, ...]]]
) -> AbstractTensor:
    """The stack `View.__reduce__` took apart: each layer, bottom first, over the one below (a loop).

    >>> import pickle
    >>> import lazytensor as lt
    >>> t = lt.arange(6).reshape(2, 3).T[1:]
    >>> pickle.loads(pickle.dumps(t)).tolist()
    [[1, 4], [2, 5]]
    """
    tensor = bottom
    for cls, params in layers:
        tensor = cls.trusted(tensor, *params)
    return tensor


# -- TransposedTensor -------------------------------------------------------------------------


@attrs.frozen(eq=False, repr=False, slots=False)
class TransposedTensor(View):
    """The axes reordered: axis `i` of this view is axis `axes[i]` of the wrapped tensor.

    >>> import lazytensor as lt
    >>> t = TransposedTensor(lt.arange(6).reshape(2, 3), (1, 0))
    >>> t.shape, t.translate((2, 1)), t.layout.strides
    ((3, 2), (1, 2), (1, 3))
    """

    axes: Shape = attrs.field(converter=int_tuple)

    @axes.validator
    def _check_axes(self, _attribute: object, axes: Shape) -> None:
        if sorted(axes) != list(range(self.wrapped.ndim)):
            raise ValueError(
                f"axes {axes} are not a permutation of the {self.wrapped.ndim} axes "
                f"of a tensor of shape {self.wrapped.shape}"
            )

    @stacked
    def shape(self) -> Shape:
        below = self.wrapped.shape
        return tuple([below[axis] for axis in self.axes])

    @once
    def _inverse(self) -> Shape:
        inverse = [0] * len(self.axes)
        for i, axis in enumerate(self.axes):
            inverse[axis] = i
        return tuple(inverse)

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        return tuple(index_arrays[i] for i in self._inverse)

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """The gradient below is this one with the axes put back: one transpose, no scatter."""
        return [(self.wrapped, np.transpose(grad, self._inverse))]

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return below.transpose(self.axes)

    def view_of(self, below: Buffer) -> Buffer:
        return below.transpose(self.axes)

    def describe(self) -> str:
        return f"axes {self.axes}"

    @stacked
    def layout(self) -> Layout | None:
        below = self.wrapped.layout
        return None if below is None else below.permute(self.axes)

    def names_of(self, names_below: Names) -> Names:
        return tuple([names_below[axis] for axis in self.axes])


# -- ReshapedTensor ---------------------------------------------------------------------------


@attrs.frozen(eq=False, repr=False, slots=False)
class ReshapedTensor(View):
    """The same elements in row-major order under another shape (squeeze and unsqueeze too).

    It fuses into a layout by numpy's no-copy rule; when it cannot (say, flattening a
    transposed matrix) positions still travel down by the flat row-major index.

    >>> import lazytensor as lt
    >>> t = ReshapedTensor(lt.arange(6), (2, 3))
    >>> t.translate((1, 0)), t.layout.strides
    ((3,), (3, 1))
    >>> ReshapedTensor(lt.arange(6).reshape(2, 3).T, (6,)).layout is None
    True
    """

    _shape: Shape = attrs.field(converter=int_tuple, alias="shape")

    @_shape.validator
    def _check_shape(self, _attribute: object, shape: Shape) -> None:
        if any(size < 0 for size in shape) or numel(shape) != self.wrapped.numel():
            raise ValueError(
                f"cannot reshape tensor of shape {self.wrapped.shape} into {shape}: "
                f"{self.wrapped.numel()} elements"
            )

    @property
    def shape(self) -> Shape:
        return self._shape

    @once
    def _unit_map(self) -> tuple[int | None, ...] | None:
        """When only size-1 axes come and go: for each axis below, the axis here (None for size 1)."""
        here = [axis for axis, size in enumerate(self._shape) if size != 1]
        below_sizes = [size for size in self.wrapped.shape if size != 1]
        if [self._shape[axis] for axis in here] != below_sizes:
            return None
        mapping: list[int | None] = []
        remaining = iter(here)
        for size in self.wrapped.shape:
            mapping.append(None if size == 1 else next(remaining))
        return tuple(mapping)

    @once
    def _flat_strides(self) -> Shape:
        return row_major_strides(self._shape)

    def translate(self, pos: Shape) -> Shape:
        """Kept beside `translate_batch` for speed: the flat index round trip in Python ints costs a
        third of numpy's `unravel_index` on one position (1 µs against 3 per layer)."""
        if self._unit_map is not None:
            return tuple(0 if axis is None else pos[axis] for axis in self._unit_map)
        flat = sum(p * s for p, s in zip(pos, self._flat_strides, strict=True))
        below: list[int] = []
        for size in reversed(self.wrapped.shape):
            flat, index = divmod(flat, size)
            below.append(index)
        return tuple(reversed(below))

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        if self._unit_map is not None:
            return tuple(_ZERO if axis is None else index_arrays[axis] for axis in self._unit_map)
        flat: IndexArray = _ZERO
        for indices, stride in zip(index_arrays, self._flat_strides, strict=True):
            flat = flat + indices * stride
        if not self.wrapped.shape:
            return ()
        return tuple(np.unravel_index(flat, self.wrapped.shape))

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """Row-major order is the same above and below: the gradient is reshaped back, no scatter."""
        return [(self.wrapped, np.reshape(grad, self.wrapped.shape))]

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return below.reshape(self._shape)

    def describe(self) -> str:
        return f"new shape {self._shape}"

    @stacked
    def layout(self) -> Layout | None:
        below = self.wrapped.layout
        return None if below is None else below.try_reshape(self._shape)

    def names_of(self, names_below: Names) -> Names:
        return naming.reshaped(names_below, self.wrapped.shape, self._shape)


# -- SlicedTensor -----------------------------------------------------------------------------


def _frozen_indices(values: Any) -> IndexArray:
    """A read-only intp copy of `values`, for a view to keep (see `indexing.read_only_window`)."""
    return indexing.read_only_window(np.array(values, dtype=np.intp))


def _freeze_spec(spec: Spec) -> Spec:
    if isinstance(spec, Range):
        return spec
    if isinstance(spec, int | np.integer):
        return int(spec)
    return _frozen_indices(spec)


def _freeze_specs(specs: Sequence[Spec]) -> tuple[Spec, ...]:
    return tuple(_freeze_spec(spec) for spec in specs)


def _indices_text(indices: IndexArray) -> str:
    return np.array2string(indices, separator=", ", threshold=8, edgeitems=3)


def _spec_text(spec: Spec) -> str:
    return str(spec) if isinstance(spec, Range | int) else _indices_text(spec)


def _out_of_bounds(index: int, axis: int, size: int) -> IndexError:
    return IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")


@attrs.frozen(eq=False, repr=False, slots=False)
class SlicedTensor(View):
    """A selection per axis, each independent of the others (outer indexing).

    One spec for every axis below: an int drops that axis at that index, a `Range`
    keeps a strided run of indices, and an index array keeps those indices in that
    order (repeats allowed). A progression such as `[1, 3, 5]` still fuses.

    >>> import lazytensor as lt
    >>> t = SlicedTensor(lt.arange(20).reshape(4, 5), (Range(1, 2, 2), np.array([4, 0])))
    >>> t.shape, t.translate((1, 0)), t.layout
    ((2, 2), (3, 4), Layout(shape=(2, 2), strides=(10, -4), offset=9))
    """

    specs: tuple[Spec, ...] = attrs.field(converter=_freeze_specs)

    @specs.validator
    def _check_specs(self, _attribute: object, specs: tuple[Spec, ...]) -> None:
        shape = self.wrapped.shape
        if len(specs) != len(shape):
            raise IndexError(f"{len(specs)} slice specs for a tensor of shape {shape} with {len(shape)} axes")
        for axis, (spec, size) in enumerate(zip(specs, shape, strict=True)):
            if isinstance(spec, int):
                if not 0 <= spec < size:
                    raise _out_of_bounds(spec, axis, size)
            elif isinstance(spec, Range):
                if not spec.fits(size):
                    raise IndexError(f"range {spec} does not fit axis {axis} with size {size}")
            elif spec.ndim != 1:
                raise IndexError(f"index list for axis {axis} must be 1-D, got shape {spec.shape}")
            else:
                indexing.normalize_indices(spec, axis, size, negatives=False)

    @stacked
    def shape(self) -> Shape:
        return tuple(
            [
                spec.count if isinstance(spec, Range) else len(spec)
                for spec in self.specs
                if not isinstance(spec, int)
            ]
        )

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        here = iter(index_arrays)
        below: list[IndexArray] = []
        for spec in self.specs:
            if isinstance(spec, int):
                below.append(np.asarray(spec, dtype=np.intp))
            elif isinstance(spec, Range):
                below.append(spec.start + next(here) * spec.step)
            else:
                below.append(spec[next(here)])
        return tuple(below)

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        """Ints and ranges as basic indexing, then `np.ix_` for the lists."""
        basic = [spec.as_slice() if isinstance(spec, Range) else spec for spec in self.specs]
        kept = below[tuple(slice(None) if isinstance(spec, np.ndarray) else spec for spec in basic)]
        per_axis = [spec for spec in basic if not isinstance(spec, int)]
        lists = [
            indexing.usable(spec) if isinstance(spec, np.ndarray) else np.arange(size)
            for spec, size in zip(per_axis, kept.shape, strict=True)
        ]
        selected: Buffer = kept[np.ix_(*lists)]
        return selected

    def view_of(self, below: Buffer) -> Buffer | None:
        if any(isinstance(spec, np.ndarray) for spec in self.specs):
            return None  # numpy would copy a list index: build the view from the layout
        # the trailing `...` keeps an all-int key a 0-d view: numpy would return a scalar, a copy
        key = (*(spec.as_slice() if isinstance(spec, Range) else spec for spec in self.specs), Ellipsis)
        view: Buffer = below[key]
        return view

    def describe(self) -> str:
        return "key [" + ", ".join(_spec_text(spec) for spec in self.specs) + "]"

    @stacked
    def layout(self) -> Layout | None:
        """The layout below, selected: ints, ranges and lists that are arithmetic progressions fuse."""
        below = self.wrapped.layout
        return None if below is None else below.select(self.specs)

    def names_of(self, names_below: Names) -> Names:
        """An int drops its axis' name; a range or an index list keeps it."""
        return tuple(
            [name for name, spec in zip(names_below, self.specs, strict=True) if not isinstance(spec, int)]
        )


# -- ExpandedTensor ---------------------------------------------------------------------------


@attrs.frozen(eq=False, repr=False, slots=False)
class ExpandedTensor(View):
    """Broadcast to a larger shape without copying: read-only, as every position of a
    stretched axis is the same element.

    >>> import lazytensor as lt
    >>> t = ExpandedTensor(lt.tensor([1, 2, 3]), (2, 3))
    >>> t.translate((1, 2)), t.layout.strides
    ((2,), (0, 1))
    """

    _shape: Shape = attrs.field(converter=int_tuple, alias="shape")

    @_shape.validator
    def _check_shape(self, _attribute: object, shape: Shape) -> None:
        below = self.wrapped.shape
        lead = len(shape) - len(below)
        if lead < 0 or any(size < 0 for size in shape):
            raise ValueError(f"cannot expand tensor of shape {below} to {shape}")
        for axis, (size, old) in enumerate(zip(shape[lead:], below, strict=True)):
            if old not in (1, size):
                raise ValueError(
                    f"cannot expand tensor of shape {below} to {shape}: axis {axis} has size "
                    f"{old}, which is neither 1 nor {size}"
                )

    @property
    def shape(self) -> Shape:
        return self._shape

    @once
    def _lead(self) -> int:
        return len(self._shape) - self.wrapped.ndim

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        below = self.wrapped.shape
        return tuple(
            _ZERO if old == 1 else indices
            for indices, old in zip(index_arrays[self._lead :], below, strict=True)
        )

    @stacked
    def layout(self) -> Layout | None:
        below = self.wrapped.layout
        return None if below is None else below.expand(self._shape)

    def names_of(self, names_below: Names) -> Names:
        """A new leading axis has no name; a stretched axis keeps its own."""
        return naming.unnamed(self._lead) + names_below

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return np.broadcast_to(below, self._shape)

    def view_of(self, below: Buffer) -> Buffer | None:
        """numpy's broadcast view, unless the shape holds more bytes than numpy can address."""
        layout = self.layout
        if layout is None or not evaluate.numpy_can_view(layout, below.itemsize):
            return None
        return np.broadcast_to(below, self._shape)

    def describe(self) -> str:
        return f"new shape {self._shape}"

    def _repeats_elements(self) -> bool:
        """Whether two positions of this view are one element: a new or stretched axis of size > 1."""
        if numel(self._shape) == 0:
            return False
        below = (1,) * self._lead + self.wrapped.shape
        return any(old == 1 and size > 1 for size, old in zip(self._shape, below, strict=True))

    @property
    def read_only_reason(self) -> str:
        """Always a reason: an expand is read-only, as numpy's `broadcast_to`, even one that repeats
        no element (the message then says so, and where to write instead)."""
        if self._repeats_elements():
            return (
                f"cannot write through an expanded view: shape {self._shape} is a broadcast of "
                f"{self.wrapped.shape}, so its positions share elements (use .clone() first)"
            )
        return (
            f"cannot write through an expanded view: shape {self._shape} repeats no element of "
            f"{self.wrapped.shape}, but expanded views are read-only, as numpy's broadcast_to "
            "(write to the tensor it expands, or use .clone() first)"
        )


# -- IndexedTensor ----------------------------------------------------------------------------


def _freeze_indices(indices: Sequence[Any]) -> tuple[IndexArray | None, ...]:
    return tuple(None if index is None else _frozen_indices(index) for index in indices)


def _check_broadcast(arrays: Sequence[IndexArray]) -> None:
    """IndexError, as numpy's, unless the index arrays broadcast together."""
    if len(arrays) < 2:  # one array broadcasts with itself
        return
    try:
        np.broadcast_shapes(*(array.shape for array in arrays))
    except ValueError:
        shapes = " ".join(str(array.shape) for array in arrays)
        raise IndexError(
            f"shape mismatch: indexing arrays could not be broadcast together with shapes {shapes}"
        ) from None


def _lone_list_of(indices: Sequence[IndexArray | None]) -> tuple[int, IndexArray] | None:
    """The axis and the array when `indices` hold one index array and it is 1-D, else None.

    >>> _lone_list_of((None, np.array([2, 0]))), _lone_list_of((np.array([[1]]), None))
    ((1, array([2, 0])), None)
    """
    found = None
    for axis, array in enumerate(indices):
        if array is not None:
            if found is not None:
                return None
            found = axis, array
    return found if found is not None and found[1].ndim == 1 else None


class Block(NamedTuple):
    """Where an `IndexedTensor`'s index arrays sit: the axes below they index, the arrays broadcast
    together (a lone one as it is), the block's shape, where the block goes in the view, and where
    numpy's plain indexing by the arrays would put it (differing only with `block_first`)."""

    axes: Shape
    arrays: tuple[IndexArray, ...]
    shape: Shape
    start: int
    adjacent_start: int


@attrs.frozen(eq=False, repr=False, slots=False)
class IndexedTensor(View):
    """numpy's advanced indexing as a view: index arrays on some axes, broadcast together.

    One entry per axis below: an index array, or None for an axis kept whole. The
    broadcast block of the arrays takes the place of the indexed axes when they are
    adjacent, and goes first otherwise, as in numpy. Writes go through; index
    arrays that are affine in the block position (`[1, 3, 5]`, `[[0, 1], [2, 3]]`)
    keep a strided layout.

    >>> import lazytensor as lt
    >>> t = IndexedTensor(lt.arange(12).reshape(3, 4), (np.array([2, 0]), None))
    >>> t.shape, t.translate((0, 3)), t.layout
    ((2, 4), (2, 3), Layout(shape=(2, 4), strides=(-8, 1), offset=8))
    """

    indices: tuple[IndexArray | None, ...] = attrs.field(converter=_freeze_indices)
    block_first: bool = attrs.field(default=False, converter=bool)
    """Put the block first even when the indexed axes are adjacent: numpy does so when the key had
    an `...` (of no axes) between its advanced indices, as in `a[:, [0, 1], ..., [1, 2]]`."""

    @indices.validator
    def _check_indices(self, _attribute: object, indices: tuple[IndexArray | None, ...]) -> None:
        shape = self.wrapped.shape
        if len(indices) != len(shape):
            raise IndexError(f"{len(indices)} index entries for a tensor of shape {shape}")
        arrays = [array for array in indices if array is not None]
        if not arrays:
            raise IndexError("an IndexedTensor needs at least one index array")
        _check_broadcast(arrays)
        for axis, (array, size) in enumerate(zip(indices, shape, strict=True)):
            if array is not None:
                indexing.normalize_indices(array, axis, size, negatives=False)

    def _gather_shape(self, axis: int, array: IndexArray) -> Shape:
        """The shape of one 1-D list on one axis (`h[src]`, the commonest gather), without the
        general derivation's broadcasting (which gives the same)."""
        below = self.wrapped.shape
        start = 0 if self.block_first else axis
        kept = (*below[:axis], *below[axis + 1 :])
        return (*kept[:start], array.shape[0], *kept[start:])

    def _block_shape(self) -> Shape:
        """The shape by the general derivation: the kept axes around the broadcast block."""
        kept = [size for size, array in zip(self.wrapped.shape, self.indices, strict=True) if array is None]
        block = self._block
        return (*kept[: block.start], *block.shape, *kept[block.start :])

    @once
    def _block(self) -> Block:
        """Where the index arrays sit, derived in one pass: views are made by the thousand."""
        axes = tuple([axis for axis, array in enumerate(self.indices) if array is not None])
        arrays: tuple[IndexArray, ...] = tuple([self.indices[axis] for axis in axes])  # type: ignore[misc]
        if len(arrays) > 1:
            arrays = tuple(np.broadcast_arrays(*arrays))
        adjacent_start = axes[0] if axes[-1] - axes[0] == len(axes) - 1 else 0
        start = 0 if self.block_first else adjacent_start
        return Block(axes, arrays, arrays[0].shape, start, adjacent_start)

    @stacked
    def shape(self) -> Shape:
        lone = self._lone_list
        return self._block_shape() if lone is None else self._gather_shape(*lone)

    def _split(self, pos: Sequence[Any]) -> tuple[Sequence[Any], Sequence[Any]]:
        """A position of this view as (block position, kept-axis positions)."""
        start, end = self._block.start, self._block.start + len(self._block.shape)
        return pos[start:end], (*pos[:start], *pos[end:])

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        block_pos, kept_pos = self._split(index_arrays)
        kept = iter(kept_pos)
        arrays = iter(self._block.arrays)
        return tuple(
            next(kept) if array is None else next(arrays)[tuple(block_pos)] for array in self.indices
        )

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        """numpy's advanced indexing; one list on one axis is `np.take`, faster than `[]`."""
        lone = self._lone_list
        if lone is not None:
            axis, array = lone
            taken: Buffer = below.take(indexing.usable(array), axis=axis)
            if self.block_first and axis != 0:
                taken = np.moveaxis(taken, axis, 0)
            return taken
        indexed: Buffer = below[
            tuple(slice(None) if array is None else indexing.usable(array) for array in self.indices)
        ]
        start, width = self._block.adjacent_start, len(self._block.shape)
        if start == self._block.start:
            return indexed
        moved: Buffer = np.moveaxis(indexed, range(start, start + width), range(width))
        return moved

    @once
    def _lone_list(self) -> tuple[int, IndexArray] | None:
        """The axis and the list when this view indexes one axis with one 1-D list (`h[src]`), else None."""
        return _lone_list_of(self.indices)

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """A gather's gradient is a segment sum: for one list on one axis, `index_add` the gradient's
        slices into zeros (a bincount over rows, not over every element's position)."""
        lone = self._lone_list
        if lone is None:
            return super().backward_step(grad, retain)
        axis, array = lone
        zeros = np.zeros(self.wrapped.shape, dtype=grad.dtype)
        return [(self.wrapped, scatter.index_add(zeros, array, grad, dim=axis))]

    def describe(self) -> str:
        entries = [":" if array is None else _indices_text(array) for array in self.indices]
        first = ", block first" if self._block.start != self._block.adjacent_start else ""
        return "indices [" + ", ".join(entries) + "]" + first

    @stacked
    def layout(self) -> Layout | None:
        lone = self._lone_list
        if lone is not None and progression(lone[1]) is None:
            return None  # most lists (edge sources, samples) are no progression: no layout
        return self._affine_layout()

    def _affine_layout(self) -> Layout | None:
        """The layout below, gathered (the general derivation): index arrays affine in the block
        position fuse."""
        below = self.wrapped.layout
        if below is None:
            return None
        block = self._block
        return below.gather(block.axes, block.arrays, block.start)

    def names_of(self, names_below: Names) -> Names:
        """The kept axes keep their names around the block. The block keeps the name of the axis
        its one list indexes (ints beside it drop theirs); a block where several axes merge, or one
        axis splits into many, has no names."""
        block = self._block
        lists = [axis for axis, array in enumerate(self.indices) if array is not None and array.ndim > 0]
        single = len(block.shape) == 1 and len(lists) == 1
        block_names = (names_below[lists[0]],) if single else naming.unnamed(len(block.shape))
        kept = [name for name, array in zip(names_below, self.indices, strict=True) if array is None]
        return (*kept[: block.start], *block_names, *kept[block.start :])


# -- RenamedTensor ----------------------------------------------------------------------------


@attrs.frozen(eq=False, repr=False, slots=False)
class RenamedTensor(View):
    """The same tensor under other axis names (`t.rename(...)`): positions, values and gradients
    pass straight through.

    >>> import lazytensor as lt
    >>> t = RenamedTensor(lt.zeros(2, 3), ("row", "col"))
    >>> t.names, t.translate((1, 2)), t.layout.strides
    (('row', 'col'), (1, 2), (3, 1))
    """

    axis_names: Names = attrs.field(converter=tuple)

    @axis_names.validator
    def _check_names(self, _attribute: object, names: Names) -> None:
        naming.check_names(names, self.wrapped.shape)

    @stacked
    def shape(self) -> Shape:
        return self.wrapped.shape

    def translate(self, pos: Shape) -> Shape:
        return pos

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        return index_arrays

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return below

    def view_of(self, below: Buffer) -> Buffer:
        return below

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """A new name moves nothing: the gradient passes straight down."""
        return [(self.wrapped, grad)]

    def describe(self) -> str:
        return "names (" + ", ".join(repr(name) for name in self.axis_names) + ")"

    @stacked
    def layout(self) -> Layout | None:
        return self.wrapped.layout

    def names_of(self, names_below: Names) -> Names:
        return self.axis_names


def rename(t: AbstractTensor, names: Names) -> RenamedTensor:
    """`t` under the (checked) `names`."""
    return RenamedTensor.trusted(t, names)


def _exactly_named(view: ReshapedTensor, names: Names) -> AbstractTensor:
    """`view`, a reshape that adds or drops size-1 axes, with the names `names`: the reshape rule
    cannot tell which of two neighbouring size-1 axes came or went, so there a rename says it."""
    if 1 not in view.shape or 1 not in view.wrapped.shape or view.names == names:
        return view
    return RenamedTensor.trusted(view, names)


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
    return _exactly_named(squeezed, tuple(name for axis, name in enumerate(t.names) if axis not in dims))


def unsqueeze(t: AbstractTensor, dim: int) -> AbstractTensor:
    axis = normalize_dim(dim, t.ndim + 1)
    unsqueezed = ReshapedTensor(t, (*t.shape[:axis], 1, *t.shape[axis:]))
    if not t.base.names_used:
        return unsqueezed
    return _exactly_named(unsqueezed, (*t.names[:axis], None, *t.names[axis:]))


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
    return _exactly_named(reshaped, _inserted(t.names, new_axes))


def _inserted(names: Names, new_axes: tuple[int, ...]) -> Names:
    """`names` with None at each new axis, inserted in order as `_with_new_axes` inserts sizes."""
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
    _check_broadcast([array for array in arrays if array is not None])
    return IndexedTensor.trusted(base, arrays, parsed.separated)


def _adopted(spec: Spec) -> IndexArray | None:
    """A parsed key's entry as the view keeps it: None for a range, an int as a 0-d array (as numpy
    treats ints beside arrays), an index array frozen in place. Parsing made that array and checked
    its bounds, so it needs neither another copy nor another check."""
    if isinstance(spec, Range):
        return None
    return indexing.read_only_window(np.array(spec, dtype=np.intp) if isinstance(spec, int) else spec)


def _common_view(t: AbstractTensor, key: Any) -> AbstractTensor | None:
    """The view of the commonest keys (ints and slices; one list of ints) made straight from the key,
    or None for any other key. The same wrappers `_numpy_view` makes from the parsed key."""
    shape = t.shape
    specs = indexing.basic_specs(key, shape)
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
    common = _common_view(t, key)
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

"""`IndexedTensor`: numpy's advanced indexing as a view: index arrays (lists, int arrays, masks)
broadcast together and placed as numpy places them; it writes through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import attrs
import numpy as np

from lazytensor.ground import coords, indexing, naming
from lazytensor.ground.coords import Coords
from lazytensor.ground.layout import IndexArray, Layout, progression
from lazytensor.ground.naming import Names
from lazytensor.ground.once import once, stacked
from lazytensor.ground.positions import (
    Shape,
)
from lazytensor.kernels import scatter
from lazytensor.tensors.tensor import Buffer
from lazytensor.tensors.views.sliced import frozen_indices, indices_text
from lazytensor.tensors.views.view import IndexArrays, View


def _freeze_indices(indices: Sequence[Any]) -> tuple[IndexArray | None, ...]:
    return tuple(None if index is None else frozen_indices(index) for index in indices)


def check_broadcast(arrays: Sequence[IndexArray]) -> None:
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
        check_broadcast(arrays)
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
        entries = [":" if array is None else indices_text(array) for array in self.indices]
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

    def coords_of(self, coords_below: Coords) -> Coords:
        """As the names: the kept axes keep their labels whole; the block of one list takes the labels
        of the axis it indexes, at the listed positions; any other block has none."""
        if not coords.has_any(coords_below):
            return coords.none(len(self.shape))
        block = self._block
        lists = [axis for axis, array in enumerate(self.indices) if array is not None and array.ndim > 0]
        block_coords: Coords = coords.none(len(block.shape))
        if len(block.shape) == 1 and len(lists) == 1:
            below = coords_below[lists[0]]
            array = block.arrays[block.axes.index(lists[0])]
            if below is not None:
                block_coords = (coords.frozen(below[np.broadcast_to(array, block.shape)]),)
        kept = [coord for coord, array in zip(coords_below, self.indices, strict=True) if array is None]
        return (*kept[: block.start], *block_coords, *kept[block.start :])

"""`Layout`: the affine map from a position to a storage index, and its algebra.

A layout is what PyTorch calls sizes, strides and storage offset, in elements.
Each view wrapper derives its layout from the layout below it with one of the
methods here; when every layer of a stack has one, reading an element is one
dot product and reading the whole tensor is a zero-copy numpy view.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.positions import Shape, int_tuple, numel, row_major_strides

IndexArray = npt.NDArray[np.intp]


@attrs.frozen
class Layout:
    """Sizes, strides and offset in elements: position `p` lives at `offset + sum(p[k] * strides[k])`.

    >>> layout = Layout.contiguous((2, 3))
    >>> layout.strides, layout.index((1, 2))
    ((3, 1), 5)
    >>> layout.permute((1, 0)).index((2, 1))
    5
    """

    shape: Shape = attrs.field(converter=int_tuple)
    strides: Shape = attrs.field(converter=int_tuple)
    offset: int = attrs.field(default=0, converter=int)

    @strides.validator
    def _check_strides(self, _attribute: object, strides: Shape) -> None:
        if len(strides) != len(self.shape):
            raise ValueError(f"layout of shape {self.shape} needs {len(self.shape)} strides, got {strides}")
        if any(size < 0 for size in self.shape):
            raise ValueError(f"layout shape {self.shape} has a negative size")

    @offset.validator
    def _check_offset(self, _attribute: object, offset: int) -> None:
        if offset < 0:
            raise ValueError(f"layout offset must be non-negative, got {offset}")

    @classmethod
    def contiguous(cls, shape: Sequence[int], offset: int = 0) -> Layout:
        """The row-major layout of `shape`, as a fresh buffer has it."""
        return cls.derived(int_tuple(shape), row_major_strides(shape), offset)

    @classmethod
    def derived(cls, shape: Shape, strides: Shape, offset: int) -> Layout:
        """A layout computed from a valid one (ints, matching lengths, offset ≥ 0): the algebra below
        makes every layout this way, without the constructor's conversions and checks."""
        layout = object.__new__(cls)
        object.__setattr__(layout, "shape", shape)
        object.__setattr__(layout, "strides", strides)
        object.__setattr__(layout, "offset", offset)
        return layout

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        return numel(self.shape)

    def index(self, pos: Sequence[int]) -> int:
        """The storage index of one (valid, non-negative) position."""
        total: int = self.offset + sum(map(operator.mul, pos, self.strides))
        return total

    def index_batch(self, index_arrays: Sequence[IndexArray]) -> IndexArray:
        """Storage indices of many positions: one array per axis, broadcast together."""
        total: IndexArray = np.asarray(self.offset, dtype=np.intp)
        for indices, stride in zip(index_arrays, self.strides, strict=True):
            if stride != 0:
                total = total + indices * stride
        return total

    def span(self) -> tuple[int, int]:
        """The lowest and highest storage index the layout reaches (numel > 0)."""
        low = high = self.offset
        for size, stride in zip(self.shape, self.strides, strict=True):
            reach = (size - 1) * stride
            if reach < 0:
                low += reach
            else:
                high += reach
        return low, high

    def is_contiguous(self) -> bool:
        """True when the layout walks storage in row-major order with no gaps (size-1 axes ignored)."""
        expected = row_major_strides(self.shape)
        return self.numel() == 0 or all(
            size == 1 or stride == want
            for size, stride, want in zip(self.shape, self.strides, expected, strict=True)
        )

    def has_broadcast_axis(self) -> bool:
        """True when two positions share a storage index through a stride-0 axis."""
        return any(stride == 0 and size > 1 for size, stride in zip(self.shape, self.strides, strict=True))

    # -- the algebra: one method per kind of view ------------------------------------------

    def permute(self, axes: Sequence[int]) -> Layout:
        """Axis `i` of the result is axis `axes[i]` of this layout."""
        return Layout.derived(
            tuple(self.shape[a] for a in axes), tuple(self.strides[a] for a in axes), self.offset
        )

    def at_index(self, axis: int, index: int) -> Layout:
        """Fix `axis` at `index` and drop it."""
        return Layout.derived(
            self.shape[:axis] + self.shape[axis + 1 :],
            self.strides[:axis] + self.strides[axis + 1 :],
            self.offset + index * self.strides[axis],
        )

    def step(self, axis: int, start: int, step: int, count: int) -> Layout:
        """Take `count` indices `start, start + step, ...` along `axis` (any step, 0 included)."""
        if count == 0:
            start = 0
        stride = self.strides[axis] * step if count > 1 else self.strides[axis]  # one index: no step
        return Layout.derived(
            (*self.shape[:axis], count, *self.shape[axis + 1 :]),
            (*self.strides[:axis], stride, *self.strides[axis + 1 :]),
            self.offset + start * self.strides[axis],
        )

    def expand(self, shape: Sequence[int]) -> Layout:
        """Broadcast to `shape`: new leading axes and stretched size-1 axes get stride 0."""
        lead = len(shape) - self.ndim
        strides = [0] * lead
        for size, old_size, stride in zip(shape[lead:], self.shape, self.strides, strict=True):
            strides.append(stride if size == old_size else 0)
        return Layout.derived(tuple(shape), tuple(strides), self.offset)

    def try_reshape(self, new_shape: Sequence[int]) -> Layout | None:
        """The same elements in row-major order under `new_shape`, if strides can express it.

        numpy's no-copy rule: size-1 axes do not matter; old and new axes are grouped
        by equal products; a group of old axes can be merged only when each stride is
        the next one times the next size. Splitting an axis always works.
        """
        new_shape = tuple(new_shape)
        if self.numel() == 0:
            return Layout.contiguous(new_shape, self.offset)
        old = [(n, s) for n, s in zip(self.shape, self.strides, strict=True) if n != 1]
        new_strides = [0] * len(new_shape)
        old_i = new_i = 0
        while old_i < len(old) and new_i < len(new_shape):
            old_end, new_end = old_i + 1, new_i + 1
            old_product, new_product = old[old_i][0], new_shape[new_i]
            while old_product != new_product:
                if new_product < old_product:
                    new_product *= new_shape[new_end]
                    new_end += 1
                else:
                    old_product *= old[old_end][0]
                    old_end += 1
            if not _mergeable(old[old_i:old_end]):
                return None
            new_strides[new_end - 1] = old[old_end - 1][1]
            for k in range(new_end - 1, new_i, -1):
                new_strides[k - 1] = new_strides[k] * new_shape[k]
            old_i, new_i = old_end, new_end
        for k in range(new_i, len(new_shape)):  # trailing size-1 axes
            new_strides[k] = 1
        return Layout.derived(new_shape, tuple(new_strides), self.offset)


def _mergeable(group: Sequence[tuple[int, int]]) -> bool:
    """Whether consecutive (size, stride) axes walk storage as one axis would."""
    return all(
        stride == next_size * next_stride
        for (_, stride), (next_size, next_stride) in itertools.pairwise(group)
    )

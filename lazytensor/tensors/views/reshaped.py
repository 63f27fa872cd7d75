"""`ReshapedTensor`: the elements of the tensor below in row-major order, read in a new shape
(`reshape`, `view`, `flatten`, `squeeze`, `unsqueeze`); it fuses when numpy could reshape without
copying, else positions go through the flat row-major index."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from lazytensor.ground import naming
from lazytensor.ground.layout import IndexArray, Layout
from lazytensor.ground.naming import Names
from lazytensor.ground.once import once, stacked
from lazytensor.ground.positions import (
    Shape,
    int_tuple,
    numel,
    row_major_strides,
)
from lazytensor.tensors.tensor import Buffer
from lazytensor.tensors.views.view import ZERO, IndexArrays, View


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
    def keeps_values(self) -> bool:
        return True

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
            return tuple(ZERO if axis is None else index_arrays[axis] for axis in self._unit_map)
        flat: IndexArray = ZERO
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

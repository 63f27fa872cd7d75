"""`ExpandedTensor`: the tensor below broadcast to a bigger shape (`expand`, `broadcast_to`): read-only,
since the positions of a stretched axis share one element."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

import lazytensor.tensors.evaluate as evaluate
from lazytensor.engine import autograd
from lazytensor.ground import naming
from lazytensor.ground.coords import Coords
from lazytensor.ground.layout import Layout
from lazytensor.ground.naming import Names
from lazytensor.ground.once import once, stacked
from lazytensor.ground.positions import (
    Shape,
    int_tuple,
    numel,
)
from lazytensor.tensors.tensor import Buffer
from lazytensor.tensors.views.view import ZERO, IndexArrays, View


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
                why = "cannot shrink to 1" if size == 1 else f"which is neither 1 nor {size}"
                raise ValueError(
                    f"cannot expand tensor of shape {below} to {shape}: axis {axis} has size {old}, {why}"
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
            ZERO if old == 1 else indices
            for indices, old in zip(index_arrays[self._lead :], below, strict=True)
        )

    @stacked
    def layout(self) -> Layout | None:
        below = self.wrapped.layout
        return None if below is None else below.expand(self._shape)

    def names_of(self, names_below: Names) -> Names:
        """A new leading axis has no name; a stretched axis keeps its own."""
        return naming.unnamed(self._lead) + names_below

    def coords_of(self, coords_below: Coords) -> Coords:
        """A new leading axis has no labels, nor has a stretched one; an axis kept as it is keeps its own."""
        sizes = self.wrapped.shape
        kept = tuple(
            coord if size == self._shape[self._lead + axis] else None
            for axis, (coord, size) in enumerate(zip(coords_below, sizes, strict=True))
        )
        return (None,) * self._lead + kept

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return np.broadcast_to(below, self._shape)

    def view_of(self, below: Buffer) -> Buffer | None:
        """numpy's broadcast view, unless the shape holds more bytes than numpy can address."""
        layout = self.layout
        if layout is None or not evaluate.numpy_can_view(layout, below.itemsize):
            return None
        return np.broadcast_to(below, self._shape)

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """The gradient summed over the new and stretched axes, in the base's size (not by position)."""
        return [(self.wrapped, autograd.expand_backward(grad, self.wrapped.shape))]

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

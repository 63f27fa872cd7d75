"""`TransposedTensor`: the axes of the tensor below in another order (`permute`, `T`, `mT`, `swapaxes`)."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from lazytensor.ground.layout import Layout
from lazytensor.ground.naming import Names
from lazytensor.ground.once import once, stacked
from lazytensor.ground.positions import (
    Shape,
    int_tuple,
)
from lazytensor.tensors.tensor import Buffer
from lazytensor.tensors.views.view import IndexArrays, View


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

    @property
    def keeps_values(self) -> bool:
        return True

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

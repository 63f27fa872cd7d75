"""`LabelledTensor`: the tensor below with other coordinates, every position the same."""

from __future__ import annotations

from typing import Any

import attrs

from lazytensor.ground import coords
from lazytensor.ground.coords import Coords
from lazytensor.ground.naming import Names, shown_name
from lazytensor.tensors.views.view import PassThrough


def _frozen(found: Any) -> Coords:
    return tuple(found)


@attrs.frozen(eq=False, repr=False, slots=False)
class LabelledTensor(PassThrough):
    """The same tensor with other coordinates (`t.assign_coords(...)`): positions, values, names and
    gradients pass straight through.

    >>> import numpy as np, lazytensor as lt
    >>> t = LabelledTensor(lt.zeros(2, names=("station",)), (np.array(["rome", "oslo"]),))
    >>> t.coords["station"].tolist(), t.translate((1,))
    (['rome', 'oslo'], (1,))
    """

    labels: Coords = attrs.field(converter=_frozen)

    @labels.validator
    def _check_labels(self, _attribute: object, labels: Coords) -> None:
        shape, names = self.wrapped.shape, self.wrapped.names
        if len(labels) != len(shape):
            raise ValueError(f"{len(labels)} coordinates for the {len(shape)} axes of shape {shape}")
        for name, size, coord in zip(names, shape, labels, strict=True):
            if coord is not None:
                coords.coord_array(coord, name or "", size)
        if coords.has_any(labels):  # views and operations over the base derive coordinates from now on
            coords.mark_labelled(self.base)

    def describe(self) -> str:
        given = [
            shown_name(name or "")
            for name, coord in zip(self.names, self.labels, strict=True)
            if coord is not None
        ]
        return "coordinates of " + (", ".join(given) if given else "no axis")

    def names_of(self, names_below: Names) -> Names:
        return names_below

    def coords_of(self, coords_below: Coords) -> Coords:
        return self.labels

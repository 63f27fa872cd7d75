"""`RenamedTensor`: the tensor below with other axis names, every position the same."""

from __future__ import annotations

import attrs

from lazytensor.ground import naming
from lazytensor.ground.coords import Coords
from lazytensor.ground.naming import Names
from lazytensor.tensors.views.view import PassThrough


@attrs.frozen(eq=False, repr=False, slots=False)
class RenamedTensor(PassThrough):
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

    def describe(self) -> str:
        return "names (" + ", ".join(repr(name) for name in naming.shown_names(self.axis_names)) + ")"

    def names_of(self, names_below: Names) -> Names:
        return self.axis_names

    def coords_of(self, coords_below: Coords) -> Coords:
        """Each axis keeps its labels under its new name; an axis left without a name loses them."""
        return tuple(
            None if name is None else coord for name, coord in zip(self.axis_names, coords_below, strict=True)
        )

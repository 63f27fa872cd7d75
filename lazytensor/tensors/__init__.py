"""The tensors floor: the tensor classes (`tensor`), the doors every operation runs through (`apply`,
`dispatch`), reading and writing through a stack (`evaluate`), the view wrappers (`views`) and the
user-facing methods, one mixin per job (`surface`).

The floor is assembled here. The classes are defined first, in `tensor`; the modules that build on
them (`apply`, `dispatch`, `views`) import `tensor`, and `tensor` never imports them. The methods of
`AbstractTensor` reach those modules through the primitives its mixins name
(`surface.primitives.Surface`), which are bound below, once everything is defined: so no module of
the package imports one that imports it back.
"""

from lazytensor.tensors import apply, dispatch
from lazytensor.tensors.tensor import AbstractTensor
from lazytensor.tensors.views import constructors

PRIMITIVES = {
    "_apply": staticmethod(apply.apply),
    "_whole_sum": apply.whole_sum,  # a method: `t._whole_sum()` is `whole_sum(t)`
    "_check_in_place": staticmethod(dispatch.check_in_place),
    "_array_ufunc": staticmethod(dispatch.array_ufunc),
    "_array_function": staticmethod(dispatch.array_function),
    "_views": constructors,
}
"""What `AbstractTensor`'s methods call in the modules above it, by the name the surface declares."""

for _name, _primitive in PRIMITIVES.items():
    setattr(AbstractTensor, _name, _primitive)

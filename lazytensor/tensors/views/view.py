"""`View`, the root of every wrapper: a tensor that holds the tensor below it (`wrapped`) and never
copies. What a wrapper answers, in order: its `shape`; `translate_batch(index_arrays)`, where these
positions go one layer down (the one map; `translate(pos)` of one position is derived from it); and
its `layout`, the whole stack as one strided map onto storage or None (one method of `Layout`). What
differs per kind of wrapper lives on its class: its numpy equivalent, its parameters (`describe`),
whether a write can go through it (`read_only_reason`). Base, shape and layout are derived on first
use and kept (`once.stacked`), so a stack of any depth is built, read and written without recursion.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, Self, cast

import attrs
import numpy as np

from lazytensor.engine import autograd
from lazytensor.ground import coords
from lazytensor.ground.coords import Coords
from lazytensor.ground.layout import IndexArray, Layout
from lazytensor.ground.naming import Names
from lazytensor.ground.once import stacked
from lazytensor.ground.positions import (
    Shape,
)
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


ZERO: IndexArray = np.zeros((), dtype=np.intp)


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

    def coords_of(self, coords_below: Coords) -> Coords:
        """The coordinates of this view's axes, given those below: an axis that keeps the name of an
        axis below keeps its labels, indexed as this view indexes the axis (`coords.followed`)."""
        return coords.followed(self, coords_below)

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

    @property
    def keeps_values(self) -> bool:
        """Whether each position below shows exactly once here (`Wrapper.keeps_values`); a kind
        that moves every position one-to-one says so."""
        return False

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        return [(self.wrapped, autograd.view_backward(self, grad))]


@attrs.frozen(eq=False, repr=False, slots=False)
class PassThrough(View):
    """A view that moves nothing (new names, new coordinates): its shape, positions, layout, values
    and gradient are the tensor's below; a kind says only what it changes and how it describes it."""

    @stacked
    def shape(self) -> Shape:
        return self.wrapped.shape

    def translate(self, pos: Shape) -> Shape:
        return pos

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        return index_arrays

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return below

    @property
    def keeps_values(self) -> bool:
        return True

    def view_of(self, below: Buffer) -> Buffer:
        return below

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """Nothing moved: the gradient passes straight down."""
        return [(self.wrapped, grad)]

    @stacked
    def layout(self) -> Layout | None:
        return self.wrapped.layout


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

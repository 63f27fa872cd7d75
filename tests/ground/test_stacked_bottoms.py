"""A `stacked` value over a layer below that has no such value at all (an object of a class that
never defined it): the walk stops there and the layer's own function decides, as it does over a
layer that knows the value some other way.

Reaches into `lazytensor.ground.once`: `stacked` is checked on classes defined here.
"""

from __future__ import annotations

from lazytensor.ground.once import stacked


class Layer:
    def __init__(self, wrapped: object) -> None:
        self.wrapped = wrapped

    @stacked
    def depth(self) -> int:
        return getattr(self.wrapped, "depth", 0) + 1


class Plain:
    """An object that never heard of `depth`."""


class Counted:
    depth = 10  # a plain class attribute: known, but not a `stacked` rule


def test_a_stack_over_an_object_without_the_value_counts_from_its_own_function() -> None:
    top = Layer(Layer(Plain()))
    assert top.depth == 2
    assert Layer(Layer(Layer(Plain()))).depth == 3  # the same class below, its rule now cached


def test_a_stack_over_a_value_known_otherwise_reads_it() -> None:
    assert Layer(Layer(Counted())).depth == 12

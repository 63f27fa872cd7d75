"""The one way a value derived from an object is cached on it: `once`, and `stacked` for stacks.

`once` is a property computed on first use and then read from the instance's dict.
`functools.cached_property` does the same but takes a lock on every first access in
Python 3.11, which costs more than deriving a view's shape; views are made by the
thousand, so they use this instead. `stacked` is a `once` whose value is derived
from the same value of the layer below: its first read walks down to the first layer
that knows it and derives upward, a loop, so a stack 10,000 layers deep is read
without recursion. Nothing else writes a cached value: a constructor that already
holds one says so with `prime`, and `peek` reads one without computing it.
(Ground floor: imports nothing of ours.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class once(Generic[T]):
    """A non-data descriptor: the first read computes `fn(instance)` and stores it in the instance's
    `__dict__`, where every later read finds it without calling anything.

    >>> class Square:
    ...     def __init__(self, n: int) -> None:
    ...         self.n = n
    ...     @once
    ...     def area(self) -> int:
    ...         return self.n * self.n
    >>> s = Square(3)
    >>> Square.area.peek(s), s.area, Square.area.peek(s)
    (None, 9, 9)
    >>> t = Square(4)
    >>> Square.area.prime(t, 0)  # a constructor that knows the value already
    >>> t.area
    0
    """

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type) -> T: ...

    def __get__(self, instance: object | None, owner: type) -> T | once[T]:
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.name] = value
        return value

    def prime(self, instance: object, value: T) -> None:
        """Store `value` as if it had been computed: for a constructor that holds it already."""
        instance.__dict__[self.name] = value

    def peek(self, instance: object) -> T | None:
        """The cached value, or None when nothing has computed (or primed) it yet."""
        value: T | None = instance.__dict__.get(self.name)
        return value

    def omit(self, state: dict[str, Any]) -> None:
        """Take the cached value out of `state` (an instance's `__dict__` copied for pickling): a
        derived value is derived again after unpickling, never stored."""
        state.pop(self.name, None)


class stacked(once[T]):
    """A `once` of a layer in a stack (an object holding the layer below in `wrapped`) whose value is
    derived from the same value of the layer below. The first read walks down while the layer
    below has a `stacked` value of that name not yet computed, then computes upward, each layer's
    own function over the value just derived below it: a loop, never a recursion, however deep.

    >>> class Layer:
    ...     def __init__(self, wrapped: object) -> None:
    ...         self.wrapped = wrapped
    ...     @stacked
    ...     def depth(self) -> int:
    ...         return getattr(self.wrapped, "depth", 0) + 1
    >>> top: object = None
    >>> for _ in range(10_000):
    ...     top = Layer(top)
    >>> top.depth
    10000
    """

    def __init__(self, fn: Callable[[Any], T]) -> None:
        super().__init__(fn)
        self._rules: dict[type, stacked[Any] | None] = {}

    @overload
    def __get__(self, instance: None, owner: type) -> stacked[T]: ...

    @overload
    def __get__(self, instance: object, owner: type) -> T: ...

    def __get__(self, instance: object | None, owner: type) -> T | stacked[T]:
        if instance is None:
            return self
        name = self.name
        below = getattr(instance, "wrapped", None)
        if below is None or name in below.__dict__ or self._rules.get(type(below), self) is None:
            value = instance.__dict__[name] = self.fn(instance)  # the commonest read: nothing to walk
            return value
        pending: list[tuple[object, stacked[Any]]] = []
        while below is not None and name not in below.__dict__:
            rule = self._rule_of(type(below))
            if rule is None:
                break  # below knows its value some other way (a property, a base): ask it in turn
            pending.append((below, rule))
            below = getattr(below, "wrapped", None)
        for layer, layer_rule in reversed(pending):  # bottom first: each finds the value below computed
            layer.__dict__[name] = layer_rule.fn(layer)
        value = self.fn(instance)
        instance.__dict__[name] = value
        return value

    def _rule_of(self, cls: type) -> stacked[Any] | None:
        """The `stacked` value of this name that `cls` has, or None (read from the classes' dicts once
        per class: `getattr` on a class would call the descriptor)."""
        rules = self._rules
        if cls in rules:
            return rules[cls]
        found = next(
            (klass.__dict__[self.name] for klass in cls.__mro__ if self.name in klass.__dict__), None
        )
        rule = rules[cls] = found if isinstance(found, stacked) else None
        return rule

"""`once`: a property computed on first use and then read from the instance's dict.

`functools.cached_property` does the same but takes a lock on every first access
in Python 3.11, which costs more than deriving a view's shape; views are made by
the thousand, so they use this instead. (Ground floor: imports nothing of ours.)
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
    >>> Square(3).area
    9
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

"""The arguments of the functions that make tensors, checked in lazytensor's words: counts, shapes,
integer offsets, real numbers and dtypes. Each refusal names the function, the argument and the
value (quoted short), with the exception type numpy raises for it: TypeError for the wrong kind of
argument (a float count), ValueError for a wrong value of the right kind (a negative one, one more
than numpy can index). (Ground floor: it imports nothing of ours but `positions`.)
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.ground.positions import Shape, as_shape

LONGEST_AXIS = int(np.iinfo(np.intp).max)
"""The most positions an axis numpy can index has (numpy: "Maximum allowed dimension exceeded")."""

QUOTED = 60
"""The most characters of a bad value's `repr` a message quotes."""


def quoted(value: Any) -> str:
    """`repr(value)`, cut to `QUOTED` characters: a message never carries a 10 MB argument.

    >>> quoted(2.5), quoted("x" * 100)[-8:]
    ('2.5', 'xxxxxxx…')
    """
    text = repr(value) if not isinstance(value, str) else repr(value[: QUOTED + 1])
    return text if len(text) <= QUOTED else text[:QUOTED] + "…"


def _is_integer(value: Any) -> bool:
    """An int, a numpy integer or anything with `__index__`, but not a bool (numpy refuses `eye(True)`)."""
    if isinstance(value, bool | np.bool_):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def integer(what: str, argument: str, value: Any) -> int:
    """`value` as an int (a diagonal offset `k`): TypeError for anything else.

    >>> integer("eye", "k", np.int8(-1))
    -1
    >>> integer("eye", "k", 1.5)
    Traceback (most recent call last):
    TypeError: eye: k must be an int, got 1.5 (float)
    """
    if not _is_integer(value):
        raise TypeError(f"{what}: {argument} must be an int, got {quoted(value)} ({type(value).__name__})")
    return operator.index(value)


def count(what: str, argument: str, value: Any, least: int = 0) -> int:
    """`value` as a count of things (rows, samples, points): an int of at least `least`, and no more
    than an axis numpy can index.

    >>> count("linspace", "num", 5)
    5
    >>> count("linspace", "num", -5)
    Traceback (most recent call last):
    ValueError: linspace: num must be at least 0, got -5
    """
    number = integer(what, argument, value)
    if number < least:
        raise ValueError(f"{what}: {argument} must be at least {least}, got {number}")
    if number > LONGEST_AXIS:
        raise ValueError(
            f"{what}: {argument} of {number:,} is more than an axis numpy can index ({LONGEST_AXIS:,})"
        )
    return number


def shape(what: str, given: Any) -> Shape:
    """Shape arguments (ints, or one int or sequence of ints, as `as_shape` takes them) checked: every
    size at least 0 and no more than numpy can index.

    >>> shape("zeros", ((2, 3),)), shape("zeros", (2, 3))
    ((2, 3), (2, 3))
    >>> shape("zeros", (2, -1))
    Traceback (most recent call last):
    ValueError: zeros: negative dimensions are not allowed: shape (2, -1)
    """
    try:
        sizes = as_shape(given)
    except TypeError:
        shown = given[0] if len(given) == 1 else given
        raise TypeError(f"{what}: shape must be an int or a sequence of ints, got {quoted(shown)}") from None
    if any(size < 0 for size in sizes):
        raise ValueError(f"{what}: negative dimensions are not allowed: shape {sizes}")
    for axis, size in enumerate(sizes):
        if size > LONGEST_AXIS:
            raise ValueError(
                f"{what}: shape {sizes}: axis {axis} of size {size} is more than numpy can index "
                f"({LONGEST_AXIS})"
            )
    return sizes


def dtype(what: str, given: npt.DTypeLike | None) -> np.dtype[Any] | None:
    """`given` as a numpy dtype, None as None; TypeError naming the function for what numpy cannot read.

    >>> dtype("zeros", "f4"), dtype("zeros", None)
    (dtype('float32'), None)
    >>> dtype("zeros", "nope")
    Traceback (most recent call last):
    TypeError: zeros: dtype 'nope' is not a data type numpy understands
    """
    if given is None:
        return None
    try:
        return np.dtype(given)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: dtype {quoted(given)} is not a data type numpy understands") from None


def real(what: str, argument: str, value: Any) -> float:
    """`value` as a real number (a Python or numpy int or float, not a bool, a complex or a string).

    >>> real("fftfreq", "d", np.float32(0.5))
    0.5
    >>> real("fftfreq", "d", "a")
    Traceback (most recent call last):
    TypeError: fftfreq: d must be a real number, got 'a' (str)
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{what}: {argument} must be a real number, got {quoted(value)} ({type(value).__name__})"
        )
    return float(value)


def finite(what: str, argument: str, value: Any) -> float:
    """`value` as a real number that is finite (`arange`'s bounds and step).

    >>> finite("arange", "step", float("nan"))
    Traceback (most recent call last):
    ValueError: arange: step must be finite, got nan
    """
    number = real(what, argument, value)
    if not math.isfinite(number):
        raise ValueError(f"{what}: {argument} must be finite, got {number}")
    return number

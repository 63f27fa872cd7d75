"""The array API standard's elementwise functions: `lt.sin`, `lt.add`, `lt.logical_and`, ... Each is
made here from the entry of the operator table that names it (`Op.api`): that entry applied (numpy's
kernel, its gradient rule or the statement that it has none), the same door the methods and operators
use; an operand may be a tensor, a numpy array or a Python scalar (which, as in numpy, never widens a
tensor's dtype). `clip` and `round`, whose parameters are more than operands, are written below.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING

from lazytensor.api.functions import Operand
from lazytensor.engine import optable
from lazytensor.engine.optable import Op
from lazytensor.tensors.apply import apply
from lazytensor.tensors.tensor import StorageTensor, values_of

_Unary = Callable[[Operand], StorageTensor]
_Binary = Callable[[Operand, Operand], StorageTensor]

# What mypy knows of the functions made from the table below: one line for each entry that carries an
# `Api`, `_Unary` for one operand and `_Binary` for two (tests/engine/test_table_doors.py checks these lines
# against the table, and prints the ones to add).
abs: _Unary
acos: _Unary
acosh: _Unary
add: _Binary
asin: _Unary
asinh: _Unary
atan: _Unary
atan2: _Binary
atanh: _Unary
bitwise_and: _Binary
bitwise_invert: _Unary
bitwise_left_shift: _Binary
bitwise_or: _Binary
bitwise_right_shift: _Binary
bitwise_xor: _Binary
ceil: _Unary
conj: _Unary
copysign: _Binary
cos: _Unary
cosh: _Unary
divide: _Binary
equal: _Binary
exp: _Unary
expm1: _Unary
floor: _Unary
floor_divide: _Binary
greater: _Binary
greater_equal: _Binary
hypot: _Binary
imag: _Unary
isfinite: _Unary
isinf: _Unary
isnan: _Unary
less: _Binary
less_equal: _Binary
log: _Unary
log10: _Unary
log1p: _Unary
log2: _Unary
logaddexp: _Binary
logical_and: _Binary
logical_not: _Unary
logical_or: _Binary
logical_xor: _Binary
multiply: _Binary
negative: _Unary
nextafter: _Binary
not_equal: _Binary
positive: _Unary
pow: _Binary
real: _Unary
reciprocal: _Unary
remainder: _Binary
sign: _Unary
signbit: _Unary
sin: _Unary
sinh: _Unary
sqrt: _Unary
square: _Unary
subtract: _Binary
tan: _Unary
tanh: _Unary
trunc: _Unary


def _unary(entry: Op) -> _Unary:
    def function(x: Operand, /) -> StorageTensor:
        return apply(entry, x)

    return function


def _binary(entry: Op) -> _Binary:
    def function(x1: Operand, x2: Operand, /) -> StorageTensor:
        return apply(entry, x1, x2)

    return function


def _docstring(api: optable.Api) -> str:
    """The function's docstring: the entry's line, then its example as a doctest (which pytest runs).

    >>> _docstring(optable.Api("twice", "Each element doubled.", "lt.twice(2)", "4")).splitlines()
    ['Each element doubled.', '', '>>> import lazytensor as lt', '>>> lt.twice(2)', '4']
    """
    return f"{api.summary}\n\n>>> import lazytensor as lt\n>>> {api.example}\n{api.shows}\n"


def _made(entry: Op) -> Callable[..., StorageTensor]:
    """The array API function of an entry that carries an `Api`: `x, /` for an entry that keeps its
    operand's shape, `x1, x2, /` for one that broadcasts two, named and documented by the entry.

    >>> import lazytensor as lt
    >>> _made(optable.NEG).__name__, _made(optable.NEG)(lt.tensor([1, -2])).tolist()
    ('negative', [-1, 2])
    """
    api = entry.api
    if api is None:
        raise ValueError(f"the entry {entry.name!r} names no function of the array API (its `api` is None)")
    function = _unary(entry) if entry.shapes == "same" else _binary(entry)
    function.__name__ = function.__qualname__ = api.name
    function.__doc__ = _docstring(api)
    return function


def clip(x: Operand, /, min: Operand = None, max: Operand = None) -> StorageTensor:
    """Every element limited to `[min, max]` (None: that side open); `min` and `max` may be tensors
    that broadcast against `x`.

    >>> import lazytensor as lt
    >>> lt.clip(lt.tensor([-5, 0, 5]), -1, 1).tolist()
    [-1, 0, 1]
    """
    return apply(optable.CLIP, x, lo=values_of(min), hi=values_of(max))


def round(x: Operand, /) -> StorageTensor:
    """Each element rounded to the nearest integer, halves to even (numpy's `round`).

    >>> import lazytensor as lt
    >>> lt.round(lt.tensor([0.5, 1.5, -2.7])).tolist()
    [0.0, 2.0, -3.0]
    """
    return apply(optable.ROUND, x, decimals=0)


def _functions(entries: Iterable[Op], taken: Collection[str]) -> dict[str, Callable[..., StorageTensor]]:
    """The functions made of the entries that carry an `Api`, by name. A name two entries give, or one
    this module already has (`clip`, `apply`, ...), is refused: one of the two would be lost.

    >>> sorted(_functions([optable.NEG, optable.SUM], taken={"clip"}))
    ['negative']
    """
    functions: dict[str, Callable[..., StorageTensor]] = {}
    for entry in entries:
        if entry.api is None:
            continue
        name = entry.api.name
        if name in functions or name in taken:
            raise ValueError(f"lt.{name} is named twice: by the entry {entry.name!r}, and already by another")
        functions[name] = _made(entry)
    return functions


_FUNCTIONS = _functions(optable.TABLE.values(), taken=set(globals()))
"""The functions made from the table, by name: each becomes a function of this module."""
globals().update(_FUNCTIONS)


if not TYPE_CHECKING:  # what `from ... import *` takes; mypy, which cannot read a computed list, reads
    # the declarations above instead (a list it cannot read would hide every name of this module from it)
    __all__ = sorted([*_FUNCTIONS, "clip", "round"])

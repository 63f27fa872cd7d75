"""The array API standard's elementwise functions: `lt.sin`, `lt.add`, `lt.logical_and`, ... Each is
one entry of the operator table applied (numpy's kernel, its gradient rule or the statement that it
has none), the same door the methods and operators use; an operand may be a tensor, a numpy array or
a Python scalar (which, as in numpy, never widens a tensor's dtype).
"""

from __future__ import annotations

from typing import Any

from lazytensor.engine import optable
from lazytensor.tensors.apply import apply
from lazytensor.tensors.tensor import StorageTensor, values_of

Operand = Any
"""A tensor, a numpy array or a Python scalar."""


def abs(x: Operand, /) -> StorageTensor:
    """The absolute value of each element (the modulus, for complex numbers).

    >>> import lazytensor as lt
    >>> lt.abs(lt.tensor([-1.5, 2.0])).tolist()
    [1.5, 2.0]
    """
    return apply(optable.ABS, x)


def acos(x: Operand, /) -> StorageTensor:
    """The inverse cosine of each element, in radians.

    >>> import lazytensor as lt
    >>> lt.acos(lt.tensor([1.0])).tolist()
    [0.0]
    """
    return apply(optable.ACOS, x)


def acosh(x: Operand, /) -> StorageTensor:
    """The inverse hyperbolic cosine of each element.

    >>> import lazytensor as lt
    >>> lt.acosh(lt.tensor([1.0])).tolist()
    [0.0]
    """
    return apply(optable.ACOSH, x)


def add(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 + x2` at every position of the broadcast shape.

    >>> import lazytensor as lt
    >>> lt.add(lt.tensor([1, 2]), 10).tolist()
    [11, 12]
    """
    return apply(optable.ADD, x1, x2)


def asin(x: Operand, /) -> StorageTensor:
    """The inverse sine of each element, in radians.

    >>> import lazytensor as lt
    >>> lt.asin(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.ASIN, x)


def asinh(x: Operand, /) -> StorageTensor:
    """The inverse hyperbolic sine of each element.

    >>> import lazytensor as lt
    >>> lt.asinh(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.ASINH, x)


def atan(x: Operand, /) -> StorageTensor:
    """The inverse tangent of each element, in radians.

    >>> import lazytensor as lt
    >>> lt.atan(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.ATAN, x)


def atan2(x1: Operand, x2: Operand, /) -> StorageTensor:
    """The angle of the point `(x2, x1)`, in radians: the inverse tangent of `x1 / x2` in the right quadrant.

    >>> import lazytensor as lt
    >>> lt.atan2(lt.tensor([1.0]), lt.tensor([0.0])).tolist()
    [1.5707963267948966]
    """
    return apply(optable.ATAN2, x1, x2)


def atanh(x: Operand, /) -> StorageTensor:
    """The inverse hyperbolic tangent of each element.

    >>> import lazytensor as lt
    >>> lt.atanh(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.ATANH, x)


def bitwise_and(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 & x2` for integers and booleans.

    >>> import lazytensor as lt
    >>> lt.bitwise_and(lt.tensor([12]), 10).tolist()
    [8]
    """
    return apply(optable.AND, x1, x2)


def bitwise_left_shift(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 << x2` for integers.

    >>> import lazytensor as lt
    >>> lt.bitwise_left_shift(lt.tensor([1, 2]), 3).tolist()
    [8, 16]
    """
    return apply(optable.LSHIFT, x1, x2)


def bitwise_invert(x: Operand, /) -> StorageTensor:
    """`~x` for integers and booleans.

    >>> import lazytensor as lt
    >>> lt.bitwise_invert(lt.tensor([0, 5])).tolist()
    [-1, -6]
    """
    return apply(optable.INVERT, x)


def bitwise_or(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 | x2` for integers and booleans.

    >>> import lazytensor as lt
    >>> lt.bitwise_or(lt.tensor([12]), 10).tolist()
    [14]
    """
    return apply(optable.OR, x1, x2)


def bitwise_right_shift(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 >> x2` for integers.

    >>> import lazytensor as lt
    >>> lt.bitwise_right_shift(lt.tensor([16, 9]), 2).tolist()
    [4, 2]
    """
    return apply(optable.RSHIFT, x1, x2)


def bitwise_xor(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 ^ x2` for integers and booleans.

    >>> import lazytensor as lt
    >>> lt.bitwise_xor(lt.tensor([12]), 10).tolist()
    [6]
    """
    return apply(optable.XOR, x1, x2)


def ceil(x: Operand, /) -> StorageTensor:
    """The smallest integer not below each element (integers stay as they are).

    >>> import lazytensor as lt
    >>> lt.ceil(lt.tensor([-1.5, 1.2])).tolist()
    [-1.0, 2.0]
    """
    return apply(optable.CEIL, x)


def conj(x: Operand, /) -> StorageTensor:
    """The complex conjugate of each element.

    >>> import lazytensor as lt
    >>> lt.conj(lt.tensor([1 + 2j])).tolist()
    [(1-2j)]
    """
    return apply(optable.CONJ, x)


def copysign(x1: Operand, x2: Operand, /) -> StorageTensor:
    """The magnitude of `x1` with the sign of `x2`.

    >>> import lazytensor as lt
    >>> lt.copysign(lt.tensor([1.0, 2.0]), -0.0).tolist()
    [-1.0, -2.0]
    """
    return apply(optable.COPYSIGN, x1, x2)


def cos(x: Operand, /) -> StorageTensor:
    """The cosine of each element (radians).

    >>> import lazytensor as lt
    >>> lt.cos(lt.tensor([0.0])).tolist()
    [1.0]
    """
    return apply(optable.COS, x)


def cosh(x: Operand, /) -> StorageTensor:
    """The hyperbolic cosine of each element.

    >>> import lazytensor as lt
    >>> lt.cosh(lt.tensor([0.0])).tolist()
    [1.0]
    """
    return apply(optable.COSH, x)


def divide(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 / x2`: true division.

    >>> import lazytensor as lt
    >>> lt.divide(lt.tensor([1, 3]), 2).tolist()
    [0.5, 1.5]
    """
    return apply(optable.TRUEDIV, x1, x2)


def equal(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 == x2` elementwise: a bool tensor (numpy's `equal`; the standard's).

    >>> import lazytensor as lt
    >>> lt.equal(lt.tensor([1, 2]), lt.tensor([1, 5])).tolist()
    [True, False]
    """
    return apply(optable.EQ, x1, x2)


def exp(x: Operand, /) -> StorageTensor:
    """`e ** x` for each element.

    >>> import lazytensor as lt
    >>> lt.exp(lt.tensor([0.0])).tolist()
    [1.0]
    """
    return apply(optable.EXP, x)


def expm1(x: Operand, /) -> StorageTensor:
    """`exp(x) - 1`, exact for small `x`.

    >>> import lazytensor as lt
    >>> lt.expm1(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.EXPM1, x)


def floor(x: Operand, /) -> StorageTensor:
    """The largest integer not above each element (integers stay as they are).

    >>> import lazytensor as lt
    >>> lt.floor(lt.tensor([-1.5, 1.2])).tolist()
    [-2.0, 1.0]
    """
    return apply(optable.FLOOR, x)


def floor_divide(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 // x2`: the quotient rounded down.

    >>> import lazytensor as lt
    >>> lt.floor_divide(lt.tensor([7, -7]), 2).tolist()
    [3, -4]
    """
    return apply(optable.FLOORDIV, x1, x2)


def greater(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 > x2` elementwise.

    >>> import lazytensor as lt
    >>> lt.greater(lt.tensor([1, 3]), 2).tolist()
    [False, True]
    """
    return apply(optable.GT, x1, x2)


def greater_equal(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 >= x2` elementwise.

    >>> import lazytensor as lt
    >>> lt.greater_equal(lt.tensor([1, 2]), 2).tolist()
    [False, True]
    """
    return apply(optable.GE, x1, x2)


def hypot(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`sqrt(x1 ** 2 + x2 ** 2)` without overflow.

    >>> import lazytensor as lt
    >>> lt.hypot(lt.tensor([3.0]), 4.0).tolist()
    [5.0]
    """
    return apply(optable.HYPOT, x1, x2)


def imag(x: Operand, /) -> StorageTensor:
    """The imaginary part of each element.

    >>> import lazytensor as lt
    >>> lt.imag(lt.tensor([1 + 2j])).tolist()
    [2.0]
    """
    return apply(optable.IMAG, x)


def isfinite(x: Operand, /) -> StorageTensor:
    """Whether each element is neither NaN nor infinite.

    >>> import lazytensor as lt
    >>> lt.isfinite(lt.tensor([1.0, float('inf')])).tolist()
    [True, False]
    """
    return apply(optable.ISFINITE, x)


def isinf(x: Operand, /) -> StorageTensor:
    """Whether each element is infinite.

    >>> import lazytensor as lt
    >>> lt.isinf(lt.tensor([1.0, float('-inf')])).tolist()
    [False, True]
    """
    return apply(optable.ISINF, x)


def isnan(x: Operand, /) -> StorageTensor:
    """Whether each element is NaN.

    >>> import lazytensor as lt
    >>> lt.isnan(lt.tensor([1.0, float('nan')])).tolist()
    [False, True]
    """
    return apply(optable.ISNAN, x)


def less(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 < x2` elementwise.

    >>> import lazytensor as lt
    >>> lt.less(lt.tensor([1, 3]), 2).tolist()
    [True, False]
    """
    return apply(optable.LT, x1, x2)


def less_equal(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 <= x2` elementwise.

    >>> import lazytensor as lt
    >>> lt.less_equal(lt.tensor([1, 3]), 1).tolist()
    [True, False]
    """
    return apply(optable.LE, x1, x2)


def log(x: Operand, /) -> StorageTensor:
    """The natural logarithm of each element.

    >>> import lazytensor as lt
    >>> lt.log(lt.tensor([1.0])).tolist()
    [0.0]
    """
    return apply(optable.LOG, x)


def log1p(x: Operand, /) -> StorageTensor:
    """`log(1 + x)`, exact for small `x`.

    >>> import lazytensor as lt
    >>> lt.log1p(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.LOG1P, x)


def log2(x: Operand, /) -> StorageTensor:
    """The base-2 logarithm of each element.

    >>> import lazytensor as lt
    >>> lt.log2(lt.tensor([8.0])).tolist()
    [3.0]
    """
    return apply(optable.LOG2, x)


def log10(x: Operand, /) -> StorageTensor:
    """The base-10 logarithm of each element.

    >>> import lazytensor as lt
    >>> lt.log10(lt.tensor([100.0])).tolist()
    [2.0]
    """
    return apply(optable.LOG10, x)


def logaddexp(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`log(exp(x1) + exp(x2))` without overflow.

    >>> import lazytensor as lt
    >>> lt.logaddexp(lt.tensor([1000.0]), 1000.0).tolist()
    [1000.6931471805599]
    """
    return apply(optable.LOGADDEXP, x1, x2)


def logical_and(x1: Operand, x2: Operand, /) -> StorageTensor:
    """Whether both `x1` and `x2` are true, elementwise.

    >>> import lazytensor as lt
    >>> lt.logical_and(lt.tensor([True, False]), True).tolist()
    [True, False]
    """
    return apply(optable.LOGICAL_AND, x1, x2)


def logical_not(x: Operand, /) -> StorageTensor:
    """Whether each element is false.

    >>> import lazytensor as lt
    >>> lt.logical_not(lt.tensor([True, False])).tolist()
    [False, True]
    """
    return apply(optable.LOGICAL_NOT, x)


def logical_or(x1: Operand, x2: Operand, /) -> StorageTensor:
    """Whether `x1` or `x2` is true, elementwise.

    >>> import lazytensor as lt
    >>> lt.logical_or(lt.tensor([True, False]), False).tolist()
    [True, False]
    """
    return apply(optable.LOGICAL_OR, x1, x2)


def logical_xor(x1: Operand, x2: Operand, /) -> StorageTensor:
    """Whether exactly one of `x1` and `x2` is true, elementwise.

    >>> import lazytensor as lt
    >>> lt.logical_xor(lt.tensor([True, False]), True).tolist()
    [False, True]
    """
    return apply(optable.LOGICAL_XOR, x1, x2)


def multiply(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 * x2` at every position of the broadcast shape.

    >>> import lazytensor as lt
    >>> lt.multiply(lt.tensor([1, 2]), 3).tolist()
    [3, 6]
    """
    return apply(optable.MUL, x1, x2)


def negative(x: Operand, /) -> StorageTensor:
    """`-x` for each element.

    >>> import lazytensor as lt
    >>> lt.negative(lt.tensor([1, -2])).tolist()
    [-1, 2]
    """
    return apply(optable.NEG, x)


def nextafter(x1: Operand, x2: Operand, /) -> StorageTensor:
    """The next representable floating-point value after `x1` towards `x2`.

    >>> import lazytensor as lt
    >>> lt.nextafter(lt.tensor([1.0]), 2.0).tolist()
    [1.0000000000000002]
    """
    return apply(optable.NEXTAFTER, x1, x2)


def not_equal(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 != x2` elementwise.

    >>> import lazytensor as lt
    >>> lt.not_equal(lt.tensor([1, 2]), 2).tolist()
    [True, False]
    """
    return apply(optable.NE, x1, x2)


def positive(x: Operand, /) -> StorageTensor:
    """`+x` for each element (a copy).

    >>> import lazytensor as lt
    >>> lt.positive(lt.tensor([1, -2])).tolist()
    [1, -2]
    """
    return apply(optable.POS, x)


def pow(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 ** x2` at every position of the broadcast shape.

    >>> import lazytensor as lt
    >>> lt.pow(lt.tensor([2, 3]), 2).tolist()
    [4, 9]
    """
    return apply(optable.POWER, x1, x2)


def real(x: Operand, /) -> StorageTensor:
    """The real part of each element.

    >>> import lazytensor as lt
    >>> lt.real(lt.tensor([1 + 2j])).tolist()
    [1.0]
    """
    return apply(optable.REAL, x)


def reciprocal(x: Operand, /) -> StorageTensor:
    """`1 / x` for each element.

    >>> import lazytensor as lt
    >>> lt.reciprocal(lt.tensor([2.0, 4.0])).tolist()
    [0.5, 0.25]
    """
    return apply(optable.RECIPROCAL, x)


def remainder(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 % x2`: the remainder with the sign of `x2`, as Python's `%`.

    >>> import lazytensor as lt
    >>> lt.remainder(lt.tensor([7, -7]), 3).tolist()
    [1, 2]
    """
    return apply(optable.MOD, x1, x2)


def sign(x: Operand, /) -> StorageTensor:
    """-1, 0 or 1 by the sign of each element (`x / |x|` for complex numbers).

    >>> import lazytensor as lt
    >>> lt.sign(lt.tensor([-2.0, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    """
    return apply(optable.SIGN, x)


def signbit(x: Operand, /) -> StorageTensor:
    """Whether the sign bit of each element is set (True for -0.0 too).

    >>> import lazytensor as lt
    >>> lt.signbit(lt.tensor([-0.0, 0.0, -1.0])).tolist()
    [True, False, True]
    """
    return apply(optable.SIGNBIT, x)


def sin(x: Operand, /) -> StorageTensor:
    """The sine of each element (radians).

    >>> import lazytensor as lt
    >>> lt.sin(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.SIN, x)


def sinh(x: Operand, /) -> StorageTensor:
    """The hyperbolic sine of each element.

    >>> import lazytensor as lt
    >>> lt.sinh(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.SINH, x)


def square(x: Operand, /) -> StorageTensor:
    """`x * x` for each element.

    >>> import lazytensor as lt
    >>> lt.square(lt.tensor([-3, 2])).tolist()
    [9, 4]
    """
    return apply(optable.SQUARE, x)


def sqrt(x: Operand, /) -> StorageTensor:
    """The square root of each element.

    >>> import lazytensor as lt
    >>> lt.sqrt(lt.tensor([4.0, 9.0])).tolist()
    [2.0, 3.0]
    """
    return apply(optable.SQRT, x)


def subtract(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`x1 - x2` at every position of the broadcast shape.

    >>> import lazytensor as lt
    >>> lt.subtract(lt.tensor([1, 2]), 1).tolist()
    [0, 1]
    """
    return apply(optable.SUB, x1, x2)


def tan(x: Operand, /) -> StorageTensor:
    """The tangent of each element (radians).

    >>> import lazytensor as lt
    >>> lt.tan(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.TAN, x)


def tanh(x: Operand, /) -> StorageTensor:
    """The hyperbolic tangent of each element.

    >>> import lazytensor as lt
    >>> lt.tanh(lt.tensor([0.0])).tolist()
    [0.0]
    """
    return apply(optable.TANH, x)


def trunc(x: Operand, /) -> StorageTensor:
    """Each element rounded towards zero (integers stay as they are).

    >>> import lazytensor as lt
    >>> lt.trunc(lt.tensor([-1.5, 1.7])).tolist()
    [-1.0, 1.0]
    """
    return apply(optable.TRUNC, x)


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

"""Elementwise kernels and the ones that join or compare whole arrays: numpy arrays in, arrays out.

Object arrays (Fractions, Decimals) stay exact: a math function uses the
value's own method when it has one (`Decimal.exp`, `Decimal.sqrt`), so a
Decimal never passes through a float.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from lazytensor.ground.dtypes import OBJECT
from lazytensor.ground.positions import normalize_dim, without_axis
from lazytensor.kernels.callables import Buffer, Values, point, result_shape, transform


def _object_unary(method: str, fallback: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A per-element function for object values: the value's own method (Decimal.exp) if it has
    one, else `fallback` (a `math` function, through float)."""

    def apply(x: Any) -> Any:
        own = getattr(x, method, None)
        return own() if callable(own) else fallback(x)

    return apply


def _unary(values: Values, ufunc: np.ufunc, method: str, fallback: Callable[[Any], Any]) -> Buffer:
    array = np.asarray(values)
    if array.dtype == OBJECT:
        return transform(array, _object_unary(method, fallback))
    return transform(array, ufunc)


def exp(values: Values) -> Buffer:
    """`e ** x` (Decimals keep their precision via `Decimal.exp`).

    >>> exp(np.array([0.0])).tolist()
    [1.0]
    """
    return _unary(values, np.exp, "exp", math.exp)


def log(values: Values) -> Buffer:
    """The natural logarithm (`Decimal.ln` for Decimals)."""
    return _unary(values, np.log, "ln", math.log)


def sqrt(values: Values) -> Buffer:
    """The square root (`Decimal.sqrt` for Decimals).

    >>> sqrt(np.array([4.0, 9.0])).tolist()
    [2.0, 3.0]
    """
    return _unary(values, np.sqrt, "sqrt", math.sqrt)


def tanh(values: Values) -> Buffer:
    """The hyperbolic tangent."""
    return _unary(values, np.tanh, "tanh", math.tanh)


def sigmoid(values: Values) -> Buffer:
    """`1 / (1 + exp(-x))`, computed without overflow for large `|x|`.

    >>> sigmoid(np.array([0.0, -1000.0, 1000.0])).tolist()
    [0.5, 0.0, 1.0]
    """
    array = np.asarray(values)
    if array.dtype == OBJECT:
        return transform(array, _object_sigmoid)
    if array.dtype.kind in "biu":
        array = array.astype(np.float64)
    small = np.exp(-np.abs(array))  # never overflows
    result: Buffer = np.where(array >= 0, 1 / (1 + small), small / (1 + small))
    return result.astype(array.dtype, copy=False)


def _object_sigmoid(x: Any) -> Any:
    return 1 / (1 + _object_unary("exp", math.exp)(-x))


def relu(values: Values) -> Buffer:
    """`max(x, 0)`, keeping the dtype.

    >>> relu(np.array([-1, 2])).tolist()
    [0, 2]
    """
    array = np.asarray(values)
    return point(array, array.dtype.type(0) if array.dtype != OBJECT else 0, np.maximum)


def clip(values: Values, lo: Values = None, hi: Values = None) -> Buffer:
    """Every element limited to `[lo, hi]`; None leaves that side open.

    >>> clip(np.array([-5, 0, 5]), -1, 1).tolist()
    [-1, 0, 1]
    """
    array = np.asarray(values)
    if lo is None and hi is None:
        return array.copy()
    result: Buffer = np.clip(array, lo, hi)
    return result


def where(condition: Values, x: Values, y: Values) -> Buffer:
    """`x` where `condition` is true, else `y`, all three broadcast together.

    >>> where(np.array([True, False]), np.array([1, 2]), 0).tolist()
    [1, 0]
    """
    cond = np.asarray(condition)
    result_shape(cond.shape, np.shape(x), np.shape(y))
    mask = cond if cond.dtype == np.bool_ else cond.astype(bool)
    chosen: Buffer = np.asarray(np.where(mask, x, y))
    return chosen


def matmul(x: Values, y: Values) -> Buffer:
    """The matrix product with numpy's rules: 1-D operands promoted, batch axes broadcast; every
    dtype numpy's matmul takes, object (Fraction, Decimal) included.

    >>> matmul(np.array([[1, 2, 3], [2, 4, 6]]), np.array([[1, 4], [2, 5], [3, 6]])).tolist()
    [[14, 32], [28, 64]]
    """
    a, b = np.asarray(x), np.asarray(y)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape}: a 0-d operand has no matrix axes")
    inner_a, inner_b = a.shape[-1], b.shape[-2 if b.ndim >= 2 else 0]
    if inner_a != inner_b:
        raise ValueError(
            f"matmul: shapes {a.shape} and {b.shape} are not aligned: the last axis of the first "
            f"({inner_a}) must match the {'second-to-last' if b.ndim >= 2 else 'only'} axis of the "
            f"second ({inner_b})"
        )
    try:
        result: Buffer = np.matmul(a, b)
    except ValueError:  # the inner axes match: what is left to fail is the broadcast of the batch axes
        raise ValueError(
            f"matmul: shapes {a.shape} and {b.shape}: the batch axes {a.shape[:-2]} and "
            f"{b.shape[:-2]} do not broadcast"
        ) from None
    return result


def cat(*arrays: Values, dim: int = 0) -> Buffer:
    """The arrays joined along an existing axis `dim`; every other size must match.

    >>> cat(np.zeros((1, 2)), np.ones((2, 2))).tolist()
    [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    """
    joined = [np.asarray(a) for a in arrays]
    first = joined[0]
    if first.ndim == 0:
        raise ValueError("cat: 0-d tensors have no axis to join along; use stack")
    axis = normalize_dim(dim, first.ndim)
    for i, array in enumerate(joined[1:], start=1):
        same_rank = array.ndim == first.ndim
        if not same_rank or without_axis(array.shape, axis) != without_axis(first.shape, axis):
            raise ValueError(
                f"cat: tensor 0 of shape {first.shape} and tensor {i} of shape {array.shape} "
                f"must have the same sizes except along dim {axis}"
            )
    return np.concatenate(joined, axis=axis)


def stack(*arrays: Values, dim: int = 0) -> Buffer:
    """The arrays, all of one shape, stacked along a new axis `dim`.

    >>> stack(np.array([1, 2]), np.array([3, 4]), dim=1).tolist()
    [[1, 3], [2, 4]]
    """
    joined = [np.asarray(a) for a in arrays]
    first = joined[0]
    axis = normalize_dim(dim, first.ndim + 1)
    for i, array in enumerate(joined[1:], start=1):
        if array.shape != first.shape:
            raise ValueError(
                f"stack: tensor 0 of shape {first.shape} and tensor {i} of shape {array.shape} "
                "must have the same shape"
            )
    return np.stack(joined, axis=axis)


def equal(x: Values, y: Values, equal_nan: bool = False) -> bool:
    """Whether `x` and `y` have the same shape and the same values (numpy's `array_equal`, PyTorch's
    `torch.equal`); NaN equals NaN only with `equal_nan`.

    >>> equal(np.arange(3), [0, 1, 2]), equal(np.arange(3), np.arange(4))
    (True, False)
    """
    a, b = np.asarray(x), np.asarray(y)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=equal_nan))


def allclose(x: Values, y: Values, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether `|x - y| <= atol + rtol * |y|` everywhere (broadcast, as numpy's `allclose`); object
    values are compared exactly first, then through floats.

    >>> allclose(np.array([1.0, 2.0]), [1.0, 2.0 + 1e-9])
    True
    """
    a, b = np.asarray(x), np.asarray(y)
    result_shape(a.shape, b.shape)
    if OBJECT not in (a.dtype, b.dtype):
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    close = functools.partial(_close, rtol=rtol, atol=atol)
    return bool(point(a, b, close, dtype=bool).all())


def _close(x: Any, y: Any, rtol: float, atol: float) -> bool:
    """One pair of object values: exactly equal, or close once their differences are floats."""
    if x == y:
        return True
    return bool(float(abs(x - y)) <= atol + rtol * float(abs(y)))


def round_values(values: Values, decimals: int = 0) -> Buffer:
    """Every element rounded to `decimals` places, halves to even (numpy's `round`); object values
    (Fraction, Decimal) by their own `round`.

    >>> round_values(np.array([0.5, 1.5, 2.675]), 0).tolist(), round_values(np.array([1234]), -2).tolist()
    ([0.0, 2.0, 3.0], [1200])
    """
    array = np.asarray(values)
    if array.dtype == OBJECT:
        return transform(array, lambda x: round(x, decimals))
    rounded: Buffer = np.round(array, decimals)
    return rounded


def isnan(values: Values) -> Buffer:
    """Whether each element is NaN (numpy's `isnan`): a bool array.

    >>> isnan(np.array([1.0, np.nan])).tolist()
    [False, True]
    """
    return np.asarray(np.isnan(np.asarray(values)))


def isinf(values: Values) -> Buffer:
    """Whether each element is positive or negative infinity: a bool array.

    >>> isinf(np.array([1.0, -np.inf])).tolist()
    [False, True]
    """
    return np.asarray(np.isinf(np.asarray(values)))


def isfinite(values: Values) -> Buffer:
    """Whether each element is neither NaN nor infinite: a bool array.

    >>> isfinite(np.array([1.0, np.nan, np.inf])).tolist()
    [True, False, False]
    """
    return np.asarray(np.isfinite(np.asarray(values)))

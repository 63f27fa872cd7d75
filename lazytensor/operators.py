"""The named operations: arithmetic, comparisons, matmul, elementwise functions, where, cat, stack,
equal, allclose, and numpy's `__array_ufunc__` protocol.

Each is one small function from inputs to a new StorageTensor, built on the
generic operators of `generic.py` (re-exported here) or on one numpy kernel, so
that autograd can record one node per operation.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lazytensor.dtypes import OBJECT
from lazytensor.generic import Operand as Operand
from lazytensor.generic import array_of as array_of
from lazytensor.generic import known_binary as known_binary
from lazytensor.generic import known_unary as known_unary
from lazytensor.generic import new_tensor as new_tensor
from lazytensor.generic import result_shape as result_shape
from lazytensor.generic import tpoint as tpoint
from lazytensor.generic import tredux as tredux
from lazytensor.generic import ttransform as ttransform
from lazytensor.generic import values_of as values_of
from lazytensor.positions import Shape, normalize_dim
from lazytensor.tensor import AbstractTensor, Buffer, StorageTensor

# -- arithmetic and comparisons ---------------------------------------------------------------


def add(a: Operand, b: Operand) -> StorageTensor:
    """`a + b` elementwise, broadcast.

    >>> import lazytensor as lt
    >>> add(lt.tensor([1, 2]), 10).tolist()
    [11, 12]
    """
    return tpoint(a, b, operator.add)


def sub(a: Operand, b: Operand) -> StorageTensor:
    """`a - b` elementwise, broadcast."""
    return tpoint(a, b, operator.sub)


def mul(a: Operand, b: Operand) -> StorageTensor:
    """`a * b` elementwise, broadcast."""
    return tpoint(a, b, operator.mul)


def truediv(a: Operand, b: Operand) -> StorageTensor:
    """`a / b` elementwise, broadcast (exact for Fractions).

    >>> import lazytensor as lt
    >>> from fractions import Fraction
    >>> truediv(lt.tensor([Fraction(1)]), 3).tolist()
    [Fraction(1, 3)]
    """
    return tpoint(a, b, operator.truediv)


def floordiv(a: Operand, b: Operand) -> StorageTensor:
    """`a // b` elementwise, broadcast."""
    return tpoint(a, b, operator.floordiv)


def mod(a: Operand, b: Operand) -> StorageTensor:
    """`a % b` elementwise, broadcast (the sign of `b`, as in Python and numpy)."""
    return tpoint(a, b, operator.mod)


def power(a: Operand, b: Operand) -> StorageTensor:
    """`a ** b` elementwise, broadcast."""
    return tpoint(a, b, operator.pow)


def eq(a: Operand, b: Operand) -> StorageTensor:
    """`a == b` elementwise: a bool tensor.

    >>> import lazytensor as lt
    >>> eq(lt.tensor([1, 2]), 2).tolist()
    [False, True]
    """
    return tpoint(a, b, operator.eq)


def ne(a: Operand, b: Operand) -> StorageTensor:
    """`a != b` elementwise: a bool tensor."""
    return tpoint(a, b, operator.ne)


def less(a: Operand, b: Operand) -> StorageTensor:
    """`a < b` elementwise: a bool tensor."""
    return tpoint(a, b, operator.lt)


def less_equal(a: Operand, b: Operand) -> StorageTensor:
    """`a <= b` elementwise: a bool tensor."""
    return tpoint(a, b, operator.le)


def greater(a: Operand, b: Operand) -> StorageTensor:
    """`a > b` elementwise: a bool tensor."""
    return tpoint(a, b, operator.gt)


def greater_equal(a: Operand, b: Operand) -> StorageTensor:
    """`a >= b` elementwise: a bool tensor."""
    return tpoint(a, b, operator.ge)


def maximum(a: Operand, b: Operand) -> StorageTensor:
    """The larger of `a` and `b` at every position (NaN wins, as in numpy).

    >>> import lazytensor as lt
    >>> lt.maximum(lt.tensor([1, 5]), 3).tolist()
    [3, 5]
    """
    return tpoint(a, b, np.maximum)


def minimum(a: Operand, b: Operand) -> StorageTensor:
    """The smaller of `a` and `b` at every position (NaN wins, as in numpy).

    >>> import lazytensor as lt
    >>> lt.minimum(lt.tensor([1, 5]), 3).tolist()
    [1, 3]
    """
    return tpoint(a, b, np.minimum)


def neg(t: Operand) -> StorageTensor:
    """`-t` elementwise."""
    return ttransform(t, operator.neg)


def pos(t: Operand) -> StorageTensor:
    """`+t` elementwise (a copy)."""
    return ttransform(t, operator.pos)


def absolute(t: Operand) -> StorageTensor:
    """`abs(t)` elementwise (the modulus for complex numbers).

    >>> import lazytensor as lt
    >>> absolute(lt.tensor([3 + 4j])).tolist()
    [5.0]
    """
    return ttransform(t, abs)


def invert(t: Operand) -> StorageTensor:
    """`~t` elementwise: bitwise not for integers, logical not for bools."""
    return ttransform(t, operator.invert)


def matmul(a: Operand, b: Operand) -> StorageTensor:
    """The matrix product with numpy's rules: 1-D operands promoted, batch axes broadcast.
    Works for every dtype numpy's matmul takes, object (Fraction, Decimal) included.

    >>> import lazytensor as lt
    >>> matmul(lt.tensor([[1, 2, 3], [2, 4, 6]]), lt.tensor([[1, 4], [2, 5], [3, 6]])).tolist()
    [[14, 32], [28, 64]]
    """
    x, y = array_of(a), array_of(b)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"matmul: shapes {x.shape} and {y.shape}: a 0-d operand has no matrix axes")
    try:
        result = np.matmul(x, y)
    except ValueError as error:
        raise ValueError(f"matmul: shapes {x.shape} and {y.shape} are not aligned ({error})") from None
    return new_tensor(result, x, y)


# -- elementwise functions --------------------------------------------------------------------


def _object_unary(method: str, fallback: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A per-element function for object values: the value's own method (Decimal.exp) if it has
    one, else `fallback` (a `math` function, through float)."""

    def apply(x: Any) -> Any:
        own = getattr(x, method, None)
        return own() if callable(own) else fallback(x)

    return apply


def _unary(t: Operand, ufunc: np.ufunc, method: str, fallback: Callable[[Any], Any]) -> StorageTensor:
    values = array_of(t)
    if values.dtype == OBJECT:
        return ttransform(values, _object_unary(method, fallback))
    return ttransform(values, ufunc)


def exp_values(values: Buffer) -> Buffer:
    """`exp` of a numpy array, for the operations that build on it (softmax)."""
    return exp(values).numpy()


def log_values(values: Buffer) -> Buffer:
    """`log` of a numpy array, for the operations that build on it (log_softmax)."""
    return log(values).numpy()


def exp(t: Operand) -> StorageTensor:
    """`e ** x` elementwise (Decimals keep their precision via `Decimal.exp`).

    >>> import lazytensor as lt
    >>> exp(lt.tensor([0.0])).tolist()
    [1.0]
    """
    return _unary(t, np.exp, "exp", math.exp)


def log(t: Operand) -> StorageTensor:
    """The natural logarithm elementwise (`Decimal.ln` for Decimals)."""
    return _unary(t, np.log, "ln", math.log)


def sqrt(t: Operand) -> StorageTensor:
    """The square root elementwise (`Decimal.sqrt` for Decimals).

    >>> import lazytensor as lt
    >>> sqrt(lt.tensor([4.0, 9.0])).tolist()
    [2.0, 3.0]
    """
    return _unary(t, np.sqrt, "sqrt", math.sqrt)


def tanh(t: Operand) -> StorageTensor:
    """The hyperbolic tangent elementwise."""
    return _unary(t, np.tanh, "tanh", math.tanh)


def sigmoid(t: Operand) -> StorageTensor:
    """`1 / (1 + exp(-x))` elementwise, computed without overflow for large `|x|`.

    >>> import lazytensor as lt
    >>> sigmoid(lt.tensor([0.0, -1000.0, 1000.0])).tolist()
    [0.5, 0.0, 1.0]
    """
    values = array_of(t)
    if values.dtype == OBJECT:
        return ttransform(values, _object_sigmoid)
    if values.dtype.kind in "biu":
        values = values.astype(np.float64)
    small = np.exp(-np.abs(values))  # never overflows
    result = np.where(values >= 0, 1 / (1 + small), small / (1 + small))
    return new_tensor(result.astype(values.dtype, copy=False), values)


def _object_sigmoid(x: Any) -> Any:
    return 1 / (1 + _object_unary("exp", math.exp)(-x))


def relu(t: Operand) -> StorageTensor:
    """`max(x, 0)` elementwise, keeping the dtype.

    >>> import lazytensor as lt
    >>> relu(lt.tensor([-1, 2])).tolist()
    [0, 2]
    """
    values = array_of(t)
    return tpoint(values, values.dtype.type(0) if values.dtype != OBJECT else 0, np.maximum)


def clip(t: Operand, lo: Any = None, hi: Any = None) -> StorageTensor:
    """Every element limited to `[lo, hi]`; None leaves that side open.

    >>> import lazytensor as lt
    >>> clip(lt.tensor([-5, 0, 5]), -1, 1).tolist()
    [-1, 0, 1]
    """
    values = array_of(t)
    if lo is None and hi is None:
        return new_tensor(values.copy())
    result = np.clip(values, values_of(lo), values_of(hi))
    return new_tensor(result, values)


def where(condition: Operand, a: Operand, b: Operand) -> StorageTensor:
    """`a` where `condition` is true, else `b`, all three broadcast together.

    >>> import lazytensor as lt
    >>> t = lt.tensor([1, -2, 3])
    >>> lt.where(t > 0, t, 0).tolist()
    [1, 0, 3]
    """
    cond, x, y = array_of(condition), values_of(a), values_of(b)
    result_shape(result_shape(cond.shape, np.shape(x)), np.shape(y))
    if cond.dtype != np.bool_:
        cond = cond.astype(bool)
    return new_tensor(np.where(cond, x, y), x, y)


# -- joining and comparing whole tensors ------------------------------------------------------


def _arrays(tensors: Sequence[Operand], what: str) -> list[Buffer]:
    if isinstance(tensors, AbstractTensor | np.ndarray) or len(tensors) == 0:
        raise TypeError(f"{what} takes a non-empty sequence of tensors")
    return [array_of(t) for t in tensors]


def cat(tensors: Sequence[Operand], dim: int = 0) -> StorageTensor:
    """The tensors joined along an existing axis `dim`, in new storage; every other size must match.

    >>> import lazytensor as lt
    >>> lt.cat([lt.zeros(1, 2), lt.ones(2, 2)]).tolist()
    [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    """
    arrays = _arrays(tensors, "cat")
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("cat: 0-d tensors have no axis to join along; use stack")
    axis = normalize_dim(dim, first.ndim)
    for i, array in enumerate(arrays[1:], start=1):
        same_rank = array.ndim == first.ndim
        if not same_rank or _without(array.shape, axis) != _without(first.shape, axis):
            raise ValueError(
                f"cat: tensor 0 of shape {first.shape} and tensor {i} of shape {array.shape} "
                f"must have the same sizes except along dim {axis}"
            )
    return StorageTensor.from_array(np.concatenate(arrays, axis=axis))


def _without(shape: Shape, axis: int) -> Shape:
    return (*shape[:axis], *shape[axis + 1 :])


def stack(tensors: Sequence[Operand], dim: int = 0) -> StorageTensor:
    """The tensors, all of one shape, stacked along a new axis `dim`, in new storage.

    >>> import lazytensor as lt
    >>> lt.stack([lt.tensor([1, 2]), lt.tensor([3, 4])], dim=1).tolist()
    [[1, 3], [2, 4]]
    """
    arrays = _arrays(tensors, "stack")
    first = arrays[0]
    axis = normalize_dim(dim, first.ndim + 1)
    for i, array in enumerate(arrays[1:], start=1):
        if array.shape != first.shape:
            raise ValueError(
                f"stack: tensor 0 of shape {first.shape} and tensor {i} of shape {array.shape} "
                "must have the same shape"
            )
    return StorageTensor.from_array(np.stack(arrays, axis=axis))


def equal(a: Operand, b: Operand) -> bool:
    """Whether `a` and `b` have the same shape and the same values (PyTorch's `torch.equal`).

    >>> import lazytensor as lt
    >>> lt.equal(lt.arange(3), [0, 1, 2]), lt.equal(lt.arange(3), lt.arange(4))
    (True, False)
    """
    x, y = array_of(a), array_of(b)
    return x.shape == y.shape and bool(np.array_equal(x, y))


def allclose(
    a: Operand, b: Operand, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether `|a - b| <= atol + rtol * |b|` everywhere (broadcast, as numpy's `allclose`).

    >>> import lazytensor as lt
    >>> lt.allclose(lt.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-9])
    True
    """
    x, y = array_of(a), array_of(b)
    result_shape(x.shape, y.shape)
    if OBJECT not in (x.dtype, y.dtype):
        return bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))
    close = functools.partial(_close, rtol=rtol, atol=atol)
    return bool(tpoint(x, y, close, dtype=bool).numpy().all())


def _close(x: Any, y: Any, rtol: float, atol: float) -> bool:
    """One pair of object values: exactly equal, or close once their differences are floats."""
    if x == y:
        return True
    return bool(float(abs(x - y)) <= atol + rtol * float(abs(y)))


# -- numpy interoperation ---------------------------------------------------------------------


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """numpy's `__array_ufunc__` for tensors: a plain call goes through `ttransform`/`tpoint`/`matmul`
    (so `ndarray + tensor` is a tensor); other methods run on the values and wrap array results.

    >>> import lazytensor as lt
    >>> type(np.arange(2) + lt.arange(2)).__name__, np.exp(lt.zeros(1)).tolist()
    ('StorageTensor', [1.0])
    """
    if method == "__call__" and not kwargs:
        if ufunc is np.matmul:
            return matmul(*inputs)
        if ufunc.nin == 1 and ufunc.nout == 1:
            return ttransform(inputs[0], ufunc)
        if ufunc.nin == 2 and ufunc.nout == 1:
            return tpoint(inputs[0], inputs[1], ufunc)
    outputs = kwargs.get("out", ())
    if method == "at" or any(isinstance(o, AbstractTensor) for o in outputs):
        return NotImplemented  # writing into a tensor this way could miss a gathered copy
    result = getattr(ufunc, method)(*(values_of(x) for x in inputs), **kwargs)
    if isinstance(result, tuple):
        return tuple(new_tensor(r) for r in result)
    return new_tensor(result)

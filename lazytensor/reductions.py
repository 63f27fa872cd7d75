"""Reductions over one axis, several or all: sum, mean, prod, max, min, argmax, argmin, all, any,
std, var, and the softmax family.

Each is one numpy reduction on the evaluated input (a zero-copy view when the
stack has a layout). Object tensors stay exact: the mean of Fractions is a
Fraction, because the sum is divided by the count once, at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lazytensor.dtypes import OBJECT
from lazytensor.generic import Operand, array_of, new_tensor
from lazytensor.operators import exp_values, log_values, sqrt
from lazytensor.positions import Shape, normalize_dim, normalize_dims, numel
from lazytensor.tensor import Buffer, StorageTensor

Dims = int | Sequence[int] | None


def _prepare(t: Operand, dim: Dims) -> tuple[Buffer, Shape]:
    values = array_of(t)
    return values, normalize_dims(dim, values.ndim)


def _keep_object(result: Any, values: Buffer) -> Buffer:
    """numpy hands back a bare Python value when an object array reduces to one element."""
    return np.asarray(result, dtype=OBJECT if values.dtype == OBJECT else None)


def _reduce(ufunc: np.ufunc, values: Buffer, axes: Shape | int, keepdim: bool, dtype: Any = None) -> Any:
    """`ufunc.reduce` over `axes`: a numpy array, or a bare value when everything was reduced."""
    return ufunc.reduce(values, axis=axes, dtype=dtype, keepdims=keepdim)


def _count(shape: Shape, axes: Shape) -> int:
    return numel([shape[axis] for axis in axes])


def sum_values(values: Buffer, axes: Shape, keepdim: bool) -> Buffer:
    """The sum of a numpy array over `axes` (numpy's dtype: small integers and bool sum as int64)."""
    return _keep_object(_reduce(np.add, values, axes, keepdim), values)


def mean_values(values: Buffer, axes: Shape, keepdim: bool) -> Buffer:
    """The true mean of a numpy array over `axes`: one sum, divided once by the count."""
    accumulate = np.float64 if values.dtype.kind in "biu" else None
    total = _keep_object(_reduce(np.add, values, axes, keepdim, accumulate), values)
    count = _count(values.shape, axes)
    if values.dtype == OBJECT:
        return _keep_object(total / count, values)
    with np.errstate(invalid="ignore", divide="ignore"):  # numpy's mean of nothing is nan
        return np.asarray(total / count)


def var_values(values: Buffer, axes: Shape, keepdim: bool) -> Buffer:
    """The variance (ddof 0) of a numpy array over `axes`: the mean squared distance to the mean."""
    deviation = values - mean_values(values, axes, keepdim=True)
    squared = (deviation * deviation.conj()).real if deviation.dtype.kind == "c" else deviation * deviation
    return mean_values(squared, axes, keepdim)


def tsum(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The sum over `dim` (an int, a tuple, or None for all axes).

    >>> import lazytensor as lt
    >>> lt.arange(6).reshape(2, 3).sum(1).tolist()
    [3, 12]
    """
    values, axes = _prepare(t, dim)
    return new_tensor(sum_values(values, axes, keepdim), values)


def mean(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The arithmetic mean over `dim`: exact for Fractions, float64 for integers.

    >>> import lazytensor as lt
    >>> from fractions import Fraction
    >>> lt.tensor([Fraction(1, 2), Fraction(1, 3)]).mean().item()
    Fraction(5, 12)
    """
    values, axes = _prepare(t, dim)
    return new_tensor(mean_values(values, axes, keepdim), values)


def prod(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The product over `dim`.

    >>> import lazytensor as lt
    >>> lt.arange(1, 5).prod().item()
    24
    """
    values, axes = _prepare(t, dim)
    result = _keep_object(_reduce(np.multiply, values, axes, keepdim), values)
    return new_tensor(result, values)


def tmax(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The largest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy).

    >>> import lazytensor as lt
    >>> lt.tensor([[1, 5], [7, 2]]).max(0).tolist()
    [7, 5]
    """
    values, axes = _prepare(t, dim)
    result = _keep_object(_reduce(np.maximum, values, axes, keepdim), values)
    return new_tensor(result, values)


def tmin(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The smallest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy).

    >>> import lazytensor as lt
    >>> lt.tensor([[1, 5], [7, 2]]).min(1).tolist()
    [1, 2]
    """
    values, axes = _prepare(t, dim)
    result = _keep_object(_reduce(np.minimum, values, axes, keepdim), values)
    return new_tensor(result, values)


def _arg_reduce(t: Operand, dim: Dims, keepdim: bool, find: Callable[..., Any]) -> StorageTensor:
    """`find` (np.argmax or np.argmin) over the axes of `dim` taken together as one row-major axis."""
    values, axes = _prepare(t, dim)
    kept = [axis for axis in range(values.ndim) if axis not in axes]
    kept_shape = tuple(values.shape[axis] for axis in kept)
    rows = np.transpose(values, (*kept, *axes)).reshape((*kept_shape, _count(values.shape, axes)))
    index = np.asarray(find(rows, axis=-1))
    if keepdim:
        index = index.reshape(tuple(1 if axis in axes else size for axis, size in enumerate(values.shape)))
    return new_tensor(index)


def argmax(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The index of the first largest element over `dim`; over several axes (or None: all) the index
    counts through them together in row-major order.

    >>> import lazytensor as lt
    >>> t = lt.tensor([[1, 9], [7, 2]])
    >>> t.argmax().item(), t.argmax(0).tolist()
    (1, [1, 0])
    """
    return _arg_reduce(t, dim, keepdim, np.argmax)


def argmin(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The index of the first smallest element over `dim`, as `argmax` counts.

    >>> import lazytensor as lt
    >>> lt.tensor([[1, 9], [7, 2]]).argmin(1).tolist()
    [0, 1]
    """
    return _arg_reduce(t, dim, keepdim, np.argmin)


def _truth(values: Buffer) -> Buffer:
    return values if values.dtype == np.bool_ else values.astype(bool)


def tall(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """Whether every element over `dim` is true: a bool tensor.

    >>> import lazytensor as lt
    >>> lt.tensor([[1, 0], [2, 3]]).all(1).tolist()
    [False, True]
    """
    values, axes = _prepare(t, dim)
    return new_tensor(_reduce(np.logical_and, _truth(values), axes, keepdim), values)


def tany(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """Whether any element over `dim` is true: a bool tensor.

    >>> import lazytensor as lt
    >>> lt.tensor([[1, 0], [0, 0]]).any(1).tolist()
    [True, False]
    """
    values, axes = _prepare(t, dim)
    return new_tensor(_reduce(np.logical_or, _truth(values), axes, keepdim), values)


def var(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The variance over `dim` with numpy's ddof 0 (divided by the count); exact for Fractions.

    >>> import lazytensor as lt
    >>> lt.tensor([1.0, 2.0, 3.0, 4.0]).var().item()
    1.25
    """
    values, axes = _prepare(t, dim)
    return new_tensor(var_values(values, axes, keepdim), values)


def std(t: Operand, dim: Dims = None, keepdim: bool = False) -> StorageTensor:
    """The standard deviation over `dim` (ddof 0): the square root of `var`.

    >>> import lazytensor as lt
    >>> lt.tensor([1.0, 3.0]).std().item()
    1.0
    """
    values, axes = _prepare(t, dim)
    return sqrt(var_values(values, axes, keepdim))


def _shifted(t: Operand, dim: int) -> tuple[Buffer, int]:
    """The values minus their maximum along `dim` (so exp never overflows), as floats for integers."""
    values = array_of(t)
    axis = normalize_dim(dim, values.ndim)
    if values.dtype.kind in "biu":
        values = values.astype(np.float64)
    if values.shape[axis] == 0:
        return values, axis
    return values - _reduce(np.maximum, values, axis, True), axis


def softmax(t: Operand, dim: int) -> StorageTensor:
    """`exp(x) / sum(exp(x))` along `dim`, computed after subtracting the maximum so it stays finite.

    >>> import lazytensor as lt
    >>> lt.tensor([1000.0, -1000.0]).softmax(0).tolist()
    [1.0, 0.0]
    """
    shifted, axis = _shifted(t, dim)
    powers = exp_values(shifted)
    return new_tensor(powers / _reduce(np.add, powers, axis, True))


def log_softmax(t: Operand, dim: int) -> StorageTensor:
    """`log(softmax(x))` along `dim`, as `x - max - log(sum(exp(x - max)))`: finite where softmax is 0.

    >>> import lazytensor as lt
    >>> lt.tensor([1000.0, -1000.0]).log_softmax(0).tolist()
    [0.0, -2000.0]
    """
    shifted, axis = _shifted(t, dim)
    total = _reduce(np.add, exp_values(shifted), axis, True)
    return new_tensor(shifted - log_values(total))

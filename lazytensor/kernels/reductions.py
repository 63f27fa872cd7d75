"""Reduction kernels over one axis, several or all: sum, mean, prod, max, min, argmax, argmin, all,
any, std, var, and the softmax family. numpy arrays in, numpy arrays out.

Each is one numpy reduction. Object arrays stay exact: the mean of Fractions is
a Fraction, because the sum is divided by the count once, at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from lazytensor.ground.buffers import check_fits
from lazytensor.ground.dtypes import OBJECT
from lazytensor.ground.positions import Shape, normalize_dim, normalize_dims, numel
from lazytensor.kernels import threads
from lazytensor.kernels.callables import Buffer, Values
from lazytensor.kernels.numeric import exp, log, sqrt

AxisSpec = int | Sequence[int] | None
"""Which axes a reduction runs over: one, several, or None for all."""


def _prepare(t: Values, dim: AxisSpec) -> tuple[Buffer, Shape]:
    values = np.asarray(t)
    return values, normalize_dims(dim, values.ndim)


class Cut(NamedTuple):
    """Values with every repeated axis (stride 0 and size > 1: an expanded view's) cut to size 1."""

    values: Buffer
    axes: Shape
    repeats: int
    """How many times each element repeats over the reduced axes."""
    shape: Shape
    """The values' shape before the cut."""

    def widened(self, result: Any, keepdim: bool) -> Buffer:
        """A result over the cut values broadcast back to what the whole values give (a copy, as
        numpy's reductions return a new array): the same where nothing but reduced axes were cut."""
        shape = tuple(
            1 if axis in self.axes else size
            for axis, size in enumerate(self.shape)
            if keepdim or axis not in self.axes
        )
        found = np.asarray(result)
        if found.shape == shape:
            return found
        check_fits(numel(shape), found.itemsize, lambda: f"a reduction's result of shape {shape}")
        return np.array(np.broadcast_to(found, shape))


def without_repeats(t: Values, dim: AxisSpec) -> Cut:
    """The values with every repeated axis (stride 0: an expanded view) cut to size 1, reduced or
    not, and how many times each element repeats over the reduced axes. Reductions then cost what
    the base costs, not what the expansion would: a sum over 10^12 repeats of three numbers is three
    additions and a multiplication, and a kept repeated axis is broadcast back at the end."""
    values, axes = _prepare(t, dim)
    repeated = [axis for axis in range(values.ndim) if values.strides[axis] == 0 and values.shape[axis] > 1]
    if not repeated:
        return Cut(values, axes, 1, values.shape)
    count = numel([values.shape[axis] for axis in repeated if axis in axes])
    cut = tuple(slice(0, 1) if axis in repeated else slice(None) for axis in range(values.ndim))
    return Cut(values[cut], axes, count, values.shape)


def _keep_object(result: Any, values: Buffer) -> Buffer:
    """numpy hands back a bare Python value when an object array reduces to one element."""
    return np.asarray(result, dtype=OBJECT if values.dtype == OBJECT else None)


def _reduce(ufunc: np.ufunc, values: Buffer, axes: Shape | int, keepdim: bool, dtype: Any = None) -> Any:
    """`ufunc.reduce` over `axes`: a numpy array, or a bare value when everything was reduced. Big
    work is split across threads (`lazytensor.kernels.threads`)."""
    if values.size >= threads.reduce_at:
        threaded = threads.reduce(ufunc, values, (axes,) if isinstance(axes, int) else axes, keepdim, dtype)
        if threaded is not None:
            return threaded
    return ufunc.reduce(values, axis=axes, dtype=dtype, keepdims=keepdim)


def _count(shape: Shape, axes: Shape) -> int:
    return numel([shape[axis] for axis in axes])


def sum_values(values: Buffer, axes: Shape, keepdim: bool, dtype: Any = None) -> Buffer:
    """The sum of a numpy array over `axes` (numpy's dtype: small integers and bool sum as int64,
    unless `dtype` names the accumulator and result, as numpy's `dtype=`)."""
    return _keep_object(_reduce(np.add, values, axes, keepdim, dtype), values)


def _divided(total: Buffer, divisor: int | float, values: Buffer, dtype: Any) -> Buffer:
    """`total / divisor`, as numpy's mean and var divide (nan or inf where the divisor is 0)."""
    if values.dtype == OBJECT:
        return _keep_object(total / divisor, values)
    with np.errstate(invalid="ignore", divide="ignore"):  # numpy's mean of nothing is nan
        quotient = np.asarray(total / divisor)
    return quotient if dtype is None else quotient.astype(dtype, copy=False)


def mean_values(values: Buffer, axes: Shape, keepdim: bool, dtype: Any = None) -> Buffer:
    """The true mean of a numpy array over `axes`: one sum, divided once by the count (summed in
    `dtype` when given, else in float64 for integers, as numpy)."""
    accumulate = dtype if dtype is not None else np.float64 if values.dtype.kind in "biu" else None
    total = _keep_object(_reduce(np.add, values, axes, keepdim, accumulate), values)
    return _divided(total, _count(values.shape, axes), values, dtype)


def var_values(
    values: Buffer, axes: Shape, keepdim: bool, ddof: int | float = 0, dtype: Any = None
) -> Buffer:
    """The variance of a numpy array over `axes`: the squared distances to the mean summed, divided
    by the count less `ddof` (numpy's degrees of freedom; 0 by default, the standard's `correction`)."""
    deviation = values - mean_values(values, axes, keepdim=True, dtype=dtype)
    squared = (deviation * deviation.conj()).real if deviation.dtype.kind == "c" else deviation * deviation
    if not ddof:
        return mean_values(squared, axes, keepdim, dtype)
    total = _keep_object(_reduce(np.add, squared, axes, keepdim, dtype), values)
    return _divided(total, max(_count(values.shape, axes) - ddof, 0), values, dtype)


def tsum(t: Values, dim: AxisSpec = None, keepdim: bool = False, dtype: Any = None) -> Buffer:
    """The sum over `dim` (an int, a tuple, or None for all axes).

    >>> tsum(np.arange(6).reshape(2, 3), 1).tolist()
    [3, 12]
    """
    cut = without_repeats(t, dim)
    total = sum_values(cut.values, cut.axes, keepdim, dtype)
    return cut.widened(total if cut.repeats == 1 else _keep_object(total * cut.repeats, cut.values), keepdim)


def mean(t: Values, dim: AxisSpec = None, keepdim: bool = False, dtype: Any = None) -> Buffer:
    """The arithmetic mean over `dim`: exact for Fractions, float64 for integers.

    >>> from fractions import Fraction
    >>> mean(np.array([Fraction(1, 2), Fraction(1, 3)])).item()
    Fraction(5, 12)
    """
    cut = without_repeats(t, dim)  # repeating every element changes no mean
    return cut.widened(mean_values(cut.values, cut.axes, keepdim, dtype), keepdim)


def prod(t: Values, dim: AxisSpec = None, keepdim: bool = False, dtype: Any = None) -> Buffer:
    """The product over `dim`.

    >>> prod(np.arange(1, 5)).item()
    24
    """
    cut = without_repeats(t, dim)
    result = _keep_object(_reduce(np.multiply, cut.values, cut.axes, keepdim, dtype), cut.values)
    return cut.widened(result if cut.repeats == 1 else _keep_object(result**cut.repeats, cut.values), keepdim)


def tmax(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """The largest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy).

    >>> tmax(np.array([[1, 5], [7, 2]]), 0).tolist()
    [7, 5]
    """
    cut = without_repeats(t, dim)
    return cut.widened(_keep_object(_reduce(np.maximum, cut.values, cut.axes, keepdim), cut.values), keepdim)


def tmin(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """The smallest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy).

    >>> tmin(np.array([[1, 5], [7, 2]]), 1).tolist()
    [1, 2]
    """
    cut = without_repeats(t, dim)
    return cut.widened(_keep_object(_reduce(np.minimum, cut.values, cut.axes, keepdim), cut.values), keepdim)


def _arg_reduce(t: Values, dim: AxisSpec, keepdim: bool, find: Callable[..., Any]) -> Buffer:
    """`find` (np.argmax or np.argmin) over the axes of `dim` taken together as one row-major axis."""
    cut = without_repeats(t, dim)
    values, axes = cut.values, cut.axes
    kept = [axis for axis in range(values.ndim) if axis not in axes]
    kept_shape = tuple(values.shape[axis] for axis in kept)
    rows = np.transpose(values, (*kept, *axes)).reshape((*kept_shape, _count(values.shape, axes)))
    index = np.asarray(find(rows, axis=-1))
    if values.shape != cut.shape and axes:  # the first extreme is at position 0 of each repeated axis
        reduced = [values.shape[axis] for axis in axes]
        whole = [cut.shape[axis] for axis in axes]
        index = np.asarray(np.ravel_multi_index(np.unravel_index(index, reduced), whole), dtype=index.dtype)
    if keepdim:
        index = index.reshape(tuple(1 if axis in axes else size for axis, size in enumerate(values.shape)))
    return cut.widened(index, keepdim)


def argmax(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """The index of the first largest element over `dim`; over several axes (or None: all) the index
    counts through them together in row-major order.

    >>> t = np.array([[1, 9], [7, 2]])
    >>> argmax(t).item(), argmax(t, 0).tolist()
    (1, [1, 0])
    """
    return _arg_reduce(t, dim, keepdim, np.argmax)


def argmin(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """The index of the first smallest element over `dim`, as `argmax` counts.

    >>> argmin(np.array([[1, 9], [7, 2]]), 1).tolist()
    [0, 1]
    """
    return _arg_reduce(t, dim, keepdim, np.argmin)


def _truth(values: Buffer) -> Buffer:
    return values if values.dtype == np.bool_ else values.astype(bool)


def tall(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """Whether every element over `dim` is true: a bool tensor.

    >>> tall(np.array([[1, 0], [2, 3]]), 1).tolist()
    [False, True]
    """
    cut = without_repeats(t, dim)
    return cut.widened(_reduce(np.logical_and, _truth(cut.values), cut.axes, keepdim), keepdim)


def tany(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """Whether any element over `dim` is true: a bool tensor.

    >>> tany(np.array([[1, 0], [0, 0]]), 1).tolist()
    [True, False]
    """
    cut = without_repeats(t, dim)
    return cut.widened(_reduce(np.logical_or, _truth(cut.values), cut.axes, keepdim), keepdim)


def var(
    t: Values, dim: AxisSpec = None, keepdim: bool = False, ddof: int | float = 0, dtype: Any = None
) -> Buffer:
    """The variance over `dim`, divided by the count less `ddof` (numpy's default 0); exact for
    Fractions.

    >>> var(np.array([1.0, 2.0, 3.0, 4.0])).item(), var(np.array([1.0, 2.0, 3.0, 4.0]), ddof=1).item()
    (1.25, 1.6666666666666667)
    """
    cut = without_repeats(t, dim)
    if dtype is not None and np.dtype(dtype).kind in "biu":  # numpy's integer steps: on every element
        values, axes = _prepare(t, dim)
        return var_values(values, axes, keepdim, ddof, dtype)
    if not ddof or cut.repeats == 1:  # the variance of repeats is the variance of one copy
        return cut.widened(var_values(cut.values, cut.axes, keepdim, ddof, dtype), keepdim)
    # the repeats count towards the degrees of freedom: the squared distances of one copy, repeated
    deviations = var_values(cut.values, cut.axes, keepdim, 0, dtype) * _count(cut.values.shape, cut.axes)
    divisor = max(_count(cut.shape, cut.axes) - ddof, 0)
    return cut.widened(_divided(deviations * cut.repeats, divisor, cut.values, dtype), keepdim)


def std(
    t: Values, dim: AxisSpec = None, keepdim: bool = False, ddof: int | float = 0, dtype: Any = None
) -> Buffer:
    """The standard deviation over `dim` (`ddof` as `var`): the square root of `var`.

    >>> std(np.array([1.0, 3.0])).item(), std(np.array([1.0, 3.0]), ddof=1).item()
    (1.0, 1.4142135623730951)
    """
    variance = var(t, dim, keepdim, ddof, dtype)
    if variance.dtype.kind not in "biu":
        return sqrt(variance)
    return _integer_root(variance)


def _integer_root(variance: Buffer) -> Buffer:
    """numpy's std with an integer `dtype=`: a scalar result keeps the dtype (the root truncated); an
    array result takes numpy's own step, the root written back into the variance, which raises
    numpy's casting error.

    >>> _integer_root(np.array(8)).item()
    2
    """
    if variance.ndim == 0:
        return np.asarray(variance.dtype.type(np.sqrt(variance)))
    return np.sqrt(variance, out=variance)


def _shifted(t: Values, dim: int) -> tuple[Buffer, int]:
    """The values minus their maximum along `dim` (so exp never overflows), as floats for integers."""
    values = np.asarray(t)
    axis = normalize_dim(dim, values.ndim)
    if values.dtype.kind in "biu":
        values = values.astype(np.float64)
    if values.shape[axis] == 0:
        return values, axis
    return values - _reduce(np.maximum, values, axis, True), axis


def softmax(t: Values, dim: int) -> Buffer:
    """`exp(x) / sum(exp(x))` along `dim`, computed after subtracting the maximum so it stays finite.

    >>> softmax(np.array([1000.0, -1000.0]), 0).tolist()
    [1.0, 0.0]
    """
    shifted, axis = _shifted(t, dim)
    powers = exp(shifted)
    result: Buffer = powers / _reduce(np.add, powers, axis, True)
    return result


def log_softmax(t: Values, dim: int) -> Buffer:
    """`log(softmax(x))` along `dim`, as `x - max - log(sum(exp(x - max)))`: finite where softmax is 0.

    >>> log_softmax(np.array([1000.0, -1000.0]), 0).tolist()
    [0.0, -2000.0]
    """
    shifted, axis = _shifted(t, dim)
    total = _reduce(np.add, exp(shifted), axis, True)
    result: Buffer = shifted - log(total)
    return result


# -- ignoring NaN, cumulative, sorting ------------------------------------------------------


def nansum(t: Values, dim: AxisSpec = None, keepdim: bool = False, dtype: Any = None) -> Buffer:
    """The sum over `dim`, NaN counted as zero (numpy's `nansum`).

    >>> nansum(np.array([1.0, np.nan, 2.0])).item()
    3.0
    """
    cut = without_repeats(t, dim)
    total = np.asarray(np.nansum(cut.values, axis=cut.axes, keepdims=keepdim, dtype=dtype))
    return cut.widened(total if cut.repeats == 1 else _keep_object(total * cut.repeats, cut.values), keepdim)


def nanmean(t: Values, dim: AxisSpec = None, keepdim: bool = False, dtype: Any = None) -> Buffer:
    """The mean over `dim` of the elements that are not NaN (NaN, with numpy's warning, where all are).

    >>> nanmean(np.array([[1.0, np.nan], [2.0, 4.0]]), 1).tolist()
    [1.0, 3.0]
    """
    cut = without_repeats(t, dim)
    return cut.widened(np.nanmean(cut.values, axis=cut.axes, keepdims=keepdim, dtype=dtype), keepdim)


def nanmax(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """The largest element over `dim`, NaN ignored (numpy's `nanmax`).

    >>> nanmax(np.array([1.0, np.nan, 3.0])).item()
    3.0
    """
    cut = without_repeats(t, dim)
    return cut.widened(np.nanmax(cut.values, axis=cut.axes, keepdims=keepdim), keepdim)


def nanmin(t: Values, dim: AxisSpec = None, keepdim: bool = False) -> Buffer:
    """The smallest element over `dim`, NaN ignored (numpy's `nanmin`).

    >>> nanmin(np.array([1.0, np.nan, 3.0])).item()
    1.0
    """
    cut = without_repeats(t, dim)
    return cut.widened(np.nanmin(cut.values, axis=cut.axes, keepdims=keepdim), keepdim)


def _scan_axis(values: Buffer, dim: int | None) -> int | None:
    return None if dim is None else normalize_dim(dim, values.ndim)


def cumsum(t: Values, dim: int | None = None, dtype: Any = None) -> Buffer:
    """The running sums along `dim` (None: over the flattened values), numpy's `cumsum`.

    >>> cumsum(np.array([[1, 2], [3, 4]]), 1).tolist(), cumsum(np.array([[1, 2], [3, 4]])).tolist()
    ([[1, 3], [3, 7]], [1, 3, 6, 10])
    """
    values = np.asarray(t)
    return np.asarray(np.cumsum(values, axis=_scan_axis(values, dim), dtype=dtype))


def cumprod(t: Values, dim: int | None = None, dtype: Any = None) -> Buffer:
    """The running products along `dim` (None: over the flattened values), numpy's `cumprod`.

    >>> cumprod(np.array([1, 2, 3, 4])).tolist()
    [1, 2, 6, 24]
    """
    values = np.asarray(t)
    return np.asarray(np.cumprod(values, axis=_scan_axis(values, dim), dtype=dtype))


def sort(t: Values, dim: int | None = -1, kind: str | None = None, descending: bool = False) -> Buffer:
    """The values sorted along `dim` (None: flattened first), numpy's `sort`; `descending` puts the
    largest first (equal elements keep their order when the sort is stable).

    >>> sort(np.array([[3, 1, 2], [0, 5, 4]])).tolist(), sort(np.array([3, 1, 2]), descending=True).tolist()
    ([[1, 2, 3], [0, 4, 5]], [3, 2, 1])
    """
    values = np.asarray(t)
    if not descending:
        return np.sort(values, axis=_scan_axis(values, dim), kind=kind)  # type: ignore[arg-type]
    if dim is None:
        values, dim = values.reshape(-1), 0
    order = argsort(values, dim, kind, descending=True)
    return np.take_along_axis(values, order, axis=_scan_axis(values, dim))


def argsort(t: Values, dim: int | None = -1, kind: str | None = None, descending: bool = False) -> Buffer:
    """The indices that sort the values along `dim` (None: flattened first), numpy's `argsort`;
    `descending` orders the largest first, equal elements in their first order when stable (the
    array API's rule): the ascending order of the reversed values, reversed.

    >>> argsort(np.array([3, 1, 2])).tolist(), argsort(np.array([1, 3, 1]), descending=True).tolist()
    ([1, 2, 0], [1, 0, 2])
    """
    values = np.asarray(t)
    axis = _scan_axis(values, dim)
    if not descending:
        return np.argsort(values, axis=axis, kind=kind)  # type: ignore[arg-type]
    if axis is None:
        values, axis = values.reshape(-1), 0
    reversed_order = np.argsort(np.flip(values, axis), axis=axis, kind=kind)  # type: ignore[arg-type]
    found: Buffer = values.shape[axis] - 1 - np.flip(reversed_order, axis)
    return found

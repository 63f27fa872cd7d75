"""Dtype names, and the dtype of values a Python callable returned.

A per-element operator hands back a flat list of Python values; the tensor that
holds them gets numpy's dtype for those values when it is a plain numeric one
(bool, integers, floats, complex) and `object` otherwise, so that Fractions,
Decimals and any other Python value are kept as they are, never rounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.ground.positions import Shape

NUMERIC_KINDS = frozenset("biufc")
OBJECT = np.dtype(object)


def as_dtype(dtype: npt.DTypeLike) -> np.dtype[Any]:
    """A numpy dtype from anything numpy accepts, plus the name "bfloat16" when `ml_dtypes` is installed.

    >>> as_dtype("float32"), as_dtype(int)
    (dtype('float32'), dtype('int64'))
    """
    if isinstance(dtype, str) and dtype == "bfloat16":
        try:
            import ml_dtypes  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise TypeError("dtype 'bfloat16' needs the optional package ml_dtypes") from None
        bfloat16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
        return bfloat16
    return np.dtype(dtype)


def dtype_name(dtype: npt.DTypeLike) -> str:
    """The short name of a dtype, as numpy and PyTorch users write it.

    >>> dtype_name(np.float32), dtype_name(object)
    ('float32', 'object')
    """
    return as_dtype(dtype).name


def is_exact(dtype: npt.DTypeLike) -> bool:
    """Whether arithmetic on this dtype is exact: integers, bool, and object (Fraction, Decimal, int).

    >>> is_exact(np.int32), is_exact(np.float64), is_exact(object)
    (True, False, True)
    """
    return as_dtype(dtype).kind in "biuO"


def infer_array(values: Sequence[Any]) -> npt.NDArray[Any]:
    """A 1-D array of `values` with numpy's dtype for them when it is numeric, else dtype object.

    Values that are themselves sequences stay single elements (numpy would add an axis).

    >>> infer_array([1, 2]).dtype, infer_array([1, 2.5]).dtype, infer_array([True]).dtype
    (dtype('int64'), dtype('float64'), dtype('bool'))
    >>> from fractions import Fraction
    >>> infer_array([Fraction(1, 3), 2]).dtype, infer_array(["a", "b"]).dtype
    (dtype('O'), dtype('O'))
    """
    try:
        array = np.array(values)
    except (ValueError, TypeError, OverflowError):
        return object_array(values)
    if array.shape != (len(values),) or array.dtype.kind not in NUMERIC_KINDS:
        return object_array(values)
    return array


def object_array(values: Sequence[Any]) -> npt.NDArray[Any]:
    """A 1-D object array holding each of `values` as it is (tuples and arrays included).

    >>> object_array([(1, 2), (3, 4)]).shape
    (2,)
    """
    return np.fromiter(values, dtype=OBJECT, count=len(values))


def array_from_values(
    values: Sequence[Any], shape: Shape, dtype: npt.DTypeLike | None, empty_dtype: np.dtype[Any]
) -> npt.NDArray[Any]:
    """The row-major `values` as an array of `shape`: dtype inferred from them unless `dtype` is given.

    With no values at all there is nothing to infer from, so `empty_dtype` (the input's) is used.

    >>> array_from_values([1, 2, 3, 4], (2, 2), None, np.dtype(float)).tolist()
    [[1, 2], [3, 4]]
    >>> array_from_values([], (0, 3), None, np.dtype(np.int32)).dtype
    dtype('int32')
    """
    if dtype is not None:
        target = as_dtype(dtype)
        flat = object_array(values) if target == OBJECT else np.array(values, dtype=target)
    elif not values:
        flat = np.empty(0, dtype=empty_dtype)
    else:
        flat = infer_array(values)
    return flat.reshape(shape)


def fold_dtype(dtype: np.dtype[Any], init: Any) -> np.dtype[Any]:
    """The dtype a fold `op(op(init, x0), x1)...` computes in: numpy's promotion of the array's dtype
    and `init` (a Python number counts weakly, as in numpy 2), `object` for any other Python value.

    >>> fold_dtype(np.dtype(np.int32), 0), fold_dtype(np.dtype(np.int32), 0.5)
    (dtype('int32'), dtype('float64'))
    >>> fold_dtype(np.dtype(np.int64), 2**70)
    dtype('O')
    >>> from fractions import Fraction
    >>> fold_dtype(np.dtype(np.float64), Fraction(1, 2))
    dtype('O')
    """
    if not isinstance(init, bool | int | float | complex | np.generic):
        return OBJECT
    try:
        result = np.result_type(dtype, init)
    except (TypeError, OverflowError, ValueError):
        return OBJECT
    if isinstance(init, int) and result.kind in "iu" and not _fits(init, result):
        return OBJECT
    return result


def _fits(value: int, dtype: np.dtype[Any]) -> bool:
    info = np.iinfo(dtype)
    return int(info.min) <= value <= int(info.max)

"""Kernels of numpy's routines that are not one ufunc: copying, `unique`'s parts, casting, counting,
differences, searching, sets, taking, repeating, triangles, the `linalg` and `fft` extensions.
numpy arrays in, numpy arrays out; each is numpy's own function with the standard's parameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lazytensor.ground import find_nonzero
from lazytensor.ground.positions import normalize_dim
from lazytensor.kernels.callables import Buffer, Values
from lazytensor.kernels.reductions import without_repeats

# -- copies and unique's parts ------------------------------------------------------------------


def copy(t: Values) -> Buffer:
    """A new C-contiguous array holding the values.

    >>> copy(np.arange(3)[::-1]).tolist()
    [2, 1, 0]
    """
    return np.array(t, copy=True, order="C")


def unique(t: Values, part: str = "values") -> Buffer:
    """The sorted distinct values (`part="values"`), or what numpy's `unique` returns beside them:
    the first index of each (`"index"`), where each element went (`"inverse"`, in the input's
    shape, as numpy 2), or how often each occurs (`"counts"`).

    >>> unique(np.array([3, 1, 3])).tolist(), unique(np.array([3, 1, 3]), "counts").tolist()
    ([1, 3], [1, 2])
    """
    values = np.asarray(t)
    if part == "index":
        return np.unique(values, return_index=True)[1]
    if part == "inverse":
        return np.unique(values, return_inverse=True)[1]
    if part == "counts":
        return np.unique(values, return_counts=True)[1]
    return np.unique(values)


# -- the array API standard's routines ----------------------------------------------------------


def astype(values: Values, dtype: Any) -> Buffer:
    """A copy of the values converted to `dtype` (numpy's unsafe casting, as `astype`).

    >>> astype(np.array([1.7, -2.5]), np.int32).tolist()
    [1, -2]
    """
    return np.array(values, dtype=dtype, copy=True, order="C")


def count_nonzero(values: Values, axis: Any = None, keepdims: bool = False) -> Buffer:
    """How many elements are not zero over `axis` (None: all), as int64.

    >>> count_nonzero(np.array([[0, 1], [2, 3]]), axis=0).tolist()
    [1, 2]
    """
    cut = without_repeats(values, axis)  # an expanded view: counted over its base, then multiplied
    if axis is None and not keepdims:
        return np.asarray(find_nonzero.count_nonzero(cut.values) * cut.repeats, dtype=np.int64)
    found = np.count_nonzero(cut.values, axis=cut.axes, keepdims=keepdims) * cut.repeats
    return cut.widened(np.asarray(found, dtype=np.int64), keepdims)


def diff(values: Values, axis: int = -1, n: int = 1) -> Buffer:
    """The `n`-th forward difference along `axis`.

    >>> diff(np.array([1, 4, 9, 16]), n=2).tolist()
    [2, 2]
    """
    return np.diff(np.asarray(values), n=n, axis=axis)


def searchsorted(sorted_values: Values, values: Values, side: str = "left", sorter: Any = None) -> Buffer:
    """Where each of `values` would go in the sorted 1-D `sorted_values` to keep it sorted.

    >>> searchsorted(np.array([1, 3, 5]), np.array([0, 3, 6]), side="right").tolist()
    [0, 2, 3]
    """
    return np.asarray(np.searchsorted(sorted_values, values, side=side, sorter=sorter))  # type: ignore[call-overload]


def unique_field(values: Values, field: str) -> Buffer:
    """One field of numpy's `unique_all` (values, indices, inverse_indices, counts); NaNs are distinct.

    >>> unique_field(np.array([3, 1, 3]), "counts").tolist()
    [1, 2]
    """
    found: Buffer = getattr(np.unique_all(np.asarray(values)), field)
    return found


def take(values: Values, indices: Values, axis: int | None = None) -> Buffer:
    """The elements at `indices` (1-D) along `axis` (None: of the flattened values).

    >>> take(np.array([[1, 2], [3, 4]]), np.array([1, 1]), axis=1).tolist()
    [[2, 2], [4, 4]]
    """
    return np.asarray(np.take(values, indices, axis=axis))


def take_along_axis(values: Values, indices: Values, axis: int = -1) -> Buffer:
    """`values[..., indices[..., i, ...], ...]` along `axis`, the other axes broadcast.

    >>> take_along_axis(np.array([[10, 20], [30, 40]]), np.array([[1], [0]]), axis=1).tolist()
    [[20], [30]]
    """
    array, index = np.asarray(values), np.asarray(indices)
    axis = normalize_dim(axis, array.ndim)
    shape = list(np.broadcast_shapes((*array.shape[:axis], 1, *array.shape[axis + 1 :]), index.shape))
    index = np.broadcast_to(index, (*shape[:axis], index.shape[axis], *shape[axis + 1 :]))
    array = np.broadcast_to(array, (*shape[:axis], array.shape[axis], *shape[axis + 1 :]))
    return np.take_along_axis(array, index, axis=axis)


def repeat(values: Values, repeats: Any, axis: int = 0) -> Buffer:
    """Each element along `axis` repeated `repeats` times (an int, or one count per element).

    >>> repeat(np.array([1, 2]), np.array([2, 0]), axis=0).tolist()
    [1, 1]
    """
    return np.repeat(values, repeats, axis=axis)


def roll(values: Values, shift: Any, axis: Any = None) -> Buffer:
    """The elements shifted by `shift` along `axis` (None: of the flattened values), wrapping round.

    >>> roll(np.array([1, 2, 3]), 1).tolist()
    [3, 1, 2]
    """
    return np.roll(values, shift, axis=axis)


def tile(values: Values, repetitions: tuple[int, ...]) -> Buffer:
    """The values repeated `repetitions[i]` times along axis `i` (numpy's `tile`).

    >>> tile(np.array([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
    """
    return np.tile(values, repetitions)


def tril(values: Values, k: int = 0) -> Buffer:
    """The lower triangle of each matrix (zeros above diagonal `k`).

    >>> tril(np.ones((2, 2), dtype=int)).tolist()
    [[1, 0], [1, 1]]
    """
    return np.tril(values, k)


def triu(values: Values, k: int = 0) -> Buffer:
    """The upper triangle of each matrix (zeros below diagonal `k`).

    >>> triu(np.ones((2, 2), dtype=int)).tolist()
    [[1, 1], [0, 1]]
    """
    return np.triu(values, k)


# -- linalg: numpy's kernels, one output per operation -----------------------------------------


def linalg(values: Values, function: str, field: str | None = None, **params: Any) -> Buffer:
    """`np.linalg.<function>(values, **params)`, or one named field of its result (eigh, qr, svd, slogdet).

    >>> linalg(np.array([[2.0, 0.0], [0.0, 4.0]]), "eigh", "eigenvalues").tolist()
    [2.0, 4.0]
    """
    result = getattr(np.linalg, function)(values, **params)
    return np.asarray(result if field is None else getattr(result, field))


def cross(x1: Values, x2: Values, axis: int = -1) -> Buffer:
    """The cross product of 3-vectors along `axis`, the other axes broadcast.

    >>> cross(np.array([1, 0, 0]), np.array([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    return np.asarray(np.linalg.cross(x1, x2, axis=axis))


def solve(x1: Values, x2: Values) -> Buffer:
    """The solution of `x1 @ out = x2`: `x2` is a vector when it is 1-D, else a stack of matrices.

    >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    return np.asarray(np.linalg.solve(x1, x2))


# -- fft -------------------------------------------------------------------------------------------


def fft(values: Values, function: str, **params: Any) -> Buffer:
    """`np.fft.<function>(values, **params)`: numpy's transforms, which keep single precision.

    >>> fft(np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32), "fft").tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    return np.asarray(getattr(np.fft, function)(np.asarray(values), **params))

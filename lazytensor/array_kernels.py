"""Kernels of the array API standard's operations that are not one numpy ufunc: casting, counting,
differences, searching, sets, taking, repeating, triangles, the `linalg` and `fft` extensions.
numpy arrays in, numpy arrays out; each is numpy's own function with the standard's parameters.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from lazytensor.chunkforms import ChunkedForm
from lazytensor.generic import Buffer, Values
from lazytensor.positions import normalize_dim, normalize_dims


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
    return np.asarray(np.count_nonzero(values, axis=axis, keepdims=keepdims), dtype=np.int64)


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


# -- chunked (dask) forms of the entries above that dask's own functions do not give as they are ----
# Each takes the `dask.array` module, the entry's kernel, the operands and the parameters.


def _count_nonzero_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    axes = params.get("axis")
    counted = (x != 0).sum(axis=axes, keepdims=params.get("keepdims", False))
    return counted.astype(np.int64)


def _take_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, indices = inputs
    axis = params.get("axis")
    if axis is None:
        return da.take(x.reshape(-1), np.asarray(indices), axis=0)
    return da.take(x, np.asarray(indices), axis=normalize_dim(axis, x.ndim))


def _searchsorted_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """dask's searchsorted, with numpy's `sorter` (which dask refuses) applied first: searching
    `x[sorter]` is what numpy's `sorter` means."""
    sorted_values, values = (da.asarray(x) for x in inputs)
    sorter = params.get("sorter")
    if sorter is not None:
        sorted_values = sorted_values[np.asarray(sorter)]
    return da.searchsorted(sorted_values, values, side=params.get("side", "left"))


def _repeat_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    repeats = params["repeats"]
    if not isinstance(repeats, int):
        raise TypeError(
            "repeat on a dask-backed tensor takes one int count (dask's repeat); compute it first"
        )
    return da.repeat(inputs[0], repeats, axis=params.get("axis", 0))


def _tile_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return da.tile(inputs[0], params["repetitions"])


def _cross_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """The cross product from the components: each vector axis moved last and picked by lists."""
    axis = params.get("axis", -1)
    a, b = (da.moveaxis(da.asarray(x), axis, -1) for x in inputs)
    after, before = [1, 2, 0], [2, 0, 1]
    product = a[..., after] * b[..., before] - a[..., before] * b[..., after]
    return da.moveaxis(product, -1, axis)


def _vector_norm_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """The norms from dask's reductions of the magnitudes (as numpy's `vector_norm` computes them)."""
    x = inputs[0]
    magnitude = abs(x)
    axes = normalize_dims(params.get("axis"), x.ndim)
    keep = params.get("keepdims", False)
    order = params.get("ord", 2)
    if order == np.inf:
        return magnitude.max(axis=axes, keepdims=keep)
    if order == -np.inf:
        return magnitude.min(axis=axes, keepdims=keep)
    if order == 0:
        return (magnitude != 0).sum(axis=axes, keepdims=keep).astype(magnitude.dtype)
    if order == 1:
        return magnitude.sum(axis=axes, keepdims=keep)
    if order == 2:
        return da.sqrt((magnitude * magnitude).sum(axis=axes, keepdims=keep))
    return ((magnitude**order).sum(axis=axes, keepdims=keep)) ** (1.0 / order)


def _shift_chunked(name: str, da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return getattr(da.fft, name)(inputs[0], axes=params.get("axes"))


COUNT_NONZERO = ChunkedForm(_count_nonzero_chunked)
TAKE = ChunkedForm(_take_chunked)
SEARCHSORTED = ChunkedForm(_searchsorted_chunked)
REPEAT = ChunkedForm(_repeat_chunked)
TILE = ChunkedForm(_tile_chunked)
CROSS = ChunkedForm(_cross_chunked)
VECTOR_NORM = ChunkedForm(_vector_norm_chunked)


def fft_shift(name: str) -> ChunkedForm:
    """dask's `fftshift`/`ifftshift` (rolls of every named axis)."""
    return ChunkedForm(functools.partial(_shift_chunked, name))

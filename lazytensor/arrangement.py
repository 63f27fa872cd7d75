"""Kernels that copy elements into a new arrangement, and their gradients: roll, repeat, tile,
take, unique, and a plain copy. numpy arrays in, numpy arrays out (numpy's own functions).

Each gradient sends every element of the result's gradient back to the element it was copied
from, adding where one element was copied several times.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lazytensor.generic import Buffer, Values
from lazytensor.positions import normalize_dim


def copy(t: Values) -> Buffer:
    """A new C-contiguous array holding the values.

    >>> copy(np.arange(3)[::-1]).tolist()
    [2, 1, 0]
    """
    return np.array(t, copy=True, order="C")


def roll(t: Values, shift: int | tuple[int, ...], axis: int | tuple[int, ...] | None = None) -> Buffer:
    """The values shifted along `axis` (None: flattened), wrapping around: numpy's `roll`.

    >>> roll(np.arange(4), 1, None).tolist()
    [3, 0, 1, 2]
    """
    return np.roll(np.asarray(t), shift, axis=axis)


def unroll(g: Buffer, shift: int | tuple[int, ...], axis: int | tuple[int, ...] | None) -> Buffer:
    """The gradient of `roll`: the result's gradient rolled back.

    >>> unroll(np.array([3, 0, 1, 2]), 1, None).tolist()
    [0, 1, 2, 3]
    """
    back = -shift if isinstance(shift, int) else tuple(-s for s in shift)
    return np.roll(g, back, axis=axis)


def repeat(t: Values, repeats: Any, axis: int | None = 0) -> Buffer:
    """Each element repeated `repeats` times along `axis` (None: flattened first): numpy's `repeat`.

    >>> repeat(np.array([[1, 2]]), 2, None).tolist()
    [1, 1, 2, 2]
    """
    return np.repeat(np.asarray(t), repeats, axis=axis)


def unrepeat(x: Values, g: Buffer, repeats: Any, axis: int | None) -> Buffer:
    """The gradient of `repeat`: each run of copies summed back into the element it came from.

    >>> unrepeat(np.zeros(2), np.array([1.0, 2.0, 3.0]), [1, 2], None).tolist()
    [1.0, 5.0]
    """
    values = np.asarray(x)
    flat = axis is None
    along = 0 if axis is None else normalize_dim(axis, values.ndim)
    size = values.size if flat else values.shape[along]
    sources = np.repeat(np.arange(size), repeats)
    shape = (size,) if flat else values.shape
    grad = np.zeros(shape, dtype=g.dtype)
    np.add.at(np.moveaxis(grad, along, 0), sources, np.moveaxis(g, along, 0))
    return grad.reshape(values.shape)


def tile(t: Values, repetitions: tuple[int, ...]) -> Buffer:
    """The values tiled `repetitions` times along each axis: numpy's `tile`.

    >>> tile(np.array([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
    """
    return np.tile(np.asarray(t), repetitions)


def untile(x: Values, g: Buffer, repetitions: tuple[int, ...]) -> Buffer:
    """The gradient of `tile`: the tiles' gradients summed.

    >>> untile(np.zeros(2), np.array([1.0, 2.0, 3.0, 4.0]), (2,)).tolist()
    [4.0, 6.0]
    """
    shape = np.shape(x)
    ndim = max(len(shape), len(repetitions))
    sizes = (1,) * (ndim - len(shape)) + tuple(shape)
    counts = (1,) * (ndim - len(repetitions)) + tuple(repetitions)
    split = [n for pair in zip(counts, sizes, strict=True) for n in pair]
    summed: Buffer = g.reshape(split).sum(axis=tuple(range(0, 2 * ndim, 2)))
    return summed.reshape(shape)


def take(t: Values, indices: Values, axis: int | None = None) -> Buffer:
    """The elements at `indices` along `axis` (None: of the values flattened): numpy's `take`.

    >>> take(np.array([[1, 2], [3, 4]]), np.array([1, 1]), 1).tolist()
    [[2, 2], [4, 4]]
    """
    return np.take(np.asarray(t), np.asarray(indices), axis=axis)


def untake(x: Values, g: Buffer, indices: Values, axis: int | None) -> Buffer:
    """The gradient of `take`: each taken element's gradient added back where it was taken from.

    >>> untake(np.zeros(3), np.array([1.0, 2.0]), np.array([2, 2]), None).tolist()
    [0.0, 0.0, 3.0]
    """
    values = np.asarray(x)
    index = np.asarray(indices)
    grad = np.zeros(values.shape, dtype=g.dtype)
    if axis is None:
        np.add.at(grad.reshape(-1), index, g)
        return grad
    along = normalize_dim(axis, values.ndim)
    moved = np.moveaxis(g, tuple(range(along, along + index.ndim)), tuple(range(index.ndim)))
    np.add.at(np.moveaxis(grad, along, 0), index, moved)
    return grad


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

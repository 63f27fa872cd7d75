"""Hypothesis strategies for the operator tests: a tensor that is a view, with the numpy array it equals."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st

import lazytensor as lt

DTYPES = [np.float32, np.int32, np.uint16, np.complex64, np.bool_, np.float64, np.int64]
VIEW_KINDS = ["plain", "transposed", "flipped", "listed", "expanded"]

Pair = tuple[lt.AbstractTensor, npt.NDArray[Any]]


def random_array(draw: st.DrawFn, shape: tuple[int, ...], dtype: Any) -> npt.NDArray[Any]:
    """Small values of `dtype`, so sums and products stay exact and in range."""
    size = int(np.prod(shape))
    ints = draw(st.lists(st.integers(-4, 4), min_size=size, max_size=size))
    values = np.array(ints, dtype=np.int64).reshape(shape)
    kind = np.dtype(dtype).kind
    if kind == "u":
        values = np.abs(values)
    if kind == "b":
        return values > 0
    if kind == "c":
        return (values + 1j * values[..., ::-1]).astype(dtype) if values.ndim else values.astype(dtype)
    return values.astype(dtype)


@st.composite
def view_pairs(draw: st.DrawFn, shape: tuple[int, ...], dtype: Any) -> Pair:
    """A tensor of exactly `shape` built as one kind of view on fresh storage, and its numpy twin."""
    kinds = VIEW_KINDS if shape else ["plain"]
    kind = draw(st.sampled_from(kinds))
    if kind == "transposed":
        base = random_array(draw, shape[::-1], dtype)
        return lt.tensor(base).T, base.T
    if kind == "flipped":
        base = random_array(draw, (2 * shape[0], *shape[1:]), dtype)
        return lt.tensor(base)[::-2], base[::-2]
    if kind == "listed":
        rows = shape[0] + 1
        picks = draw(st.lists(st.integers(0, rows - 1), min_size=shape[0], max_size=shape[0]))
        base = random_array(draw, (rows, *shape[1:]), dtype)
        return lt.tensor(base)[picks], base[picks]
    if kind == "expanded":
        base = random_array(draw, (1, *shape[1:]), dtype)
        return lt.tensor(base).expand(shape), np.broadcast_to(base, shape)
    base = random_array(draw, shape, dtype)
    return lt.tensor(base), base


Written = tuple[lt.AbstractTensor, npt.NDArray[Any], Any]


@st.composite
def written_view_pairs(draw: st.DrawFn, shape: tuple[int, ...], dtype: Any) -> Written:
    """A view of exactly `shape` that can be written (no expand), with its numpy twin as a target and
    a key: numpy's `target[key] += x` is the write through the view (buffered: where a list repeats an
    index, the last write wins) and `target[key]` reads the view back."""
    kind = draw(st.sampled_from([kind for kind in VIEW_KINDS if kind != "expanded"] if shape else ["plain"]))
    if kind == "transposed":
        base = random_array(draw, shape[::-1], dtype)
        return lt.tensor(base.copy()).T, base.T, ...
    if kind == "flipped":
        base = random_array(draw, (2 * shape[0], *shape[1:]), dtype)
        return lt.tensor(base.copy())[::-2], base, slice(None, None, -2)
    if kind == "listed":
        rows = shape[0] + 1
        picks = draw(st.lists(st.integers(0, rows - 1), min_size=shape[0], max_size=shape[0]))
        base = random_array(draw, (rows, *shape[1:]), dtype)
        return lt.tensor(base.copy())[picks], base, picks
    base = random_array(draw, shape, dtype)
    return lt.tensor(base.copy()), base, ...


shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple)


@st.composite
def broadcastable_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast: each axis of the shorter one is the other's size or 1."""
    result = draw(shapes)
    other_rank = draw(st.integers(0, len(result)))
    other = tuple(draw(st.sampled_from([size, 1])) for size in result[len(result) - other_rank :])
    return (result, other) if draw(st.booleans()) else (other, result)

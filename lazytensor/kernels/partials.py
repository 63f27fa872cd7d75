"""Reductions one block at a time: each reduction's running result takes the values of one block
(numpy arrays, reduced over `axes` with the block's kept positions in place) and gives numpy's
result at the end, so a tensor that does not fit in memory reduces with one block in memory.

Sums, products and counts add up; extremes and truth values merge elementwise; `argmax`/`argmin`
keep each block's winner with its row-major index through the reduced axes (the first one wins a
tie, and NaN wins as in numpy); `mean`, `var` and `std` keep counts, means and sums of squared
deviations in float64 (complex128), merged pairwise as Chan et al. do, so they are as sound as a
two-pass computation.
"""

from __future__ import annotations

import abc
import math
import warnings
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from lazytensor.ground.positions import Shape
from lazytensor.kernels.callables import Buffer

Key = tuple[slice, ...]


@attrs.frozen
class Block:
    """Where one block's partial result goes: `at`, its kept positions in the result (reduced axes
    kept, of size 1); `first`, whether it starts every reduced axis (no partial was there before);
    `starts`, its first position along each reduced axis; `repeats`, how many times each of its
    values counts (reduced axes that repeat one value, read once)."""

    at: Key
    first: bool
    starts: tuple[int, ...] = ()
    repeats: int = 1


class Running(abc.ABC):
    """A reduction over `axes` of values of `dtype`, into a result of `shape` (reduced axes of size 1);
    each kind of reduction says how a block merges in and what the result is."""

    def __init__(self, dtype: np.dtype[Any], shape: Shape, axes: Shape) -> None:
        self.dtype = dtype
        self.shape = shape
        self.axes = axes

    @abc.abstractmethod
    def add(self, values: Buffer, block: Block) -> None:
        """Merge the reduction of one block's values into the result."""

    @abc.abstractmethod
    def result(self) -> Buffer:
        """numpy's result, reduced axes kept (of size 1)."""


def _quiet() -> Any:
    """numpy's warnings silenced inside a block (an all-NaN slice of one block is not one of the result)."""
    return np.errstate(all="ignore")


SUMS: dict[str, Callable[..., Any]] = {"sum": np.sum, "nansum": np.nansum, "prod": np.prod}
"""How one block of each sum reduces."""


class Summed(Running):
    """`sum`, `nansum` and `prod` in numpy's accumulator dtype (`dtype=` when given)."""

    def __init__(self, dtype: np.dtype[Any], shape: Shape, axes: Shape, how: str, given: Any) -> None:
        super().__init__(dtype, shape, axes)
        self.how = how
        reducer = np.prod if how == "prod" else np.sum
        self.result_dtype = np.asarray(reducer(np.zeros(1, dtype), dtype=given)).dtype
        self.total = (np.ones if how == "prod" else np.zeros)(shape, self.result_dtype)

    def add(self, values: Buffer, block: Block) -> None:
        reducer = SUMS[self.how]
        with _quiet():
            part = np.asarray(reducer(values, axis=self.axes, keepdims=True, dtype=self.result_dtype))
            if block.repeats > 1:
                part = part**block.repeats if self.how == "prod" else part * block.repeats
            if self.how == "prod":
                self.total[block.at] *= part
            else:
                self.total[block.at] += part

    def result(self) -> Buffer:
        return self.total


class Averaged(Running):
    """`mean` and `nanmean`: sums in float64 (complex128, or `dtype=`), divided once by the counts."""

    def __init__(
        self, dtype: np.dtype[Any], shape: Shape, axes: Shape, nan: bool, given: Any, count: int
    ) -> None:
        super().__init__(dtype, shape, axes)
        self.nan = nan and dtype.kind in "fc"
        self.result_dtype = np.mean(np.zeros(1, dtype), dtype=given).dtype
        self.accumulate = np.dtype(given) if given is not None else _wide(dtype)
        self.total = np.zeros(shape, self.accumulate)
        self.counts: Buffer | int = np.zeros(shape, np.int64) if self.nan else count

    def add(self, values: Buffer, block: Block) -> None:
        with _quiet():
            summed = np.nansum if self.nan else np.sum
            part = summed(values, axis=self.axes, keepdims=True, dtype=self.accumulate)
            self.total[block.at] += part * block.repeats if block.repeats > 1 else part
            if self.nan:
                counted = np.count_nonzero(~np.isnan(values), axis=self.axes, keepdims=True)
                self.counts[block.at] += counted * block.repeats  # type: ignore[index]

    def result(self) -> Buffer:
        if self.nan and np.any(np.asarray(self.counts) == 0):
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        with _quiet():
            return np.asarray(self.total / self.counts).astype(self.result_dtype, copy=False)


def _wide(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Where a mean or a variance accumulates: complex128 for complex values, float64 for the rest."""
    return np.dtype(np.complex128 if dtype.kind == "c" else np.float64)


class Spread(Running):
    """`var` and `std`: per position a count, a mean and a sum of squared deviations, each block's
    merged with Chan et al.'s update (exact counts; no cancellation of large sums of squares)."""

    def __init__(
        self, dtype: np.dtype[Any], shape: Shape, axes: Shape, root: bool, given: Any, ddof: float
    ) -> None:
        super().__init__(dtype, shape, axes)
        self.root = root
        self.ddof = ddof
        self.result_dtype = np.var(np.zeros(1, dtype), dtype=given).dtype
        self.accumulate = _wide(np.dtype(given) if given is not None else dtype)
        self.count = np.zeros(shape, np.float64)
        self.mean = np.zeros(shape, self.accumulate)
        self.squares = np.zeros(shape, np.float64)

    def add(self, values: Buffer, block: Block) -> None:
        with _quiet():
            part = self._moments(values, block.repeats)
            if block.first:
                self.count[block.at], self.mean[block.at], self.squares[block.at] = part
                return
            count, mean, squares = part
            before = self.count[block.at]
            total = before + count
            delta = mean - self.mean[block.at]
            spread = (delta * delta.conj()).real if delta.dtype.kind == "c" else delta * delta
            self.mean[block.at] += delta * (count / total)
            self.squares[block.at] += squares + spread * (before * count / total)
            self.count[block.at] = total

    def _moments(self, values: Buffer, repeats: int) -> tuple[float, Buffer, Buffer]:
        count = math.prod(values.shape[a] for a in self.axes) * repeats
        mean = np.mean(values, axis=self.axes, keepdims=True, dtype=self.accumulate)
        deviation = np.subtract(values, mean, dtype=self.accumulate)
        if deviation.dtype.kind == "c":
            squared = deviation.real * deviation.real + deviation.imag * deviation.imag
        else:
            squared = np.multiply(deviation, deviation, out=deviation)
        squares = np.sum(squared, axis=self.axes, keepdims=True)
        return count, mean, squares * repeats if repeats > 1 else squares

    def result(self) -> Buffer:
        freedom = np.maximum(self.count - self.ddof, 0)
        if np.any(freedom <= 0):
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        with _quiet():
            variance = self.squares / freedom
            return (np.sqrt(variance) if self.root else variance).astype(self.result_dtype, copy=False)


EXTREMES: dict[str, tuple[Callable[..., Any], np.ufunc]] = {
    "max": (np.max, np.maximum),
    "min": (np.min, np.minimum),
    "nanmax": (np.nanmax, np.fmax),
    "nanmin": (np.nanmin, np.fmin),
}
"""Each extreme: how one block reduces, and how two partial results merge (NaN wins, or is skipped)."""


class Extreme(Running):
    """`max`, `min` and their NaN-ignoring forms."""

    def __init__(self, dtype: np.dtype[Any], shape: Shape, axes: Shape, how: str) -> None:
        super().__init__(dtype, shape, axes)
        self.how = how
        self.best = np.zeros(shape, dtype)

    def add(self, values: Buffer, block: Block) -> None:
        reduce, merge = EXTREMES[self.how]
        with _quiet(), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            part = reduce(values, axis=self.axes, keepdims=True)
            self.best[block.at] = part if block.first else merge(self.best[block.at], part)

    def result(self) -> Buffer:
        if self.how.startswith("nan") and self.dtype.kind in "fc" and np.isnan(self.best).any():
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
        return self.best


class Truth(Running):
    """`any` and `all`: bools or'ed or and'ed."""

    def __init__(self, dtype: np.dtype[Any], shape: Shape, axes: Shape, how: str) -> None:
        super().__init__(dtype, shape, axes)
        self.how = how
        self.truth = np.full(shape, how == "all")

    def add(self, values: Buffer, block: Block) -> None:
        if self.how == "all":
            self.truth[block.at] &= np.all(values, axis=self.axes, keepdims=True)
        else:
            self.truth[block.at] |= np.any(values, axis=self.axes, keepdims=True)

    def result(self) -> Buffer:
        return self.truth


class Arg(Running):
    """`argmax` and `argmin` through the reduced axes taken together in row-major order (of
    `reduced`, their full lengths): the winning value and its index, the first on a tie, NaN first."""

    def __init__(self, dtype: np.dtype[Any], shape: Shape, axes: Shape, how: str, reduced: Shape) -> None:
        super().__init__(dtype, shape, axes)
        self.find = np.argmax if how == "argmax" else np.argmin
        self.beats = np.greater if how == "argmax" else np.less
        self.reduced = reduced
        self.best = np.zeros(shape, dtype)
        self.index = np.zeros(shape, np.intp)

    def add(self, values: Buffer, block: Block) -> None:
        value, index = self._winners(values, block.starts)
        if block.first:
            self.best[block.at], self.index[block.at] = value, index
            return
        old, old_index = self.best[block.at], self.index[block.at]
        with _quiet():
            take = self.beats(value, old)
            tie = value == old
            if self.dtype.kind == "f":
                new_nan, old_nan = np.isnan(value), np.isnan(old)
                take |= new_nan & ~old_nan
                tie |= new_nan & old_nan
            take |= tie & (index < old_index)
        self.best[block.at] = np.where(take, value, old)
        self.index[block.at] = np.where(take, index, old_index)

    def _winners(self, values: Buffer, starts: tuple[int, ...]) -> tuple[Buffer, Buffer]:
        """Each kept position's winner in this block, and its index through the full reduced axes."""
        kept = [a for a in range(values.ndim) if a not in self.axes]
        extents = tuple(values.shape[a] for a in self.axes)
        rows = values.transpose((*kept, *self.axes)).reshape((*(values.shape[a] for a in kept), -1))
        local = self.find(rows, axis=-1)
        value = np.take_along_axis(rows, local[..., None], axis=-1)[..., 0]
        coords = np.unravel_index(local, extents)
        index = np.ravel_multi_index(tuple(c + s for c, s in zip(coords, starts, strict=True)), self.reduced)
        return np.expand_dims(value, self.axes), np.expand_dims(np.asarray(index, dtype=np.intp), self.axes)

    def result(self) -> Buffer:
        return self.index


def running(
    name: str,
    dtype: np.dtype[Any],
    shape: Shape,
    axes: Shape,
    reduced: Shape,
    params: dict[str, Any],
) -> Running | None:
    """The running result of reduction `name` (with the table's `params`) over `axes` of values of
    `dtype` into `shape` (reduced axes of size 1), whose reduced axes are `reduced` long; None for what
    only runs whole (object values, an integer `dtype=` for an average, complex `argmax`).

    >>> r = running("var", np.dtype(float), (1,), (0,), (4,), {"ddof": 1})
    >>> everything = (slice(None),)
    >>> r.add(np.array([1.0, 2.0]), Block(everything, True))
    >>> r.add(np.array([3.0, 4.0]), Block(everything, False))
    >>> r.result().tolist()
    [1.6666666666666667]
    """
    if dtype.kind not in "biufc":
        return None
    given = params.get("dtype")
    if name in ("sum", "nansum", "prod"):
        return Summed(dtype, shape, axes, name, given)
    if given is not None and np.dtype(given).kind not in "fc" and name in ("mean", "nanmean", "var", "std"):
        return None
    if name in ("mean", "nanmean"):
        return Averaged(dtype, shape, axes, name == "nanmean", given, math.prod(reduced))
    if name in ("var", "std"):
        return Spread(dtype, shape, axes, name == "std", given, params.get("ddof", 0))
    if name in EXTREMES:
        return Extreme(dtype, shape, axes, name)
    if name in ("any", "all"):
        return Truth(dtype, shape, axes, name)
    if name in ("argmax", "argmin") and dtype.kind != "c":
        return Arg(dtype, shape, axes, name, reduced)
    return None

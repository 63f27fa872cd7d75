"""`t.stats()` in one pass: every value's statistics with each stored chunk read once.

The statistics of a tensor do not depend on the order of its values, so they are computed
on the region of the base the tensor covers, not in the tensor's own order:

- an axis of stride 0 (an expand) repeats every value equally: it is dropped and the counts
  multiplied (`Moments.repeated`), so `t.expand(10**7, 10**7, 3).stats()` costs what the base does;
- a strided view is the box of per-axis slices of its base it maps onto (`base_region`), read
  in blocks aligned to the base's chunks (`block_keys`): each block is one request, each chunk
  read once;
- a dask base computes every block's moments in one `dask.compute`;
- anything else (a gathered view) streams its flattened values, `chunk` elements at a time.

Blocks merge with Chan et al.'s parallel update of the mean and the sum of squared deviations.
A pass that lasts more than `PROGRESS_AFTER` seconds shows a progress bar on a terminal's stderr.
"""

from __future__ import annotations

import importlib
import itertools
import math
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from lazytensor.ground import progress
from lazytensor.ground.blockplan import base_region, block_keys, chunk_edges, chunk_shape, reordered_from
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.numberformat import Values

BLOCK_ELEMENTS = 1 << 22
"""The elements a block of the pass holds at most, unless one chunk is bigger (32 MB of float64)."""

PROGRESS_AFTER = 1.0
"""Seconds a pass runs before it shows its progress (on a terminal only)."""

PIECE = 1 << 18
"""Real numbers a block's statistics are computed over at a time: a piece and its float64 scratch (3 MB
for float32) stay in the cache between their passes, and a block of 4M values is 16 pieces of Python
calls (measured on float32: 3.0 ms a block against 3.3 ms at 2**17 and 3.0 ms at 2**20)."""

DOT_ROW = 8192
"""Values a BLAS dot product of `_sum_of_squares` takes (OpenBLAS threads a product above 10,000)."""

KINDS = "biufc"
"""The dtype kinds that have statistics: bool, integers, floats, complex."""


@attrs.frozen
class Moments:
    """The statistics of some values, mergeable: counts, the finite values' range, mean and sum of
    squared deviations from it (complex values: counts only; bools: how many are true).

    >>> a, b = Moments.of(np.array([1.0, 2.0])), Moments.of(np.array([np.nan, 6.0]))
    >>> merged = dict(a.merge(b).numbers())
    >>> merged["mean"], round(merged["std"], 4), merged["nan"], merged["inf"]
    (3.0, 2.1602, 1, 0)
    """

    kind: str
    size: int = 0
    finite: int = 0
    mean: float = 0.0
    squares: float = 0.0
    low: Any = None
    high: Any = None
    zeros: int = 0
    nans: int = 0
    infs: int = 0
    true: int = 0

    @classmethod
    def of(cls, values: Values) -> Moments:
        """The moments of one block of values (numpy's way; real numbers in cache-sized pieces)."""
        kind = values.dtype.kind
        if kind in "fiu" and values.size > PIECE:
            return cls._of_pieces(values)
        if kind == "b":
            return cls(kind, size=values.size, true=int(np.count_nonzero(values)))
        zeros = int(np.count_nonzero(values == 0))
        if kind not in "fc":
            return cls._finite(kind, values, values.size, zeros=zeros)
        nans = int(np.count_nonzero(np.isnan(values)))
        finite_mask = np.isfinite(values)
        finite_count = int(np.count_nonzero(finite_mask))
        infs = values.size - finite_count - nans
        if kind == "c":
            return cls(kind, size=values.size, zeros=zeros, nans=nans, infs=infs)
        finite = values if finite_count == values.size else values[finite_mask]
        return cls._finite(kind, finite, values.size, zeros=zeros, nans=nans, infs=infs)

    @classmethod
    def _of_pieces(cls, values: Values) -> Moments:
        """Real numbers `PIECE` at a time, each piece's passes over memory still in the cache: its range,
        its zeros (only when the range holds 0), its mean and squared deviations in float64 (`_spread`,
        in one float64 scratch for every piece), merged as `merge` does; a float piece whose range is
        not finite (a NaN, an infinity: numpy's min and max say so) is counted numpy's way, by `of`."""
        kind = values.dtype.kind
        flat = np.ravel(values)
        piece = min(PIECE, flat.size)
        scratch, equal = np.empty(piece, np.float64), np.empty(piece, np.bool_)
        finite, zeros, mean, squares = 0, 0, 0.0, 0.0
        low: Any = None
        high: Any = None
        rest = cls(kind)  # the pieces with a NaN or an infinity
        for start in range(0, flat.size, piece):
            part = flat[start : start + piece]
            count = part.size
            lo, hi = np.minimum.reduce(part), np.maximum.reduce(part)
            if kind == "f" and not (math.isfinite(lo) and math.isfinite(hi)):
                rest = rest.merge(cls.of(part))
                continue
            if lo <= 0 <= hi:
                zeros += int(np.count_nonzero(np.equal(part, 0, out=equal[:count])))
            # deviations from the mean so far when it is further from 0 than their spread: no digits cancel
            shift = mean if mean * mean * finite > squares else 0.0
            part_mean, part_squares = _spread(part, scratch[:count], shift)
            total = finite + count
            delta = part_mean - mean
            mean += delta * (count / total)
            squares += part_squares + delta * delta * (finite * count / total)
            finite = total
            low = lo if low is None or lo < low else low
            high = hi if high is None or hi > high else high
        if not finite:
            return rest
        counted = cls(kind, finite, finite, mean, squares, low, high, zeros=zeros)
        return counted.merge(rest)

    @classmethod
    def _finite(cls, kind: str, finite: Values, size: int, **counts: int) -> Moments:
        if finite.size == 0:
            return cls(kind, size=size, **counts)
        mean = float(finite.mean(dtype=np.float64))
        squares = float(np.square(finite.astype(np.float64, copy=False) - mean).sum())
        low, high = finite.min(), finite.max()
        return cls(kind, size, finite.size, mean, squares, low, high, **counts)

    def merge(self, other: Moments) -> Moments:
        """The moments of both sets of values (Chan et al.: exact counts, a stable mean and variance)."""
        counted = Moments(
            self.kind,
            size=self.size + other.size,
            zeros=self.zeros + other.zeros,
            nans=self.nans + other.nans,
            infs=self.infs + other.infs,
            true=self.true + other.true,
        )
        if not self.finite or not other.finite:
            finite = self if self.finite else other
            return attrs.evolve(
                counted,
                finite=finite.finite,
                mean=finite.mean,
                squares=finite.squares,
                low=finite.low,
                high=finite.high,
            )
        total = self.finite + other.finite
        delta = other.mean - self.mean
        return attrs.evolve(
            counted,
            finite=total,
            mean=self.mean + delta * (other.finite / total),
            squares=self.squares + other.squares + delta * delta * (self.finite * other.finite / total),
            low=min(self.low, other.low),
            high=max(self.high, other.high),
        )

    def repeated(self, times: int) -> Moments:
        """The moments when every value occurs `times` times: counts scale exactly, the range, mean and
        standard deviation stay.

        >>> Moments.of(np.array([0.0, 2.0])).repeated(10**15).numbers()[3:5]
        [('std', 1.0), ('zeros', 1000000000000000)]
        """
        return attrs.evolve(
            self,
            size=self.size * times,
            finite=self.finite * times,
            squares=self.squares * times,
            zeros=self.zeros * times,
            nans=self.nans * times,
            infs=self.infs * times,
            true=self.true * times,
        )

    def numbers(self) -> list[tuple[str, Any]]:
        """The statistics by name, as the header shows them (`header.statistics`): counts are exact ints.

        >>> Moments.of(np.array([1, 0, 3])).numbers()[:3]
        [('min', np.int64(0)), ('max', np.int64(3)), ('mean', 1.3333333333333333)]
        """
        if self.size == 0:
            return []
        if self.kind == "b":
            return [("true", self.true), ("false", self.size - self.true)]
        numbers: list[tuple[str, Any]] = []
        if self.kind != "c" and self.finite:
            std = math.sqrt(max(self.squares, 0.0) / self.finite)
            numbers += [("min", self.low), ("max", self.high), ("mean", self.mean), ("std", std)]
        numbers.append(("zeros", self.zeros))
        if self.kind in "fc":
            numbers += [("nan", self.nans), ("inf", self.infs)]
        return numbers


def _spread(part: Values, scratch: Values, shift: float) -> tuple[float, float]:
    """The mean of the finite real numbers `part` and the sum of their squared deviations from it, in
    float64, from the sums of `part - shift` and of its squares (`_sums`); computed again about the
    mean so found when `shift` was further from it than their spread (the difference of the two
    sums would lose digits).

    >>> _spread(np.array([1.0, 2.0, 3.0, 6.0], np.float32), np.empty(4), 0.0)
    (3.0, 14.0)
    >>> _spread(np.array([1e9 + 1, 1e9 + 3]), np.empty(2), 0.0)  # 0 is far from 1e9: about the mean
    (1000000002.0, 2.0)
    """
    count = part.size
    total, squares = _sums(part, scratch, shift)
    if math.isfinite(squares) and total * total <= 0.5 * squares * count:
        return shift + total / count, squares - total * total / count
    centre = shift + total / count
    total, squares = _sums(part, scratch, centre)
    return centre + total / count, max(squares - total * total / count, 0.0)


def _sums(part: Values, scratch: Values, shift: float) -> tuple[float, float]:
    """The float64 sums of `part - shift` and of its squares, computed in `scratch` (float64 values
    with no shift are read where they are): one conversion, numpy's pairwise sum, and the sum of
    squares as dot products (`_sum_of_squares`)."""
    if part.dtype == np.float64:
        shifted = part if shift == 0.0 else np.subtract(part, shift, out=scratch)
    else:
        np.copyto(scratch, part)  # the one conversion to float64
        shifted = scratch if shift == 0.0 else np.subtract(scratch, shift, out=scratch)
    return float(np.add.reduce(shifted)), _sum_of_squares(shifted)


def _sum_of_squares(values: Values) -> float:
    """The sum of the squares of float64 `values` as BLAS dot products of `DOT_ROW` values at a time:
    one read, nothing written (squaring into a scratch and summing that took 3x as long), and each
    product short enough that OpenBLAS keeps it on this thread (a piece's product handed to its
    threads made the statistics 3x slower: the hand-offs cost more than the arithmetic).

    >>> _sum_of_squares(np.arange(10_000.0)) == float(np.sum(np.arange(10_000.0) ** 2))
    True
    """
    whole = values.size // DOT_ROW * DOT_ROW
    rows = values[:whole].reshape(-1, 1, DOT_ROW)
    tail = values[whole:]
    products = np.matmul(rows, rows.reshape(-1, DOT_ROW, 1))
    return float(np.add.reduce(products, axis=None)) + float(np.dot(tail, tail))


# -- what to read ---------------------------------------------------------------------------------


def distinct(t: Tensor) -> tuple[Tensor, int]:
    """`t` without its repeating (stride-0) axes, and how many times each of its values repeats.

    >>> import lazytensor as lt
    >>> view, times = distinct(lt.tensor([1.0, 2.0]).expand(10**9, 3, 2))
    >>> view.shape, times
    ((1, 1, 2), 3000000000)
    """
    layout = t.layout
    if layout is None:
        return t, 1
    repeating = [size > 1 and stride == 0 for size, stride in zip(layout.shape, layout.strides, strict=True)]
    if not any(repeating):
        return t, 1
    times = math.prod(size for size, repeats in zip(layout.shape, repeating, strict=True) if repeats)
    view: Tensor = t[tuple(slice(0, 1) if repeats else slice(None) for repeats in repeating)]
    return view, times


def is_dask_base(base: Tensor) -> bool:
    """Whether the base's backend is lazy (a dask array: its values come from `dask.compute`)."""
    return bool(getattr(getattr(base, "backend", None), "lazy", False))


# -- the pass -------------------------------------------------------------------------------------


class PassProgress:
    """A pass's progress on stderr once it has run `PROGRESS_AFTER` seconds (a quick pass prints
    nothing): a bar on a terminal, else log lines a few seconds apart (`ground.progress`, whose
    switch turns both off)."""

    def __init__(self, total: int, description: str, console: Console | None = None) -> None:
        self.total = total
        self.done = 0
        self.description = description
        self.console = Console(stderr=True) if console is None else console
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.log: progress.LogProgress | None = None  # off a terminal: log lines instead of a bar

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self.log is not None:
            self.log.total = self.total
            self.log.advance(count)
            return
        if self.bar is None:
            if not progress.enabled() or time.monotonic() - self.started < PROGRESS_AFTER:
                return
            if not self.console.is_terminal:
                what = self.description.split(":")[0]
                self.log = progress.LogProgress(what, self.total, self.console.file, after=0.0)
                self.log.done = self.done - count
                self.log.advance(count)
                return
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.description, total=self.total)
        self.bar.update(self.task, completed=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        if self.log is not None:
            self.log.close()


def progress_console() -> Console:
    """Where a pass shows its progress (stderr; tests replace it)."""
    return Console(stderr=True)


def one_pass(t: Tensor, chunk: int = BLOCK_ELEMENTS) -> Moments:
    """The moments of every value of `t`, each chunk of its base read once (see the module).

    >>> import lazytensor as lt
    >>> one_pass(lt.arange(6.0).reshape(2, 3).T, chunk=2).numbers()[2:4]
    [('mean', 2.5), ('std', 1.707825127659933)]
    """
    kind = t.dtype.kind
    if t.numel() == 0 or kind not in KINDS:
        return Moments(kind)
    view, times = distinct(t)
    if is_dask_base(view.base):
        return _dask_pass(view).repeated(times)
    region = base_region(reordered_from(view)) if view.numel() > chunk else None
    if region is None:
        return _flat_pass(view, chunk).repeated(times)
    return _region_pass(view.base, region, chunk).repeated(times)


def _read(t: Tensor) -> Values:
    return np.asarray(t.numpy())


def _read_ahead(tensors: Iterable[Tensor]) -> Iterator[Values]:
    """Each tensor's values in turn, the next one read on a thread while the caller works on this
    one (reading a store and computing statistics overlap; two blocks in memory at most). The
    tensors are taken one ahead, so a pass over many blocks makes their views as it goes.

    >>> import lazytensor as lt
    >>> [v.tolist() for v in _read_ahead(lt.arange(4).reshape(2, 2))]
    [[0, 1], [2, 3]]
    """
    upcoming = iter(tensors)
    first = next(upcoming, None)
    if first is None:
        return
    second = next(upcoming, None)
    if second is None:
        yield _read(first)
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = pool.submit(_read, first)
        for following in itertools.chain([second], upcoming):
            values = ahead.result()
            ahead = pool.submit(_read, following)
            yield values
            del values
        yield ahead.result()


def _merged(parts: Iterator[Moments], kind: str, total: int, description: str) -> Moments:
    progress = PassProgress(total, description, progress_console())
    merged = Moments(kind)
    try:
        for part in parts:
            merged = merged.merge(part)
            progress.advance()
    finally:
        progress.close()
    return merged


def _region_pass(base: Tensor, region: tuple[slice, ...], chunk: int) -> Moments:
    """Blocks of the base's box `region`, cut at its chunks' edges, each read in one request."""
    box = base[region]
    chunks = chunk_shape(base)
    edges = [
        chunk_edges(key, None if chunks is None else chunks[a], base.shape[a]) for a, key in enumerate(region)
    ]
    blocks = block_keys(box.shape, edges, chunk)
    parts = (Moments.of(values) for values in _read_ahead([box[key] for key in blocks]))
    return _merged(parts, base.dtype.kind, len(blocks), f"stats: {len(blocks):,} blocks")


def _flat_pass(t: Tensor, chunk: int) -> Moments:
    """`chunk` values at a time in row-major order (a view with no box in its base)."""
    count = t.numel()
    if count <= chunk:
        return Moments.of(_read(t))
    flat = t.reshape(-1)
    starts = range(0, count, chunk)
    parts = (Moments.of(values) for values in _read_ahead(flat[start : start + chunk] for start in starts))
    return _merged(parts, t.dtype.kind, len(starts), f"stats: {count:,} values")


def _dask_pass(t: Tensor) -> Moments:
    """Every block's moments in one `dask.compute` (on the cluster's workers when one is active),
    merged here."""
    dask = _dask()
    lazy = t.base.lazy_values(t)
    blocks = lazy.to_delayed().ravel()
    parts = [dask.delayed(_block_moments)(block) for block in blocks]
    computed: Sequence[Moments] = _compute_with_progress(dask, parts, f"stats: {len(parts):,} blocks")
    merged = Moments(t.dtype.kind)
    for part in computed:
        merged = merged.merge(part)
    return merged


def _block_moments(block: Any) -> Moments:
    return Moments.of(np.asarray(block))


def _dask() -> Any:
    """dask, an installed extra whenever a dask base exists."""
    return importlib.import_module("dask")


def _compute_with_progress(dask: Any, parts: list[Any], description: str) -> Any:
    """`dask.compute(*parts)`, with a progress bar fed by the local schedulers' task callbacks (a
    distributed cluster computes without them: its dashboard shows the progress)."""
    callbacks = importlib.import_module("dask.callbacks")
    progress = PassProgress(0, description, progress_console())

    def start(graph: Any, state: Any) -> None:
        progress.total = len(graph)

    def finished(*args: Any) -> None:
        progress.advance()

    with callbacks.Callback(start_state=start, posttask=finished):
        try:
            return dask.compute(*parts)
        finally:
            progress.close()

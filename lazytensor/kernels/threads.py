"""Bulk work on every core: a big elementwise ufunc or reduction split into blocks run on a thread pool.

numpy releases the GIL inside a ufunc's loop and inside a reduction, so the blocks of one big call
run at once, one per core. The kernels (`generic.unary_ufunc`, `generic.binary_ufunc`,
`reductions`) compare the size of their work with `start_at` or `reduce_at` (one comparison) and
come here only above it: small tensors never pay for a thread. With one thread both are out of
reach, so every call takes numpy's own path.

Elementwise operations are split when their results are numpy's exactly, whichever loop computes
them (`EXACT_ANY`, `EXACT_REAL`, `EXACT_INTEGER`: `+`, `-`, `*`, `/`, comparisons, ...); the
functions numpy computes with SIMD approximations (`exp`, `sin`) stay on one thread. A reduction
is split along the axis that is outermost in memory: when that axis is kept, each block writes its
own part of the result, exactly; when it is reduced, each block reduces its part and the partial
results are reduced once more, in block order, so float sums, means and products may differ from
numpy's by reassociation (integer sums wrap as numpy's, `max`/`min` and `all`/`any` are exact).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
import math
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

Buffer = npt.NDArray[Any]
Block = tuple[int | slice, ...]
"""The part of an array one thread computes: ints for the leading axes, then one slice."""
T = TypeVar("T")

MIN_ELEMENTS = 1 << 20
"""Work of fewer elements runs on the calling thread alone (measured on a busy 2-core machine:
below about 10**6 float64 elements, handing half of an elementwise operation, a `max` or a sum
along leading axes to another thread costs more than it saves; `docs/performance.md`)."""

MIN_SUM_ELEMENTS = 1 << 17
"""float64 sums over trailing axes take einsum's loop in blocks from this size: twice numpy's
speed on one core, so they pay for a thread sooner."""

BLOCKS_PER_THREAD = 1
"""One block per thread (measured: more blocks cost more handoffs than the balance they bring); a
caller whose helper has not started yet takes the helper's block too."""

MIN_BLOCK_ELEMENTS = 1 << 15
"""The smallest block worth a handoff: 256 KiB of float64, about a core's L2 cache."""


def _cores() -> int:
    """The cores this process may run on (`os.process_cpu_count` from Python 3.13)."""
    counter: Callable[[], int | None] | None = getattr(os, "process_cpu_count", None)
    if counter is not None:
        return counter() or 1
    affinity: Callable[[int], set[int]] | None = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return len(affinity(0)) or 1
    return os.cpu_count() or 1


class _Settings:
    """The thread count, the size from which work is split, and the helper threads (started on
    first use, each waiting on one shared queue of tasks)."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.min_elements = MIN_ELEMENTS
        self.min_sum = MIN_SUM_ELEMENTS
        self.min_block = MIN_BLOCK_ELEMENTS
        self.blocks_per_thread = BLOCKS_PER_THREAD
        self.inbox: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self.helpers = 0
        self.lock = threading.Lock()

    def start(self, elements: int) -> int:
        """The size from which the kernels come here: out of reach with one thread."""
        return elements if self.threads > 1 else sys.maxsize

    def hire(self) -> None:
        """Start helper threads until there is one for every thread but the caller's."""
        with self.lock:
            while self.helpers < self.threads - 1:
                threading.Thread(target=_help, args=(self.inbox,), daemon=True, name="lazytensor").start()
                self.helpers += 1

    def dismiss(self) -> None:
        """Let helpers beyond the thread count go (each takes a None and ends)."""
        with self.lock:
            while self.helpers > max(self.threads - 1, 0):
                self.inbox.put(None)
                self.helpers -= 1


def _help(inbox: queue.SimpleQueue[Callable[[], None] | None]) -> None:
    """A helper thread: run tasks until told to stop (a task never raises: it records its error)."""
    while (task := inbox.get()) is not None:
        task()


_settings = _Settings(_cores())

start_at: int = _settings.start(MIN_ELEMENTS)
"""The elementwise kernels' one comparison: a result of at least this many elements is split."""

reduce_at: int = _settings.start(MIN_SUM_ELEMENTS)
"""The reductions' one comparison: the smallest input `reduce` may split (a float64 sum)."""


def _refresh() -> None:
    global start_at, reduce_at
    start_at = _settings.start(_settings.min_elements)
    reduce_at = _settings.start(min(_settings.min_elements, _settings.min_sum))


def _forget_helpers_in_child() -> None:
    """A forked child has none of the parent's threads: it starts its own when it needs them."""
    _settings.inbox = queue.SimpleQueue()
    _settings.helpers = 0
    _settings.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers_in_child)


def get_num_threads() -> int:
    """How many threads big elementwise operations and reductions use (by default, the cores).

    >>> import lazytensor as lt
    >>> lt.get_num_threads() >= 1
    True
    """
    return _settings.threads


def set_num_threads(n: int) -> None:
    """Use `n` threads for big elementwise operations and reductions; 1 runs everything on the
    calling thread, as numpy does.

    >>> import lazytensor as lt
    >>> before = lt.get_num_threads()
    >>> lt.set_num_threads(1); lt.get_num_threads()
    1
    >>> lt.set_num_threads(0)
    Traceback (most recent call last):
    ValueError: set_num_threads: the number of threads must be at least 1, got 0
    >>> lt.set_num_threads(before)
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"set_num_threads: the number of threads must be an int, got {n!r}")
    if n < 1:
        raise ValueError(f"set_num_threads: the number of threads must be at least 1, got {n!r}")
    _settings.threads = int(n)
    _settings.dismiss()
    _refresh()


@contextlib.contextmanager
def split_from(elements: int) -> Iterator[None]:
    """Split work of at least `elements` elements across threads inside the block, in blocks of any
    size, four a thread (a test hook: the threaded paths run on small tensors, quickly, in many
    blocks).

    >>> import numpy as np, lazytensor as lt
    >>> with split_from(4):
    ...     lt.tensor([[1, 2], [3, 4]]).sum(0).tolist()
    [4, 6]
    """
    if elements < 1:
        raise ValueError(f"split_from: the size must be at least 1, got {elements}")
    names = ("min_elements", "min_sum", "min_block", "blocks_per_thread")
    before = [getattr(_settings, name) for name in names]
    for name, value in zip(names, (elements, elements, 1, 4), strict=True):
        setattr(_settings, name, value)
    _refresh()
    try:
        yield
    finally:
        for name, value in zip(names, before, strict=True):
            setattr(_settings, name, value)
        _refresh()


# -- running blocks -----------------------------------------------------------------------------


def run_blocks(count: int, work: Callable[[int], T]) -> list[T]:
    """`work(i)` for every block `i < count`, on the helper threads and this one; results in block
    order. Each thread takes the next block until none is left, so a busy core does fewer, and the
    caller waits only for blocks a helper has taken, never for a helper that has not started (on a
    busy machine it may start late: it then finds nothing left). The first error stops the rest
    and is raised here, once every block taken is done."""
    results: list[Any] = [None] * count
    errors: list[BaseException] = []
    done = threading.Condition()
    taken = finished = 0

    def drain() -> None:
        nonlocal taken, finished
        while True:
            with done:
                if errors or taken == count:
                    return
                i, taken = taken, taken + 1
            try:
                results[i] = work(i)
            except BaseException as error:
                with done:
                    errors.append(error)
            finally:
                with done:
                    finished += 1
                    done.notify_all()

    helpers = min(_settings.threads, count) - 1
    if helpers > 0:
        _settings.hire()
    for _ in range(helpers):
        # each helper runs in a copy of the caller's context: numpy's errstate is a context variable
        _settings.inbox.put(functools.partial(contextvars.copy_context().run, drain))
    try:
        drain()
    finally:
        with done:
            done.wait_for(lambda: finished == taken)  # no helper still writes into what we hand back
    if errors:
        raise errors[0]
    return results


def plan(shape: Sequence[int], axis: int, pieces: int) -> list[Block]:
    """Up to `pieces` blocks of `shape` that cut only `axis` (each a slice of it, the axes before
    it whole). Leading axes are whole here: the caller picks the axis.

    >>> plan((10, 3), 0, 3)
    [(slice(0, 3, None),), (slice(3, 6, None),), (slice(6, 10, None),)]
    """
    size = shape[axis]
    pieces = max(1, min(pieces, size))
    bounds = [size * i // pieces for i in range(pieces + 1)]
    lead = (slice(None),) * axis
    return [(*lead, slice(bounds[i], bounds[i + 1])) for i in range(pieces)]


def _pieces(elements: int) -> int:
    """How many blocks to cut work of `elements` elements into."""
    threads = _settings.threads
    return max(threads, min(threads * _settings.blocks_per_thread, elements // _settings.min_block))


def _row_major_blocks(shape: Sequence[int]) -> list[Block]:
    """Blocks of a C-ordered array of `shape`, each a contiguous run: the outermost axes are walked
    as ints until the next axis can be cut into enough pieces."""
    wanted = _pieces(math.prod(shape))
    if shape[0] >= wanted:  # the common case: rows enough for every block
        return plan(shape, 0, wanted)
    outer = 1
    for axis, size in enumerate(shape):
        if outer * size >= wanted or axis == len(shape) - 1:
            pieces = -(-wanted // outer)
            cuts = plan(shape, axis, pieces)
            leads = itertools.product(*map(range, shape[:axis]))
            return [(*lead, cut[axis]) for lead in leads for cut in cuts]
        outer *= size
    return [()]


# -- elementwise ----------------------------------------------------------------------------------

_SCALARS = (int, float, complex, np.generic)

EXACT_ANY = frozenset(
    {*(np.add, np.subtract, np.negative, np.positive, np.conjugate, np.equal, np.not_equal, np.isnan)}
    | {np.isinf, np.isfinite}
)
"""Ufuncs whose every result is the same bits whichever of numpy's loops computes it (a SIMD loop, a
strided one, a short tail), for every dtype, complex included: the correctly rounded operations."""

EXACT_REAL = EXACT_ANY | {
    *(np.multiply, np.true_divide, np.absolute, np.square, np.sqrt, np.maximum, np.minimum, np.fmax),
    *(np.fmin, np.less, np.less_equal, np.greater, np.greater_equal, np.signbit, np.copysign),
    *(np.logical_and, np.logical_or, np.logical_xor, np.logical_not),
}
"""Correctly rounded on real numbers too (complex `*`, `/`, `abs` are not: numpy's loops for them
round differently), so exact with threads on bool, integer and float values."""

EXACT_INTEGER = EXACT_REAL | {
    *(np.floor_divide, np.remainder, np.power, np.bitwise_and, np.bitwise_or, np.bitwise_xor),
    *(np.invert, np.left_shift, np.right_shift),
}
"""Exact on bool and integer values (on floats these call the C library, whose results numpy's
SIMD loops do not always match to the last bit)."""


def _exact(ufunc: np.ufunc, kinds: set[str]) -> bool:
    """Whether `ufunc` gives the same bits in blocks as in one call, on values of these kinds."""
    if "c" in kinds:
        return ufunc in EXACT_ANY
    if "f" in kinds:
        return ufunc in EXACT_REAL
    return ufunc in EXACT_INTEGER


def ufunc_call(ufunc: np.ufunc, *inputs: Any) -> Buffer | None:
    """`ufunc(*inputs)` as a new C-ordered array, computed in blocks on every thread; None when it is
    not for threads: too small, not exact in blocks (`EXACT_ANY`, ...), object values, operands
    that are not arrays or numbers, shapes that do not broadcast (numpy's own call then says why)."""
    if ufunc not in EXACT_INTEGER:
        return None
    shapes = []
    kinds = set()
    for x in inputs:
        if isinstance(x, np.ndarray):
            shapes.append(x.shape)
            kinds.add(x.dtype.kind)
        elif isinstance(x, _SCALARS):
            kinds.add(np.asarray(x).dtype.kind)
        else:
            return None
    if "O" in kinds:
        return None
    try:
        shape = shapes[0] if len(set(shapes)) == 1 else np.broadcast_shapes(*shapes)
    except ValueError:
        return None
    if math.prod(shape) < _settings.min_elements or not shape:
        return None
    # numpy's result dtype for these operands, and its errors (a Python int out of range), for free
    empty = [np.empty(0, x.dtype) if isinstance(x, np.ndarray) else x for x in inputs]
    dtype = ufunc(*empty).dtype
    if not _exact(ufunc, {*kinds, dtype.kind}):
        return None
    out = np.empty(shape, dtype)
    operands = [
        np.broadcast_to(x, shape) if isinstance(x, np.ndarray) and x.shape != shape else x for x in inputs
    ]
    blocks = _row_major_blocks(shape)

    def compute(i: int) -> None:
        block = blocks[i]
        ufunc(*[x[block] if isinstance(x, np.ndarray) else x for x in operands], out=out[block])

    run_blocks(len(blocks), compute)
    return out


# -- reductions -----------------------------------------------------------------------------------


def _split_axis(values: Buffer) -> int | None:
    """The axis to cut: the outermost in memory (largest stride) with at least a block per thread,
    else the outermost with two elements or more; None when every axis has one element."""
    order = sorted(range(values.ndim), key=lambda axis: -abs(values.strides[axis]))
    candidates = [axis for axis in order if values.shape[axis] > 1]
    for axis in candidates:
        if values.shape[axis] >= _settings.threads:
            return axis
    return candidates[0] if candidates else None


def reduce(ufunc: np.ufunc, values: Buffer, axes: tuple[int, ...], keepdims: bool, dtype: Any = None) -> Any:
    """`ufunc.reduce(values, axis=axes, dtype=dtype, keepdims=keepdims)` in blocks on every thread, or
    None when it is not for threads (object values, float16 partial sums, too small, nothing to
    reduce). `axes` are normalised (non-negative, no repeats)."""
    if values.dtype.hasobject or values.size < _settings.min_sum or not axes:
        return None
    if ufunc is np.add and values.dtype == np.float64 and dtype in (None, np.float64):
        summed = _trailing_sums(values, axes, keepdims)
        if summed is not None:
            return summed
    if values.size < _settings.min_elements:
        return None
    axis = _split_axis(values)
    if axis is None:
        return None
    if axis not in axes:
        return _reduce_kept(ufunc, values, axes, keepdims, dtype, axis)
    if values.dtype == np.float16 or (dtype is not None and np.dtype(dtype) == np.float16):
        return None  # partial sums in half precision would lose too much: numpy's own path
    return _reduce_partials(ufunc, values, axes, keepdims, dtype, axis)


def _trailing_sums(values: Buffer, axes: tuple[int, ...], keepdims: bool) -> Any:
    """The float64 sum of a contiguous array over its trailing axes (a transposed one: its leading
    axes, one kept at most), in blocks of rows with einsum's unrolled loop, about twice as fast as
    numpy's pairwise sum; a whole sum in blocks of the flat values, the partial sums summed. Only
    the order of the additions differs from numpy's. None for other layouts."""
    ndim = values.ndim
    final = tuple(1 if axis in axes else size for axis, size in enumerate(values.shape))
    if not keepdims:
        final = tuple(size for axis, size in enumerate(values.shape) if axis not in axes)
    if not values.flags.c_contiguous:  # a transposed view of a contiguous array
        if not values.flags.f_contiguous or ndim - len(axes) > 1:
            return None
        values, axes = values.T, tuple(ndim - 1 - axis for axis in axes)
    if sorted(axes) != list(range(ndim - len(axes), ndim)):
        return None
    if len(axes) == ndim:
        flat = values.reshape(-1)
        pieces = plan(flat.shape, 0, _pieces(flat.size))
        partials = run_blocks(len(pieces), lambda i: np.einsum("i->", flat[pieces[i]]))
        total = np.add.reduce(np.array(partials, dtype=values.dtype))
        return np.full(final, total) if keepdims else total
    result = np.empty(final, values.dtype)
    sums = result.reshape(-1)  # a view: writing it fills `result`
    matrix = values.reshape(sums.size, -1)
    blocks = plan(matrix.shape, 0, _pieces(values.size))

    def compute(i: int) -> None:
        np.einsum("ij->i", matrix[blocks[i]], out=sums[blocks[i]])

    run_blocks(len(blocks), compute)
    return result


def _reduce_kept(
    ufunc: np.ufunc, values: Buffer, axes: tuple[int, ...], keepdims: bool, dtype: Any, axis: int
) -> Buffer:
    """Cut a kept axis: each block reduces to its own slice of the result, exactly as numpy does."""
    empty = values[(slice(None),) * axis + (slice(0, 0),)]
    result_dtype = ufunc.reduce(empty, axis=axes, dtype=dtype, keepdims=True).dtype
    kept_shape = tuple(1 if i in axes else size for i, size in enumerate(values.shape))
    final_shape = kept_shape if keepdims else tuple(s for i, s in enumerate(values.shape) if i not in axes)
    result = np.empty(final_shape, result_dtype)
    target = result.reshape(kept_shape)  # a view: writing it fills `result`
    blocks = plan(values.shape, axis, _pieces(values.size))

    def compute(i: int) -> None:
        block = blocks[i]
        ufunc.reduce(values[block], axis=axes, dtype=dtype, keepdims=True, out=target[block])

    run_blocks(len(blocks), compute)
    return result


def _reduce_partials(
    ufunc: np.ufunc, values: Buffer, axes: tuple[int, ...], keepdims: bool, dtype: Any, axis: int
) -> Any:
    """Cut a reduced axis: each block reduces its part, then the partial results are reduced in
    block order, in their own dtype (a sum of int8 partials stays int8, as numpy's `dtype=`)."""
    blocks = plan(values.shape, axis, _pieces(values.size))

    def compute(i: int) -> Any:
        return ufunc.reduce(values[blocks[i]], axis=axes, dtype=dtype, keepdims=keepdims)

    partials = run_blocks(len(blocks), compute)
    stacked = np.stack([np.asarray(p) for p in partials])
    return ufunc.reduce(stacked, axis=0, dtype=stacked.dtype)

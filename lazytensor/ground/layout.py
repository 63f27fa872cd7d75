"""`Layout`: the affine map from a position to a storage index, and its algebra.

A layout is what PyTorch calls sizes, strides and storage offset, in elements.
Each view wrapper derives its layout from the layout below it with one of the
methods here (`permute`, `select`, `gather`, `expand`, `try_reshape`): the strided
arithmetic of the package lives in this module and nowhere else. When every layer
of a stack has a layout, reading an element is one dot product and reading the
whole tensor is a zero-copy numpy view. (Ground floor: imports only `positions`.)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Protocol

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.ground.positions import Shape, int_tuple, numel, row_major_strides

IndexArray = npt.NDArray[np.intp]


class Run(Protocol):
    """A strided run of indices along one axis, `start, start + step, ...`, `count` of them: what
    `indexing.Range` (a normalised slice) is, and what `Layout.select` takes besides slices."""

    @property
    def start(self) -> int: ...

    @property
    def step(self) -> int: ...

    @property
    def count(self) -> int: ...


Selector = int | slice | Run | IndexArray
"""One entry of `Layout.select`: an index (the axis dropped), a slice or a `Run` (a strided run), or
a 1-D index array (those indices, kept strided when they are an arithmetic progression)."""

_SMALL = 64
"""Index lists up to this long are checked with Python arithmetic: cheaper than numpy's calls."""


def progression(indices: IndexArray) -> tuple[int, int] | None:
    """`(start, step)` when the 1-D indices are an arithmetic progression (step 0 too), else None.

    >>> progression(np.array([1, 3, 5])), progression(np.array([2, 2])), progression(np.array([0, 2, 3]))
    ((1, 2), (2, 0), None)
    """
    if indices.size < 2:
        return (int(indices[0]) if indices.size else 0), 1
    if indices.size <= _SMALL:  # Python arithmetic beats numpy's calls on a short list
        values = indices.tolist()
        start, step = values[0], values[1] - values[0]
        return (start, step) if all(v == start + k * step for k, v in enumerate(values)) else None
    start = indices.item(0)  # `item` gives Python ints: no numpy scalars on a path taken per gather
    step = indices.item(1) - start
    if indices.item(-1) != start + step * (indices.size - 1):  # most lists fail here, before a pass
        return None
    if not np.all(np.diff(indices) == step):
        return None
    return start, step


def affine_fit(indices: IndexArray) -> tuple[int, Shape] | None:
    """`(c, d)` with `indices[b] == c + sum(d[j] * b[j])` for every position `b`, if such exist.

    This generalises the arithmetic progression to index arrays of any rank.

    >>> affine_fit(np.array([[0, 1], [2, 3]])), affine_fit(np.array([0, 2, 3]))
    ((0, (2, 1)), None)
    """
    if indices.size == 0:
        return 0, (0,) * indices.ndim
    if indices.ndim == 1:
        fit = progression(indices)
        return None if fit is None else (fit[0], (fit[1],))
    origin = int(indices[(0,) * indices.ndim])
    steps = tuple(
        int(indices[tuple(1 if j == axis else 0 for j in range(indices.ndim))]) - origin if size > 1 else 0
        for axis, size in enumerate(indices.shape)
    )
    last = tuple(size - 1 for size in indices.shape)
    if int(indices[last]) != origin + sum(s * k for s, k in zip(steps, last, strict=True)):
        return None  # the far corner is off the plane: no pass over the array needed
    expected: IndexArray = np.asarray(origin, dtype=np.intp)
    for axis, (size, step) in enumerate(zip(indices.shape, steps, strict=True)):
        along = np.arange(size, dtype=np.intp).reshape((-1,) + (1,) * (indices.ndim - axis - 1))
        expected = expected + step * along
    return (origin, steps) if np.array_equal(indices, expected) else None


@attrs.frozen
class Layout:
    """Sizes, strides and offset in elements: position `p` lives at `offset + sum(p[k] * strides[k])`.

    >>> layout = Layout.contiguous((2, 3))
    >>> layout.strides, layout.index((1, 2))
    ((3, 1), 5)
    >>> layout.permute((1, 0)).index((2, 1))
    5
    """

    shape: Shape = attrs.field(converter=int_tuple)
    strides: Shape = attrs.field(converter=int_tuple)
    offset: int = attrs.field(default=0, converter=int)

    @strides.validator
    def _check_strides(self, _attribute: object, strides: Shape) -> None:
        if len(strides) != len(self.shape):
            raise ValueError(f"layout of shape {self.shape} needs {len(self.shape)} strides, got {strides}")
        if any(size < 0 for size in self.shape):
            raise ValueError(f"layout shape {self.shape} has a negative size")

    @offset.validator
    def _check_offset(self, _attribute: object, offset: int) -> None:
        if offset < 0:
            raise ValueError(f"layout offset must be non-negative, got {offset}")

    @classmethod
    def contiguous(cls, shape: Sequence[int], offset: int = 0) -> Layout:
        """The row-major layout of `shape`, as a fresh buffer has it."""
        return cls.derived(int_tuple(shape), row_major_strides(shape), offset)

    @classmethod
    def derived(cls, shape: Shape, strides: Shape, offset: int) -> Layout:
        """A layout computed from a valid one (ints, matching lengths, offset ≥ 0): the algebra below
        makes every layout this way, without the constructor's conversions and checks."""
        layout = object.__new__(cls)
        object.__setattr__(layout, "shape", shape)
        object.__setattr__(layout, "strides", strides)
        object.__setattr__(layout, "offset", offset)
        return layout

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        return numel(self.shape)

    def index(self, pos: Sequence[int]) -> int:
        """The storage index of one (valid, non-negative) position."""
        total: int = self.offset + sum(map(operator.mul, pos, self.strides))
        return total

    def index_batch(self, index_arrays: Sequence[IndexArray]) -> IndexArray:
        """Storage indices of many positions: one array per axis, broadcast together."""
        total: IndexArray = np.asarray(self.offset, dtype=np.intp)
        for indices, stride in zip(index_arrays, self.strides, strict=True):
            if stride != 0:
                total = total + indices * stride
        return total

    def span(self) -> tuple[int, int]:
        """The lowest and highest storage index the layout reaches (numel > 0)."""
        low = high = self.offset
        for size, stride in zip(self.shape, self.strides, strict=True):
            reach = (size - 1) * stride
            if reach < 0:
                low += reach
            else:
                high += reach
        return low, high

    def is_contiguous(self) -> bool:
        """True when the layout walks storage in row-major order with no gaps (size-1 axes ignored)."""
        expected = row_major_strides(self.shape)
        return self.numel() == 0 or all(
            size == 1 or stride == want
            for size, stride, want in zip(self.shape, self.strides, expected, strict=True)
        )

    def may_overlap(self) -> bool:
        """Whether two positions may share a storage index (a broadcast axis, a gather that repeats an
        index: `[[2, 1], [1, 0]]` is strides (-1, -1)). False is certain: sorted by stride, each axis
        steps past everything the smaller ones reach.

        >>> Layout((2, 2), (-1, -1), 2).may_overlap(), Layout((3, 4), (1, 3), 0).may_overlap()
        (True, False)
        """
        reach = 0
        for stride, size in sorted(
            (abs(stride), size) for size, stride in zip(self.shape, self.strides, strict=True) if size > 1
        ):
            if stride <= reach:
                return True
            reach += stride * (size - 1)
        return False

    def has_broadcast_axis(self) -> bool:
        """True when two positions share a storage index through a stride-0 axis."""
        return any(stride == 0 and size > 1 for size, stride in zip(self.shape, self.strides, strict=True))

    # -- the algebra: one method per kind of view ------------------------------------------

    def permute(self, axes: Sequence[int]) -> Layout:
        """Axis `i` of the result is axis `axes[i]` of this layout."""
        return Layout.derived(
            tuple(self.shape[a] for a in axes), tuple(self.strides[a] for a in axes), self.offset
        )

    def select(self, key: Sequence[Selector]) -> Layout | None:
        """Outer selection, one entry per axis: an int (negatives count from the end) drops its axis,
        a slice or a `Run` (`indexing.Range`) keeps a strided run (any step), a 1-D array of
        non-negative indices keeps those indices, in order; None when such an array is no
        arithmetic progression (step 0 is one: a repeated index). numpy's `a[key]` for ints and
        slices, `a[np.ix_(...)]` with lists.

        >>> layout = Layout.contiguous((4, 5))
        >>> layout.select((slice(None, None, -2), 3))
        Layout(shape=(2,), strides=(-10,), offset=18)
        >>> layout.select((np.array([1, 1, 1]), slice(1, 3))).strides, layout.select((np.array([0, 2, 3]), 0))
        ((0, 1), None)
        """
        if len(key) != len(self.shape):
            raise IndexError(f"{len(key)} selectors for a layout of shape {self.shape}")
        shape: list[int] = []
        strides: list[int] = []
        offset = self.offset
        for axis, (entry, size, stride) in enumerate(zip(key, self.shape, self.strides, strict=True)):
            if isinstance(entry, int | np.integer):
                if not -size <= entry < size:
                    raise IndexError(f"index {entry} is out of bounds for axis {axis} with size {size}")
                offset += (int(entry) % size) * stride
                continue
            if isinstance(entry, slice):
                start, stop, step = entry.indices(size)
                count = len(range(start, stop, step))
            elif isinstance(entry, np.ndarray):
                fit = progression(entry)
                if fit is None:
                    return None
                (start, step), count = fit, len(entry)
            else:
                start, step, count = entry.start, entry.step, entry.count
            shape.append(count)
            strides.append(stride * step if count > 1 else stride)  # one index: its step never applies
            offset += start * stride if count else 0  # no index: the offset stays where it was
        return Layout.derived(tuple(shape), tuple(strides), offset)

    def gather(self, axes: Sequence[int], arrays: Sequence[IndexArray], start: int) -> Layout | None:
        """numpy's advanced indexing as strides: `arrays` (of one shape, broadcast already; non-negative
        indices) index the axes `axes`, their block of axes goes at `start` among the axes left (numpy
        puts it where the indexed axes were when they are adjacent, else first). None unless every
        array is affine in the block position (`[1, 3, 5]`, `[[0, 1], [2, 3]]`).

        >>> layout = Layout.contiguous((3, 4))
        >>> layout.gather((0,), (np.array([[2], [0]]),), 0)
        Layout(shape=(2, 1, 4), strides=(-8, 0, 1), offset=8)
        >>> layout.gather((0, 1), (np.array([0, 1, 2]), np.array([0, 1, 2])), 0).strides
        (5,)
        """
        block_shape: Shape = arrays[0].shape if arrays else ()
        offset = self.offset
        block_strides = [0] * len(block_shape)
        for axis, array in zip(axes, arrays, strict=True):
            fit = affine_fit(array)
            if fit is None:
                return None
            origin, steps = fit
            stride = self.strides[axis]
            offset += origin * stride
            block_strides = [s + d * stride for s, d in zip(block_strides, steps, strict=True)]
        indexed = set(axes)
        kept = [axis for axis in range(len(self.shape)) if axis not in indexed]
        sizes = [self.shape[axis] for axis in kept]
        strides = [self.strides[axis] for axis in kept]
        return Layout.derived(  # ints from a valid layout and the fits: no conversions or checks
            (*sizes[:start], *block_shape, *sizes[start:]),
            (*strides[:start], *block_strides, *strides[start:]),
            offset,
        )

    def expand(self, shape: Sequence[int]) -> Layout:
        """Broadcast to `shape`: new leading axes and stretched size-1 axes get stride 0."""
        lead = len(shape) - self.ndim
        strides = [0] * lead
        for size, old_size, stride in zip(shape[lead:], self.shape, self.strides, strict=True):
            strides.append(stride if size == old_size else 0)
        return Layout.derived(tuple(shape), tuple(strides), self.offset)

    def coalesced(self) -> Layout:
        """The normal form: the same storage indices in the same (row-major) order with the fewest
        axes. Size-1 axes go (their strides never apply), and an axis merges into the next one when
        its stride is the next one's stride times the next one's size. An empty layout is `(0,)`.

        >>> Layout((2, 1, 3, 4), (24, 99, 4, 1), 5).coalesced()  # rows 24 apart, then 12 in a row
        Layout(shape=(2, 12), strides=(24, 1), offset=5)
        >>> Layout.contiguous((2, 3)).permute((1, 0)).coalesced().shape
        (3, 2)
        """
        if self.numel() == 0:
            return Layout.derived((0,), (1,), self.offset)
        sizes, strides = _runs(self.shape, self.strides)
        return Layout.derived(tuple(sizes), tuple(strides), self.offset)

    def try_reshape(self, new_shape: Sequence[int]) -> Layout | None:
        """The same elements in row-major order under `new_shape`, if strides can express it.

        numpy's no-copy rule, on the normal form (`coalesced`): each of its runs is split, from
        the innermost axis out, into new axes whose sizes divide it; a new axis that would
        straddle two runs has no stride, so the reshape needs a copy (None). A size-1 new axis
        takes the stride its right neighbour's size would continue with (1 at the far right).
        """
        new_shape = tuple(new_shape)
        if self.numel() == 0:
            return Layout.contiguous(new_shape, self.offset)
        new_strides = [1] * len(new_shape)
        k = len(new_shape) - 1
        while k >= 0 and new_shape[k] == 1:  # trailing size-1 axes
            k -= 1
        sizes, strides = _runs(self.shape, self.strides)  # the normal form's axes, without the object
        for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
            while size > 1:
                n = new_shape[k]
                if size % n:
                    return None
                new_strides[k] = stride
                stride, size, k = stride * n, size // n, k - 1
            while k >= 0 and new_shape[k] == 1:  # size-1 axes left of the run go with it
                new_strides[k] = stride
                k -= 1
        return Layout.derived(new_shape, tuple(new_strides), self.offset)


def _runs(shape: Shape, strides: Shape) -> tuple[list[int], list[int]]:
    """The sizes and strides of `Layout.coalesced` (of a non-empty layout)."""
    sizes: list[int] = []
    steps: list[int] = []
    for size, stride in zip(shape, strides, strict=True):
        if size == 1:
            continue
        if steps and steps[-1] == size * stride:  # the outer axis walks on where this one ends
            sizes[-1] *= size
            steps[-1] = stride
        else:
            sizes.append(size)
            steps.append(stride)
    return sizes, steps

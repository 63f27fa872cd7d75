"""Index-driven kernels with PyTorch's semantics: `gather`, `index_add`, `scatter_add`, and the segment
reductions `segment_sum` and `segment_max` (arrays in and out).

`index_add` and `segment_sum` are the message-passing step of a graph neural network
(sum the messages of every edge into its target node), so their sums pick the
fastest exact numpy kernel: `np.bincount` for floats (over (row, column)
codes for float64, column by column otherwise) and a stable sort followed by
`np.add.reduceat` for integers, complex and object values. Never `np.add.at`,
which is several times slower.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from lazytensor.ground import indexing
from lazytensor.ground.indexing import normalize_indices
from lazytensor.ground.layout import IndexArray
from lazytensor.ground.positions import Shape, normalize_dim, numel, row_major_strides
from lazytensor.kernels.callables import Buffer, Values


def indices_along(index: Values, size: int, axis: int) -> IndexArray:
    """An integer index operand with negatives counted from the end, or IndexError naming the bad one.

    >>> indices_along([0, -1], 3, axis=0).tolist()
    [0, 2]
    """
    array = np.asarray(index)
    if array.dtype.kind not in "iu" and (array.size != 0 or array.dtype.kind != "f"):
        raise TypeError(f"an index along dim {axis} must hold integers, got dtype {array.dtype}")
    return normalize_indices(array.astype(np.intp, copy=False), axis, size, axis_word="dim")


@attrs.frozen(eq=False)
class Grouping:
    """How segment reductions visit rows whose segments are `targets`: the order that groups them
    (None when they already are), where each run of one segment starts, and its segment. An edge
    list computes it once and reuses it every step, as a hand-written numpy GNN would.

    >>> grouping = Grouping.of(np.array([2, 0, 2]), count=3)
    >>> grouping.order.tolist(), grouping.starts.tolist(), grouping.segments.tolist()
    ([1, 0, 2], [0, 1], [0, 2])
    >>> grouping.sum(np.array([[1.0], [2.0], [3.0]])).tolist()
    [[2.0], [0.0], [4.0]]
    """

    order: IndexArray | None
    starts: IndexArray
    segments: IndexArray
    count: int
    length: int
    """How many targets (rows) it groups."""

    @classmethod
    def of(cls, targets: IndexArray, count: int) -> Grouping:
        """The grouping of valid targets (non-negative, below `count`): sorted stably unless they are
        non-decreasing already."""
        if np.all(targets[1:] >= targets[:-1]):
            return cls.ordered(targets, count, None)
        return cls.ordered(targets, count, np.argsort(targets, kind="stable"))

    @classmethod
    def ordered(cls, targets: IndexArray, count: int, order: IndexArray | None) -> Grouping:
        """The grouping of valid targets that `order` puts in non-decreasing order (None: they are)."""
        grouped = targets if order is None else targets[order]
        starts = np.flatnonzero(np.concatenate(([True], grouped[1:] != grouped[:-1])))[: grouped.size]
        return cls(order, starts, grouped[starts], count, int(targets.size))

    def sum(self, rows: Buffer) -> Buffer:
        """`out[s]` = the sum of the rows of segment `s`, over the first axis: `np.add.reduceat` on
        the grouped rows, scattered only when some segment is missing."""
        out_shape = (self.count, *rows.shape[1:])
        if self.starts.size == 0 or rows.size == 0:  # no segment, or rows with no columns
            return np.zeros(out_shape, dtype=rows.dtype)
        grouped = rows if self.order is None else rows[indexing.usable(self.order)]
        sums: Buffer = np.add.reduceat(grouped, self.starts, axis=0)
        if self.starts.size == self.count:  # every segment present, in order (a graph with self loops)
            return sums
        out = np.zeros(out_shape, dtype=rows.dtype)
        out[self.segments] = sums
        return out


def row_sums(targets: IndexArray, rows: Buffer, count: int) -> Buffer:
    """`out[targets[i]] += rows[i]` for every row, into `count` zero rows: a (count, columns) array.

    >>> row_sums(np.array([1, 0, 1]), np.array([[1.0], [2.0], [3.0]]), 3).tolist()
    [[2.0], [4.0], [0.0]]
    """
    columns = rows.shape[1]
    if rows.shape[0] == 0 or columns == 0:
        return np.zeros((count, columns), dtype=rows.dtype)
    if np.all(targets[1:] >= targets[:-1]):  # already grouped: one reduceat, no sort, no bincount
        return Grouping.ordered(targets, count, None).sum(rows)
    if rows.dtype == np.float64:
        return _bincount_codes(targets, rows, count)
    if rows.dtype.kind == "f":
        return _bincount_columns(targets, rows, count)
    return _sorted_reduceat(targets, rows, count)


def _bincount_codes(targets: IndexArray, rows: Buffer, count: int) -> Buffer:
    """One bincount over the code `target * columns + column` of every element."""
    columns = rows.shape[1]
    codes = (targets * columns)[:, None] + np.arange(columns, dtype=np.intp)
    weights = np.ascontiguousarray(rows).reshape(-1)
    return np.bincount(codes.reshape(-1), weights=weights, minlength=count * columns).reshape(count, columns)


def _bincount_columns(targets: IndexArray, rows: Buffer, count: int) -> Buffer:
    """One bincount per column, in float64, cast back to the rows' float dtype."""
    sums = np.empty((rows.shape[1], count), dtype=np.float64)
    for column in range(rows.shape[1]):
        sums[column] = np.bincount(targets, weights=rows[:, column], minlength=count)
    return sums.T.astype(rows.dtype)


def _sorted_reduceat(targets: IndexArray, rows: Buffer, count: int) -> Buffer:
    """Rows sorted by target (stably), then summed run by run: exact, for any dtype."""
    return Grouping.ordered(targets, count, np.argsort(targets, kind="stable")).sum(rows)


def _lowest(dtype: np.dtype[Any]) -> Any:
    """The identity of `max` for a real dtype: what a segment that no index names holds."""
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    if dtype.kind == "b":
        return False
    raise TypeError(f"segment_max needs real numbers (bool, integer or float), got dtype {dtype}")


def segment_sum(
    source: Values, index: Values, *, num_segments: int, grouping: Grouping | None = None
) -> Buffer:
    """`out[n]` = the sum of the `source[i]` with `index[i] == n`, row by row along the first axis
    (trailing axes kept); 0 where no index names `n`. `index_add` into zeros, without the zeros. A
    `grouping` of the index (`Grouping.of` the same valid index: an edge list keeps one) spares
    checking and grouping it again.

    >>> segment_sum(np.array([[1.0, 5.0], [3.0, 2.0], [0.0, 9.0]]), [1, 1, 0], num_segments=3).tolist()
    [[0.0, 9.0], [4.0, 7.0], [0.0, 0.0]]
    """
    rows = _segment_rows(source, num_segments, "segment_sum")
    if grouping is not None:
        if (grouping.count, grouping.length) != (num_segments, rows.shape[0]):
            raise ValueError(
                f"segment_sum: a grouping of {grouping.length} indices into {grouping.count} segments "
                f"does not fit source of shape {rows.shape} into {num_segments} segments"
            )
        sums = grouping.sum(rows)
    else:
        sums = _first_axis_sums(
            _segment_targets(index, rows, num_segments, "segment_sum"), rows, num_segments
        )
    return sums.astype(rows.dtype, copy=False)  # reduceat sums small integers as int64; keep the source's


def _first_axis_sums(targets: IndexArray, rows: Buffer, count: int) -> Buffer:
    """`out[targets[i]] += rows[i]` along the first axis of rows of any rank, into `count` zero rows."""
    flat = rows.reshape(rows.shape[0], numel(rows.shape[1:]))
    return row_sums(targets, flat, count).reshape(count, *rows.shape[1:])


_INTEGERS = (int, np.integer)  # a tuple: isinstance with `int | np.integer` builds a union per call


def _segment_rows(source: Values, num_segments: int, what: str) -> Buffer:
    """The source of a segment reduction as an array of at least one axis, after checking `num_segments`."""
    rows = np.asarray(source)
    if rows.ndim == 0:
        raise ValueError(f"{what}: source must have one row per index, got a 0-d array")
    if isinstance(num_segments, bool) or not isinstance(num_segments, _INTEGERS) or num_segments < 0:
        raise ValueError(f"{what}: num_segments must be a non-negative integer, got {num_segments!r}")
    return rows


def _segment_targets(index: Values, rows: Buffer, num_segments: int, what: str) -> IndexArray:
    """The checked index of a segment reduction: 1-D, one entry per row, each below `num_segments`."""
    targets = indices_along(index, int(num_segments), 0)
    if targets.shape != (rows.shape[0],):
        raise ValueError(
            f"{what}: index of shape {targets.shape} must be 1-D with one entry per row of source "
            f"of shape {rows.shape}"
        )
    return targets


def segment_max(source: Values, index: Values, *, num_segments: int) -> Buffer:
    """`out[n]` = the largest `source[i]` over the `i` with `index[i] == n`, row by row along the first
    axis (any trailing axes, such as attention heads, kept). A segment that no index names holds the
    identity of max: `-inf` for floats, the smallest integer, False. NaN wins, as in `np.maximum`.

    Rows are sorted by segment once (skipped when already grouped) and each run reduced by
    `np.maximum.reduceat`: `np.maximum.at` is many times slower beyond 1-D.

    >>> segment_max(np.array([[1.0, 5.0], [3.0, 2.0], [0.0, 9.0]]), [1, 1, 0], num_segments=3).tolist()
    [[0.0, 9.0], [3.0, 5.0], [-inf, -inf]]
    """
    rows = _segment_rows(source, num_segments, "segment_max")
    targets = _segment_targets(index, rows, num_segments, "segment_max")
    out = np.full((int(num_segments), *rows.shape[1:]), _lowest(rows.dtype), dtype=rows.dtype)
    if targets.size == 0:
        return out
    if not np.all(targets[1:] >= targets[:-1]):
        order = np.argsort(targets, kind="stable")
        targets, rows = targets[order], rows[order]
    starts = np.flatnonzero(np.concatenate(([True], targets[1:] != targets[:-1])))
    out[targets[starts]] = np.maximum.reduceat(rows, starts, axis=0)
    return out


def _check_same_except(values: Buffer, source: Buffer, axis: int, length: int, what: str) -> None:
    expected = (*values.shape[:axis], length, *values.shape[axis + 1 :])
    if source.shape != expected:
        raise ValueError(
            f"{what}: source of shape {source.shape} does not fit a tensor of shape {values.shape} "
            f"with {length} indices along dim {axis} (expected {expected})"
        )


def _sum_dtype(values: Buffer, source: Buffer) -> np.dtype[Any]:
    return np.result_type(values, source)


def index_add(t: Values, index: Values, source: Values, *, dim: int) -> Buffer:
    """A copy of `t` with `source[..., i, ...]` added to `t[..., index[i], ...]` along `dim`, repeats
    accumulating (PyTorch's `index_add`, returning a new tensor).

    >>> index_add(np.zeros((3, 2)), [2, 0, 2], np.ones((3, 2)), dim=0).tolist()
    [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    values, src = np.asarray(t), np.asarray(source)
    axis = normalize_dim(dim, values.ndim)
    added: Buffer = np.add(values, _index_sums(values, index, src, axis), dtype=_sum_dtype(values, src))
    return added


def _index_sums(values: Buffer, index: Values, src: Buffer, axis: int) -> Buffer:
    """`index_add`'s sums of `src` per index along `axis`, shaped like `values`."""
    targets = indices_along(index, values.shape[axis], axis)
    if targets.ndim != 1:
        raise ValueError(f"index_add: index must be 1-D, got shape {targets.shape}")
    _check_same_except(values, src, axis, len(targets), "index_add")
    sums = _first_axis_sums(targets, np.moveaxis(src, axis, 0), values.shape[axis])
    moved: Buffer = np.moveaxis(sums, 0, axis)
    return moved


def _check_index_shape(values: Buffer, index: IndexArray, axis: int, what: str) -> None:
    if index.ndim != values.ndim:
        raise ValueError(
            f"{what}: index of shape {index.shape} needs as many axes as the tensor of shape {values.shape}"
        )
    for d, (size, limit) in enumerate(zip(index.shape, values.shape, strict=True)):
        if d != axis and size > limit:
            raise ValueError(
                f"{what}: index of shape {index.shape} is larger than the tensor of shape {values.shape} "
                f"at dim {d}"
            )


def _leading(array: Buffer, shape: Shape) -> Buffer:
    """The block `array[:shape[0], :shape[1], ...]` (a view)."""
    return array[tuple(slice(0, size) for size in shape)]


def gather(t: Values, index: Values, *, dim: int) -> Buffer:
    """`out[i][j] = t[index[i][j]][j]` for dim 0 (and likewise for any dim): PyTorch's `gather`.
    `index` has as many axes as `t`, and no larger size except along `dim`.

    >>> gather(np.array([[1, 2], [3, 4]]), [[0, 0], [1, 0]], dim=1).tolist()
    [[1, 1], [4, 3]]
    """
    values = np.asarray(t)
    axis = normalize_dim(dim, values.ndim)
    targets = indices_along(index, values.shape[axis], axis)
    _check_index_shape(values, targets, axis, "gather")
    block = (*targets.shape[:axis], values.shape[axis], *targets.shape[axis + 1 :])
    gathered: Buffer = np.take_along_axis(_leading(values, block), targets, axis=axis)
    return gathered


def scatter_add(t: Values, index: Values, source: Values, *, dim: int) -> Buffer:
    """A copy of `t` with `source[i][j]` added to `out[index[i][j]][j]` for dim 0 (and likewise for any
    dim), repeats accumulating: PyTorch's `scatter_add`. Only the leading `index.shape` block of
    `source` is used.

    >>> scatter_add(np.zeros((2, 3)), [[1, 0, 1]], np.ones((1, 3)), dim=0).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    """
    values, src = np.asarray(t), np.asarray(source)
    axis = normalize_dim(dim, values.ndim)
    targets = indices_along(index, values.shape[axis], axis)
    _check_index_shape(values, targets, axis, "scatter_add")
    if src.ndim != targets.ndim or any(i > s for i, s in zip(targets.shape, src.shape, strict=True)):
        raise ValueError(
            f"scatter_add: index of shape {targets.shape} does not fit in source of shape {src.shape}"
        )
    grid: list[IndexArray] = list(np.indices(targets.shape, sparse=True))
    grid[axis] = targets
    strides = row_major_strides(values.shape)
    flat = sum((g * s for g, s in zip(grid, strides, strict=True)), np.zeros((), dtype=np.intp))
    rows = _leading(src, targets.shape).reshape(-1, 1)
    sums = row_sums(np.broadcast_to(flat, targets.shape).reshape(-1), rows, values.size)
    result = np.array(values, dtype=_sum_dtype(values, src), order="C")
    result.reshape(-1)[:] += sums[:, 0]
    return result

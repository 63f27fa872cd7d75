"""Pure functions on shapes and positions.

Nothing here knows about tensors: a *shape* is a tuple of sizes, a *position*
is a sequence of ints, one per axis, and an *index* is a place in a flat
row-major buffer. Every other module builds on these.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, MutableSequence, Sequence

import numpy as np
import numpy.typing as npt

Shape = tuple[int, ...]


def numel(shape: Sequence[int]) -> int:
    """The number of elements of a tensor of this shape (1 for the 0-d shape).

    >>> numel((4, 3, 2)), numel(())
    (24, 1)
    """
    return math.prod(shape)


def row_major_strides(shape: Sequence[int]) -> Shape:
    """Element strides of a C-contiguous tensor of this shape.

    >>> row_major_strides((3, 5, 4))
    (20, 4, 1)
    """
    strides = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * max(shape[axis + 1], 1)
    return tuple(strides)


def int_tuple(values: Iterable[int]) -> Shape:
    """Sizes, strides or axes as a tuple of Python ints (numpy integers converted).

    >>> int_tuple([np.int64(2), 3])
    (2, 3)
    """
    return tuple(int(v) for v in values)


def without_axis(shape: Sequence[int], axis: int) -> Shape:
    """`shape` with one axis removed.

    >>> without_axis((2, 3, 4), 1)
    (2, 4)
    """
    return (*shape[:axis], *shape[axis + 1 :])


def position_to_index(pos: Sequence[int], shape: Sequence[int]) -> int:
    """The row-major flat index of `pos` in a tensor of `shape`.

    >>> position_to_index([1, 2, 3], [5, 6, 7])
    59
    """
    check_position(pos, shape)
    index = 0
    for p, size in zip(pos, shape, strict=True):
        index = index * size + p
    return index


def index_to_position(idx: int, shape: Sequence[int]) -> list[int]:
    """The position of flat index `idx` in a tensor of `shape` (inverse of `position_to_index`).

    >>> index_to_position(59, [5, 6, 7])
    [1, 2, 3]
    """
    total = numel(shape)
    if not 0 <= idx < total:
        raise IndexError(f"index {idx} is out of bounds for shape {tuple(shape)} of {total} elements")
    pos = [0] * len(shape)
    for axis in range(len(shape) - 1, -1, -1):
        idx, pos[axis] = divmod(idx, shape[axis])
    return pos


def next_position(pos: MutableSequence[int], shape: Sequence[int]) -> bool:
    """Advance `pos` in place to the next row-major position; return whether it is still inside.

    >>> p = [1, 2, 6]
    >>> next_position(p, [5, 6, 7]), p
    (True, [1, 3, 0])
    """
    if len(pos) == 0:
        return False
    pos[-1] += 1
    axis = len(pos) - 1
    while axis > 0 and pos[axis] >= shape[axis]:
        pos[axis] = 0
        pos[axis - 1] += 1
        axis -= 1
    return pos[0] < shape[0]


def padded_broadcast(
    shape_a: Sequence[int], shape_b: Sequence[int]
) -> tuple[list[int], list[int], list[int]]:
    """Pad two shapes with leading 1s to equal length and broadcast them: `(padded_a, padded_b, result)`.

    This is the seeds' `broadcast_shapes` (`lt.tenxor.broadcast_shapes`); numpy's name means
    `broadcast_shape` below.

    >>> padded_broadcast([5, 1, 3], [7, 1, 4, 3])
    ([1, 5, 1, 3], [7, 1, 4, 3], [7, 5, 4, 3])
    """
    rank = max(len(shape_a), len(shape_b))
    padded_a = [1] * (rank - len(shape_a)) + list(shape_a)
    padded_b = [1] * (rank - len(shape_b)) + list(shape_b)
    result = []
    for axis, (n, m) in enumerate(zip(padded_a, padded_b, strict=True)):
        if n != m and 1 not in (n, m):
            raise ValueError(
                f"shapes {tuple(shape_a)} and {tuple(shape_b)} cannot be broadcast together: "
                f"sizes {n} and {m} differ at axis {axis} of the padded shapes"
            )
        result.append(m if n == 1 else n)
    return padded_a, padded_b, result


def broadcast_shape(*shapes: Sequence[int]) -> Shape:
    """The broadcast shape of any number of shapes (numpy's rules).

    >>> broadcast_shape((3, 1), (4,), ())
    (3, 4)
    """
    try:
        return int_tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        pass
    result: list[int] = []
    for shape in shapes:  # again, for the error that names the shapes and the axis
        result = padded_broadcast(result, shape)[2]
    return tuple(result)


def check_position(pos: Sequence[int], shape: Sequence[int]) -> None:
    """Raise IndexError unless `pos` is a full, in-range, non-negative position of `shape`."""
    if len(pos) != len(shape):
        raise IndexError(
            f"position {list(pos)} has {len(pos)} indices, shape {tuple(shape)} has {len(shape)} axes"
        )
    for axis, (p, size) in enumerate(zip(pos, shape, strict=True)):
        if not 0 <= p < size:
            raise IndexError(f"index {p} is out of bounds for axis {axis} with size {size}")


def normalize_index(index: int, size: int, axis: int) -> int:
    """A possibly negative index along an axis of `size`, made non-negative; IndexError when outside.

    >>> normalize_index(-1, 5, axis=0)
    4
    """
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    return index + size if index < 0 else index


def normalize_position(pos: Iterable[int], shape: Sequence[int]) -> Shape:
    """A position with negative indices counted from the end, checked against `shape`.

    >>> normalize_position([-1, 0], (3, 4))
    (2, 0)
    """
    pos = _ints_or_type_error(pos, "a position", tuple(shape))
    if is_plain_position(pos, shape):
        return pos
    if len(pos) != len(shape):
        raise IndexError(
            f"position {list(pos)} has {len(pos)} indices, shape {tuple(shape)} has {len(shape)} axes"
        )
    return tuple(
        normalize_index(p, size, axis) for axis, (p, size) in enumerate(zip(pos, shape, strict=True))
    )


def is_plain_position(pos: tuple[object, ...], shape: Sequence[int]) -> bool:
    """Whether `pos` is already a full position of Python ints inside `shape` (the fast path)."""
    return len(pos) == len(shape) and all(
        type(p) is int and 0 <= p < size for p, size in zip(pos, shape, strict=True)
    )


def _ints_or_type_error(values: object, what: str, shape: Shape | None = None) -> Shape:
    """`values` as a tuple of ints, or a TypeError saying what was expected and what came."""
    where = "" if shape is None else f" of a tensor of shape {shape}"
    problem = TypeError(f"{what}{where} is a sequence of ints, got {values!r}")
    if not isinstance(values, Iterable):
        raise problem
    try:
        return tuple(operator.index(item) for item in values)
    except TypeError:
        raise problem from None


def _int_or_type_error(value: object, what: str) -> int:
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an int, got {value!r} ({type(value).__name__})") from None


def normalize_dim(dim: int, ndim: int) -> int:
    """A possibly negative axis number made non-negative.

    Out of range raises numpy's AxisError, which is both an IndexError and a ValueError.

    >>> normalize_dim(-1, 3)
    2
    """
    dim = _int_or_type_error(dim, "an axis")
    if not -ndim <= dim < ndim:
        raise np.exceptions.AxisError(f"axis {dim} is out of bounds for a tensor of {ndim} axes")
    return dim + ndim if dim < 0 else dim


def normalize_dims(dims: int | Iterable[int] | None, ndim: int) -> Shape:
    """None → every axis; an int or several → sorted distinct non-negative axes.

    >>> normalize_dims((-1, 0), 3)
    (0, 2)
    """
    if dims is None:
        return tuple(range(ndim))
    if not isinstance(dims, Iterable):
        dims = (_int_or_type_error(dims, "an axis"),)
    normalized = [normalize_dim(d, ndim) for d in _ints_or_type_error(dims, "axes")]
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"repeated axis in {tuple(normalized)} for a tensor of {ndim} axes")
    return tuple(sorted(normalized))


def as_shape(args: Sequence[object]) -> Shape:
    """Shape arguments given as ints or as one sequence, as numpy and PyTorch both accept.

    >>> as_shape((2, 3)), as_shape(((2, 3),)), as_shape(())
    ((2, 3), (2, 3), ())
    """
    if type(args) is tuple:
        for item in args:  # the commonest call, `reshape(20, 5)`: Python ints already, kept as given
            if type(item) is not int:
                break
        else:
            return args
    items: Iterable[object] = args
    if len(args) == 1 and isinstance(args[0], Iterable):
        items = args[0]
    try:
        return tuple(map(operator.index, items))  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"a shape is a sequence of ints, got {tuple(args)!r}") from None


def infer_shape(new_shape: Sequence[int], total: int, old_shape: Sequence[int] = ()) -> Shape:
    """Resolve at most one -1 in `new_shape` so that it holds `total` elements.

    >>> infer_shape((-1, 3, 1), 12)
    (4, 3, 1)
    """
    if (not new_shape or min(new_shape) >= 0) and math.prod(new_shape) == total:  # `numel`, inline
        return tuple(new_shape)  # the commonest call: nothing to infer, nothing wrong
    old = tuple(old_shape) if old_shape else (total,)
    unknown = [axis for axis, size in enumerate(new_shape) if size == -1]
    bad = [size for size in new_shape if size < -1]
    if bad:
        raise ValueError(f"cannot reshape {old} into {tuple(new_shape)}: negative size {bad[0]}")
    if len(unknown) > 1:
        raise ValueError(f"cannot reshape {old} into {tuple(new_shape)}: only one -1 is allowed")
    known = numel([size for size in new_shape if size != -1])
    if unknown:
        if known == 0 or total % known != 0:
            raise ValueError(
                f"cannot reshape tensor of shape {old} into {tuple(new_shape)}: {total} elements"
            )
        resolved = list(new_shape)
        resolved[unknown[0]] = total // known
        return tuple(resolved)
    if known != total:
        raise ValueError(
            f"cannot reshape tensor of shape {old} into {tuple(new_shape)}: "
            f"{total} elements, but the new shape holds {known}"
        )
    return tuple(new_shape)


def open_grid(shape: Shape) -> tuple[npt.NDArray[np.intp], ...]:
    """Per-axis index arrays that broadcast to every position of `shape` (numpy's `ogrid`).

    >>> [a.shape for a in open_grid((2, 3))]
    [(2, 1), (1, 3)]
    """
    ndim = len(shape)
    return tuple(
        np.arange(size, dtype=np.intp).reshape((1,) * axis + (size,) + (1,) * (ndim - axis - 1))
        for axis, size in enumerate(shape)
    )

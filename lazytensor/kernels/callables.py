"""The generic callable machinery behind `ttransform`, `tpoint` and `tredux`, on numpy arrays.

A *known* operator — a function of the `operator` module, the builtins `abs`,
`max` and `min`, or a numpy ufunc — runs as one numpy call. Any other callable
is called exactly once per element, because it may have side effects
(`next(counter)`, `random.random()`), unless the caller passes `vectorized=True`
to promise that it works on whole arrays.

A kernel module: numpy arrays (or scalars) in, numpy arrays out; tensors never
reach here (`functions.py` and the tensor methods evaluate them first).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.ground.dtypes import array_from_values, as_dtype, fold_dtype
from lazytensor.ground.positions import Shape, broadcast_shape, normalize_dim, numel
from lazytensor.kernels import threads

Buffer = npt.NDArray[Any]
Values = Any
"""A numpy array, or a Python or numpy scalar (kept as it is, so numpy treats it weakly)."""

# -- the known operators ----------------------------------------------------------------------

UNARY_UFUNCS: dict[Callable[..., Any], np.ufunc] = {
    operator.neg: np.negative,
    operator.pos: np.positive,
    operator.abs: np.absolute,
    abs: np.absolute,
    operator.invert: np.invert,
    operator.inv: np.invert,
    operator.not_: np.logical_not,
}

BINARY_UFUNCS: dict[Callable[..., Any], np.ufunc] = {
    operator.add: np.add,
    operator.sub: np.subtract,
    operator.mul: np.multiply,
    operator.truediv: np.true_divide,
    operator.floordiv: np.floor_divide,
    operator.mod: np.remainder,
    operator.pow: np.power,
    operator.and_: np.bitwise_and,
    operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor,
    operator.lshift: np.left_shift,
    operator.rshift: np.right_shift,
    operator.eq: np.equal,
    operator.ne: np.not_equal,
    operator.lt: np.less,
    operator.le: np.less_equal,
    operator.gt: np.greater,
    operator.ge: np.greater_equal,
    operator.iadd: np.add,
    operator.isub: np.subtract,
    operator.imul: np.multiply,
    operator.itruediv: np.true_divide,
    operator.ifloordiv: np.floor_divide,
    operator.imod: np.remainder,
    operator.ipow: np.power,
    max: np.maximum,
    min: np.minimum,
}


def _lookup(table: dict[Callable[..., Any], np.ufunc], op: Callable[..., Any]) -> np.ufunc | None:
    try:
        return table.get(op)
    except TypeError:  # an unhashable callable object is never a known operator
        return None


def known_unary(op: Callable[..., Any]) -> np.ufunc | None:
    """The numpy ufunc that computes `op(x)` for a whole array, or None when `op` is not known.

    >>> known_unary(abs), known_unary(np.exp), known_unary(lambda x: -x)
    (<ufunc 'absolute'>, <ufunc 'exp'>, None)
    """
    if isinstance(op, np.ufunc):
        return op if op.nin == 1 and op.nout == 1 else None
    return _lookup(UNARY_UFUNCS, op)


def known_binary(op: Callable[..., Any]) -> np.ufunc | None:
    """The numpy ufunc that computes `op(x, y)` for whole arrays, or None when `op` is not known.

    >>> known_binary(operator.add), known_binary(max), known_binary(lambda x, y: x + y)
    (<ufunc 'add'>, <ufunc 'maximum'>, None)
    """
    if isinstance(op, np.ufunc):
        return op if op.nin == 2 and op.nout == 1 else None
    return _lookup(BINARY_UFUNCS, op)


def result_shape(*shapes: Shape) -> Shape:
    """The broadcast shape of operands, or a ValueError naming every shape.

    >>> result_shape((3, 1), (4,))
    (3, 4)
    """
    return broadcast_shape(*shapes)


def _cast(values: Any, dtype: npt.DTypeLike | None) -> Buffer:
    array: Buffer = np.asarray(values)
    return array if dtype is None else array.astype(as_dtype(dtype), copy=False)


def _vectorized_result(values: Any, shape: Shape, what: str) -> Buffer:
    array = np.asarray(values)
    if array.shape != shape:
        raise ValueError(f"vectorized {what} returned shape {array.shape}, expected {shape}")
    return array


def _flat_list(values: Buffer, shape: Shape) -> list[Any]:
    """The values broadcast to `shape`, in row-major order, as Python objects."""
    flat: list[Any] = np.broadcast_to(values, shape).reshape(-1).tolist()
    return flat


def _escaped(op: Callable[..., Any], stop: StopIteration) -> RuntimeError:
    return RuntimeError(f"the callable {op!r} raised StopIteration: {stop!r}")


def call_each(op: Callable[..., Any], *columns: list[Any]) -> list[Any]:
    """`op` called on each row of `columns`, in order. `map` would take a StopIteration raised by
    `op` for its own end and silently stop short; here it surfaces as a RuntimeError raised from it,
    as PEP 479 does for generators.

    >>> call_each(lambda x, y: x * y, [1, 2], [3, 4])
    [3, 8]
    >>> call_each(lambda x: next(iter(())), [1])
    Traceback (most recent call last):
    RuntimeError: the callable <function <lambda> at ...> raised StopIteration: StopIteration()
    """
    try:
        if len(columns) == 1:
            return [op(x) for x in columns[0]]
        return [op(*row) for row in zip(*columns, strict=True)]
    except StopIteration as stop:
        raise _escaped(op, stop) from stop


# -- the three generic kernels ----------------------------------------------------------------


def transform(
    values: Values, op: Callable[[Any], Any], dtype: npt.DTypeLike | None = None, vectorized: bool = False
) -> Buffer:
    """`op(x)` for every element: one numpy call for a known `op`, else once per element in
    row-major order (or once on the whole array with `vectorized=True`).

    >>> transform(np.array([[1, -2], [3, -4]]), abs).tolist()
    [[1, 2], [3, 4]]
    >>> transform(np.array([1, 2]), lambda x: x / 2).tolist()
    [0.5, 1.0]
    """
    ufunc = known_unary(op)
    if ufunc is not None:
        return _cast(unary_ufunc(ufunc, values), dtype)
    values = np.asarray(values)
    if vectorized:
        result = _vectorized_result(op(values), values.shape, "ttransform")
    else:
        results = call_each(op, _flat_list(values, values.shape))
        result = array_from_values(results, values.shape, dtype, values.dtype)
    return _cast(result, dtype)


def point(
    x: Values,
    y: Values,
    op: Callable[[Any, Any], Any],
    dtype: npt.DTypeLike | None = None,
    vectorized: bool = False,
) -> Buffer:
    """`op(x, y)` at every position of the broadcast shape of `x` and `y` (numpy's broadcasting).

    >>> point(np.array([[1], [2]]), np.array([1, 2, 3]), operator.mul).tolist()
    [[1, 2, 3], [2, 4, 6]]
    >>> point(np.array([1, 2]), 10, lambda x, y: f"{x}/{y}").tolist()
    ['1/10', '2/10']
    """
    ufunc = known_binary(op)
    if ufunc is not None:
        return _cast(binary_ufunc(ufunc, x, y), dtype)
    shape = result_shape(np.shape(x), np.shape(y))
    if vectorized:
        xs, ys = np.broadcast_arrays(np.asarray(x), np.asarray(y))
        result = _vectorized_result(op(xs, ys), shape, "tpoint")
    else:
        xa, ya = np.asarray(x), np.asarray(y)
        results = call_each(op, _flat_list(xa, shape), _flat_list(ya, shape))
        result = array_from_values(results, shape, dtype, np.result_type(xa, ya))
    return _cast(result, dtype)


def unary_ufunc(ufunc: np.ufunc, values: Values) -> Buffer:
    """`ufunc(values)` as a C-ordered array: what `transform` computes for a known `op`.

    >>> unary_ufunc(np.negative, [1, -2]).tolist()
    [-1, 2]
    """
    array = np.asarray(values)
    if array.size >= threads.start_at:  # big: split across threads (None when it is not for them)
        threaded = threads.ufunc_call(ufunc, array)
        if threaded is not None:
            return threaded
    return np.asarray(ufunc(array, order="C"))


def binary_ufunc(ufunc: np.ufunc, x: Values, y: Values) -> Any:
    """`ufunc(x, y)` in C order, broadcasting (a numpy scalar when both are scalars); shapes that do
    not broadcast are named both.

    >>> binary_ufunc(np.add, np.array([[1], [2]]), [10, 20]).tolist()
    [[11, 21], [12, 22]]
    """
    try:
        # a big result (either operand big, or two that broadcast to a big one) is split across threads
        if getattr(x, "size", 1) * getattr(y, "size", 1) >= threads.start_at:
            threaded = threads.ufunc_call(ufunc, x, y)
            if threaded is not None:
                return threaded
        return ufunc(x, y, order="C")
    except ValueError:
        result_shape(np.shape(x), np.shape(y))  # the error naming both shapes, when that is why
        raise


def fold(
    values: Values,
    dim: int,
    init: Any,
    op: Callable[[Any, Any], Any],
    keepdim: bool = False,
    vectorized: bool = False,
    dtype: npt.DTypeLike | None = None,
) -> Buffer:
    """Fold `acc = op(acc, x)` from `init` along `dim`, for each position of the result in row-major
    order; a known `op` is one `ufunc.reduce(..., initial=init)`.

    >>> t = np.arange(24).reshape(4, 3, 2)
    >>> fold(t, 0, 0, operator.add).tolist()
    [[36, 40], [44, 48], [52, 56]]
    >>> fold(t, 2, 0, lambda acc, x: acc + x).tolist()[0]
    [1, 5, 9]
    """
    values = np.asarray(values)
    axis = normalize_dim(dim, values.ndim)
    ufunc = known_binary(op)
    if ufunc is not None and init is not None:
        result = _ufunc_fold(ufunc, values, axis, init, keepdim)
    elif vectorized:
        result = _vectorized_fold(op, values, axis, init, keepdim)
    else:
        result = _per_element_fold(op, values, axis, init, keepdim, dtype)
    return _cast(result, dtype)


def _reduced_shape(shape: Shape, axis: int, keepdim: bool) -> Shape:
    if keepdim:
        return (*shape[:axis], 1, *shape[axis + 1 :])
    return (*shape[:axis], *shape[axis + 1 :])


def _ufunc_fold(ufunc: np.ufunc, values: Buffer, axis: int, init: Any, keepdim: bool) -> Any:
    work = fold_dtype(values.dtype, init)
    if work != values.dtype:
        values = values.astype(work)
    return ufunc.reduce(values, axis=axis, initial=init, keepdims=keepdim)


def _vectorized_fold(
    op: Callable[[Any, Any], Any], values: Buffer, axis: int, init: Any, keepdim: bool
) -> Buffer:
    acc: Any = init
    for i in range(values.shape[axis]):
        acc = op(acc, np.take(values, i, axis=axis))
    shape = _reduced_shape(values.shape, axis, keepdim=False)
    result = np.broadcast_to(np.asarray(acc), shape)
    return np.expand_dims(result, axis) if keepdim else result


def _per_element_fold(
    op: Callable[[Any, Any], Any],
    values: Buffer,
    axis: int,
    init: Any,
    keepdim: bool,
    dtype: npt.DTypeLike | None,
) -> Buffer:
    length = values.shape[axis]
    rows = numel(values.shape) // length if length else numel(_reduced_shape(values.shape, axis, False))
    lines: list[list[Any]] = np.moveaxis(values, axis, -1).reshape(rows, length).tolist()
    try:
        results = [functools.reduce(op, line, init) for line in lines]
    except StopIteration as stop:
        raise _escaped(op, stop) from stop
    shape = _reduced_shape(values.shape, axis, keepdim)
    return array_from_values(results, shape, dtype, fold_dtype(values.dtype, init))

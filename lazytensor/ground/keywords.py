"""numpy's and PyTorch's spellings of one argument (`axis`/`dim`, `keepdims`/`keepdim`,
`ddof`/`correction`) resolved into one and checked at the public entry point.

A bad argument raises here, before the call descends into the kernels, with numpy's exception
type and a message naming the operation, the shape and the value; the traceback a user sees is
their own line, the method they called and this module's one frame.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from lazytensor.ground import naming
from lazytensor.ground.dtypes import as_dtype
from lazytensor.ground.positions import Shape

T = TypeVar("T")


class _Unset:
    """The default of a keyword that has another spelling: so that giving both is an error."""

    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()
"""A keyword that was not given (distinct from None, which means all axes)."""

AxisArg = int | tuple[int, ...] | None


def user_error(check: Callable[..., T]) -> Callable[..., T]:
    """Run an argument check so that its error's traceback ends at the check's caller: the frames
    inside the check (and what it calls) say nothing to the user who passed the bad argument.

    >>> import traceback
    >>> checked = user_error(int)
    >>> checked("7")
    7
    >>> try:
    ...     checked("seven")
    ... except ValueError as error:
    ...     [frame.name for frame in traceback.extract_tb(error.__traceback__)]
    ['<module>', 'checked']
    """

    @functools.wraps(check)
    def checked(*args: Any, **kwargs: Any) -> T:
        try:
            return check(*args, **kwargs)
        except (TypeError, ValueError, IndexError, RuntimeError) as error:
            raise error.with_traceback(None) from None

    return checked


def either(what: str, names: tuple[str, str], values: tuple[Any, Any], default: Any) -> Any:
    """The value given under one of two spellings of a keyword; TypeError when both are given.

    >>> either("sum", ("dim", "axis"), (UNSET, 1), None)
    1
    """
    first, second = values
    if first is not UNSET and second is not UNSET:
        raise TypeError(
            f"{what}() got both {names[0]}={first!r} and {names[1]}={second!r}: they are one argument"
        )
    if first is not UNSET:
        return first
    return default if second is UNSET else second


def _whole_number(value: Any, what: str, noun: str, accepted: str) -> int:
    """`value` as an int (`operator.index`), refusing a bool as numpy does for an axis or a shift."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{what}: {noun} must be an int, not {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        kind = type(value).__name__
        raise TypeError(f"{what}: {noun} must be {accepted}, got {value!r} ({kind})") from None


def _axis_int(value: Any, what: str) -> int:
    return _whole_number(value, what, "an axis", "an int, a tuple of ints or None")


def _shift(value: Any, what: str) -> int:
    """One shift of `roll`: an int (a bool is refused, as for an axis)."""
    return _whole_number(value, what, "a shift", "an int")


def _in_range(axis: int, shape: Shape, what: str) -> int:
    ndim = len(shape)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim, f"{what} of a tensor of shape {shape}")
    return axis


def single_axis(dim: Any, shape: Shape, what: str) -> int:
    """One axis, checked against `shape` (negative counts from the end; kept as given).

    >>> single_axis(-1, (2, 3), "cumsum")
    -1
    """
    if type(dim) is int and -len(shape) <= dim < len(shape):  # the common case, first
        return dim
    if isinstance(dim, str):
        return naming.axis_named(dim, shape, what)
    if isinstance(dim, Iterable) and not isinstance(dim, bytes):
        raise TypeError(f"{what} takes one axis (an int), not {dim!r}")
    return _in_range(_axis_int(dim, what), shape, what)


def check_axis(dim: Any, shape: Shape, what: str) -> AxisArg:
    """`dim` as the kernels take it (an int, a tuple of distinct ints, or None), or numpy's error:
    AxisError (an IndexError and a ValueError) out of range, ValueError for a repeated axis,
    TypeError for anything but ints.

    >>> check_axis([0, -1], (2, 3), "sum")
    (0, -1)
    """
    if dim is None:
        return None
    if type(dim) is int and -len(shape) <= dim < len(shape):  # the common case, first
        return dim
    if isinstance(dim, str):
        return naming.axis_named(dim, shape, what)
    if isinstance(dim, Iterable) and not isinstance(dim, bytes):
        axes = tuple(
            naming.axis_named(axis, shape, what)
            if isinstance(axis, str)
            else _in_range(_axis_int(axis, what), shape, what)
            for axis in dim
        )
        if len({axis % len(shape) for axis in axes}) != len(axes):
            raise ValueError(f"{what} of a tensor of shape {shape}: duplicate value in 'axis' {axes}")
        return axes
    return _in_range(_axis_int(dim, what), shape, what)


def _flag(value: Any, name: str, what: str) -> bool:
    if value is True or value is False:
        return value
    if not isinstance(value, bool | np.bool_):
        raise TypeError(
            f"{what}: {name} must be True or False, got {value!r} ({type(value).__name__}); "
            "numpy's other arguments (dtype, out) are keywords here"
        )
    return bool(value)


def reduced_shape(shape: Shape, dim: AxisArg, keepdim: bool) -> Shape:
    """The shape a reduction over `dim` gives.

    >>> reduced_shape((2, 3, 4), (0, -1), False), reduced_shape((2, 3), 1, True)
    ((3,), (2, 1))
    """
    ndim = len(shape)
    axes = range(ndim) if dim is None else {a % ndim for a in ((dim,) if isinstance(dim, int) else dim)}
    if keepdim:
        return tuple(1 if axis in axes else size for axis, size in enumerate(shape))
    return tuple(size for axis, size in enumerate(shape) if axis not in axes)


_NO_IDENTITY = {"max": "maximum", "min": "minimum", "nanmax": "fmax", "nanmin": "fmin"}
"""The reductions that have no value over nothing, and numpy's ufunc named in its error."""
_EMPTY_REFUSED = frozenset((*_NO_IDENTITY, "argmax", "argmin"))


def _refuse_empty(what: str, shape: Shape, dim: AxisArg) -> None:
    """ValueError, numpy's, for a reduction without an identity over an axis of size 0."""
    if what not in _EMPTY_REFUSED:
        return
    ndim = len(shape)
    axes = range(ndim) if dim is None else [a % ndim for a in ((dim,) if isinstance(dim, int) else dim)]
    if all(shape[axis] for axis in axes):
        return
    if what in _NO_IDENTITY:
        raise ValueError(
            f"zero-size array to reduction operation {_NO_IDENTITY[what]} which has no identity "
            f"({what} of a tensor of shape {shape} over axis {dim})"
        )
    raise ValueError(f"attempt to get {what} of an empty sequence ({what} of a tensor of shape {shape})")


class Call(NamedTuple):
    """A checked call of a reduction or a scan: the kernel's parameters and where to write (`out`)."""

    params: dict[str, Any]
    out: Any = None


def _check_out(out: Any, shape: Shape, what: str, is_tensor: Callable[[Any], bool]) -> Any:
    """`out` when it is a tensor of the result's shape (checked by the caller only when given)."""
    if not is_tensor(out):
        raise TypeError(f"{what}: out must be a tensor, got {type(out).__name__}")
    if tuple(out.shape) != shape:
        raise ValueError(f"{what}: out has shape {tuple(out.shape)} but the result has shape {shape}")
    return out


def _dtype_param(params: dict[str, Any], dtype: npt.DTypeLike | None) -> None:
    if dtype is not None:
        params["dtype"] = as_dtype(dtype)


@user_error
def reduction(
    what: str,
    shape: Shape,
    dim: Any,
    keepdim: Any,
    is_tensor: Callable[[Any], bool],
    axis: Any = UNSET,
    keepdims: Any = UNSET,
    dtype: npt.DTypeLike | None = None,
    out: Any = None,
    **spread: Any,
) -> Call:
    """A reduction's arguments in either spelling, checked: `dim`/`axis`, `keepdim`/`keepdims`,
    `dtype`, `out`, and for `var`/`std` `ddof`/`correction`.

    >>> reduction("sum", (2, 3), UNSET, UNSET, callable, axis=[1], keepdims=True).params
    {'dim': (1,), 'keepdim': True}
    """
    chosen = check_axis(either(what, ("dim", "axis"), (dim, axis), None), shape, what)
    kept = _flag(either(what, ("keepdim", "keepdims"), (keepdim, keepdims), False), "keepdim", what)
    _refuse_empty(what, shape, chosen)
    params: dict[str, Any] = {"dim": chosen, "keepdim": kept}
    _dtype_param(params, dtype)
    if spread:
        ddof = either(what, ("ddof", "correction"), (spread["ddof"], spread["correction"]), 0)
        if isinstance(ddof, bool | np.bool_) or not isinstance(ddof, int | float | np.integer | np.floating):
            raise TypeError(f"{what}: ddof (correction) must be a number, got {ddof!r}")
        if ddof:
            params["ddof"] = ddof
    if out is None:
        return Call(params)
    return Call(params, _check_out(out, reduced_shape(shape, chosen, kept), what, is_tensor))


@user_error
def scan(
    what: str,
    shape: Shape,
    dim: Any,
    is_tensor: Callable[[Any], bool],
    axis: Any = UNSET,
    dtype: npt.DTypeLike | None = None,
    out: Any = None,
) -> Call:
    """A running sum's or product's arguments, checked: one axis (`dim` or `axis`; None flattens),
    `dtype`, `out`.

    >>> scan("cumsum", (2, 3), UNSET, callable, axis=-1).params
    {'dim': -1}
    """
    chosen = either(what, ("dim", "axis"), (dim, axis), None)
    if chosen is not None:
        chosen = single_axis(chosen, shape, what)
    params: dict[str, Any] = {"dim": chosen}
    _dtype_param(params, dtype)
    if out is None:
        return Call(params)
    result_shape = (int(np.prod(shape)),) if chosen is None else shape
    return Call(params, _check_out(out, result_shape, what, is_tensor))


@user_error
def one_axis(what: str, shape: Shape, dim: Any, axis: Any, default: Any, allow_none: bool = True) -> Any:
    """One axis given as `dim` or `axis`, checked against `shape` (None where `allow_none`).

    >>> one_axis("sort", (2, 3), UNSET, 0, -1), one_axis("sort", (2, 3), UNSET, UNSET, -1)
    (0, -1)
    """
    chosen = either(what, ("dim", "axis"), (dim, axis), default)
    if chosen is None and allow_none:
        return None
    if chosen is None:
        raise TypeError(f"{what} takes one axis (an int), not None")
    return single_axis(chosen, shape, what)


@user_error
def axes(what: str, shape: Shape, dim: Any, axis: Any) -> AxisArg:
    """One or several axes given as `dim` or `axis`, checked against `shape` (None, or neither
    given: every axis).

    >>> axes("flip", (2, 3), UNSET, (0, 1)), axes("flip", (2, 3), UNSET, UNSET)
    ((0, 1), None)
    """
    return check_axis(either(what, ("dim", "axis"), (dim, axis), None), shape, what)


@user_error
def join_axis(what: str, shapes: list[Shape], dim: Any, axis: Any) -> int | None:
    """The axis of `cat`/`concatenate` given as `dim` or `axis`, checked against the first of
    `shapes` (a non-empty list; every other size must match); None flattens first.

    >>> join_axis("cat", [(2, 3), (2, 3)], UNSET, 1)
    1
    """
    chosen = either(what, ("dim", "axis"), (dim, axis), 0)
    if chosen is None:
        return None
    first = shapes[0]
    if not first:
        raise ValueError(f"{what}: 0-d tensors have no axis to join along; use stack")
    joined = single_axis(chosen, first, what)
    along = joined % len(first)
    for i, shape in enumerate(shapes[1:], start=1):
        others = len(shape) == len(first) and all(
            size == want for axis, (size, want) in enumerate(zip(shape, first, strict=True)) if axis != along
        )
        if not others:
            raise ValueError(
                f"{what}: tensor 0 of shape {first} and tensor {i} of shape {shape} "
                f"must have the same sizes except along dim {along}"
            )
    return joined


@user_error
def sorting(
    what: str,
    shape: Shape,
    dim: Any,
    axis: Any,
    kind: str | None,
    stable: bool | None,
    descending: Any,
    in_place: bool = False,
) -> dict[str, Any]:
    """A sort's arguments, checked: the axis (`dim` or `axis`, default -1; None flattens, except
    in place: numpy's `a.sort(axis=None)` is a TypeError), numpy's `kind` or the array API's
    `stable` (not both), and `descending`.

    >>> sorting("sort", (2, 3), UNSET, 0, None, True, False, in_place=True)
    {'dim': 0, 'kind': 'stable'}
    """
    chosen = one_axis(what, shape, dim, axis, -1, allow_none=not in_place)
    if stable is not None and kind is not None:
        raise ValueError(f"{what}: `kind` and `stable` parameters can't be provided at the same time")
    if stable is not None:
        kind = "stable" if _flag(stable, "stable", what) else None
    params: dict[str, Any] = {"dim": chosen, "kind": kind}
    if _flag(descending, "descending", what):
        params["descending"] = True
    return params


@user_error
def rolling(what: str, shape: Shape, shift: Any, dim: Any, axis: Any) -> dict[str, Any]:
    """`roll`'s arguments, checked: the shift (an int, or one per axis) and the axes (`dim` or
    `axis`; None rolls the values flattened).

    >>> rolling("roll", (2, 3), 1, UNSET, (0, 1))
    {'shift': 1, 'axis': (0, 1)}
    """
    chosen = check_axis(either(what, ("dim", "axis"), (dim, axis), None), shape, what)
    shifts = shift if isinstance(shift, Iterable) else (shift,)
    checked = tuple(_shift(s, what) for s in shifts)
    count = 1 if chosen is None or isinstance(chosen, int) else len(chosen)
    if len(checked) != 1 and len(checked) != count:
        raise ValueError(f"{what}: {len(checked)} shifts {checked} for {count} axes {chosen}")
    return {"shift": checked[0] if not isinstance(shift, Iterable) else checked, "axis": chosen}


@user_error
def view_dtype(
    what: str, shape: Shape, current: np.dtype[Any], dtype: npt.DTypeLike, requires_grad: bool
) -> np.dtype[Any]:
    """The dtype of `t.view(dtype)`, checked as numpy checks it: no object dtype on either side,
    no change of size for a 0-d tensor, a smaller size that divides the old one, and a last axis
    whose bytes the new size divides.

    >>> view_dtype("view", (2, 4), np.dtype("int32"), "int64", False)
    dtype('int64')
    """
    target = as_dtype(dtype)
    if requires_grad:
        raise RuntimeError(
            f"{what}({target}) of a tensor of shape {shape} that requires grad: reading its memory as "
            "another dtype has no gradient; call it on t.detach()"
        )
    if target.hasobject or current.hasobject:
        raise TypeError(
            f"{what}({target}): cannot change the data-type of a tensor of dtype {current} (objects)"
        )
    if target.itemsize == current.itemsize:
        return target
    if not shape:
        raise ValueError(
            f"{what}({target}): a 0-d tensor of dtype {current} can change its dtype only to one of "
            "the same itemsize"
        )
    if target.itemsize < current.itemsize and current.itemsize % target.itemsize:
        raise ValueError(
            f"{what}({target}) of a tensor of dtype {current}: a smaller dtype's size must divide the "
            f"old one's; {target.itemsize} does not divide {current.itemsize}"
        )
    if shape[-1] * current.itemsize % target.itemsize:
        raise ValueError(
            f"{what}({target}) of a tensor of shape {shape} and dtype {current}: the last axis holds "
            f"{shape[-1] * current.itemsize} bytes, not a multiple of {target.itemsize}"
        )
    return target


@user_error
def scalar_value(what: str, shape: Shape, value: Any, error: type[Exception] = TypeError) -> None:
    """`error` unless `value` is one value: numpy's `a.fill` raises ValueError for a sequence,
    PyTorch's `fill_` a TypeError.

    >>> scalar_value("fill", (2,), 1.5)
    """
    if np.ndim(value) != 0:
        raise error(
            f"{what} of a tensor of shape {shape} takes one value, got one of shape {np.shape(value)}"
        )


@user_error
def dot_operands(what: str, shape: Shape, other: Any) -> int:
    """The number of axes of `a.dot(b)`'s second operand, when numpy's `dot` is the matrix product
    (or the product with a 0-d operand); ValueError for a `b` of 3 or more axes (use `@`).

    >>> dot_operands("dot", (2, 2), [1, 2])
    1
    """
    other_shape = tuple(np.shape(other))  # a tensor's own shape: np.shape reads `.shape` first
    ndim = len(other_shape)
    if ndim > 2 and shape:
        raise ValueError(
            f"{what} of shapes {shape} and {other_shape}: "
            "numpy's dot sums over the second-last axis of a second operand of 3 or more axes; "
            "lazytensor's dot takes one of at most 2 (use @, which broadcasts the leading axes)"
        )
    return ndim


def _count(value: Any, what: str) -> int:
    """A non-negative int (numpy's `operator.index`: a bool counts as 0 or 1, as in `np.tile`)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int, got {value!r} ({type(value).__name__})") from None
    if number < 0:
        raise ValueError(f"{what} must not be negative, got {number}")
    return number


@user_error
def counts(what: str, reps: Any) -> tuple[int, ...]:
    """Non-negative counts, one or several, as a tuple.

    >>> counts("tile", 2), counts("tile", [2, 1])
    ((2,), (2, 1))
    """
    given = reps if isinstance(reps, Iterable) else (reps,)
    return tuple(_count(n, f"{what}: a count") for n in given)


@user_error
def repeating(what: str, shape: Shape, repeats: Any, axis: Any) -> dict[str, Any]:
    """`repeat`'s arguments, checked: the axis (None: flattened) and one count, or one per element
    along it.

    >>> repeating("repeat", (2, 3), [1, 0, 2], 1)
    {'repeats': (1, 0, 2), 'axis': 1}
    """
    dim = None if axis is None else single_axis(axis, shape, what)
    many = isinstance(repeats, Iterable)
    checked = counts(what, repeats)
    size = int(np.prod(shape)) if dim is None else shape[dim]
    if many and len(checked) not in (1, size):
        raise ValueError(
            f"{what}: {len(checked)} counts for {size} elements along axis {dim} of shape {shape}"
        )
    return {"repeats": checked if many else checked[0], "axis": dim}


@user_error
def indices(what: str, shape: Shape, values: Any, axis: int | None) -> npt.NDArray[np.intp]:
    """Integer indices along `axis` (None: of the values flattened; an axis the caller has already
    checked against `shape`), negatives counted from the end, checked in range as numpy's
    `mode="raise"`.

    >>> indices("take", (2, 3), [-1, 0], 1).tolist()
    [2, 0]
    """
    index = np.asarray(values)
    if index.dtype.kind not in "iu" and not (index.size == 0 and index.dtype.kind == "f"):
        raise IndexError(f"{what}: indices must be integers, got dtype {index.dtype}")
    size = int(np.prod(shape)) if axis is None else shape[axis]
    bad = (index < -size) | (index >= size)
    if bad.any():
        first = int(index[bad][0])  # a boolean mask of the same shape selects into one axis
        raise IndexError(f"{what}: index {first} is out of bounds for axis {axis} with size {size}")
    return np.where(index < 0, index + size, index).astype(np.intp)


@user_error
def diagonal_axes(what: str, shape: Shape, axis1: Any, axis2: Any) -> tuple[int, int]:
    """The two axes whose planes hold the diagonal, made non-negative; they must differ.

    >>> diagonal_axes("diagonal", (2, 3, 4), 0, -1)
    (0, 2)
    """
    if len(shape) < 2:
        raise ValueError(f"{what} needs a tensor of at least 2 axes, got shape {shape}")
    first = single_axis(axis1, shape, what) % len(shape)
    second = single_axis(axis2, shape, what) % len(shape)
    if first == second:
        raise ValueError(f"{what}: axis1 and axis2 cannot be the same (both {first})")
    return first, second


@user_error
def assigned_grad(shape: Shape, dtype: np.dtype[Any], values: Any) -> npt.NDArray[Any]:
    """The values assigned to `w.grad`, checked: `w`'s shape (ValueError naming both), numbers
    (TypeError otherwise); as an array of `w`'s floating dtype.

    >>> assigned_grad((2,), np.dtype("float32"), [1, 2]).dtype
    dtype('float32')
    """
    array = np.asarray(values)
    if array.shape != tuple(shape):
        raise ValueError(f"assigned grad has shape {array.shape}, but the tensor has shape {tuple(shape)}")
    if array.dtype.kind not in "biufc":
        raise TypeError(f"assigned grad has dtype {array.dtype}: a gradient is made of numbers")
    target = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    return np.array(array, dtype=target, order="C", copy=True)


@user_error
def device(what: str, given: Any) -> None:
    """ValueError unless `given` is None or the one device, the CPU (the array API's `device=`).

    >>> device("zeros", "cpu")
    """
    if given is not None and str(given) != "cpu":
        raise ValueError(f"{what}: lazytensor's tensors live on the cpu, not on device {given!r}")


@user_error
def retyped_positions(
    what: str,
    shape: Shape,
    storage: npt.NDArray[np.intp],
    current: np.dtype[Any],
    target: np.dtype[Any],
) -> tuple[npt.NDArray[np.intp], int]:
    """Where each element of `t.view(target)` sits in the storage read as `target` from byte `skip`
    on (returned with it), given where each of `t`'s elements sits (`storage`, of `shape`): numpy's
    rule, the last axis must be one run of memory (any strides for the others); and, for one retyped
    storage to hold them all, every run starts at the same byte modulo the new size.

    >>> where, skip = retyped_positions(
    ...     "view", (2, 2), np.array([[0, 1], [4, 5]]), np.dtype("int64"), np.dtype("int32")
    ... )
    >>> where.tolist(), skip
    ([[0, 1, 2, 3], [8, 9, 10, 11]], 0)
    """
    last = shape[-1]
    if last > 1 and not bool((np.diff(storage, axis=-1) == 1).all()):
        raise ValueError(
            f"{what}({target}) of a tensor of shape {shape}: to change to a dtype of a different size, "
            "the last axis must be contiguous in storage (call .contiguous() first: a copy)"
        )
    per_run = last * current.itemsize // target.itemsize
    if not storage.size:
        return np.zeros((*shape[:-1], per_run), dtype=np.intp), 0
    starts = storage[..., 0] * current.itemsize  # the byte each run starts at
    skip = int(starts.flat[0] % target.itemsize)
    if bool(((starts - skip) % target.itemsize).any()):
        raise ValueError(
            f"{what}({target}) of a tensor of shape {shape}: its rows start at different remainders "
            f"modulo {target.itemsize} bytes in storage (call .contiguous() first: a copy)"
        )
    found: npt.NDArray[np.intp] = ((starts - skip) // target.itemsize)[..., np.newaxis] + np.arange(per_run)
    return found, skip

"""numpy's functions on tensors (`__array_function__`): `np.concatenate(ts)`, `np.transpose(t)`,
`np.sort(t)`, ... give tensors.

A table maps a numpy function to a handler. A handler only calls the methods of the tensors it is
given (so views stay views: `np.transpose(t)` is a `TransposedTensor`) or applies an entry of the
operator table through the door `tensor.py` lends it (`Doors`): this module sits below the tensor
module and never imports it. A function without a handler (or a call a handler does not take, such
as `out=` or `order="F"`) runs numpy on the evaluated values and wraps every array it returns in a
new tensor. That fallback is not differentiable, so when an input requires grad and the result
holds floating-point values, it raises instead of silently dropping the gradient.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.engine import optable
from lazytensor.engine.autograd import is_grad_enabled
from lazytensor.ground import find_nonzero
from lazytensor.ground.positions import normalize_dim, normalize_dims

Buffer = npt.NDArray[Any]


@attrs.frozen
class Doors:
    """What the tensor module lends this one: `apply` (run a table entry), `wrap` (a new storage
    tensor over an array), `is_tensor`, and `values` (an operand's numpy values)."""

    apply: Callable[..., Any]
    wrap: Callable[[Buffer], Any]
    is_tensor: Callable[[Any], bool]
    values: Callable[[Any], Any]


class Fallback(Exception):
    """Raised by a handler for a call it does not take: numpy then runs on the values."""


Handler = Callable[..., Any]
HANDLERS: dict[Callable[..., Any], Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    """Register a handler for the numpy functions of these names (those this numpy has)."""

    def register(handler: Handler) -> Handler:
        for name in names:
            function = getattr(np, name, None)
            if function is not None:
                HANDLERS[function] = handler
        return handler

    return register


def dispatch(doors: Doors, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run `func(*args, **kwargs)` for tensors: its handler, else numpy on the values, wrapped."""
    handler = HANDLERS.get(func)
    if handler is not None:
        try:
            return handler(doors, *args, **kwargs)
        except Fallback:
            pass
    return fallback(doors, func, args, kwargs)


def fallback(doors: Doors, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """numpy's `func` on the evaluated arguments, every array in the result wrapped as a tensor. A
    tensor given as `out=` gets numpy's output through its own write path (a view writes through, the
    version counter moves, an expanded view refuses) and is returned itself, as numpy returns its out."""
    inputs: list[Buffer] = []
    outs: list[tuple[Any, Buffer]] = []
    needs_grad = [False]

    def evaluate(x: Any, is_out: bool = False) -> Any:
        if doors.is_tensor(x):
            needs_grad[0] = needs_grad[0] or x.requires_grad
            if is_out:  # numpy writes into a copy, handed to the tensor once the call has succeeded
                scratch = np.array(doors.values(x))
                outs.append((x, scratch))
                return scratch
            value = doors.values(x)
            inputs.append(value)
            return value
        if isinstance(x, list | tuple):
            return type(x)(evaluate(item, is_out) for item in x)
        return x

    values = tuple(evaluate(x) for x in args)
    keywords = {key: evaluate(x, key == "out") for key, x in kwargs.items()}
    result = func(*values, **keywords)
    if needs_grad[0] and is_grad_enabled() and _has_inexact_array(result):
        name = getattr(func, "__name__", repr(func))
        raise TypeError(
            f"np.{name} on a tensor that requires grad: lazytensor has no gradient for it; "
            "call it inside lt.no_grad(), or on t.detach()"
        )
    for tensor, scratch in outs:
        tensor[...] = scratch
    return _wrap_all(doors, result, inputs, outs)


def _has_inexact_array(result: Any) -> bool:
    if isinstance(result, np.ndarray | np.generic):
        return result.dtype.kind in "fcO"
    if isinstance(result, list | tuple):
        return any(_has_inexact_array(item) for item in result)
    return False


def _wrap_all(
    doors: Doors, result: Any, inputs: Sequence[Buffer], outs: Sequence[tuple[Any, Buffer]] = ()
) -> Any:
    """Every ndarray of `result` (and numpy scalar, as a 0-d tensor) as a new tensor that shares no
    memory with an input, or as the tensor whose `out=` copy it is; Python values (`np.allclose`'s
    bool) stay as they are."""
    if isinstance(result, np.generic):
        return doors.wrap(np.array(result))
    if isinstance(result, np.ndarray):
        for tensor, scratch in outs:
            if result is scratch:
                return tensor
        shared = any(np.may_share_memory(result, x) for x in inputs)
        return doors.wrap(np.array(result, order="C", copy=True) if shared else np.asarray(result, order="C"))
    if isinstance(result, list | tuple) and not hasattr(result, "_fields"):
        return type(result)(_wrap_all(doors, item, inputs, outs) for item in result)
    if isinstance(result, tuple):  # a named tuple (np.unique_all, ...)
        return type(result)(*(_wrap_all(doors, item, inputs, outs) for item in result))
    return result


def _tensor(doors: Doors, x: Any) -> Any:
    """`x` when it is a tensor; otherwise this call is numpy's to run."""
    if not doors.is_tensor(x):
        raise Fallback
    return x


def _no_extras(**extras: Any) -> None:
    """Fall back when a keyword that changes numpy's result was given (out=, dtype=, order=, ...)."""
    if any(value is not None for value in extras.values()):
        raise Fallback


# -- views: numpy returns views, so do we ------------------------------------------------------


@handles("transpose", "permute_dims")
def _transpose(doors: Doors, a: Any, axes: Sequence[int] | None = None) -> Any:
    t = _tensor(doors, a)
    return t.transpose() if axes is None else t.permute(*axes)


@handles("reshape")
def _reshape(
    doors: Doors,
    a: Any,
    shape: Any = None,
    order: str = "C",
    *,
    newshape: Any = None,
    copy: bool | None = None,
) -> Any:
    if order != "C" or copy:
        raise Fallback
    target = shape if shape is not None else newshape
    return _tensor(doors, a).reshape(target)


@handles("ravel")
def _ravel(doors: Doors, a: Any, order: str = "C") -> Any:
    if order != "C":
        raise Fallback
    return _tensor(doors, a).reshape(-1)


@handles("squeeze")
def _squeeze(doors: Doors, a: Any, axis: int | Sequence[int] | None = None) -> Any:
    return _tensor(doors, a).squeeze(axis)


@handles("expand_dims")
def _expand_dims(doors: Doors, a: Any, axis: int | Sequence[int]) -> Any:
    t = _tensor(doors, a)
    axes = np.atleast_1d(axis).tolist()  # numpy's integers too
    new_axes = normalize_dims(axes, t.ndim + len(axes))  # refuses repeated axes as numpy does
    sizes = iter(t.shape)
    shape = [1 if i in new_axes else next(sizes) for i in range(t.ndim + len(axes))]
    return t.reshape(shape)


@handles("moveaxis")
def _moveaxis(doors: Doors, a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
    t = _tensor(doors, a)
    sources = [normalize_dim(axis, t.ndim) for axis in np.atleast_1d(source).tolist()]
    targets = [normalize_dim(axis, t.ndim) for axis in np.atleast_1d(destination).tolist()]
    if len(sources) != len(targets):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [axis for axis in range(t.ndim) if axis not in sources]
    for target, axis in sorted(zip(targets, sources, strict=True)):
        order.insert(target, axis)
    return t.permute(*order)


@handles("swapaxes")
def _swapaxes(doors: Doors, a: Any, axis1: int, axis2: int) -> Any:
    return _tensor(doors, a).swapaxes(axis1, axis2)


@handles("flip")
def _flip(doors: Doors, m: Any, axis: int | Sequence[int] | None = None) -> Any:
    return _tensor(doors, m).flip(axis)


@handles("fliplr")
def _fliplr(doors: Doors, m: Any) -> Any:
    return _tensor(doors, m).flip(1)


@handles("flipud")
def _flipud(doors: Doors, m: Any) -> Any:
    return _tensor(doors, m).flip(0)


@handles("broadcast_to")
def _broadcast_to(doors: Doors, array: Any, shape: Any, subok: bool = False) -> Any:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _tensor(doors, array).broadcast_to(shape)


@handles("split")
def _split(doors: Doors, ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    t = _tensor(doors, ary)
    dim = normalize_dim(axis, t.ndim)
    size = t.shape[dim]
    if isinstance(indices_or_sections, int | np.integer):
        bounds = _equal_bounds(size, int(indices_or_sections))
    else:
        bounds = [0, *(int(i) for i in indices_or_sections), size]
    lead = (slice(None),) * dim
    return [t[(*lead, slice(start, stop))] for start, stop in itertools.pairwise(bounds)]


def _equal_bounds(size: int, sections: int) -> list[int]:
    """The bounds of `sections` equal pieces of an axis of length `size`, refused as numpy refuses (its
    modulo by zero first, then an unequal division, then a count below one).

    >>> _equal_bounds(6, 3), _equal_bounds(0, 2)
    ([0, 2, 4, 6], [0, 0, 0])
    """
    if sections == 0:
        raise ZeroDivisionError(
            f"integer modulo by zero: array split of an axis of length {size} into 0 sections"
        )
    if size % sections:
        raise ValueError(
            "array split does not result in an equal division: "
            f"an axis of length {size} into {sections} sections"
        )
    if sections < 1:
        raise ValueError(
            f"number sections must be larger than 0.: an axis of length {size} into {sections} sections"
        )
    step = size // sections
    return [i * step for i in range(sections + 1)]


@handles("shape")
def _shape(doors: Doors, a: Any) -> tuple[int, ...]:
    return tuple(_tensor(doors, a).shape)


@handles("ndim")
def _ndim(doors: Doors, a: Any) -> int:
    return int(_tensor(doors, a).ndim)


@handles("size")
def _size(doors: Doors, a: Any, axis: int | None = None) -> int:
    t = _tensor(doors, a)
    return int(t.numel() if axis is None else t.shape[axis])


# -- operations of the table -------------------------------------------------------------------


@handles("concatenate", "concat")
def _concatenate(
    doors: Doors, arrays: Sequence[Any], axis: int | None = 0, out: Any = None, **extras: Any
) -> Any:
    _no_extras(out=out, **extras)
    if not isinstance(arrays, list | tuple):  # a tensor, or any iterable: numpy walks it
        raise Fallback
    if axis is None:  # numpy flattens each first (np.ravel of a tensor is its reshape(-1), a view)
        return doors.apply(optable.CAT, *(np.ravel(x) for x in arrays), dim=0)
    return doors.apply(optable.CAT, *arrays, dim=axis)


@handles("stack")
def _stack(doors: Doors, arrays: Sequence[Any], axis: int = 0, out: Any = None, **extras: Any) -> Any:
    _no_extras(out=out, **extras)
    if not isinstance(arrays, list | tuple):
        raise Fallback
    return doors.apply(optable.STACK, *arrays, dim=axis)


def _at_least(doors: Doors, x: Any, ndim: int) -> Any:
    """`x` with leading size-1 axes up to `ndim` axes (a view of a tensor), as `np.atleast_2d`."""
    if not doors.is_tensor(x):
        x = np.asarray(x)
    if x.ndim >= ndim:
        return x
    if ndim == 2 and x.ndim == 1:
        return x.reshape(1, -1)
    return x.reshape((1,) * (ndim - x.ndim) + tuple(x.shape))


@handles("vstack", "row_stack")
def _vstack(doors: Doors, tup: Sequence[Any], **extras: Any) -> Any:
    _no_extras(**extras)
    return doors.apply(optable.CAT, *(_at_least(doors, x, 2) for x in tup), dim=0)


@handles("hstack")
def _hstack(doors: Doors, tup: Sequence[Any], **extras: Any) -> Any:
    _no_extras(**extras)
    arrays = [_at_least(doors, x, 1) for x in tup]
    return doors.apply(optable.CAT, *arrays, dim=0 if arrays and arrays[0].ndim == 1 else 1)


@handles("where")
def _where(doors: Doors, condition: Any, *rest: Any) -> Any:
    if len(rest) == 2:
        return doors.apply(optable.WHERE, condition, *rest)
    if rest:
        raise ValueError("either both or neither of x and y should be given")
    return _nonzero(doors, condition)


# numpy's C loops would walk every position of an expanded tensor, deaf to Ctrl-C: these count a
# repeated axis once, and refuse at once (MemoryError naming the size) indices that cannot fit
@handles("nonzero")
def _nonzero(doors: Doors, a: Any) -> Any:
    return tuple(doors.wrap(i) for i in find_nonzero.nonzero(np.asarray(doors.values(a))))


@handles("argwhere")
def _argwhere(doors: Doors, a: Any) -> Any:
    values = np.asarray(doors.values(a))
    if values.ndim == 0:
        raise Fallback
    return doors.wrap(np.stack(find_nonzero.nonzero(values), axis=1))


@handles("count_nonzero")
def _count_nonzero(doors: Doors, a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    if axis is not None or keepdims:
        raise Fallback
    return doors.wrap(np.array(find_nonzero.count_nonzero(np.asarray(doors.values(a))), dtype=np.intp))


_UNSET: Any = object()
"""An argument not given (None is a bound numpy takes: no bound on that side)."""


@handles("clip")
def _clip(
    doors: Doors,
    a: Any,
    a_min: Any = _UNSET,
    a_max: Any = _UNSET,
    out: Any = None,
    *,
    min: Any = _UNSET,
    max: Any = _UNSET,
    **extras: Any,
) -> Any:
    _no_extras(out=out, **extras)
    if a_min is _UNSET and a_max is _UNSET:
        lo, hi = (None if bound is _UNSET else bound for bound in (min, max))
    elif _UNSET in (a_min, a_max) or min is not _UNSET or max is not _UNSET:
        raise Fallback  # one of a_min/a_max, or both with min/max: numpy names the misuse
    else:
        lo, hi = a_min, a_max
    return doors.apply(optable.CLIP, a, lo=doors.values(lo), hi=doors.values(hi))


@handles("round", "around")
def _round(doors: Doors, a: Any, decimals: int = 0, out: Any = None) -> Any:
    _no_extras(out=out)
    return doors.apply(optable.ROUND, _tensor(doors, a), decimals=decimals)


def _sort_kind(kind: str | None, stable: Any) -> str | None:
    """numpy's `kind`, or "stable" for the array API's `stable=True`; both given: numpy's to refuse."""
    if kind is not None and stable is not None:
        raise Fallback
    return "stable" if stable else kind


@handles("sort")
def _sort(
    doors: Doors, a: Any, axis: int | None = -1, kind: str | None = None, *, stable: Any = None, **extras: Any
) -> Any:
    _no_extras(**extras)
    kind = _sort_kind(kind, stable)
    return doors.apply(optable.SORT, _tensor(doors, a), dim=axis, kind=kind)


@handles("argsort")
def _argsort(
    doors: Doors, a: Any, axis: int | None = -1, kind: str | None = None, *, stable: Any = None, **extras: Any
) -> Any:
    _no_extras(**extras)
    kind = _sort_kind(kind, stable)
    t = _tensor(doors, a)
    flat = t.reshape(1) if t.ndim == 0 else t  # numpy's argsort takes a 0-d array as one element
    return doors.apply(optable.ARGSORT, flat, dim=axis, kind=kind)


@handles("cumsum")
def _cumsum(doors: Doors, a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    _no_extras(out=out)  # numpy writes an out (a tensor through its write path), refusing a gradient
    return _tensor(doors, a).cumsum(axis=axis, dtype=dtype)


@handles("cumprod")
def _cumprod(doors: Doors, a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    _no_extras(out=out)  # numpy writes an out (a tensor through its write path), refusing a gradient
    return _tensor(doors, a).cumprod(axis=axis, dtype=dtype)


@handles("roll")
def _roll(doors: Doors, a: Any, shift: Any, axis: Any = None) -> Any:
    return _tensor(doors, a).roll(shift, axis=axis)


@handles("repeat")
def _repeat(doors: Doors, a: Any, repeats: Any, axis: int | None = None) -> Any:
    return _tensor(doors, a).repeat(repeats, axis)


@handles("tile")
def _tile(doors: Doors, A: Any, reps: Any) -> Any:
    return _tensor(doors, A).tile(reps)


@handles("take")
def _take(
    doors: Doors, a: Any, indices: Any, axis: int | None = None, out: Any = None, mode: str = "raise"
) -> Any:
    if out is not None or mode != "raise":
        raise Fallback
    return _tensor(doors, a).take(indices, axis)


@handles("diagonal")
def _diagonal(doors: Doors, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    return _tensor(doors, a).diagonal(offset, axis1, axis2)


@handles("trace")
def _trace(
    doors: Doors, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> Any:
    _no_extras(out=out)
    return _tensor(doors, a).trace(offset, axis1, axis2, dtype)


def _cumulative(entry: optable.Op) -> Handler:
    """The array API's `cumulative_sum`/`cumulative_prod`: `cumsum` without flattening (an axis is
    required above one dimension), `include_initial` and `dtype`/`out` left to numpy."""

    def handler(
        doors: Doors, x: Any, /, *, axis: int | None = None, include_initial: bool = False, **extras: Any
    ) -> Any:
        t = _tensor(doors, x)
        _no_extras(include_initial=include_initial or None, **extras)
        if axis is None and t.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        return doors.apply(entry, t.reshape(1) if t.ndim == 0 else t, dim=axis)

    return handler


handles("cumulative_sum")(_cumulative(optable.CUMSUM))
handles("cumulative_prod")(_cumulative(optable.CUMPROD))


@handles("dot")
def _dot(doors: Doors, a: Any, b: Any, out: Any = None) -> Any:
    _no_extras(out=out)
    ndims = (np.ndim(doors.values(a)), np.ndim(doors.values(b)))
    if 0 in ndims:
        return doors.apply(optable.MUL, a, b)
    if max(ndims) > 2:
        raise Fallback
    return doors.apply(optable.MATMUL, a, b)


_REDUCTION_KEYWORDS = frozenset(("keepdims", "dtype", "out", "ddof", "correction"))
"""The keywords of numpy's reductions that the tensor's methods take as numpy does."""


def _reduction(name: str, *numpy_names: str) -> None:
    """A numpy reduction (`np.sum(t, axis=0, keepdims=True, dtype=..., ddof=...)`) as the tensor's
    method of that name; an `out=` that is not a tensor runs numpy on the values."""

    def handler(doors: Doors, a: Any, axis: Any = None, *rest: Any, **kwargs: Any) -> Any:
        t = _tensor(doors, a)
        out = kwargs.get("out")
        given = {key: value for key, value in kwargs.items() if value is not None}
        if rest or set(given) - _REDUCTION_KEYWORDS or (out is not None and not doors.is_tensor(out)):
            raise Fallback  # numpy's other keywords (initial=, where=, mean=) run numpy on the values
        if isinstance(axis, list):
            axis = tuple(axis)
        return getattr(t, name)(axis=axis, **given)

    handles(*(numpy_names or (name,)))(handler)


for _name in ("sum", "mean", "prod", "std", "var", "argmax", "argmin", "all", "any"):
    _reduction(_name)
for _name in ("nansum", "nanmean", "nanmax", "nanmin"):
    _reduction(_name)
_reduction("max", "max", "amax")
_reduction("min", "min", "amin")

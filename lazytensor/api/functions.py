"""The public functions of the operator table and the generic operators: `lt.maximum`, `lt.where`,
`lt.cat`, `lt.ttransform`, ... Each is one `apply` of a table entry, the same door the methods and
operators use, or (for the generic operators) a kernel of `generic` on the evaluated inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from lazytensor.engine import optable
from lazytensor.ground import keywords
from lazytensor.ground.find_nonzero import nonzero as nonzero_positions
from lazytensor.ground.keywords import UNSET
from lazytensor.kernels import numeric
from lazytensor.tensors.apply import apply, apply_to_sequence
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor, values_of

Operand = Any
"""A tensor, a numpy array, a Python or numpy scalar, or nested lists: anything numpy can broadcast."""


def ttransform(
    t: Operand, op: Callable[[Any], Any], dtype: npt.DTypeLike | None = None, vectorized: bool = False
) -> StorageTensor:
    """`op(x)` for every element of `t`, as a new tensor of the same shape.

    A known `op` (an `operator` function, `abs`, a numpy ufunc) is one numpy call; any other
    callable is called once per element, in row-major order, unless `vectorized=True` promises
    it takes the whole array.

    >>> import lazytensor as lt
    >>> ttransform(lt.tensor([[1, -2], [3, -4]]).T, abs).tolist()
    [[1, 3], [2, 4]]
    >>> ttransform(lt.tensor([1, 2]), lambda x: x / 2).tolist()
    [0.5, 1.0]
    """
    return apply(optable.TRANSFORM, t, op=op, dtype=dtype, vectorized=vectorized)


def tpoint(
    a: Operand,
    b: Operand,
    op: Callable[[Any, Any], Any],
    dtype: npt.DTypeLike | None = None,
    vectorized: bool = False,
) -> StorageTensor:
    """`op(x, y)` at every position of the broadcast shape of `a` and `b` (numpy's broadcasting;
    a scalar or a numpy array counts as a tensor).

    >>> import lazytensor as lt, operator
    >>> tpoint(lt.tensor([[1], [2], [3]]), lt.tensor([[1, 2, 3]]), operator.mul).tolist()
    [[1, 2, 3], [2, 4, 6], [3, 6, 9]]
    >>> tpoint(lt.tensor([1, 2]), 10, lambda x, y: f"{x}/{y}").tolist()
    ['1/10', '2/10']
    """
    return apply(optable.POINT, a, b, op=op, dtype=dtype, vectorized=vectorized)


def tredux(
    t: Operand,
    dim: int,
    init: Any,
    op: Callable[[Any, Any], Any],
    keepdim: bool = False,
    vectorized: bool = False,
    dtype: npt.DTypeLike | None = None,
) -> StorageTensor:
    """Fold `acc = op(acc, x)` from `init` along `dim`: for each position of the result in row-major
    order, over the elements along `dim` in order. The axis is dropped unless `keepdim`.

    A known `op` is one `ufunc.reduce(..., initial=init)`; any other callable is called once per
    element. The seeds' `tmean` bug (dividing at every step) cannot happen here: `mean` divides once.

    >>> import lazytensor as lt, operator
    >>> t = lt.arange(24).reshape(4, 3, 2)
    >>> tredux(t, 0, 0, operator.add).tolist()
    [[36, 40], [44, 48], [52, 56]]
    >>> tredux(t, 2, 0, lambda acc, x: acc + x).tolist()[0]
    [1, 5, 9]
    """
    return apply(
        optable.FOLD,
        t,
        dim=dim,
        init=init,
        op=op,
        keepdim=keepdim,
        vectorized=vectorized,
        dtype=dtype,
    )


def maximum(a: Operand, b: Operand) -> StorageTensor:
    """The larger of `a` and `b` at every position (NaN wins, as in numpy); differentiable, ties
    sharing the gradient.

    >>> import lazytensor as lt
    >>> lt.maximum(lt.tensor([1, 5]), 3).tolist()
    [3, 5]
    """
    return apply(optable.MAXIMUM, a, b)


def minimum(a: Operand, b: Operand) -> StorageTensor:
    """The smaller of `a` and `b` at every position (NaN wins, as in numpy).

    >>> import lazytensor as lt
    >>> lt.minimum(lt.tensor([1, 5]), 3).tolist()
    [1, 3]
    """
    return apply(optable.MINIMUM, a, b)


def segment_sum(source: Operand, index: Operand, num_segments: int) -> StorageTensor:
    """The sum of the rows of `source` per segment: `out[n] = sum(source[i] for i where index[i] == n)`,
    trailing axes kept, 0 where no index names `n`. `zeros(num_segments, ...).index_add(0, index,
    source)` without the zeros; differentiable (a row's gradient is its segment's).

    >>> import lazytensor as lt
    >>> messages = lt.tensor([[1.0, 5.0], [3.0, 2.0], [0.0, 9.0]])
    >>> lt.segment_sum(messages, [1, 1, 0], 3).tolist()
    [[0.0, 9.0], [4.0, 7.0], [0.0, 0.0]]
    """
    return apply(optable.SEGMENT_SUM, source, index, num_segments=num_segments)


def segment_max(source: Operand, index: Operand, num_segments: int) -> StorageTensor:
    """The largest row of `source` per segment: `out[n] = max(source[i] for i where index[i] == n)`,
    trailing axes kept. Segments that no index names hold `-inf` (floats), the smallest integer, or
    False. Beside `segment_sum`; not differentiable (detach what you feed it).

    >>> import lazytensor as lt
    >>> scores = lt.tensor([[1.0, 5.0], [3.0, 2.0], [0.0, 9.0]])
    >>> lt.segment_max(scores, [1, 1, 0], 3).tolist()
    [[0.0, 9.0], [3.0, 5.0], [-inf, -inf]]
    """
    return apply(optable.SEGMENT_MAX, source, index, num_segments=num_segments)


_MISSING: Any = object()


@overload
def where(condition: Operand) -> tuple[StorageTensor, ...]: ...


@overload
def where(condition: Operand, a: Operand, b: Operand) -> StorageTensor: ...


def where(
    condition: Operand, a: Operand = _MISSING, b: Operand = _MISSING
) -> StorageTensor | tuple[StorageTensor, ...]:
    """`a` where `condition` holds, else `b`, all three broadcast together (differentiable in a and b).
    With the condition alone, numpy's `nonzero`: the indices where it holds, one tensor per axis.

    >>> import lazytensor as lt
    >>> t = lt.tensor([1, -2, 3])
    >>> lt.where(t > 0, t, 0).tolist()
    [1, 0, 3]
    >>> [i.tolist() for i in lt.where(t > 0)]
    [[0, 2]]
    """
    if a is _MISSING and b is _MISSING:
        return nonzero(condition)
    if a is _MISSING or b is _MISSING:
        raise TypeError("where takes the condition alone, or the condition and both a and b")
    return apply(optable.WHERE, condition, a, b)


def nonzero(t: Operand) -> tuple[StorageTensor, ...]:
    """The indices of the elements that are not zero (true), one int tensor per axis, as numpy's.

    >>> import lazytensor as lt
    >>> [i.tolist() for i in lt.nonzero([[0, 1], [2, 0]])]
    [[0, 1], [1, 0]]
    """
    values = np.asarray(values_of(t))
    if values.ndim == 0:
        raise ValueError("nonzero of a 0-d tensor: index it as t[None] first, as numpy asks")
    return tuple(StorageTensor.from_array(i) for i in nonzero_positions(values))


def _shape(x: Operand) -> tuple[int, ...]:
    """An operand's shape; a named tensor's carries its names, so that `dim` may name an axis."""
    return x._axis_shape if isinstance(x, AbstractTensor) else np.shape(x)


def _sequence(what: str, tensors: Any) -> list[tuple[int, ...]]:
    """The shapes of a sequence of tensors to join (TypeError for anything but a non-empty list or tuple)."""
    if not isinstance(tensors, list | tuple) or not tensors:
        raise TypeError(f"{what} takes a non-empty sequence of tensors, got {type(tensors).__name__}")
    return [_shape(x) for x in tensors]


def _flattened(x: Operand) -> Operand:
    return x.reshape(-1) if isinstance(x, AbstractTensor) else np.ravel(x)


def cat(tensors: Sequence[Operand], dim: int | None = UNSET, *, axis: int | None = UNSET) -> StorageTensor:
    """The tensors joined along an existing axis `dim` or `axis` (None: each flattened first), in new
    storage; every other size must match. numpy's `concatenate`, the array API's `concat`.

    >>> import lazytensor as lt
    >>> lt.cat([lt.zeros(1, 2), lt.ones(2, 2)]).tolist(), lt.cat([lt.zeros(1, 2)] * 2, axis=1).shape
    ([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]], (1, 4))
    >>> lt.cat([lt.zeros(1, 2), lt.ones(1)], axis=None).tolist()
    [0.0, 0.0, 1.0]
    """
    joined = keywords.join_axis("cat", _sequence("cat", tensors), dim, axis)
    if joined is None:
        return apply_to_sequence(optable.CAT, [_flattened(x) for x in tensors], dim=0)
    return apply_to_sequence(optable.CAT, tensors, dim=joined)


def concatenate(
    arrays: Sequence[Operand], axis: int | None = 0, *, dtype: npt.DTypeLike | None = None
) -> AbstractTensor:
    """numpy's name of `cat`: the arrays joined along `axis` (None: each flattened first), cast to
    `dtype` when given.

    >>> import lazytensor as lt
    >>> lt.concatenate([lt.tensor([1, 2]), [3]]).tolist(), lt.concatenate([[1], [2]], dtype=float).tolist()
    ([1, 2, 3], [1.0, 2.0])
    """
    joined = keywords.join_axis("concatenate", _sequence("concatenate", arrays), UNSET, axis)
    parts = list(arrays) if joined is not None else [_flattened(x) for x in arrays]
    result = apply_to_sequence(optable.CAT, parts, dim=0 if joined is None else joined)
    return result if dtype is None else result.astype(dtype)


def array_equal(a: Operand, b: Operand, equal_nan: bool = False) -> bool:
    """Whether `a` and `b` have the same shape and the same values (numpy's `np.array_equal`,
    PyTorch's `torch.equal`); NaN equals NaN only with `equal_nan`.

    >>> import lazytensor as lt
    >>> lt.array_equal(lt.arange(3), [0, 1, 2]), lt.array_equal(lt.arange(3), lt.arange(4))
    (True, False)
    """
    return numeric.equal(values_of(a), values_of(b), equal_nan)


def unique(
    t: Operand,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
) -> StorageTensor | tuple[StorageTensor, ...]:
    """The sorted distinct values, as numpy's `np.unique` (values flattened); with the flags, also
    the first index of each, where each element went (`inverse`, in the input's shape as numpy 2),
    and how often each occurs, in that order. Not differentiable.

    >>> import lazytensor as lt
    >>> lt.unique(lt.tensor([3, 1, 3])).tolist()
    [1, 3]
    >>> [u.tolist() for u in lt.unique(lt.tensor([3, 1, 3]), return_inverse=True, return_counts=True)]
    [[1, 3], [1, 0, 1], [1, 2]]
    """
    values = apply(optable.UNIQUE, t)
    wanted = [
        part
        for part, flag in (("index", return_index), ("inverse", return_inverse), ("counts", return_counts))
        if flag
    ]
    if not wanted:
        return values
    return (values, *(apply(optable.UNIQUE, t, part=part) for part in wanted))


def allclose(
    a: Operand, b: Operand, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether `|a - b| <= atol + rtol * |b|` everywhere (broadcast, as numpy's `allclose`).

    >>> import lazytensor as lt
    >>> lt.allclose(lt.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-9])
    True
    """
    return numeric.allclose(values_of(a), values_of(b), rtol=rtol, atol=atol, equal_nan=equal_nan)

"""The table of operations: for each, its numpy kernel, its backward rule (or the statement that it
has none), how it treats shapes, and its chunked (dask) form (or the statement that it has none).

Every user-facing door — the function `lt.maximum`, the method `t.sum`, the
operator `+`, numpy's `np.exp(t)` — applies one entry of this table through
`tensor.apply`, so an operation behaves the same way whichever door it came in
by. A kernel takes numpy values (arrays, or scalars kept as they are so numpy
treats them weakly) and keyword parameters; a backward rule takes what was
saved and the gradient of the result, and returns one gradient (or None) per
operand. An entry whose `backward` is None is not differentiable: its results
never require grad (comparisons, argmax, floor division, ...).

The table registers itself: `TABLE` collects every entry this module defines, `UFUNCS` is each
entry's ufunc (read off its kernel) plus the few `UFUNC_ALIASES`, and the array API namespace makes
`lt.<name>` of every entry that carries an `Api` (`lazytensor.array_api.elementwise`). Adding an
elementwise operation is one entry here (docs/extending.md).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from lazytensor.engine import chunkforms
from lazytensor.engine.autograd import BackwardRule, Grads, Saved
from lazytensor.engine.chunkforms import (
    Declaration,
    arg_extreme,
    blockwise,
    dask_function,
    join,
    refuse,
    scan,
    softmax,
    whole_axis,
)
from lazytensor.ground import indexing
from lazytensor.ground.positions import Shape, normalize_dim, normalize_dims, numel
from lazytensor.kernels import numeric, reductions, routines, scatter
from lazytensor.kernels.callables import (
    Buffer,
    binary_ufunc,
    fold,
    known_binary,
    known_unary,
    point,
    transform,
    unary_ufunc,
)

SHAPES = ("broadcast", "same", "reduce", "matmul", "index", "join", "own")
"""How an operation treats shapes: broadcast its operands, keep the shape, reduce axes, multiply
matrices, read or write by an index, join several tensors, or give a shape of its own (a
decomposition, a transform, a set, a repetition)."""


ELEMENTWISE = ("same", "broadcast")
"""The shapes of an entry the array API namespace can make a function of: one operand (`x, /`), or
two that broadcast (`x1, x2, /`)."""


def _one_line(instance: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if not value.strip() or "\n" in value:
        raise ValueError(f"Api.{attribute.name} must be one line of text, got {value!r}")


@attrs.frozen
class Api:
    """The function an entry is in the array API namespace (`lt.<name>`, made by
    `lazytensor.array_api.elementwise`): its name, the one line its docstring says, and the doctest
    example under it, a call and what the call shows.

    >>> Api("twice", "Each element doubled.", "lt.twice(lt.tensor([1])).tolist()", "[2]").name
    'twice'
    """

    name: str = attrs.field(validator=attrs.validators.matches_re(r"[a-z][a-z0-9_]*"))
    summary: str = attrs.field(validator=_one_line)
    example: str = attrs.field(validator=_one_line)
    shows: str = attrs.field(validator=_one_line)


@attrs.frozen
class Op:
    """One operation: a name, a kernel, a backward rule or None, how it treats shapes, and its
    chunked form on dask arrays or the refusal saying why it has none (`chunked=`, required: see
    `lazytensor.engine.chunkforms` for the builders). An elementwise entry may carry `api=`, the
    function it is in the array API namespace, and `torch_name=`, PyTorch's word for it.

    >>> Op("twice", lambda x: 2 * x, None, "same", chunked=blockwise()).chunked.build.args
    ((),)
    """

    name: str
    kernel: Callable[..., Any]
    backward: BackwardRule | None
    shapes: str = attrs.field(validator=attrs.validators.in_(SHAPES))
    chunked: Declaration = attrs.field(
        kw_only=True,
        validator=attrs.validators.instance_of((chunkforms.ChunkedForm, chunkforms.NoChunkedForm)),
    )
    """How the operation runs on dask arrays (a `ChunkedForm`), or why it does not (`refuse(...)`)."""
    api: Api | None = attrs.field(default=None, kw_only=True)
    """The function of the array API namespace this entry is (`lt.sin`), or None."""
    torch_name: str = attrs.field(
        kw_only=True, default=attrs.Factory(lambda self: self.name, takes_self=True)
    )
    """PyTorch's word for the operation, where it is not `name`: `grad_fn` names say `DivBackward0`
    for truediv."""
    ufunc: np.ufunc | None = attrs.field(init=False)
    """The numpy ufunc an elementwise kernel calls, or None: `apply` may let it write its result into
    a temporary operand, as numpy elides temporaries."""

    @ufunc.default
    def _kernel_ufunc(self) -> np.ufunc | None:
        kernel = self.kernel
        if isinstance(kernel, functools.partial) and kernel.func in (binary_ufunc, unary_ufunc):
            found: np.ufunc = kernel.args[0]
            return found
        return None

    @api.validator
    def _elementwise(self, attribute: attrs.Attribute[Api | None], value: Api | None) -> None:
        if value is not None and self.shapes not in ELEMENTWISE:
            raise ValueError(
                f"{self.name}: only an elementwise entry (shapes {' or '.join(ELEMENTWISE)}) can be "
                f"lt.{value.name}, not one whose shapes are {self.shapes!r}"
            )

    @property
    def differentiable(self) -> bool:
        return self.backward is not None


# -- helpers for the backward rules -----------------------------------------------------------


def unbroadcast(grad: Buffer, shape: Shape) -> Buffer:
    """Sum a broadcast result's gradient back to an input's shape.

    >>> unbroadcast(np.ones((2, 3)), (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    axes = tuple(axis for axis, size in enumerate(shape) if size == 1 and grad.shape[axis] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad


def _shape(value: Any) -> Shape:
    return tuple(np.shape(value))


def _axes(saved: Saved) -> Shape:
    return normalize_dims(saved.params.get("dim"), np.ndim(saved.inputs[0]))


def _spread(grad: Buffer, saved: Saved) -> Any:
    """A reduction's gradient put back on the reduced axes, broadcast to the input shape."""
    kept = grad if saved.params.get("keepdim", False) else np.expand_dims(grad, _axes(saved))
    return np.broadcast_to(kept, _shape(saved.inputs[0]))


def _kept(values: Buffer, saved: Saved) -> Buffer:
    """A reduction's output with the reduced axes kept (size 1), to broadcast against the input."""
    return values if saved.params.get("keepdim", False) else np.expand_dims(values, _axes(saved))


Rule = Callable[[Saved, Buffer], Any]


def _binary(rule_a: Rule, rule_b: Rule) -> BackwardRule:
    """A rule for a broadcasting binary operation: each operand's raw gradient, computed only when
    that operand needs one (`h[src] * weight` never pays for the weight's), summed back to its shape."""

    def backward(saved: Saved, grad: Buffer) -> Grads:
        a, b = saved.inputs
        return (
            unbroadcast(np.asarray(rule_a(saved, grad)), _shape(a)) if saved.needs[0] else None,
            unbroadcast(np.asarray(rule_b(saved, grad)), _shape(b)) if saved.needs[1] else None,
        )

    return backward


def _unary(rule: Callable[[Saved, Buffer], Any]) -> BackwardRule:
    return lambda saved, grad: (rule(saved, grad),)


# -- the backward rules -----------------------------------------------------------------------


def _extreme_pair_rule(operand: int) -> Rule:
    """maximum/minimum: the gradient goes to the operand chosen, split evenly on ties."""

    def rule(saved: Saved, g: Buffer) -> Any:
        hits = [np.asarray(x == saved.output, dtype=g.dtype) for x in saved.inputs]
        return g * hits[operand] / (hits[0] + hits[1])

    return rule


def _matmul_backward(saved: Saved, g: Buffer) -> Grads:
    a, b = (np.asarray(x) for x in saved.inputs)
    left = a if a.ndim > 1 else a[np.newaxis, :]  # numpy's 1-D promotion
    right = b if b.ndim > 1 else b[:, np.newaxis]
    batch = np.broadcast_shapes(left.shape[:-2], right.shape[:-2])
    grad = g.reshape((*batch, left.shape[-2], right.shape[-1]))
    ga = gb = None
    if saved.needs[0]:
        ga = unbroadcast(grad @ np.swapaxes(right, -1, -2), left.shape).reshape(a.shape)
    if saved.needs[1]:
        gb = unbroadcast(np.swapaxes(left, -1, -2) @ grad, right.shape).reshape(b.shape)
    return ga, gb


def _clip_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    inside = np.ones(x.shape, dtype=bool)
    lo, hi = saved.params.get("lo"), saved.params.get("hi")
    if lo is not None:
        inside &= x >= lo
    if hi is not None:
        inside &= x <= hi
    return g * inside


def _where_backward(saved: Saved, g: Buffer) -> Grads:
    condition, a, b = saved.inputs
    chosen = np.asarray(condition).astype(bool)
    zero = np.zeros((), dtype=g.dtype)
    ga = unbroadcast(np.where(chosen, g, zero), _shape(a)) if saved.needs[1] else None
    gb = unbroadcast(np.where(chosen, zero, g), _shape(b)) if saved.needs[2] else None
    return None, ga, gb


def _mean_rule(saved: Saved, g: Buffer) -> Any:
    shape = _shape(saved.inputs[0])
    count = numel([shape[axis] for axis in _axes(saved)])
    return _spread(g / count, saved)


def _extreme_rule(saved: Saved, g: Buffer) -> Any:
    """max/min: the gradient goes to the positions holding the extreme value, split among ties."""
    x = np.asarray(saved.inputs[0])
    hits = x == _kept(saved.output, saved)
    share = hits / hits.sum(axis=_axes(saved), keepdims=True)
    return _spread(g, saved) * share


def _prod_rule(saved: Saved, g: Buffer) -> Any:
    """The product of all the other elements of each reduced run (exact with zeros): exclusive
    cumulative products from the left and from the right."""
    x = np.asarray(saved.inputs[0])
    axes = _axes(saved)
    kept = [axis for axis in range(x.ndim) if axis not in axes]
    order = (*kept, *axes)
    runs = np.transpose(x, order).reshape((*(x.shape[a] for a in kept), -1))
    ones = np.ones((*runs.shape[:-1], 1), dtype=runs.dtype)
    left = np.cumprod(np.concatenate([ones, runs[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, runs[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (left * right).reshape(tuple(x.shape[a] for a in order))
    return _spread(g, saved) * np.transpose(others, np.argsort(order))


def _degrees(saved: Saved, x: Buffer) -> Any:
    """The divisor of a variance: the count of the reduced elements less `ddof`."""
    return numel([x.shape[axis] for axis in _axes(saved)]) - saved.params.get("ddof", 0)


def _var_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    axes = _axes(saved)
    count = _degrees(saved, x)
    deviation = x - x.mean(axis=axes, keepdims=True)
    return _spread(g, saved) * 2 * deviation / count


def _std_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    axes = _axes(saved)
    count = _degrees(saved, x)
    deviation = x - x.mean(axis=axes, keepdims=True)
    spread = np.broadcast_to(_kept(saved.output, saved), x.shape) * count
    # where every element is equal the std is 0: take the subgradient 0 (a lone element's is exactly 0)
    share = np.divide(
        deviation, spread, out=np.zeros(x.shape, dtype=np.result_type(x, 0.0)), where=spread != 0
    )
    return _spread(g, saved) * share


def _softmax_rule(saved: Saved, g: Buffer) -> Any:
    out = saved.output
    axis = normalize_dim(saved.params["dim"], out.ndim)
    return out * (g - (g * out).sum(axis=axis, keepdims=True))


def _log_softmax_rule(saved: Saved, g: Buffer) -> Any:
    out = saved.output
    axis = normalize_dim(saved.params["dim"], out.ndim)
    return g - np.exp(out) * g.sum(axis=axis, keepdims=True)


def _gather_backward(saved: Saved, g: Buffer) -> Grads:
    values, index = saved.inputs
    zeros = np.zeros(_shape(values), dtype=g.dtype)
    return scatter.scatter_add(zeros, index, g, dim=saved.params["dim"]), None


def _index_add_backward(saved: Saved, g: Buffer) -> Grads:
    values, index, _ = saved.inputs
    axis = normalize_dim(saved.params["dim"], np.ndim(values))
    return g, None, np.take(g, indexing.usable(np.asarray(index)), axis=axis)


def _segment_sum_backward(saved: Saved, g: Buffer) -> Grads:
    """Each source row went to one segment: its gradient is that segment's, gathered back."""
    _, index = saved.inputs
    return np.take(g, indexing.usable(np.asarray(index)), axis=0), None


def _scatter_add_backward(saved: Saved, g: Buffer) -> Grads:
    values, index, source = saved.inputs
    targets = np.asarray(index)
    axis = normalize_dim(saved.params["dim"], np.ndim(values))
    grad_source = np.zeros(_shape(source), dtype=g.dtype)
    grad_source[tuple(slice(0, n) for n in targets.shape)] = np.take_along_axis(g, targets, axis=axis)
    return g, None, grad_source


def _cat_backward(saved: Saved, g: Buffer) -> Grads:
    axis = normalize_dim(saved.params.get("dim", 0), g.ndim)
    ends = np.cumsum([_shape(x)[axis] for x in saved.inputs])[:-1]
    return np.split(g, ends, axis=axis)


def _stack_backward(saved: Saved, g: Buffer) -> Grads:
    axis = normalize_dim(saved.params.get("dim", 0), g.ndim)
    return [np.take(g, i, axis=axis) for i in range(len(saved.inputs))]


# -- the table --------------------------------------------------------------------------------

BLOCKWISE = blockwise()
"""The chunked form of an elementwise kernel: run on each block of the broadcast operands."""

BY_INDEX = (
    "it reads or writes the positions an index operand names, anywhere in the tensor, so each "
    "block of the result may need every block of the operand"
)


def _ufunc_kernel(op: Callable[..., Any]) -> Callable[..., Buffer]:
    """The kernel of a Python operator: its numpy ufunc, looked up once here rather than per call."""
    ufunc = known_binary(op)
    if ufunc is None:
        raise TypeError(f"{op!r} has no numpy ufunc")
    return functools.partial(binary_ufunc, ufunc)


def _unary_kernel(op: Callable[[Any], Any]) -> Callable[[Any], Buffer]:
    """The kernel of a unary Python operator: its numpy ufunc, looked up once."""
    ufunc = known_unary(op)
    if ufunc is None:
        raise TypeError(f"{op!r} has no numpy ufunc")
    return functools.partial(unary_ufunc, ufunc)


ADD = Op(
    "add",
    _ufunc_kernel(operator.add),
    _binary(lambda s, g: g, lambda s, g: g),
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "add",
        "`x1 + x2` at every position of the broadcast shape.",
        "lt.add(lt.tensor([1, 2]), 10).tolist()",
        "[11, 12]",
    ),
)
SUB = Op(
    "sub",
    _ufunc_kernel(operator.sub),
    _binary(lambda s, g: g, lambda s, g: -g),
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "subtract",
        "`x1 - x2` at every position of the broadcast shape.",
        "lt.subtract(lt.tensor([1, 2]), 1).tolist()",
        "[0, 1]",
    ),
)
MUL = Op(
    "mul",
    _ufunc_kernel(operator.mul),
    _binary(lambda s, g: g * s.inputs[1], lambda s, g: g * s.inputs[0]),
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "multiply",
        "`x1 * x2` at every position of the broadcast shape.",
        "lt.multiply(lt.tensor([1, 2]), 3).tolist()",
        "[3, 6]",
    ),
)
TRUEDIV = Op(
    "truediv",
    _ufunc_kernel(operator.truediv),
    _binary(lambda s, g: g / s.inputs[1], lambda s, g: -g * s.inputs[0] / (s.inputs[1] * s.inputs[1])),
    "broadcast",
    chunked=BLOCKWISE,
    torch_name="div",
    api=Api("divide", "`x1 / x2`: true division.", "lt.divide(lt.tensor([1, 3]), 2).tolist()", "[0.5, 1.5]"),
)
POWER = Op(
    "power",
    _ufunc_kernel(operator.pow),
    _binary(
        lambda s, g: g * s.inputs[1] * np.power(s.inputs[0], s.inputs[1] - 1),
        lambda s, g: g * s.output * np.log(s.inputs[0]),
    ),
    "broadcast",
    chunked=BLOCKWISE,
    torch_name="pow",
    api=Api(
        "pow",
        "`x1 ** x2` at every position of the broadcast shape.",
        "lt.pow(lt.tensor([2, 3]), 2).tolist()",
        "[4, 9]",
    ),
)
FLOORDIV = Op(
    "floordiv",
    _ufunc_kernel(operator.floordiv),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "floor_divide",
        "`x1 // x2`: the quotient rounded down.",
        "lt.floor_divide(lt.tensor([7, -7]), 2).tolist()",
        "[3, -4]",
    ),
)
MOD = Op(
    "mod",
    _ufunc_kernel(operator.mod),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "remainder",
        "`x1 % x2`: the remainder with the sign of `x2`, as Python's `%`.",
        "lt.remainder(lt.tensor([7, -7]), 3).tolist()",
        "[1, 2]",
    ),
)
MAXIMUM = Op(
    "maximum",
    _ufunc_kernel(np.maximum),
    _binary(_extreme_pair_rule(0), _extreme_pair_rule(1)),
    "broadcast",
    chunked=BLOCKWISE,
)
MINIMUM = Op(
    "minimum",
    _ufunc_kernel(np.minimum),
    _binary(_extreme_pair_rule(0), _extreme_pair_rule(1)),
    "broadcast",
    chunked=BLOCKWISE,
)
EQ = Op(
    "eq",
    _ufunc_kernel(operator.eq),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "equal",
        "`x1 == x2` elementwise: a bool tensor (numpy's `equal`; the standard's).",
        "lt.equal(lt.tensor([1, 2]), lt.tensor([1, 5])).tolist()",
        "[True, False]",
    ),
)
NE = Op(
    "ne",
    _ufunc_kernel(operator.ne),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "not_equal", "`x1 != x2` elementwise.", "lt.not_equal(lt.tensor([1, 2]), 2).tolist()", "[True, False]"
    ),
)
LT = Op(
    "lt",
    _ufunc_kernel(operator.lt),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api("less", "`x1 < x2` elementwise.", "lt.less(lt.tensor([1, 3]), 2).tolist()", "[True, False]"),
)
LE = Op(
    "le",
    _ufunc_kernel(operator.le),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "less_equal",
        "`x1 <= x2` elementwise.",
        "lt.less_equal(lt.tensor([1, 3]), 1).tolist()",
        "[True, False]",
    ),
)
GT = Op(
    "gt",
    _ufunc_kernel(operator.gt),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "greater", "`x1 > x2` elementwise.", "lt.greater(lt.tensor([1, 3]), 2).tolist()", "[False, True]"
    ),
)
GE = Op(
    "ge",
    _ufunc_kernel(operator.ge),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "greater_equal",
        "`x1 >= x2` elementwise.",
        "lt.greater_equal(lt.tensor([1, 2]), 2).tolist()",
        "[False, True]",
    ),
)
AND = Op(
    "and",
    _ufunc_kernel(operator.and_),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "bitwise_and",
        "`x1 & x2` for integers and booleans.",
        "lt.bitwise_and(lt.tensor([12]), 10).tolist()",
        "[8]",
    ),
)
OR = Op(
    "or",
    _ufunc_kernel(operator.or_),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "bitwise_or",
        "`x1 | x2` for integers and booleans.",
        "lt.bitwise_or(lt.tensor([12]), 10).tolist()",
        "[14]",
    ),
)
XOR = Op(
    "xor",
    _ufunc_kernel(operator.xor),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "bitwise_xor",
        "`x1 ^ x2` for integers and booleans.",
        "lt.bitwise_xor(lt.tensor([12]), 10).tolist()",
        "[6]",
    ),
)
LSHIFT = Op(
    "lshift",
    _ufunc_kernel(operator.lshift),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "bitwise_left_shift",
        "`x1 << x2` for integers.",
        "lt.bitwise_left_shift(lt.tensor([1, 2]), 3).tolist()",
        "[8, 16]",
    ),
)
RSHIFT = Op(
    "rshift",
    _ufunc_kernel(operator.rshift),
    None,
    "broadcast",
    chunked=BLOCKWISE,
    api=Api(
        "bitwise_right_shift",
        "`x1 >> x2` for integers.",
        "lt.bitwise_right_shift(lt.tensor([16, 9]), 2).tolist()",
        "[4, 2]",
    ),
)
MATMUL = Op("matmul", numeric.matmul, _matmul_backward, "matmul", chunked=dask_function("matmul"))
WHERE = Op("where", numeric.where, _where_backward, "broadcast", chunked=BLOCKWISE)

NEG = Op(
    "neg",
    _unary_kernel(operator.neg),
    _unary(lambda s, g: -g),
    "same",
    chunked=BLOCKWISE,
    api=Api("negative", "`-x` for each element.", "lt.negative(lt.tensor([1, -2])).tolist()", "[-1, 2]"),
)
POS = Op(
    "pos",
    _unary_kernel(operator.pos),
    _unary(lambda s, g: g),
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "positive", "`+x` for each element (a copy).", "lt.positive(lt.tensor([1, -2])).tolist()", "[1, -2]"
    ),
)
ABS = Op(
    "abs",
    _unary_kernel(abs),
    _unary(lambda s, g: g * np.sign(s.inputs[0])),
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "abs",
        "The absolute value of each element (the modulus, for complex numbers).",
        "lt.abs(lt.tensor([-1.5, 2.0])).tolist()",
        "[1.5, 2.0]",
    ),
)
INVERT = Op(
    "invert",
    _unary_kernel(operator.invert),
    None,
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "bitwise_invert",
        "`~x` for integers and booleans.",
        "lt.bitwise_invert(lt.tensor([0, 5])).tolist()",
        "[-1, -6]",
    ),
)
EXP = Op(
    "exp",
    numeric.exp,
    _unary(lambda s, g: g * s.output),
    "same",
    chunked=BLOCKWISE,
    api=Api("exp", "`e ** x` for each element.", "lt.exp(lt.tensor([0.0])).tolist()", "[1.0]"),
)
LOG = Op(
    "log",
    numeric.log,
    _unary(lambda s, g: g / s.inputs[0]),
    "same",
    chunked=BLOCKWISE,
    api=Api("log", "The natural logarithm of each element.", "lt.log(lt.tensor([1.0])).tolist()", "[0.0]"),
)
SQRT = Op(
    "sqrt",
    numeric.sqrt,
    _unary(lambda s, g: g / (2 * s.output)),
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "sqrt", "The square root of each element.", "lt.sqrt(lt.tensor([4.0, 9.0])).tolist()", "[2.0, 3.0]"
    ),
)
TANH = Op(
    "tanh",
    numeric.tanh,
    _unary(lambda s, g: g * (1 - s.output * s.output)),
    "same",
    chunked=BLOCKWISE,
    api=Api("tanh", "The hyperbolic tangent of each element.", "lt.tanh(lt.tensor([0.0])).tolist()", "[0.0]"),
)
SIGMOID = Op(
    "sigmoid",
    numeric.sigmoid,
    _unary(lambda s, g: g * s.output * (1 - s.output)),
    "same",
    chunked=BLOCKWISE,
)
RELU = Op("relu", numeric.relu, _unary(lambda s, g: g * (s.output > 0)), "same", chunked=BLOCKWISE)
CLIP = Op("clip", numeric.clip, _unary(_clip_rule), "same", chunked=blockwise(("lo", "hi")))
SOFTMAX = Op("softmax", reductions.softmax, _unary(_softmax_rule), "same", chunked=softmax())
LOG_SOFTMAX = Op(
    "log_softmax", reductions.log_softmax, _unary(_log_softmax_rule), "same", chunked=softmax(log=True)
)

SUM = Op(
    "sum",
    reductions.tsum,
    _unary(lambda s, g: _spread(g, s)),
    "reduce",
    chunked=dask_function("sum", reduction=True),
)
MEAN = Op(
    "mean", reductions.mean, _unary(_mean_rule), "reduce", chunked=dask_function("mean", reduction=True)
)
PROD = Op(
    "prod", reductions.prod, _unary(_prod_rule), "reduce", chunked=dask_function("prod", reduction=True)
)
MAX = Op(
    "max", reductions.tmax, _unary(_extreme_rule), "reduce", chunked=dask_function("max", reduction=True)
)
MIN = Op(
    "min", reductions.tmin, _unary(_extreme_rule), "reduce", chunked=dask_function("min", reduction=True)
)
VAR = Op("var", reductions.var, _unary(_var_rule), "reduce", chunked=dask_function("var", reduction=True))
STD = Op("std", reductions.std, _unary(_std_rule), "reduce", chunked=dask_function("std", reduction=True))
ARGMAX = Op("argmax", reductions.argmax, None, "reduce", chunked=arg_extreme("argmax"))
ARGMIN = Op("argmin", reductions.argmin, None, "reduce", chunked=arg_extreme("argmin"))
ALL = Op("all", reductions.tall, None, "reduce", chunked=dask_function("all", reduction=True))
ANY = Op("any", reductions.tany, None, "reduce", chunked=dask_function("any", reduction=True))

GATHER = Op("gather", scatter.gather, _gather_backward, "index", chunked=refuse(BY_INDEX))
INDEX_ADD = Op("index_add", scatter.index_add, _index_add_backward, "index", chunked=refuse(BY_INDEX))
SCATTER_ADD = Op("scatter_add", scatter.scatter_add, _scatter_add_backward, "index", chunked=refuse(BY_INDEX))
SEGMENT_SUM = Op("segment_sum", scatter.segment_sum, _segment_sum_backward, "index", chunked=refuse(BY_INDEX))
SEGMENT_MAX = Op(
    "segment_max", scatter.segment_max, None, "index", chunked=refuse(BY_INDEX)
)  # a gradient would pick one row per tie
CAT = Op("cat", numeric.cat, _cat_backward, "join", chunked=join("concatenate"))
STACK = Op("stack", numeric.stack, _stack_backward, "join", chunked=join("stack"))

TRANSFORM = Op("ttransform", transform, None, "same", chunked=chunkforms.TRANSFORM)
POINT = Op("tpoint", point, None, "broadcast", chunked=chunkforms.POINT)
FOLD = Op("tredux", fold, None, "reduce", chunked=chunkforms.FOLD)


# -- rounding, NaN tests and NaN-ignoring reductions, running sums and products, sorting -----


def _nan_kept(saved: Saved) -> Buffer:
    """Where the input is not NaN: the positions a NaN-ignoring reduction used."""
    kept: Buffer = ~np.isnan(np.asarray(saved.inputs[0]))
    return kept


def _nansum_rule(saved: Saved, g: Buffer) -> Any:
    return _spread(g, saved) * _nan_kept(saved)


def _nanmean_rule(saved: Saved, g: Buffer) -> Any:
    kept = _nan_kept(saved)
    count = kept.sum(axis=_axes(saved), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _spread(g, saved) * kept / count


def _scan_lines(values: Buffer, dim: int | None) -> tuple[Buffer, Callable[[Buffer], Buffer]]:
    """The values as rows of one scan each (the scanned axis last), and how to put rows back."""
    if dim is None:
        return values.reshape(1, -1), lambda rows: rows.reshape(values.shape)
    axis = normalize_dim(dim, values.ndim)
    moved = np.moveaxis(values, axis, -1)
    return moved.reshape(-1, values.shape[axis]), lambda rows: np.moveaxis(
        rows.reshape(moved.shape), -1, axis
    )


def _cumsum_rule(saved: Saved, g: Buffer) -> Any:
    """Each input reaches every running sum from its position on: the reversed running sum of g."""
    x = np.asarray(saved.inputs[0])
    _, back = _scan_lines(x, saved.params.get("dim"))
    rows, _ = _scan_lines(np.asarray(g), saved.params.get("dim"))
    return back(np.cumsum(rows[:, ::-1], axis=-1)[:, ::-1])


def _cumprod_rule(saved: Saved, g: Buffer) -> Any:
    """d out[j] / d x[i] is the product of x[0..j] without x[i], for j >= i: exact with zeros."""
    x = np.asarray(saved.inputs[0])
    rows, back = _scan_lines(x, saved.params.get("dim"))
    grad_rows, _ = _scan_lines(np.asarray(g), saved.params.get("dim"))
    result = np.zeros(rows.shape, dtype=np.result_type(rows, grad_rows))
    for i in range(rows.shape[-1]):
        others = rows.copy()
        others[:, i] = 1
        partial = np.cumprod(others[:, i:], axis=-1) * np.prod(others[:, :i], axis=-1, keepdims=True)
        result[:, i] = (grad_rows[:, i:] * partial).sum(axis=-1)
    return back(result)


def _sort_rule(saved: Saved, g: Buffer) -> Any:
    """Each sorted position's gradient goes back to the element that landed there."""
    x = np.asarray(saved.inputs[0])
    rows, back = _scan_lines(x, saved.params.get("dim"))
    grad_rows, _ = _scan_lines(np.asarray(g), saved.params.get("dim"))
    order = reductions.argsort(rows, -1, saved.params.get("kind"), saved.params.get("descending", False))
    result = np.zeros(grad_rows.shape, dtype=grad_rows.dtype)
    np.put_along_axis(result, order, grad_rows, axis=-1)
    return back(result)


ROUND = Op("round", numeric.round_values, _unary(lambda s, g: np.zeros_like(g)), "same", chunked=BLOCKWISE)
ISNAN = Op(
    "isnan",
    numeric.isnan,
    None,
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "isnan",
        "Whether each element is NaN.",
        "lt.isnan(lt.tensor([1.0, float('nan')])).tolist()",
        "[False, True]",
    ),
)
ISINF = Op(
    "isinf",
    numeric.isinf,
    None,
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "isinf",
        "Whether each element is infinite.",
        "lt.isinf(lt.tensor([1.0, float('-inf')])).tolist()",
        "[False, True]",
    ),
)
ISFINITE = Op(
    "isfinite",
    numeric.isfinite,
    None,
    "same",
    chunked=BLOCKWISE,
    api=Api(
        "isfinite",
        "Whether each element is neither NaN nor infinite.",
        "lt.isfinite(lt.tensor([1.0, float('inf')])).tolist()",
        "[True, False]",
    ),
)
NANSUM = Op(
    "nansum",
    reductions.nansum,
    _unary(_nansum_rule),
    "reduce",
    chunked=dask_function("nansum", reduction=True),
)
NANMEAN = Op(
    "nanmean",
    reductions.nanmean,
    _unary(_nanmean_rule),
    "reduce",
    chunked=dask_function("nanmean", reduction=True),
)
NANMAX = Op(
    "nanmax",
    reductions.nanmax,
    _unary(_extreme_rule),
    "reduce",
    chunked=dask_function("nanmax", reduction=True),
)
NANMIN = Op(
    "nanmin",
    reductions.nanmin,
    _unary(_extreme_rule),
    "reduce",
    chunked=dask_function("nanmin", reduction=True),
)
CUMSUM = Op("cumsum", reductions.cumsum, _unary(_cumsum_rule), "same", chunked=scan("cumsum"))
CUMPROD = Op("cumprod", reductions.cumprod, _unary(_cumprod_rule), "same", chunked=scan("cumprod"))
SORT = Op("sort", reductions.sort, _unary(_sort_rule), "same", chunked=whole_axis())
ARGSORT = Op("argsort", reductions.argsort, None, "same", chunked=whole_axis())

# -- numpy's copy and unique (the array API's rearrangements are below) ------------------------

COPY = Op("copy", routines.copy, _unary(lambda s, g: g), "same", chunked=BLOCKWISE)
UNIQUE = Op(  # not differentiable: which of equal elements a gradient would go to is a choice
    "unique",
    routines.unique,
    None,
    "index",
    chunked=refuse("the distinct values are known only after every value is read"),
)

# -- the array API standard's operations (lazytensor is an array API namespace) ----------------


def _ufunc_op(name: str, ufunc: np.ufunc, rule: Rule | None, *, api: Api | None = None) -> Op:
    """An elementwise entry whose kernel is one numpy ufunc of one operand."""
    backward = None if rule is None else _unary(rule)
    return Op(name, functools.partial(unary_ufunc, ufunc), backward, "same", chunked=BLOCKWISE, api=api)


def _binary_ufunc_op(
    name: str, ufunc: np.ufunc, rules: tuple[Rule, Rule] | None, *, api: Api | None = None
) -> Op:
    """An elementwise entry whose kernel is one numpy ufunc of two broadcast operands."""
    backward = None if rules is None else _binary(*rules)
    return Op(name, functools.partial(binary_ufunc, ufunc), backward, "broadcast", chunked=BLOCKWISE, api=api)


def _x(saved: Saved) -> Any:
    return saved.inputs[0]


def _zero_rule(saved: Saved, g: Buffer) -> Any:
    """A step function (floor, ceil, trunc, sign): its gradient is zero wherever it has one, as PyTorch's."""
    return np.zeros_like(g)


def _sum_of_squares(saved: Saved) -> Any:
    a, b = saved.inputs
    return np.asarray(a) * a + np.asarray(b) * b


# Elementwise operations of one operand. Those with `None` have no gradient: their results are bool
# (logical_not, signbit) or take complex numbers apart (real, imag, conj), which lazytensor's
# real-valued autograd does not differentiate.
ACOS = _ufunc_op(
    "acos",
    np.arccos,
    lambda s, g: -g / np.sqrt(1 - _x(s) * _x(s)),
    api=Api(
        "acos",
        "The inverse cosine of each element, in radians.",
        "lt.acos(lt.tensor([1.0])).tolist()",
        "[0.0]",
    ),
)
ACOSH = _ufunc_op(
    "acosh",
    np.arccosh,
    lambda s, g: g / np.sqrt(_x(s) * _x(s) - 1),
    api=Api(
        "acosh",
        "The inverse hyperbolic cosine of each element.",
        "lt.acosh(lt.tensor([1.0])).tolist()",
        "[0.0]",
    ),
)
ASIN = _ufunc_op(
    "asin",
    np.arcsin,
    lambda s, g: g / np.sqrt(1 - _x(s) * _x(s)),
    api=Api(
        "asin", "The inverse sine of each element, in radians.", "lt.asin(lt.tensor([0.0])).tolist()", "[0.0]"
    ),
)
ASINH = _ufunc_op(
    "asinh",
    np.arcsinh,
    lambda s, g: g / np.sqrt(_x(s) * _x(s) + 1),
    api=Api(
        "asinh",
        "The inverse hyperbolic sine of each element.",
        "lt.asinh(lt.tensor([0.0])).tolist()",
        "[0.0]",
    ),
)
ATAN = _ufunc_op(
    "atan",
    np.arctan,
    lambda s, g: g / (1 + _x(s) * _x(s)),
    api=Api(
        "atan",
        "The inverse tangent of each element, in radians.",
        "lt.atan(lt.tensor([0.0])).tolist()",
        "[0.0]",
    ),
)
ATANH = _ufunc_op(
    "atanh",
    np.arctanh,
    lambda s, g: g / (1 - _x(s) * _x(s)),
    api=Api(
        "atanh",
        "The inverse hyperbolic tangent of each element.",
        "lt.atanh(lt.tensor([0.0])).tolist()",
        "[0.0]",
    ),
)
COS = _ufunc_op(
    "cos",
    np.cos,
    lambda s, g: -g * np.sin(_x(s)),
    api=Api("cos", "The cosine of each element (radians).", "lt.cos(lt.tensor([0.0])).tolist()", "[1.0]"),
)
COSH = _ufunc_op(
    "cosh",
    np.cosh,
    lambda s, g: g * np.sinh(_x(s)),
    api=Api("cosh", "The hyperbolic cosine of each element.", "lt.cosh(lt.tensor([0.0])).tolist()", "[1.0]"),
)
SIN = _ufunc_op(
    "sin",
    np.sin,
    lambda s, g: g * np.cos(_x(s)),
    api=Api("sin", "The sine of each element (radians).", "lt.sin(lt.tensor([0.0])).tolist()", "[0.0]"),
)
SINH = _ufunc_op(
    "sinh",
    np.sinh,
    lambda s, g: g * np.cosh(_x(s)),
    api=Api("sinh", "The hyperbolic sine of each element.", "lt.sinh(lt.tensor([0.0])).tolist()", "[0.0]"),
)
TAN = _ufunc_op(
    "tan",
    np.tan,
    lambda s, g: g * (1 + s.output * s.output),
    api=Api("tan", "The tangent of each element (radians).", "lt.tan(lt.tensor([0.0])).tolist()", "[0.0]"),
)
EXPM1 = _ufunc_op(
    "expm1",
    np.expm1,
    lambda s, g: g * (s.output + 1),
    api=Api("expm1", "`exp(x) - 1`, exact for small `x`.", "lt.expm1(lt.tensor([0.0])).tolist()", "[0.0]"),
)
LOG1P = _ufunc_op(
    "log1p",
    np.log1p,
    lambda s, g: g / (1 + _x(s)),
    api=Api("log1p", "`log(1 + x)`, exact for small `x`.", "lt.log1p(lt.tensor([0.0])).tolist()", "[0.0]"),
)
LOG2 = _ufunc_op(
    "log2",
    np.log2,
    lambda s, g: g / (_x(s) * np.log(2.0)),
    api=Api("log2", "The base-2 logarithm of each element.", "lt.log2(lt.tensor([8.0])).tolist()", "[3.0]"),
)
LOG10 = _ufunc_op(
    "log10",
    np.log10,
    lambda s, g: g / (_x(s) * np.log(10.0)),
    api=Api(
        "log10", "The base-10 logarithm of each element.", "lt.log10(lt.tensor([100.0])).tolist()", "[2.0]"
    ),
)
RECIPROCAL = _ufunc_op(
    "reciprocal",
    np.reciprocal,
    lambda s, g: -g * s.output * s.output,
    api=Api(
        "reciprocal",
        "`1 / x` for each element.",
        "lt.reciprocal(lt.tensor([2.0, 4.0])).tolist()",
        "[0.5, 0.25]",
    ),
)
SQUARE = _ufunc_op(
    "square",
    np.square,
    lambda s, g: 2 * g * _x(s),
    api=Api("square", "`x * x` for each element.", "lt.square(lt.tensor([-3, 2])).tolist()", "[9, 4]"),
)
CEIL = _ufunc_op(
    "ceil",
    np.ceil,
    _zero_rule,
    api=Api(
        "ceil",
        "The smallest integer not below each element (integers stay as they are).",
        "lt.ceil(lt.tensor([-1.5, 1.2])).tolist()",
        "[-1.0, 2.0]",
    ),
)
FLOOR = _ufunc_op(
    "floor",
    np.floor,
    _zero_rule,
    api=Api(
        "floor",
        "The largest integer not above each element (integers stay as they are).",
        "lt.floor(lt.tensor([-1.5, 1.2])).tolist()",
        "[-2.0, 1.0]",
    ),
)
TRUNC = _ufunc_op(
    "trunc",
    np.trunc,
    _zero_rule,
    api=Api(
        "trunc",
        "Each element rounded towards zero (integers stay as they are).",
        "lt.trunc(lt.tensor([-1.5, 1.7])).tolist()",
        "[-1.0, 1.0]",
    ),
)
SIGN = _ufunc_op(
    "sign",
    np.sign,
    _zero_rule,
    api=Api(
        "sign",
        "-1, 0 or 1 by the sign of each element (`x / |x|` for complex numbers).",
        "lt.sign(lt.tensor([-2.0, 0.0, 3.0])).tolist()",
        "[-1.0, 0.0, 1.0]",
    ),
)
CONJ = _ufunc_op(
    "conj",
    np.conjugate,
    None,
    api=Api(
        "conj", "The complex conjugate of each element.", "lt.conj(lt.tensor([1 + 2j])).tolist()", "[(1-2j)]"
    ),
)
LOGICAL_NOT = _ufunc_op(
    "logical_not",
    np.logical_not,
    None,
    api=Api(
        "logical_not",
        "Whether each element is false.",
        "lt.logical_not(lt.tensor([True, False])).tolist()",
        "[False, True]",
    ),
)
SIGNBIT = _ufunc_op(
    "signbit",
    np.signbit,
    None,
    api=Api(
        "signbit",
        "Whether the sign bit of each element is set (True for -0.0 too).",
        "lt.signbit(lt.tensor([-0.0, 0.0, -1.0])).tolist()",
        "[True, False, True]",
    ),
)
REAL = Op(
    "real",
    np.real,
    None,
    "same",
    chunked=BLOCKWISE,
    api=Api("real", "The real part of each element.", "lt.real(lt.tensor([1 + 2j])).tolist()", "[1.0]"),
)
IMAG = Op(
    "imag",
    np.imag,
    None,
    "same",
    chunked=BLOCKWISE,
    api=Api("imag", "The imaginary part of each element.", "lt.imag(lt.tensor([1 + 2j])).tolist()", "[2.0]"),
)

# Elementwise operations of two operands; logical ones and nextafter (a step to the next float) have
# no gradient.
ATAN2 = _binary_ufunc_op(
    "atan2",
    np.arctan2,
    (lambda s, g: g * s.inputs[1] / _sum_of_squares(s), lambda s, g: -g * s.inputs[0] / _sum_of_squares(s)),
    api=Api(
        "atan2",
        "The angle of the point `(x2, x1)`, in radians: the inverse tangent of `x1 / x2` in the right "
        "quadrant.",
        "lt.atan2(lt.tensor([1.0]), lt.tensor([0.0])).tolist()",
        "[1.5707963267948966]",
    ),
)
COPYSIGN = _binary_ufunc_op(
    "copysign",
    np.copysign,
    (lambda s, g: g * np.copysign(1.0, s.inputs[0]) * np.copysign(1.0, s.inputs[1]), lambda s, g: 0 * g),
    api=Api(
        "copysign",
        "The magnitude of `x1` with the sign of `x2`.",
        "lt.copysign(lt.tensor([1.0, 2.0]), -0.0).tolist()",
        "[-1.0, -2.0]",
    ),
)
HYPOT = _binary_ufunc_op(
    "hypot",
    np.hypot,
    (lambda s, g: g * s.inputs[0] / s.output, lambda s, g: g * s.inputs[1] / s.output),
    api=Api(
        "hypot",
        "`sqrt(x1 ** 2 + x2 ** 2)` without overflow.",
        "lt.hypot(lt.tensor([3.0]), 4.0).tolist()",
        "[5.0]",
    ),
)
LOGADDEXP = _binary_ufunc_op(
    "logaddexp",
    np.logaddexp,
    (lambda s, g: g * np.exp(s.inputs[0] - s.output), lambda s, g: g * np.exp(s.inputs[1] - s.output)),
    api=Api(
        "logaddexp",
        "`log(exp(x1) + exp(x2))` without overflow.",
        "lt.logaddexp(lt.tensor([1000.0]), 1000.0).tolist()",
        "[1000.6931471805599]",
    ),
)
NEXTAFTER = _binary_ufunc_op(
    "nextafter",
    np.nextafter,
    None,
    api=Api(
        "nextafter",
        "The next representable floating-point value after `x1` towards `x2`.",
        "lt.nextafter(lt.tensor([1.0]), 2.0).tolist()",
        "[1.0000000000000002]",
    ),
)
LOGICAL_AND = _binary_ufunc_op(
    "logical_and",
    np.logical_and,
    None,
    api=Api(
        "logical_and",
        "Whether both `x1` and `x2` are true, elementwise.",
        "lt.logical_and(lt.tensor([True, False]), True).tolist()",
        "[True, False]",
    ),
)
LOGICAL_OR = _binary_ufunc_op(
    "logical_or",
    np.logical_or,
    None,
    api=Api(
        "logical_or",
        "Whether `x1` or `x2` is true, elementwise.",
        "lt.logical_or(lt.tensor([True, False]), False).tolist()",
        "[True, False]",
    ),
)
LOGICAL_XOR = _binary_ufunc_op(
    "logical_xor",
    np.logical_xor,
    None,
    api=Api(
        "logical_xor",
        "Whether exactly one of `x1` and `x2` is true, elementwise.",
        "lt.logical_xor(lt.tensor([True, False]), True).tolist()",
        "[False, True]",
    ),
)


def _astype_rule(saved: Saved, g: Buffer) -> Any:
    """A cast passes the gradient back, in the input's dtype (its real part, for a real input)."""
    dtype = np.result_type(saved.inputs[0])
    return (g if dtype.kind == "c" else np.real(g)).astype(dtype)


def _add_rows(grad: Buffer, index: Any, size: int, axis: int) -> Buffer:
    """The gradient of picking the rows `index` (1-D) along `axis` out of `size`: each pick's gradient
    added back to the row it came from, repeats accumulating."""
    moved = np.moveaxis(grad, axis, 0)
    out = np.zeros((size, *moved.shape[1:]), dtype=grad.dtype)
    np.add.at(out, np.asarray(index, dtype=np.intp), moved)
    return np.moveaxis(out, 0, axis)


def _take_backward(saved: Saved, g: Buffer) -> Grads:
    x, index = np.asarray(saved.inputs[0]), np.asarray(saved.inputs[1]).reshape(-1)
    axis = saved.params.get("axis")
    if axis is None:
        return _add_rows(g.reshape(-1), index, x.size, 0).reshape(x.shape), None
    axis = normalize_dim(axis, x.ndim)
    return _add_rows(g, index, x.shape[axis], axis), None


def _take_along_axis_backward(saved: Saved, g: Buffer) -> Grads:
    x, index = np.asarray(saved.inputs[0]), np.asarray(saved.inputs[1])
    axis = normalize_dim(saved.params.get("axis", -1), x.ndim)
    grid: list[Any] = list(np.indices(g.shape, sparse=True))
    grid[axis] = np.broadcast_to(index, g.shape)
    full = np.zeros((*g.shape[:axis], x.shape[axis], *g.shape[axis + 1 :]), dtype=g.dtype)
    np.add.at(full, tuple(grid), g)
    return unbroadcast(full, x.shape), None


def _repeat_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    axis = normalize_dim(saved.params.get("axis", 0), x.ndim)
    index = np.repeat(np.arange(x.shape[axis]), saved.params["repeats"])
    return _add_rows(g, index, x.shape[axis], axis)


def _roll_rule(saved: Saved, g: Buffer) -> Any:
    shift = saved.params["shift"]
    back = tuple(-s for s in shift) if isinstance(shift, tuple | list) else -shift
    return np.roll(g, back, axis=saved.params.get("axis"))


def _tile_rule(saved: Saved, g: Buffer) -> Any:
    """Each element's copies sum: split every axis of the result into (repetition, size) and sum the
    repetitions."""
    x = np.asarray(saved.inputs[0])
    reps = tuple(saved.params["repetitions"])
    ndim = max(x.ndim, len(reps))
    sizes = (1,) * (ndim - x.ndim) + x.shape
    reps = (1,) * (ndim - len(reps)) + reps
    split = g.reshape(tuple(n for pair in zip(reps, sizes, strict=True) for n in pair))
    return split.sum(axis=tuple(range(0, 2 * ndim, 2))).reshape(x.shape)


def _diff_rule(saved: Saved, g: Buffer) -> Any:
    """The adjoint of one difference is minus the difference of the gradient padded with a zero at
    both ends; `n` differences take it `n` times."""
    axis = normalize_dim(saved.params.get("axis", -1), g.ndim)
    if g.shape[axis] == 0:  # n at least the axis's size: no difference was taken, nothing flows back
        return np.zeros(np.shape(saved.inputs[0]), dtype=g.dtype)
    pad = [(0, 0)] * g.ndim
    pad[axis] = (1, 1)
    for _ in range(saved.params.get("n", 1)):
        g = -np.diff(np.pad(g, pad), axis=axis)
    return g


ASTYPE = Op("astype", routines.astype, _unary(_astype_rule), "same", chunked=BLOCKWISE)
COUNT_NONZERO = Op(  # a count of elements
    "count_nonzero", routines.count_nonzero, None, "reduce", chunked=chunkforms.COUNT_NONZERO
)
DIFF = Op("diff", routines.diff, _unary(_diff_rule), "own", chunked=dask_function("diff"))
SEARCHSORTED = Op(  # positions, not values
    "searchsorted", routines.searchsorted, None, "index", chunked=chunkforms.SEARCHSORTED
)
TAKE = Op("take", routines.take, _take_backward, "index", chunked=chunkforms.TAKE)
TAKE_ALONG_AXIS = Op(
    "take_along_axis",
    routines.take_along_axis,
    _take_along_axis_backward,
    "index",
    chunked=refuse("dask has no take_along_axis (each index may point anywhere along its axis)"),
)
REPEAT = Op("repeat", routines.repeat, _unary(_repeat_rule), "own", chunked=chunkforms.REPEAT)
ROLL = Op("roll", routines.roll, _unary(_roll_rule), "same", chunked=dask_function("roll"))
TILE = Op("tile", routines.tile, _unary(_tile_rule), "own", chunked=chunkforms.TILE)
TRIL = Op(
    "tril",
    routines.tril,
    _unary(lambda s, g: np.tril(g, s.params.get("k", 0))),
    "same",
    chunked=dask_function("tril"),
)
TRIU = Op(
    "triu",
    routines.triu,
    _unary(lambda s, g: np.triu(g, s.params.get("k", 0))),
    "same",
    chunked=dask_function("triu"),
)
_DATA_DEPENDENT = refuse("the distinct values have a data-dependent shape")
# The set functions give the distinct values, where they are, and how often: a selection and counts
# that lazytensor does not differentiate.
UNIQUE_VALUES = Op(
    "unique_values",
    functools.partial(routines.unique_field, field="values"),
    None,
    "own",
    chunked=_DATA_DEPENDENT,
)
UNIQUE_INDICES = Op(
    "unique_indices",
    functools.partial(routines.unique_field, field="indices"),
    None,
    "own",
    chunked=_DATA_DEPENDENT,
)
UNIQUE_INVERSE = Op(
    "unique_inverse",
    functools.partial(routines.unique_field, field="inverse_indices"),
    None,
    "own",
    chunked=_DATA_DEPENDENT,
)
UNIQUE_COUNTS = Op(
    "unique_counts",
    functools.partial(routines.unique_field, field="counts"),
    None,
    "own",
    chunked=_DATA_DEPENDENT,
)


# -- linalg ----------------------------------------------------------------------------------------


def _mT(values: Any) -> Any:
    return np.swapaxes(values, -1, -2)


def _inv_rule(saved: Saved, g: Buffer) -> Any:
    inverse = saved.output
    return -_mT(inverse) @ g @ _mT(inverse)


def _det_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    scale = (g * saved.output)[..., np.newaxis, np.newaxis]
    return scale * _mT(np.linalg.inv(x))


def _solve_backward(saved: Saved, g: Buffer) -> Grads:
    """`x1 @ out = x2`: the gradient of x2 solves the transposed system, and x1's is minus its outer
    product with the solution (a 1-D x2 is one vector for every matrix of x1)."""
    a, b = (np.asarray(v) for v in saved.inputs)
    out = saved.output
    if b.ndim == 1:
        gb = np.linalg.solve(_mT(a), g[..., np.newaxis])[..., 0]
        ga = -gb[..., :, np.newaxis] * out[..., np.newaxis, :]
    else:
        gb = np.linalg.solve(_mT(a), g)
        ga = -gb @ _mT(out)
    return (
        unbroadcast(ga, a.shape) if saved.needs[0] else None,
        unbroadcast(gb, b.shape) if saved.needs[1] else None,
    )


def _cross_backward(saved: Saved, g: Buffer) -> Grads:
    a, b = (np.asarray(v) for v in saved.inputs)
    axis = saved.params.get("axis", -1)
    ga = unbroadcast(np.linalg.cross(b, g, axis=axis), a.shape) if saved.needs[0] else None
    gb = unbroadcast(np.linalg.cross(g, a, axis=axis), b.shape) if saved.needs[1] else None
    return ga, gb


def _norm_axes(saved: Saved) -> Shape:
    axis = saved.params.get("axis")
    return normalize_dims(tuple(axis) if isinstance(axis, list) else axis, np.ndim(saved.inputs[0]))


def _kept_norm(values: Buffer, saved: Saved, axes: Shape) -> Buffer:
    """A norm's output or gradient with its reduced axes put back as size 1."""
    return values if saved.params.get("keepdims", False) else np.expand_dims(values, axes)


def _extreme_share(hits: Buffer, axes: Shape) -> Buffer:
    """Where the extreme sits, each position's share of it (ties split evenly)."""
    share: Buffer = hits / hits.sum(axis=axes, keepdims=True)
    return share


def _vector_norm_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    axes = _norm_axes(saved)
    norm = _kept_norm(saved.output, saved, axes)
    grad = _kept_norm(g, saved, axes)
    order = saved.params.get("ord", 2)
    magnitude = np.abs(x)
    if order == 0:
        return np.zeros(x.shape, dtype=g.dtype)
    if order == 1:
        return grad * np.sign(x)
    if order in (np.inf, -np.inf):
        return grad * np.sign(x) * _extreme_share(magnitude == norm, axes)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.sign(x) * (magnitude / norm) ** (order - 1)
    # a zero element's subgradient is 0, as PyTorch's (for an order below 1 its power is infinite)
    return grad * np.where((norm == 0) | (magnitude == 0), 0.0, share)


def _matrix_norm_rule(saved: Saved, g: Buffer) -> Any:
    x = np.asarray(saved.inputs[0])
    keep = saved.params.get("keepdims", False)
    norm = saved.output if keep else saved.output[..., np.newaxis, np.newaxis]
    grad = g if keep else g[..., np.newaxis, np.newaxis]
    order = saved.params.get("ord", "fro")
    if order == "fro":
        with np.errstate(divide="ignore", invalid="ignore"):
            return grad * np.where(norm == 0, 0.0, x / norm)
    if order in ("nuc", 2, -2):
        u, _, vh = np.linalg.svd(x, full_matrices=False)
        if order == "nuc":
            return grad * (u @ vh)
        pick = 0 if order == 2 else -1  # singular values come largest first
        return grad * (u[..., :, pick, np.newaxis] * vh[..., np.newaxis, pick, :])
    summed_axis = -2 if order in (1, -1) else -1  # 1: the largest column sum, inf: the largest row sum
    sums = np.abs(x).sum(axis=summed_axis, keepdims=True)
    hits = sums == norm
    return grad * np.sign(x) * _extreme_share(hits, (-1 if summed_axis == -2 else -2,))


_WHOLE_MATRICES = refuse("numpy's linear algebra reads whole matrices, and dask's takes single 2-D ones")
INV = Op(
    "inv",
    functools.partial(routines.linalg, function="inv"),
    _unary(_inv_rule),
    "same",
    chunked=_WHOLE_MATRICES,
)
DET = Op(
    "det",
    functools.partial(routines.linalg, function="det"),
    _unary(_det_rule),
    "reduce",
    chunked=_WHOLE_MATRICES,
)
SOLVE = Op("solve", routines.solve, _solve_backward, "matmul", chunked=_WHOLE_MATRICES)
CROSS = Op("cross", routines.cross, _cross_backward, "broadcast", chunked=chunkforms.CROSS)
VECTOR_NORM = Op(
    "vector_norm",
    functools.partial(routines.linalg, function="vector_norm"),
    _unary(_vector_norm_rule),
    "reduce",
    chunked=chunkforms.VECTOR_NORM,
)
MATRIX_NORM = Op(
    "matrix_norm",
    functools.partial(routines.linalg, function="matrix_norm"),
    _unary(_matrix_norm_rule),
    "reduce",
    chunked=_WHOLE_MATRICES,
)


def _linalg_op(name: str, function: str, field: str | None = None) -> Op:
    """A linalg entry without a gradient: a decomposition's factor, a rank, a power, a pseudo-inverse
    (PyTorch differentiates some of these; lazytensor's differentiable linalg is matmul, vecdot,
    tensordot, matrix_transpose, the norms, inv, solve and det)."""
    kernel = functools.partial(routines.linalg, function=function, field=field)
    return Op(name, kernel, None, "own", chunked=_WHOLE_MATRICES)


CHOLESKY = _linalg_op("cholesky", "cholesky")
EIGH_VALUES = _linalg_op("eigh_values", "eigh", "eigenvalues")
EIGH_VECTORS = _linalg_op("eigh_vectors", "eigh", "eigenvectors")
EIGVALSH = _linalg_op("eigvalsh", "eigvalsh")
MATRIX_POWER = _linalg_op("matrix_power", "matrix_power")
MATRIX_RANK = _linalg_op("matrix_rank", "matrix_rank")
PINV = _linalg_op("pinv", "pinv")
QR_Q = _linalg_op("qr_q", "qr", "Q")
QR_R = _linalg_op("qr_r", "qr", "R")
SLOGDET_SIGN = _linalg_op("slogdet_sign", "slogdet", "sign")
SLOGDET_LOGABSDET = _linalg_op("slogdet_logabsdet", "slogdet", "logabsdet")
SVD_U = _linalg_op("svd_u", "svd", "U")
SVD_S = _linalg_op("svd_s", "svd", "S")
SVD_VH = _linalg_op("svd_vh", "svd", "Vh")
SVDVALS = _linalg_op("svdvals", "svdvals")


# -- fft: numpy's transforms; no gradients (lazytensor's autograd is real-valued) --------------------

FFT_FUNCTIONS = (
    "fft",
    "ifft",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftshift",
    "ifftshift",
)
FFTS: dict[str, Op] = {
    name: Op(
        f"fft.{name}",
        functools.partial(routines.fft, function=name),
        None,
        "own",
        chunked=chunkforms.fft_shift(name)
        if name.endswith("shift")
        else refuse("a Fourier transform reads whole axes at once"),
    )
    for name in FFT_FUNCTIONS
}
"""The fft extension's transforms by their name in `lt.fft`."""


# -- the table registers itself: every entry above, and the doors read off them ------------------


def entries_of(namespace: dict[str, Any]) -> dict[str, Op]:
    """Every entry a module defines, by name, in the order it defines them: each `Op` bound at the
    top level, or held in a dict there (as the fft transforms are). Two entries of one name would
    make one unreachable by it: refused.

    >>> sorted(entries_of({"NEG": NEG, "FFTS": {"fft": FFTS["fft"]}, "BLOCKWISE": BLOCKWISE}))
    ['fft.fft', 'neg']
    """
    table: dict[str, Op] = {}
    for name, value in namespace.items():
        if name.startswith("__"):  # the module's own attributes (`__builtins__` is a dict)
            continue
        for entry in value.values() if isinstance(value, dict) else (value,):
            if isinstance(entry, Op) and table.setdefault(entry.name, entry) is not entry:
                raise ValueError(f"two entries of the table are named {entry.name!r}")
    return table


TABLE: dict[str, Op] = entries_of(globals())
"""Every operation by name: every entry this module defines (nothing to list by hand)."""

UFUNC_ALIASES: dict[np.ufunc, Op] = {
    # The ufuncs of entries whose kernel is one of lazytensor's, not the bare ufunc call `Op.ufunc` is
    # read off (so `ufunc` is None, and `apply` never calls the ufunc in the kernel's place):
    np.exp: EXP,  # exp, log, sqrt, tanh: an object value's own method first (`Decimal.exp`, `Decimal.ln`)
    np.log: LOG,
    np.sqrt: SQRT,
    np.tanh: TANH,
    np.isnan: ISNAN,  # isnan, isinf, isfinite: numpy's test on the values as an array, on one thread
    np.isinf: ISINF,
    np.isfinite: ISFINITE,
    np.matmul: MATMUL,  # refuses a 0-d operand and names both shapes when they do not align
}
"""numpy's ufunc for each entry the table cannot read one off: the few aliases `UFUNCS` adds."""


def ufuncs_of(table: dict[str, Op], aliases: dict[np.ufunc, Op]) -> dict[np.ufunc, Op]:
    """Each entry by the numpy ufunc it is: its kernel's (`Op.ufunc`), or its alias. A ufunc that
    would name two entries is refused: numpy's call would reach only one of them.

    >>> ufuncs_of({"neg": NEG, "exp": EXP}, {np.exp: EXP}) == {np.negative: NEG, np.exp: EXP}
    True
    """
    found: dict[np.ufunc, Op] = {}
    derived = ((entry.ufunc, entry) for entry in table.values() if entry.ufunc is not None)
    for ufunc, entry in (*derived, *aliases.items()):
        if found.setdefault(ufunc, entry) is not entry:
            raise ValueError(
                f"np.{ufunc.__name__} would be two entries: {found[ufunc].name} and {entry.name}"
            )
    return found


UFUNCS: dict[np.ufunc, Op] = ufuncs_of(TABLE, UFUNC_ALIASES)
"""numpy ufuncs that are entries of the table, so `np.exp(t)` is `t.exp()`: every entry whose kernel
calls a ufunc, and the aliases."""

NUMPY_NAMES: dict[str, str] = {entry.name: ufunc.__name__ for ufunc, entry in UFUNCS.items()}
"""numpy's name for each entry that is a ufunc, for numpy's messages (`'divide'` for truediv)."""


def torch_name(name: str) -> str:
    """PyTorch's word for the operation of this name (its `grad_fn` is `<Word>Backward0`): its
    entry's `torch_name`, or the name itself when no entry has it.

    >>> torch_name("truediv"), torch_name("exp"), torch_name("permute")
    ('div', 'exp', 'permute')
    """
    entry = TABLE.get(name)
    return name if entry is None else entry.torch_name

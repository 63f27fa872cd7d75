"""Every numpy function that `__array_function__` routes to a handler, against numpy itself: random
view stacks, random argument forms (axes as ints, negative ints, tuples and None; keepdims both
ways; sections and split points), values, shapes and dtypes equal, and the same exception type
where numpy refuses.

The cases are keyed by the routed functions' names and a test walks the routing table, so a new
route without a property here fails the suite (as `test_gradcheck` walks the operator table).

Reaches into `lazytensor.engine.numpy_routes`: the walk is over its table of handlers, so that a
newly routed numpy function is checked.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import apply_ops, chains, multi_axis_shapes

import lazytensor as lt
from lazytensor.engine import numpy_routes

Call = Callable[[Any, Any], Any]
"""A call of one numpy function: given the numpy module's function namespace and the operand."""


def _axis(ndim: int) -> st.SearchStrategy[int | None]:
    return st.none() | (st.integers(-ndim, ndim - 1) if ndim else st.none())


def _axes(ndim: int) -> st.SearchStrategy[Any]:
    """An axis argument of a reduction: None, an int (negative too) or a tuple of distinct axes."""
    if ndim == 0:
        return st.none() | st.just(())
    as_tuple = st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim).map(tuple)
    return _axis(ndim) | as_tuple


def _forms(draw: st.DrawFn, arguments: dict[str, Any], required: int = 0) -> tuple[list[Any], dict[str, Any]]:
    """numpy's arguments in their order: the first few by position, the rest by keyword, each past the
    first `required` sometimes left out (to its default, on both sides)."""
    names = list(arguments)
    given = draw(st.integers(0, len(names)))
    positional = [arguments[name] for name in names[:given]]
    keywords = {
        name: arguments[name]
        for index, name in enumerate(names[given:], given)
        if index < required or draw(st.booleans())
    }
    return positional, keywords


Partial = Callable[[Any, Any, dict[str, Any]], Any]
"""A call of one numpy function given further keywords (`out=`)."""


class _IntoOut:
    """A call given a fresh `out=` of numpy's result shape and dtype (a tensor on the tensor's side when
    `tensor` is set): it gives its result and the out it wrote, so both are compared with numpy's; a
    tensor out must come back itself where numpy returns its out itself (`np.dot` into a 0-d out returns
    the scalar `out[()]` instead, and lazytensor a 0-d tensor of it: the values are compared)."""

    def __init__(self, call: Partial, expected: np.ndarray, tensor: bool, returns_out: bool) -> None:
        self.call, self.expected, self.tensor, self.returns_out = call, expected, tensor, returns_out

    def __call__(self, f: Any, x: Any) -> Any:
        out = np.zeros(self.expected.shape, self.expected.dtype)
        if not (self.tensor and isinstance(x, lt.AbstractTensor)):
            return self.call(f, x, {"out": out}), out
        out = lt.tensor(out)
        result = self.call(f, x, {"out": out})
        if self.returns_out and result is not out:  # the handler wrote it, as numpy returns its out itself
            raise AssertionError(f"out= {out!r} written but {result!r} returned")
        return result, out


def _with_out(draw: st.DrawFn, call: Partial, a: np.ndarray) -> Call:
    """`call` as it is, or with an `out=` (a numpy array, or a tensor on the tensor's side) where numpy
    gives a result."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = np.asarray(call(_Namespace(), a, {}))
            out = np.zeros(expected.shape, expected.dtype)
            returns_out = call(_Namespace(), a, {"out": out}) is out
    except Exception:  # numpy refuses the call: no out to make
        return lambda f, x: call(f, x, {})
    kind = draw(st.sampled_from([None, "array", "tensor"]))
    if kind is None:
        return lambda f, x: call(f, x, {})
    return _IntoOut(call, expected, kind == "tensor", returns_out)


@st.composite
def _reduction(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    axis = draw(_axes(ndim)) if name not in ("argmax", "argmin") else draw(_axis(ndim))
    keepdims = draw(st.booleans())
    return lambda f, x: f[name](x, axis=axis, keepdims=keepdims)


@st.composite
def _scan(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """An axis or None, a dtype or none, and an out=; `cumulative_*` take keywords only,
    `include_initial` too."""
    arguments = {"axis": draw(_axis(ndim)), "dtype": draw(st.sampled_from([None, np.float32, np.complex128]))}
    if name.startswith("cumulative"):
        arguments["include_initial"] = draw(st.booleans())
        keywords = {key: value for key, value in arguments.items() if draw(st.booleans())}
        return _with_out(draw, lambda f, x, out: f[name](x, **keywords, **out), a)
    positional, keywords = _forms(draw, arguments)
    return _with_out(draw, lambda f, x, out: f[name](x, *positional, **keywords, **out), a)


@st.composite
def _sorting(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """An axis (or None) by position, keyword or default; numpy's kinds (any case, or unknown) and
    `stable` (with a kind: numpy's refusal); values with ties, where argsort's order shows the kind."""
    axis = draw(_axis(ndim) if ndim else st.none())
    kind = draw(st.sampled_from([None, "stable", "quicksort", "mergesort", "heapsort", "Stable", "fast"]))
    positional, keywords = _forms(draw, {"axis": axis, **({"kind": kind} if kind else {})})
    stable = draw(st.sampled_from([None, True, False]))
    if stable is not None:
        keywords["stable"] = stable
    ties = draw(st.booleans())
    return lambda f, x: f[name](x // 3 if ties else x, *positional, **keywords)


@st.composite
def _permuting(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    axes = draw(st.none() | st.permutations(range(ndim)).map(tuple))
    if name == "permute_dims" and axes is None:
        axes = tuple(reversed(range(ndim)))
    return lambda f, x: f[name](x, axes)


@st.composite
def _reshaping(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """A target shape by position or keyword; numpy's orders ("F" and "A" run numpy) and `copy=True`."""
    size = a.size
    target: tuple[int, ...] = draw(
        st.sampled_from([(size,), (-1,), (1, size), (size, 1, -1) if size else (0, 1)])
    )
    order = draw(st.sampled_from([None, "C", "F", "A"]))
    if name == "ravel":
        positional, keywords = _forms(draw, {"order": order} if order else {})
        return lambda f, x: f[name](x, *positional, **keywords)
    positional, keywords = _forms(draw, {"shape": target, **({"order": order} if order else {})}, required=1)
    if draw(st.booleans()):
        keywords["copy"] = True
    return lambda f, x: f[name](x, *positional, **keywords)


@st.composite
def _squeezing(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    ones = [axis for axis, n in enumerate(a.shape) if n == 1]
    axis = draw(st.none() | (st.sampled_from(ones) if ones else st.none()))
    return lambda f, x: f[name](x, axis)


@st.composite
def _expanding(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    axis = draw(
        st.integers(-ndim - 1, ndim) | st.integers(-ndim - 1, ndim).map(np.intp) | st.just((0, ndim + 1))
    )
    return lambda f, x: f[name](x, axis)


@st.composite
def _moving(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    if ndim == 0:
        return draw(st.just(lambda f, x: f[name](x, 0, 0) if name == "swapaxes" else f[name](x, [], [])))
    if name == "swapaxes":
        d0, d1 = draw(st.integers(-ndim, ndim - 1)), draw(st.integers(-ndim, ndim - 1))
        return lambda f, x: f[name](x, d0, d1)
    count = draw(st.integers(1, ndim))
    source = draw(st.permutations(range(ndim)))[:count]
    destination = draw(st.permutations(range(-ndim, 0)))[:count]
    return lambda f, x: f[name](x, source, destination)


@st.composite
def _flipping(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    if name in ("fliplr", "flipud"):
        return draw(st.just(lambda f, x: f[name](x)))
    axis = draw(_axes(ndim) if ndim else st.none())
    return lambda f, x: f[name](x, axis)


@st.composite
def _broadcasting(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    shape = (*lead, *(draw(st.sampled_from([1, 3])) if n == 1 else n for n in a.shape))
    target = draw(st.just(shape) | st.just(shape[0])) if len(shape) == 1 else shape  # one axis: an int too
    positional, keywords = _forms(draw, {"shape": target, "subok": draw(st.booleans())}, required=1)
    return lambda f, x: f[name](x, *positional, **keywords)


@st.composite
def _splitting(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    if ndim == 0:
        return draw(st.just(lambda f, x: f[name](x, 1)))  # numpy refuses a 0-d array: so must we
    axis = draw(st.integers(-ndim, ndim - 1))
    size = a.shape[axis]
    sections = draw(
        st.sampled_from([d for d in range(1, size + 1) if size % d == 0] or [1])
        | st.integers(-size - 1, size + 1)  # 0, negative and unequal counts: numpy's refusals
        | st.integers(1, 3).map(np.intp)
        | st.lists(st.integers(-size - 1, size + 1), max_size=3)
    )
    positional, keywords = _forms(draw, {"indices_or_sections": sections, "axis": axis}, required=1)
    return lambda f, x: f[name](x, *positional, **keywords)


@st.composite
def _asking(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    if name != "size" or not ndim:
        return lambda f, x: f[name](x)
    positional, keywords = _forms(draw, {"axis": draw(_axis(ndim))})
    return lambda f, x: f[name](x, *positional, **keywords)


@st.composite
def _joining(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """The operand with itself, its reverse or a numpy array of its values; the axis (None too) by
    position, keyword or default; numpy's dtype= and out=; or the operand itself as the sequence."""
    count = draw(st.integers(1, 3))
    partner = draw(st.sampled_from(["itself", "reversed", "array"]))

    def operands(x: Any) -> list[Any]:
        other = {"itself": x, "reversed": x[::-1] if ndim else x, "array": np.array(a)}[partner]
        return [x, other, x][:count]

    if draw(st.booleans()):
        dtype = {"dtype": np.complex128} if draw(st.booleans()) else {}
        return lambda f, x: f[name](x, **dtype)  # numpy walks the first axis
    keywords: dict[str, Any] = {}
    if draw(st.booleans()):
        keywords["dtype"] = draw(st.sampled_from([np.float32, np.complex128]))
    if name in ("vstack", "row_stack", "hstack"):
        return lambda f, x: f[name](operands(x), **keywords)
    if name == "stack":
        axis = draw(st.integers(-ndim - 1, ndim))
    else:
        axis = draw(st.none() | (st.integers(-ndim, ndim - 1) if ndim else st.just(0)))
    positional, more = _forms(draw, {"axis": axis})
    return _with_out(draw, lambda f, x, out: f[name](operands(x), *positional, **more, **keywords, **out), a)


_CLIP_FORMS = [
    (2, ()),
    (1, ("a_max",)),
    (0, ("a_min", "a_max")),
    (0, ("min", "max")),
    (0, ("min",)),
    (0, ("max",)),
    (0, ()),
    (1, ()),  # numpy's refusals from here: one of a_min/a_max, or both with min/max
    (1, ("max",)),
    (0, ("a_min", "max")),
    (2, ("min",)),
]
"""np.clip's bounds: how many by position, and which keywords."""


@st.composite
def _elementwise(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    if name == "where":
        threshold = draw(st.integers(-3, 6))
        return lambda f, x: f[name](x > threshold, x, -x)
    if name == "clip":  # the bounds by position, as a_min/a_max or as min/max; a dtype; an out
        lo, hi = draw(st.sampled_from([(2, 7), (None, 3), (4, None), (5, 5)]))
        bounds = {"a_min": lo, "a_max": hi, "min": lo, "max": hi}
        count, names = draw(st.sampled_from(_CLIP_FORMS))
        positional = [lo, hi][:count]
        keywords = {key: bounds[key] for key in names}
        if draw(st.booleans()):
            keywords["dtype"] = np.float32
        return _with_out(draw, lambda f, x, out: f[name](x, *positional, **keywords, **out), a)
    positional, keywords = _forms(draw, {"decimals": draw(st.integers(-1, 2))})
    return _with_out(draw, lambda f, x, out: f[name](x / 7, *positional, **keywords, **out), a)


@st.composite
def _dotting(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    if ndim == 0:
        scalar = draw(st.floats(-2, 2))
        return lambda f, x: f[name](x, scalar)
    # a 3-d other: np.dot sums over its second-to-last axis, which is not matmul's broadcast
    before, after = draw(st.sampled_from([((), ()), ((), (2,)), ((2,), (2,))]))
    shape = (*before, a.shape[-1], *after)
    other = np.linspace(-1, 1, math.prod(shape)).reshape(shape)
    return _with_out(draw, lambda f, x, out: f[name](x, other, **out), a)


@st.composite
def _rearranging(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """roll, repeat, tile, take: numpy's arguments, an axis or None, counts and indices in range."""
    axis = draw(_axis(ndim))
    size = a.size if axis is None else a.shape[axis]
    if name == "roll":
        shift = draw(st.integers(-4, 4))
        return lambda f, x: f[name](x, shift, axis=axis)
    if name == "repeat":
        repeats = draw(st.integers(0, 3) | st.lists(st.integers(0, 2), min_size=size, max_size=size))
        return lambda f, x: f[name](x, repeats, axis=axis)
    if name == "tile":
        reps = draw(st.integers(0, 2) | st.lists(st.integers(1, 2), min_size=1, max_size=3).map(tuple))
        return lambda f, x: f[name](x, reps)
    mode = draw(st.sampled_from([None, "raise", "wrap", "clip"]))
    reach = size if mode in (None, "raise") else 2 * size + 1  # wrap and clip take any index
    indices = draw(st.lists(st.integers(-reach, reach - 1), max_size=4)) if size else []
    positional, keywords = _forms(draw, {"axis": axis})
    if mode is not None:
        keywords["mode"] = mode
    chosen = np.array(indices, dtype=np.intp)
    return _with_out(draw, lambda f, x, out: f[name](x, chosen, *positional, **keywords, **out), a)


@st.composite
def _diagonals(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """diagonal and trace: an offset and two axes (the same twice, or too few axes: numpy's error),
    the first few given by position, some of the rest by keyword, the others left to their defaults;
    trace also a dtype and an out."""
    offset = draw(st.integers(-3, 3))
    axes = draw(st.lists(st.integers(-max(ndim, 1), max(ndim, 1) - 1), min_size=2, max_size=2))
    values = dict(zip(("offset", "axis1", "axis2"), (offset, *axes), strict=True))
    if name == "diagonal":
        positional, keywords = _forms(draw, values)
        return lambda f, x: f[name](x, *positional, **keywords)
    positional, keywords = _forms(draw, values)
    dtype = draw(st.sampled_from([None, np.float32, np.complex128]))
    if dtype is not None and len(positional) == len(values) and draw(st.booleans()):
        positional.append(dtype)  # by position after all three
    elif dtype is not None:
        keywords["dtype"] = dtype
    return _with_out(draw, lambda f, x, out: f[name](x, *positional, **keywords, **out), a)


@st.composite
def _finding(draw: st.DrawFn, name: str, ndim: int, a: np.ndarray) -> Call:
    """The values themselves (zeros among them) or a comparison; count_nonzero also along axes."""
    threshold = draw(st.none() | st.integers(-3, 6))
    axis, keepdims = draw(_axis(ndim)), draw(st.booleans())

    def operand(x: Any) -> Any:
        return x if threshold is None else x > threshold

    if name == "count_nonzero":
        return lambda f, x: f[name](operand(x), axis=axis, keepdims=keepdims)
    return lambda f, x: f[name](operand(x))


CASES: dict[str, Callable[[str, int, np.ndarray], st.SearchStrategy[Call]]] = {
    **dict.fromkeys(("sum", "mean", "prod", "std", "var", "argmax", "argmin", "all", "any"), _reduction),
    **dict.fromkeys(("nansum", "nanmean", "nanmax", "nanmin", "max", "amax", "min", "amin"), _reduction),
    **dict.fromkeys(("cumsum", "cumulative_sum", "cumprod", "cumulative_prod"), _scan),
    **dict.fromkeys(("sort", "argsort"), _sorting),
    **dict.fromkeys(("transpose", "permute_dims"), _permuting),
    **dict.fromkeys(("reshape", "ravel"), _reshaping),
    "squeeze": _squeezing,
    "expand_dims": _expanding,
    **dict.fromkeys(("moveaxis", "swapaxes"), _moving),
    **dict.fromkeys(("flip", "fliplr", "flipud"), _flipping),
    "broadcast_to": _broadcasting,
    "split": _splitting,
    **dict.fromkeys(("shape", "ndim", "size"), _asking),
    **dict.fromkeys(("concatenate", "concat", "stack", "vstack", "row_stack", "hstack"), _joining),
    **dict.fromkeys(("where", "clip", "round", "around"), _elementwise),
    "dot": _dotting,
    **dict.fromkeys(("roll", "repeat", "tile", "take"), _rearranging),
    **dict.fromkeys(("diagonal", "trace"), _diagonals),
    **dict.fromkeys(("nonzero", "argwhere", "count_nonzero"), _finding),
}


ROUTED = sorted(name for name in CASES if getattr(np, name, None) in numpy_routes.HANDLERS)
"""The cases this numpy has (`row_stack` went away in numpy 2.4)."""


def test_every_routed_numpy_function_has_a_property_here() -> None:
    covered = {getattr(np, name) for name in ROUTED}
    missing = sorted(getattr(f, "__name__", repr(f)) for f in set(numpy_routes.HANDLERS) - covered)
    assert not missing, f"routed numpy functions without a property in this module: {missing}"


class _Namespace:
    """`f["sum"]` is numpy's function of that name (`np.amax` and friends included)."""

    def __getitem__(self, name: str) -> Any:
        return getattr(np, name)


def _outcome(call: Call, x: Any) -> tuple[str, Any]:
    try:
        with warnings.catch_warnings():  # numpy's warnings (empty means, row_stack) are not the subject
            warnings.simplefilter("ignore")
            return "value", call(_Namespace(), x)
    except Exception as error:  # the type is what must agree with numpy's
        return "error", error


def _same(result: Any, expected: Any) -> None:
    if isinstance(expected, list | tuple) and not isinstance(expected, np.ndarray):
        assert isinstance(result, list | tuple) and len(result) == len(expected), (result, expected)
        for r, e in zip(result, expected, strict=True):
            _same(r, e)
        return
    if isinstance(expected, int) and not isinstance(expected, np.integer):
        assert result == expected
        return
    expected = np.asarray(expected)
    if isinstance(result, np.ndarray):  # an out= array, written on both sides
        assert result.shape == expected.shape and result.dtype == expected.dtype, (result, expected)
        np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12, equal_nan=True)
        return
    assert isinstance(result, lt.AbstractTensor), type(result)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-12, atol=1e-12, equal_nan=True)


def _run(name: str, data: st.DataObject, stacks: st.SearchStrategy[Any]) -> None:
    shape, ops = data.draw(stacks, label="view chain")
    n = math.prod(shape)
    values = np.arange(n, dtype=np.float64).reshape(shape) - n // 3
    tensor, ref = apply_ops(lt.tensor(values), values, ops)
    # numpy's functions on a plain array, not on a read-only broadcast; laid out C or F as the view is
    # (order "A" reads it so): numpy's default copy of a broadcast (strides (0, 8)) is F-contiguous (#41)
    ref = np.array(ref, order="A")
    call = data.draw(CASES[name](name, ref.ndim, ref), label="arguments")
    expected_kind, expected = _outcome(call, ref)
    kind, result = _outcome(call, tensor)
    if expected_kind == "error":
        assert kind == "error", f"numpy raised {expected!r}; lazytensor gave {result!r}"
        assert isinstance(result, type(expected)), f"numpy raised {expected!r}; lazytensor {result!r}"
        return
    assert kind == "value", f"numpy gave a value; lazytensor raised {result!r}"
    _same(result, expected)


@pytest.mark.parametrize("name", ROUTED)
@settings(max_examples=25, deadline=None)  # per routed name: random stacks and argument forms
@given(data=st.data())
def test_a_routed_numpy_function_matches_numpy(name: str, data: st.DataObject) -> None:
    _run(name, data, chains(max_steps=3))


@pytest.mark.parametrize("name", ROUTED)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_routed_numpy_function_matches_numpy_with_two_long_axes(name: str, data: st.DataObject) -> None:
    """The same on shapes with two or more axes of size 2 or more, where an axis or an order taken
    wrongly shows (random view chains are often empty, 0-d or one row)."""
    _run(name, data, multi_axis_shapes(max_dims=3, max_side=4).map(lambda shape: (shape, [])))


def test_split_points_out_of_order_give_numpys_empty_and_overlapping_pieces() -> None:
    t, a = lt.arange(6.0), np.arange(6.0)
    for points in ([4, 1], [1, 4, 2], [-2, 2], [7, 3]):
        _same(np.split(t, points), np.split(a, points))


REFUSALS: dict[str, Call] = {
    "where with x only": lambda f, x: f["where"](x > 1, x),
    "expand_dims repeated": lambda f, x: f["expand_dims"](x, (0, 0)),
    "expand_dims repeated negative": lambda f, x: f["expand_dims"](x, (1, -3)),
    "split unequal": lambda f, x: f["split"](x, 4),
    "split unequal negative": lambda f, x: f["split"](x, -4, axis=1),
    "split negative": lambda f, x: f["split"](x, -3, axis=1),
    "split into 0": lambda f, x: f["split"](x, 0, axis=1),
    "clip with a_min only": lambda f, x: f["clip"](x, 2),
    "moveaxis unequal": lambda f, x: f["moveaxis"](x, [0, 1], [0]),
    "sort kind and stable": lambda f, x: f["sort"](x, kind="quicksort", stable=True),
    "sort unknown kind": lambda f, x: f["sort"](x, kind="fast"),
    "argsort kind and stable": lambda f, x: f["argsort"](x, kind="stable", stable=False),
    "clip with a_max and max": lambda f, x: f["clip"](x, 1, 3, max=2),
}


@pytest.mark.parametrize("count", [0, -3, 4])
def test_a_refused_split_names_the_axis_length_and_the_count(count: int) -> None:
    with pytest.raises((ZeroDivisionError, ValueError)) as refusal:
        np.split(lt.zeros(2, 3), count, axis=1)
    assert "length 3" in str(refusal.value) and f"{count} sections" in str(refusal.value)


@pytest.mark.parametrize("name", REFUSALS)
def test_a_handler_refuses_with_numpys_type_and_message(name: str) -> None:
    """numpy's exception type, and a message that begins with numpy's (and may name more)."""
    call, values = REFUSALS[name], np.arange(6.0).reshape(2, 3)
    expected_kind, expected = _outcome(call, values)
    kind, error = _outcome(call, lt.tensor(values))
    assert (expected_kind, kind) == ("error", "error"), (expected, error)
    assert type(error) is type(expected), (error, expected)
    assert str(error).startswith(str(expected)), (str(error), str(expected))

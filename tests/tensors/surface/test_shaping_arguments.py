"""The shaping methods' argument forms, against numpy (PyTorch's meaning for the torch-named ones), on
random shapes with size-0 and size-1 axes and 0-d: axes one by one or as one tuple or list, negative,
or by name (each refusal naming the method); `reshape`'s `names=`; `view` of numpy ints and of an
object with a `dtype`; `split`, `chunk` and `unbind` by name; and `t[i, j]` of one element."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt

FAST = settings(max_examples=60, deadline=None)
NAMES = ("a", "b", "c", "d")

shapes = st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple)


def _pair(shape: tuple[int, ...]) -> tuple[lt.AbstractTensor, np.ndarray]:
    """A tensor named `a`, `b`, ... axis by axis, and its values in numpy."""
    values = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    return lt.tensor(values).rename(NAMES[: len(shape)]), values


def _same(got: lt.AbstractTensor, expected: np.ndarray, names: tuple[str | None, ...]) -> None:
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected)
    assert got.names == names, (got.names, names)


def _spelled(axes: list[int], ndim: int, form: str) -> tuple[Any, ...]:
    """The arguments of a method taking axes one by one or as one sequence, in one of their forms."""
    if form == "ints":
        return tuple(axes)
    if form == "negative":
        return tuple(axis - ndim for axis in axes)
    if form == "tuple":
        return (tuple(axes),)
    if form == "list":
        return (list(axes),)
    if form == "names":
        return tuple(NAMES[axis] for axis in axes)
    if form == "names in a tuple":
        return (tuple(NAMES[axis] for axis in axes),)
    return (tuple(NAMES[axis] if axis % 2 else axis for axis in axes),)  # names and ints mixed


FORMS = st.sampled_from(["ints", "negative", "tuple", "list", "names", "names in a tuple", "mixed"])


@FAST
@given(shapes, st.data())
def test_permute_in_every_form_is_numpy_s_transpose(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    order = data.draw(st.permutations(range(len(shape))))
    form = data.draw(FORMS)
    expected_names = tuple(NAMES[axis] for axis in order)
    _same(t.permute(*_spelled(order, len(shape), form)), np.transpose(a, order), expected_names)
    if len(shape) != 2 or form in ("tuple", "list", "names in a tuple", "mixed"):
        _same(t.transpose(*_spelled(order, len(shape), form)), np.transpose(a, order), expected_names)


@FAST
@given(shapes.filter(lambda shape: len(shape) >= 1), st.data())
def test_two_axes_swap_by_int_negative_int_or_name(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    ndim = len(shape)
    first, second = data.draw(st.integers(0, ndim - 1)), data.draw(st.integers(0, ndim - 1))
    order = list(range(ndim))
    order[first], order[second] = order[second], order[first]
    expected, names = np.swapaxes(a, first, second), tuple(NAMES[axis] for axis in order)
    form = data.draw(st.sampled_from(["ints", "negative", "names"]))
    args = _spelled([first, second], ndim, form)
    _same(t.swapaxes(*args), expected, names)
    _same(t.transpose(*args), expected, names)  # PyTorch's transpose(dim0, dim1)
    if ndim >= 2:
        _same(t.mT, np.swapaxes(a, -2, -1), (*NAMES[: ndim - 2], NAMES[ndim - 1], NAMES[ndim - 2]))


def test_transpose_without_axes_reverses_them() -> None:
    t, a = _pair((2, 3, 4))
    _same(t.transpose(), a.transpose(), ("c", "b", "a"))
    _same(t.T, a.T, ("c", "b", "a"))


@FAST
@given(shapes.filter(lambda shape: 0 not in shape), st.data())
def test_flatten_merges_start_dim_to_end_dim_as_pytorch(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    ndim = max(len(shape), 1)  # PyTorch flattens a 0-d tensor to one element along one axis
    start = data.draw(st.integers(0, ndim - 1))
    end = data.draw(st.integers(start, ndim - 1))
    form = data.draw(st.sampled_from(["ints", "negative"] + (["names"] if shape else [])))
    merged = (*shape[:start], math.prod(shape[start : end + 1]), *shape[end + 1 :])
    names = NAMES[: len(shape)]
    kept = names[start] if start == end and shape else None
    expected_names = (*names[:start], kept, *names[end + 1 :])
    if any(size == 1 for size in shape[start : end + 1]) and start != end:
        # the names follow reshape's rule, which reads a size-1 axis as added or dropped, not merged
        expected_names = t.reshape(merged).names
    _same(t.flatten(*_spelled([start, end], ndim, form)), a.reshape(merged), expected_names)
    if start == 0 and end == ndim - 1:
        _same(t.flatten(), a.reshape(-1), t.reshape(-1).names)


@FAST
@given(shapes, st.data())
def test_squeeze_of_none_one_or_several_axes_is_numpy_s(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    ones = [axis for axis, size in enumerate(shape) if size == 1]
    chosen = data.draw(st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]))
    form = data.draw(st.sampled_from(["all", "one", "negative", "tuple", "name", "names"]))
    kept = tuple(name for axis, name in enumerate(NAMES[: len(shape)]) if axis not in chosen)
    if form == "all":
        kept = tuple(name for axis, name in enumerate(NAMES[: len(shape)]) if shape[axis] != 1)
        _same(t.squeeze(), np.squeeze(a), kept)
    elif form in ("one", "negative", "name") and len(chosen) == 1:
        axis = chosen[0]
        dim = {"one": axis, "negative": axis - len(shape), "name": NAMES[axis]}[form]
        _same(t.squeeze(dim), np.squeeze(a, axis), kept)
    elif form in ("tuple", "names"):
        dims = tuple(chosen) if form == "tuple" else tuple(NAMES[axis] for axis in chosen)
        _same(t.squeeze(dims), np.squeeze(a, tuple(chosen)), kept)


def test_squeeze_refuses_an_axis_that_is_not_size_1() -> None:
    t, _ = _pair((1, 1, 3))
    message = (
        "cannot squeeze axis 2 of size 3 in a tensor of shape (1, 1, 3): only size-1 axes can be squeezed"
    )
    for dim in (2, "c", ("a", "c")):
        with pytest.raises(ValueError, match=re.escape(message)):
            t.squeeze(dim)


@FAST
@given(shapes, st.data())
def test_unsqueeze_is_numpy_s_expand_dims(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim - 1, ndim))
    at = dim % (ndim + 1)
    names = NAMES[:ndim]
    expected_names = (*names[:at], None, *names[at:])
    _same(t.unsqueeze(dim), np.expand_dims(a, dim), expected_names)
    _same(t.unsqueeze(np.int64(dim)), np.expand_dims(a, dim), expected_names)
    if at < ndim:  # a name puts the new axis where that axis is
        _same(t.unsqueeze(NAMES[at]), np.expand_dims(a, at), expected_names)


@FAST
@given(shapes, st.data())
def test_expand_and_broadcast_to_are_numpy_s_broadcast(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    t = t.rename(None)
    new = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    target = new + tuple(data.draw(st.integers(1, 3)) if size == 1 else size for size in shape)
    expected = np.broadcast_to(a, target)
    unnamed = (None,) * len(target)
    kept = [size == old for size, old in zip(target[len(new) :], shape, strict=True)]
    torch_form = new + tuple(
        -1 if keep and data.draw(st.booleans()) else size
        for size, keep in zip(target[len(new) :], kept, strict=True)
    )
    _same(t.expand(*torch_form), expected, unnamed)
    _same(t.expand(torch_form), expected, unnamed)
    _same(t.expand(list(torch_form)), expected, unnamed)
    _same(t.broadcast_to(target), expected, unnamed)


METHODS_TAKING_AXES: dict[str, Callable[[lt.AbstractTensor], Any]] = {
    "permute": lambda t: t.permute("zz", "a", "b"),
    "permute ": lambda t: t.permute(("a", "zz", "b")),
    "transpose": lambda t: t.transpose("a", "zz"),
    "transpose ": lambda t: t.transpose(("a", "b", "zz")),
    "swapaxes": lambda t: t.swapaxes("a", "zz"),
    "flatten": lambda t: t.flatten("zz"),
    "flatten  ": lambda t: t.flatten(0, "zz"),
    "squeeze": lambda t: t.squeeze("zz"),
    "squeeze ": lambda t: t.squeeze(("a", "zz")),
    "unsqueeze": lambda t: t.unsqueeze("zz"),
    "split": lambda t: t.split(1, "zz"),
    "chunk": lambda t: t.chunk(2, "zz"),
    "unbind": lambda t: t.unbind("zz"),
}


@pytest.mark.parametrize("call", METHODS_TAKING_AXES)
def test_an_unknown_name_is_refused_naming_the_method(call: str) -> None:
    t, _ = _pair((2, 3, 4))
    what = call.strip()
    message = f"{what}: no axis is named 'zz': the tensor of shape (2, 3, 4) has names ('a', 'b', 'c')"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        METHODS_TAKING_AXES[call](t)


def test_reshape_names_every_axis_or_keeps_the_names_of_the_axes_it_leaves() -> None:
    t, a = _pair((2, 3, 4))
    _same(t.reshape(6, 4, names=("rows", "time")), a.reshape(6, 4), ("rows", "time"))
    _same(t.reshape((6, 4), names=[None, "time"]), a.reshape(6, 4), (None, "time"))
    _same(t.reshape(6, 4), a.reshape(6, 4), (None, "c"))
    _same(t.view(6, 4), a.reshape(6, 4), (None, "c"))
    _same(t.view((6, -1)), a.reshape(6, 4), (None, "c"))


def test_view_of_numpy_ints_is_a_shape() -> None:
    t, a = _pair((2, 3, 4))
    _same(t.view(np.int64(24)), a.reshape(24), (None,))
    _same(t.view(np.intp(6), np.int32(4)), a.reshape(6, 4), (None, "c"))


class _DtypeHolder:
    """An object that is not a dtype but has one, as numpy's `np.dtype(obj)` accepts."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)


def test_view_of_an_object_with_a_dtype_reads_the_bytes_as_that_dtype() -> None:
    a = np.array([1.0, -0.0, 2.5])
    for dtype in (np.int64, np.int32, np.uint8):
        got = lt.tensor(a).view(_DtypeHolder(dtype))
        expected = a.view(np.dtype(dtype))
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got.numpy(), expected)


def test_split_takes_an_axis_by_name_and_refuses_none() -> None:
    t, a = _pair((2, 5))
    pieces = t.split(2, "b")
    assert [p.names for p in pieces] == [("a", "b")] * 3
    for piece, expected in zip(pieces, np.split(a, [2, 4], axis=1), strict=True):
        _same(piece, expected, ("a", "b"))
    with pytest.raises(TypeError, match=r"^split takes one axis \(an int\), not None$"):
        t.split(2, axis=None)
    with pytest.raises(TypeError, match=r"^split\(\) got both dim=0 and axis=1: they are one argument$"):
        t.split(2, dim=0, axis=1)


def test_chunk_and_unbind_take_an_axis_by_name() -> None:
    t, a = _pair((2, 3, 4))
    for dim in (2, -1, "c"):
        pieces = t.chunk(3, dim)
        for piece, expected in zip(pieces, np.split(a, [2], axis=2), strict=True):
            _same(piece, expected, ("a", "b", "c"))
    for dim in (1, -2, "b"):
        rows = t.unbind(dim)
        assert len(rows) == 3
        for k, row in enumerate(rows):
            _same(row, a[:, k], ("a", "c"))


def test_unbind_defaults_to_the_first_axis() -> None:
    t, a = _pair((2, 3))
    rows = t.unbind()
    assert len(rows) == 2
    for k, row in enumerate(rows):
        _same(row, a[k], ("b",))


@FAST
@given(shapes.filter(lambda shape: 0 not in shape), st.data())
def test_an_element_is_a_0_d_tensor_of_numpy_s_value(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    position = tuple(data.draw(st.integers(-size, size - 1)) for size in shape)
    key: Any = position[0] if len(position) == 1 and data.draw(st.booleans()) else position
    for tensor in (t, t.rename(None)):
        got, expected = tensor[key], a[key]
        assert isinstance(got, lt.AbstractTensor) and got.shape == () and got.dtype == expected.dtype
        assert got.item() == expected.item(), (got, expected)


def _unfused(values: np.ndarray) -> lt.AbstractTensor:
    """A tensor of `values` (2-d, both sides at least 2) whose stack has no strided layout: a reshape of a
    transpose, read through the positions rather than as one numpy view."""
    rows, columns = values.shape
    t = lt.tensor(np.ascontiguousarray(values.reshape(columns, rows).T)).T.reshape(rows, columns)
    assert t.layout is None
    return t


def test_an_element_of_a_stack_without_a_layout_is_a_0_d_tensor() -> None:
    a = np.arange(6.0).reshape(2, 3)
    for t in (_unfused(a), _unfused(a).rename("x", "y")):
        for key in ((1, 2), (-1, 0), (0, -3)):
            got = t[key]
            assert isinstance(got, lt.AbstractTensor) and got.shape == () and float(got) == a[key], (key, got)


@FAST
@given(shapes.filter(lambda shape: len(shape) >= 1 and 0 not in shape), st.data())
def test_a_key_for_more_than_one_element_gives_a_tensor(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, a = _pair(shape)
    ndim = len(shape)
    first = data.draw(st.integers(-shape[0], shape[0] - 1))
    keys: list[Any] = [slice(None), slice(1, None), [0], (Ellipsis,), (slice(None),) * ndim]
    if ndim >= 2:
        keys += [first, (first,), (first, slice(None)), (*(0,) * (ndim - 1), slice(None)), [0, 0]]
    for key in keys:
        for tensor in (t, t.rename(None)):
            got = tensor[key]
            assert isinstance(got, lt.AbstractTensor), (key, type(got))
            np.testing.assert_array_equal(got.numpy(), a[key])


@pytest.mark.parametrize("index", [2**63, 2**64, 2**70, -(2**63) - 1, -(2**70)])
def test_an_index_past_c_s_ints_is_named(index: int) -> None:
    message = f"index {index} is out of bounds for axis 0 with size 3"
    for key in (index, (index,)):
        with pytest.raises(IndexError, match=f"^{re.escape(message)}$"):
            lt.arange(3.0)[key]
    a = np.arange(6.0).reshape(2, 3)
    for t in (lt.tensor(a), _unfused(a)):  # numpy's own read, and the positions' read
        with pytest.raises(IndexError, match=f"^{re.escape(message.replace('axis 0', 'axis 1'))}$"):
            t[0, index]


def test_an_element_of_a_tensor_that_requires_grad_is_a_tensor_that_requires_grad() -> None:
    w = lt.tensor(np.arange(6.0).reshape(2, 3)).requires_grad_()
    for key in ((1, 2), (-1, 0)):
        element = w[key]
        assert isinstance(element, lt.AbstractTensor) and element.shape == () and element.requires_grad
        with lt.no_grad():
            assert isinstance(w[key], lt.AbstractTensor) and w[key] == np.arange(6.0).reshape(2, 3)[key]
    v = lt.arange(3.0).requires_grad_()
    (v[1] * 5).backward()
    assert v.grad.tolist() == [0.0, 5.0, 0.0]

"""The method names PyTorch and numpy users type (issue 42): `t()`, `dim()`, the casts by name,
`clamp` and `clip`'s keywords, `masked_fill` and `masked_fill_`, `index_select`, `strides`, and the
functions `lt.gather`, `lt.softmax`, `lt.log_softmax`, `lt.array`; each against numpy on random
shapes and views."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import base_pair, chains, shapes

import lazytensor as lt

FINITE = st.floats(-100.0, 100.0, allow_nan=False, width=32)


def _values(shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=FINITE)


# -- t() and dim() ---------------------------------------------------------------------------------


@given(shape=shapes(max_dims=2))
def test_t_transposes_a_matrix_and_returns_vectors_and_scalars_as_they_are(shape: tuple[int, ...]) -> None:
    t, a = base_pair(shape)
    flipped = t.t()
    assert flipped.dim() == a.ndim and flipped.base is t.base
    np.testing.assert_array_equal(flipped.numpy(), a.T)
    if len(shape) < 2:
        assert flipped is t
    else:
        flipped[...] = -1  # a view: writes reach the matrix
        assert (t.numpy() == -1).all()


@given(shape=shapes(max_dims=5).filter(lambda s: len(s) > 2))
def test_t_refuses_more_than_two_axes_naming_the_shape(shape: tuple[int, ...]) -> None:
    expected = rf"^t\(\) transposes a tensor of at most 2 axes, not one of shape {re.escape(str(shape))}:"
    with pytest.raises(ValueError, match=expected):
        lt.zeros(shape).t()


# -- casts by name ---------------------------------------------------------------------------------

CASTS = {
    "float": np.float32,
    "double": np.float64,
    "half": np.float16,
    "long": np.int64,
    "int": np.int32,
    "bool": np.bool_,
}


@pytest.mark.parametrize("name", sorted(CASTS))
@given(values=_values(shapes(max_dims=3)), source=st.sampled_from(["float64", "float32", "int16", "bool"]))
def test_a_cast_by_name_is_numpys_astype_and_itself_when_the_dtype_is_already_that(
    name: str, values: np.ndarray, source: str
) -> None:
    a = values.astype(source)
    t = lt.tensor(a)
    cast = getattr(t, name)()
    expected = a.astype(CASTS[name])
    assert cast.dtype == expected.dtype
    np.testing.assert_array_equal(cast.numpy(), expected)
    assert (cast is t) == (a.dtype == expected.dtype)
    assert getattr(cast, name)() is cast


def test_a_cast_to_a_floating_dtype_keeps_the_gradient_and_an_integer_one_drops_it() -> None:
    w = lt.tensor([0.5, 1.5], requires_grad=True)
    (w.float() * lt.tensor([2.0, 3.0], dtype="float32")).sum().backward()
    assert w.grad is not None and w.grad.dtype == np.float64 and w.grad.tolist() == [2.0, 3.0]
    assert not w.long().requires_grad and w.double() is w


# -- clip and clamp --------------------------------------------------------------------------------

BOUND = st.none() | st.floats(-50.0, 50.0, allow_nan=False)


@given(values=_values(shapes(max_dims=3)), low=BOUND, high=BOUND)
def test_clip_and_clamp_take_numpys_and_pytorchs_spellings(
    values: np.ndarray, low: float | None, high: float | None
) -> None:
    t = lt.tensor(values)
    expected = np.clip(values, low, high) if low is not None or high is not None else values
    for got in (t.clip(low, high), t.clip(min=low, max=high), t.clip(lo=low, hi=high), t.clamp(low, high)):
        np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(t.clamp(min=low, max=high).numpy(), expected)


def test_clip_refuses_a_bound_given_twice() -> None:
    with pytest.raises(TypeError, match=r"^clip\(\) got both min=1 and lo=2: they are one argument$"):
        lt.arange(3).clip(1, lo=2)
    with pytest.raises(TypeError, match=r"^clip\(\) got both max=1 and hi=2: they are one argument$"):
        lt.arange(3).clip(max=1, hi=2)


def test_clamp_differentiates_as_clip() -> None:
    w = lt.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    w.clamp(min=0.0, max=1.0).sum().backward()
    assert w.grad is not None and w.grad.tolist() == [0.0, 1.0, 0.0]


# -- masked_fill -----------------------------------------------------------------------------------


@st.composite
def masked(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Values and a boolean mask that broadcasts to their shape (trailing axes, some of size 1)."""
    shape = draw(shapes(max_dims=3))
    kept = draw(st.integers(0, len(shape)))
    mask_shape = tuple(draw(st.sampled_from([1, size])) for size in shape[len(shape) - kept :])
    return draw(_values(shape)), draw(hnp.arrays(np.bool_, mask_shape))


@given(case=masked(), value=st.floats(-10.0, 10.0, allow_nan=False))
def test_masked_fill_is_numpys_where_in_the_tensors_dtype(
    case: tuple[np.ndarray, np.ndarray], value: float
) -> None:
    values, mask = case
    t = lt.tensor(values)
    filled = t.masked_fill(lt.tensor(mask), value)
    np.testing.assert_array_equal(filled.numpy(), np.where(mask, value, values))
    assert not filled.shares_storage(t)
    whole = lt.tensor(values.astype(np.int64)).masked_fill(mask, value)
    assert whole.dtype == np.int64  # the value is cast, as PyTorch's
    np.testing.assert_array_equal(whole.numpy(), np.where(mask, np.int64(value), values.astype(np.int64)))


@given(shape_ops=chains(max_steps=3), seed=st.integers(0, 2**32 - 1))
def test_masked_fill_in_place_writes_through_every_view(shape_ops: Any, seed: int) -> None:
    shape, ops = shape_ops
    t, a = base_pair(shape)
    t, a = t.astype(np.float64), a.astype(np.float64)
    view, expected = t, a
    for _, step, numpy_step, _ in ops:
        view, expected = step(view), numpy_step(expected)
    if any(layer.read_only_reason for layer in view.layers):
        return  # an expanded view refuses writes (tested with the other in-place methods)
    mask = np.random.default_rng(seed).random(view.shape) < 0.5
    positions = [int(i) for i in expected[mask].reshape(-1)]  # the base values are the flat positions
    assert view.masked_fill_(mask, -1.0) is view
    reference = a.copy().reshape(-1)
    reference[positions] = -1.0
    np.testing.assert_array_equal(t.numpy().reshape(-1), reference)


def test_masked_fill_differentiates_into_the_kept_values_and_a_tensor_value() -> None:
    w = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = lt.tensor(5.0, requires_grad=True)
    (w.masked_fill(lt.tensor([True, False, True]), v) * lt.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert w.grad is not None and w.grad.tolist() == [0.0, 2.0, 0.0]
    assert v.grad is not None and v.grad.item() == 4.0


@pytest.mark.parametrize(
    ("mask", "value", "error", "message"),
    [
        ([1, 0], 0.0, TypeError, r"^masked_fill: the mask must be boolean, got dtype int64$"),
        (
            [[[True]]],
            0.0,
            ValueError,
            r"^masked_fill: a mask of shape \(1, 1, 1\) does not broadcast to shape \(2, 2\)$",
        ),
        ([True, False, True], 0.0, ValueError, r"^masked_fill: a mask of shape \(3,\) does not broadcast"),
        (
            [True, False],
            [1.0, 2.0],
            ValueError,
            r"^masked_fill takes one value \(0-d\), got one of shape \(2,\)$",
        ),
    ],
)
def test_masked_fill_refuses_a_bad_mask_or_value_and_writes_nothing(
    mask: Any, value: Any, error: type[Exception], message: str
) -> None:
    t = lt.ones(2, 2)
    with pytest.raises(error, match=message):
        t.masked_fill(lt.tensor(mask), value)
    with pytest.raises(error, match=message):
        t.masked_fill_(lt.tensor(mask), value)
    assert t.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_masked_fill_in_place_is_refused_on_a_leaf_that_requires_grad() -> None:
    w = lt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf tensor of shape \\(2,\\) that requires grad"):
        w.masked_fill_(lt.tensor([True, False]), 0.0)
    with lt.no_grad():
        w.masked_fill_(lt.tensor([True, False]), 0.0)
    assert w.tolist() == [0.0, 1.0]


# -- index_select ----------------------------------------------------------------------------------


@st.composite
def selections(draw: st.DrawFn) -> tuple[tuple[int, ...], int, list[int]]:
    shape = draw(shapes(max_dims=3).filter(lambda s: len(s) > 0))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[dim]
    index = draw(st.lists(st.integers(-size, size - 1), max_size=5)) if size else []
    return shape, dim, index


@given(case=selections())
def test_index_select_is_numpys_take_along_the_axis_in_a_copy(
    case: tuple[tuple[int, ...], int, list[int]],
) -> None:
    shape, dim, index = case
    t, a = base_pair(shape)
    picked = t.index_select(dim, index)
    np.testing.assert_array_equal(picked.numpy(), np.take(a, np.asarray(index, dtype=np.intp), axis=dim))
    assert not picked.shares_storage(t)
    np.testing.assert_array_equal(
        t.index_select(dim, lt.tensor(index, dtype="int64")).numpy(), picked.numpy()
    )


def test_index_select_differentiates_with_repeats_adding_up() -> None:
    w = lt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    w.index_select(0, [2, 0, 2]).sum().backward()
    assert w.grad is not None and w.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]


def test_index_select_refuses_a_bad_index_naming_it() -> None:
    t = lt.zeros(2, 3)
    with pytest.raises(IndexError, match=r"^index_select: index 3 is out of bounds for axis 1 with size 3$"):
        t.index_select(1, [0, 3])
    with pytest.raises(IndexError, match=r"^index_select takes a 1-D index, got one of shape \(1, 2\)$"):
        t.index_select(0, [[0, 1]])
    with pytest.raises(IndexError, match=r"^index_select: indices must be integers, got dtype float64$"):
        t.index_select(0, [0.0])
    with pytest.raises(np.exceptions.AxisError):
        t.index_select(2, [0])


# -- strides ---------------------------------------------------------------------------------------


@given(shape_ops=chains(max_steps=4), dtype=st.sampled_from(["int64", "int32", "float32", "int8"]))
def test_strides_are_numpys_for_the_view_or_those_of_its_contiguous_copy(shape_ops: Any, dtype: str) -> None:
    shape, ops = shape_ops
    base = np.arange(math.prod(shape)).astype(dtype).reshape(shape)
    t, a = lt.from_numpy(base), base
    for _, step, numpy_step, _ in ops:
        t, a = step(t), numpy_step(a)
    strides, itemsize = t.strides, np.dtype(dtype).itemsize
    assert len(strides) == t.ndim
    layout = t.layout
    if layout is None:  # no strided form: those of the copy numpy would make
        assert strides == tuple(s * itemsize for s in lt.Layout.contiguous(t.shape).strides)
        if a.size:
            assert strides == np.empty(a.shape, dtype).strides
        return
    if a.size:  # the strides (and offset) read the view's values out of the storage, as numpy's would
        raw = np.ndarray(t.shape, dtype, buffer=t.storage, offset=layout.offset * itemsize, strides=strides)
        np.testing.assert_array_equal(raw, a)
    if a.size and np.shares_memory(a, base):  # numpy made a view: its strides, on every axis that moves
        moving = [k for k, size in enumerate(a.shape) if size > 1]
        assert [strides[k] for k in moving] == [a.strides[k] for k in moving]


# -- functions -------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:divide by zero encountered in log")  # an empty axis: log(0)
@given(values=_values(shapes(max_dims=3).filter(lambda s: len(s) > 0)), data=st.data())
def test_softmax_log_softmax_and_gather_as_functions_are_the_methods(
    values: np.ndarray, data: st.DataObject
) -> None:
    t = lt.tensor(values)
    dim = data.draw(st.integers(-values.ndim, values.ndim - 1))
    np.testing.assert_array_equal(lt.softmax(t, dim).numpy(), t.softmax(dim).numpy())
    np.testing.assert_array_equal(lt.softmax(values, axis=dim).numpy(), t.softmax(dim).numpy())
    np.testing.assert_array_equal(lt.log_softmax(t, dim=dim).numpy(), t.log_softmax(dim).numpy())
    size = values.shape[dim]
    if size:
        index = data.draw(hnp.arrays(np.int64, values.shape, elements=st.integers(0, size - 1)))
        np.testing.assert_array_equal(
            lt.gather(t, dim, index).numpy(), np.take_along_axis(values, index, axis=dim)
        )


def test_lt_array_is_numpys_array_a_copy() -> None:
    source = np.arange(6.0).reshape(2, 3)
    t = lt.array(source)
    source[0, 0] = 99.0
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert lt.array([1, 2], "float32").dtype == np.float32
    assert lt.array([[1, 2]]).shape == (1, 2)


def test_meshgrid_gives_the_2024_12_standards_list() -> None:
    """numpy gives a tuple; the array API standard 2024.12, which lazytensor implements and whose
    conformance suite CI runs, asks for a list (the 2025.12 revision moves to a tuple). Either unpacks
    the same way: docs/numpy.md lists the difference."""
    grids = lt.meshgrid(lt.arange(3), lt.arange(2))
    assert type(grids) is list
    x, y = grids
    nx, ny = np.meshgrid(np.arange(3), np.arange(2))
    np.testing.assert_array_equal(x.numpy(), nx)
    np.testing.assert_array_equal(y.numpy(), ny)

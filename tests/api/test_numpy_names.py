"""numpy's names for what a numpy user types (issue 27, item 3) and the defects the issue's run
found (`arange(10, step=3)`, `lt.equal`, `zeros(shape, dtype=, device=)`, `full(fill_value=)`,
the `x[()]` decision), each against numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt

# -- the defects ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.integers(-20, 20) | st.floats(-20, 20, allow_nan=False).map(lambda x: round(x, 1)),
    st.integers(-4, 4).filter(bool),
)
def test_arange_with_the_stop_alone_counts_from_zero_by_step(stop: float, step: int) -> None:
    np.testing.assert_array_equal(lt.arange(stop, step=step).numpy(), np.arange(0, stop, step))
    assert lt.arange(10, step=3).tolist() == [0, 3, 6, 9]


@settings(max_examples=40, deadline=None)
@given(shapes(max_dims=3, max_side=3), shapes(max_dims=3, max_side=3), st.data())
def test_equal_is_elementwise_and_array_equal_is_one_bool(
    a_shape: Any, b_shape: Any, data: st.DataObject
) -> None:
    a = np.array(
        data.draw(st.lists(st.integers(0, 1), min_size=int(np.prod(a_shape)), max_size=int(np.prod(a_shape))))
    )
    b = np.array(
        data.draw(st.lists(st.integers(0, 1), min_size=int(np.prod(b_shape)), max_size=int(np.prod(b_shape))))
    )
    a, b = a.reshape(a_shape), b.reshape(b_shape)
    try:
        expected = np.equal(a, b)
    except ValueError:
        with pytest.raises(ValueError):
            lt.equal(lt.tensor(a), b)
    else:
        got = lt.equal(lt.tensor(a), b)
        assert isinstance(got, lt.AbstractTensor) and got.dtype == np.bool_
        np.testing.assert_array_equal(got.numpy(), expected)
    assert lt.array_equal(lt.tensor(a), b) is np.array_equal(a, b)
    assert lt.array_equal(lt.tensor(a), lt.tensor(a.copy())) is True


def test_array_equal_takes_numpys_equal_nan() -> None:
    t = lt.tensor([1.0, float("nan")])
    assert not lt.array_equal(t, t) and lt.array_equal(t, t, equal_nan=True)


@pytest.mark.parametrize("make", [lt.zeros, lt.ones, lt.empty])
def test_zeros_ones_empty_take_a_shape_tuple_with_dtype_and_device(make: Any) -> None:
    t = make((2, 3), dtype=np.int32, device="cpu")
    assert t.shape == (2, 3) and t.dtype == np.int32
    assert make(2, 3).shape == (2, 3) and make(()).shape == ()
    with pytest.raises(ValueError, match="device"):
        make((2,), device="gpu")


def test_full_names_its_value_fill_value_and_keeps_it_positional() -> None:
    assert lt.full((2,), fill_value=3).tolist() == np.full((2,), fill_value=3).tolist()
    assert lt.full(2, 0.5).tolist() == [0.5, 0.5]
    assert lt.full((2,), 7, dtype=np.float32).dtype == np.float32


def test_an_element_is_a_0d_view_and_x_of_empty_tuple_is_x() -> None:
    """The `x[()]` decision (docs/numpy.md): the array API's and PyTorch's habit, a 0-d tensor for a
    key naming one element, so clients' results (SciPy's `res[()]`) stay tensors; `x[...]` a view."""
    values = np.arange(3.0)
    t = lt.tensor(values)
    assert isinstance(t[1], lt.AbstractTensor) and t[1].shape == () and t[1] == values[1]
    element = t[1]
    t[1] = 7.0  # a view: it reads what the storage holds
    assert element.item() == 7.0
    zero_d = lt.tensor(np.float32(2.5))
    assert zero_d[()] is zero_d
    obj = lt.tensor([{"a": 1}, None], dtype=object)
    assert obj[0] == {"a": 1}  # an object tensor's element is the object, as numpy's
    whole = zero_d[...]
    assert isinstance(whole, lt.AbstractTensor) and whole.shape == ()
    whole[...] = 4.0
    assert zero_d.item() == 4.0


# -- numpy's names ------------------------------------------------------------------------------


def test_copy_is_new_storage_and_keeps_the_gradient() -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    c = w.copy()
    assert not c.shares_storage(w)
    (c * c).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]


def test_ravel_is_a_write_through_view() -> None:
    t = lt.arange(6).reshape(2, 3)
    flat = t.T.ravel()
    np.testing.assert_array_equal(flat.numpy(), np.arange(6).reshape(2, 3).T.ravel())
    flat[0] = 100
    assert t[0, 0] == 100


def test_fill_writes_through_a_view_with_numpys_casting() -> None:
    t = lt.zeros(2, 3, dtype=np.int64)
    t[:, ::2].fill(1.9)
    expected = np.zeros((2, 3), dtype=np.int64)
    expected[:, ::2].fill(1.9)
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((), (3,)), ((3,), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((3,), (3, 2))],
)
def test_dot_matches_numpy(a_shape: Any, b_shape: Any) -> None:
    a = np.arange(1.0, 1.0 + np.prod(a_shape)).reshape(a_shape)
    b = np.arange(2.0, 2.0 + np.prod(b_shape)).reshape(b_shape)
    np.testing.assert_allclose(lt.tensor(a).dot(lt.tensor(b)).numpy(), a.dot(b))


@settings(max_examples=60, deadline=None)
@given(shapes(max_dims=3, max_side=3), st.data())
def test_repeat_tile_take_match_numpy_and_differentiate(shape: Any, data: st.DataObject) -> None:
    values = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)) if shape else st.none())
    size = values.size if axis is None else shape[axis]
    repeats = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), min_size=size, max_size=size))
    w = lt.tensor(values, requires_grad=True)
    repeated = w.repeat(repeats, axis=axis)
    np.testing.assert_array_equal(repeated.numpy(), values.repeat(repeats, axis=axis))
    reps = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), min_size=1, max_size=3))
    np.testing.assert_array_equal(w.tile(reps).numpy(), np.tile(values, reps))
    indices = data.draw(st.lists(st.integers(-size, size - 1), max_size=4)) if size else []
    taken = w.take(np.array(indices, dtype=np.intp), axis=axis)
    np.testing.assert_array_equal(taken.numpy(), values.take(np.array(indices, dtype=np.intp), axis=axis))
    (repeated.sum() + taken.sum()).backward()
    expected = np.zeros(values.shape)
    flat_counts = np.broadcast_to(np.asarray(repeats), (size,))
    if axis is None:
        expected.reshape(-1)[:] += flat_counts
        np.add.at(expected.reshape(-1), np.array(indices, dtype=np.intp), 1.0)
    else:
        moved = np.moveaxis(expected, axis, -1)
        moved += flat_counts
        np.add.at(moved, (..., np.array(indices, dtype=np.intp)), 1.0)
    np.testing.assert_allclose(w.grad.numpy(), expected)


def test_put_matches_numpy() -> None:
    t = lt.zeros(2, 3)
    reference = np.zeros((2, 3))
    t.T.put([0, -1, 4], [1.0, 2.0])  # through a view: flat indices of the view
    reference_view = reference.T.copy()
    reference_view.put([0, -1, 4], [1.0, 2.0])
    np.testing.assert_array_equal(t.T.numpy(), reference_view)


@settings(max_examples=60, deadline=None)
@given(shapes(max_dims=4, max_side=4).filter(lambda s: len(s) >= 2), st.data())
def test_diagonal_and_trace_match_numpy(shape: Any, data: st.DataObject) -> None:
    values = np.arange(np.prod(shape)).reshape(shape)
    axis1, axis2 = data.draw(
        st.lists(st.integers(-len(shape), len(shape) - 1), min_size=2, max_size=2).filter(
            lambda a: a[0] % len(shape) != a[1] % len(shape)
        )
    )
    offset = data.draw(st.integers(-4, 4))
    t = lt.tensor(values)
    np.testing.assert_array_equal(
        t.diagonal(offset, axis1, axis2).numpy(), values.diagonal(offset, axis1, axis2)
    )
    np.testing.assert_array_equal(t.trace(offset, axis1, axis2).numpy(), values.trace(offset, axis1, axis2))


def test_diagonal_is_a_write_through_view() -> None:
    t = lt.zeros(3, 3)
    t.diagonal().fill(1.0)
    np.testing.assert_array_equal(t.numpy(), np.eye(3))


def test_astype_copy_false_returns_the_tensor_when_the_dtype_is_its_own() -> None:
    t = lt.arange(3)
    assert t.astype(np.int64, copy=False) is t
    assert t.astype(np.int64) is not t and t.astype(np.float32, copy=False).dtype == np.float32


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float64", "complex64", np.int64])
def test_view_of_a_dtype_of_the_same_size_reinterprets_any_view(dtype: Any) -> None:
    values = np.arange(12.0).reshape(3, 4)
    t = lt.tensor(values)
    view = t.T[::-1].view(dtype)
    np.testing.assert_array_equal(view.numpy(), values.T[::-1].view(dtype))
    assert view.shares_storage(t)


@pytest.mark.parametrize("dtype", ["int32", "int8", "complex128"])
def test_view_of_a_dtype_of_another_size_reinterprets_a_contiguous_tensor(dtype: str) -> None:
    values = np.arange(12.0).reshape(3, 4)
    t = lt.tensor(values)
    view = t[1:].view(dtype)
    np.testing.assert_array_equal(view.numpy(), values[1:].view(dtype))
    view[...] = np.zeros(view.shape, dtype=dtype)
    assert t.numpy()[1:].tolist() == [[0.0] * 4] * 2 and t.numpy()[0].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_view_of_a_shape_keeps_pytorchs_meaning() -> None:
    assert lt.arange(6).view(2, 3).shape == (2, 3) and lt.arange(6).view((3, 2)).shape == (3, 2)


@pytest.mark.parametrize("make", ["zeros_like", "ones_like", "empty_like"])
def test_like_functions_match_numpy(make: str) -> None:
    prototype = np.arange(6, dtype=np.int16).reshape(2, 3)
    for source in (prototype, lt.tensor(prototype).T):
        expected = getattr(np, make)(np.asarray(source))
        got = getattr(lt, make)(source)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        if make != "empty_like":
            np.testing.assert_array_equal(got.numpy(), expected)
    assert lt.zeros_like(prototype, dtype=float, shape=(4,)).tolist() == [0.0] * 4
    assert lt.full_like(prototype, 2.5).tolist() == np.full_like(prototype, 2.5).tolist()


def test_unique_matches_numpy() -> None:
    values = np.array([[3, 1, 3], [2, 1, 1]])
    np.testing.assert_array_equal(lt.unique(lt.tensor(values)).numpy(), np.unique(values))
    got = lt.unique(lt.tensor(values), return_index=True, return_inverse=True, return_counts=True)
    expected = np.unique(values, return_index=True, return_inverse=True, return_counts=True)
    assert len(got) == len(expected) == 4
    for mine, numpys in zip(got, expected, strict=True):
        np.testing.assert_array_equal(mine.numpy(), numpys)


def test_swapaxes_is_a_view() -> None:
    t = lt.arange(6).reshape(2, 3)
    assert t.swapaxes(0, 1).shares_storage(t)
    np.testing.assert_array_equal(t.swapaxes(0, -1).numpy(), np.arange(6).reshape(2, 3).swapaxes(0, -1))


def test_the_idioms_the_issue_found_raising_now_behave_as_numpy() -> None:
    """Issue 27's list ("these raise: ..."), each against numpy (or docs/numpy.md's difference)."""
    a = np.arange(6.0).reshape(2, 3)
    x = lt.tensor(a)
    same = np.testing.assert_array_equal
    same(x.cumsum(axis=0).numpy(), a.cumsum(axis=0))
    same(lt.cat([x, x], axis=1).numpy(), np.concatenate([a, a], axis=1))
    same(lt.stack([x, x], axis=1).numpy(), np.stack([a, a], axis=1))
    np.testing.assert_allclose(x.std(ddof=1).numpy(), a.std(ddof=1))
    assert x.sum(dtype=np.float32).dtype == a.sum(dtype=np.float32).dtype
    same(lt.concatenate([x, x]).numpy(), np.concatenate([a, a]))
    same(lt.zeros_like(x).numpy(), np.zeros_like(a))
    assert lt.empty((2, 3)).shape == np.empty((2, 3)).shape
    same(lt.unique(lt.tensor([3, 1, 3])).numpy(), np.unique([3, 1, 3]))
    same(x.copy().numpy(), a.copy())
    same(x.ravel().numpy(), a.ravel())
    filled, reference = x.copy(), a.copy()
    filled.fill(0)
    reference.fill(0)
    same(filled.numpy(), reference)
    m, v = lt.tensor([[1.0, 2.0], [3.0, 4.0]]), lt.tensor([1.0, -1.0])
    same(m.dot(v).numpy(), m.numpy().dot(v.numpy()))
    same(lt.tensor([1, 2]).repeat(2).numpy(), np.array([1, 2]).repeat(2))
    same(x.view(np.int64).numpy(), a.view(np.int64))


def test_the_autograd_habits_the_issue_found_raising_now_behave_as_pytorch() -> None:
    w = lt.ones(2, requires_grad=True)
    (w * 2).sum().backward()
    w.grad.zero_()
    w.grad = None
    assert w.grad is None and w.is_leaf and (w * 2).grad_fn is not None
    with lt.no_grad(), lt.enable_grad():
        assert (w * 2).requires_grad
    with lt.inference_mode():
        assert not (w * 2).requires_grad


@settings(max_examples=80, deadline=None)
@given(
    shape=shapes(max_dims=3, max_side=4).filter(len),
    source=st.sampled_from(["float64", "int32", "int16"]),
    target=st.sampled_from(["int8", "int16", "int32", "int64", "float32", "complex128"]),
    data=st.data(),
)
def test_view_of_a_dtype_reinterprets_any_basic_view_as_numpy(
    shape: Any, source: str, target: str, data: st.DataObject
) -> None:
    """Any basic slice (last axis stepped or not, other axes reversed or strided) read as another
    dtype: numpy's values, or numpy's refusal as a ValueError; writes reach the storage. The one
    difference (docs/numpy.md): to a larger dtype, rows that start at different offsets modulo
    the new size are refused (one retyped storage cannot hold both)."""
    values = np.arange(np.prod(shape)).astype(source).reshape(shape)
    key = tuple(
        slice(data.draw(st.integers(0, 1)), None, data.draw(st.sampled_from([1, 1, 2, -1]))) for _ in shape
    )
    try:
        expected = values[key].view(target)
    except ValueError:
        with pytest.raises(ValueError):
            lt.tensor(values)[key].view(target)
        return
    t = lt.tensor(values)
    try:
        view = t[key].view(target)
    except ValueError as error:
        assert "start at different remainders" in str(error)
        return
    np.testing.assert_array_equal(view.numpy(), expected)
    reference = values.copy()
    reference[key].view(target)[...] = 1
    view[...] = np.ones(view.shape, dtype=target)
    np.testing.assert_array_equal(t.numpy(), reference)

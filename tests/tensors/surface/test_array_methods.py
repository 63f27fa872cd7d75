"""numpy's array methods on a tensor (`sort`, `argsort`, `nonzero`, `fill`, `dot`, `put`, `take`,
`diagonal`, `trace`, ...): against numpy on random shapes, each refusal in full and naming the
method, and every write refused before anything is written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt

FAST = settings(max_examples=40, deadline=None)
GRAD_REFUSAL = (
    "in-place {name} on a tensor of shape (2, 3) that requires grad is not differentiable: "
    "use an out-of-place operation, or lt.no_grad() for an update"
)


def shapes_of(min_dims: int, max_dims: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes of `min_dims` to `max_dims` axes of sizes 0 to 4."""
    return st.lists(st.integers(0, 4), min_size=min_dims, max_size=max_dims).map(tuple)


def _values(shape: tuple[int, ...]) -> np.ndarray:
    """Distinct-ish integers, some zero, in a float array of `shape`."""
    return (np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 7 % 5) - 1


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda t: t.sort(axis=2), np.exceptions.AxisError, "sort of a tensor of shape (2, 3): axis 2"),
        (lambda t: t.argsort(axis=2), np.exceptions.AxisError, "argsort of a tensor of shape (2, 3): axis 2"),
        (lambda t: t.roll(1, axis=2), np.exceptions.AxisError, "roll of a tensor of shape (2, 3): axis 2"),
        (lambda t: t.flip(axis=2), np.exceptions.AxisError, "flip of a tensor of shape (2, 3): axis 2"),
        (lambda t: t.take([0], axis=2), np.exceptions.AxisError, "take of a tensor of shape (2, 3): axis 2"),
        (
            lambda t: t.repeat(2, axis=2),
            np.exceptions.AxisError,
            "repeat of a tensor of shape (2, 3): axis 2",
        ),
        (
            lambda t: t.diagonal(axis2=2),
            np.exceptions.AxisError,
            "diagonal of a tensor of shape (2, 3): axis 2",
        ),
        (lambda t: t.diagonal(0, 1, -1), ValueError, "diagonal: axis1 and axis2 cannot be the same (both 1)"),
        (lambda t: t.trace(0, 0, 0), ValueError, "diagonal: axis1 and axis2 cannot be the same (both 0)"),
        (
            lambda t: t.take([0, 3], axis=1),
            IndexError,
            "take: index 3 is out of bounds for axis 1 with size 3",
        ),
        (lambda t: t.sort(axis=None), TypeError, "sort takes one axis (an int), not None"),  # numpy's too
        (lambda t: t.sort(kind="stable", stable=True), ValueError, "sort: `kind` and `stable`"),
        (lambda t: t.argsort(kind="stable", stable=True), ValueError, "argsort: `kind` and `stable`"),
        (
            lambda t: t.fill([1.0, 2.0]),
            ValueError,  # numpy's a.fill([1.0, 2.0]) too
            "fill of a tensor of shape (2, 3) takes one value, got one of shape (2,)",
        ),
        (
            lambda t: t.dot(lt.zeros(3, 2, 2)),
            ValueError,
            "dot of shapes (2, 3) and (3, 2, 2): numpy's dot sums over the second-last axis of a second "
            "operand of 3 or more axes; lazytensor's dot takes one of at most 2 (use @, which broadcasts "
            "the leading axes)",
        ),
        (lambda t: t.put([6], 1.0), IndexError, "put: index 6 is out of bounds for axis None with size 6"),
        (lambda t: t.put([0, 1], []), ValueError, "put: no values to write at 2 indices"),
        (lambda t: t.take([6]), IndexError, "take: index 6 is out of bounds for axis None with size 6"),
        (lambda t: t.take([0.5]), IndexError, "take: indices must be integers, got dtype float64"),
        (  # the first bad index in row-major order
            lambda t: t.take([[0, 7], [-9, 8]]),
            IndexError,
            "take: index 7 is out of bounds for axis None with size 6",
        ),
        (
            lambda t: t.sort(stable=1),
            TypeError,
            "sort: stable must be True or False, got 1 (int); numpy's other arguments (dtype, out) are "
            "keywords here",
        ),
        (
            lambda t: t.argsort(descending=1),
            TypeError,
            "argsort: descending must be True or False, got 1 (int); numpy's other arguments (dtype, out) "
            "are keywords here",
        ),
        (lambda t: t.repeat(-1), ValueError, "repeat: a count must not be negative, got -1"),
        (lambda t: t[0].diagonal(), ValueError, "diagonal needs a tensor of at least 2 axes, got shape (3,)"),
        (lambda t: t.roll([1, 2, 3], axis=(0, 1)), ValueError, "roll: 3 shifts (1, 2, 3) for 2 axes (0, 1)"),
        (lambda t: t.roll([1, 2]), ValueError, "roll: 2 shifts (1, 2) for 1 axes None"),
        (
            lambda t: t.roll([1, 2], axis=-1),
            ValueError,
            "roll: 2 shifts (1, 2) for 1 axes -1",
        ),  # PyTorch's refusal
        (lambda t: t.roll(1.5), TypeError, "roll: a shift must be an int, got 1.5 (float)"),
        (lambda t: t.roll([1, True], axis=(0, 1)), TypeError, "roll: a shift must be an int, not True"),
    ],
)
def test_each_refusal_names_the_method(call: Callable[[Any], Any], error: type, message: str) -> None:
    t = lt.tensor(_values((2, 3)))
    with pytest.raises(error) as caught:
        call(t)
    assert str(caught.value).startswith(message), str(caught.value)
    assert t.tolist() == _values((2, 3)).tolist()


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("sort", lambda t: t.sort()),
        ("fill", lambda t: t.fill(1.0)),
        ("put", lambda t: t.put([0, 4], [1.0, 2.0])),
    ],
)
def test_an_in_place_write_into_a_gradient_graph_is_refused_by_name(
    name: str, write: Callable[[Any], Any]
) -> None:
    x = lt.tensor(_values((2, 3)), requires_grad=True)
    y = x * 2.0
    with pytest.raises(RuntimeError) as refused:
        write(y)
    assert str(refused.value) == GRAD_REFUSAL.format(name=name)
    np.testing.assert_array_equal(y.numpy(), _values((2, 3)) * 2.0)


@pytest.mark.parametrize(
    "write", [lambda t: t.sort(), lambda t: t.fill(1.0), lambda t: t.put([0, 4], [1.0, 2.0])]
)
def test_an_in_place_write_through_an_expanded_view_is_refused(write: Callable[[Any], Any]) -> None:
    storage = lt.tensor(_values((3,)))
    with pytest.raises(ValueError, match="cannot write through an expanded view"):
        write(storage.expand(2, 3))
    np.testing.assert_array_equal(storage.numpy(), _values((3,)))


def test_nonzero_of_a_0d_tensor_is_refused_as_numpy_asks() -> None:
    with pytest.raises(ValueError) as refused:
        lt.tensor(3.0).nonzero()
    assert str(refused.value) == "nonzero of a 0-d tensor: index it as t[None] first, as numpy asks"


@FAST
@given(shape=shapes_of(1, 3))
def test_nonzero_matches_numpy(shape: tuple[int, ...]) -> None:
    values = _values(shape)
    found = lt.tensor(values).nonzero()
    expected = np.nonzero(values)
    assert len(found) == len(expected)
    for got, want in zip(found, expected, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)


@FAST
@given(shape=shapes(max_dims=3, max_side=4), value=st.integers(-3, 3))
def test_fill_through_a_view_reaches_storage(shape: tuple[int, ...], value: int) -> None:
    values = _values((2, *shape))
    t = lt.tensor(values)
    t[1].fill(value)  # an element is a 0-d view too: the fill reaches storage, as PyTorch's fill_
    values[1, ...].fill(value)
    np.testing.assert_array_equal(t.numpy(), values)


@FAST
@given(data=st.data(), size=st.integers(1, 12))
def test_put_matches_numpy(data: st.DataObject, size: int) -> None:
    indices = data.draw(st.lists(st.integers(-size, size - 1), max_size=6), label="indices")
    given_values = data.draw(
        st.lists(st.integers(-9, 9), min_size=1 if indices else 0, max_size=4), label="values"
    )
    values = np.arange(float(size))
    t = lt.tensor(np.array(values[::-1]))[::-1]  # through a view
    t.put(indices, given_values)
    np.put(values, np.asarray(indices, dtype=np.intp), np.asarray(given_values, dtype=np.float64))
    np.testing.assert_array_equal(t.numpy(), values)


def test_put_of_nothing_writes_nothing() -> None:
    t = lt.arange(4.0)
    t.put([], [])
    t.put([], [5.0, 6.0])
    t.put([], [[5.0], [6.0]])
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_put_takes_values_of_any_shape_in_row_major_order() -> None:
    t = lt.zeros(2, 3)
    values = np.zeros((2, 3))
    t.put([5, 0, -2], lt.tensor([[1.0], [2.0], [3.0]]))
    np.put(values, [5, 0, -2], [[1.0], [2.0], [3.0]])
    np.testing.assert_array_equal(t.numpy(), values)


@pytest.mark.parametrize(
    "other",
    [2, 2.5, np.array(3), [1.0, -1.0, 2.0], [[1.0], [0.5], [2.0]], np.arange(6.0).reshape(3, 2)],
)
def test_dot_matches_numpy(other: Any) -> None:
    values = _values((2, 3))
    np.testing.assert_array_equal(lt.tensor(values).dot(other).numpy(), values.dot(other))
    scalar = lt.tensor(2.0)
    np.testing.assert_array_equal(scalar.dot(other).numpy(), np.dot(2.0, other))


def test_dot_of_a_0d_tensor_with_a_3d_operand_is_the_product() -> None:
    other = np.arange(8.0).reshape(2, 2, 2)
    np.testing.assert_array_equal(lt.tensor(3.0).dot(other).numpy(), np.dot(3.0, other))


@FAST
@given(data=st.data(), shape=shapes_of(1, 3))
def test_take_matches_numpy(data: st.DataObject, shape: tuple[int, ...]) -> None:
    values = _values(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)), label="axis")
    size = values.size if axis is None else shape[axis]
    if size == 0:
        return
    index_shape = data.draw(shapes(max_dims=2, max_side=3), label="index shape")
    indices = data.draw(
        st.lists(
            st.integers(-size, size - 1),
            min_size=int(np.prod(index_shape)),
            max_size=int(np.prod(index_shape)),
        ),
        label="indices",
    )
    index = np.asarray(indices, dtype=np.intp).reshape(index_shape)
    got = lt.tensor(values).take(index, axis=axis)
    expected = values.take(index, axis=axis)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_take_by_axis_name() -> None:
    t = lt.tensor(_values((2, 3)), names=("row", "column"))
    np.testing.assert_array_equal(
        t.take([[2, 0]], axis="column").numpy(), _values((2, 3)).take([[2, 0]], axis=1)
    )


@FAST
@given(
    data=st.data(),
    shape=shapes_of(2, 4),
    offset=st.integers(-5, 5),
)
def test_diagonal_and_trace_match_numpy(data: st.DataObject, shape: tuple[int, ...], offset: int) -> None:
    values = _values(shape)
    ndim = len(shape)
    axis1 = data.draw(st.integers(-ndim, ndim - 1), label="axis1")
    axis2 = data.draw(st.integers(-ndim, ndim - 1).filter(lambda a: a % ndim != axis1 % ndim), label="axis2")
    t = lt.tensor(values)
    got = t.diagonal(offset, axis1, axis2)
    expected = values.diagonal(offset, axis1, axis2)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(t.trace(offset, axis1, axis2).numpy(), values.trace(offset, axis1, axis2))
    trace32 = t.trace(offset, axis1, axis2, dtype=np.float32)
    assert trace32.dtype == np.float32
    np.testing.assert_array_equal(trace32.numpy(), values.trace(offset, axis1, axis2, dtype=np.float32))


def test_a_diagonal_writes_through() -> None:
    t = lt.zeros(3, 4)
    t.diagonal(1)[...] = 1.0
    values = np.zeros((3, 4))
    values[[0, 1, 2], [1, 2, 3]] = 1.0
    np.testing.assert_array_equal(t.numpy(), values)


@FAST
@given(data=st.data(), shape=st.lists(st.integers(2, 5), min_size=1, max_size=3).map(tuple))
def test_roll_takes_one_shift_for_every_axis_or_one_per_axis_as_numpy(
    data: st.DataObject, shape: tuple[int, ...]
) -> None:
    """A tuple of axes (numpy's `axis`, PyTorch's `dim`) with a tuple of as many shifts, or with
    one shift (alone or in a list) for all of them; every axis long enough for a shift to show."""
    values = _values(shape)
    axes = tuple(
        data.draw(st.permutations(range(len(shape))), label="axes")[: data.draw(st.integers(1, len(shape)))]
    )
    shifts = data.draw(
        st.one_of(
            st.lists(st.integers(-5, 5), min_size=len(axes), max_size=len(axes)).map(tuple),
            st.lists(st.integers(-5, 5), min_size=1, max_size=1),
            st.integers(-5, 5),
        ),
        label="shifts",
    )
    expected = np.roll(values, shifts, axis=axes)
    np.testing.assert_array_equal(lt.tensor(values).roll(shifts, axis=axes).numpy(), expected)
    np.testing.assert_array_equal(lt.tensor(values).roll(shifts, dim=axes).numpy(), expected)


@FAST
@given(data=st.data(), shape=shapes(max_dims=3, max_side=4))
def test_repeat_tile_roll_flip_match_numpy(data: st.DataObject, shape: tuple[int, ...]) -> None:
    values = _values(shape)
    t = lt.tensor(values)
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)) if ndim else st.none(), label="axis")
    length = values.size if axis is None else shape[axis]
    repeats = data.draw(
        st.one_of(st.integers(0, 3), st.lists(st.integers(0, 2), min_size=length, max_size=length))
    )
    np.testing.assert_array_equal(t.repeat(repeats, axis).numpy(), values.repeat(repeats, axis))
    reps = data.draw(st.lists(st.integers(0, 2), max_size=4), label="reps")
    np.testing.assert_array_equal(t.tile(reps).numpy(), np.tile(values, reps))
    shift = data.draw(st.integers(-5, 5), label="shift")
    np.testing.assert_array_equal(t.roll(shift, axis=axis).numpy(), np.roll(values, shift, axis=axis))
    np.testing.assert_array_equal(t.flip(axis=axis).numpy(), np.flip(values, axis=axis))
    np.testing.assert_array_equal(t.ravel().numpy(), values.ravel())
    copied = t.copy()
    np.testing.assert_array_equal(copied.numpy(), values)
    assert not np.shares_memory(copied.numpy(), t.numpy())


@FAST
@given(data=st.data(), shape=shapes_of(1, 3))
def test_sort_and_argsort_match_numpy(data: st.DataObject, shape: tuple[int, ...]) -> None:
    values = _values(shape)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    descending = data.draw(st.booleans(), label="descending")
    t = lt.tensor(values)
    order = t.argsort(axis=axis, stable=True, descending=descending)
    if descending:  # reversed, sorted stably, reversed back: ties keep their order
        reversed_order = np.argsort(np.flip(values, axis), axis=axis, stable=True)
        expected = shape[axis] - 1 - np.flip(reversed_order, axis)
    else:
        expected = np.argsort(values, axis=axis, stable=True)
    np.testing.assert_array_equal(order.numpy(), expected)
    t.sort(axis, descending=descending)
    ascending = np.sort(values, axis=axis)
    np.testing.assert_array_equal(t.numpy(), np.flip(ascending, axis) if descending else ascending)


def test_sort_by_dim_and_kind() -> None:
    values = _values((3, 4))
    t = lt.tensor(values)
    t.sort(0, "stable")
    np.testing.assert_array_equal(t.numpy(), np.sort(values, axis=0))
    order = lt.tensor([2, 1, 2, 1]).argsort(0, "stable")
    assert order.tolist() == [1, 3, 0, 2]


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_the_gradient_of_take_with_indices_of_several_axes_adds_up_repeats(axis: int | None) -> None:
    values = _values((2, 3))
    index = np.array([[1, 0], [1, 1]])
    taken_shape = values.take(index, axis=axis).shape
    weights = np.arange(1.0, 1.0 + np.prod(taken_shape)).reshape(taken_shape)
    x = lt.tensor(values, requires_grad=True)
    (x.take(index, axis=axis) * lt.tensor(weights)).sum().backward()
    expected = np.zeros_like(values)
    if axis is None:
        np.add.at(expected.reshape(-1), index, weights)
    else:
        before = (slice(None),) * (axis % values.ndim)
        for position in np.ndindex(index.shape):
            expected[(*before, index[position])] += weights[(*before, *position)]
    np.testing.assert_array_equal(x.grad.numpy(), expected)

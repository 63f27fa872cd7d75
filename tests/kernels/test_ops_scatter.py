"""gather, index_add and scatter_add with PyTorch's semantics, against plain loops.

Reaches into `lazytensor.kernels.scatter`: the kernels' refusals and `row_sums` are checked on
arrays, below the doors that check first.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import nonempty_shapes, view_pairs

import lazytensor as lt
from lazytensor.kernels import scatter
from lazytensor.kernels.scatter import row_sums

FAST = settings(max_examples=40, deadline=None)


def loop_index_add(a: np.ndarray, dim: int, index: list[int], source: np.ndarray) -> np.ndarray:
    out = a.astype(np.result_type(a, source)).copy()
    moved_out, moved_source = np.moveaxis(out, dim, 0), np.moveaxis(source, dim, 0)
    for i, target in enumerate(index):
        moved_out[target] += moved_source[i]
    return out


@FAST
@given(
    data=st.data(),
    shape=nonempty_shapes,
    dtype=st.sampled_from([np.float64, np.float32, np.int32, np.complex64]),
)
def test_index_add_matches_a_loop(data: st.DataObject, shape: tuple[int, ...], dtype: Any) -> None:
    t, a = data.draw(view_pairs(shape, dtype))
    dim = data.draw(st.integers(0, len(shape) - 1))
    index = data.draw(st.lists(st.integers(0, shape[dim] - 1), max_size=6))
    source_shape = (*shape[:dim], len(index), *shape[dim + 1 :])
    ts, s = data.draw(view_pairs(source_shape, dtype))
    result = t.index_add(dim, index, ts)
    expected = loop_index_add(a, dim, index, s)
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(t.numpy(), a)  # a new tensor: the input is unchanged


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128, object])
def test_segment_sum_kernels_agree_with_add_at(dtype: Any) -> None:
    rng = np.random.default_rng(0)
    targets = rng.integers(0, 7, size=50)
    rows = rng.integers(-5, 5, size=(50, 3)).astype(dtype)
    expected = np.zeros((7, 3), dtype=dtype)
    np.add.at(expected, targets, rows)
    np.testing.assert_array_equal(row_sums(targets, rows, 7), expected)


def test_index_add_message_passing_example() -> None:
    features = lt.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    sources, targets = [0, 1, 2, 2], [1, 2, 0, 1]
    aggregated = lt.zeros(3, 2).index_add(0, targets, features[sources])
    assert aggregated.tolist() == [[1.0, 1.0], [2.0, 1.0], [0.0, 1.0]]


def test_index_add_of_fractions_is_exact_and_keeps_untouched_rows() -> None:
    t = lt.tensor([[Fraction(1, 3)], [Fraction(1, 2)]])
    result = t.index_add(0, [0, 0], lt.tensor([[Fraction(1, 6)], [Fraction(1, 6)]]))
    assert result.tolist() == [[Fraction(2, 3)], [Fraction(1, 2)]]


def test_index_add_errors() -> None:
    with pytest.raises(IndexError, match="index 3 is out of bounds for dim 0 with size 3"):
        lt.zeros(3, 2).index_add(0, [3], lt.ones(1, 2))
    with pytest.raises(ValueError, match=r"source of shape \(2, 3\)"):
        lt.zeros(3, 2).index_add(0, [0, 1], lt.ones(2, 3))
    with pytest.raises(np.exceptions.AxisError):
        lt.zeros(3, 2).index_add(2, [0], lt.ones(1, 2))
    with pytest.raises(TypeError, match="integers"):
        lt.zeros(3, 2).index_add(0, [0.5], lt.ones(1, 2))


@FAST
@given(data=st.data(), shape=nonempty_shapes)
def test_gather_and_scatter_add_match_loops(data: st.DataObject, shape: tuple[int, ...]) -> None:
    t, a = data.draw(view_pairs(shape, np.float64))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    axis = dim % len(shape)
    index_shape = tuple(
        data.draw(st.integers(0, 3)) if d == axis else data.draw(st.integers(0, size))
        for d, size in enumerate(shape)
    )
    index = np.array(
        data.draw(
            st.lists(
                st.integers(0, shape[axis] - 1),
                min_size=int(np.prod(index_shape)),
                max_size=int(np.prod(index_shape)),
            )
        ),
        dtype=np.int64,
    ).reshape(index_shape)
    gathered = t.gather(dim, index)
    expected = np.zeros(index_shape)
    for pos in itertools.product(*map(range, index_shape)):
        source = list(pos)
        source[axis] = index[pos]
        expected[pos] = a[tuple(source)]
    np.testing.assert_array_equal(gathered.numpy(), expected)

    source_values = np.arange(1.0, 1.0 + np.prod(index_shape)).reshape(index_shape)
    scattered = t.scatter_add(dim, lt.tensor(index), source_values)
    expected_scatter = a.copy()
    for pos in itertools.product(*map(range, index_shape)):
        target = list(pos)
        target[axis] = index[pos]
        expected_scatter[tuple(target)] += source_values[pos]
    np.testing.assert_array_equal(scattered.numpy(), expected_scatter)


def test_gather_and_scatter_add_pytorch_examples() -> None:
    t = lt.tensor([[1, 2], [3, 4]])
    assert t.gather(1, [[0, 0], [1, 0]]).tolist() == [[1, 1], [4, 3]]
    assert t.gather(0, [[1, 0]]).tolist() == [[3, 2]]
    src = lt.arange(1, 11).reshape(2, 5)
    result = lt.zeros(3, 5, dtype=src.dtype).scatter_add(0, [[0, 1, 2, 0, 0]], src)
    assert result.tolist() == [[1, 0, 0, 4, 5], [0, 2, 0, 0, 0], [0, 0, 3, 0, 0]]


def test_gather_errors() -> None:
    with pytest.raises(ValueError, match=r"index of shape \(3, 1\) is larger"):
        lt.zeros(2, 2).gather(1, [[0], [0], [0]])
    with pytest.raises(IndexError, match="index 5 is out of bounds for dim 1 with size 2"):
        lt.zeros(2, 2).gather(1, [[5]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex128, object])
def test_index_add_with_grouped_targets_matches_add_at(dtype: type) -> None:
    """Non-decreasing targets take the one-pass reduceat path; it must agree with np.add.at."""
    targets = np.array([0, 0, 2, 2, 2, 3, 5, 5])
    source = np.arange(16).reshape(8, 2).astype(dtype)
    expected = np.zeros((6, 2), dtype=dtype)
    np.add.at(expected, targets, source)
    result = lt.zeros(6, 2, dtype=dtype).index_add(0, targets, lt.tensor(source, dtype=dtype))
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result.numpy(), expected)


def test_index_add_backward_with_a_read_only_reversed_index() -> None:
    """A read-only slice of a writeable array is indexed as itself, never as its base."""
    base = np.array([0, 1, 2])
    index = base[::-1]
    index.setflags(write=False)
    source = lt.tensor([1.0, 2.0, 3.0]).requires_grad_()
    out = lt.zeros(3).index_add(0, index, source * lt.tensor([1.0, 10.0, 100.0]))
    (out * lt.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert source.grad.tolist() == [3.0, 20.0, 100.0]


def _grouping_of_two() -> Any:
    from lazytensor.kernels.scatter import Grouping

    return Grouping.of(np.array([0, 0]), 1)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: scatter.gather(np.zeros((2, 2)), [[0], [0], [0]], dim=1),
            ValueError,
            "gather: index of shape (3, 1) is larger than the tensor of shape (2, 2) at dim 0",
        ),
        (
            lambda: scatter.gather(np.zeros((2, 2)), [0, 0], dim=1),
            ValueError,
            "gather: index of shape (2,) needs as many axes as the tensor of shape (2, 2)",
        ),
        (
            lambda: scatter.gather(np.zeros((2, 2)), [[5]], dim=-1),
            IndexError,
            "index 5 is out of bounds for dim 1 with size 2",
        ),
        (
            lambda: scatter.gather(np.zeros((2, 2)), [[0.5]], dim=1),
            TypeError,
            "an index along dim 1 must hold integers, got dtype float64",
        ),
        (
            lambda: scatter.scatter_add(np.zeros((2, 2)), [[0], [0], [0]], np.ones((3, 1)), dim=1),
            ValueError,
            "scatter_add: index of shape (3, 1) is larger than the tensor of shape (2, 2) at dim 0",
        ),
        (
            lambda: scatter.scatter_add(np.zeros((2, 2)), [[5]], np.ones((1, 1)), dim=-1),
            IndexError,
            "index 5 is out of bounds for dim 1 with size 2",
        ),
        (
            lambda: scatter.scatter_add(np.zeros((2, 2)), [[0.5]], np.ones((1, 1)), dim=1),
            TypeError,
            "an index along dim 1 must hold integers, got dtype float64",
        ),
        (
            lambda: scatter.scatter_add(np.zeros((2, 2)), [0], np.ones((1, 1)), dim=1),
            ValueError,
            "scatter_add: index of shape (1,) needs as many axes as the tensor of shape (2, 2)",
        ),
        (
            lambda: scatter.scatter_add(np.zeros((2, 2)), [[0, 1]], np.ones((1, 1)), dim=1),
            ValueError,
            "scatter_add: index of shape (1, 2) does not fit in source of shape (1, 1)",
        ),
        (
            lambda: scatter.scatter_add(np.zeros((2, 2)), [[0]], np.ones(1), dim=1),
            ValueError,
            "scatter_add: index of shape (1, 1) does not fit in source of shape (1,)",
        ),
        (
            lambda: scatter.index_add(np.zeros((3, 2)), [[0]], np.ones((1, 2)), dim=0),
            ValueError,
            "index_add: index must be 1-D, got shape (1, 1)",
        ),
        (
            lambda: scatter.index_add(np.zeros((3, 2)), [0, 1], np.ones((2, 3)), dim=0),
            ValueError,
            "index_add: source of shape (2, 3) does not fit a tensor of shape (3, 2) with 2 indices "
            "along dim 0 (expected (2, 2))",
        ),
        (
            lambda: scatter.index_add(np.zeros((3, 2)), [5], np.ones((3, 1)), dim=-1),
            IndexError,
            "index 5 is out of bounds for dim 1 with size 2",
        ),
        (
            lambda: scatter.segment_sum(np.ones((3, 2)), [0, 1], num_segments=2),
            ValueError,
            "segment_sum: index of shape (2,) must be 1-D with one entry per row of source of shape (3, 2)",
        ),
        (
            lambda: scatter.segment_max(np.ones((3, 2)), [[0, 1, 1]], num_segments=2),
            ValueError,
            "segment_max: index of shape (1, 3) must be 1-D with one entry per row of source of shape (3, 2)",
        ),
        (
            lambda: scatter.segment_sum(np.ones(3), [0, 5, 0], num_segments=2),
            IndexError,
            "index 5 is out of bounds for dim 0 with size 2",
        ),
        (
            lambda: scatter.segment_max(np.ones(3), [0.0, 1.0, 0.0], num_segments=2),
            TypeError,
            "an index along dim 0 must hold integers, got dtype float64",
        ),
        (
            lambda: scatter.segment_sum(np.ones(()), [0], num_segments=2),
            ValueError,
            "segment_sum: source must have one row per index, got a 0-d array",
        ),
        (
            lambda: scatter.segment_max(np.ones(3), [0, 0, 0], num_segments=True),
            ValueError,
            "segment_max: num_segments must be a non-negative integer, got True",
        ),
        (
            lambda: scatter.segment_sum(np.ones(3), [0, 0, 0], num_segments=-1),
            ValueError,
            "segment_sum: num_segments must be a non-negative integer, got -1",
        ),
        (
            lambda: scatter.segment_max(np.ones(3, dtype=complex), [0, 0, 0], num_segments=1),
            TypeError,
            "segment_max needs real numbers (bool, integer or float), got dtype complex128",
        ),
        (
            lambda: scatter.segment_sum(np.ones(3), [0, 0, 0], num_segments=1, grouping=_grouping_of_two()),
            ValueError,
            "segment_sum: a grouping of 2 indices into 1 segments does not fit source of shape (3,) "
            "into 1 segments",
        ),
    ],
)
def test_scatter_kernels_name_the_function_shapes_and_dim(
    call: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("values", "source"),
    [
        (np.int64, np.float64),
        (np.int32, np.int64),
        (np.float32, np.float64),
        (np.int64, np.int64),
        (bool, np.int8),
        (np.float64, np.int32),
        (np.int64, np.int8),
    ],
)
def test_scatter_add_and_index_add_promote_as_numpy_adds(values: type, source: type) -> None:
    """lazytensor adds as numpy does (PyTorch refuses mixed dtypes): `values + source`'s dtype."""
    t = np.zeros((2, 3), dtype=values)
    src = np.arange(1, 7).reshape(2, 3).astype(source)
    expected_dtype = np.result_type(t, src)
    scattered = scatter.scatter_add(t, [[1, 0, 1]], src, dim=0)
    assert scattered.dtype == expected_dtype
    np.testing.assert_array_equal(scattered, np.array([[0, 2, 0], [1, 0, 3]], dtype=expected_dtype))
    added = scatter.index_add(t, [1, 1], src, dim=0)
    assert added.dtype == expected_dtype
    np.testing.assert_array_equal(added, np.array([[0, 0, 0], [5, 7, 9]], dtype=expected_dtype))


def test_scatter_add_into_a_fortran_ordered_or_transposed_array() -> None:
    t = np.arange(6.0).reshape(2, 3).T  # a transposed (Fortran-ordered) view
    expected = t.copy()
    np.add.at(expected, (np.array([[2, 0]]), np.array([[0, 1]])), np.array([[10.0, 20.0]]))
    got = scatter.scatter_add(t, [[2, 0]], np.array([[10.0, 20.0]]), dim=0)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(t, np.arange(6.0).reshape(2, 3).T)  # a copy: the input is unchanged


def test_scatter_add_and_index_add_agree_in_float32_along_one_axis() -> None:
    """Along one axis the two are the same operation; float32 sums are rounded to float32 before they are
    added (1 + 2**-30 rounds to 1, and 2**-24 + 1 is then a tie that rounds to 1)."""
    t = np.array([2.0**-24, 0.0], dtype=np.float32)
    index = [0, 1, 0]
    src = np.array([1.0, 0.0, 2.0**-30], dtype=np.float32)
    scattered = scatter.scatter_add(t, index, src, dim=0)
    added = scatter.index_add(t, index, src, dim=0)
    assert scattered.dtype == added.dtype == np.float32
    np.testing.assert_array_equal(scattered, added)
    assert scattered.tolist() == [1.0, 0.0]


def test_float32_sums_are_accumulated_in_float64_and_rounded_once() -> None:
    """The module's promise: float32 rows are summed by bincount in float64, then cast back, so a sum
    is the float32 nearest the exact one (1 + 2**-24 + 2**-24 is 1 + 2**-23, where adding in float32
    rounds each step back to 1)."""
    tiny = 2.0**-24
    src = np.array([[1.0], [5.0], [tiny], [tiny]], dtype=np.float32)
    got = scatter.index_add(np.zeros((2, 1), dtype=np.float32), [0, 1, 0, 0], src, dim=0)
    assert got.dtype == np.float32
    assert got[:, 0].tolist() == [float(np.float32(1.0 + 2 * tiny)), 5.0]
    assert float(np.float32(1.0 + 2 * tiny)) == 1.0 + 2.0**-23

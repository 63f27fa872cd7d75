"""`lt.segment_sum`, `lt.segment_max`, `lt.nn.edge_softmax` and the segment sums' `Grouping` against
per-segment loops in numpy, on random multigraphs: unsorted targets, repeated edges, nodes with no
edge, a trailing heads axis, no edges at all.

Reaches into `lazytensor.kernels.scatter`: the segment sums are given a precomputed `Grouping`,
which only the message-passing code passes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.kernels import scatter
from lazytensor.kernels.scatter import Grouping


@st.composite
def segments(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    """Rows, a target per row (any order, repeats, some targets empty) and the number of targets."""
    num_segments = draw(st.integers(0, 5))
    rows = draw(st.integers(0, 9)) if num_segments else 0
    trailing = draw(st.sampled_from([(), (1,), (3,), (2, 2)]))
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.bool_]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal((rows, *trailing)) * 50).astype(dtype)
    targets = rng.integers(0, max(num_segments, 1), size=rows)
    if draw(st.booleans()):
        targets = np.sort(targets)  # already grouped: the path without a sort
    return values, targets, num_segments


def _loop_max(values: np.ndarray, targets: np.ndarray, num_segments: int) -> np.ndarray:
    if values.dtype.kind == "f":
        lowest: Any = -np.inf
    elif values.dtype.kind == "b":
        lowest = False
    else:
        lowest = np.iinfo(values.dtype).min
    out = np.full((num_segments, *values.shape[1:]), lowest, dtype=values.dtype)
    for row, target in zip(values, targets, strict=True):
        out[target] = np.maximum(out[target], row)
    return out


# 300 examples: each draws one of 5 dtypes x 4 trailing shapes x sorted or not, so every
# combination is met several times, with empty segments in most of them.
@settings(max_examples=300, deadline=None)
@given(segments())
def test_segment_max_matches_a_loop(case: tuple[np.ndarray, np.ndarray, int]) -> None:
    values, targets, num_segments = case
    got = lt.segment_max(lt.tensor(values), targets, num_segments)
    expected = _loop_max(values, targets, num_segments)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.numpy(), expected)


@settings(max_examples=300, deadline=None)
@given(segments(), st.booleans())
def test_segment_sum_matches_add_at(case: tuple[np.ndarray, np.ndarray, int], grouped: bool) -> None:
    """With or without the index's grouping, as an edge list passes it."""
    values, targets, num_segments = case
    expected = np.zeros((num_segments, *values.shape[1:]), dtype=values.dtype)
    np.add.at(expected, targets, values)
    if grouped:
        grouping = Grouping.of(targets, num_segments)
        got = scatter.segment_sum(values, targets, num_segments=num_segments, grouping=grouping)
    else:
        got = lt.segment_sum(lt.tensor(values), targets, num_segments).numpy()
    assert got.dtype == expected.dtype
    if values.dtype.kind == "f":  # summed in another order (bincount: in float64): rounding apart
        tolerance = np.finfo(values.dtype).eps * 4 * float(np.abs(values).sum())
        np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance)
    else:
        np.testing.assert_array_equal(got, expected)


def test_segment_sum_reads_views_and_passes_gradients_back_to_each_row() -> None:
    w = lt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    sums = lt.segment_sum(w.T.T[::-1], [2, 0, 2], 4)  # rows 5 6 | 3 4 | 1 2
    np.testing.assert_array_equal(sums.numpy(), [[3.0, 4.0], [0.0, 0.0], [6.0, 8.0], [0.0, 0.0]])
    (sums * lt.tensor([[1.0], [10.0], [100.0], [1000.0]])).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[100.0, 100.0], [1.0, 1.0], [100.0, 100.0]])


def test_segment_sum_with_a_grouping_checks_that_it_fits() -> None:
    grouping = Grouping.of(np.array([0, 1, 1]), 2)
    with pytest.raises(ValueError, match=r"grouping of 3 indices into 2 segments .* shape \(2, 4\)"):
        scatter.segment_sum(np.ones((2, 4)), [0, 1], num_segments=2, grouping=grouping)
    with pytest.raises(ValueError, match=r"into 3 segments"):
        scatter.segment_sum(np.ones((3, 4)), [0, 1, 1], num_segments=3, grouping=grouping)


def test_segment_max_reads_views_and_keeps_nan() -> None:
    scores = lt.tensor([[1.0, np.nan], [4.0, 2.0], [3.0, 0.0]]).T  # a transposed view, (2, 3)
    got = lt.segment_max(scores.T, lt.tensor([0, 0, 1]), 2)
    np.testing.assert_array_equal(got.numpy(), [[4.0, np.nan], [3.0, 0.0]])


@pytest.mark.parametrize(
    ("source", "index", "count", "error", "words"),
    [
        (np.ones((3, 2)), [0, 1], 2, ValueError, "index of shape (2,)"),
        (np.ones((3, 2)), [0, 1, 2], 2, IndexError, "index 2 is out of bounds"),
        (np.ones((3, 2)), [0, 1, -3], 2, IndexError, "-3"),
        (np.ones((3, 2)), [0.0, 1.0, 1.0], 2, TypeError, "integers"),
        (np.ones((3, 2)), [0, 1, 1], -1, ValueError, "-1"),
        (np.ones((3, 2)), [0, 1, 1], 2.5, ValueError, "2.5"),
        (np.array(1.0), [0], 1, ValueError, "0-d"),
        (np.ones(2, dtype=complex), [0, 0], 1, TypeError, "complex"),
    ],
)
@pytest.mark.parametrize("reduction", [lt.segment_max, lt.segment_sum])
def test_segment_reductions_name_the_bad_value(
    reduction: Any, source: np.ndarray, index: Any, count: Any, error: type[Exception], words: str
) -> None:
    if reduction is lt.segment_sum and source.dtype.kind == "c":
        assert lt.segment_sum(lt.tensor(source), index, count).tolist() == [2 + 0j]  # sums take complex
        return
    with pytest.raises(error, match=None) as raised:
        reduction(lt.tensor(source), index, count)
    assert words in str(raised.value)
    assert reduction.__name__ in str(raised.value) or error is not ValueError


def test_segment_max_negative_targets_count_from_the_end() -> None:
    assert lt.segment_max(lt.tensor([1.0, 2.0]), [-1, 0], 2).tolist() == [2.0, 1.0]


def _loop_softmax(scores: np.ndarray, dst: np.ndarray) -> np.ndarray:
    out = np.empty_like(scores)
    for node in np.unique(dst):
        into = dst == node
        shifted = np.exp(scores[into] - scores[into].max(axis=0))
        out[into] = shifted / shifted.sum(axis=0)
    return out


# 200 examples over 1-12 edges, 1-5 nodes and 0-1 heads axes reach empty nodes, single edges and
# parallel edges many times each.
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.sampled_from([(), (1,), (4,)]), st.integers(0, 2**32 - 1))
def test_edge_softmax_matches_a_loop(edges: int, nodes: int, heads: tuple[int, ...], seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal((edges, *heads)) * 30  # large spread: the shift keeps exp finite
    dst = rng.integers(0, nodes, size=edges)
    got = lt.nn.edge_softmax(lt.tensor(scores), dst, nodes).numpy()
    np.testing.assert_allclose(got, _loop_softmax(scores, dst), rtol=1e-12, atol=1e-300)
    sums = np.zeros((nodes, *heads))
    np.add.at(sums, dst, got)
    np.testing.assert_allclose(sums[np.unique(dst)], 1.0)


def test_edge_softmax_stays_finite_for_huge_scores() -> None:
    got = lt.nn.edge_softmax(lt.tensor([1000.0, 999.0, -1000.0]), [0, 0, 1], 2).numpy()
    np.testing.assert_allclose(got, [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 1.0])


def test_edge_softmax_with_no_edges_is_empty() -> None:
    got = lt.nn.edge_softmax(lt.zeros(0, 3), np.zeros(0, dtype=int), 4)
    assert got.shape == (0, 3)


def test_edge_softmax_detaches_only_the_shift() -> None:
    """The gradient flows through exp, the sum and the division; the detached maximum adds nothing,
    so a weighted sum's gradient on a lone edge is exactly 0 (its weight is always 1)."""
    scores = lt.tensor([2.0, -1.0, 0.5], requires_grad=True)
    weights = lt.nn.edge_softmax(scores, [0, 1, 1], 2)
    (weights * lt.tensor([3.0, 1.0, 2.0])).sum().backward()
    assert scores.grad is not None
    p = weights.numpy()[1:]
    expected = p * (np.array([1.0, 2.0]) - (p * np.array([1.0, 2.0])).sum())
    np.testing.assert_allclose(scores.grad.numpy(), [0.0, *expected])


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 8),
    st.integers(1, 5),
    st.sampled_from([np.float32, np.float64, np.int64, np.complex128, object]),
    st.sampled_from([(), (3,), (2, 2)]),
    st.integers(0, 2**32 - 1),
)
def test_a_grouping_sums_like_add_at(
    length: int, count: int, dtype: type, trailing: tuple[int, ...], seed: int
) -> None:
    """`Grouping.of(targets).sum(rows)`, sorted or not, with missing segments and trailing axes, is
    `np.add.at` into zeros; `segment_sum` given the grouping agrees with `index_add` into zeros."""
    rng = np.random.default_rng(seed)
    targets = rng.integers(0, count, length)
    if rng.random() < 0.5:
        targets.sort()
    rows = rng.integers(-5, 5, (length, *trailing)).astype(dtype)
    expected = np.zeros((count, *trailing), dtype=dtype)
    np.add.at(expected, targets, rows)
    grouping = Grouping.of(targets, count)
    np.testing.assert_array_equal(grouping.sum(rows), expected)
    np.testing.assert_array_equal(
        scatter.segment_sum(rows, targets, num_segments=count, grouping=grouping),
        scatter.index_add(np.zeros((count, *trailing), dtype=dtype), targets, rows, dim=0),
    )

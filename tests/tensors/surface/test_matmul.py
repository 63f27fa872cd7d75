"""matmul / @ with numpy's rules, on views, for numeric and object dtypes; the seeds' examples."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import view_pairs

import lazytensor as lt

FAST = settings(max_examples=40, deadline=None)


@st.composite
def matmul_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Operand shapes numpy's matmul accepts: 1-D or matrices with broadcast batch axes."""
    n, k, m = (draw(st.integers(0, 3)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    left_batch = tuple(draw(st.sampled_from([size, 1])) for size in batch)
    left = (k,) if draw(st.booleans()) else (*left_batch, n, k)
    right = (k,) if draw(st.booleans()) else (*batch, k, m)
    return left, right


@FAST
@given(data=st.data(), shapes=matmul_shapes(), dtype=st.sampled_from([np.float64, np.int32, np.complex64]))
def test_matmul_matches_numpy_on_views(
    data: st.DataObject, shapes: tuple[tuple[int, ...], tuple[int, ...]], dtype: Any
) -> None:
    ta, a = data.draw(view_pairs(shapes[0], dtype))
    tb, b = data.draw(view_pairs(shapes[1], dtype))
    expected = np.asarray(np.matmul(a, b))
    for result in [ta @ tb, ta.matmul(tb), ta @ b, a @ tb]:
        assert isinstance(result, lt.StorageTensor)
        assert result.shape == expected.shape and result.dtype == expected.dtype
        np.testing.assert_allclose(result.numpy(), expected, rtol=1e-5)


def test_seed_tmatmul_example() -> None:
    a = lt.tensor([1, 2, 3, 2, 4, 6]).reshape(2, 3)
    b = lt.tensor([1, 4, 2, 5, 3, 6]).reshape(3, 2)
    assert lt.array_equal(a @ b, lt.tensor([14, 32, 28, 64]).reshape(2, 2))


def test_seed_matmul_built_from_tpoint_and_tredux() -> None:
    """The seeds' batched matmul: an unsqueezed product, then a sum over the shared axis."""
    a = lt.tensor([[1, 2, 3], [2, 4, 6]])
    b = lt.tensor([[1, 4], [2, 5], [3, 6]])
    products = lt.tpoint(a.unsqueeze(-1), b.unsqueeze(-3), lambda x, y: x * y)
    assert lt.tredux(products, -2, 0, lambda x, y: x + y).tolist() == (a @ b).tolist()


def test_seed_pointlessly_convoluted_example() -> None:
    t1 = lt.tensor(list(range(20))).reshape(4, 5)
    a = t1.slice([[1, 3], slice(0, 5, 2)])
    assert a.tolist() == [[5, 7, 9], [15, 17, 19]]
    at = a.mT
    assert at.tolist() == [[5, 15], [7, 17], [9, 19]]
    b = t1.slice([[1, 1], slice(4)])
    assert b.tolist() == [[5, 6, 7, 8], [5, 6, 7, 8]]
    bt = b.swapaxes(0, 1)
    assert bt.tolist() == [[5, 5], [6, 6], [7, 7], [8, 8]]
    tr = at.matmul(bt.view(2, 4))
    assert tr.tolist() == [[130, 130, 150, 150], [154, 154, 178, 178], [178, 178, 206, 206]]
    assert at.shares_storage(t1) and bt.shares_storage(t1) and not tr.shares_storage(t1)


def test_matmul_of_fractions_is_exact() -> None:
    a = lt.tensor([[Fraction(1, 3), Fraction(1, 2)], [Fraction(1, 5), Fraction(1, 7)]])
    assert (a @ a).tolist() == [[Fraction(19, 90), Fraction(5, 21)], [Fraction(2, 21), Fraction(59, 490)]]
    assert (a @ a.T[:, 0]).tolist() == [Fraction(13, 36), Fraction(1, 6) * Fraction(2, 5) + Fraction(1, 14)]


def test_matmul_shape_errors_name_both_shapes() -> None:
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(2, 3\)"):
        lt.zeros(2, 3) @ lt.zeros(2, 3)
    with pytest.raises(ValueError, match=r"\(\) and \(3,\)"):
        lt.tensor(2.0) @ lt.zeros(3)
    with pytest.raises(ValueError, match=r"\(2, 2, 3\) and \(3, 3, 1\)"):
        lt.zeros(2, 2, 3) @ lt.zeros(3, 3, 1)

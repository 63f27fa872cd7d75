"""Elementwise functions, where/maximum/minimum, and cat/stack/equal/allclose."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import DTYPES, broadcastable_shapes, shapes, view_pairs

import lazytensor as lt

FAST = settings(max_examples=40, deadline=None)


@FAST
@given(data=st.data(), shape=shapes, dtype=st.sampled_from([np.float32, np.float64, np.int32, np.uint16]))
def test_elementwise_functions_match_numpy(data: st.DataObject, shape: tuple[int, ...], dtype: Any) -> None:
    t, a = data.draw(view_pairs(shape, dtype))
    with np.errstate(all="ignore"):
        for name in ["exp", "log", "sqrt", "tanh"]:
            np.testing.assert_allclose(getattr(t, name)().numpy(), getattr(np, name)(a), rtol=1e-6)
        np.testing.assert_allclose(t.sigmoid().numpy(), 1 / (1 + np.exp(-a.astype(np.float64))), rtol=1e-6)
    relu = t.relu()
    assert relu.dtype == a.dtype
    np.testing.assert_array_equal(relu.numpy(), np.maximum(a, 0))
    np.testing.assert_array_equal(t.abs().numpy(), np.abs(a))
    np.testing.assert_array_equal(t.clip(-1, 2).numpy(), np.clip(a, -1, 2))
    np.testing.assert_array_equal(t.clip(hi=1).numpy(), np.clip(a, None, 1))


def test_sigmoid_keeps_float32_and_is_stable() -> None:
    result = lt.tensor([-1000.0, 0.0, 1000.0], dtype=np.float32).sigmoid()
    assert result.dtype == np.float32 and result.tolist() == [0.0, 0.5, 1.0]


def test_object_elementwise_functions_use_decimal_methods() -> None:
    t = lt.tensor([Decimal(2)])
    assert t.sqrt().item() == Decimal(2).sqrt()
    assert t.exp().item() == Decimal(2).exp()
    assert t.log().item() == Decimal(2).ln()
    assert lt.tensor([Fraction(1, 4)]).sqrt().item() == 0.5
    assert lt.tensor([Fraction(-1, 4), Fraction(1, 3)]).relu().tolist() == [0, Fraction(1, 3)]


@FAST
@given(data=st.data(), shape_pair=broadcastable_shapes(), dtype=st.sampled_from(DTYPES))
def test_where_maximum_minimum_broadcast_like_numpy(
    data: st.DataObject, shape_pair: tuple[tuple[int, ...], tuple[int, ...]], dtype: Any
) -> None:
    ta, a = data.draw(view_pairs(shape_pair[0], dtype))
    tb, b = data.draw(view_pairs(shape_pair[1], dtype))
    for result, expected in [
        (lt.where(ta != 0, ta, tb), np.where(a != 0, a, b)),
        (lt.maximum(ta, tb), np.maximum(a, b)),
        (lt.minimum(ta, b), np.minimum(a, b)),
    ]:
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_array_equal(result.numpy(), expected)


def test_where_shape_error_names_the_shapes() -> None:
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        lt.where(lt.ones(2) > 0, lt.zeros(3), 1.0)


def test_cat_and_stack_make_new_storage() -> None:
    a, b = lt.arange(6).reshape(2, 3), lt.arange(6, 12).reshape(2, 3)
    joined = lt.cat([a, b.T.T, a[[1]]])
    assert joined.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [3, 4, 5]]
    assert not joined.shares_storage(a)
    assert lt.cat([a, b], dim=-1).shape == (2, 6)
    assert lt.stack([a, b]).shape == (2, 2, 3)
    assert lt.stack([a, b], dim=-1).tolist() == np.stack([a.numpy(), b.numpy()], axis=-1).tolist()
    assert lt.cat([lt.zeros(0, 3), a.T.T]).shape == (2, 3)


def test_cat_and_stack_errors() -> None:
    with pytest.raises(ValueError, match=r"shape \(2, 3\) and tensor 1 of shape \(2, 4\)"):
        lt.cat([lt.zeros(2, 3), lt.zeros(2, 4)])
    with pytest.raises(ValueError, match=r"shape \(2, 3\) and tensor 1 of shape \(3, 2\)"):
        lt.stack([lt.zeros(2, 3), lt.zeros(3, 2)])
    with pytest.raises(np.exceptions.AxisError, match="axis 2"):
        lt.cat([lt.zeros(2, 3)], dim=2)
    with pytest.raises(TypeError):
        lt.cat([])


def test_equal_and_allclose() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    assert lt.equal(t.T.T, t).tolist() == [[True] * 3] * 2  # elementwise, as numpy's equal
    assert lt.equal(t, t + (t > 2)).tolist() == [[True, True, True], [False, False, False]]
    with pytest.raises(ValueError, match="cannot be broadcast"):
        lt.equal(t, t.T)
    assert lt.array_equal(t.T.T, t) and not lt.array_equal(t, t.T) and not lt.array_equal(t, t + 1)
    assert lt.allclose(t, t + 1e-9) and not lt.allclose(t, t + 1e-3)
    assert lt.allclose(lt.tensor([Fraction(1, 3)]), [1 / 3])
    assert lt.allclose(lt.tensor([Decimal("0.1")]), lt.tensor([Decimal("0.1000000000001")]))
    assert not lt.allclose(lt.tensor([Decimal("0.1")]), lt.tensor([Decimal("0.2")]))

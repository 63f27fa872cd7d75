"""bfloat16 (the Go seed's DT_BF16) through views and operators, against numpy with ml_dtypes."""

from __future__ import annotations

import operator

import ml_dtypes
import numpy as np
import pytest

import lazytensor as lt

BF16 = np.dtype(ml_dtypes.bfloat16)
VALUES = np.array([[1.5, -2.25, 3.0, 0.25], [4.5, 0.125, -1.0, 8.0], [2.0, 2.0, -0.5, 1.75]])


def pair() -> tuple[lt.AbstractTensor, np.ndarray]:
    """A transposed, negatively stepped view of bfloat16 values, and numpy's same view."""
    array = VALUES.astype(BF16)
    return lt.tensor(VALUES, dtype="bfloat16").T[::-1], array.T[::-1]


def test_the_dtype_name_and_views() -> None:
    t, ref = pair()
    assert t.dtype == BF16
    np.testing.assert_array_equal(t.numpy(), ref)
    assert np.shares_memory(t.numpy(), t.storage)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv])
def test_arithmetic(op) -> None:
    t, ref = pair()
    result = op(t, t[:, :1])
    assert result.dtype == BF16
    np.testing.assert_array_equal(result.numpy(), op(ref, ref[:, :1]))


@pytest.mark.parametrize("name", ["sum", "max", "min"])
def test_reductions(name) -> None:
    t, ref = pair()
    np.testing.assert_array_equal(getattr(t, name)(0).numpy(), getattr(ref, name)(0))


def test_exp_and_matmul() -> None:
    t, ref = pair()
    np.testing.assert_array_equal(t.exp().numpy(), np.exp(ref))
    np.testing.assert_array_equal((t.T @ t).numpy(), ref.T @ ref)

"""`sum` and `prod` with a wider `dtype=` accumulate in that dtype, as numpy's do: the elements are
converted before they are combined, so a product that overflows its input's dtype does not overflow."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt

CASES = [
    (np.array([2**40, 2**40, 3], dtype=np.int64), np.float64),  # 2**80 wraps round in int64
    (np.array([[1e30, 1e30], [3e20, 2e25]], dtype=np.float32), np.float64),  # inf in float32
    (np.array([0.1, 0.7, 0.3, 0.9], dtype=np.float32), np.float64),  # rounded at each step in float32
    (np.array([2**62, 2**62, 7], dtype=np.int64), np.float64),
]


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize(("values", "dtype"), CASES)
@pytest.mark.parametrize(("ours", "theirs"), [(lt.prod, np.prod), (lt.sum, np.sum)])
def test_a_wider_dtype_is_the_accumulators(values: np.ndarray, dtype: Any, ours: Any, theirs: Any) -> None:
    for axis in (None, -1):
        got = ours(lt.tensor(values), axis=axis, dtype=dtype)
        np.testing.assert_array_equal(got.numpy(), theirs(values, axis=axis, dtype=dtype), strict=True)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize(("values", "dtype"), CASES)
@pytest.mark.parametrize(
    ("ours", "theirs"), [(lt.cumulative_prod, np.cumprod), (lt.cumulative_sum, np.cumsum)]
)
def test_a_running_total_in_a_wider_dtype_is_the_accumulators(
    values: np.ndarray, dtype: Any, ours: Any, theirs: Any
) -> None:
    got = ours(lt.tensor(values), axis=-1, dtype=dtype)
    np.testing.assert_array_equal(got.numpy(), theirs(values, axis=-1, dtype=dtype), strict=True)

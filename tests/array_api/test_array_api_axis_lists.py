"""Axes given as a list (any sequence of ints, as the signatures say) work as numpy's tuple of the
same axes, in every array API function that takes several axes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt

VALUES = (np.arange(24.0).reshape(2, 3, 4) * 7 % 5) - 1
"""Zeros among other small values, so `count_nonzero`, `all` and `any` see both."""

REDUCTIONS = [
    (lt.sum, np.sum),
    (lt.prod, np.prod),
    (lt.mean, np.mean),
    (lt.max, np.max),
    (lt.min, np.min),
    (lt.all, np.all),
    (lt.any, np.any),
    (lt.count_nonzero, np.count_nonzero),
    (lt.var, np.var),
    (lt.std, np.std),
]


@pytest.mark.parametrize("axes", [[0, 2], [-1], [2, 0], []])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize(("ours", "theirs"), REDUCTIONS)
def test_a_reduction_over_a_list_of_axes_is_numpys_over_the_tuple(
    ours: Any, theirs: Any, axes: list[int], keepdims: bool
) -> None:
    got = ours(lt.tensor(VALUES), axis=axes, keepdims=keepdims)
    np.testing.assert_allclose(got.numpy(), theirs(VALUES, axis=tuple(axes), keepdims=keepdims), strict=True)


@pytest.mark.parametrize("axes", [[0, 2], [-1], []])
def test_flip_and_roll_over_a_list_of_axes_are_numpys(axes: list[int]) -> None:
    np.testing.assert_array_equal(lt.flip(VALUES, axis=axes).numpy(), np.flip(VALUES, axis=tuple(axes)))
    shifts = [1 + i for i in range(len(axes))]
    np.testing.assert_array_equal(
        lt.roll(VALUES, shifts, axis=axes).numpy(), np.roll(VALUES, tuple(shifts), axis=tuple(axes))
    )

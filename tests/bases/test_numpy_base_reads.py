"""A read of a tensor over a numpy array (`lt.from_array`) gives fresh values, as `np.array(view)`
does: writing into what was read leaves the array alone, and a later write to the array leaves
what was read alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt


@pytest.mark.parametrize(
    "view",
    [
        lambda t: t,
        lambda t: t.T,
        lambda t: t[1:, ::2],
        lambda t: t[:, 1],
        lambda t: t[::-1],
        lambda t: t[[2, 0, 2]],
    ],
)
def test_values_read_from_a_numpy_base_are_a_copy(view: Any) -> None:
    array = np.arange(12.0).reshape(3, 4)
    expected = np.array(view(array))
    got = view(lt.from_array(array)).numpy()
    np.testing.assert_array_equal(got, expected)
    assert not np.shares_memory(got, array)
    got[...] = -1.0
    np.testing.assert_array_equal(view(array), expected)
    array[...] = 7.0
    assert (got == -1.0).all()

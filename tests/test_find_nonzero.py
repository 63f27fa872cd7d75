"""`nonzero` and `count_nonzero` of the values a tensor reads: numpy's answer, and numpy's refusal of
a 0-d array in full."""

from __future__ import annotations

import numpy as np
import pytest

from lazytensor import find_nonzero


def test_nonzero_of_a_0d_array_is_refused_as_numpy_asks() -> None:
    with pytest.raises(ValueError) as info:
        find_nonzero.nonzero(np.array(1.0))
    assert str(info.value) == "nonzero of a 0-d array: index it as a[None] first, as numpy asks"


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_nonzero_and_count_agree_with_numpy(shape) -> None:
    values = (np.arange(np.prod(shape)).reshape(shape) % 3 == 1).astype(np.int8)
    for got, want in zip(find_nonzero.nonzero(values), np.nonzero(values), strict=True):
        np.testing.assert_array_equal(got, want)
    assert find_nonzero.count_nonzero(values) == np.count_nonzero(values)

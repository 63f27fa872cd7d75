"""`nonzero` and `count_nonzero` of the values a tensor reads: numpy's answer, and numpy's refusal of
a 0-d array in full.

Reaches into `lazytensor.ground.find_nonzero`: the block size is lowered to take every blocked path,
on plain arrays.
"""

from __future__ import annotations

import numpy as np
import pytest

from lazytensor.ground import find_nonzero


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


def _arrays():
    rng = np.random.default_rng(1)
    dense = (rng.random((7, 5, 3)) < 0.4).astype(np.int8)
    row = np.array([0, 2, 0, 3, 1])
    yield "dense 3-d", dense
    yield "dense 2-d", dense[:, :, 0]
    yield "repeated first axis", np.broadcast_to(row, (9, 5))
    yield "repeated twice", np.broadcast_to(row, (2, 5))
    yield "repeated middle axis", np.broadcast_to(dense[:, None, :, 0], (7, 3, 5))
    yield "repeated zeros", np.broadcast_to(np.zeros(5), (6, 5))
    yield "repeated outer of dense", np.broadcast_to(dense, (3, 7, 5, 3))
    yield "long rows", dense.reshape(7, 15)


@pytest.mark.parametrize("block", [1, 2, 4, 6, 16])
@pytest.mark.parametrize(("name", "values"), list(_arrays()))
def test_blocked_nonzero_and_count_agree_with_numpy(block, name, values, monkeypatch) -> None:
    """Small blocks take every blocked path (repeated axes, several rows a block, a row a block)."""
    monkeypatch.setattr(find_nonzero, "BLOCK", block)
    assert find_nonzero.count_nonzero(values) == np.count_nonzero(values)
    got = find_nonzero.nonzero(values)
    assert len(got) == values.ndim
    for axis, want in zip(got, np.nonzero(values), strict=True):
        np.testing.assert_array_equal(axis, want)

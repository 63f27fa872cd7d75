"""The lazy (dask) array of a view: a dask base gives one for every view (an empty one too, and a view
of an array bigger than memory without an index array), an in-memory base gives none.

The lazy array is read from the private `_lazy_values` (what the chunked forms build on), which no
public method hands out; its type is checked against dask's own `Array`.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import lazytensor as lt


def test_a_numpy_backed_tensor_has_no_lazy_array() -> None:
    t = lt.from_array(np.arange(6.0).reshape(2, 3))
    with pytest.raises(AttributeError) as caught:
        _ = t.T._lazy_values
    assert str(caught.value) == "a numpy-backed tensor has no lazy (dask) array"
    assert t.T.__dask_graph__() is None


@pytest.mark.parametrize("empty", [np.s_[:0], np.s_[3:1], np.s_[1:3:-1]])
def test_an_empty_view_of_a_dask_base_is_a_dask_array_too(empty: slice) -> None:
    t = lt.from_array(da.arange(6, chunks=2))
    view = t[empty]
    lazy = view._lazy_values
    assert isinstance(lazy, da.Array)
    assert lazy.shape == (0,) and lazy.dtype == np.dtype(np.int64)
    assert (view * 2).base.layer_name == "Dask"
    got = view.numpy()
    assert got.shape == (0,) and got.dtype == np.dtype(np.int64)


def test_a_view_of_a_dask_array_bigger_than_memory_builds_no_index_array() -> None:
    # 2**50 elements: an index array of the view's positions would need 4 PiB
    t = lt.from_array(da.zeros((2**25, 2**25), chunks=2**20))
    lazy = t.T[::2, 1:]._lazy_values
    assert isinstance(lazy, da.Array) and lazy.shape == (2**24, 2**25 - 1)

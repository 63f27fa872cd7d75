"""dask's token of a tensor (`dask.base.tokenize`): a dask-backed tensor's is its lazy array's, so two
tensors over the same dask computation share it; an in-memory tensor, whose values can change under
it, is known by identity: its own token every time, another tensor's never."""

from __future__ import annotations

import dask.array as da
import dask.base as dask_base
import numpy as np

import lazytensor as lt


def test_a_dask_backed_tensor_has_its_lazy_array_s_token() -> None:
    lazy = da.from_array(np.arange(12.0).reshape(3, 4), chunks=2)
    t = lt.from_array(lazy)
    assert dask_base.tokenize(t.T) == dask_base.tokenize(lazy.T)
    assert dask_base.tokenize(t.T) == dask_base.tokenize(t.T)  # two views, one computation
    assert dask_base.tokenize(t.T) != dask_base.tokenize(t)


def test_an_in_memory_tensor_is_known_by_identity() -> None:
    a = lt.arange(3.0)
    same_values = lt.arange(3.0)
    assert dask_base.tokenize(a) == dask_base.tokenize(a)
    assert dask_base.tokenize(a) != dask_base.tokenize(same_values)
    assert dask_base.tokenize(a.T) != dask_base.tokenize(a)

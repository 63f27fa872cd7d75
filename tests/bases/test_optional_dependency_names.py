"""A missing optional dependency is named by its package, with the extra that installs it, even when
the import that failed is one of its submodules (dask installed without `dask.array`'s needs).

Reaches into `lazytensor.bases.arraylike`: `require` is called with a submodule that fails to
import, which no installed dependency does.
"""

from __future__ import annotations

import numpy as np
import pytest
import zarr
from import_support import refuse_import

import lazytensor as lt
from lazytensor.bases import arraylike

_MESSAGE = "this needs the optional dependency dask: from a lazytensor checkout, pip install -e '.[dask]'"


def test_a_missing_submodule_is_named_by_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_import(monkeypatch, "dask.array")
    with pytest.raises(ImportError) as caught:
        arraylike.require("dask.array", "dask")
    assert str(caught.value) == _MESSAGE
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_running_sum_on_zarr_without_dask_array_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = zarr.create_array(store={}, shape=(4,), dtype="f8", chunks=(2,))
    stored[...] = np.arange(4.0)
    t = lt.from_array(stored)
    refuse_import(monkeypatch, "dask.array")
    assert (t * 2).tolist() == [0.0, 2.0, 4.0, 6.0]  # elementwise: a computed tensor, no dask needed
    assert t.sum().item() == 6.0 and t.mean(0).item() == 1.5  # reductions stream: no dask needed
    with pytest.raises(ImportError) as caught:
        _ = t.cumsum()  # a running sum runs through dask's chunked form
    assert str(caught.value) == _MESSAGE

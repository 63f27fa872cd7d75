"""A missing optional dependency is named by its package, with the extra that installs it, even when
the import that failed is one of its submodules (dask installed without `dask.array`'s needs)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
import zarr

import lazytensor as lt
from lazytensor import bases

_MESSAGE = "this needs the optional dependency dask: from a lazytensor checkout, pip install -e '.[dask]'"


def _without_dask_array(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without(name: str, *args: Any) -> Any:
        if name == "dask.array":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without)


def test_a_missing_submodule_is_named_by_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_dask_array(monkeypatch)
    with pytest.raises(ImportError) as caught:
        bases.require("dask.array", "dask")
    assert str(caught.value) == _MESSAGE
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_an_operation_on_zarr_without_dask_array_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = zarr.create_array(store={}, shape=(4,), dtype="f8", chunks=(2,))
    stored[...] = np.arange(4.0)
    t = lt.from_array(stored)
    _without_dask_array(monkeypatch)
    with pytest.raises(ImportError) as caught:
        _ = t * 2
    assert str(caught.value) == _MESSAGE

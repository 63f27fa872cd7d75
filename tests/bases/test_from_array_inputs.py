"""What `lt.from_array` takes: names given win over a dask-backed DataArray's dims, an array that
happens to have a `data_vars` attribute is still an array, and what is no array at all is refused
for its missing shape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import xarray as xr

import lazytensor as lt


def test_names_given_win_over_the_dims_of_a_dataarray_over_dask() -> None:
    array = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("trial", "time")).chunk({"trial": 1})
    t = lt.from_array(array, names=("x", None))
    assert t.base.layer_name == "Dask" and t.names == ("x", None)
    assert t.tolist() == array.values.tolist()


class WithDataVars(np.ndarray):
    """An array that also carries a `data_vars` attribute (as a caller's own class might)."""

    data_vars: Any = ("a", "b")


def test_an_array_with_a_data_vars_attribute_is_still_an_array() -> None:
    array = np.arange(6).reshape(2, 3).view(WithDataVars)
    t = lt.from_array(array, names=("row", "col"))
    assert t.shape == (2, 3) and t.names == ("row", "col")
    assert t.T.tolist() == np.arange(6).reshape(2, 3).T.tolist()


@pytest.mark.parametrize("value", [[1, 2, 3], object(), 5])
def test_what_has_no_shape_is_refused_as_no_array(value: Any) -> None:
    with pytest.raises(TypeError) as caught:
        lt.from_array(value)
    assert str(caught.value) == (
        f"an array base needs shape, dtype and __getitem__; {type(value).__name__} has no shape"
    )

"""What an array base takes from its array when it is made: the dtype as numpy names it (native byte
order by name, a foreign one kept), and every axis numpy can index, up to the longest."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import zarr

import lazytensor as lt

LONGEST = int(np.iinfo(np.intp).max)


def test_a_native_dtype_is_named_as_numpy_names_it() -> None:
    stored = zarr.create_array(store={}, shape=(3,), dtype="<f4", chunks=(2,))
    assert stored.dtype.byteorder == "<"  # zarr spells the byte order out
    t = lt.from_array(stored)
    assert repr(t.dtype) == repr(np.zeros(3, dtype="<f4").dtype) == "dtype('float32')"
    assert repr(t.T.dtype) == "dtype('float32')"


@pytest.mark.parametrize("dtype", [">f4", ">i8", ">c16"])
def test_a_foreign_byte_order_is_kept_as_numpy_keeps_it(dtype: str) -> None:
    values = np.arange(6).astype(dtype).reshape(2, 3)
    t = lt.from_array(values)
    assert t.dtype == values.dtype and t.dtype.byteorder == ">"
    got = t.T.numpy()
    assert got.dtype == values.T.dtype
    np.testing.assert_array_equal(got, values.T)


class _Longest:
    """An array-like whose one axis is as long as numpy can index; element i is i % 1000."""

    shape = (LONGEST,)
    dtype = np.dtype(np.int64)

    def __getitem__(self, key: Any) -> np.ndarray:
        (index,) = key
        if isinstance(index, slice):
            return np.arange(*index.indices(LONGEST), dtype=np.int64) % 1000
        return np.asarray(index % 1000, dtype=np.int64)


def test_an_axis_as_long_as_numpy_can_index_is_taken() -> None:
    t = lt.from_array(_Longest())
    assert t.shape == (LONGEST,)
    assert t[5].item() == 5 and t[-1].item() == (LONGEST - 1) % 1000
    assert t[LONGEST - 3 :].tolist() == [(LONGEST - 3 + i) % 1000 for i in range(3)]

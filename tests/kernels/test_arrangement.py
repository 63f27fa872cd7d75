"""The copying kernels of `lazytensor.kernels.routines` against numpy: a C-contiguous copy, and each part
of `np.unique`.

Reaches into `lazytensor.kernels.routines`: the copying kernels are checked on numpy arrays, below
every door.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lazytensor.kernels import routines

ARRAYS = hnp.arrays(
    dtype=st.sampled_from([np.int8, np.float64, np.bool_]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    elements={"allow_nan": False},
)


@given(array=ARRAYS, step=st.sampled_from([1, -1, 2]))
def test_copy_is_a_new_c_contiguous_array_of_the_same_values(array: np.ndarray, step: int) -> None:
    view = array.T[::step] if array.ndim else array
    copied = routines.copy(view)
    np.testing.assert_array_equal(copied, view)
    assert copied.dtype == view.dtype and copied.flags.c_contiguous and copied.flags.owndata
    assert not np.shares_memory(copied, array)


@given(array=ARRAYS)
def test_each_part_of_unique_is_numpys(array: np.ndarray) -> None:
    np.testing.assert_array_equal(routines.unique(array), np.unique(array))
    np.testing.assert_array_equal(routines.unique(array, "values"), np.unique(array))
    _, index, inverse, counts = np.unique(array, return_index=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(routines.unique(array, "index"), index)
    np.testing.assert_array_equal(routines.unique(array, "inverse"), inverse)
    np.testing.assert_array_equal(routines.unique(array, "counts"), counts)
    assert routines.unique(array, "inverse").shape == np.unique(array, return_inverse=True)[1].shape


def test_unique_reads_a_list_as_numpy_does() -> None:
    assert routines.unique([3, 1, 3], "counts").tolist() == [1, 2]  # type: ignore[arg-type]
    assert routines.unique([3, 1, 3], "index").tolist() == [1, 0]  # type: ignore[arg-type]
    assert routines.unique([[3, 1], [3, 0]], "inverse").tolist() == [[2, 1], [2, 0]]  # type: ignore[arg-type]

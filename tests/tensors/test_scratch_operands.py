"""Which operand values an elementwise result may be written into (`tensor._scratch`): values read
fresh for the operation alone, of exactly the result's dtype and shape (numpy's type resolution,
Python numbers weak, bools typed), and never the storage of a tensor, whatever path the operation
takes; the result is always a C array of its own."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from memory_support import peak_bytes

import lazytensor as lt

ROWS = 40_000  # x 4 float32 columns: 640 KB, above the 256 KiB threshold
ONE_ARRAY = ROWS * 4 * 4


def _gathered(rows: int = ROWS, columns: int = 4) -> tuple[np.ndarray, lt.AbstractTensor]:
    rng = np.random.default_rng(0)
    array = rng.standard_normal((rows, columns)).astype(np.float32)
    index = rng.permutation(rows)
    return array[index], lt.from_numpy(array)[index]


@pytest.mark.parametrize(
    "other",
    [True, np.ones((1, 4), dtype=np.float32), np.float32(2.0), 2],
    ids=["bool", "a row of the same rank", "float32 scalar", "int"],
)
def test_a_gathered_operand_takes_the_result_of_the_same_dtype_and_shape(other: Any) -> None:
    """`t[index] * x` writes into the gathered values (one array, not two) whenever numpy's result has
    their dtype and shape: a bool typed as numpy types it, a row of the same rank broadcasting."""
    expected, view = _gathered()
    np.testing.assert_array_equal((view * other).numpy(), expected * other)
    assert peak_bytes(lambda: view * other) < 1.5 * ONE_ARRAY


def test_a_column_and_a_row_make_a_new_array() -> None:
    """A gathered column times a row grows to the row's width: the column cannot hold the result."""
    expected, view = _gathered(rows=2 * ROWS, columns=1)  # 320 KB: big enough to be reused
    row = np.arange(4, dtype=np.float32)
    for got, wanted in ((view * row, expected * row), (row * view, row * expected)):
        assert got.shape == (2 * ROWS, 4)
        np.testing.assert_array_equal(got.numpy(), wanted)


def test_a_result_over_a_transposed_gather_is_a_c_array_of_its_own() -> None:
    """`t[index].T * 2` reads a transposed (Fortran-ordered) array: the result is a new C array, and a
    write into it reads back."""
    expected, view = _gathered()
    result = view.T * 2
    np.testing.assert_array_equal(result.numpy(), expected.T * 2)
    assert result.numpy().flags.c_contiguous and result.is_contiguous()
    result[0, 0] = -1.0
    assert result[0, 0] == -1.0 and result.numpy()[0, 0] == -1.0


@pytest.mark.parametrize("path", ["named", "no_grad"])
def test_an_operation_on_big_storage_leaves_the_storage_alone(path: str) -> None:
    """A big tensor over memory that takes the general path (named axes; or a leaf that requires grad,
    under `no_grad()`) reads its storage itself: the result must be new memory."""
    values = np.arange(ROWS * 4, dtype=np.float32).reshape(ROWS, 4)
    if path == "named":
        t = lt.tensor(values, names=("row", "col"))
        result = t * 2
    else:
        t = lt.tensor(values, requires_grad=True)
        with lt.no_grad():
            result = t * 2
    np.testing.assert_array_equal(t.numpy(), values)
    np.testing.assert_array_equal(result.numpy(), values * 2)
    assert not result.shares_storage(t)

"""The dask forms of the array API's kernels give numpy's answer for every parameter, and stay lazy.

`test_every_base.py` runs each function once per base; these run the chunked forms that lazytensor
writes itself (dask has no `vector_norm`, `cross` or `count_nonzero` as the standard means them)
through every order, axis and `keepdims`, and through `apply` with the parameters left out, where
the chunked form must take the numpy kernel's defaults.

Reaches into `lazytensor.engine.optable` and `lazytensor.tensors`' `apply`: the table's entries run
with their parameters left out, a door no public function opens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bases_support import on_base

import lazytensor as lt
from lazytensor.engine import optable
from lazytensor.tensors.apply import apply

VALUES = np.array([[[3.0, -4.0, 0.0], [0.5, 0.0, -2.0]], [[1.0, 1.0, -1.0], [0.0, 0.0, 0.0]]])


def _same_lazily(got: lt.AbstractTensor, expected: Any) -> None:
    assert got.base.defers_operations  # still a dask collection: nothing computed yet
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, strict=True)


@pytest.mark.parametrize("order", [np.inf, -np.inf, 0, 1, 2, 3, -1.5])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_of_a_dask_tensor_is_numpys(
    tmp_path: Path, order: float, axis: int | tuple[int, ...] | None, keepdims: bool
) -> None:
    with np.errstate(divide="ignore"):  # negative orders of zeros: inf, as numpy's
        expected = np.linalg.vector_norm(VALUES, ord=order, axis=axis, keepdims=keepdims)
        got = lt.linalg.vector_norm(
            on_base("dask", VALUES, tmp_path), ord=order, axis=axis, keepdims=keepdims
        )
        _same_lazily(got, expected)


@pytest.mark.parametrize("axis", [None, 1, (0, -1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_nonzero_of_a_dask_tensor_is_numpys(
    tmp_path: Path, axis: int | tuple[int, ...] | None, keepdims: bool
) -> None:
    got = lt.count_nonzero(on_base("dask", VALUES, tmp_path), axis=axis, keepdims=keepdims)
    _same_lazily(got, np.asarray(np.count_nonzero(VALUES, axis=axis, keepdims=keepdims), dtype=np.int64))


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_cross_of_dask_tensors_along_any_axis_is_numpys(tmp_path: Path, axis: int) -> None:
    a = np.moveaxis(VALUES, -1, axis)
    b = np.moveaxis(VALUES[::-1] + 1.0, -1, axis)
    got = lt.linalg.cross(on_base("dask", a, tmp_path), on_base("dask", b, tmp_path), axis=axis)
    _same_lazily(got, np.linalg.cross(a, b, axis=axis))


def test_take_of_a_dask_tensor_without_an_axis_takes_from_the_flattened_values(tmp_path: Path) -> None:
    got = lt.take(on_base("dask", VALUES, tmp_path), lt.tensor([11, 0, 4]))
    _same_lazily(got, np.take(VALUES, [11, 0, 4]))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_in_a_dask_tensor_takes_side_and_sorter(tmp_path: Path, side: str) -> None:
    unsorted = np.array([5.0, 1.0, 3.0, 3.0])
    sorter = np.argsort(unsorted)
    got = lt.searchsorted(
        on_base("dask", unsorted, tmp_path), lt.tensor([3.0, 0.0, 6.0]), side=side, sorter=lt.tensor(sorter)
    )
    assert got.base.defers_operations
    np.testing.assert_array_equal(
        got.numpy(), np.searchsorted(unsorted, [3.0, 0.0, 6.0], side=side, sorter=sorter)
    )


@pytest.mark.parametrize(
    ("name", "operands", "expected"),
    [
        ("vector_norm", [VALUES], np.linalg.vector_norm(VALUES)),
        ("count_nonzero", [VALUES], np.asarray(np.count_nonzero(VALUES), dtype=np.int64)),
        ("cross", [VALUES, VALUES[::-1] + 1.0], np.linalg.cross(VALUES, VALUES[::-1] + 1.0)),
    ],
)
@pytest.mark.parametrize("base", ["numpy", "dask"])
def test_a_kernel_s_left_out_parameters_take_numpys_defaults_on_every_base(
    tmp_path: Path, base: str, name: str, operands: list[Any], expected: Any
) -> None:
    got = apply(optable.TABLE[name], *(on_base(base, x, tmp_path) for x in operands))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, strict=True)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float16])
@pytest.mark.parametrize("order", [0, 1, np.inf])
def test_vector_norm_of_a_dask_tensor_keeps_numpys_dtype(tmp_path: Path, dtype: type, order: float) -> None:
    values = VALUES.astype(dtype)
    got = lt.linalg.vector_norm(on_base("dask", values, tmp_path), ord=order, axis=1)
    _same_lazily(got, np.linalg.vector_norm(values, ord=order, axis=1))

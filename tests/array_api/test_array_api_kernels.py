"""The array API kernels where numpy's broadcasting, axes and layouts matter, on memory and on dask.

`test_array_api.py` compares each function with numpy on random views; these cases are the ones
its draws rarely reach: indices that broadcast against the other axes, a vector axis that is not
the last, a cast of a transposed view, and the refusals of the dask forms.

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


@pytest.mark.parametrize(
    ("shape", "index_shape"),
    [((3, 4), (1, 2)), ((1, 4), (3, 2)), ((2, 1, 5), (1, 3, 2))],
)
def test_take_along_axis_broadcasts_the_other_axes_as_numpy(
    shape: tuple[int, ...], index_shape: tuple[int, ...]
) -> None:
    values = np.arange(np.prod(shape), dtype=float).reshape(shape)
    index = np.random.default_rng(7).integers(0, shape[-1], size=index_shape)
    got = lt.take_along_axis(lt.tensor(values), lt.tensor(index), axis=-1)
    expected = np.take_along_axis(values, index, axis=-1)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected, strict=True)


@pytest.mark.parametrize("axis", [0, -2, 1])
def test_cross_takes_its_vectors_along_any_axis(axis: int) -> None:
    rng = np.random.default_rng(3)
    shape = [2, 2]
    shape.insert(axis % 3, 3)
    a, b = rng.normal(size=shape), rng.normal(size=shape)
    got = lt.linalg.cross(lt.tensor(a), lt.tensor(b), axis=axis)
    np.testing.assert_allclose(got.numpy(), np.linalg.cross(a, b, axis=axis), rtol=1e-12)


def test_a_cast_is_a_fresh_row_major_copy_whatever_the_view() -> None:
    storage = np.arange(6.0).reshape(2, 3)
    t = lt.tensor(storage)
    cast = lt.astype(t.T, lt.float64)
    assert cast.numpy().flags.c_contiguous and cast.numpy().strides == (16, 8)
    cast[0, 0] = 99.0
    assert t[0, 0].item() == 0.0 and not np.shares_memory(cast.numpy(), t.numpy())


def test_a_dask_tensor_refuses_repeat_counts_per_element_in_one_line(tmp_path: Path) -> None:
    t = on_base("dask", np.arange(6).reshape(2, 3), tmp_path)
    words = r"^repeat on a dask-backed tensor takes one int count .*compute it first$"
    with pytest.raises(TypeError, match=words):
        lt.repeat(t, lt.tensor([1, 2, 0]), axis=1)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, (1,), (-1, 0)])
def test_fft_shifts_of_a_dask_tensor_stay_lazy_and_are_numpys(
    tmp_path: Path, name: str, axes: int | tuple[int, ...] | None
) -> None:
    values = np.arange(15.0).reshape(3, 5)
    shifted = getattr(lt.fft, name)(on_base("dask", values, tmp_path), axes=axes)
    assert shifted.base.defers_operations
    np.testing.assert_array_equal(shifted.numpy(), getattr(np.fft, name)(values, axes=axes), strict=True)


@pytest.mark.parametrize(
    ("name", "values", "params", "expected"),
    [
        ("searchsorted", [np.array([1, 3, 3, 5]), np.array([3, 0, 6])], {}, np.array([1, 0, 4])),
        (
            "repeat",
            [np.arange(6).reshape(2, 3)],
            {"repeats": 2},
            np.repeat(np.arange(6).reshape(2, 3), 2, axis=0),
        ),
        ("diff", [np.array([[1, 4, 9], [0, 0, 2]])], {}, np.diff(np.array([[1, 4, 9], [0, 0, 2]]))),
    ],
)
@pytest.mark.parametrize("base", ["numpy", "dask"])
def test_a_table_entry_s_left_out_parameters_take_the_same_defaults_on_every_base(
    tmp_path: Path, base: str, name: str, values: list[Any], params: dict[str, Any], expected: Any
) -> None:
    """`apply(entry, ...)` without `side`, `axis` or `n`: numpy's kernel and dask's chunked form
    agree on the defaults (searchsorted's left side, repeat along axis 0, one difference along the
    last axis)."""
    operands = [on_base(base, values[0], tmp_path), *values[1:]]
    got = apply(optable.TABLE[name], *operands, **params)
    np.testing.assert_array_equal(got.numpy(), expected, strict=True)

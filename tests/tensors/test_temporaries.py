"""An elementwise operation writes its result into an operand's values when those were read fresh
for it (a big view that does not fuse, over numpy storage), as numpy elides temporaries: never when
that would change the result's dtype or shape, lose a gradient, or touch storage.

Reaches into `lazytensor.tensors`' `apply`: the scratch size is raised and the check that a result
fits is recorded.
"""

from __future__ import annotations

import importlib
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from memory_support import peak_bytes

import lazytensor as lt

tensor_module = importlib.import_module("lazytensor.tensors.apply")

ROWS = 40_000  # x 4 float32 columns: 640 KB gathered, above the 256 KiB threshold


def _gathered(dtype: Any = np.float32) -> tuple[np.ndarray, np.ndarray, lt.AbstractTensor]:
    """A storage array, a shuffled row index and the fancy view `t[index]` (no layout: read fresh)."""
    rng = np.random.default_rng(0)
    array = (rng.standard_normal((ROWS, 4)) * 10).astype(dtype)
    index = rng.permutation(ROWS)
    return array, index, lt.from_numpy(array)[index]


CASES: list[tuple[str, Callable[[Any, Any], Any], Any]] = [
    ("scalar", operator.mul, 2.5),
    ("int scalar", operator.add, 3),
    ("narrower column", operator.mul, np.linspace(0, 1, ROWS, dtype=np.float32)[:, None]),
    ("same shape", operator.sub, np.ones((ROWS, 4), dtype=np.float32)),
    ("wider dtype", operator.mul, np.ones(4, dtype=np.float64)),  # float64 result: no reuse
    ("grows the shape", operator.add, np.zeros((2, ROWS, 4), dtype=np.float32)),  # no reuse
    ("comparison", operator.lt, 0.0),  # bool result: no reuse
    ("division", operator.truediv, 7),
    ("float32 numpy scalar", operator.mul, np.float32(2.5)),  # float32 result: reused
    ("float64 numpy scalar", operator.mul, np.float64(2.5)),  # strong: float64 result, no reuse
    ("complex scalar", operator.add, 1j),  # complex64 result: no reuse
    ("bool scalar", operator.mul, True),
]


@pytest.mark.parametrize(("name", "op", "other"), CASES, ids=[case[0] for case in CASES])
def test_an_elementwise_result_is_numpys_and_storage_is_untouched(
    name: str, op: Callable[[Any, Any], Any], other: Any
) -> None:
    array, index, view = _gathered()
    before = array.copy()
    for got, expected in (  # the temporary on either side
        (op(view, other), op(array[index], other)),
        (op(other, view), op(other, array[index])),
    ):
        assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
        np.testing.assert_array_equal(got.numpy(), expected)
        assert not np.shares_memory(got.numpy(), array)
    np.testing.assert_array_equal(array, before)


def test_an_integer_view_divided_is_float_and_reuses_nothing() -> None:
    array, index, view = _gathered(np.int64)
    got = view / 4
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.numpy(), array[index] / 4)


def test_a_unary_operation_reuses_the_gathered_values() -> None:
    array, index, view = _gathered()
    np.testing.assert_array_equal((-view).numpy(), -array[index])
    np.testing.assert_array_equal(abs(view).numpy(), np.abs(array[index]))
    assert (array[index] == lt.from_numpy(array)[index].numpy()).all()


def test_the_result_takes_the_gathered_array_instead_of_a_second_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """`t[index] * 2` allocates one array (the gather), not two; with the threshold out of reach,
    two, as before."""
    _, _, view = _gathered()
    one_array = ROWS * 4 * 4
    reused = peak_bytes(lambda: view * 2.0)
    monkeypatch.setattr(tensor_module, "SCRATCH_BYTES", 1 << 62)
    fresh = peak_bytes(lambda: view * 2.0)
    assert reused < 1.5 * one_array <= fresh


def test_small_temporaries_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the threshold the check costs one comparison and the result is a new array."""
    small = lt.arange(12.0).reshape(3, 4)[[2, 0]]
    calls: list[Any] = []
    original = tensor_module._result_fits
    monkeypatch.setattr(tensor_module, "_result_fits", lambda *args: calls.append(args) or original(*args))
    np.testing.assert_array_equal((small * 2).numpy(), [[16.0, 18.0, 20.0, 22.0], [0.0, 2.0, 4.0, 6.0]])
    assert calls == []


def test_no_reuse_when_a_gradient_needs_the_operands() -> None:
    """`(w[index] * w[index]).sum()` saves both gathered operands for backward: overwriting one
    would make the gradient wrong."""
    array, index, _ = _gathered(np.float64)
    w = lt.tensor(array, requires_grad=True)
    (w[index] * w[index]).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * array)


def test_no_reuse_of_a_view_that_fuses() -> None:
    """A sliced view reads storage itself: multiplying it must leave storage alone."""
    array = np.arange(ROWS * 4, dtype=np.float32).reshape(ROWS, 4)
    t = lt.from_numpy(array)
    got = t[::-1] * 2
    np.testing.assert_array_equal(got.numpy(), array[::-1] * 2)
    np.testing.assert_array_equal(array, np.arange(ROWS * 4, dtype=np.float32).reshape(ROWS, 4))


def test_no_reuse_of_a_storage_tensor_that_owns_its_array() -> None:
    """A result's storage wraps its array as it is (no base): still storage, never scratch."""
    first = lt.tensor(np.ones((ROWS, 4), dtype=np.float32)) * 3  # storage over a fresh array
    second = first * 2
    np.testing.assert_array_equal(first.numpy(), 3)
    np.testing.assert_array_equal(second.numpy(), 6)

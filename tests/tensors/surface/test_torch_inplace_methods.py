"""PyTorch's in-place methods (`add_`, `sub_`, `clamp_`, `fill_`, `zero_`, `copy_`) with numpy's
rules for the write: `alpha` scales the operand, a Python scalar stays weak (numpy's `a += k`), the
cast is numpy's `same_kind`, and a refusal names the method."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_strategies import nonempty_shapes, view_pairs, written_view_pairs

import lazytensor as lt

FAST = settings(max_examples=30, deadline=None)


@FAST
@given(st.data(), nonempty_shapes, st.sampled_from([1, 2, -3, 0.5]), st.sampled_from(["add_", "sub_"]))
def test_add_and_sub_with_alpha_match_numpy(data: st.DataObject, shape: Any, alpha: Any, method: str) -> None:
    """numpy's `target[key] += alpha * other` on the twin: through a list with a repeated index
    (`s[[0, 0]]`) the last write wins, and both positions read it back."""
    t, target, key = data.draw(written_view_pairs(shape, np.float64))
    other = data.draw(view_pairs(shape, np.float64))[1]
    if method == "add_":
        target[key] += alpha * other
    else:
        target[key] -= alpha * other
    assert getattr(t, method)(lt.tensor(other), alpha=alpha) is t
    np.testing.assert_array_equal(t.numpy(), target[key])


def test_add_through_a_repeated_index_is_numpys_buffered_write() -> None:
    """`b[[0, 0]] += [10, 20]` in numpy: both reads see 1, the last write (1 + 20) wins."""
    base = lt.tensor([1.0, 2.0])
    base[[0, 0]].add_(lt.tensor([10.0, 20.0]))
    b = np.array([1.0, 2.0])
    b[[0, 0]] += np.array([10.0, 20.0])
    assert base.tolist() == b.tolist() == [21.0, 2.0]


@pytest.mark.parametrize(("dtype", "scalar"), [("int8", 300), ("uint8", -1), ("int16", 40000)])
@pytest.mark.parametrize("method", ["add_", "sub_"])
def test_a_python_int_out_of_the_dtype_range_raises_numpy_overflow(
    dtype: str, scalar: int, method: str
) -> None:
    a = np.zeros(2, dtype=dtype)
    with pytest.raises(OverflowError) as expected:
        a += scalar
    t = lt.zeros(2, dtype=dtype)
    with pytest.raises(OverflowError, match=f"^{re.escape(str(expected.value))}$"):
        getattr(t, method)(scalar)
    assert t.tolist() == [0, 0]


@pytest.mark.parametrize("method", ["add_", "sub_"])
@pytest.mark.parametrize("scalar", [0.1, 1 / 3, 2.7182818])
def test_a_python_float_added_to_float32_is_weak_as_in_numpy(method: str, scalar: float) -> None:
    """Computed in float32 (numpy's `a += 0.1`), not in float64 and rounded once more."""
    a = np.linspace(-3, 3, 200, dtype=np.float32)
    t = lt.tensor(a.copy())
    expected = a + np.float32(scalar) if method == "add_" else a - np.float32(scalar)
    getattr(t, method)(scalar)
    assert t.dtype == np.float32
    np.testing.assert_array_equal(t.numpy(), expected)


def test_clamp_of_an_integer_tensor_to_float_bounds_is_numpys_casting_error() -> None:
    a = np.arange(3)
    with pytest.raises(TypeError) as expected:
        np.clip(a, 0.5, 1.5, out=a)
    t = lt.arange(3)
    with pytest.raises(TypeError, match=f"^{re.escape(str(expected.value))}$"):
        t.clamp_(0.5, 1.5)
    assert t.tolist() == [0, 1, 2]


IN_PLACE: list[tuple[str, Callable[[Any], Any]]] = [
    ("clamp_", lambda t: t.clamp_(0, 1)),
    ("clamp_", lambda t: t.clip_(0, 1)),
    ("fill_", lambda t: t.fill_(1.0)),
    ("zero_", lambda t: t.zero_()),
    ("copy_", lambda t: t.copy_([5.0, 6.0])),
]


@pytest.mark.parametrize(("name", "write"), IN_PLACE, ids=[name for name, _ in IN_PLACE])
def test_writing_a_result_that_requires_grad_is_refused_by_name(
    name: str, write: Callable[[Any], Any]
) -> None:
    w = lt.ones(2, requires_grad=True)
    h = w * 2
    with pytest.raises(
        RuntimeError, match=rf"^in-place {name} on a tensor of shape \(2,\) that requires grad"
    ):
        write(h)
    assert h.tolist() == [2.0, 2.0]


def test_copy_from_a_tensor_that_requires_grad_is_refused() -> None:
    """The copy would drop the source's gradient: refused, naming the source's shape."""
    target = lt.zeros(3, 2)
    with pytest.raises(RuntimeError, match=r"^in-place copy_ on a tensor of shape \(2,\) that requires grad"):
        target.copy_(lt.ones(2, requires_grad=True))
    assert target.tolist() == [[0.0, 0.0]] * 3
    with lt.no_grad():
        target.copy_(lt.ones(2, requires_grad=True))
    assert target.tolist() == [[1.0, 1.0]] * 3


@pytest.mark.parametrize("value", [[1.0, 2.0], np.ones((2, 1)), lt.ones(2)])
def test_fill_takes_one_value(value: Any) -> None:
    t = lt.zeros(2)
    shape = np.shape(value) if not isinstance(value, lt.AbstractTensor) else value.shape
    message = f"fill_ of a tensor of shape (2,) takes one value, got one of shape {shape}"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        t.fill_(value)
    assert t.tolist() == [0.0, 0.0]

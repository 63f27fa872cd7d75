"""numpy's functions without a handler: numpy runs on the values and every array it returns is a new
tensor that owns its memory; a result holding inexact values refuses an input that requires grad.

Reaches into `lazytensor.engine.numpy_routes` and `lazytensor.tensors`' doors: the fallback is
called directly with callables no numpy function hands it (an object ufunc, a partial).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bases_support import KINDS, on_base

import lazytensor as lt
from lazytensor.engine import numpy_routes
from lazytensor.tensors.dispatch import DOORS as _DOORS


def test_a_fallback_result_that_is_a_view_of_its_input_is_a_copy() -> None:
    """`np.array_split` gives views of its input: writing into the tensors it returns leaves the
    input alone."""
    values = np.arange(12.0).reshape(4, 3)
    t = lt.tensor(values.copy())
    assert np.array_split not in numpy_routes.HANDLERS
    parts = np.array_split(t, 2)
    for part, want in zip(parts, np.array_split(values, 2), strict=True):
        np.testing.assert_array_equal(part.numpy(), want)
        part[...] = -1.0
    np.testing.assert_array_equal(t.numpy(), values)


def test_a_fallback_named_tuple_stays_a_named_tuple_of_tensors() -> None:
    values = np.array([3.0, 1.0, 3.0, 2.0])
    result = np.unique_all(lt.tensor(values))
    expected = np.unique_all(values)
    assert type(result) is type(expected)
    for field in expected._fields:
        got = getattr(result, field)
        assert isinstance(got, lt.AbstractTensor)
        np.testing.assert_array_equal(got.numpy(), getattr(expected, field))


def test_a_fallback_python_value_is_not_a_gradient_refusal() -> None:
    """`np.allclose` returns a Python bool: no gradient is dropped, so it is allowed on a tensor that
    requires grad."""
    t = lt.tensor(np.array([1.0, 2.0]), requires_grad=True)
    assert np.allclose(t, t.detach()) is True


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("gradient", lambda a: np.gradient(a)),  # a list of float arrays
        ("object array", lambda a: numpy_routes.fallback(_DOORS, np.frompyfunc(abs, 1, 1), (a,), {})),
    ],
)
def test_a_fallback_refuses_every_inexact_result_kind(name, call) -> None:
    t = lt.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    with pytest.raises(TypeError, match="requires grad"):
        call(t)
    with lt.no_grad():
        call(t)


def test_a_fallback_refusal_names_the_function_and_the_way_out() -> None:
    t = lt.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    message = (
        "np.gradient on a tensor that requires grad: lazytensor has no gradient for it; "
        "call it inside lt.no_grad(), or on t.detach()"
    )
    with pytest.raises(TypeError) as info:
        np.gradient(t)
    assert str(info.value) == message


def test_a_fallback_refusal_names_a_function_without_a_name_by_its_repr() -> None:
    t = lt.tensor(np.arange(3.0), requires_grad=True)
    func = functools.partial(np.cumsum, axis=0)
    with pytest.raises(TypeError) as info:
        numpy_routes.fallback(_DOORS, func, (t,), {})
    assert str(info.value).startswith(f"np.{func!r} on a tensor that requires grad")


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("vstack of a list", lambda np_, t: np_.vstack([t, [7.0, 8.0, 9.0]])),
        ("vstack of a numpy array", lambda np_, t: np_.vstack([np.array([7.0, 8.0, 9.0]), t])),
        ("hstack of a list", lambda np_, t: np_.hstack([t[0], [7.0]])),
        ("hstack of a scalar", lambda np_, t: np_.hstack([t[0], 7.0])),
    ],
)
def test_stacks_take_arrays_that_are_not_tensors(name, call) -> None:
    values = np.arange(6.0).reshape(2, 3)
    result = call(np, lt.tensor(values))
    expected = call(np, values)
    assert isinstance(result, lt.AbstractTensor)
    assert result.shape == expected.shape and result.dtype == expected.dtype
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("stack", [np.vstack, np.hstack])
def test_stacks_keep_the_gradient_of_their_tensors(stack) -> None:
    t = lt.tensor(np.arange(3.0), requires_grad=True)
    stack([t, np.ones(3), 2.0 * t]).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.full(3, 3.0))


def _zeros_like_kind(x: Any, shape: tuple[int, ...]) -> Any:
    """An `out=` for `x`'s side: a tensor for a tensor, numpy's array for numpy."""
    return lt.zeros(*shape) if isinstance(x, lt.AbstractTensor) else np.zeros(shape)


TAKEN_BY_NUMPY = {
    "np.concatenate of a tensor's rows": lambda t: np.concatenate(t),
    "np.stack of a tensor's rows": lambda t: np.stack(t),
    "np.reshape in Fortran order": lambda t: np.reshape(t, -1, order="F"),
    "np.take with mode='clip'": lambda t: np.take(t, [0, 9], mode="clip"),
    "np.cumsum into a tensor": lambda t: np.cumsum(t, axis=1, out=_zeros_like_kind(t, (2, 3))),
    "np.cumprod into a tensor": lambda t: np.cumprod(t, out=_zeros_like_kind(t, (6,))),
}


@pytest.mark.parametrize("name", TAKEN_BY_NUMPY)
def test_a_call_its_handler_does_not_take_is_numpys_and_refuses_a_tensor_that_requires_grad(
    name: str,
) -> None:
    """The handlers take lists of operands, C order, mode='raise': any other form runs numpy on the
    values (numpy's result), which has no gradient to give."""
    call, values = TAKEN_BY_NUMPY[name], np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(call(lt.tensor(values)).numpy(), call(values))
    with pytest.raises(TypeError, match="on a tensor that requires grad"):
        call(lt.tensor(values, requires_grad=True))


def test_a_tensor_out_gets_numpys_output_through_its_write_path_and_comes_back_itself() -> None:
    """Through a transposed view of its base; the version counter moves, so a gradient that saved the
    old values refuses; a call refused for a gradient writes nothing."""
    values = np.arange(6.0).reshape(2, 3)
    base = lt.zeros(3, 2)
    out = base.transpose()
    weight = lt.ones(3, 2, requires_grad=True)
    product = weight * base
    assert np.clip(lt.tensor(values), 1, 3, out=out) is out
    np.testing.assert_array_equal(base.numpy(), np.clip(values, 1, 3).T)
    with pytest.raises(RuntimeError, match="modified"):
        product.sum().backward()
    with pytest.raises(TypeError, match="requires grad"):
        np.clip(lt.tensor(values, requires_grad=True), 4, 5, out=out)
    np.testing.assert_array_equal(base.numpy(), np.clip(values, 1, 3).T)


def test_an_expanded_out_is_refused_and_nothing_changes() -> None:
    row = lt.zeros(3)
    with pytest.raises(ValueError, match="expanded"):
        np.clip(lt.arange(6.0).reshape(2, 3), 1, 3, out=row.expand(2, 3))
    assert row.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_tensor_out_on_any_base_takes_numpys_output_or_refuses(kind: str, tmp_path: Path) -> None:
    """A writable base takes numpy's output through its own write path; a read-only one (a dask array,
    an xarray variable, a memory map opened for reading) refuses, naming why, and keeps its values."""
    values = np.arange(6.0).reshape(2, 3)
    out = on_base(kind, np.full((2, 3), -1.0), tmp_path)
    reason = out.base.read_only_reason
    if reason is None:
        assert np.clip(lt.tensor(values), 1, 3, out=out) is out
        np.testing.assert_array_equal(out.numpy(), np.clip(values, 1, 3))
        return
    with pytest.raises(ValueError, match=f"^{re.escape(reason)}$"):
        np.clip(lt.tensor(values), 1, 3, out=out)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), -1.0))

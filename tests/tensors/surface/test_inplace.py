"""In-place operators through every kind of view, against numpy: `a[view] op= x` lands in storage.

The reference: the chain of numpy steps applied to `arange(n)` gives, for every position of the
view, its storage index; the expected storage is the view's values combined with the operand
(numpy's in-place ufunc on a copy, with its casting rule) and written back to those indices. For
a fancy view with repeated indices that is numpy's buffered `a[idx] += 1`: each repeated position
gets one increment. An expanded view refuses, and nothing changes.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import chains

import lazytensor as lt

IN_PLACE = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
}


def _stack(shape, ops, dtype):
    n = math.prod(shape)
    t = lt.arange(n, dtype=dtype).reshape(shape)
    ref = np.arange(n).reshape(shape)
    for _, lt_step, np_step, _ in ops:
        t, ref = lt_step(t), np_step(ref)
    return t, ref


def _operand(draw, shape, dtype):
    if draw(st.booleans()):
        return draw(st.integers(1, 3))
    values = (np.arange(math.prod(shape)).reshape(shape) % 3 + 1).astype(dtype)
    return lt.tensor(values) if draw(st.booleans()) else values


UFUNCS = {
    "+=": np.add,
    "-=": np.subtract,
    "*=": np.multiply,
    "/=": np.true_divide,
    "//=": np.floor_divide,
    "%=": np.remainder,
    "**=": np.power,
    "&=": np.bitwise_and,
    "|=": np.bitwise_or,
    "^=": np.bitwise_xor,
    "<<=": np.left_shift,
    ">>=": np.right_shift,
}


def _ufunc_out(ufunc):
    """`v op= x` spelled as numpy's `ufunc(v, x, out=v)`."""
    return lambda v, x: ufunc(v, x, out=v)


@settings(max_examples=400, deadline=None)
@given(chains(), st.sampled_from(sorted(IN_PLACE)), st.sampled_from(["int64", "float64"]), st.data())
def test_in_place_operators_through_random_view_stacks(chain, symbol, dtype, data) -> None:
    shape, ops = chain
    view, ref = _stack(shape, ops, dtype)
    base = view.base
    before = base.numpy().copy()
    operand = _operand(data.draw, view.shape, dtype)
    op = IN_PLACE[symbol] if data.draw(st.booleans()) else _ufunc_out(UFUNCS[symbol])
    expected = before.reshape(-1).copy()
    try:
        values = np.array(expected[ref])  # a copy of the view's values, for numpy's in-place op
        values = IN_PLACE[symbol](values, np.asarray(operand))
        if values.shape != ref.shape:
            raise ValueError(f"non-broadcastable output operand {values.shape}")
        if any("expand" in step[0] for step in ops) and ref.size and len(np.unique(ref)) < ref.size:
            raise ValueError("read-only")
        expected[ref] = values
    except (TypeError, ValueError) as error:
        expected_type = TypeError if isinstance(error, TypeError) else ValueError
        if any("expand" in step[0] for step in ops):
            expected_type = ValueError  # refused before anything is computed
        with pytest.raises(expected_type):
            op(view, operand)
        np.testing.assert_array_equal(base.numpy(), before)  # a failed in-place op changes nothing
        return
    if any("expand" in step[0] for step in ops):
        with pytest.raises(ValueError, match="expanded view"):
            op(view, operand)
        np.testing.assert_array_equal(base.numpy(), before)
        return
    result = op(view, operand)
    assert result is view
    steps = [s[0] for s in ops]
    np.testing.assert_array_equal(base.numpy().reshape(-1), expected, err_msg=f"{steps} {symbol}")


def test_in_place_add_through_an_int_view_writes_the_tensor() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    v = t[0]
    v += 100
    assert t.tolist() == [[100.0, 101.0, 102.0], [3.0, 4.0, 5.0]]
    assert isinstance(v, lt.SlicedTensor) and v.shares_storage(t)


def test_in_place_multiply_through_a_transpose() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    v = t.T
    v *= 2
    assert t.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]


def test_in_place_on_a_0d_view_and_on_the_base_keep_every_name() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    other_name = t
    t += 1
    assert t is other_name and other_name.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    zero_d = t[1, 2, ...]
    zero_d -= 6
    assert zero_d.shape == () and t.tolist()[1][2] == 0.0
    t.T[:, 0] += 1000
    assert t.tolist() == [[1001.0, 1002.0, 1003.0], [4.0, 5.0, 0.0]]


def test_expanded_view_refuses_and_nothing_changes() -> None:
    base = lt.arange(3.0)
    e = base.expand(2, 3)
    with pytest.raises(ValueError, match="expanded view"):
        e += 1
    assert base.tolist() == [0.0, 1.0, 2.0]


def test_read_only_memory_map_refuses(tmp_path) -> None:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(4.0))
    t = lt.from_numpy(np.load(path, mmap_mode="r"))
    with pytest.raises(ValueError, match="read-only"):
        t[1:] += 1
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_int_tensor_plus_a_half_raises_numpys_casting_error() -> None:
    t = lt.arange(3)
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' output from dtype\('float64'\)"):
        t += 0.5
    with pytest.raises(TypeError, match="'divide'"):
        t /= 2
    assert t.tolist() == [0, 1, 2]


def test_a_result_of_another_shape_is_refused() -> None:
    t = lt.zeros(3)
    with pytest.raises(ValueError, match=r"non-broadcastable output operand with shape \(3,\)"):
        t += lt.ones(2, 3)
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_repeated_fancy_indices_are_buffered_as_in_numpy() -> None:
    t, a = lt.zeros(4), np.zeros(4)
    t[[0, 0, 2]] += 1
    a[[0, 0, 2]] += 1
    assert t.tolist() == a.tolist() == [1.0, 0.0, 1.0, 0.0]
    v = t[[1, 1, 1]]
    v += 5
    assert t.tolist() == [1.0, 5.0, 1.0, 0.0]


def test_matmul_in_place_and_bitwise_in_place() -> None:
    t = lt.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = t.T
    v @= lt.tensor([[0.0, 1.0], [1.0, 0.0]])
    ref = np.array([[1.0, 2.0], [3.0, 4.0]])
    ref.T[...] = ref.T @ np.array([[0.0, 1.0], [1.0, 0.0]])
    assert t.tolist() == ref.tolist()
    flags = lt.tensor([True, False, True])
    flags[1:] |= True
    assert flags.tolist() == [True, True, True]


def test_in_place_on_a_tensor_that_requires_grad_is_refused() -> None:
    w = lt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"requires grad"):
        w += 1
    with lt.no_grad():
        w -= 1
    assert w.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("add", lambda t, w: t.__iadd__(w)),
        ("truediv", lambda t, w: t.__itruediv__(w)),
        ("sub", lambda t, w: t.sub_(w, alpha=2)),
    ],
)
def test_an_operand_that_requires_grad_is_refused_in_full_and_nothing_changes(
    name: str, write: Callable[[Any, Any], Any]
) -> None:
    """`t += w` with `w` requiring grad would drop `w`'s gradient: refused, naming the operation."""
    t, w = lt.zeros(2), lt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as refused:
        write(t, w)
    assert str(refused.value) == (
        f"in-place {name} on a tensor of shape (2,) that requires grad is not differentiable: use an "
        "out-of-place operation, or lt.no_grad() for an update"
    )
    assert t.tolist() == [0.0, 0.0]


def test_numpy_ufunc_out_writes_through_a_view() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    v = t[0]
    result = np.add(v, 1, out=v)
    assert result is v
    assert t.tolist() == [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    np.multiply(t.T, 2, out=t.T)
    assert t.tolist() == [[2.0, 4.0, 6.0], [6.0, 8.0, 10.0]]
    e = lt.arange(3.0).expand(2, 3)
    with pytest.raises(ValueError, match="expanded view"):
        np.add(e, 1, out=e)


def test_numpy_ufunc_out_with_a_bad_cast_changes_nothing() -> None:
    t = lt.arange(3)
    with pytest.raises(TypeError, match="same_kind"):
        np.add(t, 0.5, out=t)
    assert t.tolist() == [0, 1, 2]


def test_in_place_with_an_overlapping_operand_reads_before_writing() -> None:
    t, a = lt.arange(9.0).reshape(3, 3), np.arange(9.0).reshape(3, 3)
    t += t.T
    a += a.T
    assert t.tolist() == a.tolist()
    u, b = lt.arange(6.0), np.arange(6.0)
    u[1:] += u[:-1]
    b[1:] += b[:-1]
    assert u.tolist() == b.tolist()


def test_in_place_results_cast_by_the_same_kind_rule() -> None:
    t = lt.zeros(3, dtype=np.float32)
    t += np.ones(3)  # float64 into float32: same kind, allowed as in numpy
    assert t.dtype == np.float32 and t.tolist() == [1.0, 1.0, 1.0]
    i = lt.zeros(3, dtype=np.int32)
    i += np.ones(3, dtype=np.int64)
    assert i.tolist() == [1, 1, 1]
    message = (
        "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind'"
    )
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        lt.zeros(3, dtype=np.int64).__iadd__(np.ones(3))


@pytest.mark.parametrize(
    "write",
    [
        operator.iadd,
        operator.isub,
        operator.imul,
        operator.itruediv,
        operator.ifloordiv,
        operator.imod,
        operator.ipow,
        operator.imatmul,
    ],
)
def test_a_refused_cast_names_numpys_ufunc_as_numpy_does(write: Callable[[Any, Any], Any]) -> None:
    """An int tensor op= floats: numpy's exception and words, naming its ufunc (`divide` for `/=`)."""
    values = np.arange(4).reshape(2, 2)
    with pytest.raises(TypeError) as numpys:
        write(values.copy(), np.full((2, 2), 1.5))
    t = lt.tensor(values)
    with pytest.raises(TypeError) as refused:
        write(t, np.full((2, 2), 1.5))
    assert str(refused.value) == str(numpys.value)
    assert t.tolist() == values.tolist()

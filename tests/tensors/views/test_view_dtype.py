"""`t.view(dtype)`: the memory of any strided view read as another dtype, as numpy reads it, and
every refusal in full (the check's message names the dtype, the shape and the bytes).

The reference is the view's storage positions (an `arange` indexed as the view is): the values
are the bytes those positions hold, and a refusal is right exactly when numpy's rule (or the
one difference numpy does not have, rows at different remainders) says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt

_MERGED = (2, 3, 8)
"""A shape whose first two axes, sliced, cannot be merged into one strided axis."""


def _unfused(dtype: str, rows: slice) -> lt.AbstractTensor:
    """Rows of a reshape that merges two axes no stride can merge: a view with no fused layout,
    so `view(dtype)` finds each row's storage position one by one."""
    t = lt.arange(int(np.prod(_MERGED))).astype(dtype).reshape(_MERGED)[:, :2, :2]
    assert t.reshape(4, 2).layout is None
    return t.reshape(4, 2)[rows]


REFUSALS: dict[str, tuple[Callable[[], Any], type[Exception], str]] = {
    "a tensor that requires grad": (
        lambda: lt.ones(2, requires_grad=True).view(np.int64),
        RuntimeError,
        "view(int64) of a tensor of shape (2,) that requires grad: reading its memory as another "
        "dtype has no gradient; call it on t.detach()",
    ),
    "numbers as objects": (
        lambda: lt.arange(3.0).view(object),
        TypeError,
        "view(object): cannot change the data-type of a tensor of dtype float64 (objects)",
    ),
    "objects as numbers": (
        lambda: lt.tensor(np.array([1, "a"], dtype=object)).view(np.float64),
        TypeError,
        "view(float64): cannot change the data-type of a tensor of dtype object (objects)",
    ),
    "a 0-d tensor to another itemsize": (
        lambda: lt.tensor(np.float64(1.0)).view(np.int32),
        ValueError,
        "view(int32): a 0-d tensor of dtype float64 can change its dtype only to one of the same itemsize",
    ),
    "a last axis of bytes the new size does not divide": (
        lambda: lt.arange(6, dtype=np.int32).reshape(2, 3).view(np.int64),
        ValueError,
        "view(int64) of a tensor of shape (2, 3) and dtype int32: the last axis holds 12 bytes, "
        "not a multiple of 8",
    ),
    "a last axis that is not one run of memory": (
        lambda: lt.arange(6.0).reshape(2, 3).T.view(np.int32),
        ValueError,
        "view(int32) of a tensor of shape (3, 2): to change to a dtype of a different size, the last "
        "axis must be contiguous in storage (call .contiguous() first: a copy)",
    ),
    "a smaller dtype whose size does not divide the old one's": (
        lambda: lt.arange(6, dtype=np.int32).reshape(2, 3)[:, :2].view("S3"),
        ValueError,
        "view(|S3) of a tensor of dtype int32: a smaller dtype's size must divide the old one's; 3 does "
        "not divide 4",
    ),
    "rows at different remainders": (
        lambda: lt.arange(10, dtype=np.int32).reshape(2, 5)[:, :4].view(np.int64),
        ValueError,
        "view(int64) of a tensor of shape (2, 4): its rows start at different remainders modulo 8 "
        "bytes in storage (call .contiguous() first: a copy)",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_a_refused_view_of_a_dtype_says_why_in_full(name: str) -> None:
    call, kind, message = REFUSALS[name]
    with pytest.raises(kind, match=f"^{re.escape(message)}$"):
        call()


def test_a_view_with_no_fused_layout_reads_its_rows_as_another_dtype() -> None:
    """One row, and no row, of a view whose rows are found one by one (numpy copies on the reshape;
    the bytes are the same)."""
    reference = np.arange(int(np.prod(_MERGED)), dtype=np.int32).reshape(_MERGED)[:, :2, :2].reshape(4, 2)
    for rows in (slice(3, None), slice(1, 2), slice(0, 0)):
        got = _unfused("int32", rows).view(np.int64)
        np.testing.assert_array_equal(got.numpy(), reference[rows].copy().view(np.int64))
        assert got.shape == reference[rows].copy().view(np.int64).shape


@pytest.mark.parametrize("target", ["int16", "int64"])
def test_an_empty_view_of_three_axes_with_no_fused_layout_keeps_its_shape(target: str) -> None:
    """A list index that is no progression leaves no fused layout: the positions of an empty view are
    found one by one, and there are none."""
    t = lt.zeros(3, 0, 4, dtype="int32")[[0, 2, 1]]
    assert t.layout is None
    expected = np.zeros((3, 0, 4), dtype=np.int32)[[0, 2, 1]].view(target)
    got = t.view(target)
    assert got.shape == expected.shape and got.numpy().shape == expected.shape


@pytest.mark.parametrize(
    ("source", "target"), [("int16", "int64"), ("int8", "int64"), ("int8", "complex128")]
)
@pytest.mark.parametrize("start", [1, 2, 3, 5])
def test_rows_that_start_at_one_remainder_read_as_numpy_reads_them(
    source: str, target: str, start: int
) -> None:
    """Rows 32 elements apart, each a run from `start` on: every row at the same remainder modulo
    the ratio of the sizes (4, 8 or 16), so numpy's view and lazytensor's agree."""
    values = np.arange(96).astype(source).reshape(3, 32)
    length = np.dtype(target).itemsize // np.dtype(source).itemsize
    key = (slice(None), slice(start, start + length))
    np.testing.assert_array_equal(lt.tensor(values)[key].view(target).numpy(), values[key].view(target))


@pytest.mark.parametrize(("source", "target"), [("int16", "S3"), ("int32", "V6"), ("int8", "S3")])
def test_sizes_that_do_not_divide_one_another_read_as_numpy_reads_them(source: str, target: str) -> None:
    """The first two items' worth of bytes of every other row, read as 3- or 6-byte items, a size that
    neither divides nor is divided by the old one: numpy's values (the rows start 12, 24 or 48 bytes
    apart, at one remainder modulo the new size)."""
    values = np.arange(72).astype(source).reshape(12, 6)
    length = np.dtype(target).itemsize * 2 // np.dtype(source).itemsize
    key = (slice(None, None, 2), slice(0, length))
    got = lt.tensor(values)[key].view(target)
    np.testing.assert_array_equal(got.numpy(), values[key].view(target))
    assert got.shape == values[key].view(target).shape


def _storage_positions(shape: tuple[int, ...], key: tuple[slice, ...], merge: bool) -> np.ndarray:
    positions = np.arange(int(np.prod(shape))).reshape(shape)[key]
    if merge:
        positions = positions.reshape(positions.shape[0] * positions.shape[1], positions.shape[2])
    return positions


def _expected_refusal(positions: np.ndarray, old: int, new: int) -> str | None:
    """The words of the refusal numpy's rule (and the rows' remainders) call for, or None."""
    last = positions.shape[-1]
    if new == old:
        return None
    if new < old and old % new:
        return "must divide"
    if (last * old) % new:
        return "not a multiple of"
    if positions.size == 0:
        return None
    if last > 1 and not (np.diff(positions, axis=-1) == 1).all():
        return "must be contiguous"
    if np.unique(positions[..., 0] * old % new).size > 1:
        return "start at different remainders"
    return None


@settings(max_examples=150, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=2).map(lambda s: (*s, 8)),
    source=st.sampled_from(["int8", "int16", "int32", "float64"]),
    target=st.sampled_from(["int8", "uint16", "S3", "float32", "V6", "int64", "complex128"]),
    merge=st.booleans(),
    data=st.data(),
)
def test_view_of_a_dtype_reads_the_bytes_of_any_strided_view(
    shape: tuple[int, ...], source: str, target: str, merge: bool, data: st.DataObject
) -> None:
    """Leading axes sliced at any start and step (merged by a reshape or not), the last one a run
    starting anywhere: the bytes numpy holds at the view's positions, read and written; refused
    only when the positions say so."""
    leading = [
        slice(data.draw(st.integers(0, 2)), None, data.draw(st.sampled_from([1, 2, -1]))) for _ in shape[:-1]
    ]
    run = slice(
        data.draw(st.integers(0, 7)), data.draw(st.integers(0, 8)), data.draw(st.sampled_from([1, 1, 2]))
    )
    key = (*leading, run)
    merge = merge and len(shape) == 3
    values = np.arange(int(np.prod(shape))).astype(source).reshape(shape)
    positions = _storage_positions(shape, key, merge)
    old, new = np.dtype(source).itemsize, np.dtype(target).itemsize
    t = lt.tensor(values)
    view = t[key].reshape(positions.shape) if merge else t[key]
    refusal = _expected_refusal(positions, old, new)
    if refusal is not None:
        with pytest.raises(ValueError, match=refusal):
            view.view(target)
        return
    got = view.view(target)
    expected = values.reshape(-1)[positions].view(target)
    np.testing.assert_array_equal(got.numpy(), expected)
    got[...] = np.ones(got.shape, dtype=target)
    reference = values.copy()
    byte_positions = (positions[..., np.newaxis] * old + np.arange(old)).reshape(
        *positions.shape[:-1], positions.shape[-1] * old
    )
    ones = np.ones(got.shape, dtype=target).view(np.uint8).reshape(byte_positions.shape)
    reference.view(np.uint8).reshape(-1)[byte_positions] = ones
    np.testing.assert_array_equal(t.numpy(), reference)


def test_a_run_of_memory_read_as_another_dtype_is_one_storage_layer_over_the_same_memory() -> None:
    """As numpy's `a.view(dtype)` of a contiguous array is a plain view: no index layer to walk."""
    t = lt.arange(8, dtype="int32")
    v = t[2:6].view("int16")
    assert [layer.layer_name for layer in v.layers] == ["Storage"]
    assert np.shares_memory(v.numpy(), t.numpy()) and v.layout is not None and v.layout.is_contiguous()
    np.testing.assert_array_equal(v.numpy(), np.arange(8, dtype=np.int32)[2:6].view(np.int16))

"""Where planning a read of an array base as per-axis slices stops, and what the read gives back: a
view of a reshaped base whose run crosses a row end is gathered, not sliced past the row; an axis
longer than 2**53 is planned in exact integers; a read is a fresh, writeable array of numpy's values;
and expands of a base whose blocks have their own `broadcast_to` (a lazytensor tensor used as an
array-like) read numpy's values."""

from __future__ import annotations

import math
from typing import Any

import dask.array as da
import numpy as np
import pytest
import zarr
from bases_support import Plain
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Op, reshape_targets, shapes, view_ops

import lazytensor as lt

Shape = tuple[int, ...]


@st.composite
def reshaped_chains(draw: st.DrawFn) -> tuple[Shape, Shape, list[Op]]:
    """A base shape, a reshape of it, and up to three views numpy takes without a copy: the layouts
    they fuse into step through the base's flat positions, not always along one of its axes."""
    shape = draw(shapes(max_dims=3, max_side=5))
    target = draw(reshape_targets(shape))
    current = np.empty(target)
    ops: list[Op] = []
    for _ in range(draw(st.integers(0, 3))):
        op = draw(view_ops(current.shape).filter(lambda op: op[3]))
        current = op[2](current)
        ops.append(op)
    return shape, target, ops


@settings(max_examples=200, deadline=None)
@given(chain=reshaped_chains())
def test_views_of_a_reshaped_array_base_read_numpys_values(chain: tuple[Shape, Shape, list[Op]]) -> None:
    shape, target, ops = chain
    values = np.arange(math.prod(shape), dtype=np.int32).reshape(shape) * 3 - 7
    t: Any = lt.from_array(Plain(values.copy())).reshape(target)
    ref = values.reshape(target)
    for _, lt_step, np_step, _ in ops:
        t, ref = lt_step(t), np_step(ref)
    got = t.numpy()
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), shape=shapes(max_dims=3, max_side=5))
def test_any_slice_of_a_flattened_array_base_reads_numpys_values(data: st.DataObject, shape: Shape) -> None:
    values = np.arange(math.prod(shape), dtype=np.int32).reshape(shape) * 3 - 7
    key = data.draw(st.slices(values.size))
    got = lt.from_array(Plain(values.copy())).reshape(-1)[key].numpy()
    expected = values.reshape(-1)[key]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("view", "np_view"),
    [
        (lambda t: t.reshape(12)[1:5], lambda a: a.reshape(12)[1:5]),  # ends one past row 0's end
        (lambda t: t.reshape(12)[4:9], lambda a: a.reshape(12)[4:9]),
        (lambda t: t.reshape(2, 6)[:, 2:], lambda a: a.reshape(2, 6)[:, 2:]),
        (lambda t: t.reshape(6, 2)[1:3].T, lambda a: a.reshape(6, 2)[1:3].T),
    ],
)
@pytest.mark.parametrize("kind", ["plain", "zarr", "numpy"])
def test_a_run_across_a_row_end_is_read_as_numpy_reads_it(kind: str, view: Any, np_view: Any) -> None:
    values = np.arange(12, dtype=np.int16).reshape(3, 4) * 5 - 20
    array: Any
    if kind == "zarr":
        array = zarr.create_array(store={}, shape=values.shape, chunks=(2, 2), dtype=values.dtype)
        array[...] = values
    elif kind == "plain":
        array = Plain(values.copy())
    else:
        array = values.copy()
    got = view(lt.from_array(array)).numpy()
    expected = np_view(values)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


class Positions:
    """A 1-d array-like too long to hold, whose element i is i; it keeps every key it is asked for."""

    def __init__(self, length: int) -> None:
        self.shape = (length,)
        self.dtype = np.dtype(np.int64)
        self.keys: list[object] = []

    def __getitem__(self, key: Any) -> np.ndarray:
        self.keys.append(key)
        (k,) = key
        if isinstance(k, slice):
            return np.arange(*k.indices(self.shape[0]), dtype=np.int64)
        return np.asarray(k, dtype=np.int64)


HUGE = 2**60 + 131
"""A length past 2**53: its last positions are not exact as floats (2**60 + 129 rounds up to
2**60 + 256, past the end)."""


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (lambda t: t[HUGE - 2 :], [HUGE - 2, HUGE - 1]),
        (lambda t: t[::-1][:2], [HUGE - 1, HUGE - 2]),  # read forwards, then flipped in memory
    ],
)
def test_a_slice_at_the_end_of_an_axis_past_2_53_is_one_exact_request(view: Any, expected: list[int]) -> None:
    array = Positions(HUGE)
    assert view(lt.from_array(array)).numpy().tolist() == expected
    assert array.keys == [(slice(HUGE - 2, HUGE, 1),)]


@pytest.mark.parametrize("kind", ["plain", "zarr", "dask", "numpy"])
@pytest.mark.parametrize(
    "view",
    [  # no axis of stride 0: numpy's own broadcasts are read-only
        lambda t: t,
        lambda t: t[1:],
        lambda t: t.transpose(2, 0, 1)[::-1],
        lambda t: t[:, None, 1],
        lambda t: t[1, 2, 3, ...],
        lambda t: t[:, [0, 2]],
    ],
)
def test_a_read_is_a_fresh_writeable_array(kind: str, view: Any) -> None:
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    array: Any
    if kind == "zarr":
        array = zarr.create_array(store={}, shape=values.shape, chunks=(2, 2, 2), dtype=values.dtype)
        array[...] = values
    elif kind == "dask":
        array = da.from_array(values.copy(), chunks=2)
    elif kind == "plain":
        array = Plain(values.copy())
    else:
        array = values.copy()
    t = view(lt.from_array(array))
    got = t.numpy()
    assert got.flags.writeable
    got[...] = -1  # the caller's own array: the base keeps its values
    np.testing.assert_array_equal(t.numpy(), view(values))


@pytest.mark.parametrize(
    ("view", "np_view"),
    [
        (lambda t: t[:, None, 1].expand(3, 2), lambda a: np.broadcast_to(a[:, None, 1], (3, 2))),
        (lambda t: t.T[:, None].expand(4, 2, 3), lambda a: np.broadcast_to(a.T[:, None], (4, 2, 3))),
        (lambda t: t[::-1, 2].expand(2, 3), lambda a: np.broadcast_to(a[::-1, 2], (2, 3))),
    ],
)
def test_an_array_base_over_a_tensor_broadcasts_its_blocks(view: Any, np_view: Any) -> None:
    values = np.arange(12, dtype=np.int64).reshape(3, 4) * 7 + 1
    t = lt.from_array(lt.tensor(values))  # requests give lazytensor tensors, which have broadcast_to
    got = view(t).numpy()
    expected = np_view(values)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)

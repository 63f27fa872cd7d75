"""How a read through views over an array base reaches the array: a stack of basic views (steps of
either sign, permutations, int indices, new axes, expands) is one request of per-axis slices,
rearranged in memory into numpy's values; a gather of flat indices (empty, one element, a 0-d base)
gives numpy's values and dtype; a run of indices is asked for as a slice; and each backend takes its
own arrays, not one that has only some of what it looks for.

Reaches into `lazytensor.bases.arraylike`: the zarr backend's basic reads are recorded to check that
a stack of views is one request.
"""

from __future__ import annotations

import math
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
import zarr
from bases_support import Plain
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Op, shapes, view_ops

import lazytensor as lt
from lazytensor.bases import arraylike

Shape = tuple[int, ...]


class Recording(Plain):
    """A slice-only array-like that keeps every key it is asked for."""

    def __init__(self, array: np.ndarray) -> None:
        super().__init__(array)
        self.keys: list[object] = []

    def __getitem__(self, key: Any) -> np.ndarray:
        self.keys.append(key)
        return super().__getitem__(key)


@st.composite
def strided_chains(draw: st.DrawFn) -> tuple[Shape, list[Op]]:
    """A shape and up to four views numpy takes without a copy (basic keys, permutations, new and
    dropped axes, expands): every one of them fuses into a strided layout."""
    shape = draw(shapes(max_dims=4, max_side=5))
    current = np.empty(shape)
    ops: list[Op] = []
    for _ in range(draw(st.integers(1, 4))):
        op = draw(view_ops(current.shape).filter(lambda op: op[3]))
        current = op[2](current)
        ops.append(op)
    return shape, ops


def _expected_key(values: np.ndarray, shape: Shape) -> tuple[slice | int, ...]:
    """The one request that holds exactly the positions `values` (flat indices) reach: per array
    axis, its only coordinate, or a slice stepping through its coordinates."""
    if not shape:
        return ()
    coords = np.unravel_index(np.unique(values), shape)
    key: list[slice | int] = []
    for c in coords:
        axis = np.unique(c)
        if len(axis) == 1:
            key.append(int(axis[0]))
        else:
            key.append(slice(int(axis[0]), int(axis[-1]) + 1, int(axis[1] - axis[0])))
    return tuple(key)


def _view(array: Any, shape: Shape, ops: list[Op]) -> tuple[lt.AbstractTensor, np.ndarray]:
    t: Any = lt.from_array(array)
    ref = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    for _, lt_step, np_step, _ in ops:
        t, ref = lt_step(t), np_step(ref)
    return t, ref


@settings(max_examples=300, deadline=None)
@given(chain=strided_chains())
def test_a_stack_of_basic_views_is_one_request_of_the_slices_it_reaches(
    chain: tuple[Shape, list[Op]],
) -> None:
    shape, ops = chain
    array = Recording(np.arange(math.prod(shape), dtype=np.int32).reshape(shape))
    t, ref = _view(array, shape, ops)
    assert t.layout is not None
    got = t.numpy()
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
    assert array.keys == ([] if ref.size == 0 else [_expected_key(ref, shape)])


@pytest.mark.parametrize(
    ("view", "np_view", "key"),
    [
        (lambda t: t[::-1, 1::2], lambda a: a[::-1, 1::2], (slice(0, 3, 1), slice(1, 4, 2))),
        (lambda t: t.T[::-2, :], lambda a: a.T[::-2, :], (slice(0, 3, 1), slice(1, 4, 2))),  # then flipped
        (lambda t: t.permute(1, 0)[2, ::-1], lambda a: a.transpose(1, 0)[2, ::-1], (slice(0, 3, 1), 2)),
        (  # axes of size 1 broadcast
            lambda t: t[1:2, None, ::-3].expand(2, 4, 2),
            lambda a: np.broadcast_to(a[1:2, None, ::-3], (2, 4, 2)),
            (1, slice(0, 4, 3)),
        ),
        (  # a new leading axis of stride 0
            lambda t: t[:, 2].expand(5, 3),
            lambda a: np.broadcast_to(a[:, 2], (5, 3)),
            (slice(0, 3, 1), 2),
        ),
        (lambda t: t[:, :0], lambda a: a[:, :0], None),  # nothing to read: no request
        (
            lambda t: t[::-1][:, :, None].permute(2, 1, 0)[0],
            lambda a: a[::-1][:, :, None].transpose(2, 1, 0)[0],
            (slice(0, 3, 1), slice(0, 4, 1)),
        ),
    ],
)
def test_a_zarr_view_reads_numpys_values_in_one_basic_request(
    view: Any, np_view: Any, key: tuple[object, ...] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = np.arange(12, dtype=np.int16).reshape(3, 4) * 7 - 30
    array = zarr.create_array(store={}, shape=(3, 4), chunks=(2, 2), dtype=values.dtype)
    array[...] = values
    asked: list[object] = []
    basic = arraylike.ZarrBackend.basic

    def recording(self: arraylike.ZarrBackend, array: Any, key: Any) -> Any:
        asked.append(key)
        return basic(self, array, key)

    monkeypatch.setattr(arraylike.ZarrBackend, "basic", recording)
    t = view(lt.from_array(array))
    expected = np_view(values)
    got = t.numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    assert asked == ([] if key is None else [key])


def test_a_strided_view_of_a_dask_base_stays_one_slice_of_the_dask_array() -> None:
    values = np.arange(24.0).reshape(2, 3, 4)
    t = lt.from_array(da.from_array(values, chunks=2))
    view = t.permute(2, 0, 1)[::-2, :, 1:].expand(3, 2, 2, 2)
    expected = np.broadcast_to(values.transpose(2, 0, 1)[::-2, :, 1:], (3, 2, 2, 2))
    (computed,) = dask.compute(view)
    np.testing.assert_array_equal(computed.numpy(), expected)
    np.testing.assert_array_equal((view + 1).numpy(), expected + 1)


# -- gathers of flat indices ---------------------------------------------------------------------------


def _irregular(t: Any) -> Any:
    """Columns 0, 1, 3: a fancy index that no layout expresses, so reads gather flat indices."""
    return t[:, [0, 1, 3]]


@pytest.mark.parametrize("kind", ["plain", "zarr", "dask"])
@pytest.mark.parametrize(
    "view",
    [
        lambda t: _irregular(t)[:0],  # nothing
        lambda t: _irregular(t)[1:2, 2:3],  # one element
        lambda t: _irregular(t)[2, 2, ...],  # one element, 0-d
        lambda t: _irregular(t)[::-1],
        lambda t: _irregular(t)[[2, 0, 2]],  # repeated rows
    ],
)
def test_a_gather_reads_numpys_values_and_dtype(kind: str, view: Any) -> None:
    values = np.arange(12, dtype=np.int64).reshape(3, 4) * 3 + 2**40  # no value is 0 or small
    array: Any
    if kind == "zarr":
        array = zarr.create_array(store={}, shape=values.shape, chunks=(2, 2), dtype=values.dtype)
        array[...] = values
    elif kind == "dask":
        array = da.from_array(values, chunks=2)
    else:
        array = Plain(values.copy())
    t = view(lt.from_array(array))
    expected = view(values)
    assert t.layout is None
    for got in (t.numpy(), dask.compute(t)[0].numpy(), (t + 0).numpy()):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", ["plain", "zarr", "dask", "numpy"])
def test_a_gather_from_a_0_d_base_repeats_its_one_value(kind: str) -> None:
    value = np.array(2**40 + 3, dtype=np.int64)
    array: Any
    if kind == "zarr":
        array = zarr.create_array(store={}, shape=(), dtype=value.dtype)
        array[...] = value
    elif kind == "dask":
        array = da.from_array(value)
    elif kind == "plain":
        array = Plain(value.copy())
    else:
        array = value.copy()
    points = lt.from_array(array).reshape(1, 1).expand(2, 3)[[0, 1, 1], [2, 0, 1]]
    assert points.layout is None
    for view in (points, points[1, ...]):  # three values, and one (0-d)
        expected = np.full(view.shape, value)
        for got in (view.numpy(), dask.compute(view)[0].numpy(), (view + 0).numpy()):
            assert got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_array_equal(got, expected)


def test_a_run_of_indices_along_an_axis_is_asked_for_as_a_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arraylike, "BACKENDS", list(arraylike.BACKENDS))  # the new class registers itself
    asked: list[object] = []

    class Outer(arraylike.Backend):
        kind = "outer"
        indexing = arraylike.Indexing.OUTER

        @classmethod
        def accepts(cls, array: Any) -> bool:
            return isinstance(array, Recording)

        def outer(self, array: Any, keys: Any) -> Any:
            asked.append(keys)
            return array.array[np.ix_(*arraylike._per_axis(keys, array.shape))]

    values = np.arange(30).reshape(5, 6)
    t = lt.from_array(Recording(values))
    view = t[[1, 2, 3]][:, [2, 3, 5]]  # rows 1..3 (a run from 1), columns 2, 3, 5 (not a run)
    np.testing.assert_array_equal(view.numpy(), values[[1, 2, 3]][:, [2, 3, 5]])
    ((rows, columns),) = asked
    assert rows == slice(1, 4) and columns.tolist() == [2, 3, 5]
    asked.clear()
    np.testing.assert_array_equal(t[:, [0, 1, 3]].numpy(), values[:, [0, 1, 3]])
    ((rows, columns),) = asked
    assert rows == slice(None) and columns.tolist() == [0, 1, 3]


# -- which backend takes an array ---------------------------------------------------------------------


class _Attrs(Plain):
    """An array-like with extra attributes, each None: what a backend's `accepts` looks for."""

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__(np.zeros(2))
        for name in names:
            setattr(self, name, None)


@pytest.mark.parametrize(
    ("kind", "names"),
    [
        ("dask", ("__dask_graph__", "vindex")),
        ("hdf5", ("read_direct", "file", "chunks")),
        ("xarray", ("dims", "variable", "isel")),
    ],
)
def test_a_backend_takes_an_array_with_all_it_looks_for_and_none_with_only_some(
    kind: str, names: tuple[str, ...]
) -> None:
    backend = next(b for b in arraylike.BACKENDS if b.kind == kind)
    assert backend.accepts(_Attrs(names))
    for missing in names:
        partial = _Attrs(tuple(n for n in names if n != missing))
        assert not backend.accepts(partial), missing
        assert arraylike.backend_of(partial).kind == "array"
    assert not backend.accepts(_Attrs(()))

"""Array-like bases (zarr, dask, any object with shape, dtype and __getitem__): every view over them
reads the values numpy's views give, reads touch only the chunks they need, writes land in zarr,
dask stays lazy until asked, and a cluster computes what numpy computes.

Reaches into `lazytensor.bases.arraylike` and `lazytensor.tensors.evaluate`: the size from which a
read materialises is lowered to take both paths, and a missing dependency is planted in the module
that imports it.
"""

from __future__ import annotations

import importlib.util
import math
import operator
from typing import Any

import dask
import dask.array as da
import distributed
import numpy as np
import pytest
import zarr
from bases_support import Plain
from hypothesis import given, settings
from hypothesis import strategies as st
from store_support import CountingStore
from strategies import chains

import lazytensor as lt
from lazytensor.bases import arraylike
from lazytensor.tensors import evaluate


def _chunks(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(max(1, min(2, size)) for size in shape)


def _zarr(values: np.ndarray, store: Any = None) -> Any:
    array = zarr.create_array(
        store={} if store is None else store,
        shape=values.shape,
        chunks=_chunks(values.shape),
        dtype=values.dtype,
    )
    array[...] = values
    return array


def _make(kind: str, values: np.ndarray) -> Any:
    if kind == "zarr":
        return _zarr(values)
    if kind == "dask":
        return da.from_array(values, chunks=_chunks(values.shape))
    if kind == "plain":
        return Plain(values.copy())
    return values.copy()


def _apply(t: lt.AbstractTensor, ref: np.ndarray, ops: list[Any]) -> tuple[lt.AbstractTensor, np.ndarray]:
    for _, lt_step, np_step, _ in ops:
        t, ref = lt_step(t), np_step(ref)
    return t, ref


# -- every view over every kind of base reads numpy's values ------------------------------------------


@pytest.mark.parametrize("kind", ["zarr", "dask", "plain", "numpy"])
@pytest.mark.parametrize("factor", [0, 10**9], ids=["gather", "materialise"])
@settings(max_examples=40, deadline=None)
@given(chain=chains())
def test_random_view_stacks_read_what_numpy_reads(kind: str, factor: int, chain: Any) -> None:
    shape, ops = chain
    values = np.arange(math.prod(shape)).reshape(shape)
    t, ref = _apply(lt.from_array(_make(kind, values)), values, ops)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluate, "MATERIALISE_FACTOR", factor)
        np.testing.assert_array_equal(t.numpy(), ref)
    for pos in list(np.ndindex(*t.shape))[:5]:
        assert t.get(pos) == ref[pos]


@pytest.mark.parametrize("kind", ["zarr", "plain", "numpy"])
@settings(max_examples=60, deadline=None)
@given(chain=chains(), seed=st.integers(0, 2**16))
def test_writes_through_random_views_land_where_numpy_says(kind: str, chain: Any, seed: int) -> None:
    shape, ops = chain
    values = np.arange(math.prod(shape)).reshape(shape)
    array = _make(kind, values)
    t, ref = _apply(lt.from_array(array), np.arange(values.size).reshape(shape), ops)
    if any(isinstance(layer, lt.ExpandedTensor) for layer in t.layers):
        with pytest.raises(ValueError, match="expand"):
            t[...] = 0
        return
    new = np.random.default_rng(seed).integers(1000, 2000, size=ref.shape)
    expected = values.reshape(-1).copy()
    expected[ref.reshape(-1)] = new.reshape(-1)  # numpy's last-write-wins for repeated positions
    t[...] = new
    stored = array[...] if kind == "zarr" else array.array if kind == "plain" else array
    np.testing.assert_array_equal(np.asarray(stored).reshape(-1), expected)


def test_one_element_writes_and_reads_through_a_zarr_view() -> None:
    array = _zarr(np.zeros((4, 5)))
    t = lt.from_array(array).T[::2]
    t.set((1, 3), 7.5)
    t[0, -1] = 2.0
    assert array[3, 2] == 7.5 and array[3, 0] == 2.0
    assert t[1, 3] == 7.5 and t.get((0, 3)) == 2.0


# -- reads touch only the chunks they need ----------------------------------------------------------------


def _big(store: CountingStore) -> Any:
    """A 240,000,000-element array of a fill value: nothing written, so it costs nothing on disk."""
    return zarr.create_array(
        store=store, shape=(400, 600, 1000), chunks=(16, 16, 16), dtype="f4", fill_value=1.5
    )


def test_writes_through_views_rewrite_only_the_chunks_they_touch() -> None:
    store = CountingStore()
    t = lt.from_array(_big(store))
    t.permute(2, 0, 1)[::3, 10:390, 5][[0, -1], 2:4] = -2.0  # base (12..13, 5, 0) and (12..13, 5, 999)
    assert sorted(store.chunk_writes) == ["c/0/0/0", "c/0/0/62"]
    t.T[-1, 17, [3, 300]] = 4.0  # base (3, 17, 999) and (300, 17, 999): a point write
    assert sorted(store.chunk_writes[2:]) == ["c/0/1/62", "c/18/1/62"]
    assert t[12, 5, 999] == -2.0 and t[300, 17, 999] == 4.0 and t[14, 5, 999] == 1.5


def test_an_operation_on_a_zarr_slice_reads_only_the_slices_chunks() -> None:
    store = CountingStore()
    array = zarr.create_array(store=store, shape=(4, 6), chunks=(1, 2), dtype="f8")
    array[...] = np.arange(24.0).reshape(4, 6)
    t = lt.from_array(array)
    np.testing.assert_array_equal((t[1] * 2).numpy(), np.arange(6.0, 12.0) * 2)
    assert sorted(store.chunk_reads) == ["c/1/0", "c/1/1", "c/1/2"]


def test_two_zarr_arrays_in_one_operation_each_read_their_own_values() -> None:
    values = np.arange(6).reshape(2, 3)
    a, b = lt.from_array(_zarr(values)), lt.from_array(_zarr(values * 10))
    np.testing.assert_array_equal((a + b).numpy(), values * 11)
    np.testing.assert_array_equal((a.T @ b).numpy(), values.T @ (values * 10))


def test_building_views_reads_nothing() -> None:
    store = CountingStore()
    t = lt.from_array(_big(store))
    views = [
        t.T,
        t.permute(2, 0, 1)[::3, 10:390, 5],
        t.reshape(400, -1)[[1, 7, 3]],
        t[t.shape[0] - 1 :: -7, [5, 9], None],
        t.oindex[[0, 399], :, [1, 2]],
        t[5].expand(3, 600, 1000),
        t.slice([[0, 2], None, 4]),
    ]
    assert [v.ndim for v in views] and store.chunk_reads == []
    assert "zarr" in str(views[1].explain())
    assert store.chunk_reads == []


def test_printing_a_view_reads_exactly_the_chunks_holding_shown_items() -> None:
    store = CountingStore()
    t = lt.from_array(_big(store))
    view = t.permute(2, 0, 1)[::3, 10:390, 5]  # shape (334, 380): base (10 + column, 5, 3 * row)
    assert view.shape == (334, 380)
    text = repr(view)
    rows = [0, 1, 2, 331, 332, 333]
    columns = [0, 1, 2, 377, 378, 379]
    expected = {f"c/{(10 + c) // 16}/{5 // 16}/{(3 * r) // 16}" for r in rows for c in columns}
    assert set(store.chunk_reads) == expected
    assert len(store.chunk_reads) == len(expected)  # each chunk once: one orthogonal request
    assert "1.5" in text and "stats skipped: zarr" in text


def test_a_scattered_selection_reads_its_points_not_their_bounding_box() -> None:
    store = CountingStore()
    t = lt.from_array(_big(store))
    view = t[[0, 399, 0], [0, 599, 599], [0, 999, 500]]  # three corners, not an outer product
    assert view.tolist() == [1.5, 1.5, 1.5]
    assert len(set(store.chunk_reads)) == 3


def test_a_plain_array_like_reads_scattered_points_one_by_one_not_a_huge_box() -> None:
    plain = Plain(np.arange(10**6).reshape(1000, 1000))
    t = lt.from_array(plain)
    assert t[[0, 999], [0, 999]].tolist() == [0, 999999]
    assert plain.requests == 2


# -- what the base says about itself -------------------------------------------------------------------------


def test_explain_and_header_show_the_base_as_what_it_is(tmp_path: Any) -> None:
    path = tmp_path / "a.zarr"
    zarr.create_array(store=str(path), shape=(6, 8), chunks=(3, 4), dtype="i2", fill_value=0)
    t = lt.open(path)
    with lt.printoptions(linewidth=400):
        tree = str(t.T[1:].explain())
    assert "Zarr" in tree and "zarr array (6, 8) × int16" in tree and "chunks (3, 4)" in tree
    assert "a.zarr" in tree
    assert "layers Sliced ∘ Transposed ∘ Zarr" in repr(t.T[1:])
    trace = str(t.T.explain((1, 2)))
    assert "storage index 17 holds 0" in trace


def test_an_array_base_has_no_flat_buffer_and_says_where_its_array_is() -> None:
    t = lt.from_array(da.zeros((2, 3), chunks=1))
    message = (
        r"^a dask-backed tensor of shape \(2, 3\) has no flat numpy buffer: "
        r"its array is t\.base\.array, its values t\.numpy\(\)$"
    )
    with pytest.raises(TypeError, match=message):
        _ = t.T.storage
    assert t.T.shares_storage(t) and not t.shares_storage(lt.from_array(da.zeros((2, 3), chunks=1)))
    assert t.locate((1, 2)) == 5 and t.T.locate((2, 1)) == 5


def test_a_missing_backend_names_the_extra_to_install() -> None:
    with pytest.raises(ImportError, match=r"pip install -e '\.\[zarr\]'"):
        arraylike.require("zarr_that_is_not_installed", "zarr")


def test_open_reads_npy_and_zarr_and_refuses_what_is_neither(tmp_path: Any) -> None:
    lt.save(tmp_path / "t.npy", lt.arange(6).reshape(2, 3))
    assert lt.open(tmp_path / "t.npy").T.tolist() == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(FileNotFoundError):
        lt.open(tmp_path / "missing.zarr")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="empty"):
        lt.open(tmp_path / "empty")
    store = tmp_path / "z.zarr"
    zarr.create_array(store=str(store), shape=(3,), chunks=(2,), dtype="f8", fill_value=0)
    lt.open(store)[1:] = 4.0
    assert lt.open(store, mode="r").tolist() == [0.0, 4.0, 4.0]
    with pytest.raises(ValueError, match="read-only"):
        lt.open(store, mode="r")[0] = 1.0


def test_operations_on_zarr_run_chunk_by_chunk_into_memory() -> None:
    store = CountingStore()
    values = np.arange(120.0).reshape(10, 12)
    array = zarr.create_array(store=store, shape=values.shape, chunks=(3, 4), dtype="f8")
    array[...] = values
    t = lt.from_array(array)
    store.chunk_reads.clear()
    total = (t.T[::2] * 2).sum(0)
    assert isinstance(total, lt.StorageTensor)
    np.testing.assert_array_equal(total.numpy(), (values.T[::2] * 2).sum(0))
    assert len(store.chunk_reads) == len(set(store.chunk_reads)) == 12  # each chunk read once
    np.testing.assert_array_equal(lt.ttransform(t[1:3], lambda x: x // 7).numpy(), values[1:3] // 7)
    (computed,) = dask.compute(t[::-1])
    np.testing.assert_array_equal(computed.numpy(), values[::-1])


# -- dask: lazy operations, read-only, one compute per print -------------------------------------------------


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("computed too early")


def _dask_pair() -> tuple[lt.AbstractTensor, np.ndarray]:
    values = np.arange(60.0).reshape(3, 4, 5) - 20
    return lt.from_array(da.from_array(values, chunks=(2, 2, 5))), values


OPERATIONS = {
    "arithmetic": (lambda t: (t.T[::2] * 2 + 1).sum(0), lambda a: (a.T[::2] * 2 + 1).sum(0)),
    "broadcast": (lambda t: t - t.mean(2, keepdim=True), lambda a: a - a.mean(2, keepdims=True)),
    "reductions": (
        lambda t: t.max(1) / (t.std() + t.var(0).min()),
        lambda a: a.max(1) / (a.std() + a.var(0).min()),
    ),
    "matmul": (lambda t: t @ t.mT, lambda a: a @ np.swapaxes(a, -1, -2)),
    "where": (lambda t: lt.where(t > 0, t, -t), lambda a: np.where(a > 0, a, -a)),
    "clip": (lambda t: t.clip(-3, 4).exp(), lambda a: np.exp(np.clip(a, -3, 4))),
    "argmax": (lambda t: t.argmax(1), lambda a: a.argmax(1)),
    "softmax": (lambda t: t.softmax(2), lambda a: np.exp(a) / np.exp(a).sum(2, keepdims=True)),
    "mixed": (lambda t: t * lt.arange(5.0) + np.ones(5), lambda a: a * np.arange(5.0) + 1),
    "ttransform": (
        lambda t: lt.ttransform(t[1:], lambda x: x / 2 if x > 0 else 0.0),
        lambda a: np.where(a[1:] > 0, a[1:] / 2, 0.0),
    ),
    "tpoint": (lambda t: lt.tpoint(t, t[0, :, :1], lambda x, y: x - y), lambda a: a - a[0, :, :1]),
    "tredux": (lambda t: lt.tredux(t, 1, 0.0, lambda acc, x: acc + x * x), lambda a: (a * a).sum(1)),
    "tredux keepdim": (
        lambda t: lt.tredux(t, 0, 1.0, operator.mul, keepdim=True),
        lambda a: a.prod(0, keepdims=True),
    ),
}


@pytest.mark.parametrize("name", OPERATIONS)
def test_operations_on_dask_stay_lazy_and_compute_what_numpy_computes(name: str) -> None:
    t, values = _dask_pair()
    ours, numpys = OPERATIONS[name]
    with dask.config.set(scheduler=_refuse):
        result = ours(t)
    assert result.base.layer_name == "Dask", name
    np.testing.assert_allclose(result.numpy(), numpys(values))
    np.testing.assert_allclose(result.compute().numpy(), numpys(values))


def test_dask_compute_of_tensors_gives_tensors_in_memory() -> None:
    t, values = _dask_pair()
    total, view = dask.compute(t.sum(2), t.T[1])
    assert isinstance(total, lt.StorageTensor) and isinstance(view, lt.StorageTensor)
    np.testing.assert_array_equal(total.numpy(), values.sum(2))
    np.testing.assert_array_equal(view.numpy(), values.T[1])
    assert dask.base.is_dask_collection(t.T) and not dask.base.is_dask_collection(lt.arange(3))


def test_dask_persist_keeps_a_dask_backed_tensor() -> None:
    t, values = _dask_pair()
    (persisted,) = dask.persist(t.T[::2])
    assert persisted.base.layer_name == "Dask"
    np.testing.assert_array_equal(persisted.numpy(), values.T[::2])


def test_gradients_do_not_pass_silently_through_dask() -> None:
    t, _ = _dask_pair()
    w = lt.ones(5, requires_grad=True)
    with pytest.raises(TypeError, match=r"gradients do not flow .* dask-backed .* shape \(5,\)"):
        _ = t * w
    with lt.no_grad():
        assert (t * w).base.layer_name == "Dask"


def test_a_print_of_a_dask_backed_tensor_is_one_compute() -> None:
    t = lt.from_array(da.arange(10**6, chunks=1000).reshape(100, 100, 100))
    calls: list[int] = []

    def counting(graph: Any, keys: Any, **kwargs: Any) -> Any:
        calls.append(len(keys))
        return dask.get(graph, keys, **kwargs)

    with dask.config.set(scheduler=counting):
        text = repr(t.T[::2] * 2)
    assert len(calls) == 1
    assert "stats skipped: dask" in text and "1999996" in text


def test_a_dask_backed_tensor_refuses_writes_naming_dask() -> None:
    t, _ = _dask_pair()
    for write in (
        lambda: t.__setitem__(0, 1.0),
        lambda: t.T.set((0, 0, 0), 1.0),
        lambda: t[[0, 1]].__setitem__(..., 2),
    ):
        with pytest.raises(ValueError, match="dask"):
            write()


def test_a_lambda_and_a_reduction_run_on_a_local_cluster() -> None:
    values = np.arange(4000.0).reshape(40, 100)
    t = lt.from_array(da.from_array(values, chunks=(10, 50)))
    reduced = t.T[::3, 5:].mean(1)
    transformed = lt.ttransform(t[::-2], lambda x: (x % 7) * 2)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
        ) as cluster,
        distributed.Client(cluster, timeout="60s") as client,
        distributed.get_task_stream(client) as tasks,
    ):
        mean, doubled = dask.compute(reduced, transformed)  # the user's code, run by the active client
        assert len(client.scheduler_info()["workers"]) == 2
    assert len({task["worker"] for task in tasks.data}) >= 1 and tasks.data
    np.testing.assert_allclose(mean.numpy(), values.T[::3, 5:].mean(1))
    np.testing.assert_array_equal(doubled.numpy(), (values[::-2] % 7) * 2)


def test_has_dask_asks_importlib_for_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    arraylike.has_dask.cache_clear()
    try:
        assert arraylike.has_dask() is True  # dask is a dev dependency
        arraylike.has_dask.cache_clear()
        monkeypatch.setattr(importlib.util, "find_spec", lambda name: asked.append(name))
        assert arraylike.has_dask() is False and asked == ["dask"]
    finally:
        monkeypatch.undo()
        arraylike.has_dask.cache_clear()

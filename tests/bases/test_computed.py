"""Reaches into `lazytensor.bases.computed` and `lazytensor.bases.arraylike`: computed tensors are
bases of their own, and the tests read their block grid and count the requests their operands get.

Elementwise operations on every base not in memory are computed tensors: values equal to numpy's,
reads only of what is read (chunks counted on a zarr store and on a minimal array-like), writes
refused with nothing changed, views and operations stacked at any depth, and a materialisation
past `materialize_limit` refused in one line.
"""

from __future__ import annotations

import functools
import operator
import pickle
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import numpy as np
import pytest
import zarr
from bases_support import Plain, on_base
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_support import peak_bytes
from store_support import CountingStore
from tree_support import Both, Pair, same, trees

import lazytensor as lt
from lazytensor.bases import computed

LAZY_KINDS = ("mmap", "zarr", "h5py", "xarray", "getitem")
"""Bases not in memory (the memory map made big enough to count: `mmap_lazy_bytes=0`)."""

_rng = np.random.default_rng(40)
VALUES = _rng.uniform(0.5, 3.0, size=(5, 6)).round(3)
ROW = _rng.uniform(0.5, 3.0, size=(6,)).round(3)

EXPRESSIONS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "arithmetic": (lambda t: t * 2 + 1, lambda a: a * 2 + 1),
    "broadcast": (lambda t: t - lt.tensor(ROW) / 3, lambda a: a - ROW / 3),
    "reflected": (lambda t: 10 / t, lambda a: 10 / a),
    "comparison": (lambda t: t > 1.5, lambda a: a > 1.5),
    "ufunc": (lambda t: np.log(abs(t) + 1), lambda a: np.log(abs(a) + 1)),
    "exp": (np.exp, np.exp),
    "where": (lambda t: lt.where(t > 1.5, t, 0.0), lambda a: np.where(a > 1.5, a, 0.0)),
    "np.where": (lambda t: np.where(t > 1.5, t, -t), lambda a: np.where(a > 1.5, a, -a)),
    "clip": (lambda t: t.clip(1.0, 2.0), lambda a: a.clip(1.0, 2.0)),
    "clip by rows": (lambda t: t.clip(lo=ROW), lambda a: np.maximum(a, ROW)),
    "astype": (lambda t: t.astype("float32"), lambda a: a.astype("float32")),
    "ttransform": (lambda t: lt.ttransform(t, lambda x: x * 3 - 1), lambda a: a * 3 - 1),
    "tpoint": (lambda t: lt.tpoint(t, lt.tensor(ROW), operator.mul), lambda a: a * ROW),
    "views on operations": (lambda t: (t.T * 2)[::-2, 1:4].T + 1, lambda a: (a.T * 2)[::-2, 1:4].T + 1),
    "two stored operands": (lambda t: t * t.T.T[::-1], lambda a: a * a[::-1]),
    "ints": (lambda t: (t * 1000).astype("int64") // 7 % 5, lambda a: (a * 1000).astype("int64") // 7 % 5),
}


def _lazy(kind: str, values: np.ndarray, folder: Path) -> lt.AbstractTensor:
    return on_base(kind, values, folder)


@pytest.mark.parametrize("kind", LAZY_KINDS)
@pytest.mark.parametrize("name", EXPRESSIONS)
def test_an_operation_on_a_base_not_in_memory_is_computed_with_numpy_s_values(
    kind: str, name: str, tmp_path: Path
) -> None:
    ours, theirs = EXPRESSIONS[name]
    with lt.options(mmap_lazy_bytes=0):
        result = ours(_lazy(kind, VALUES, tmp_path))
    expected = theirs(VALUES)
    assert "Computed" in [layer.layer_name for layer in result.layers] or result.base.layer_name == "Computed"
    values = result.numpy()
    assert values.dtype == expected.dtype and values.shape == expected.shape
    np.testing.assert_allclose(values, expected, rtol=1e-12)
    np.testing.assert_allclose(result[1:3, ::-2].numpy(), expected[1:3, ::-2], rtol=1e-12)
    assert result[-1, -1].item() == pytest.approx(expected[-1, -1].item())


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_in_memory_tensors_keep_computing_at_once(name: str) -> None:
    ours, theirs = EXPRESSIONS[name]
    result = ours(lt.tensor(VALUES))
    assert all(layer.layer_name != "Computed" for layer in result.layers)
    np.testing.assert_allclose(result.numpy(), theirs(VALUES), rtol=1e-12)


def test_a_small_memory_map_computes_in_memory_and_a_big_one_when_read(tmp_path: Path) -> None:
    t = on_base("mmap", VALUES, tmp_path)
    assert (t * 2).base.layer_name == "Storage"
    with lt.options(mmap_lazy_bytes=VALUES.nbytes):
        assert (t * 2).base.layer_name == "Computed"
    with lt.options(mmap_lazy_bytes=None):
        assert (t * 2).base.layer_name == "Storage"


def test_a_gradient_keeps_the_operation_in_memory(tmp_path: Path) -> None:
    w = lt.ones(6, requires_grad=True)
    product = on_base("h5py", VALUES, tmp_path) * w
    product.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), VALUES.sum(0))
    with lt.no_grad():
        assert (on_base("h5py", VALUES, tmp_path) * w).base.layer_name == "Computed"


# -- reads: only what is read, in the operands' chunks -----------------------------------------------------


def _counted_zarr(values: np.ndarray, chunks: tuple[int, ...]) -> tuple[lt.AbstractTensor, CountingStore]:
    store = CountingStore()
    array = zarr.create_array(store=store, shape=values.shape, chunks=chunks, dtype=values.dtype)
    array[...] = values
    store.chunk_reads.clear()
    return lt.from_array(array), store


def test_a_row_of_an_expression_on_zarr_reads_only_that_row_s_chunks() -> None:
    values = np.arange(40_000.0).reshape(200, 200)
    t, store = _counted_zarr(values, (10, 20))
    expression = t * 2 + 1
    assert store.chunk_reads == []  # building it reads nothing
    np.testing.assert_array_equal(expression[5, :10].numpy(), values[5, :10] * 2 + 1)
    assert store.chunk_reads == ["c/0/0"]
    store.chunk_reads.clear()
    np.testing.assert_array_equal(expression[5, 15:45].numpy(), values[5, 15:45] * 2 + 1)
    assert sorted(store.chunk_reads) == ["c/0/0", "c/0/1", "c/0/2"]


@settings(max_examples=30, deadline=None)
@given(
    start=st.tuples(st.integers(0, 29), st.integers(0, 19)),
    size=st.tuples(st.integers(1, 30), st.integers(1, 20)),
    step=st.tuples(st.integers(1, 4), st.integers(1, 4)),
)
def test_an_operation_reads_no_chunk_its_view_would_not(
    start: tuple[int, int], size: tuple[int, int], step: tuple[int, int]
) -> None:
    values = np.arange(600.0).reshape(30, 20)
    t, store = _counted_zarr(values, (4, 3))
    key = tuple(slice(a, a + n, s) for a, n, s in zip(start, size, step, strict=True))
    view_values = t[key].numpy()
    by_view = set(store.chunk_reads)
    store.chunk_reads.clear()
    np.testing.assert_array_equal(np.exp(t / 100)[key].numpy(), np.exp(values / 100)[key])
    assert set(store.chunk_reads) <= by_view and len(store.chunk_reads) == len(set(store.chunk_reads))
    assert view_values.shape == values[key].shape


def test_a_counting_array_like_gets_one_request_per_block_read() -> None:
    plain = Plain(np.arange(400.0).reshape(20, 20), chunks=(5, 5))
    t = lt.from_array(plain)
    expression = np.sqrt(t + 1)
    plain.requests = 0
    _ = t[3:7, 2:9].numpy()
    by_view = plain.requests
    plain.requests = 0
    np.testing.assert_allclose(expression[3:7, 2:9].numpy(), np.sqrt(plain.array[3:7, 2:9] + 1))
    assert by_view == 1 and plain.requests == 4  # the 2 × 2 chunks the box crosses, one block each


def test_the_block_grid_follows_the_operands_chunks_through_views() -> None:
    t, _ = _counted_zarr(np.zeros((40, 30)), (8, 6))
    assert (t * 2).base.array.chunks == (8, 6)
    assert (t.T * 2).base.array.chunks == (6, 8)
    assert (t[3:, ::2] * 2).base.array.grid == ((8, 3), (3, 0))
    assert ((t * 2).T[1:] + 1).base.array.chunks == (6, 8)


def test_a_full_read_holds_a_block_of_temporaries_at_a_time() -> None:
    values = np.arange(1200.0).reshape(40, 30)
    t, store = _counted_zarr(values, (8, 6))
    np.testing.assert_array_equal(((t - 1) * (t + 1)).numpy(), (values - 1) * (values + 1))
    assert len(store.chunk_reads) == 2 * 25  # each chunk once per operand


# -- writes refused, nothing changed ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ("zarr", "h5py", "getitem"))
def test_a_write_into_a_computed_tensor_is_refused_and_changes_nothing(kind: str, tmp_path: Path) -> None:
    t = on_base(kind, VALUES, tmp_path)
    expression = t * 2
    for write in (
        lambda: expression.__setitem__((0, 0), 1.0),
        lambda: expression.T[1:].__setitem__(..., 0.0),
        lambda: expression.set((1, 1), 5.0),
        lambda: expression.__iadd__(1),
        lambda: expression.add_(1),
    ):
        with pytest.raises(
            ValueError, match=r"^cannot write to a computed tensor of shape \(5, 6\): it is mul"
        ) as caught:
            write()
        assert "t.compute()" in str(caught.value) and "\n" not in str(caught.value)
    np.testing.assert_array_equal(t.numpy(), VALUES)
    np.testing.assert_array_equal(expression.numpy(), VALUES * 2)
    copy = expression.compute()
    copy[0, 0] = -1.0
    assert copy[0, 0].item() == -1.0 and lt.tensor(expression)[0, 0].item() == VALUES[0, 0] * 2


def test_a_computed_tensor_reads_its_operands_when_read(tmp_path: Path) -> None:
    t = on_base("zarr", VALUES, tmp_path)
    doubled = t * 2
    t[0, 0] = 100.0
    assert doubled[0, 0].item() == 200.0


# -- materialising on purpose -------------------------------------------------------------------------------


def test_a_materialisation_past_the_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    expression = on_base("zarr", VALUES, tmp_path) * 2
    with lt.options(materialize_limit=100):
        for materialise in (expression.numpy, lambda: np.asarray(expression), expression.compute):
            with pytest.raises(
                MemoryError, match=r"^materialising a computed tensor of shape \(5, 6\) needs 240 bytes"
            ) as caught:
                materialise()
            message = str(caught.value)
            assert "\n" not in message and "lt.save" in message and "materialize_limit" in message
        assert expression[0, :4].numpy().tolist() == (VALUES[0, :4] * 2).tolist()  # a slice fits
        with pytest.raises(MemoryError, match="zarr-backed tensor"):
            on_base("zarr", VALUES, tmp_path).numpy()
        assert lt.tensor(VALUES).numpy().shape == (5, 6)  # in memory: nothing to materialise
    assert expression.numpy().shape == (5, 6)


def test_the_options_are_checked() -> None:
    with pytest.raises(TypeError, match="unknown option materialise_limit; the options are"):
        lt.set_options(materialise_limit=1)
    with pytest.raises(ValueError, match="materialize_limit must be a number of bytes"):
        lt.set_options(materialize_limit=-1)


# -- explained, printed, handed to dask ------------------------------------------------------------------


def test_explain_shows_the_operation_and_follows_a_position_to_each_operand(tmp_path: Path) -> None:
    t, _ = _counted_zarr(VALUES, (2, 3))
    expression = (t.T * lt.tensor(np.arange(5.0)))[1:]
    tree = str(expression.explain())
    assert "Computed (6, 5) · mul(Transposed (6, 5), Storage (5,)) in blocks of (3, 2)" in tree
    assert "Zarr (5, 6)" in tree and "Storage (5,)" in tree
    trace = str(expression.explain((0, 3)))
    assert "operand 0 of the computation, at (1, 3)" in trace
    assert "operand 1 of the computation, at (3,)" in trace
    assert f"holds {float(VALUES[3, 1])!r}" in trace and "holds 3.0" in trace


def test_the_header_says_computed_and_what_a_full_read_costs(tmp_path: Path) -> None:
    expression = np.log(abs(on_base("zarr", VALUES, tmp_path)) + 1)
    text = str(expression)
    assert "computed" in text and "a full read computes 30 elements from zarr (240 bytes)" in text
    html = expression._repr_html_() if hasattr(expression, "_repr_html_") else ""
    bundle = expression._repr_mimebundle_() if not html else {"text/html": html}
    assert "a full read computes 30 elements" in str(bundle)


def test_to_dask_is_one_task_per_block(tmp_path: Path) -> None:
    t, _ = _counted_zarr(np.arange(1200.0).reshape(40, 30), (8, 6))
    lazy = (t * 2 + 1).to_dask()
    assert lazy.numblocks == (5, 5)
    np.testing.assert_array_equal(lazy.compute(), np.arange(1200.0).reshape(40, 30) * 2 + 1)
    (total,) = dask.compute((t * 2).sum())
    assert float(total) == float((np.arange(1200.0) * 2).sum())
    (doubled,) = dask.compute((t * 2)[::7])  # a computed tensor is a dask collection
    np.testing.assert_array_equal(doubled.numpy(), np.arange(1200.0).reshape(40, 30)[::7] * 2)


# -- random expression trees mixing views and operations, over zarr ---------------------------------------

_UNARY: list[Both] = [
    same(operator.neg),
    same(abs),
    same(lambda x: np.exp(x / 10)),
    same(lambda x: x * 2),
    same(lambda x: x + 1),
    same(lambda x: x.clip(-1.0, 1.0)),
    same(lambda x: (x > 0) * 1.0),
]
_VIEWS: list[Both] = [
    same(lambda x: x.T),
    same(lambda x: x[::-1]),
    same(lambda x: x[..., ::2]),
    same(lambda x: x[1:] if x.shape[0] > 1 else x),
    same(lambda x: x[[0, -1]] if x.shape[0] else x),
]
_BINARY: list[Both] = [same(operator.add), same(operator.mul), same(operator.sub), (lt.maximum, np.maximum)]


def _fit(left: Pair, right: Pair) -> Pair:
    """Views on one side changed the shape: the other side transposed, or its mean broadcast."""
    a, (b, y) = left[0], right
    if a.shape == b.shape:
        return right
    if b.T.shape == a.shape:
        return b.T, y.T
    return lt.tensor(y.mean()), y.mean()


_tree = functools.partial(trees, _UNARY, _VIEWS, _BINARY, _fit)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tree=_tree(),
    shape=st.tuples(st.integers(1, 7), st.integers(1, 7)),
    chunks=st.tuples(st.integers(1, 4), st.integers(1, 4)),
)
def test_random_expressions_of_views_and_operations_over_zarr_equal_numpy(
    tree: Any, shape: tuple[int, int], chunks: tuple[int, int]
) -> None:
    values = np.random.default_rng(shape[0] * 8 + shape[1]).uniform(-3, 3, size=shape)
    t, _ = _counted_zarr(values, chunks)
    ours, theirs = tree((t, values))
    expected = np.asarray(theirs)
    np.testing.assert_allclose(np.asarray(ours.numpy()), expected, rtol=1e-12, atol=1e-12)
    if expected.ndim == 2 and expected.size:
        np.testing.assert_allclose(ours[::-1, -1].numpy(), expected[::-1, -1], rtol=1e-12, atol=1e-12)


def test_pieces_split_a_range_at_the_block_borders() -> None:
    assert computed._pieces(range(9, 0, -3), 4, 0) == [
        ((0, 1), slice(9, 8, -3)),
        ((1, 2), slice(6, 5, -3)),
        ((2, 3), slice(3, 2, -3)),
    ]
    assert computed._pieces(range(2, 9), 4, 1) == [
        ((0, 1), slice(2, 3, 1)),
        ((1, 5), slice(3, 7, 1)),
        ((5, 7), slice(7, 9, 1)),
    ]


def test_a_computed_tensor_pickles_as_its_operation_and_operands(tmp_path: Path) -> None:
    lt.save(tmp_path / "a.zarr", lt.tensor(VALUES))
    expression = (np.exp(lt.open(tmp_path / "a.zarr") / 10) * 2)[1:, ::2]
    again = pickle.loads(pickle.dumps(expression))
    assert again.base.layer_name == "Computed"
    graph = expression.to_dask()  # what a cluster's workers get: blocks over the computed array
    np.testing.assert_allclose(pickle.loads(pickle.dumps(graph)).compute(), again.numpy(), rtol=1e-12)
    np.testing.assert_allclose(again.numpy(), (np.exp(VALUES / 10) * 2)[1:, ::2], rtol=1e-12)


def test_reads_of_an_expression_over_a_400_mb_store_hold_a_few_blocks() -> None:
    store = zarr.create_array(store={}, shape=(4000, 25000), chunks=(100, 5000), dtype="f4", fill_value=1.5)
    t = lt.from_array(store)  # 400 MB of float32, nothing stored
    expression = np.log(abs(t * 2 + 1) + 1)
    chunk = 100 * 5000 * 4
    assert peak_bytes(lambda: expression[5, :10].numpy()) < 8 * chunk
    assert peak_bytes(lambda: str(expression)) < 16 * chunk  # the corners a print shows
    slab = peak_bytes(lambda: expression[:200, :10000].numpy())  # 8 MB: the result and a few blocks
    assert slab < 200 * 10000 * 4 + 8 * chunk


def test_an_operation_that_cannot_run_raises_numpy_s_error_when_made(tmp_path: Path) -> None:
    ints = on_base("zarr", np.arange(1, 7).reshape(2, 3), tmp_path)
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        _ = ints**-1
    with pytest.raises(ValueError, match=r"^shapes \(2, 3\) and \(4,\) cannot be broadcast together"):
        _ = ints + lt.arange(4)
    with pytest.raises(ValueError, match=r"^shapes \(2, 3\) and \(4,\) cannot be broadcast together"):
        _ = lt.tensor(np.arange(6).reshape(2, 3)) + lt.arange(4)  # the same words in memory


@pytest.mark.parametrize("shape", [(), (0, 3), (1, 1), (3, 0, 2)])
def test_0_d_and_empty_computed_tensors(shape: tuple[int, ...], tmp_path: Path) -> None:
    values = np.arange(float(np.prod(shape))).reshape(shape) + 0.5
    expression = on_base("zarr", values, tmp_path) * 2 - 1
    assert expression.shape == shape and expression.dtype == np.float64
    np.testing.assert_array_equal(expression.numpy(), values * 2 - 1)


def test_past_max_depth_nested_operations_compute_in_memory() -> None:
    t, _ = _counted_zarr(np.ones((20, 20)), (5, 5))
    c = t
    for _ in range(computed.MAX_DEPTH):
        c = (c + 1)[::1]
    assert c.base.layer_name == "Computed" and c.base.array.depth == computed.MAX_DEPTH
    deeper = (c + 1)[::-1]
    assert deeper.base.layer_name == "Storage"
    np.testing.assert_array_equal(deeper.numpy(), np.full((20, 20), computed.MAX_DEPTH + 2.0))
    assert c[3, :4].tolist() == [computed.MAX_DEPTH + 1.0] * 4
    assert "Computed" in str(c.explain())


@pytest.mark.parametrize("kind", LAZY_KINDS)
def test_stored_operands_broadcast_along_size_1_axes_in_every_block(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored (1, n) row and (n, 1) column, each read at its one position by blocks of 4 elements
    that start past it."""
    monkeypatch.setattr(computed, "BLOCK_ELEMENTS", 4)
    row, column = VALUES[:1], VALUES[:, :1] + 1
    with lt.options(mmap_lazy_bytes=0):
        result = _lazy(kind, VALUES, tmp_path) - _lazy(kind, row, tmp_path) * _lazy(kind, column, tmp_path)
    expected = VALUES - row * column
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-15)
    np.testing.assert_allclose(result[2:, ::-1].numpy(), expected[2:, ::-1], rtol=1e-15)
    np.testing.assert_allclose(
        result[[4, 1, 3]][:, [5, 2]].numpy(), expected[[4, 1, 3]][:, [5, 2]], rtol=1e-15
    )


@pytest.mark.parametrize("kind", LAZY_KINDS)
def test_numpy_s_error_state_where_an_operation_is_written_rules_its_reads(kind: str, tmp_path: Path) -> None:
    """`np.errstate` around the operation, not around the read, decides whether a division by zero
    is silent, warns or raises, as it does for numpy's eager operation; a pickled copy keeps it."""
    values = np.array([[0.0, 1.0, 2.0], [4.0, 0.0, 8.0]])
    with lt.options(mmap_lazy_bytes=0):
        t = _lazy(kind, values, tmp_path)
        with np.errstate(divide="ignore"):
            quiet = 1 / t
        with np.errstate(divide="raise"):
            loud = 1 / t
        warned = 1 / t
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(quiet.numpy(), [[np.inf, 1.0, 0.5], [0.25, np.inf, 0.125]])
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(quiet)).numpy(), quiet.numpy())
    with pytest.raises(FloatingPointError, match="divide by zero"):
        loud.numpy()
    with np.errstate(divide="ignore"), pytest.warns(RuntimeWarning, match="divide by zero"):
        warned[1:, 1:].numpy()

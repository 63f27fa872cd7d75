"""`t.stats()` in one pass: numpy's statistics on every kind of base (numpy, memory map, zarr, dask, h5py,
xarray, a bare array-like), each stored chunk read once, a
dask base computed once, expanded axes at the cost of their base, and progress on a terminal.

Reaches into `lazytensor.printer` and `lazytensor.ground`: the pass (`one_pass`) runs at small chunk
sizes, and its plan (`block_keys`; `base_region` and `reordered_from` from `ground.blockplan`) is
checked beside it.
"""

from __future__ import annotations

import collections
import io
import itertools
import math
import re
import tempfile
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
import zarr
from bases_support import KINDS, on_base
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from store_support import CountingStore
from strategies import chains

import lazytensor as lt
from lazytensor.ground.blockplan import base_region, reordered_from
from lazytensor.printer import streamstats
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.streamstats import Moments, block_keys, chunk_edges, one_pass
from lazytensor.printer.summary import streamed_statistics

STD_RTOL = 1e-9
"""Mean and std merged block by block agree with numpy's one-array result to this relative tolerance."""

SPECIALS = [np.nan, np.inf, -np.inf, 0.0]


class CountingArray:
    """An array-like that counts the requests dask's `from_array` makes of it (one per dask chunk)."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.shape = values.shape
        self.dtype = values.dtype
        self.ndim = values.ndim
        self.requests: list[Any] = []

    def __getitem__(self, key: Any) -> np.ndarray:
        self.requests.append(key)
        return np.array(self.values[key])


def numpy_numbers(values: np.ndarray) -> dict[str, Any]:
    """What numpy says, by hand: the statistics `t.stats()` reports."""
    if values.size == 0:
        return {}
    if values.dtype.kind == "b":
        true = int(np.count_nonzero(values))
        return {"true": true, "false": values.size - true}
    numbers: dict[str, Any] = {}
    finite = values[np.isfinite(values)]
    if finite.size:
        numbers |= {
            "min": finite.min(),
            "max": finite.max(),
            "mean": finite.mean(dtype=np.float64),
            "std": finite.std(dtype=np.float64),
        }
    numbers["zeros"] = int(np.count_nonzero(values == 0))
    if values.dtype.kind == "f":
        numbers |= {"nan": int(np.isnan(values).sum()), "inf": int(np.isinf(values).sum())}
    return numbers


def assert_numpy_statistics(got: list[tuple[str, Any]], values: np.ndarray) -> None:
    expected = numpy_numbers(values)
    assert [name for name, _ in got] == list(expected)
    for name, value in got:
        if name in ("mean", "std"):
            assert value == pytest.approx(float(expected[name]), rel=STD_RTOL, abs=1e-12), name
        else:
            assert value == expected[name], name


def _values(seed: int, shape: tuple[int, ...], specials: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.normal(3.0, 2.0, size=shape)
    if specials and values.size:
        picks = rng.integers(0, values.size, size=max(1, values.size // 5))
        values.reshape(-1)[picks] = rng.choice(SPECIALS, size=len(picks))
    return values


def _zarr(values: np.ndarray, chunks: tuple[int, ...], store: Any = None) -> Any:
    array = zarr.create_array(
        store={} if store is None else store,
        shape=values.shape,
        chunks=chunks,
        dtype=values.dtype,
        fill_value=0,
    )
    array[...] = values
    return array


def _chunks(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(max(1, min(3, size)) for size in shape)


# -- numpy's statistics on every base ---------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=40, deadline=None)
@given(
    chain=chains(), seed=st.integers(0, 2**16), specials=st.booleans(), chunk=st.sampled_from([1, 7, 10**6])
)
def test_stats_of_any_view_are_numpys_on_every_base(
    kind: str, chain: Any, seed: int, specials: bool, chunk: int
) -> None:
    shape, ops = chain
    values = _values(seed, shape, specials)
    with tempfile.TemporaryDirectory() as folder:
        t, ref = on_base(kind, values, Path(folder)), values
        for _, lt_step, np_step, _ in ops:
            t, ref = lt_step(t), np_step(ref)
        assert_numpy_statistics(one_pass(t, chunk).numbers(), np.asarray(ref))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), ()], ids=["empty", "empty_3d", "0d"])
def test_size_0_and_0d_tensors(kind: str, shape: tuple[int, ...], tmp_path: Path) -> None:
    values = np.full(shape, -2.5)
    t = on_base(kind, values, tmp_path)
    assert_numpy_statistics(one_pass(t).numbers(), values)
    report = t.stats()
    assert str(report).endswith("no values" if values.size == 0 else "nan 0 · inf 0")


@pytest.mark.parametrize(
    "values",
    [
        np.arange(-20, 17, dtype=np.int16).reshape(37, 1),
        np.array([[True, False, True], [True, True, False]]),
        np.array([1e6 + 1, 1e6 - 1, 1e6 + 3] * 40, dtype=np.float32).reshape(8, 15),
        np.full((6, 5), np.nan),
    ],
    ids=["ints", "bools", "float32_large_mean", "all_nan"],
)
@pytest.mark.parametrize("chunk", [1, 4, 10**6])
def test_stats_of_other_dtypes_on_zarr_are_numpys(values: np.ndarray, chunk: int) -> None:
    t = lt.from_array(_zarr(values, (4, 4)))
    assert_numpy_statistics(one_pass(t, chunk).numbers(), values)
    assert_numpy_statistics(one_pass(t.T[::-1], chunk).numbers(), values)


def test_complex_values_report_their_counts() -> None:
    values = np.array([1 + 2j, 0j, complex(np.nan, 1), complex(np.inf, 0), 3.5])
    assert dict(one_pass(lt.from_numpy(values), chunk=2).numbers()) == {"zeros": 1, "nan": 1, "inf": 1}


# -- each chunk read once ---------------------------------------------------------------------------


def _all_chunk_keys(shape: tuple[int, ...], chunks: tuple[int, ...]) -> set[str]:
    grid = [range(-(-n // c)) for n, c in zip(shape, chunks, strict=True)]
    return {"c/" + "/".join(map(str, ids)) for ids in itertools.product(*grid)}


def _touched_chunk_keys(positions: np.ndarray, shape: tuple[int, ...], chunks: tuple[int, ...]) -> set[str]:
    coords = np.unravel_index(positions.reshape(-1), shape)
    ids = zip(*(c // size for c, size in zip(coords, chunks, strict=True)), strict=True)
    return {"c/" + "/".join(map(str, map(int, i))) for i in ids}


@pytest.mark.parametrize("chunk", [1, 100, 10**6])
def test_stats_of_a_zarr_store_read_each_chunk_key_exactly_once(chunk: int) -> None:
    shape, chunks = (13, 10, 8), (5, 4, 3)
    values = _values(0, shape, specials=True)
    store = CountingStore()
    t = lt.from_array(_zarr(values, chunks, store))
    store.chunk_reads.clear()
    got = one_pass(t, chunk).numbers()
    assert collections.Counter(store.chunk_reads) == dict.fromkeys(_all_chunk_keys(shape, chunks), 1)
    assert_numpy_statistics(got, values)


def test_t_stats_reads_each_chunk_of_a_store_once() -> None:
    """The issue's case: a 200³ store in 50³ chunks read 176 chunk keys for 64 chunks."""
    shape, chunks = (200, 200, 200), (50, 50, 50)
    values = _values(1, shape, specials=True).astype(np.float32)
    store = CountingStore()
    t = lt.from_array(_zarr(values, chunks, store))
    store.chunk_reads.clear()
    report = t.stats()
    assert collections.Counter(store.chunk_reads) == dict.fromkeys(_all_chunk_keys(shape, chunks), 1)
    expected = numpy_numbers(values)
    assert report["nan"] == str(expected["nan"]) and report["zeros"] == str(expected["zeros"])
    assert float(report["std"]) == pytest.approx(float(expected["std"]), rel=1e-3)


@pytest.mark.parametrize(
    "view",
    [
        lambda t: t.T[::-1, 1:9:2],
        lambda t: t[3:11, ::-3, 2],
        lambda t: t.permute(2, 0, 1).reshape(8, -1),
        lambda t: t[[0, 5, 12]],
        lambda t: t.reshape(-1)[7:900],
        lambda t: t.T.reshape(-1),
    ],
    ids=[
        "transposed_strided",
        "int_and_negative_step",
        "permuted_reshape",
        "rows_gathered",
        "flat_range",
        "flattened_transpose",
    ],
)
@pytest.mark.parametrize("chunk", [1, 50, 10**6])
def test_stats_of_a_zarr_view_read_only_the_chunks_it_touches_once(view: Any, chunk: int) -> None:
    shape, chunks = (13, 10, 8), (5, 4, 3)
    values = _values(2, shape, specials=True)
    store = CountingStore()
    t = view(lt.from_array(_zarr(values, chunks, store)))
    positions = view(lt.arange(values.size).reshape(shape)).numpy()
    store.chunk_reads.clear()
    got = one_pass(t, chunk).numbers()
    touched = _touched_chunk_keys(positions, shape, chunks)
    if base_region(reordered_from(t)) is not None or t.numel() <= chunk:
        assert collections.Counter(store.chunk_reads) == dict.fromkeys(touched, 1)
    else:  # a view that is no box of its base streams its flattened values: never a chunk it misses
        assert set(store.chunk_reads) == touched
    assert_numpy_statistics(got, values.reshape(-1)[positions])


def test_stats_of_a_dask_base_are_one_compute_reading_each_chunk_once() -> None:
    values = _values(3, (40, 30), specials=True)
    source = CountingArray(values)
    t = lt.from_array(da.from_array(source, chunks=(8, 7)))
    source.requests.clear()  # dask's probe of the dtype at from_array
    computes: list[int] = []
    with dask.callbacks.Callback(start=lambda graph: computes.append(len(graph))):
        got = one_pass(t.T[::2]).numbers()
    assert len(computes) == 1
    assert len(source.requests) == math.ceil(40 / 8) * math.ceil(30 / 7)  # each chunk once
    assert len({str(key) for key in source.requests}) == len(source.requests)
    assert_numpy_statistics(got, values.T[::2])


# -- expanded axes cost what the base costs ---------------------------------------------------------


def test_stats_of_a_huge_expand_cost_its_base_and_count_exactly() -> None:
    e = lt.tensor([1.0, 2.0, 3.0]).expand(10**7, 10**7, 10, 3)
    report = e.stats()
    assert str(report).splitlines()[1] == "min 1 · max 3 · mean 2 · std 0.8165 · zeros 0 · nan 0 · inf 0"
    specials = lt.tensor([0.0, np.nan, np.inf, 4.0]).expand(10**7, 10**8, 4)
    counts = {name: specials.stats()[name] for name in ("zeros", "nan", "inf")}
    assert counts == dict.fromkeys(("zeros", "nan", "inf"), str(10**15))
    assert (specials.stats()["mean"], specials.stats()["std"]) == ("2", "2")  # of the finite 0 and 4


@pytest.mark.parametrize(
    "make",
    [
        lambda base: base.reshape(3, 1, 4).expand(5, 3, 6, 4),
        lambda base: base.reshape(3, 1, 4).expand(3, 7, 4).transpose(0, 2)[::-1, 1:],
        lambda base: base.reshape(12, 1).expand(12, 9)[2:10:3],
        lambda base: base.reshape(3, 4)[:, None, 1:].expand(3, 5, 3).reshape(15, 3),
    ],
    ids=["leading_and_middle", "transposed", "sliced", "reshaped"],
)
def test_stats_of_expands_weight_each_value_by_its_repeats(make: Any) -> None:
    values = np.array([1.5, -2.0, np.nan, 0.0, np.inf, 7.25, 3.0, -1.0, 0.0, 2.0, 11.0, 4.0])
    t = make(lt.from_numpy(values))
    ref = np.asarray(make(lt.from_numpy(values)).numpy())
    assert_numpy_statistics(one_pass(t).numbers(), ref)


def test_a_print_with_stats_limit_of_a_huge_expand_costs_its_base() -> None:
    e = lt.tensor([1.0, 2.0, 3.0]).expand(10**7, 10**7, 10, 3)
    text = lt.to_string(e, stats_limit=10**16)
    assert "min 1 · max 3 · mean 2 · std 0.8165 · zeros 0 · nan 0 · inf 0" in text
    assert "x∈[1, 3] μ=2 σ=0.8165" in str(e.summary(stats_limit=10**16))


# -- the plan: the box a view covers, blocks at chunk edges -----------------------------------------


@settings(max_examples=200, deadline=None)
@given(chain=chains())
def test_the_base_region_of_a_view_holds_exactly_its_values(chain: Any) -> None:
    shape, ops = chain
    base = lt.arange(math.prod(shape)).reshape(shape)
    t, ref = base, np.arange(math.prod(shape)).reshape(shape)
    for _, lt_step, np_step, _ in ops:
        t, ref = lt_step(t), np_step(ref)
    view, times = streamstats.distinct(t)
    region = base_region(view)
    if region is None:  # only a view with no layout, an empty one, or one whose positions are no box
        assert view.layout is None or view.numel() == 0 or not _is_box(ref, base.base.shape, times)
        return
    boxed = np.arange(math.prod(shape)).reshape(base.base.shape)[region].reshape(-1)
    assert sorted(boxed.tolist() * times) == sorted(ref.reshape(-1).tolist())


def _is_box(positions: np.ndarray, shape: tuple[int, ...], times: int) -> bool:
    """Whether the base positions are, each `times` times, a box of per-axis progressions."""
    unique = np.unique(positions)
    if len(unique) * times != positions.size:
        return False
    per_axis = [np.unique(c) for c in np.unravel_index(unique, shape)]
    progressions = all(len(u) <= 2 or len(set(np.diff(u).tolist())) == 1 for u in per_axis)
    return progressions and math.prod(len(u) for u in per_axis) == len(unique)


def test_strided_views_and_flattenings_are_boxes() -> None:
    base = lt.zeros(6, 5, 4)
    assert base_region(base.reshape(-1)) == (slice(0, 6, 1), slice(0, 5, 1), slice(0, 4, 1))
    assert base_region(base.T[::-2, 1:4, :2]) == (slice(0, 2, 1), slice(1, 4, 1), slice(1, 4, 2))
    assert base_region(base[2:4].reshape(2, 20)) == (slice(2, 4, 1), slice(0, 5, 1), slice(0, 4, 1))
    assert base_region(lt.zeros(3, 4).reshape(2, 6)) == (slice(0, 3, 1), slice(0, 4, 1))
    assert base_region(lt.zeros(4, 6).T[::-2, 1:3]) == (slice(1, 3, 1), slice(1, 6, 2))
    assert base_region(base.reshape(-1)[1:]) is None
    assert base_region(base[[0, 2, 3]]) is None


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_blocks_tile_the_region_and_share_no_chunk(data: Any) -> None:
    ndim = data.draw(st.integers(1, 3))
    sizes = data.draw(st.lists(st.integers(1, 12), min_size=ndim, max_size=ndim))
    chunks = [data.draw(st.none() | st.integers(1, 5)) for _ in sizes]
    keys = []
    for size in sizes:
        start = data.draw(st.integers(0, size - 1))
        keys.append(slice(start, data.draw(st.integers(start + 1, size)), data.draw(st.integers(1, 3))))
    target = data.draw(st.integers(1, 200))
    lengths = [len(range(n)[k]) for n, k in zip(sizes, keys, strict=True)]
    edges = [chunk_edges(k, c, n) for k, c, n in zip(keys, chunks, sizes, strict=True)]
    covered = np.zeros(lengths, dtype=int)
    owner: dict[tuple[int, ...], int] = {}
    for b, block in enumerate(block_keys(lengths, edges, target)):
        covered[block] += 1
        positions = [np.array(range(n)[k])[part] for n, k, part in zip(sizes, keys, block, strict=True)]
        for ids in itertools.product(*(set(p // (c or 1)) for p, c in zip(positions, chunks, strict=True))):
            assert owner.setdefault(ids, b) == b, f"chunk {ids} read by blocks {owner[ids]} and {b}"
    assert (covered == 1).all()


# -- progress ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("terminal", [True, False])
def test_a_long_pass_shows_a_bar_on_a_terminal_and_log_lines_elsewhere(
    terminal: bool, monkeypatch: Any
) -> None:
    output = io.StringIO()
    console = Console(file=output, force_terminal=terminal, width=80)
    monkeypatch.setattr(streamstats, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(streamstats, "progress_console", lambda: console)
    values = _values(4, (12, 10), specials=False)
    one_pass(lt.from_array(_zarr(values, (3, 10))), chunk=10)
    shown = output.getvalue()
    assert ("stats: 4 blocks" in shown) == terminal
    if not terminal:  # a log line when the pass began to show, one when it ended
        lines = shown.splitlines()
        assert lines[0].startswith("lazytensor: stats: 1/4 blocks (25%)")
        assert lines[-1].startswith("lazytensor: stats: 4/4 blocks (100%)") and lines[-1].endswith("done")


def test_a_pass_shows_no_progress_when_it_is_turned_off(monkeypatch: Any) -> None:
    output = io.StringIO()
    monkeypatch.setattr(streamstats, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(streamstats, "progress_console", lambda: Console(file=output, force_terminal=True))
    monkeypatch.setenv("LAZYTENSOR_PROGRESS", "0")
    one_pass(lt.from_array(_zarr(_values(4, (12, 10), specials=False), (3, 10))), chunk=10)
    assert output.getvalue() == ""


def test_a_long_pass_over_dask_shows_its_blocks_and_the_tasks_of_its_graph(monkeypatch: Any) -> None:
    output = io.StringIO()
    console = Console(file=output, force_terminal=True, width=80)
    monkeypatch.setattr(streamstats, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(streamstats, "progress_console", lambda: console)
    values = _values(4, (12, 10), specials=False)
    moments = one_pass(lt.from_array(da.from_array(values, chunks=(3, 10))), chunk=10)
    assert_numpy_statistics(moments.numbers(), values)
    shown = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", output.getvalue())
    assert "stats: 4 blocks" in shown
    counts = re.findall(r" (\d+)/(\d+) ", shown)  # tasks done of the graph's tasks, a task a block at least
    assert counts and all(0 <= int(done) <= int(total) and int(total) >= 4 for done, total in counts)
    assert int(counts[-1][0]) > 0


def test_a_quick_pass_shows_nothing(monkeypatch: Any) -> None:
    output = io.StringIO()
    monkeypatch.setattr(streamstats, "progress_console", lambda: Console(file=output, force_terminal=True))
    one_pass(lt.from_array(_zarr(_values(5, (12, 10), specials=False), (3, 10))), chunk=10)
    assert output.getvalue() == ""


def test_moments_merge_in_any_grouping_as_numpy() -> None:
    values = _values(6, (1000,), specials=True)
    parts = [Moments.of(part) for part in np.array_split(values, 7)]
    left = parts[0]
    for part in parts[1:]:
        left = left.merge(part)
    right = parts[-1]
    for part in reversed(parts[:-1]):
        right = part.merge(right)
    assert_numpy_statistics(left.numbers(), values)
    assert_numpy_statistics(right.numbers(), values)
    assert streamed_statistics(lt.from_numpy(values), PrintOptions(), chunk=9) == streamed_statistics(
        lt.from_numpy(values), PrintOptions()
    )

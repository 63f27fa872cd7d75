"""Chunked and distributed bases: zarr and dask under lazytensor's views, against the plain ways.

Three measurements, ratios printed in one run:

1. `repr` of a 4-D view of a 10¹⁰-element zarr array (a fill value, with only the 16
   corner chunks written: the ones a summarised print shows) against `repr` of the same
   view of a 10³-element in-memory tensor [goal: at most 3×], and how many chunks that
   repr read, against the number of chunks that hold shown items.
2. `(t.T[::2] * 2).sum(0).numpy()` on a 10⁸-element dask-backed tensor against the same
   expression written directly in dask [goal: at most 1.2×].
3. `lt.ttransform` with a Python lambda over a dask-backed 10⁷-element tensor on a 2-worker
   `LocalCluster` against the same on one process in memory [reported].

4. `t.stats()` against reading the array and computing numpy's statistics by hand [goal: at most
   1.5×]: a 200³ zarr store in 50³ chunks (and how many chunk keys it reads: 64 is each once), and a
   6·10⁷-element dask array against one `dask.compute` of the same statistics written in dask.
5. Computed tensors on the cluster: expressions over a 10⁸-element float32 zarr store on disk
   (`np.log(abs(t) + 1).sum()`, `(t * 2 + 1).mean(0)`, `dask.compute` of an expression over 10⁷ of
   its elements, a `ttransform` lambda over the same 10⁷) run by lazytensor in one process, against
   the same handed to dask (`t.to_dask()` or `dask.compute(t)`) on a 2-worker `LocalCluster` whose
   workers read the store, and against the same written in dask by hand (`da.from_zarr`) on that
   cluster [reported].

`--big` runs instead the measurement past one machine: a zarr store of at least 8 GB written to a
temporary directory (deleted after), opened as a dask array on a `LocalCluster` of 2 workers with
1.5 GB each; `t.stats()`, `(t.T[::2] * 2).sum(0)`, `t.nanmean(0)` and a `tpoint` lambda against the
same written in dask by hand [goal: at most 1.2× each], and the client's peak resident memory [goal:
under 2 GB]. `--stats` runs only measurement 4, `--cluster` only the cluster's 3 and 5.

Needs the extras: `pip install -e '.[zarr,dask]'`. Run: `.venv/bin/python benchmarks/bench_chunked.py`
(`--stats`, `--cluster`, `--big [--dir DIR] [--gb N]`).
"""

from __future__ import annotations

import argparse
import itertools
import resource
import shutil
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import distributed
import numpy as np
import zarr
from zarr.storage import MemoryStore

import lazytensor as lt

REPEATS = 10
BIG_SHAPE = (100, 100, 1000, 1000)
CHUNKS = (10, 10, 100, 100)


class CountingStore(MemoryStore):
    """A zarr store that counts the chunks read."""

    def __init__(self) -> None:
        super().__init__()
        self.chunk_reads: list[str] = []

    async def get(self, key: str, *args: Any, **kwargs: Any) -> Any:
        if key.startswith("c/"):
            self.chunk_reads.append(key)
        return await super().get(key, *args, **kwargs)


def _view(t: lt.AbstractTensor) -> lt.AbstractTensor:
    view: lt.AbstractTensor = t.transpose(1, 2)[::-1]
    return view


def _best(fn: Any, repeats: int = REPEATS) -> float:
    fn()  # warm up
    return min(timeit.repeat(fn, number=1, repeat=repeats))


def _big_view(compressors: Any) -> tuple[lt.AbstractTensor, CountingStore]:
    """The 4-D view of a 10^10-element zarr array of a fill value whose 16 corner chunks (the ones a
    summarised print shows) hold random values."""
    store = CountingStore()
    array = zarr.create_array(
        store=store, shape=BIG_SHAPE, chunks=CHUNKS, dtype="f4", fill_value=0.5, compressors=compressors
    )
    rng = np.random.default_rng(0)
    corners = [(slice(0, c), slice(n - c, n)) for n, c in zip(BIG_SHAPE, CHUNKS, strict=True)]
    for key in itertools.product(*corners):
        array[key] = rng.uniform(-1, 1, CHUNKS).astype("f4")
    return _view(lt.from_array(array)), store


def bench_repr() -> None:
    small = _view(lt.trandom(1000, seed=0).astype(np.float32).reshape(2, 5, 10, 10))
    small_seconds = _best(lambda: repr(small))
    print(f"1. repr of a 4-D view (transpose(1, 2)[::-1]), best of {REPEATS}:")
    print(f"   10^3 elements, in memory: {small_seconds * 1e3:8.2f} ms")
    for name, compressors in (("zarr's default codec (zstd)", "auto"), ("uncompressed", None)):
        big, store = _big_view(compressors)
        store.chunk_reads.clear()
        repr(big)
        reads = len(store.chunk_reads)
        big_seconds = _best(lambda big=big: repr(big))
        print(f"   10^10 elements, zarr, chunks {CHUNKS} of 400 kB, {name}: {big_seconds * 1e3:8.2f} ms")
        print(f"     ratio: {big_seconds / small_seconds:.2f}  (goal: at most 3)")
        print(f"     chunks read by one repr: {reads}; chunks holding shown items: {2**4}")


def bench_dask_expression() -> None:
    x = da.random.default_rng(0).random((10_000, 10_000), chunks=(2_500, 2_500))
    t = lt.from_array(x)
    ours = _best(lambda: (t.T[::2] * 2).sum(0).numpy(), repeats=3)
    direct = _best(lambda: (x.T[::2] * 2).sum(0).compute(), repeats=3)
    print("2. (t.T[::2] * 2).sum(0) on 10^8 elements, dask, best of 3:")
    print(f"   lazytensor over dask: {ours:6.3f} s   dask directly: {direct:6.3f} s")
    print(f"   ratio: {ours / direct:.2f}  (goal: at most 1.2)")


def bench_lambda_on_cluster() -> None:
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        source = da.random.default_rng(0).uniform(-1, 1, 10**7, chunks=10**6)  # made on the workers
        result = lt.ttransform(lt.from_array(source), lambda x: x * x + 1, dtype=np.float64)
        start = timeit.default_timer()
        (computed,) = dask.compute(result)
        clustered = timeit.default_timer() - start
        values = source.compute()
    start = timeit.default_timer()
    local = lt.ttransform(lt.from_numpy(values), lambda x: x * x + 1)
    one_process = timeit.default_timer() - start
    assert np.array_equal(computed.numpy(), local.numpy())
    print("3. ttransform with a Python lambda over 10^7 elements:")
    print(
        f"   in memory, one process: {one_process:6.2f} s   dask, 2-worker LocalCluster: {clustered:6.2f} s"
    )
    print(f"   ratio cluster / one process: {clustered / one_process:.2f}")


# -- 4. t.stats() in one pass ------------------------------------------------------------------------


def _hand_statistics(x: Any) -> tuple[Any, ...]:
    """numpy's statistics of `x` (a numpy or dask array), written by hand as `t.stats()` reports them."""
    lib = da if isinstance(x, da.Array) else np
    finite = lib.where(lib.isfinite(x), x, np.nan)
    return (
        lib.nanmin(finite),
        lib.nanmax(finite),
        lib.nanmean(finite),
        lib.nanstd(finite),
        (x == 0).sum(),
        lib.isnan(x).sum(),
        lib.isinf(x).sum(),
    )


def _plain_statistics(a: np.ndarray) -> tuple[Any, ...]:
    """The same numbers ignoring that NaN and inf exist: a lower bound of the time by hand."""
    return a.min(), a.max(), a.mean(), a.std(), (a == 0).sum(), np.isnan(a).sum(), np.isinf(a).sum()


def _with_specials(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    picks = rng.integers(0, values.size, size=values.size // 1000)
    values.reshape(-1)[picks] = rng.choice([np.nan, np.inf, 0.0], size=len(picks))
    return values


def bench_stats(folder: Path) -> None:
    shape, chunks = (200, 200, 200), (50, 50, 50)
    values = _with_specials(np.random.default_rng(0).normal(size=shape), np.random.default_rng(1))
    counting = CountingStore()
    counted = zarr.create_array(store=counting, shape=shape, chunks=chunks, dtype="f8")
    counted[...] = values
    counting.chunk_reads.clear()
    lt.from_array(counted).stats()
    reads, distinct = len(counting.chunk_reads), len(set(counting.chunk_reads))
    z = zarr.create_array(store=str(folder / "stats.zarr"), shape=shape, chunks=chunks, dtype="f8")
    z[...] = values
    t = lt.from_array(z)
    ours = _best(t.stats, repeats=3)
    by_hand = _best(lambda: _hand_statistics(z[...]), repeats=3)
    print("4. t.stats() against reading the array and numpy's statistics by hand, best of 3:")
    print(
        f"   zarr {shape}, chunks {chunks}, zstd, on disk: t.stats() {ours:6.3f} s   by hand {by_hand:6.3f} s"
    )
    print(f"     ratio: {ours / by_hand:.2f}  (goal: at most 1.5)")
    plain = _best(lambda: _plain_statistics(z[...]), repeats=3)
    print(f"     against plain min/max/mean/std, no NaN handling ({plain:.3f} s): {ours / plain:.2f}")
    print(f"     chunk keys read by t.stats(): {reads} ({distinct} distinct) of {4**3} chunks")
    x = da.random.default_rng(0).normal(size=(6000, 10_000), chunks=(1000, 2500))  # 6·10^7, made per compute
    d = lt.from_array(x)
    ours = _best(d.stats, repeats=3)
    by_hand = _best(lambda: dask.compute(*_hand_statistics(x)), repeats=3)
    mean_only = _best(lambda: x.mean().compute(), repeats=3)
    print(f"   dask (6000, 10000), chunks (1000, 2500): t.stats() {ours:6.3f} s   by hand {by_hand:6.3f} s")
    print(f"     ratio: {ours / by_hand:.2f}  (goal: at most 1.5); x.mean() alone: {mean_only:.3f} s")


# -- 5. computed tensors on the cluster -----------------------------------------------------------------


EXPRESSION_ROWS, EXPRESSION_CHUNK = 10_000, 100
"""The store of measurement 5: 10⁴ float32 rows of 10⁴ values (400 MB), chunks of 100 rows (4 MB)."""


def _write_expression_store(path: Path) -> None:
    """10⁸ random normal float32 as a zarr store on disk (zarr's default codec), 1000 rows at a time."""
    z = zarr.create_array(
        store=str(path),
        shape=(EXPRESSION_ROWS, 10_000),
        chunks=(EXPRESSION_CHUNK, 10_000),
        dtype="f4",
    )
    rng = np.random.default_rng(0)
    for start in range(0, EXPRESSION_ROWS, 1000):
        z[start : start + 1000] = rng.standard_normal((1000, 10_000), dtype=np.float32)


EXPRESSION_CASES: list[
    tuple[str, Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any] | None]
] = [
    (
        "np.log(abs(t) + 1).sum()",
        lambda t: np.log(abs(t) + 1).sum().item(),
        lambda t: np.log(abs(t) + 1).to_dask().sum().compute(),
        lambda x: np.log(abs(x) + 1).sum().compute(),
    ),
    (
        "(t * 2 + 1).mean(0)",
        lambda t: (t * 2 + 1).mean(0).numpy(),
        lambda t: (t * 2 + 1).to_dask().mean(0).compute(),
        lambda x: (x * 2 + 1).mean(0).compute(),
    ),
    (
        "dask.compute(np.log(abs(t[:1000]) + 1))",
        lambda t: np.log(abs(t[:1000]) + 1).numpy(),
        lambda t: dask.compute(np.log(abs(t[:1000]) + 1))[0].numpy(),
        lambda x: np.log(abs(x[:1000]) + 1).compute(),
    ),
    (
        "ttransform(t[:1000], λ x: x * x + 1)",
        lambda t: lt.ttransform(t[:1000], lambda x: x * x + 1).numpy(),
        lambda t: dask.compute(lt.ttransform(t[:1000], lambda x: x * x + 1))[0].numpy(),
        None,
    ),
]
"""What measurement 5 times: a name, the expression in one process (lazytensor reading the store),
the same handed to dask (`to_dask()` or `dask.compute`) and run on the cluster, and the same written
in dask by hand over `da.from_zarr` on the cluster (None: a Python callable has no plain dask form)."""


def bench_expressions_on_cluster(folder: Path) -> None:
    path = folder / "expression.zarr"
    _write_expression_store(path)
    t, x = lt.open(path), da.from_zarr(str(path))
    print(f"5. computed tensors over a zarr store on disk, {t.shape} float32 (400 MB), chunks of 4 MB:")
    print("   lazytensor in one process (it streams) against the same handed to dask and run on a")
    print("   2-worker LocalCluster (1 thread each; the workers read the store), and against it written")
    print("   in dask by hand (da.from_zarr) on the same cluster; best of 3 after a warm-up:")
    in_process = {name: _best(lambda ours=ours: ours(t), repeats=3) for name, ours, _, _ in EXPRESSION_CASES}
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        for name, ours, on_cluster, by_hand in EXPRESSION_CASES:
            clustered = _best(lambda on_cluster=on_cluster: on_cluster(t), repeats=3)
            assert np.allclose(on_cluster(t), ours(t), rtol=1e-4)
            one = in_process[name]
            hand = (
                ""
                if by_hand is None
                else f"   dask by hand {_best(lambda by_hand=by_hand: by_hand(x), 3):6.2f} s"
            )
            print(
                f"   {name:40} one process {one:6.2f} s   cluster {clustered:6.2f} s "
                f"({clustered / one:.2f}×){hand}"
            )


# -- --big: past one machine ---------------------------------------------------------------------------


BIG_COLUMNS, BIG_CHUNKS = 40_000, (1000, 10_000)
"""The big store: float32 rows of 40,000 values, chunks of 40 MB."""


def _write_big(path: Path, gigabytes: float) -> Any:
    """A float32 zarr store of at least `gigabytes` GB (1e9 bytes), uncompressed, written one row of
    chunks at a time; about one value in a thousand is NaN."""
    rows = -(-int(gigabytes * 1e9) // (4 * BIG_COLUMNS * BIG_CHUNKS[0])) * BIG_CHUNKS[0]
    z = zarr.create_array(
        store=str(path), shape=(rows, BIG_COLUMNS), chunks=BIG_CHUNKS, dtype="f4", compressors=None
    )
    rng = np.random.default_rng(0)
    for start in range(0, rows, BIG_CHUNKS[0]):
        block = rng.standard_normal((BIG_CHUNKS[0], BIG_COLUMNS), dtype=np.float32)
        block[rng.random(block.shape, dtype=np.float32) < 1e-3] = np.nan
        z[start : start + BIG_CHUNKS[0]] = block
    return z


def _peak_mb() -> float:
    """The peak resident memory of this process (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _nanmean_stays_lazy() -> bool:
    small = lt.from_array(da.ones((4, 4), chunks=2))
    return small.nanmean(0).base.layer_name == "Dask"


def _timed(fn: Callable[[], Any]) -> float:
    start = timeit.default_timer()
    fn()
    return timeit.default_timer() - start


BIG_CASES: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = [
    ("t.stats()", lambda t: t.stats(), lambda x: dask.compute(*_hand_statistics(x))),
    (
        "(t.T[::2] * 2).sum(0)",
        lambda t: (t.T[::2] * 2).sum(0).numpy(),
        lambda x: (x.T[::2] * 2).sum(0).compute(),
    ),
    ("t.nanmean(0)", lambda t: t.nanmean(0).numpy(), lambda x: da.nanmean(x, axis=0).compute()),
    (
        "tpoint(t, t, λ a, b: a * b + 1).sum(0)",
        lambda t: lt.tpoint(t, t, lambda a, b: a * b + 1, vectorized=True).sum(0).numpy(),
        lambda x: da.map_blocks(lambda a, b: a * b + 1, x, x).sum(0).compute(),
    ),
]
"""What --big times: a name, lazytensor on the dask-backed tensor, the same in dask by hand."""


def bench_big(folder: Path | None, gigabytes: float) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench_big_", dir=folder))
    try:
        start = timeit.default_timer()
        z = _write_big(root / "big.zarr", gigabytes)
        written = timeit.default_timer() - start
        size = sum(f.stat().st_size for f in (root / "big.zarr").rglob("*") if f.is_file())
        print(f"--big: zarr store {z.shape} float32, chunks {BIG_CHUNKS}, uncompressed")
        print(f"   {size / 1e9:.2f} GB on disk, written in {written:.1f} s")
        print(f"   client peak resident memory after writing: {_peak_mb():.0f} MB")
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, memory_limit="1.5GB", dashboard_address=None
            ) as cluster,
            distributed.Client(cluster),
        ):
            x = da.from_zarr(str(root / "big.zarr"))
            t = lt.from_array(x)
            lazy_nanmean = _nanmean_stays_lazy()
            print("   LocalCluster: 2 workers × 1 thread, 1.5 GB each; one timed run of each, after a")
            print("   warm-up on the first row of chunks (the cores are shared with other work)")
            for name, ours, by_hand in BIG_CASES:
                if name == "t.nanmean(0)" and not lazy_nanmean:
                    eager = f"computes eagerly on dask: it would pull {size / 1e9:.1f} GB in"
                    print(f"   {name:40} skipped: {eager}")
                    continue
                ours(t[: BIG_CHUNKS[0]]), by_hand(x[: BIG_CHUNKS[0]])  # workers import and cache code
                ours_s, hand_s = _timed(lambda ours=ours: ours(t)), _timed(lambda by_hand=by_hand: by_hand(x))
                print(
                    f"   {name:40} lazytensor {ours_s:7.2f} s   dask by hand {hand_s:7.2f} s   "
                    f"ratio {ours_s / hand_s:.2f}  (goal: at most 1.2)"
                )
        print(f"   client peak resident memory: {_peak_mb():.0f} MB  (goal: under 2048 MB)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--big", action="store_true", help="only the >= 8 GB store on a 2-worker cluster")
    parser.add_argument("--stats", action="store_true", help="only t.stats() against numpy by hand")
    parser.add_argument("--cluster", action="store_true", help="only the LocalCluster rows (3 and 5)")
    parser.add_argument("--dir", type=Path, help="where --big writes its temporary store")
    parser.add_argument("--gb", type=float, default=8.0, help="size of the --big store in GB (1e9 bytes)")
    args = parser.parse_args()
    if args.big:
        bench_big(args.dir, args.gb)
        return
    with tempfile.TemporaryDirectory() as folder:
        if args.cluster:
            bench_lambda_on_cluster()
            bench_expressions_on_cluster(Path(folder))
            return
        if not args.stats:
            bench_repr()
            bench_dask_expression()
            bench_lambda_on_cluster()
        bench_stats(Path(folder))
        if not args.stats:
            bench_expressions_on_cluster(Path(folder))


if __name__ == "__main__":
    main()

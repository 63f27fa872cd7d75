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

Needs the extras: `pip install -e '.[zarr,dask]'`. Run: `.venv/bin/python benchmarks/bench_chunked.py`.
"""

from __future__ import annotations

import itertools
import timeit
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


def main() -> None:
    bench_repr()
    bench_dask_expression()
    bench_lambda_on_cluster()


if __name__ == "__main__":
    main()

"""Threads writing through views of one base: on numpy storage and on zarr, writes to disjoint elements
all land (zarr serialises writes per array: each is a read-modify-write of whole chunks), and on zarr
overlapping writes end as the writes in some order. numpy storage takes no lock.

The property test runs random views (ints, slices, transposes, reshapes, lists, masks) from random
threads against a numpy model; docs/concurrency.md says what is promised.

Reaches into `lazytensor.bases.arraylike` and `lazytensor.bases.writelock`: the lock each write
takes is recorded, and the lock table is read to see that memory stores leave no entry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import zarr
from hypothesis import event, given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.bases import arraylike, writelock

ROWS, COLS = 16, 3


def run_threads(tasks: list[Callable[[], None]]) -> None:
    """Run every task in its own thread, all released at once; re-raise the first error in any of them."""
    barrier = threading.Barrier(len(tasks))
    errors: list[BaseException] = []

    def run(task: Callable[[], None]) -> None:
        barrier.wait()
        try:
            task()
        except BaseException as error:  # re-raised below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(task,)) for task in tasks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def _zarr(shape: tuple[int, ...], chunks: tuple[int, ...], store: Any = None) -> Any:
    return zarr.create_array(store={} if store is None else store, shape=shape, chunks=chunks, dtype="f8")


def make_base(kind: str, shape: tuple[int, ...], chunks: tuple[int, ...]) -> tuple[lt.AbstractTensor, Any]:
    """A zeroed base of `kind`, and what holds its values (read after the threads end)."""
    if kind == "zarr":
        array = _zarr(shape, chunks)
        array[...] = 0.0
        return lt.from_array(array), array
    if kind == "numpy-array":
        values = np.zeros(shape)
        return lt.from_array(values), values
    t = lt.zeros(shape, dtype=np.float64)
    return t, t


def stored(handle: Any) -> np.ndarray:
    return np.asarray(handle.numpy() if isinstance(handle, lt.AbstractTensor) else handle[...])


def write_row(base: lt.AbstractTensor, row: int) -> Callable[[], None]:
    """A task writing `row + 1` into a row of `base`, through a row view or a column of the transpose."""

    def task() -> None:
        view = base[row] if row % 2 else base.T[:, row]
        view[...] = row + 1.0

    return task


@pytest.mark.parametrize("kind", ["zarr", "numpy-array", "storage"])
def test_threads_writing_rows_of_one_chunk_through_views_lose_nothing(kind: str) -> None:
    for _ in range(5):  # a lost write shows in most rounds; five make it certain in practice
        base, handle = make_base(kind, (ROWS, COLS), (ROWS, COLS))  # one chunk holds every row
        run_threads([write_row(base, row) for row in range(ROWS)])
        expected = np.repeat(np.arange(1.0, ROWS + 1)[:, None], COLS, axis=1)
        np.testing.assert_array_equal(stored(handle), expected)


def test_two_opens_of_one_zarr_path_share_the_lock(tmp_path: Any) -> None:
    path = str(tmp_path / "rows.zarr")
    _zarr((ROWS, COLS), (ROWS, COLS), store=path)[...] = 0.0
    opened = [lt.open(path) for _ in range(ROWS)]  # one open per thread: one array object each
    tasks = [lambda row=row: opened[row].__setitem__(row, float(row + 1)) for row in range(ROWS)]
    run_threads(tasks)
    np.testing.assert_array_equal(lt.open(path).numpy()[:, 0], np.arange(1.0, ROWS + 1))


def fill(view: lt.AbstractTensor, value: float) -> Callable[[], None]:
    return lambda: view.__setitem__(Ellipsis, value)


def test_overlapping_zarr_writes_end_as_one_of_them_whole() -> None:
    """Each write holds the array's lock for all its chunks: the result is one writer's, never a mixture."""
    for _ in range(3):
        array = _zarr((8, 6), (2, 2))  # twelve chunks
        base = lt.from_array(array)
        views = [base, base.T, base[::-1]]
        run_threads([fill(views[k % 3], float(k + 1)) for k in range(8)])
        values = array[...]
        assert len(np.unique(values)) == 1, values


def test_numpy_storage_takes_no_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[Any] = []
    real = writelock.serialised

    def recording(array: Any) -> Any:
        taken.append(array)
        return real(array)

    monkeypatch.setattr(arraylike, "serialised", recording)
    t = lt.zeros((4, 3))
    t.T[1, ::2] = 5.0
    t[[0, 3]] = 1.0
    from_numpy = lt.from_array(np.zeros((4, 3)))
    from_numpy[1:, 0] = 2.0
    from_numpy[[0, 2], [1, 2]] = 3.0
    assert taken == []
    lt.from_array(_zarr((4, 3), (2, 3)))[1:, 0] = 2.0
    assert len(taken) == 1


def test_the_lock_registry_keeps_no_lock_nobody_holds() -> None:
    for _ in range(50):
        lt.from_array(_zarr((2,), (1,)))[0] = 1.0
    assert not any(key.startswith("memory://") for key in writelock._locks)


# -- the property: random views from random threads against a numpy model --------------------------

VIEW_KINDS = ("int", "transposed", "slice", "flat-list", "pair-lists", "mask", "row")


@st.composite
def thread_plans(
    draw: st.DrawFn,
) -> tuple[tuple[int, int], tuple[int, int], list[list[tuple[str, Any, float]]]]:
    """A shape, zarr chunks, and for each thread its writes: (view kind, positions, value).

    Each element belongs to one thread (writes are disjoint between threads); a thread may write its
    elements several times, and the last of its writes to an element is what the model expects."""
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    chunks = (draw(st.integers(1, rows)), draw(st.integers(1, cols)))
    threads = draw(st.integers(2, 5))
    owner = draw(st.lists(st.integers(0, threads - 1), min_size=rows * cols, max_size=rows * cols))
    plans: list[list[tuple[str, Any, float]]] = []
    for thread in range(threads):
        mine = [flat for flat, who in enumerate(owner) if who == thread]
        writes: list[tuple[str, Any, float]] = []
        for _ in range(draw(st.integers(0, 4)) if mine else 0):
            kind = draw(st.sampled_from(VIEW_KINDS))
            chosen = draw(st.lists(st.sampled_from(mine), min_size=1, max_size=len(mine), unique=True))
            if kind == "row":  # whole rows only when the thread owns them
                owned_rows = [
                    r for r in range(rows) if all(owner[r * cols + c] == thread for c in range(cols))
                ]
                if not owned_rows:
                    kind, chosen = "int", chosen[:1]
                else:
                    chosen = [draw(st.sampled_from(owned_rows))]
            elif kind in ("int", "transposed", "slice"):
                chosen = chosen[:1]
            writes.append((kind, sorted(chosen), float(draw(st.integers(1, 99)))))
        plans.append(writes)
    return (rows, cols), chunks, plans


def write(t: lt.AbstractTensor, cols: int, kind: str, positions: list[int], value: float) -> None:
    """One write of `value` at `positions` (flat, or a row for "row") through a view of `kind`."""
    if kind == "row":
        t[positions[0]] = value
        return
    rows_of, cols_of = [p // cols for p in positions], [p % cols for p in positions]
    if kind == "int":
        t[rows_of[0], cols_of[0]] = value
    elif kind == "transposed":
        t.T[cols_of[0], rows_of[0]] = value
    elif kind == "slice":
        t[rows_of[0] : rows_of[0] + 1, cols_of[0] :: cols][0, 0] = value
    elif kind == "flat-list":
        t.reshape(-1)[positions] = value
    elif kind == "pair-lists":
        t[rows_of, cols_of] = value
    else:
        mask = np.zeros(t.shape, dtype=bool)
        mask[rows_of, cols_of] = True
        t[mask] = value


@settings(max_examples=150, deadline=None)  # about 10 ms each: 150 cover every view kind on every base
@given(plan=thread_plans(), kind=st.sampled_from(["zarr", "numpy-array", "storage"]))
def test_threads_writing_disjoint_elements_through_random_views_lose_nothing(
    plan: tuple[tuple[int, int], tuple[int, int], list[list[tuple[str, Any, float]]]], kind: str
) -> None:
    shape, chunks, plans = plan
    base, handle = make_base(kind, shape, chunks)
    model = np.zeros(shape)
    cols = shape[1]
    for writes in plans:  # threads own disjoint elements: the order between threads does not matter
        for view_kind, positions, value in writes:
            if view_kind == "row":
                model[positions[0]] = value
            else:
                model.reshape(-1)[positions] = value

    def task(writes: list[tuple[str, Any, float]]) -> Callable[[], None]:
        def run() -> None:
            for one in writes:
                write(base, cols, *one)

        return run

    run_threads([task(writes) for writes in plans])
    np.testing.assert_array_equal(stored(handle), model)
    event(f"{kind}: {len(plans)} threads, all writes landed")
    for view_kind in {one[0] for writes in plans for one in writes}:
        event(f"view written through: {view_kind}")

"""A zarr array with a corrupt chunk: every kind of request through a tensor over it (a slice, an
orthogonal selection, points, one element, and the writes of each) fails with one line naming the
store and the chunk's key, and requests that do not touch the chunk still work.

Reaches into `lazytensor.bases.arraylike`, `lazytensor.bases.zarrreads` and
`lazytensor.bases.zarrstore`: the read by runs is planted to fail, and the error is caught as the
store's own `StoreError`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr

import lazytensor as lt
from lazytensor.bases import arraylike, zarrreads
from lazytensor.bases.zarrstore import StoreError


@pytest.fixture
def corrupt(tmp_path: Path) -> tuple[Path, Any]:
    """A 4×4 zarr store of 2×2 chunks whose chunk (1, 0) holds garbage, and a tensor over it."""
    path = tmp_path / "z.zarr"
    array = zarr.create_array(store=str(path), shape=(4, 4), chunks=(2, 2), dtype="f8")
    array[...] = np.arange(16.0).reshape(4, 4)
    (path / "c" / "1" / "0").write_bytes(b"garbage")
    return path, lt.from_array(zarr.open_array(str(path)))


REQUESTS: dict[str, Callable[[Any], Any]] = {
    "slice": lambda t: t[2:].numpy(),
    "outer": lambda t: t[[0, 1, 3]][:, [0, 1, 3]].numpy(),
    "points": lambda t: t[[3, 0], [1, 2]].numpy(),
    "one": lambda t: t[3, 1].item(),
}

WRITES: dict[str, Callable[[Any], Any]] = {
    "slice": lambda t: t.__setitem__((slice(2, 4), slice(0, 1)), 5.0),
    "points": lambda t: t.__setitem__(([3, 0], [1, 2]), 5.0),
    "one": lambda t: t.__setitem__((3, 1), 5.0),
}


@pytest.mark.parametrize("request_kind", REQUESTS)
def test_a_read_of_a_corrupt_chunk_names_store_and_key(corrupt: tuple[Path, Any], request_kind: str) -> None:
    path, t = corrupt
    with pytest.raises(StoreError) as info:
        REQUESTS[request_kind](t)
    message = str(info.value)
    assert message.startswith(f"{path}: key c/1/0: cannot read (RuntimeError: "), message
    assert "\n" not in message


@pytest.mark.parametrize("write_kind", WRITES)
def test_a_write_into_a_corrupt_chunk_names_store_and_key(corrupt: tuple[Path, Any], write_kind: str) -> None:
    path, t = corrupt
    with pytest.raises(StoreError) as info:
        WRITES[write_kind](t)
    assert str(info.value).startswith(f"{path}: key c/1/0: cannot write (RuntimeError: "), str(info.value)


def test_requests_that_miss_the_corrupt_chunk_still_work(corrupt: tuple[Path, Any]) -> None:
    _, t = corrupt
    values = np.arange(16.0).reshape(4, 4)
    assert t[:2].numpy().tolist() == values[:2].tolist()
    assert t[[0, 1]][:, [0, 1, 3]].numpy().tolist() == values[np.ix_([0, 1], [0, 1, 3])].tolist()
    assert t[[0, 3], [1, 3]].numpy().tolist() == values[[0, 3], [1, 3]].tolist()
    t[[0, 3], [1, 3]] = lt.tensor([-1.0, -2.0])
    assert t[[0, 3], [1, 3]].numpy().tolist() == [-1.0, -2.0]


def test_an_outer_read_takes_the_run_readers_answer_when_it_gives_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    array = zarr.create_array(store={}, shape=(4, 4), chunks=(2, 2), dtype="f8")
    array[...] = np.arange(16.0).reshape(4, 4)
    asked: list[Any] = []

    def by_runs(array: Any, keys: Any) -> Any:
        asked.append((array, keys))
        return np.full((2, 2), -1.0) if len(asked) == 1 else None

    monkeypatch.setattr(zarrreads, "outer_by_runs", by_runs)
    backend = arraylike.backend_of(array)
    keys = (np.array([0, 3]), np.array([1, 2]))
    assert backend.outer(array, keys).tolist() == [[-1.0, -1.0], [-1.0, -1.0]]  # the runs' answer
    assert backend.outer(array, keys).tolist() == [[1.0, 2.0], [13.0, 14.0]]  # else zarr's oindex
    assert len(asked) == 2 and all(a is array and k is keys for a, k in asked)

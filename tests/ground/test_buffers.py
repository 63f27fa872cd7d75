"""Facts about flat buffers: which are memory-mapped, how much memory the machine has, and the
MemoryError said at once, with the sizes in words, for what cannot fit.

Reaches into `lazytensor.ground.buffers`: the memory the machine has is planted, and the facts about
buffers are pure functions tested on arrays.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lazytensor.ground import buffers
from lazytensor.ground.buffers import check_fits, is_memory_mapped


def test_a_memory_map_and_every_view_of_it_are_memory_mapped(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(12.0))
    mapped = np.load(path, mmap_mode="r")
    assert is_memory_mapped(mapped)
    assert is_memory_mapped(np.asarray(mapped)[::2].reshape(2, 3).T)  # plain ndarrays over the map
    with open(path, "rb") as file:
        raw = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    assert is_memory_mapped(raw)
    assert not is_memory_mapped(np.array(mapped))  # a copy is in memory
    assert not is_memory_mapped(np.zeros(3)[1:])
    assert not is_memory_mapped(np.frombuffer(b"abcd", dtype=np.uint8))


@pytest.fixture
def memory(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set this machine's memory, in bytes, for one test."""

    def set_memory(size: int) -> None:
        monkeypatch.setattr(buffers, "physical_memory", lambda: size)

    return set_memory


def test_what_fits_exactly_is_allowed_and_one_byte_more_refused(memory: Any) -> None:
    memory(8000)
    check_fits(1000, 8, "a copy")
    check_fits(8000, 1, "a copy")
    with pytest.raises(MemoryError) as info:
        check_fits(8001, 1, "a copy of shape (8001,)")
    assert str(info.value) == (
        "a copy of shape (8001,) needs 8 KB (8,001 elements), more than this machine's 8 KB of memory"
    )
    with pytest.raises(
        MemoryError, match=r"^a copy needs 8\.01 KB \(1,001 elements\), more than this machine's 8 KB"
    ):
        check_fits(1001, 8, "a copy")


def test_the_name_of_the_allocation_is_made_only_for_the_error(memory: Any) -> None:
    memory(100)
    calls: list[int] = []

    def what() -> str:
        calls.append(1)
        return "the sorted copy"

    check_fits(100, 1, what)
    assert calls == []
    with pytest.raises(
        MemoryError,
        match=r"^the sorted copy needs 202 bytes \(101 elements\), more than this machine's 100 bytes",
    ):
        check_fits(101, 2, what)
    assert calls == [1]


@pytest.mark.parametrize(
    ("need", "words"),
    [
        (999, "999 bytes"),
        (1000, "1 KB"),
        (999_499, "999 KB"),
        (999_500, "1e+03 KB"),
        (1_234_567, "1.23 MB"),
        (25 * 10**9, "25 GB"),
        (3 * 10**12, "3 TB"),
        (7 * 10**15, "7 PB"),
        (10**18, "1 EB"),
        (2 * 10**21, "2e+03 EB"),
    ],
)
def test_sizes_are_said_in_decimal_units_with_three_digits(memory: Any, need: int, words: str) -> None:
    memory(1)
    with pytest.raises(MemoryError) as info:
        check_fits(need, 1, "it")
    assert (
        str(info.value) == f"it needs {words} ({need:,} elements), more than this machine's 1 bytes of memory"
    )


def test_physical_memory_is_pages_times_page_size_or_unbounded_when_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    buffers.physical_memory.cache_clear()
    try:
        expected = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        assert buffers.physical_memory() == expected
        for error in (ValueError, OSError, AttributeError):

            def refuse(name: str, error: type[Exception] = error) -> int:
                raise error(name)

            monkeypatch.setattr(buffers.os, "sysconf", refuse)
            buffers.physical_memory.cache_clear()
            assert buffers.physical_memory() == 1 << 62
            monkeypatch.undo()
        sizes = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 3}
        monkeypatch.setattr(buffers.os, "sysconf", sizes.__getitem__)
        buffers.physical_memory.cache_clear()
        assert buffers.physical_memory() == 4096 * 3
        monkeypatch.setattr(buffers.os, "sysconf", lambda name: 1 / 0)
        assert buffers.physical_memory() == 4096 * 3  # asked once
    finally:
        buffers.physical_memory.cache_clear()

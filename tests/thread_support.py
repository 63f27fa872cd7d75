"""Test helpers for `lazytensor.kernels.threads`: run the threaded paths on small tensors, and see how
work was cut into blocks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import lazytensor as lt
from lazytensor.kernels import threads


@contextlib.contextmanager
def threaded(count: int = 3) -> Iterator[None]:
    """`count` threads, and work of two elements or more split across them in blocks of any size."""
    before = lt.get_num_threads()
    lt.set_num_threads(count)
    try:
        with threads.split_from(2):
            yield
    finally:
        lt.set_num_threads(before)


@contextlib.contextmanager
def recorded_blocks() -> Iterator[list[int]]:
    """The block count of every `run_blocks` call inside the block, in order."""
    counts: list[int] = []
    original = threads.run_blocks

    def spy(count: int, work: Callable[[int], Any]) -> list[Any]:
        counts.append(count)
        return original(count, work)

    threads.run_blocks = spy
    try:
        yield counts
    finally:
        threads.run_blocks = original


@contextlib.contextmanager
def settings(threads_: int, blocks_per_thread: int = 1, min_block: int = 1) -> Iterator[None]:
    """The thread count and the block sizes `_pieces` reads, set for the block (no helper starts)."""
    names = ("threads", "blocks_per_thread", "min_block")
    before = [getattr(threads._settings, name) for name in names]
    for name, value in zip(names, (threads_, blocks_per_thread, min_block), strict=True):
        setattr(threads._settings, name, value)
    try:
        yield
    finally:
        for name, value in zip(names, before, strict=True):
            setattr(threads._settings, name, value)


@contextlib.contextmanager
def counted_einsums() -> Iterator[list[int]]:
    """How many times `np.einsum` runs inside the block, as a one-element list."""
    calls = [0]
    original = np.einsum

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    np.einsum = spy
    try:
        yield calls
    finally:
        np.einsum = original

"""Facts about the flat numpy buffers at the bottom of stacks (ground floor: imports nothing of ours)."""

from __future__ import annotations

import functools
import mmap
import os
from collections.abc import Callable
from typing import Any

import numpy as np


def is_memory_mapped(buffer: Any) -> bool:
    """Whether a numpy buffer is, or is a view of, a memory-mapped file.

    >>> is_memory_mapped(np.zeros(3))
    False
    """
    array = buffer
    while array is not None:
        if isinstance(array, np.memmap | mmap.mmap):
            return True
        array = getattr(array, "base", None)
    return False


@functools.cache
def physical_memory() -> int:
    """This machine's memory in bytes (a very large number where the system will not say); asked once."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def bytes_text(count: float) -> str:
    """A number of bytes in three digits and a unit.

    >>> bytes_text(4_000_000_000)
    '4 GB'
    """
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if count < 1000:
            return f"{count:.3g} {unit}"
        count /= 1000
    return f"{count:.3g} EB"


def check_fits(count: int, bytes_each: int, what: str | Callable[[], str]) -> None:
    """MemoryError at once, naming the sizes, when `count` items of `bytes_each` bytes cannot fit in
    this machine's memory: better than minutes of swapping before the same error. `what` names the
    allocation, or is a function that does (on hot paths: formatted only for the error).

    >>> check_fits(10**15, 8, "a copy of shape (1000000000000000,)")
    Traceback (most recent call last):
    ...
    MemoryError: a copy of shape (1000000000000000,) needs 8 PB (1,000,000,000,000,000 elements), ...
    """
    need = count * bytes_each
    have = physical_memory()
    if need > have:
        if callable(what):
            what = what()
        raise MemoryError(
            f"{what} needs {bytes_text(need)} ({count:,} elements), more than this machine's "
            f"{bytes_text(have)} of memory"
        )

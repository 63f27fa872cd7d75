"""Facts about the flat numpy buffers at the bottom of stacks (ground floor: imports nothing of ours)."""

from __future__ import annotations

import mmap
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

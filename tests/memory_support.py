"""The peak of Python-visible memory (numpy's allocations included) while one computation runs."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_bytes(compute: Callable[[], Any]) -> int:
    """The most bytes traced at once while `compute()` ran, its result counted until it returns."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = compute()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak

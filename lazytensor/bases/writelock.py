"""One lock per stored array, so writes from threads through views of one zarr array never lose data.

A zarr write is a read-modify-write of every chunk it touches: two threads writing different
rows of one chunk both read the old chunk, and the second to store it erases the first's rows.
`serialised(array)` holds the lock of the array's store path around a write, so writes to one
array (through any views, or through two opens of the same path in this process) run one at a
time. One lock per array rather than per chunk: simpler, and a write never waits on more than
one lock (no ordering to get wrong); writes to different arrays still run in parallel. Locks
live as long as a write holds them (a weak registry), so opening many stores leaks nothing.
Reads take no lock, and other processes are not covered (docs/concurrency.md says what is promised).
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import Any


class _Held:
    """A lock that a weak registry can refer to (a bare lock cannot be weakly referenced)."""

    __slots__ = ("__weakref__", "lock")

    def __init__(self) -> None:
        self.lock = threading.RLock()


_locks: weakref.WeakValueDictionary[str, _Held] = weakref.WeakValueDictionary()
_registry = threading.Lock()


def array_key(array: Any) -> str:
    """What names the stored array: its store path (the same on every open of one path in a
    process), else the object itself.

    >>> array_key(object()).startswith("object at ")
    True
    """
    path = str(getattr(array, "store_path", "") or "")
    return path or f"object at {id(array):#x}"


@contextlib.contextmanager
def serialised(array: Any) -> Iterator[None]:
    """Hold the write lock of `array` (by `array_key`) for the block.

    >>> import numpy as np
    >>> a = np.zeros(3)
    >>> with serialised(a):
    ...     a[1] = 5
    >>> a.tolist()
    [0.0, 5.0, 0.0]
    """
    key = array_key(array)
    with _registry:
        held = _locks.get(key)
        if held is None:
            held = _locks[key] = _Held()
    with held.lock:
        yield

"""One lock per stored array, so writes from threads through views of one zarr array never lose data.

A zarr write is a read-modify-write of every chunk it touches: two threads writing different
rows of one chunk both read the old chunk, and the second to store it erases the first's rows.
`serialised(array)` holds the lock of the array's identity on disk around a write (the device and
inode of its folder, else its resolved path), so writes to one array (through any views, or through
two opens of it in this process by any spelling: a relative or an absolute path, a symbolic link)
run one at a time. One lock per array rather than per chunk: simpler, and a write never waits on more than
one lock (no ordering to get wrong); writes to different arrays still run in parallel. Locks
live as long as a write holds them (a weak registry), so opening many stores leaks nothing.
Reads take no lock, and other processes are not covered (docs/concurrency.md says what is promised).
"""

from __future__ import annotations

import contextlib
import os
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
    """What names the stored array: for a local store, its folder's identity on disk (device and
    inode, the same through every spelling of its path: relative, absolute, a symbolic link), else
    its resolved path; for another store its store path; else the object itself.

    >>> array_key(object()).startswith("object at ")
    True
    """
    folder = _local_folder(array)
    if folder is not None:
        try:
            info = os.stat(folder)
        except OSError:
            return f"path {os.path.realpath(folder)}"
        return f"inode {info.st_dev}:{info.st_ino}"
    path = str(getattr(array, "store_path", "") or "")
    return path or f"object at {id(array):#x}"


def _local_folder(array: Any) -> str | None:
    """The folder on disk that holds `array` (its store's root joined with its path in the store),
    or None for an array not in a local folder."""
    root = getattr(getattr(array, "store", None), "root", None)
    if root is None:
        return None
    inside = str(getattr(array, "path", "") or "")
    return os.path.join(os.fspath(root), inside) if inside else os.fspath(root)


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

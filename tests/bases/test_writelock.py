"""The key of a stored array's write lock: its store path, else the object itself, so that two
arrays without a path never share one lock.

Reaches into `lazytensor.bases.writelock`: the lock's key (`array_key`) and `serialised` are the
module's own functions.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np

from lazytensor.bases.writelock import array_key, serialised


def test_arrays_without_a_store_path_are_named_by_their_identity() -> None:
    first, second = object(), SimpleNamespace(store_path="")
    assert array_key(first) == f"object at {id(first):#x}"
    assert array_key(second) == f"object at {id(second):#x}"
    assert array_key(first) != array_key(second)


def test_an_array_with_a_store_path_is_named_by_it() -> None:
    assert array_key(SimpleNamespace(store_path="data/x")) == "data/x"
    assert array_key(SimpleNamespace(store_path="data/x")) == array_key(SimpleNamespace(store_path="data/x"))


def test_writes_to_two_arrays_do_not_wait_for_each_other() -> None:
    first, second = np.zeros(2), np.zeros(2)
    holding, release = threading.Event(), threading.Event()

    def hold_first() -> None:
        with serialised(first):
            holding.set()
            release.wait(10)

    def write_second() -> None:
        with serialised(second):
            second[0] = 1

    holder, writer = threading.Thread(target=hold_first), threading.Thread(target=write_second)
    holder.start()
    assert holding.wait(10)
    writer.start()
    writer.join(5)  # while the first array's lock is held
    finished = not writer.is_alive()
    release.set()
    holder.join()
    writer.join()
    assert finished and second[0] == 1

"""The key of a stored array's write lock: its store path, else the object itself, so that two
arrays without a path never share one lock."""

from __future__ import annotations

from types import SimpleNamespace

from lazytensor.writelock import array_key


def test_arrays_without_a_store_path_are_named_by_their_identity() -> None:
    first, second = object(), SimpleNamespace(store_path="")
    assert array_key(first) == f"object at {id(first):#x}"
    assert array_key(second) == f"object at {id(second):#x}"
    assert array_key(first) != array_key(second)


def test_an_array_with_a_store_path_is_named_by_it() -> None:
    assert array_key(SimpleNamespace(store_path="data/x")) == "data/x"
    assert array_key(SimpleNamespace(store_path="data/x")) == array_key(SimpleNamespace(store_path="data/x"))

"""The one caching mechanism (`once`, `stacked`): a derived value is computed once, on first use;
a stack derives upward in a loop; pickles never carry a cached value.

Reaches into `lazytensor.ground.once`, `lazytensor.tensors.views` and `lazytensor.bases.memmap`: the
caching mechanism is checked on classes defined here and by peeking at the cached values of the
package's own classes.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.bases.memmap import MappedTensor
from lazytensor.ground.once import once, stacked
from lazytensor.tensors.views import SlicedTensor, TransposedTensor


class Counted:
    calls = 0

    def __init__(self, wrapped: Counted | None) -> None:
        self.wrapped = wrapped

    @once
    def square(self) -> int:
        Counted.calls += 1
        return 7 * 7

    @stacked
    def depth(self) -> int:
        Counted.calls += 1
        return 1 if self.wrapped is None else self.wrapped.depth + 1


@pytest.fixture(autouse=True)
def _fresh_count() -> Iterator[None]:
    Counted.calls = 0
    yield


def test_a_once_value_is_computed_on_first_read_and_never_again() -> None:
    c = Counted(None)
    assert Counted.calls == 0 and Counted.square.peek(c) is None
    assert [c.square, c.square, c.square] == [49, 49, 49]
    assert Counted.calls == 1 and Counted.square.peek(c) == 49


def test_a_primed_value_is_never_computed() -> None:
    c = Counted(None)
    Counted.square.prime(c, 3)
    assert c.square == 3 and Counted.calls == 0


def test_omit_takes_only_its_own_value_out_of_a_state() -> None:
    c = Counted(None)
    c.square  # noqa: B018
    state = dict(c.__dict__)
    Counted.square.omit(state)
    assert state == {"wrapped": None}
    Counted.square.omit(state)  # nothing there: no error
    assert state == {"wrapped": None}


def test_a_stacked_value_derives_each_layer_once_in_a_loop() -> None:
    top = None
    for _ in range(5_000):
        top = Counted(top)
    assert top is not None
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(500)  # a recursion per layer would fail here
    try:
        assert top.depth == 5_000
    finally:
        sys.setrecursionlimit(old)
    assert Counted.calls == 5_000
    assert top.wrapped is not None and top.wrapped.depth == 4_999 and Counted.calls == 5_000


def test_a_stacked_read_in_the_middle_stops_at_what_is_known() -> None:
    layers = [Counted(None)]
    for _ in range(9):
        layers.append(Counted(layers[-1]))
    assert layers[4].depth == 5 and Counted.calls == 5
    assert layers[9].depth == 10 and Counted.calls == 10  # the five below were known


def test_a_view_derives_nothing_until_asked() -> None:
    t = lt.arange(6.0).reshape(2, 3).contiguous()
    view = t.T
    assert isinstance(view, TransposedTensor)
    for name in ("base", "shape", "layout"):
        assert getattr(TransposedTensor, name).peek(view) is None, name
    assert view.layout == lt.Layout((3, 2), (1, 3), 0)
    assert TransposedTensor.shape.peek(view) is None  # the layout did not need the shape
    assert view.shape == (3, 2)


def test_a_deep_lazy_stack_pickles_and_reads_after_unpickling() -> None:
    t: lt.AbstractTensor = lt.arange(12.0).reshape(3, 4).contiguous()
    expected = np.arange(12.0).reshape(3, 4)
    for i in range(3_000):
        t = t.T if i % 2 == 0 else t[::1]
        expected = expected.T if i % 2 == 0 else expected[::1]
    assert SlicedTensor.layout.peek(t) is None  # nothing derived yet
    back = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(back.numpy(), expected)
    np.testing.assert_array_equal(t.numpy(), expected)


def test_an_unpickled_memory_map_keeps_no_view_of_its_file(tmp_path: Path) -> None:
    """A memory map is read afresh each time (its file may shrink): unpickling primes no view."""
    path = tmp_path / "values.npy"
    np.save(path, np.arange(4.0))
    mapped = MappedTensor.over(np.load(path, mmap_mode="r"))
    back = pickle.loads(pickle.dumps(mapped))
    assert MappedTensor._fused_values.peek(mapped) is None
    assert MappedTensor._fused_values.peek(back) is None
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_once_attached_after_the_class_is_made_caches_under_the_function_s_name() -> None:
    calls: list[int] = []

    def area(self: Any) -> int:
        """The square's area."""
        calls.append(1)
        return 9

    class Square:
        pass

    Square.area = once(area)  # type: ignore[attr-defined]  # no __set_name__ here: the name is fn's
    square = Square()
    assert (square.area, square.area, len(calls)) == (9, 9, 1)  # type: ignore[attr-defined]
    assert Square.area.__doc__ == "The square's area."  # type: ignore[attr-defined]  # what help() shows

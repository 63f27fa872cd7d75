"""`distinct`, the first step of `t.stats()`: an expanded tensor without its repeating (stride-0) axes,
and how many times each of its values repeats, so the pass reads each stored value once.

Reaches into `lazytensor.printer.streamstats`: `distinct` is the first step of the pass, checked on
its own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.printer.streamstats import distinct


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_distinct_drops_every_repeating_axis_and_counts_the_repeats(data: Any) -> None:
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    values = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    lead = data.draw(st.lists(st.integers(1, 3), max_size=2))
    target = (*lead, *(data.draw(st.integers(1, 3)) if n == 1 else n for n in shape))
    t = lt.from_numpy(values).expand(*target)
    if t.ndim > 1 and data.draw(st.booleans()):
        t = t.T
    ref = np.asarray(t.numpy())
    view, times = distinct(t)
    layout = t.layout
    assert layout is not None
    repeats = [n for n, stride in zip(layout.shape, layout.strides, strict=True) if stride == 0 and n > 1]
    assert times == math.prod(repeats)
    assert view.shape == tuple(
        1 if stride == 0 else n for n, stride in zip(layout.shape, layout.strides, strict=True)
    ), "every repeating axis is kept as one position"
    assert sorted(np.asarray(view.numpy()).reshape(-1).tolist() * times) == sorted(ref.reshape(-1).tolist())


def test_an_expand_of_two_is_a_repeat() -> None:
    view, times = distinct(lt.tensor([1.0, 2.0]).expand(2, 3, 2))
    assert (view.shape, times) == ((1, 1, 2), 6)
    view, times = distinct(lt.tensor([[1.0], [2.0]]).expand(2, 2))
    assert (view.shape, times) == ((2, 1), 2)
    assert view.numpy().tolist() == [[1.0], [2.0]]

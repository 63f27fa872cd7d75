"""Expanded views are read-only, always (docs/indexing.md), and the refusal says truly why.

An expand that repeats elements (a new or stretched axis of size > 1) says its positions share
elements; one that repeats none (`t.expand(3)` of a shape-(3,) t, new size-1 axes, size 0) used to
say the same, falsely: it now says no element repeats and where to write instead. Either way the
write raises ValueError and changes nothing. numpy's `broadcast_to` is the reference for which
expands repeat: a stride-0 axis of size > 1 in a non-empty result.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt


@st.composite
def expands(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape = draw(shapes(max_dims=3, max_side=3))
    lead = draw(st.lists(st.integers(0, 2), max_size=2))
    target = (*lead, *(draw(st.sampled_from([0, 1, 2])) if size == 1 else size for size in shape))
    return shape, target


def _numpy_repeats(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    view = np.broadcast_to(np.zeros(shape), target)
    return view.size > 0 and any(s == 0 and n > 1 for s, n in zip(view.strides, view.shape, strict=True))


@given(case=expands(), how=st.sampled_from(["setitem", "set", "iadd"]))
def test_every_expand_refuses_writes_and_says_truly_whether_elements_repeat(case, how: str) -> None:
    shape, target = case
    t = lt.arange(float(math.prod(shape))).reshape(shape)
    before = t.tolist()
    view = t.expand(*target)
    message = "share elements" if _numpy_repeats(shape, target) else "repeats no element"
    with pytest.raises(ValueError, match=f"cannot write through an expanded view: .*{message}"):
        if how == "setitem":
            view[...] = 1.0
        elif how == "set" and view.numel():
            view.set((0,) * view.ndim, 1.0)
        else:
            view += 1.0
    assert t.tolist() == before


def test_an_expand_to_the_same_shape_names_where_to_write() -> None:
    t = lt.tensor([1.0, 2.0, 3.0])
    message = (
        r"^cannot write through an expanded view: shape \(3,\) repeats no element of \(3,\), but "
        r"expanded views are read-only, as numpy's broadcast_to \(write to the tensor it expands, or use "
        r"\.clone\(\) first\)$"
    )
    with pytest.raises(ValueError, match=message):
        t.expand(3)[0] = 5.0
    assert t.tolist() == [1.0, 2.0, 3.0]

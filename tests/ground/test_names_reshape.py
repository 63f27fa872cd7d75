"""Names through a reshape that only adds or drops axes of size 1, wherever they are (before,
between or after the other axes): every other axis keeps its name, in order, as a squeeze or an
unsqueeze would keep it. (`test_names.py` checks random reshapes against a model; these
target the size-1 axes that come and go between named axes of other sizes.)
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt

Names = tuple[str | None, ...]


@st.composite
def with_ones(draw: st.DrawFn, sizes: list[int]) -> tuple[int, ...]:
    """`sizes` with up to three axes of size 1 inserted anywhere."""
    shape = list(sizes)
    for _ in range(draw(st.integers(0, 3))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    return tuple(shape)


@given(sizes=st.lists(st.integers(2, 4), min_size=1, max_size=4), data=st.data())
def test_size_1_axes_coming_and_going_leave_the_other_names_in_place(
    sizes: list[int], data: st.DataObject
) -> None:
    below = data.draw(with_ones(sizes), label="below")
    shape = data.draw(with_ones(sizes), label="shape")
    names = tuple(
        data.draw(st.sampled_from([None, f"n{axis}"]), label=f"name {axis}") if size == 1 else f"n{axis}"
        for axis, size in enumerate(below)
    )
    t = lt.arange(math.prod(below)).reshape(below).rename(*names)
    result = t.reshape(shape).names
    kept = [name for name, size in zip(names, below, strict=True) if size != 1]
    assert [name for name, size in zip(result, shape, strict=True) if size != 1] == kept


def test_a_size_1_axis_dropped_between_named_axes_keeps_the_names_around_it() -> None:
    t = lt.arange(30).reshape(2, 1, 3, 1, 5).rename("a", "b", "c", "d", "e")
    assert t.reshape(2, 3, 5).names == ("a", "c", "e")
    assert t.reshape(2, 3, 1, 5).names == ("a", "c", "d", "e")  # the trailing (1, 5) is untouched


def test_merging_an_empty_axis_names_the_merged_axis_none() -> None:
    t = lt.zeros(2, 0, 4, names=("a", "b", "c"))
    assert t.flatten(0, 1).names == (None, "c")
    assert t.reshape(0, 4).names == (None, "c")
    assert t.flatten(1, 2).names == ("a", None)
    assert t.reshape(2, 0, 4).names == ("a", "b", "c")
    assert t.reshape(2, 0, 1, 4).names == ("a", "b", None, "c")

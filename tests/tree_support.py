"""Random expression trees for property tests: views and operations stacked at random, one tree
built on a tensor and on the numpy array it equals, so the two results can be compared."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

Pair = tuple[Any, Any]
"""A tensor and the numpy array it should equal."""
Build = Callable[[Pair], Pair]
"""A tree: from a (tensor, array) leaf, the same expression of each."""
Both = tuple[Callable[..., Any], Callable[..., Any]]
"""One step, as the tensor takes it and as the array takes it."""


def same(step: Callable[..., Any]) -> Both:
    """A step that a tensor and an array take alike."""
    return step, step


@st.composite
def trees(
    draw: st.DrawFn,
    unary: Sequence[Both],
    views: Sequence[Both],
    binary: Sequence[Both],
    fit: Callable[[Pair, Pair], Pair],
    depth: int = 0,
) -> Build:
    """A leaf, or a unary operation, a view or a binary operation over smaller trees, at most four
    deep; `fit(left, right)` makes the right operand of a binary operation go with the left."""
    if depth >= 4 or draw(st.integers(0, 3)) == 0:
        return lambda pair: pair
    kind = draw(st.sampled_from(("unary", "view", "binary")))
    below = draw(trees(unary, views, binary, fit, depth + 1))
    if kind != "binary":
        ours, theirs = draw(st.sampled_from(unary if kind == "unary" else views))

        def applied(pair: Pair) -> Pair:
            t, a = below(pair)
            return ours(t), theirs(a)

        return applied
    ours, theirs = draw(st.sampled_from(binary))
    other = draw(trees(unary, views, binary, fit, depth + 1))

    def both(pair: Pair) -> Pair:
        left = below(pair)
        right = fit(left, other(pair))
        return ours(left[0], right[0]), theirs(left[1], right[1])

    return both

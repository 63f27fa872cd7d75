"""The printer's `threshold` and `edgeitems` at and around their boundaries, against numpy.

numpy summarises only when the size is *greater* than the threshold, and then shows
`edgeitems` items at each end of every axis longer than twice that. For sizes k - 1,
k and k + 1 around a threshold k, and for edge items on both sides of the point where
an axis is just long enough to be cut, the printer must summarise exactly when numpy
does and show the same values. The values are distinct integers (`arange`, shifted so
negative ones appear), so the numbers printed say which elements were shown.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import lazytensor as lt

ELLIPSES = ("…", "⋮", "⋱")


def body(text: str) -> str:
    """The values part of `to_string`'s output: after the header, without slice labels or counts."""
    values = text.split("\n\n", 1)[1]
    values = re.sub(r"\[[^\]]*\]", " ", values)  # labels such as [1, :, :]
    return re.sub(r"…\s*\d+ more", " … ", values)  # "… 3 more" between side-by-side slices


def numbers(text: str) -> list[int]:
    return sorted(int(n) for n in re.findall(r"-?\d+", text))


def compare(shape: tuple[int, ...], threshold: int, edgeitems: int) -> None:
    a = np.arange(np.prod(shape), dtype=np.int64).reshape(shape) - 5
    shown = body(lt.to_string(lt.tensor(a), threshold=threshold, edgeitems=edgeitems))
    reference = np.array2string(a, threshold=threshold, edgeitems=edgeitems)
    case = f"shape {shape}, threshold {threshold}, edgeitems {edgeitems}"
    assert any(e in shown for e in ELLIPSES) == ("..." in reference), f"{case}:\n{shown}\n{reference}"
    assert numbers(shown) == numbers(reference), f"{case}:\n{shown}\n{reference}"


@pytest.mark.parametrize("threshold", [5, 6, 7, 12, 24])
@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("edgeitems", [1, 2, 3])
def test_vectors_summarise_only_above_the_threshold(threshold: int, delta: int, edgeitems: int) -> None:
    """A vector of threshold - 1, threshold and threshold + 1 elements."""
    compare((threshold + delta,), threshold, edgeitems)


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 4), (5, 2, 3), (7, 7)])
@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("edgeitems", [1, 2, 3])
def test_many_axes_summarise_only_above_the_threshold(
    shape: tuple[int, ...], delta: int, edgeitems: int
) -> None:
    """Tensors of 2 and 3 axes whose size is one below, at, and one above the threshold."""
    compare(shape, int(np.prod(shape)) - delta, edgeitems)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("edgeitems", [1, 2, 3])
def test_an_axis_is_cut_only_when_longer_than_twice_the_edge_items(size: int, edgeitems: int) -> None:
    """Summarising (threshold 0): an axis of size 2 * edgeitems is shown whole, one more is cut."""
    compare((size,), 0, edgeitems)
    compare((2, size), 0, edgeitems)
    compare((size, 3, 2), 0, edgeitems)


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_printoptions_threshold_in_repr_and_str(delta: int) -> None:
    """The same boundary through lt.printoptions, for repr and str."""
    a = np.arange(20).reshape(4, 5)
    t = lt.tensor(a)
    with lt.printoptions(threshold=20 - delta, edgeitems=1):
        for text in (repr(t), str(t)):
            assert any(e in body(text) for e in ELLIPSES) == (delta > 0), text
            shown = numbers(body(text))
    expected = numbers(np.array2string(a, threshold=20 - delta, edgeitems=1))
    assert shown == expected


def test_a_summarised_view_without_a_layout_shows_numpys_edge_items() -> None:
    """Edge items of an unfused view (a reshape of a transpose, a scattered list) are the right elements."""
    a = np.arange(10 * 12).reshape(10, 12)
    t = lt.tensor(a).T.reshape(8, 15)[:, [14, 0, 7, 3, 9, 1, 2, 11]]
    assert t.layout is None
    reference = a.T.reshape(8, 15)[:, [14, 0, 7, 3, 9, 1, 2, 11]]
    for edgeitems in (1, 2, 3):
        shown = body(lt.to_string(t, threshold=63, edgeitems=edgeitems))
        assert numbers(shown) == numbers(np.array2string(reference, threshold=63, edgeitems=edgeitems))
    assert not any(e in body(lt.to_string(t, threshold=64)) for e in ELLIPSES)

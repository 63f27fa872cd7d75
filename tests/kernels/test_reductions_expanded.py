"""Reductions over expanded views: numpy's answer (values, shape, dtype) computed in the size of the
base, whatever the expanded size, and gradients through `expand` summed the same way (#41)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt

Reduction = Callable[[Any, Any, bool], Any]
"""A reduction given the module (`np` or `lt`), the axis and keepdims."""

REDUCTIONS: dict[str, Reduction] = {
    "sum": lambda f, x, axis, keep: f.sum(x, axis=axis, keepdims=keep),
    "mean": lambda f, x, axis, keep: f.mean(x, axis=axis, keepdims=keep),
    "prod": lambda f, x, axis, keep: f.prod(x, axis=axis, keepdims=keep),
    "max": lambda f, x, axis, keep: f.max(x, axis=axis, keepdims=keep),
    "min": lambda f, x, axis, keep: f.min(x, axis=axis, keepdims=keep),
    "all": lambda f, x, axis, keep: f.all(x, axis=axis, keepdims=keep),
    "any": lambda f, x, axis, keep: f.any(x, axis=axis, keepdims=keep),
    "var": lambda f, x, axis, keep: f.var(x, axis=axis, keepdims=keep),
    "var ddof": lambda f, x, axis, keep: np.var(x, axis=axis, keepdims=keep, ddof=1),
    "std ddof": lambda f, x, axis, keep: np.std(x, axis=axis, keepdims=keep, ddof=1),
    "count_nonzero": lambda f, x, axis, keep: f.count_nonzero(x, axis=axis, keepdims=keep),
    "nansum": lambda f, x, axis, keep: np.nansum(x, axis=axis, keepdims=keep),
    "nanmax": lambda f, x, axis, keep: np.nanmax(x, axis=axis, keepdims=keep),
    "nanmean": lambda f, x, axis, keep: np.nanmean(x, axis=axis, keepdims=keep),
}

ARG_REDUCTIONS = ("argmax", "argmin")


@st.composite
def _expanded(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], np.ndarray]:
    """A base of up to three axes (sizes 0 to 3, ties and zeros among its values) and a shape it
    expands to: new leading axes and its size-1 axes stretched (sizes 0 to 4)."""
    base_shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    values = np.array(
        draw(
            st.lists(st.integers(-2, 2), min_size=int(np.prod(base_shape)), max_size=int(np.prod(base_shape)))
        ),
        dtype=float,
    )
    values = values.reshape(base_shape)
    lead = tuple(draw(st.lists(st.integers(0, 4), max_size=2)))
    stretched = tuple(draw(st.integers(0, 4)) if size == 1 else size for size in base_shape)
    return base_shape, (*lead, *stretched), values


def _axes(ndim: int) -> st.SearchStrategy[Any]:
    if ndim == 0:
        return st.none() | st.just(())
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return st.none() | one | several


@pytest.mark.parametrize("name", REDUCTIONS)
@settings(max_examples=40, deadline=None)  # per reduction: random bases, expansions and axes
@given(case=_expanded(), data=st.data())
def test_a_reduction_of_an_expanded_view_is_numpys(name: str, case: Any, data: st.DataObject) -> None:
    _, shape, values = case
    axis = data.draw(_axes(len(shape)), label="axis")
    keep = data.draw(st.booleans(), label="keepdims")
    reduce = REDUCTIONS[name]
    expected_error: Exception | None = None
    with np.errstate(all="ignore"), _quiet():
        try:
            expected = np.asarray(reduce(np, np.broadcast_to(values, shape), axis, keep))
        except ValueError as error:  # the max of nothing
            expected_error = error
        if expected_error is not None:
            with pytest.raises(type(expected_error)):
                reduce(lt, lt.tensor(values).expand(shape), axis, keep)
            return
        result = reduce(lt, lt.tensor(values).expand(shape), axis, keep)
    found = np.asarray(result.numpy() if isinstance(result, lt.AbstractTensor) else result)
    assert found.shape == expected.shape and found.dtype == expected.dtype, (found, expected)
    np.testing.assert_allclose(found, expected, rtol=1e-12, equal_nan=True)
    if found.ndim:
        found[...] = 0  # a new array, as numpy's: writable


class _quiet:
    """numpy's RuntimeWarnings (the mean of nothing, all-NaN slices) are not the subject here."""

    def __enter__(self) -> None:
        import warnings

        self._catcher = warnings.catch_warnings()
        self._catcher.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: object) -> None:
        self._catcher.__exit__(*exc)


@pytest.mark.parametrize("name", ARG_REDUCTIONS)
@settings(max_examples=60, deadline=None)
@given(case=_expanded(), data=st.data())
def test_argmax_and_argmin_of_an_expanded_view_count_through_every_position(
    name: str, case: Any, data: st.DataObject
) -> None:
    """The index counts through the whole expanded axes (the first extreme sits at position 0 of a
    repeated axis), as numpy's on the broadcast array."""
    _, shape, values = case
    ndim = len(shape)
    axis = data.draw(st.none() | (st.integers(-ndim, ndim - 1) if ndim else st.none()), label="axis")
    keep = data.draw(st.booleans(), label="keepdims")
    array = np.broadcast_to(values, shape)
    try:
        expected = getattr(np, name)(array, axis=axis, keepdims=keep)
    except ValueError:  # an empty sequence
        with pytest.raises(ValueError):
            getattr(lt.tensor(values).expand(shape), name)(axis, keep)
        return
    found = getattr(lt.tensor(values).expand(shape), name)(axis, keep)
    assert np.shape(found) == np.shape(expected)
    np.testing.assert_array_equal(np.asarray(found), expected)


HUGE = (10**8, 10**8)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda t: lt.count_nonzero(t), 10**16),
        (lambda t: np.count_nonzero(t), 10**16),
        (lambda t: t.sum(), 2.0 * 10**16),
        (lambda t: t.mean(), 2.0),
        (lambda t: t.max(), 2.0),
        (lambda t: t.min(), 2.0),
        (lambda t: t.prod(), np.inf),
        (lambda t: t.all(), True),
        (lambda t: t.any(), True),
        (lambda t: t.argmax(), 0),
        (lambda t: t.argmin(), 0),
        (lambda t: t.var(correction=1), 0.0),
        (lambda t: t.std(), 0.0),
        (lambda t: lt.count_nonzero(t, axis=(0, 1)), 10**16),
    ],
)
def test_reductions_of_a_huge_expand_answer_from_its_base(call: Callable[[Any], Any], expected: Any) -> None:
    """10**16 positions of one element: each answer at once (a C loop over them would take days and
    ignore Ctrl-C)."""
    with np.errstate(over="ignore"):
        found = call(lt.full((1, 1), 2.0).expand(*HUGE))
    assert np.asarray(found).item() == expected


def test_a_reduction_keeping_a_huge_expanded_axis_broadcasts_the_base_result() -> None:
    t = lt.tensor([[1.0, 2.0, 3.0]]).expand(10**12, 3)
    assert t.sum(0).tolist() == [1e12, 2e12, 3e12]
    assert t.max(0).tolist() == [1.0, 2.0, 3.0]
    assert lt.count_nonzero(t, axis=0).tolist() == [10**12] * 3
    assert t.argmax(0).tolist() == [0, 0, 0]
    wide = lt.tensor([[1.0], [5.0]]).expand(2, 10**12)
    assert wide.argmax(1).tolist() == [0, 0] and wide.mean(1).tolist() == [1.0, 5.0]
    assert wide.sum(1, dtype=np.float32).dtype == np.float32


def test_the_gradient_through_a_huge_expand_is_summed_in_the_base_size() -> None:
    """PyTorch's answer: each base element's gradient is how many positions repeat it."""
    x = lt.ones(1, requires_grad=True)
    x.expand(10**6, 10**6).sum().backward()
    assert x.grad.tolist() == [1e12]
    w = lt.tensor([[1.0, 2.0]], requires_grad=True)
    (w.expand(10**9, 2).mean() * 4).backward()
    assert w.grad.tolist() == [[2.0, 2.0]]


@settings(max_examples=40, deadline=None)
@given(case=_expanded(), data=st.data())
def test_the_gradient_through_expand_is_the_sum_over_its_repeats(case: Any, data: st.DataObject) -> None:
    """Weighted by any gradient (not only a broadcast one): numpy's sum over the new and stretched
    axes, in the base's shape and dtype."""
    base_shape, shape, values = case
    weights = np.asarray(
        data.draw(st.lists(st.integers(-3, 3), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
        dtype=float,
    ).reshape(shape)
    leaf = lt.tensor(values, requires_grad=True)
    (leaf.expand(shape) * lt.tensor(weights)).sum().backward()
    lead = len(shape) - len(base_shape)
    stretched = tuple(lead + axis for axis, size in enumerate(base_shape) if size == 1)
    expected = weights.sum(axis=(*range(lead), *stretched), keepdims=True).reshape(base_shape)
    assert leaf.grad.shape == base_shape and leaf.grad.dtype == np.float64
    np.testing.assert_array_equal(leaf.grad.numpy(), expected)

"""`sort` and `argsort` with `stable=False` or numpy's `kind=`: the order of tied elements is numpy's for
that algorithm, in the indices and in where each gradient goes back (ties that quicksort reorders)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt

TIES = np.random.default_rng(2).integers(0, 3, 300).astype(np.float64)
"""Many ties: numpy's quicksort (its default) orders them unlike the stable sort."""


def _gradient_of_sort(**keywords: Any) -> np.ndarray:
    """Where the gradient of `sum(sort(x) * weights)` lands: each weight on the element sorted there."""
    x = lt.tensor(TIES, requires_grad=True)
    (lt.sort(x, **keywords) * lt.tensor(np.arange(TIES.size, dtype=np.float64))).sum().backward()
    return np.asarray(x.grad.numpy())


def _landing(order: np.ndarray) -> np.ndarray:
    expected = np.empty(order.size)
    expected[order] = np.arange(order.size, dtype=np.float64)
    return expected


def test_argsort_not_stable_is_numpys_default_sort() -> None:
    np.testing.assert_array_equal(lt.argsort(lt.tensor(TIES), stable=False).numpy(), np.argsort(TIES))
    np.testing.assert_array_equal(lt.argsort(lt.tensor(TIES)).numpy(), np.argsort(TIES, stable=True))


def test_the_argsort_method_not_stable_is_numpys_default_sort() -> None:
    assert not np.array_equal(np.argsort(TIES), np.argsort(TIES, stable=True))  # so that the test can fail
    t = lt.tensor(TIES)
    np.testing.assert_array_equal(t.argsort(stable=False).numpy(), np.argsort(TIES))
    np.testing.assert_array_equal(t.argsort(stable=True).numpy(), np.argsort(TIES, stable=True))


@pytest.mark.parametrize(
    ("keywords", "kind"),
    [
        ({"stable": False}, None),
        ({"kind": "quicksort"}, "quicksort"),
        ({"kind": "quicksort", "stable": True}, "quicksort"),
        ({}, "stable"),
    ],
)
def test_a_sorts_gradient_follows_numpys_order_for_the_kind(keywords: dict[str, Any], kind: Any) -> None:
    expected = _landing(np.argsort(TIES, kind=kind))
    np.testing.assert_array_equal(_gradient_of_sort(**keywords), expected)
    sorted_values = lt.sort(lt.tensor(TIES), **keywords)
    np.testing.assert_array_equal(sorted_values.numpy(), np.sort(TIES))

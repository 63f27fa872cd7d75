"""`y.backward()` seeds with ones of `y`'s own dtype (PyTorch's `ones_like(y)`): a float32 graph runs
back in float32, exactly as with an explicit float32 seed, not in float64 rounded at the leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

GRAPHS: dict[str, Callable[[Any], Any]] = {
    "reciprocal": lambda w: (3.3 / w).sum(),
    "exp over 7": lambda w: (w.exp() / 7).sum(),
    "mean of squares": lambda w: (w * w).mean(),
    "sigmoid mean": lambda w: w.sigmoid().mean(),
}


def gradient(graph: Callable[[Any], Any], values: np.ndarray, seed: Any) -> np.ndarray:
    w = lt.tensor(values, requires_grad=True)
    y = graph(w)
    if seed is None:
        y.backward()
    else:
        y.backward(seed)
    assert w.grad is not None
    return w.grad.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("graph", GRAPHS.values(), ids=GRAPHS.keys())
def test_the_implicit_seed_is_ones_of_the_result_dtype(graph: Callable[[Any], Any], dtype: Any) -> None:
    values = np.random.default_rng(0).standard_normal(50).astype(dtype)
    implicit = gradient(graph, values, None)
    explicit = gradient(graph, values, lt.ones((), dtype=dtype))
    assert implicit.dtype == dtype
    np.testing.assert_array_equal(implicit, explicit)


def test_the_implicit_seed_of_a_one_element_result_of_any_shape() -> None:
    w = lt.tensor([[2.0]], requires_grad=True)
    (w * w).backward()
    assert w.grad is not None
    assert w.grad.tolist() == [[4.0]]

"""A view's gradient is its base's: `requires_grad_` and `accumulate_grad` on a view are refused with
a message naming the view (PyTorch's users reach for both; the base is the leaf here)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

VIEWS: dict[str, Callable[[Any], Any]] = {
    "Sliced": lambda t: t[0:2],
    "Transposed": lambda t: t.reshape(1, 3).T,
    "Indexed": lambda t: t[[0, 2]],
}


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_requires_grad_on_a_view_is_refused_naming_its_shape(view: Callable[[Any], Any], flag: bool) -> None:
    t = lt.ones(3)
    v = view(t)
    message = (
        rf"^requires_grad_ applies to storage tensors \(leaves\); this is a view of shape "
        rf"\({', '.join(map(str, v.shape))},?\) whose gradient reaches its base: call it on the base$"
    )
    with pytest.raises(ValueError, match=message):
        v.requires_grad_(flag)
    assert not t.requires_grad
    assert t.requires_grad_() is t
    assert view(t).requires_grad


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_a_view_accumulates_no_gradient(view: Callable[[Any], Any]) -> None:
    t = lt.ones(3, requires_grad=True)
    v = view(t)
    layer = v.layer_name
    shape = re.escape(str(v.shape))
    with pytest.raises(
        TypeError, match=rf"^only leaves accumulate a gradient, not a {layer} of shape {shape}$"
    ):
        v.accumulate_grad(np.ones(v.shape))
    assert t.grad is None

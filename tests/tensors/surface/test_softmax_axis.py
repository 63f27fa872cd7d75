"""`softmax` and `log_softmax` take exactly one axis (PyTorch's `dim` or scipy's `axis`, an int or a
name): None is refused rather than read as "all axes", and a bad axis names the method."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt

METHODS = ["softmax", "log_softmax"]


def softmax_reference(a: np.ndarray, axis: int) -> np.ndarray:
    shifted = np.exp(a - a.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def reference(method: str, a: np.ndarray, axis: int) -> np.ndarray:
    result = softmax_reference(a, axis)
    return np.log(result) if method == "log_softmax" else result


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("call", [(), (None,)], ids=["no axis", "None"])
def test_softmax_without_an_axis_is_refused(method: str, call: tuple[Any, ...]) -> None:
    with pytest.raises(TypeError, match=rf"^{method} takes one axis \(an int\), not None$"):
        getattr(lt.ones(2, 3), method)(*call)
    with pytest.raises(TypeError, match=rf"^{method} takes one axis \(an int\), not None$"):
        getattr(lt.ones(2, 3), method)(axis=None)


@pytest.mark.parametrize("method", METHODS)
def test_an_axis_out_of_range_names_the_method_and_the_shape(method: str) -> None:
    with pytest.raises(np.exceptions.AxisError, match=rf"^{method} of a tensor of shape \(2, 3\): axis 2"):
        getattr(lt.ones(2, 3), method)(2)


@pytest.mark.parametrize("method", METHODS)
def test_an_unknown_axis_name_names_the_method(method: str) -> None:
    t = lt.ones(2, 3, names=("row", "col"))
    with pytest.raises(ValueError, match=rf"^{method}: .*'time'"):
        getattr(t, method)("time")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_along_one_axis_matches_numpy(method: str, axis: int) -> None:
    a = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -2.5]])
    expected = reference(method, a, axis)
    np.testing.assert_allclose(getattr(lt.tensor(a), method)(axis).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(getattr(lt.tensor(a), method)(axis=axis).numpy(), expected, rtol=1e-12)
    named = lt.tensor(a).rename("row", "col")
    by_name = getattr(named, method)(("row", "col")[axis])
    np.testing.assert_allclose(by_name.numpy(), expected, rtol=1e-12)

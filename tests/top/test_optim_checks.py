"""Optimisers refuse what PyTorch refuses: a parameter listed twice, hyper-parameters out of range.

`SGD([x, x])` used to step `x` twice per `step()`, and `lr=-1`, NaN, a string or None were taken.
Every option of every optimiser is checked, for the defaults and for a group's own value, and the
error names the option (and the group).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor import optim

SCALAR_OPTIONS = {
    optim.SGD: ["lr", "momentum", "weight_decay"],
    optim.Adam: ["lr", "eps", "weight_decay"],
}
OUT_OF_RANGE = st.floats(max_value=-1e-300) | st.sampled_from([math.nan, math.inf, -math.inf])
NOT_A_NUMBER = st.sampled_from([None, "0.1", True, [0.1], 1j])


def _leaf() -> lt.StorageTensor:
    return lt.tensor([1.0, 2.0], requires_grad=True)


def _make(cls: Any, params: Any, **options: Any) -> Any:
    return cls(params, **({"lr": 0.1} | options))


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_a_parameter_listed_twice_is_refused(cls: Any) -> None:
    x, y = _leaf(), _leaf()
    with pytest.raises(ValueError, match=r"parameter 2 \(shape \(2,\)\) is parameter 0 again"):
        _make(cls, [x, y, x])
    with pytest.raises(ValueError, match=r"parameter 1 .* is parameter 0 again"):
        _make(cls, [{"params": [x]}, {"params": [x], "lr": 0.5}])


def test_sgd_steps_each_parameter_once() -> None:
    x = _leaf()
    opt = optim.SGD([x], lr=0.5)
    (x * x).sum().backward()
    opt.step()
    assert x.tolist() == [0.0, 0.0]  # x - 0.5 * 2x, once


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
@given(data=st.data(), bad=OUT_OF_RANGE)
def test_out_of_range_options_are_refused_naming_them(cls: Any, data: st.DataObject, bad: float) -> None:
    name = data.draw(st.sampled_from(SCALAR_OPTIONS[cls]))
    with pytest.raises(ValueError, match=f"invalid {name}: "):
        _make(cls, [_leaf()], **{name: bad})
    with pytest.raises(ValueError, match=f"invalid {name} of parameter group 1: "):
        _make(cls, [{"params": [_leaf()]}, {"params": [_leaf()], name: bad}])


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
@given(data=st.data(), bad=NOT_A_NUMBER)
def test_options_that_are_no_numbers_are_refused_naming_them(cls: Any, data: st.DataObject, bad: Any) -> None:
    name = data.draw(st.sampled_from(SCALAR_OPTIONS[cls]))
    with pytest.raises(TypeError, match=f"{name} must be a real number"):
        _make(cls, [_leaf()], **{name: bad})


@given(beta=OUT_OF_RANGE | st.floats(min_value=1.0), index=st.integers(0, 1))
def test_adam_refuses_betas_outside_zero_to_one(beta: float, index: int) -> None:
    betas = [0.9, 0.999]
    betas[index] = beta
    with pytest.raises(ValueError, match=rf"invalid betas\[{index}\]"):
        optim.Adam([_leaf()], betas=tuple(betas))


@pytest.mark.parametrize("betas", [(0.9,), (0.9, 0.99, 0.999), 0.9, "ab"])
def test_adam_refuses_betas_that_are_no_pair(betas: Any) -> None:
    with pytest.raises(TypeError, match="betas must be a pair"):
        optim.Adam([_leaf()], betas=betas)


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
@given(data=st.data())
def test_options_in_range_are_accepted(cls: Any, data: st.DataObject) -> None:
    options = {name: data.draw(st.floats(0.0, 10.0)) for name in SCALAR_OPTIONS[cls]}
    if cls is optim.Adam:
        options["betas"] = (data.draw(st.floats(0.0, 0.999)), data.draw(st.floats(0.0, 0.999)))
    opt = cls([_leaf()], **options)
    assert len(opt.groups) == 1


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_params_must_be_a_non_empty_list_of_leaves(cls: Any) -> None:
    with pytest.raises(TypeError, match=r"params must be an iterable.*got a StorageTensor"):
        _make(cls, _leaf())
    with pytest.raises(ValueError, match="empty parameter list"):
        _make(cls, [])
    with pytest.raises(ValueError, match="group 0 has no 'params'"):
        _make(cls, [{"lr": 0.1}])

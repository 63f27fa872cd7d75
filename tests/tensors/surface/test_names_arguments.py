"""Axes by name: every `dim=`/`axis=` argument takes a name, and `isel` indexes by keyword.

A name is another spelling of the axis it names: each test holds the named call equal to
the call with the axis number (and so to numpy), and an unknown name to a ValueError that
says which names the tensor has."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import multi_axis_shapes

import lazytensor as lt

WORDS = ("trial", "channel", "time", "freq")


def named_pair(shape: tuple[int, ...]) -> tuple[lt.AbstractTensor, np.ndarray]:
    n = math.prod(shape)
    array = (np.arange(n, dtype=float) * 0.37 % 5).reshape(shape)
    return lt.tensor(array, names=WORDS[: len(shape)]), array


@given(multi_axis_shapes(max_dims=4), st.data())
def test_a_reduction_by_name_is_the_reduction_by_axis(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, array = named_pair(shape)
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    names = tuple(WORDS[a] for a in axes)
    method = data.draw(st.sampled_from(["sum", "mean", "prod", "max", "min", "std", "var", "all", "any"]))
    keepdim = data.draw(st.booleans())
    by_name = getattr(t, method)(dim=names, keepdim=keepdim)
    by_axis = getattr(t, method)(dim=tuple(axes), keepdim=keepdim)
    expected = getattr(np, method)(array, axis=tuple(axes), keepdims=keepdim)
    assert np.allclose(by_name.numpy(), by_axis.numpy()) and np.allclose(by_name.numpy(), expected)
    kept = [WORDS[a] for a in range(len(shape)) if keepdim or a not in axes]
    assert by_name.names == tuple(kept)
    one = getattr(t, method)(WORDS[axes[0]])  # positional, one name
    assert np.allclose(one.numpy(), getattr(np, method)(array, axis=axes[0]))


@given(multi_axis_shapes(max_dims=4), st.data())
def test_views_take_names_for_axes(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, array = named_pair(shape)
    ndim = len(shape)
    order = data.draw(st.permutations(range(ndim)))
    permuted = t.permute(*(WORDS[a] for a in order))
    assert permuted.tolist() == array.transpose(order).tolist()
    assert permuted.names == tuple(WORDS[a] for a in order)
    assert t.permute([WORDS[a] for a in order]).tolist() == array.transpose(order).tolist()
    a, b = data.draw(st.lists(st.integers(0, ndim - 1), min_size=2, max_size=2, unique=True))
    assert t.transpose(WORDS[a], WORDS[b]).tolist() == array.swapaxes(a, b).tolist()
    assert t.swapaxes(WORDS[a], b).tolist() == array.swapaxes(a, b).tolist()
    start, end = sorted((a, b))
    flat = t.flatten(WORDS[start], WORDS[end])
    assert flat.shape == t.flatten(start, end).shape
    assert t.unsqueeze(WORDS[a]).shape == np.expand_dims(array, a).shape
    assert [u.tolist() for u in t.unbind(WORDS[a])] == [u.tolist() for u in t.unbind(a)]
    assert [c.shape for c in t.chunk(2, WORDS[a])] == [c.shape for c in t.chunk(2, a)]
    assert [c.shape for c in t.split(1, dim=WORDS[a])] == [c.shape for c in t.split(1, dim=a)]


def test_squeeze_softmax_and_the_rest_take_names() -> None:
    t, array = named_pair((2, 1, 3))
    assert t.squeeze("channel").names == ("trial", "time")
    assert t.squeeze(("channel",)).shape == (2, 3)
    assert np.allclose(t.softmax("time").numpy(), t.softmax(-1).numpy())
    assert np.allclose(t.log_softmax(dim="trial").numpy(), t.log_softmax(0).numpy())
    assert t.cumsum("time").tolist() == np.cumsum(array, axis=2).tolist()
    assert t.argmax("time").tolist() == np.argmax(array, axis=2).tolist()
    assert t.flip("trial").tolist() == np.flip(array, 0).tolist()
    assert t.roll(1, dim="time").tolist() == np.roll(array, 1, axis=2).tolist()
    assert t.argsort(dim="time").tolist() == np.argsort(array, axis=2, kind="stable").tolist()
    assert t.take([0, 0], axis="time").tolist() == np.take(array, [0, 0], axis=2).tolist()
    assert t.diagonal(0, "trial", "time").tolist() == np.diagonal(array, 0, 0, 2).tolist()


UNKNOWN: list[tuple[str, Callable[[lt.AbstractTensor], Any]]] = [
    ("sum", lambda t: t.sum("freq")),
    ("mean", lambda t: t.mean(dim=("trial", "freq"))),
    ("softmax", lambda t: t.softmax("freq")),
    ("permute", lambda t: t.permute("time", "freq", "trial")),
    ("transpose", lambda t: t.transpose("freq", "trial")),
    ("squeeze", lambda t: t.squeeze("freq")),
    ("isel", lambda t: t.isel(freq=0)),
]


@pytest.mark.parametrize(("what", "call"), UNKNOWN, ids=[what for what, _ in UNKNOWN])
def test_an_unknown_name_is_a_value_error_naming_the_tensors_names(
    what: str, call: Callable[[lt.AbstractTensor], Any]
) -> None:
    t = lt.zeros(2, 3, 4, names=("trial", "channel", "time"))
    with pytest.raises(ValueError) as caught:
        call(t)
    names = "('trial', 'channel', 'time')"
    assert (
        str(caught.value)
        == f"{what}: no axis is named 'freq': the tensor of shape (2, 3, 4) has names {names}"
    )


def test_a_name_on_an_unnamed_tensor_says_it_has_none() -> None:
    with pytest.raises(
        ValueError, match=r"sum: no axis is named 'time': the tensor of shape \(2, 3\) has no names"
    ):
        lt.zeros(2, 3).sum("time")
    with pytest.raises(ValueError, match="no axis is named 'time'"):
        lt.zeros(2, 3).permute("time", 0)


# -- isel -------------------------------------------------------------------------------------------


@given(multi_axis_shapes(max_dims=4), st.data())
def test_isel_is_indexing_with_a_full_key(shape: tuple[int, ...], data: st.DataObject) -> None:
    t, array = named_pair(shape)
    chosen = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    key: list[Any] = [slice(None)] * len(shape)
    by_name: dict[str, Any] = {}
    for axis in chosen:
        size = shape[axis]
        index = data.draw(
            st.integers(-size, size - 1)
            | st.builds(slice, st.integers(-size, size) | st.none(), st.none(), st.sampled_from([1, 2, -1]))
        )
        key[axis] = index
        by_name[WORDS[axis]] = index
    expected = array[tuple(key)]
    got = t.isel(**by_name)
    if isinstance(got, lt.AbstractTensor):
        assert got.tolist() == expected.tolist()
        assert got.names == t[tuple(key)].names
    else:
        assert got == expected


def test_isel_writes_through_and_takes_a_dict() -> None:
    t = lt.zeros(4, 3, 100, names=("trial", "channel", "time"))
    t.isel(trial=3, time=slice(0, 100))[...] = 1.0
    assert t[3].numpy().all() and t.sum().item() == 300.0
    t.isel({"channel": [0, 2]}, trial=0)[:, 5] = 7.0
    assert t[0, [0, 2], 5].tolist() == [7.0, 7.0] and t[0, 1, 5] == 0.0
    assert t.isel(channel=[2, 0]).names == ("trial", "channel", "time")
    assert t.isel(trial=0, channel=1, time=2) == 0.0  # every axis an int: the element, as t[0, 1, 2]


def test_cat_joins_along_a_named_axis_and_keeps_the_names() -> None:
    a = lt.zeros(2, 3, names=("trial", "time"))
    b = lt.ones(4, 3, names=("trial", None))
    joined = lt.cat([a, b], dim="trial")
    assert (
        joined.names == ("trial", "time")
        and joined.tolist() == np.concatenate([a.numpy(), b.numpy()]).tolist()
    )
    assert lt.concatenate([a, lt.ones(2, 1)], axis="time").shape == (2, 4)
    with pytest.raises(ValueError, match="'trial' against 'x'"):
        lt.cat([a, lt.ones(2, 3, names=("x", None))], dim=1)
    with pytest.raises(ValueError, match="cat: no axis is named 'freq'"):
        lt.cat([a, b], dim="freq")

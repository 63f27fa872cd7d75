"""Coordinates through views and operations: random view stacks from a labelled base keep, on every
axis that keeps its name, the labels numpy's index arithmetic says (the same steps applied to an
arange along that axis pick them); reshapes that merge or split drop them; operations keep them
where broadcasting keeps the axis and refuse mismatched ones in one line.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from strategies import chains, describe

import lazytensor as lt

WORDS = ("trial", "channel", "time", "freq", "batch", "head")


def _labelled(shape: tuple[int, ...]) -> lt.AbstractTensor:
    names = WORDS[: len(shape)]
    coords = {
        name: np.arange(size) + 1000 * k for k, (name, size) in enumerate(zip(names, shape, strict=True))
    }
    return lt.arange(math.prod(shape)).reshape(shape).rename(*names).assign_coords(coords)


def _line(ref: np.ndarray, axis: int) -> np.ndarray:
    """The values of `ref` along `axis`, every other axis at 0."""
    key = [0] * ref.ndim
    key[axis] = slice(None)
    return ref[tuple(key)]


@given(chains(max_steps=5))
def test_coordinates_follow_random_view_stacks_as_numpy_indexes_an_arange(chain) -> None:
    shape, ops = chain
    t = _labelled(shape)
    refs = [
        np.broadcast_to(np.arange(size).reshape([-1 if a == k else 1 for a in range(len(shape))]), shape)
        for k, size in enumerate(shape)
    ]
    stretched = False
    for text, lt_step, np_step, _ in ops:
        t = lt_step(t)
        refs = [np_step(ref) for ref in refs]
        stretched = stretched or text.startswith("expand")
        coords = t.coords
        assert set(coords) <= {name for name in t.names if name is not None}, describe(ops)
        for axis, name in enumerate(t.names):
            if name is None:
                continue
            k = WORDS.index(name)
            if name not in coords:
                assert stretched or t.numel() == 0, (describe(ops), name)
                continue
            assert len(coords[name]) == t.shape[axis]
            if t.numel():
                expected = _line(refs[k], axis) + 1000 * k
                assert coords[name].tolist() == expected.tolist(), (describe(ops), name)


def test_a_reshape_that_merges_or_splits_drops_those_coordinates_and_keeps_the_rest() -> None:
    t = _labelled((2, 3, 4))
    assert set(t.reshape(2, 12).coords) == {"trial"}
    assert set(t.reshape(6, 4).coords) == {"time"}
    assert set(t.reshape(2, 3, 2, 2).coords) == {"trial", "channel"}
    assert t[:, None].coords["channel"].tolist() == [1000, 1001, 1002]


def test_squeeze_and_unsqueeze_keep_the_labels_on_the_axis_they_belong_to() -> None:
    t = lt.zeros(1, 1, names=("a", "b"), coords={"a": ["x"], "b": ["y"]})
    assert t.squeeze(0).coords == {"b": np.array(["y"])}
    assert t.squeeze(1).coords == {"a": np.array(["x"])}
    assert t.unsqueeze(1).names == ("a", None, "b")
    assert {k: v.tolist() for k, v in t.unsqueeze(1).coords.items()} == {"a": ["x"], "b": ["y"]}


def test_rename_keeps_labels_under_the_new_name_and_drops_them_with_the_name() -> None:
    t = lt.zeros(2, names=("station",), coords={"station": ["rome", "oslo"]})
    assert t.rename(station="site").coords["site"].tolist() == ["rome", "oslo"]
    assert t.rename(None).coords == {}


def test_a_ten_thousand_layer_stack_derives_its_coordinates_without_recursion() -> None:
    t = lt.zeros(3, names=("x",), coords={"x": [1.0, 2.0, 3.0]})
    for _ in range(5_000):
        t = t[::-1].T
    assert t.coords["x"].tolist() == [1.0, 2.0, 3.0]


def test_operations_keep_coordinates_where_broadcasting_keeps_the_axis() -> None:
    t = lt.arange(6.0).reshape(2, 3, names=("station", "level"))
    t = t.assign_coords(station=["rome", "oslo"], level=[1000, 850, 500])
    assert set((t + 1).coords) == {"station", "level"}
    assert set((t * t[:, :1]).coords) == {"station", "level"}
    assert set((t[:1] * t[:, :1]).coords) == {"station", "level"}
    assert set(t.sum("level").coords) == {"station"}
    assert set(t.mean("station", keepdim=True).coords) == {"level"}
    assert set(np.exp(t).coords) == {"station", "level"}
    assert lt.stack([t, t]).coords.keys() == {"station", "level"}


def test_operations_refuse_mismatched_coordinates_in_one_line() -> None:
    t = lt.zeros(2, 3, names=("station", "level"), coords={"station": ["rome", "oslo"]})
    u = lt.zeros(2, 3, names=("station", "level"), coords={"station": ["oslo", "rome"]})
    with pytest.raises(
        ValueError, match=r"^coordinates of axis 'station' do not match: \['rome' 'oslo'\] against"
    ) as info:
        t + u
    assert "\n" not in str(info.value)
    assert (t + u[::-1]).coords["station"].tolist() == ["rome", "oslo"]


def test_coordinates_are_checked_where_given() -> None:
    with pytest.raises(ValueError, match="coordinate of axis 'station' has 3 labels for an axis of length 2"):
        lt.zeros(2, names=("station",), coords={"station": ["a", "b", "c"]})
    with pytest.raises(ValueError, match="no axis is named 'time'"):
        lt.zeros(2, names=("station",)).assign_coords(time=[1, 2])
    with pytest.raises(ValueError, match="name the axes"):
        lt.zeros(2, coords={"station": [1, 2]})
    with pytest.raises(TypeError, match="labels are str, numbers or datetime64"):
        lt.zeros(1, names=("x",), coords={"x": [object()]})


def test_assign_coords_is_a_view_that_writes_through_and_pickles() -> None:
    t = lt.zeros(2, 3, names=("station", "level"))
    view = t.assign_coords(station=["rome", "oslo"])
    view.sel(station="oslo")[...] = 7.0
    assert t.numpy()[1].tolist() == [7.0] * 3
    again = pickle.loads(pickle.dumps(view))
    assert again.coords["station"].tolist() == ["rome", "oslo"]
    assert lt.tensor(view).coords["station"].tolist() == ["rome", "oslo"]
    assert not view.coords["station"].flags.writeable


def test_a_copy_keeps_the_coordinates_as_it_keeps_the_names() -> None:
    t = lt.zeros(2, names=("station",), coords={"station": ["rome", "oslo"]}, requires_grad=True)
    assert t[::-1].clone().coords["station"].tolist() == ["oslo", "rome"]
    assert t.detach().coords["station"].tolist() == ["rome", "oslo"]

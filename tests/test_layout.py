"""The Layout algebra: each method against numpy's own strides."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import reshape_targets, shapes

import lazytensor as lt
from lazytensor import Layout
from lazytensor.positions import open_grid


def _storage_indices(layout: Layout) -> np.ndarray:
    return np.broadcast_to(layout.index_batch(open_grid(layout.shape)), layout.shape)


def _from_numpy(view: np.ndarray, base: np.ndarray) -> Layout:
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    return Layout(view.shape, tuple(s // base.itemsize for s in view.strides), offset)


def _on_real_axes(layout: Layout) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Shape, the strides of axes longer than 1 (a size-1 axis's stride is never used: numpy's relaxed
    strides, and a one-index slice keeps its axis's stride so a huge step cannot overflow), offset."""
    strides = tuple(s for n, s in zip(layout.shape, layout.strides, strict=True) if n > 1)
    return layout.shape, strides, layout.offset


def test_contiguous_and_index() -> None:
    layout = Layout.contiguous((3, 5, 4))
    assert layout.strides == (20, 4, 1)
    assert layout.index((2, 0, 0)) == 40
    assert layout.is_contiguous()
    assert Layout.contiguous(()).index(()) == 0


def test_validation() -> None:
    with pytest.raises(ValueError, match="needs 2 strides"):
        Layout((2, 3), (1,), 0)
    with pytest.raises(ValueError, match="offset must be non-negative"):
        Layout((2,), (1,), -1)
    with pytest.raises(ValueError, match="negative size"):
        Layout((-2,), (1,), 0)


def test_go_dimslice_keeps_the_base_offset() -> None:
    """The Go seed's DimSlice forgot the offset of the tensor it slices; selecting twice shows it."""
    layout = Layout.contiguous((2, 5, 6)).at_index(1, 4)
    assert (layout.shape, layout.strides, layout.offset) == ((2, 6), (30, 1), 24)
    twice = layout.at_index(0, 1)
    assert twice.offset == 54 == np.arange(60).reshape(2, 5, 6)[1, 4, 0]


@given(shapes(), st.data())
def test_permute_matches_numpy(shape, data) -> None:
    base = np.arange(math.prod(shape)).reshape(shape)
    axes = tuple(data.draw(st.permutations(range(len(shape)))))
    layout = Layout.contiguous(shape).permute(axes)
    np.testing.assert_array_equal(_storage_indices(layout), base.transpose(axes))


@given(shapes().filter(lambda s: len(s) > 0), st.data())
def test_step_matches_numpy_slicing(shape, data) -> None:
    base = np.arange(math.prod(shape)).reshape(shape)
    axis = data.draw(st.integers(0, len(shape) - 1))
    size = shape[axis]
    key = slice(
        data.draw(st.none() | st.integers(-size - 1, size + 1)),
        data.draw(st.none() | st.integers(-size - 1, size + 1)),
        data.draw(st.integers(-3, 3).filter(bool)),
    )
    start, stop, step = key.indices(size)
    count = len(range(start, stop, step))
    layout = Layout.contiguous(shape).step(axis, start, step, count)
    expected = base[(slice(None),) * axis + (key,)]
    np.testing.assert_array_equal(_storage_indices(layout), expected)
    if count:
        assert _on_real_axes(layout) == _on_real_axes(_from_numpy(expected, base))


def test_step_zero_repeats_one_index() -> None:
    layout = Layout.contiguous((4, 3)).step(0, 2, 0, 5)
    assert layout.shape == (5, 3) and layout.strides == (0, 1) and layout.offset == 6
    assert layout.has_broadcast_axis()


@given(shapes(max_dims=3), st.data())
def test_expand_matches_broadcast_to(shape, data) -> None:
    base = np.arange(math.prod(shape)).reshape(shape)
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = (*lead, *(data.draw(st.sampled_from([1, 3])) if s == 1 else s for s in shape))
    layout = Layout.contiguous(shape).expand(target)
    np.testing.assert_array_equal(_storage_indices(layout), np.broadcast_to(base, target))


@settings(max_examples=300, deadline=None)
@given(shapes(max_dims=4), st.data())
def test_try_reshape_follows_numpys_no_copy_rule(shape, data) -> None:
    """On any strided starting point, try_reshape fuses exactly when numpy can reshape without a copy."""
    base = np.arange(4 * math.prod(shape) + 8)
    # a strided view: permuted axes and a step on one axis, from an offset
    axes = tuple(data.draw(st.permutations(range(len(shape)))))
    step = data.draw(st.sampled_from([1, 2, -1]))
    start = 3 if step > 0 else 3 + 2 * math.prod(shape)
    flat = base[start::step][: math.prod(shape)]
    view = (
        flat.reshape(tuple(shape[a] for a in np.argsort(axes))).transpose(axes) if shape else flat.reshape(())
    )
    layout = _from_numpy(view, base) if view.size else Layout.contiguous(view.shape)
    target = data.draw(reshape_targets(view.shape))
    try:
        expected = np.reshape(view, target, copy=False)
    except ValueError:
        assert layout.try_reshape(target) is None
        return
    fused = layout.try_reshape(target)
    assert fused is not None
    if view.size:
        np.testing.assert_array_equal(base[_storage_indices(fused)], expected)


def test_try_reshape_examples() -> None:
    transposed = Layout.contiguous((3, 4)).permute((1, 0))
    assert transposed.try_reshape((12,)) is None  # numpy copies here
    assert transposed.try_reshape((2, 2, 3)) == Layout((2, 2, 3), (2, 1, 4), 0)  # splitting is free
    with_units = transposed.try_reshape((4, 1, 3, 1))
    assert with_units is not None  # size-1 axes never matter; their strides are arbitrary
    assert (with_units.strides[0], with_units.strides[2]) == (1, 4)
    every_other = Layout((4, 3), (6, 1), 5)  # rows 2 apart: the last axis stays, rows do not merge
    assert every_other.try_reshape((2, 2, 3)) == Layout((2, 2, 3), (12, 6, 1), 5)
    assert every_other.try_reshape((12,)) is None


def test_span_and_contiguity() -> None:
    layout = Layout((2, 3), (-3, 1), 3)
    assert layout.span() == (0, 5)
    assert not layout.is_contiguous()
    assert Layout((1, 3), (99, 1), 2).is_contiguous()  # size-1 axes do not count


# -- edges: index_batch's arity, empty layouts, expand's axes ------------------------------------------


def test_index_batch_needs_one_index_array_per_axis() -> None:
    """A layout refuses too few index arrays instead of silently ignoring the missing axes."""
    layout = lt.Layout.contiguous((2, 3))
    with pytest.raises(ValueError):
        layout.index_batch([np.arange(2)])
    assert layout.index_batch([np.arange(2)[:, None], np.arange(3)]).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_an_empty_layout_is_contiguous_whatever_its_strides() -> None:
    """numpy calls an empty array C-contiguous; an empty slice of a reversed view is one too."""
    assert lt.Layout((0, 3), (-3, 1), 3).is_contiguous()
    t = lt.arange(6).reshape(2, 3)[::-1][:0]
    assert t.shape == (0, 3) and t.is_contiguous()
    assert np.arange(6).reshape(2, 3)[::-1][:0].flags.c_contiguous
    assert not lt.Layout((2, 3), (-3, 1), 3).is_contiguous()


def test_an_empty_step_keeps_the_offset_it_started_from() -> None:
    """Taking no index along an axis moves nowhere: the offset stays, so it never points past storage."""
    layout = lt.Layout.contiguous((4, 3), offset=2)
    assert layout.step(0, 3, -1, 0).offset == 2
    assert layout.step(1, 2, 1, 0).offset == 2
    assert lt.arange(12).reshape(4, 3)[:, 2:2].layout.offset == 0


def test_expand_needs_at_least_the_axes_it_has() -> None:
    """A layout cannot be expanded to fewer axes: it raises rather than dropping strides."""
    with pytest.raises(ValueError):
        lt.Layout.contiguous((2, 3)).expand((3,))
    assert lt.Layout.contiguous((1, 3)).expand((2, 4, 3)).strides == (0, 0, 1)

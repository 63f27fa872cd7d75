"""The Layout algebra: each method against numpy's own strides.

Reaches into `lazytensor.ground.indexing` and `lazytensor.ground.positions`: the layout algebra's
methods take the normalised `Range` specs and open grids the views hand them.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import reshape_targets, shapes

import lazytensor as lt
from lazytensor import Layout
from lazytensor.ground.indexing import Range
from lazytensor.ground.positions import open_grid


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
    layout = Layout.contiguous((2, 5, 6)).select((slice(None), 4, slice(None)))
    assert layout is not None
    assert (layout.shape, layout.strides, layout.offset) == ((2, 6), (30, 1), 24)
    twice = layout.select((1, slice(None)))
    assert twice is not None and twice.offset == 54 == np.arange(60).reshape(2, 5, 6)[1, 4, 0]


@given(shapes(), st.data())
def test_permute_matches_numpy(shape, data) -> None:
    base = np.arange(math.prod(shape)).reshape(shape)
    axes = tuple(data.draw(st.permutations(range(len(shape)))))
    layout = Layout.contiguous(shape).permute(axes)
    np.testing.assert_array_equal(_storage_indices(layout), base.transpose(axes))


@st.composite
def strided_views(draw: st.DrawFn, max_dims: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """A numpy view of a flat base (the base, the view) from an offset, with permuted axes and a
    step (negative too) on each: any strided starting point, 0-d and size-0/1 axes included."""
    shape = draw(shapes(max_dims=max_dims))
    steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in shape]
    full = tuple(size * abs(step) for size, step in zip(shape, steps, strict=True))
    base = np.arange(math.prod(full) + 3)
    view = base[3:].reshape(full)[(*(slice(None, None, step) for step in steps), Ellipsis)]
    view = view[(*(slice(0, size) for size in shape), Ellipsis)]
    axes = tuple(draw(st.permutations(range(len(shape)))))
    return base, view.transpose(axes)


def _layout_of(view: np.ndarray, base: np.ndarray) -> Layout:
    return _from_numpy(view, base) if view.size else Layout.contiguous(view.shape, 3)


@st.composite
def selectors(draw: st.DrawFn, size: int) -> Any:
    """One entry of `Layout.select` for an axis of `size`: an int (negative too), a slice (any step),
    or a list of indices (a progression, step 0 included, or scattered)."""
    kinds = ["slice", "progression", "list"] + (["int"] if size else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return draw(st.integers(-size, size - 1))
    if kind == "slice":
        bound = st.none() | st.integers(-size - 2, size + 2)
        return slice(draw(bound), draw(bound), draw(st.integers(-3, 3).filter(bool)))
    if kind == "list" or size == 0:
        return np.array(draw(st.lists(st.integers(0, max(size - 1, 0)), max_size=5 if size else 0)), np.intp)
    start = draw(st.integers(0, size - 1))
    step = draw(st.integers(-start, size - 1 - start))  # two entries at least, both inside
    room = 4 if step == 0 else ((size - 1 - start) // step if step > 0 else start // -step)
    count = draw(st.integers(2, 1 + room))
    return np.arange(count, dtype=np.intp) * step + start


def _is_progression(indices: np.ndarray) -> bool:
    return indices.size < 3 or len(set(np.diff(indices).tolist())) == 1


def _outer_numpy(view: np.ndarray, key: tuple[Any, ...]) -> np.ndarray:
    """numpy's outer indexing: ints and slices first, then `np.ix_` over the lists and the kept axes."""
    basic = view[(*(slice(None) if isinstance(k, np.ndarray) else k for k in key), Ellipsis)]
    if not any(isinstance(k, np.ndarray) for k in key):
        return basic  # numpy's own view
    kept = [k for k in key if not isinstance(k, int)]
    lists = [k if isinstance(k, np.ndarray) else np.arange(n) for k, n in zip(kept, basic.shape, strict=True)]
    return basic[np.ix_(*lists)] if lists else basic


@settings(max_examples=300, deadline=None)
@given(strided_views(), st.data())
def test_select_matches_numpy_outer_indexing(views, data) -> None:
    """Every entry kind on any strided layout: the selected layout addresses numpy's elements, and it
    is None exactly when a list is no arithmetic progression."""
    base, view = views
    layout = _layout_of(view, base)
    key = tuple(data.draw(selectors(size)) for size in view.shape)
    expected = _outer_numpy(view, key)
    selected = layout.select(key)
    lists = [k for k in key if isinstance(k, np.ndarray)]
    if not all(_is_progression(k) for k in lists):
        assert selected is None
        return
    assert selected is not None and selected.shape == expected.shape
    if expected.size:
        np.testing.assert_array_equal(base[_storage_indices(selected)], expected)
        low, high = selected.span()
        assert low >= 0 and high < base.size
    if expected.size and not lists:  # basic indexing: numpy's own view, stride for stride
        assert _on_real_axes(selected) == _on_real_axes(_from_numpy(expected, base))


def test_select_examples_and_errors() -> None:
    layout = Layout.contiguous((4, 3), offset=2)
    assert layout.select((slice(3, 3, -1), slice(None))) == Layout(
        (0, 3), (3, 1), 2
    )  # no index: offset stays
    assert layout.select((slice(None), slice(2, 2))) == Layout((4, 0), (3, 1), 2)
    repeated = layout.select((np.array([2, 2, 2, 2, 2]), slice(None)))
    assert repeated == Layout((5, 3), (0, 1), 8) and repeated.has_broadcast_axis()
    assert layout.select((-1, 0)) == Layout((), (), 11)
    run = Range.from_slice(slice(None, None, -2), 4)  # a normalised slice, as SlicedTensor keeps it
    assert layout.select((run, 1)) == layout.select((slice(None, None, -2), 1)) == Layout((2,), (-6,), 12)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        layout.select((4, 0))
    with pytest.raises(IndexError, match="1 selectors for a layout of shape"):
        layout.select((0,))


@st.composite
def gather_keys(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """Index arrays of one block shape for some axes of `shape`: affine (as `arange` grids make) or
    drawn at random."""
    axes = tuple(sorted(draw(st.sets(st.sampled_from(range(len(shape))), min_size=1))))
    block = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    arrays = []
    for axis in axes:
        size = shape[axis]
        if draw(st.booleans()):
            values = draw(
                st.lists(st.integers(0, size - 1), min_size=math.prod(block), max_size=math.prod(block))
            )
            arrays.append(np.array(values, dtype=np.intp).reshape(block))
            continue
        origin = draw(st.integers(0, size - 1))
        grid = np.zeros(block, dtype=np.intp) + origin
        for j, n in enumerate(block):  # each block axis may use its share of the room either way
            share = max(n - 1, 1) * len(block)
            step = draw(st.integers(-(origin // share), (size - 1 - origin) // share))
            grid = grid + step * np.arange(n).reshape((-1,) + (1,) * (len(block) - j - 1))
        arrays.append(grid.astype(np.intp))
    return axes, arrays


def _numpy_block_start(axes: tuple[int, ...]) -> int:
    return axes[0] if axes[-1] - axes[0] == len(axes) - 1 else 0


@settings(max_examples=300, deadline=None)
@given(strided_views().filter(lambda views: 0 not in views[1].shape and views[1].ndim > 0), st.data())
def test_gather_matches_numpy_advanced_indexing(views, data) -> None:
    """Index arrays on some axes of any strided layout, the block where numpy puts it: the gathered
    layout addresses numpy's elements; affine arrays always fuse."""
    base, view = views
    layout = _layout_of(view, base)
    axes, arrays = data.draw(gather_keys(view.shape))
    key = [slice(None)] * view.ndim
    for axis, array in zip(axes, arrays, strict=True):
        key[axis] = array
    expected = view[tuple(key)]
    gathered = layout.gather(axes, arrays, _numpy_block_start(axes))
    if all(_is_affine(array) for array in arrays):
        assert gathered is not None
    if gathered is None:
        return
    assert gathered.shape == expected.shape
    if expected.size:
        np.testing.assert_array_equal(base[_storage_indices(gathered)], expected)
    first = layout.gather(axes, arrays, 0)  # the block first, as numpy does after a `...` between arrays
    assert first is not None
    if expected.size:
        moved = np.moveaxis(
            expected,
            range(_numpy_block_start(axes), _numpy_block_start(axes) + arrays[0].ndim),
            range(arrays[0].ndim),
        )
        np.testing.assert_array_equal(base[_storage_indices(first)], moved)


def _is_affine(array: np.ndarray) -> bool:
    """Brute force: `array[b] == array[0] + sum(b[j] * d[j])` with `d[j]` the step along axis `j`."""
    if array.size == 0:
        return True
    origin = int(array.flat[0])
    steps = [
        int(array[tuple(1 if k == j else 0 for k in range(array.ndim))]) - origin if n > 1 else 0
        for j, n in enumerate(array.shape)
    ]
    return all(
        int(array[b]) == origin + sum(s * i for s, i in zip(steps, b, strict=True))
        for b in np.ndindex(*array.shape)
    )


def test_gather_examples() -> None:
    layout = Layout.contiguous((3, 4))
    assert layout.gather((0,), (np.array([2, 0]),), 0) == Layout((2, 4), (-8, 1), 8)
    assert layout.gather((1,), (np.array([0, 2, 1]),), 1) is None
    diagonal = layout.gather((0, 1), (np.array([0, 1, 2]), np.array([1, 2, 3])), 0)
    assert diagonal == Layout((3,), (5,), 1)


@given(shapes(max_dims=3), st.data())
def test_expand_matches_broadcast_to(shape, data) -> None:
    base = np.arange(math.prod(shape)).reshape(shape)
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = (*lead, *(data.draw(st.sampled_from([1, 3])) if s == 1 else s for s in shape))
    layout = Layout.contiguous(shape).expand(target)
    np.testing.assert_array_equal(_storage_indices(layout), np.broadcast_to(base, target))


@settings(max_examples=300, deadline=None)
@given(strided_views(), st.sampled_from([None, 0, 1]))
def test_coalesced_walks_storage_alike_with_the_fewest_axes(views, broadcast_axis) -> None:
    """The normal form reaches the same storage indices in the same row-major order, has no size-1
    axis and no two neighbours that would merge; a stride-0 (broadcast) axis is kept apart."""
    base, view = views
    layout = _layout_of(view, base)
    if broadcast_axis is not None and layout.ndim > broadcast_axis:
        strides = list(layout.strides)
        strides[broadcast_axis] = 0
        layout = Layout(layout.shape, tuple(strides), layout.offset)
    normal = layout.coalesced()
    assert normal.offset == layout.offset and normal.numel() == layout.numel()
    if layout.numel() == 0:
        assert normal.shape == (0,)
        return
    np.testing.assert_array_equal(_storage_indices(normal).reshape(-1), _storage_indices(layout).reshape(-1))
    assert 1 not in normal.shape
    axes = list(zip(normal.shape, normal.strides, strict=True))
    for (_, outer), (size, inner) in itertools.pairwise(axes):
        assert outer != size * inner
    assert normal.coalesced() == normal


def test_coalesced_examples() -> None:
    assert Layout.contiguous((2, 3, 4)).coalesced() == Layout((24,), (1,), 0)
    assert Layout((2, 3), (0, 0), 4).coalesced() == Layout((6,), (0,), 4)  # one element, six times
    assert Layout((1, 1), (5, 7), 2).coalesced() == Layout((), (), 2)
    assert Layout((4, 3), (6, 1), 5).coalesced() == Layout((4, 3), (6, 1), 5)  # rows 2 apart stay apart


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
    assert layout.select((slice(3, 3, -1), slice(None))).offset == 2
    assert layout.select((slice(None), slice(2, 2))).offset == 2
    assert lt.arange(12).reshape(4, 3)[:, 2:2].layout.offset == 0


def test_expand_needs_at_least_the_axes_it_has() -> None:
    """A layout cannot be expanded to fewer axes: it raises rather than dropping strides."""
    with pytest.raises(ValueError):
        lt.Layout.contiguous((2, 3)).expand((3,))
    assert lt.Layout.contiguous((1, 3)).expand((2, 4, 3)).strides == (0, 0, 1)


@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(-6, 6)), min_size=0, max_size=4),
    st.integers(0, 50),
)
def test_may_overlap_is_false_only_when_every_position_has_its_own_element(
    axes: list[tuple[int, int]], offset: int
) -> None:
    """`may_overlap()` False is a promise (writes then go through numpy's strided copy); True may be
    cautious (writes then go one index at a time, in row-major order)."""
    shape, strides = tuple(n for n, _ in axes), tuple(s for _, s in axes)
    layout = Layout(shape, strides, offset + sum(abs(s) * n for n, s in axes))
    indices = layout.index_batch(open_grid(shape)) if shape else np.array(layout.offset)
    distinct = np.unique(np.broadcast_to(indices, shape)).size == math.prod(shape)
    if not layout.may_overlap():
        assert distinct
    if any(s == 0 and n > 1 for n, s in axes):
        assert layout.may_overlap()

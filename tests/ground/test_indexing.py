"""numpy indexing, oindex and the seeds' slice specs: values, fusion, write-through, errors.

Reaches into `lazytensor.ground.indexing`: the read-only window over an index array and its usable
buffer are helpers no public call returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import shapes

import lazytensor as lt
from lazytensor.ground.indexing import read_only_window, usable


def grid(*shape: int) -> tuple[lt.AbstractTensor, np.ndarray]:
    n = int(np.prod(shape))
    return lt.arange(n).reshape(shape), np.arange(n).reshape(shape)


KEYS = [
    (1,),
    (-1, slice(None, None, -2)),
    (Ellipsis, 1),
    (None, 0, Ellipsis, None),
    ([1, 0],),
    ([[0, 1], [1, 0]],),
    (slice(None), [0, 2], None, [1, 3]),  # arrays apart: block goes first
    ([0, 1], slice(None), [1, 3]),  # apart again
    (slice(None), [0, 2], [1, 3]),  # adjacent: block in place
    (1, slice(None), [0, 3]),  # an int beside an array is advanced
    (slice(None), 1, [0, 3]),
    (np.array([True, False]),),
    (np.array([[True, False, True], [False, False, True]]),),
    (np.array([[True, False, True], [False, False, True]]), [0, 0, 3]),
    (True,),
    (False, Ellipsis),
    ([],),
    ([-1, -2, -1],),
]


def _key_id(key: object) -> str:
    """The key's repr on one line: a newline in an id is escaped again each time pytest collects in
    one process (as mutmut does), so the ids would stop matching."""
    return " ".join(repr(key).split())


@pytest.mark.parametrize("key", KEYS, ids=_key_id)
def test_numpy_keys(key) -> None:
    t, ref = grid(2, 3, 4)
    np.testing.assert_array_equal(t[key].numpy(), ref[key])


def test_all_int_key_returns_a_0_d_view_and_ellipsis_a_view() -> None:
    t, ref = grid(2, 3)
    assert t[1, -1] == ref[1, -1] and isinstance(t[1, -1], lt.AbstractTensor) and t[1, -1].shape == ()
    assert isinstance(t[1, -1, ...], lt.AbstractTensor) and t[1, -1, ...].shape == ()


def test_tensor_keys() -> None:
    t, ref = grid(4, 3)
    np.testing.assert_array_equal(t[lt.tensor([3, 0])].numpy(), ref[[3, 0]])
    mask = lt.tensor([True, False, True, False])
    np.testing.assert_array_equal(t[mask].numpy(), ref[[0, 2]])


@pytest.mark.parametrize(
    ("key", "strides"),
    [([1, 3, 5], (2,)), ([2, 2, 2], (0,)), ([5, 3, 1], (-2,)), ([4], None), ([], None)],
)
def test_arithmetic_progressions_stay_strided(key, strides) -> None:
    t = lt.arange(8)
    view = t[key]
    assert view.layout is not None
    if strides is not None:  # a single index's stride is arbitrary
        assert view.layout.strides == strides
    if key:
        assert np.shares_memory(view.numpy(), t.storage)
    np.testing.assert_array_equal(view.numpy(), np.arange(8)[key])


def test_affine_index_arrays_stay_strided_and_others_gather() -> None:
    t, ref = grid(4, 4)
    block = t[[[0, 1], [2, 3]], [[1, 1], [1, 1]]]
    assert block.layout is not None and block.layout.strides == (8, 4)
    np.testing.assert_array_equal(block.numpy(), ref[[[0, 1], [2, 3]], [[1, 1], [1, 1]]])
    assert t[[0, 2, 3]].layout is None
    assert t[[0, 2, 3]].T.layout is None


def test_fancy_views_write_through() -> None:
    """Where lazytensor differs from numpy on purpose: fancy indexing makes a view."""
    t, _ = grid(3, 4)
    t[[0, 2]][0] = 5
    assert t[0].tolist() == [5, 5, 5, 5]
    t[np.array([True, False, True])][:, 1] = -1
    assert t[:, 1].tolist() == [-1, 5, -1]
    t[[1, 0, 2], [3, 3, 0]] = lt.tensor([7, 8, 9])
    assert (t[1, 3], t[0, 3], t[2, 0]) == (7, 8, 9)


def test_setitem_broadcasts_like_numpy() -> None:
    t, ref = grid(3, 4)
    ref = ref.copy()
    t[:, [1, 3]] = [[10], [20], [30]]
    ref[:, [1, 3]] = [[10], [20], [30]]
    t[1:, ::-2] = 0
    ref[1:, ::-2] = 0
    t[0] = np.array([[9, 8, 7, 6]])  # a leading size-1 axis in the value is dropped, as numpy does
    ref[0] = np.array([[9, 8, 7, 6]])
    np.testing.assert_array_equal(t.numpy(), ref)


def test_setitem_with_overlapping_value_reads_before_writing() -> None:
    t, ref = grid(3, 3)
    ref = ref.copy()
    t[...] = t.T
    ref[...] = ref.T
    np.testing.assert_array_equal(t.numpy(), ref)
    t[[2, 1, 0]] = t[[0, 1, 2]]
    ref[[2, 1, 0]] = ref[[0, 1, 2]].copy()
    np.testing.assert_array_equal(t.numpy(), ref)


def test_oindex() -> None:
    t, ref = grid(3, 4, 5)
    np.testing.assert_array_equal(
        t.oindex[[0, 2], :, [4, 0, 1]].numpy(), ref[np.ix_([0, 2], range(4), [4, 0, 1])]
    )
    np.testing.assert_array_equal(t.oindex[1, [3, 1], None].numpy(), ref[1][[3, 1]][:, None])
    assert t.oindex[2, 3, 4] == ref[2, 3, 4]
    t.oindex[[0, 2], [0, 3]] = -1
    assert (t.numpy()[np.ix_([0, 2], [0, 3])] == -1).all()
    with pytest.raises(IndexError, match="1-D"):
        t.oindex[[[0, 1]]]


def test_seed_slice_specs() -> None:
    """The seeds: int keeps a size-1 axis, lists may repeat, slices may run backwards."""
    t, _ = grid(5, 2, 3)
    view = t.slice([[3, 4], None, slice(3, 0, -1)])
    assert view.shape == (2, 2, 2)
    positions = [list(p) for p in np.ndindex(*view.shape)]
    mapped = [lt.tenxor.index_to_position(view.locate(p), [5, 2, 3]) for p in positions]
    assert mapped == [
        [3, 0, 2], [3, 0, 1], [3, 1, 2], [3, 1, 1],
        [4, 0, 2], [4, 0, 1], [4, 1, 2], [4, 1, 1],
    ]  # fmt: skip
    assert t.slice([[2, 3], None, 1]).shape == (2, 2, 1)
    assert t.slice([3]).shape == (1, 2, 3)
    assert t.slice([None, slice(3, 1, -1)]).shape == (5, 0, 3)


def test_seed_pointlessly_convoluted_views() -> None:
    t1 = lt.arange(20).reshape(4, 5)
    a = t1.slice([[1, 3], slice(0, 5, 2)])
    assert a.tolist() == [[5, 7, 9], [15, 17, 19]]
    assert a.T.tolist() == [[5, 15], [7, 17], [9, 19]]
    b = t1.slice([[1, 1], slice(4)])
    assert b.tolist() == [[5, 6, 7, 8], [5, 6, 7, 8]]
    bt = b.swapaxes(0, 1)
    assert bt.tolist() == [[5, 5], [6, 6], [7, 7], [8, 8]]
    assert bt.view([2, 4]).tolist() == [[5, 5, 6, 6], [7, 7, 8, 8]]


@pytest.mark.parametrize(
    ("key", "error", "message"),
    [
        ((3,), IndexError, "index 3 is out of bounds for axis 0 with size 3"),
        ((0, -5), IndexError, "index -5 is out of bounds for axis 1 with size 4"),
        (([0, 7],), IndexError, "index 7 is out of bounds for axis 0 with size 3"),
        ((0, 0, 0), IndexError, "too many indices for tensor: tensor is 2-dimensional, but 3 were indexed"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        ((1.5,), IndexError, "valid indices"),
        (
            (np.array([True, False]),),
            IndexError,
            "size of axis is 3 but size of corresponding boolean axis is 2",
        ),
        (([0, 1], [0, 1, 2]), IndexError, r"could not be broadcast together with shapes \(2,\) \(3,\)"),
    ],
)
def test_bad_keys(key, error, message) -> None:
    t, ref = grid(3, 4)
    with pytest.raises(error, match=message):
        t[key]
    with pytest.raises(error):
        ref[key]


@pytest.mark.parametrize("bad", [50, 0, 99])
def test_long_lists_that_are_no_progression_gather(bad: int) -> None:
    """Past 64 entries the progression test first compares the far end, then every step: a list
    whose ends line up but whose middle does not (or the reverse) must still gather."""
    key = np.arange(100)
    key[bad] = 3
    view = lt.arange(200)[key]
    assert view.layout is None
    np.testing.assert_array_equal(view.numpy(), np.arange(200)[key])
    assert lt.arange(200)[np.arange(0, 200, 2)].layout.strides == (2,)


def test_affine_fit_checks_the_interior_when_the_corner_fits() -> None:
    t, ref = grid(4, 4)
    key = np.array([[0, 1, 2], [1, 9, 3]])  # corner 3 = 0 + 1*1 + 2*1, but 9 is off the plane
    assert t.reshape(16)[key].layout is None
    np.testing.assert_array_equal(t.reshape(16)[key].numpy(), ref.reshape(16)[key])
    corner_off = np.array([[0, 1], [1, 5]])
    assert t.reshape(16)[corner_off].layout is None


def test_a_fancy_view_keeps_its_own_read_only_index() -> None:
    """The view keeps a private copy of the key: changing the key later changes nothing, and the
    kept index cannot be written through the view's attributes."""
    t, ref = grid(5, 2)
    key = np.array([4, 0, 3])
    view = t[key]
    key[0] = 1
    np.testing.assert_array_equal(view.numpy(), ref[[4, 0, 3]])
    (kept,) = [array for array in view.indices if array is not None]
    assert not kept.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        kept[0] = 0
    frozen = np.array([1, 2])
    frozen.setflags(write=False)
    np.testing.assert_array_equal(t[frozen].numpy(), ref[[1, 2]])


def _reversed_window() -> np.ndarray:
    window = np.arange(4)[::-1]
    window.setflags(write=False)
    return window


def _fortran_window() -> np.ndarray:
    return read_only_window(np.asfortranarray(np.arange(6).reshape(2, 3)))


@pytest.mark.parametrize(
    ("make", "hands_base"),
    [
        (lambda: read_only_window(np.array([2, 0, 1])), True),  # owns and spans its memory
        (_fortran_window, True),  # not C-contiguous: the data pointers are compared
        (_reversed_window, False),  # other strides: not the same bytes in the same order
        (lambda: read_only_window(np.arange(6)[1:4]), False),  # its buffer is not its base
        (lambda: np.array([1, 2]), False),  # writeable already: used as it is
    ],
)
def test_usable_hands_numpy_the_base_only_when_it_is_the_same_array(make: Any, hands_base: bool) -> None:
    indices = make()
    got = usable(indices)
    np.testing.assert_array_equal(got, indices)
    assert (got is indices.base) == hands_base
    assert got is indices or hands_base


# -- oindex writes and refusals, slice specs of index-likes ------------------------------------------


def test_oindex_writes_touch_only_the_selected_positions() -> None:
    t = lt.arange(12).reshape(3, 4)
    ref = np.arange(12).reshape(3, 4)
    t.oindex[[0, 2], [1, 3]] = -1
    ref[np.ix_([0, 2], [1, 3])] = -1
    np.testing.assert_array_equal(t.numpy(), ref)
    # a None in the key adds an axis of size 1 to the selection, as in reads
    t.oindex[None, [1], [0, 2]] = np.array([[[7, 8]]])
    ref[np.ix_([1], [0, 2])] = [[7, 8]]
    np.testing.assert_array_equal(t.numpy(), ref)


class _IndexLike:
    """Not an int, but usable as one (`__index__`), as numpy accepts."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_slice_specs_accept_index_likes_and_name_bad_specs() -> None:
    t = lt.arange(6).reshape(3, 2)
    ref = np.arange(6).reshape(3, 2)
    np.testing.assert_array_equal(t.slice([_IndexLike(1)]).numpy(), ref[1:2])
    np.testing.assert_array_equal(t.slice([None, _IndexLike(-1)]).numpy(), ref[:, 1:2])
    with pytest.raises(IndexError, match=r"^3 slice specs for a tensor of shape \(3, 2\)$"):
        t.slice([None, None, None])
    with pytest.raises(IndexError, match=r"^index 2 is out of bounds for axis 1 with size 2$"):
        t.slice([None, 2])
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for axis 1 with size 2$"):
        t.slice([None, [0, 5]])
    with pytest.raises(IndexError, match=r"^slice spec for axis 0 must be a list of ints, got \[\[0, 1\]\]$"):
        t.slice([[[0, 1]]])
    with pytest.raises(IndexError, match=r"^slice spec for axis 0 must be a list of ints, got \[0.5\]$"):
        t.slice([[0.5]])


def test_oindex_refuses_keys_that_are_not_1d_with_its_own_message() -> None:
    t = lt.arange(60).reshape(3, 4, 5)
    with pytest.raises(IndexError, match=r"^oindex takes 1-D index lists or masks, got shape \(1, 2\)$"):
        t.oindex[[[0, 1]]]
    with pytest.raises(IndexError, match=r"^oindex takes 1-D index lists or masks, got shape \(3, 4\)$"):
        t.oindex[np.ones((3, 4), dtype=bool)]
    with pytest.raises(IndexError, match=r"^oindex takes 1-D index lists or masks, got shape \(2, 1\)$"):
        t.oindex[0, [[1], [2]]]


def test_huge_steps_and_indices_are_handled_as_numpy_would_or_named() -> None:
    t = lt.arange(60).reshape(4, 3, 5)
    assert t[:: 4 * 10**17].tolist() == np.arange(60).reshape(4, 3, 5)[:: 4 * 10**17].tolist()
    for key in (10**19, (1, 10**19, 0)):
        with pytest.raises(IndexError, match="index 10000000000000000000 is out of bounds"):
            t[key]


# -- one lone list, whichever door made it ---------------------------------------------------------


@st.composite
def lone_lists(draw: st.DrawFn) -> tuple[tuple[int, ...], int, np.ndarray]:
    """A shape (no size-0 axis), an axis of it, and a 1-D list of indices along that axis (repeats,
    negatives and the empty list included)."""
    shape = draw(shapes(max_dims=3).filter(lambda s: len(s) > 0 and all(s)))
    axis = draw(st.integers(0, len(shape) - 1))
    size = shape[axis]
    src = draw(st.lists(st.integers(-size, size - 1), max_size=6))
    return shape, axis, np.array(src, dtype=np.intp)


def _layer_kinds(t: lt.AbstractTensor) -> list[tuple[str, str]]:
    return [(layer.layer_name, layer.describe()) for layer in t.layers]


@settings(deadline=None)
@given(lone_lists())
def test_a_lone_list_is_one_wrapper_whichever_door_made_it(
    case: tuple[tuple[int, ...], int, np.ndarray],
) -> None:
    """`t[src]` and `t.oindex[src, :]` (with or without `...` or trailing `:`) build the same layers,
    read numpy's values and send back numpy's gradient (a segment sum: repeated rows add). The
    seeds' `t.slice([src])` stays one SlicedTensor, the seeds' own map."""
    shape, axis, src = case
    values = np.arange(float(np.prod(shape))).reshape(shape)
    key = (*(slice(None),) * axis, src)
    expected = values[key]
    weights = np.arange(1.0, expected.size + 1).reshape(expected.shape)
    grad = np.zeros(shape)
    np.add.at(grad, key, weights)
    t = lt.tensor(values, requires_grad=True)
    doors = [
        t[key],
        t.oindex[key],
        t.oindex[(*key, Ellipsis)],
        t.oindex[(*key, *(slice(None),) * 2)[: len(shape)]],
    ]
    for view in doors:
        assert type(view.layers[0]).__name__ == "IndexedTensor"
        assert _layer_kinds(view) == _layer_kinds(doors[0])
        np.testing.assert_array_equal(view.numpy(), expected)
        t.grad = None
        (view * lt.tensor(weights)).sum().backward()
        assert t.grad is not None
        np.testing.assert_array_equal(t.grad.numpy(), grad)


def test_a_lone_list_beside_ints_and_ranges_selects_outer() -> None:
    """`t.oindex[1, src, ::2]`: the int and the range first (a SlicedTensor), then the lone list."""
    t, ref = grid(3, 4, 5)
    view = t.oindex[1, [3, 0, 3], ::2]
    assert [layer.layer_name for layer in view.layers[:2]] == ["Indexed", "Sliced"]
    np.testing.assert_array_equal(view.numpy(), ref[1][[3, 0, 3]][:, ::2])
    view[...] = -1  # writes go through to the selected positions only
    expected = ref.copy()
    expected[1, [0, 3], ::2] = -1
    np.testing.assert_array_equal(t.numpy(), expected)
    two = t.oindex[[0, 2], [1, 3]]  # two lists stay outer: one SlicedTensor
    assert two.layers[0].layer_name == "Sliced" and two.shape == (2, 2, 5)


FLOAT_SLICE_KEYS = [
    (slice(0.0, None), 0.0),
    (slice(0.0, None), np.float64(1.0)),
    (slice(None, 1.5), [0.0]),
    (slice(0.0, None), 0.0, 0.0),
    (slice(0.0, None),),
    (slice(0.0, None), 0),
    (slice(None, None, 1.0), slice(None)),
]


@pytest.mark.parametrize("key", FLOAT_SLICE_KEYS, ids=repr)
@pytest.mark.parametrize("write", [False, True])
def test_a_float_in_a_slice_raises_numpys_error_type(key: Any, write: bool) -> None:
    """numpy checks the other items before a slice's bounds: `a[0.0:, 0.0]` is numpy's IndexError for
    the float scalar, `a[0.0:, 0]` the TypeError of the slice; a write raises the same and changes
    nothing."""
    t, a = grid(2, 3)

    def attempt(x: Any) -> type[BaseException]:
        try:
            if write:
                x[key] = 1
            else:
                x[key]
        except (IndexError, TypeError) as error:
            return type(error)
        raise AssertionError(f"{key!r} was accepted")

    assert attempt(t) is attempt(a)
    assert t.tolist() == np.arange(6).reshape(2, 3).tolist()

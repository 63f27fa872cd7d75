"""Every public wrapper class built directly with bad parameters raises, naming the bad values.

`t.permute`, `t[...]`, `t.reshape` validate user arguments before they build a wrapper;
these tests skip that layer and call the classes (`lt.TransposedTensor(t, axes)`, ...)
directly, as a library extending lazytensor would. A wrapper that accepted bad
parameters would read the wrong elements silently (a range running past its axis reads
into the next row), so each one must refuse with numpy's exception type: IndexError for
positions and indices, ValueError for shapes and permutations, TypeError for kinds.

Reaches into `lazytensor.tensors.views` for `Range`, the spec type `lt.SlicedTensor` takes, which
the package does not export.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.tensors.views import Range  # the SlicedTensor spec type (see lt.SlicedTensor's docstring)


@pytest.fixture
def t() -> lt.AbstractTensor:
    """A 2 x 3 tensor: non-square, so a swapped axis or size shows."""
    return lt.arange(6).reshape(2, 3)


# -- TransposedTensor ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "axes, message",
    [
        ((0, 0), r"axes \(0, 0\) are not a permutation of the 2 axes of a tensor of shape \(2, 3\)"),
        ((1, 2), r"axes \(1, 2\) are not a permutation"),
        ((0,), r"axes \(0,\) are not a permutation"),
        ((2, 1, 0), r"axes \(2, 1, 0\) are not a permutation"),
        ((-1, 0), r"axes \(-1, 0\) are not a permutation"),  # no negative axes one layer down
    ],
)
def test_transposed_tensor_needs_a_permutation(t: lt.AbstractTensor, axes: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        lt.TransposedTensor(t, axes)


def test_a_valid_transposed_tensor_reads_like_numpy(t: lt.AbstractTensor) -> None:
    """The control: the same class with good parameters is numpy's transpose."""
    u = lt.TransposedTensor(lt.arange(24).reshape(2, 3, 4), (1, 2, 0))
    np.testing.assert_array_equal(u.numpy(), np.arange(24).reshape(2, 3, 4).transpose(1, 2, 0))


# -- SlicedTensor ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "specs, message",
    [
        # ranges that run past their axis would read into the next row
        ((Range(0, 1, 2), Range(1, 1, 3)), r"range 1:4 does not fit axis 1 with size 3"),
        ((Range(1, 1, 2), Range.full(3)), r"range 1:3 does not fit axis 0 with size 2"),
        ((Range(0, 2, 2), Range.full(3)), r"range 0:4:2 does not fit axis 0 with size 2"),
        ((Range.full(2), Range(1, -1, 3)), r"range 1::-1 does not fit axis 1 with size 3"),
        ((Range(2, 1, 1), Range.full(3)), r"range 2:3 does not fit axis 0 with size 2"),
        # a spec per axis, no more, no fewer
        ((Range.full(2),), r"1 slice specs for a tensor of shape \(2, 3\) with 2 axes"),
        ((0, 0, 0), r"3 slice specs for a tensor of shape \(2, 3\) with 2 axes"),
        # ints and index lists inside their axis (no negative values one layer down)
        ((0, 3), r"index 3 is out of bounds for axis 1 with size 3"),
        ((-1, Range.full(3)), r"index -1 is out of bounds for axis 0 with size 2"),
        ((Range.full(2), np.array([0, 3, 1])), r"index 3 is out of bounds for axis 1 with size 3"),
        ((np.array([-1]), Range.full(3)), r"index -1 is out of bounds for axis 0 with size 2"),
        ((Range.full(2), np.array([[0, 1]])), r"index list for axis 1 must be 1-D, got shape \(1, 2\)"),
    ],
)
def test_sliced_tensor_refuses_specs_outside_the_tensor(
    t: lt.AbstractTensor, specs: Any, message: str
) -> None:
    with pytest.raises(IndexError, match=message):
        lt.SlicedTensor(t, specs)


def test_a_range_needs_a_step_and_a_count() -> None:
    with pytest.raises(ValueError, match="a range needs count >= 0 and a non-zero step"):
        Range(0, 0, 2)
    with pytest.raises(ValueError, match="a range needs count >= 0"):
        Range(0, 1, -1)


def test_valid_sliced_tensors_read_like_numpy(t: lt.AbstractTensor) -> None:
    """The controls: ranges that end exactly at the edge, an empty range anywhere, negative steps."""
    a = np.arange(6).reshape(2, 3)
    cases = [
        ((Range(1, 1, 1), Range(0, 1, 3)), a[1:2, 0:3]),
        ((Range(1, -1, 2), Range(2, -2, 2)), a[1::-1, 2::-2]),
        ((Range(0, 1, 0), Range.full(3)), a[0:0]),
        ((1, np.array([2, 0, 2])), a[1, [2, 0, 2]]),
    ]
    for specs, expected in cases:
        u = lt.SlicedTensor(t, specs)
        assert u.shape == expected.shape
        np.testing.assert_array_equal(u.numpy(), expected)


# -- ReshapedTensor -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, message",
    [
        ((4, 2), r"cannot reshape tensor of shape \(2, 3\) into \(4, 2\): 6 elements"),
        ((7,), r"cannot reshape tensor of shape \(2, 3\) into \(7,\): 6 elements"),
        ((-1, 6), r"into \(-1, 6\)"),  # -1 is resolved by t.reshape, not by the class
        ((-2, -3), r"into \(-2, -3\)"),
        ((), r"into \(\): 6 elements"),
    ],
)
def test_reshaped_tensor_needs_the_same_number_of_elements(
    t: lt.AbstractTensor, shape: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        lt.ReshapedTensor(t, shape)


# -- ExpandedTensor -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, message",
    [
        (
            (3, 3),
            r"cannot expand tensor of shape \(2, 3\) to \(3, 3\): "
            r"axis 0 has size 2, which is neither 1 nor 3",
        ),
        ((2, 4), r"axis 1 has size 3, which is neither 1 nor 4"),
        ((5, 2, 2), r"axis 1 has size 3, which is neither 1 nor 2"),
        ((2, 1), r"to \(2, 1\): axis 1 has size 3, cannot shrink to 1$"),
        ((3,), r"cannot expand tensor of shape \(2, 3\) to \(3,\)"),
        ((-1, 2, 3), r"cannot expand tensor of shape \(2, 3\) to \(-1, 2, 3\)"),
    ],
)
def test_expanded_tensor_needs_a_broadcastable_shape(t: lt.AbstractTensor, shape: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        lt.ExpandedTensor(t, shape)


def test_a_valid_expanded_tensor_reads_like_numpy() -> None:
    u = lt.ExpandedTensor(lt.arange(3).reshape(3, 1), (2, 3, 4))
    np.testing.assert_array_equal(u.numpy(), np.broadcast_to(np.arange(3).reshape(3, 1), (2, 3, 4)))


# -- IndexedTensor ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "indices, message",
    [
        ((np.array([0, 2]), None), r"index 2 is out of bounds for axis 0 with size 2"),
        ((None, np.array([[0], [3]])), r"index 3 is out of bounds for axis 1 with size 3"),
        ((np.array([-1, 0]), None), r"index -1 is out of bounds for axis 0 with size 2"),
        (
            (np.array([0, 1]), np.array([0, 1, 2])),
            r"shape mismatch: indexing arrays could not be broadcast together with shapes \(2,\) \(3,\)",
        ),
        ((np.array([0]),), r"1 index entries for a tensor of shape \(2, 3\)"),
        ((None, None, np.array([0])), r"3 index entries for a tensor of shape \(2, 3\)"),
        ((None, None), r"an IndexedTensor needs at least one index array"),
    ],
)
def test_indexed_tensor_refuses_indices_outside_or_unbroadcastable(
    t: lt.AbstractTensor, indices: Any, message: str
) -> None:
    with pytest.raises(IndexError, match=f"^{message}$"):  # the whole message, nothing around it
        lt.IndexedTensor(t, indices)


def test_a_valid_indexed_tensor_reads_like_numpy() -> None:
    a = np.arange(24).reshape(2, 3, 4)
    u = lt.IndexedTensor(lt.tensor(a), (np.array([1, 0]), None, np.array([[3], [0]])))
    np.testing.assert_array_equal(u.numpy(), a[[1, 0], :, [[3], [0]]])


# -- the wrapped tensor and StorageTensor ---------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda a: lt.TransposedTensor(a, (1, 0)),
        lambda a: lt.ReshapedTensor(a, (6,)),
        lambda a: lt.SlicedTensor(a, (0, Range.full(3))),
        lambda a: lt.ExpandedTensor(a, (2, 2, 3)),
        lambda a: lt.IndexedTensor(a, (np.array([0]), None)),
    ],
    ids=["transposed", "reshaped", "sliced", "expanded", "indexed"],
)
def test_wrappers_wrap_tensors_not_arrays(make: Any) -> None:
    """A numpy array where a tensor belongs is a TypeError naming what was given."""
    with pytest.raises(TypeError, match="ndarray"):
        make(np.arange(6).reshape(2, 3))


def test_storage_tensor_needs_a_flat_contiguous_buffer_that_holds_the_shape() -> None:
    """Wrong size, a negative size, a strided buffer, a non-array, and a buffer that is not 1-D."""
    with pytest.raises(ValueError, match=r"storage of 5 elements cannot hold shape \(2, 3\) of 6 elements"):
        lt.StorageTensor(np.zeros(5), (2, 3))
    with pytest.raises(ValueError, match=r"negative size in shape \(-2, -3\)"):
        lt.StorageTensor(np.zeros(6), (-2, -3))
    with pytest.raises(ValueError, match=r"storage must be contiguous, got strides \(16,\)"):
        lt.StorageTensor(np.zeros(10)[::2], (5,))
    with pytest.raises(TypeError, match="storage must be a 1-D numpy array, got list"):
        lt.StorageTensor([0.0, 1.0], (2,))  # type: ignore[arg-type]
    u = lt.StorageTensor(np.arange(6.0), (3, 2))
    np.testing.assert_array_equal(u.numpy(), np.arange(6.0).reshape(3, 2))


def test_storage_tensor_of_a_buffer_that_is_not_1d_names_its_shape() -> None:
    """A 2-D array is the right kind with the wrong shape: numpy's ValueError, naming the shape.

    (The message "got ndarray" for an ndarray names nothing the caller can fix.)
    """
    with pytest.raises(ValueError, match=r"storage must be a 1-D numpy array, got one of shape \(2, 3\)"):
        lt.StorageTensor(np.zeros((2, 3)), (2, 3))
    with pytest.raises(ValueError, match=r"got one of shape \(\)"):
        lt.StorageTensor(np.array(1.0), ())


def test_a_range_starting_one_past_the_end_does_not_fit() -> None:
    with pytest.raises(IndexError, match=r"^range 3:1:-1 does not fit axis 0 with size 3$"):
        lt.SlicedTensor(lt.arange(3), (Range(3, -1, 2),))

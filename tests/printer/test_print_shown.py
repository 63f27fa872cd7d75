"""Which values a print shows and how it names them: the edge items of each axis against numpy's
slicing, the `dims` spec checked in full, the labels of 2-D slices, and the values read (the corners
of a zarr array too big for int64 positions, read as basic slices).

Reaches into `lazytensor.printer.shown` and `lazytensor.printer.options`: which values a print shows
is checked on the selection itself, against numpy's slicing.
"""

from __future__ import annotations

import numpy as np
import pytest
import zarr
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.shown import (
    ShownAxis,
    fixed_slice,
    read_shown,
    resolve_dims,
    select_shown,
    with_edge_rows,
)


def _edge_indices(size: int, edge: int) -> list[int]:
    """numpy's summary of one axis: `edge` items at each end when it is longer than twice that."""
    edge = max(edge, 1)
    if size > 2 * edge:
        return np.r_[0:edge, size - edge : size].tolist()
    return list(range(size))


@given(st.lists(st.integers(0, 9), min_size=1, max_size=3), st.integers(0, 4), st.integers(0, 60))
def test_the_shown_items_of_each_axis_are_its_edges(shape: list[int], edgeitems: int, threshold: int) -> None:
    t = lt.zeros(*shape)
    selection = select_shown(t, None, PrintOptions(edgeitems=edgeitems, threshold=threshold))
    summarise = int(np.prod(shape)) > threshold
    assert [axis.axis for axis in selection.axes] == list(range(len(shape)))
    for axis, size in zip(selection.axes, shape, strict=True):
        expected = _edge_indices(size, edgeitems) if summarise else list(range(size))
        assert axis.indices == expected
        assert axis.omitted == size - len(expected)
        assert axis.size == size
    assert selection.summarised == (summarise and any(size > 2 * max(edgeitems, 1) for size in shape))
    values = np.arange(float(np.prod(shape))).reshape(shape)
    shown = read_shown(select_shown(lt.from_numpy(values), None, selection_options(edgeitems, threshold)))
    np.testing.assert_array_equal(shown, values[np.ix_(*(axis.indices for axis in selection.axes))])


def selection_options(edgeitems: int, threshold: int) -> PrintOptions:
    return PrintOptions(edgeitems=edgeitems, threshold=threshold)


def test_shown_axis_indices_and_omitted() -> None:
    axis = ShownAxis(axis=1, size=10, head=2, tail=3)
    assert axis.indices == [0, 1, 7, 8, 9]
    assert axis.omitted == 5


def test_edgeitems_0_still_shows_one_item_at_each_end() -> None:
    selection = select_shown(lt.zeros(9), None, PrintOptions(threshold=4, edgeitems=0))
    assert selection.axes[0].indices == [0, 8]
    assert select_shown(lt.zeros(2), None, PrintOptions(threshold=1, edgeitems=0)).axes[0].indices == [0, 1]
    assert select_shown(lt.zeros(3), None, PrintOptions(threshold=1, edgeitems=0)).axes[0].indices == [0, 2]


# -- dims -------------------------------------------------------------------------------------------


def test_dims_are_resolved_as_numpy_indexes() -> None:
    t = lt.zeros(4, 2, 3)
    assert resolve_dims(t, None) == (None, None, None)
    assert resolve_dims(t, ()) == (None, None, None)
    assert resolve_dims(t, (-1,)) == (3, None, None)
    assert resolve_dims(t, (np.int64(2), None, np.uint8(1))) == (2, None, 1)
    assert resolve_dims(t, [None, -2, -3]) == (None, 0, 0)
    assert resolve_dims(lt.tensor(5.0), ()) == ()


def test_bad_dims_are_refused_in_full() -> None:
    t = lt.zeros(2, 3)
    with pytest.raises(IndexError) as too_many:
        resolve_dims(t, (0, 0, 0))
    assert str(too_many.value) == "dims (0, 0, 0) has 3 entries for a tensor of shape (2, 3)"
    with pytest.raises(TypeError) as boolean:
        resolve_dims(t, (None, True))
    assert str(boolean.value) == "dims entries must be None or an int, got True for axis 1"
    with pytest.raises(TypeError) as floating:
        resolve_dims(t, (1.0,))  # type: ignore[arg-type]
    assert str(floating.value) == "dims entries must be None or an int, got 1.0 for axis 0"
    with pytest.raises(IndexError) as beyond:
        resolve_dims(t, (None, 3))
    with pytest.raises(IndexError) as numpy_beyond:
        np.zeros((2, 3))[:, 3]
    assert str(beyond.value) == str(numpy_beyond.value)


def test_a_fixed_slice_is_numpys_slice_and_nothing_fixed_is_the_tensor_itself() -> None:
    values = np.arange(24).reshape(4, 2, 3)
    t = lt.from_numpy(values)
    assert fixed_slice(t, (None, None, None)) is t
    np.testing.assert_array_equal(fixed_slice(t, (3, None, 1)).numpy(), values[3, :, 1])
    np.testing.assert_array_equal(fixed_slice(t, (None, 0, None)).numpy(), values[:, 0])
    selection = select_shown(t, (None, 1), PrintOptions())
    assert selection.fixed == (None, 1, None)
    assert selection.is_slice and not select_shown(t, None, PrintOptions()).is_slice
    assert [axis.axis for axis in selection.axes] == [0, 2]
    np.testing.assert_array_equal(read_shown(selection), values[:, 1])


# -- labels -----------------------------------------------------------------------------------------


def test_labels_without_names_give_the_original_indices() -> None:
    t = lt.zeros(10, 2, 3, 4)
    selection = select_shown(t, (None, 1), PrintOptions(threshold=10, edgeitems=2))
    assert selection.label(()) == "[:, 1, :, :]" == selection.slice_text()
    assert selection.label((2,)) == "[8, 1, :, :]"
    assert selection.label((3, 1)) == "[9, 1, 1, :]"
    assert selection.label_entries((0,)) == ["0", "1", ":", ":"]
    assert selection.sub_names is None


def test_labels_with_names_name_the_rows_and_columns() -> None:
    t = lt.zeros(10, 2, 3, 4, names=("trial", None, "time", "freq"))
    selection = select_shown(t, (None, 1), PrintOptions(threshold=10, edgeitems=2))
    assert selection.sub_names == ("trial", "time", "freq")
    assert selection.label((2,)) == "[trial=8, 1, time↓, freq→]"
    assert selection.slice_text() == "[trial=:, 1, time=:, freq=:]"
    assert selection.slice_entries(("trial", None, "time", "freq")) == ["trial=:", "1", "time=:", "freq=:"]
    vector = select_shown(lt.zeros(5, names=("time",)), None, PrintOptions())
    assert vector.label(()) == "[time=:]"  # one axis: no rows and columns to name
    fixed = select_shown(lt.zeros(3, 4, names=("a", "b")), (1, None), PrintOptions())
    assert fixed.label(()) == "[a=1, b=:]"
    assert fixed.sub_names == ("b",)


# -- reading ----------------------------------------------------------------------------------------


def test_a_zarr_array_beyond_int64_positions_shows_its_corners() -> None:
    n = 2**40
    array = zarr.create_array(store={}, shape=(n, n, 3), chunks=(4, 4, 3), dtype="f8", fill_value=0.5)
    array[0, 0] = [1.0, 2.0, 3.0]
    array[1, n - 2] = [4.0, 5.0, 6.0]
    array[n - 1, n - 1] = [7.0, 8.0, 9.0]
    t = lt.from_array(array)
    selection = select_shown(t, None, PrintOptions(edgeitems=2))
    shown = read_shown(selection)
    expected = np.full((4, 4, 3), 0.5)  # rows and columns 0, 1, n - 2, n - 1
    expected[0, 0], expected[1, 2], expected[3, 3] = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]
    np.testing.assert_array_equal(shown, expected)
    rows = select_shown(t, (None, 0), PrintOptions(edgeitems=1))
    np.testing.assert_array_equal(read_shown(rows), expected[[0, 3], 0][:, [0, 2]])


def test_edge_rows_cut_the_rows_of_a_shown_grid() -> None:
    values = np.arange(2 * 10 * 3).reshape(2, 10, 3)
    t = lt.from_numpy(values)
    selection = select_shown(t, None, PrintOptions())
    result = with_edge_rows(selection, read_shown(selection), PrintOptions(edgeitems=2))
    assert result is not None
    cut, shown = result
    assert [axis.indices for axis in cut.axes] == [[0, 1], [0, 1, 8, 9], [0, 1, 2]]
    np.testing.assert_array_equal(shown, values[:, [0, 1, 8, 9]])
    zero = with_edge_rows(
        selection, read_shown(selection), PrintOptions(edgeitems=0)
    )  # at least one row at each end
    assert zero is not None and zero[0].axes[1].indices == [0, 9]
    np.testing.assert_array_equal(zero[1], values[:, [0, 9]])


def test_edge_rows_leave_alone_what_is_already_cut_or_short() -> None:
    def cut(t: lt.AbstractTensor, edgeitems: int, options: PrintOptions) -> object:
        selection = select_shown(t, None, options)
        return with_edge_rows(selection, read_shown(selection), PrintOptions(edgeitems=edgeitems))

    assert cut(lt.zeros(10), 2, PrintOptions()) is None  # no rows: a vector
    assert cut(lt.zeros(4, 3), 2, PrintOptions()) is None  # 4 rows: not more than twice 2
    assert cut(lt.zeros(5, 3), 2, PrintOptions()) is not None
    assert cut(lt.zeros(2, 3), 0, PrintOptions()) is None  # 2 rows: not more than twice 1
    assert cut(lt.zeros(20, 3), 2, PrintOptions(threshold=10, edgeitems=3)) is None  # already summarised

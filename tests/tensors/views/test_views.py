"""The view methods: shapes, errors, write-through, read-only expand, split/chunk/unbind."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import zarr

import lazytensor as lt


def test_seed_transposes_share_storage() -> None:
    tw = lt.tensor([1, 2, 3, 4, 5, 6]).reshape(2, 3)
    tt = tw.swapaxes(-1, -2)
    assert tt.tolist() == [[1, 4], [2, 5], [3, 6]]
    assert tt.swapaxes(-1, -2).tolist() == tw.tolist()
    assert tt.shares_storage(tw)


def test_seed_reshapes_of_six() -> None:
    t = lt.arange(6)
    assert t.reshape(2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t.reshape([3, 2]).tolist() == [[0, 1], [2, 3], [4, 5]]
    assert t.reshape(6, 1).tolist() == [[0], [1], [2], [3], [4], [5]]
    assert t.reshape(-1, 3, 1).shape == (2, 3, 1)


def test_seed_go_view_and_dimslice_share_storage() -> None:
    a = lt.tensor([1.0, 2, 3, 4, 5, 6, 7, 8]).reshape(2, 2, 2)
    b = a.view(4, 2)
    a.set((1, 0, 1), 12.0)
    assert b.get((2, 1)) == 12.0
    c = a[:, :, 1]
    assert c.tolist() == [[2.0, 4.0], [12.0, 8.0]]
    assert c.get((1, 0)) == 12.0


def test_seed_squeeze_unsqueeze() -> None:
    t = lt.zeros(4, 3, 1)
    assert t.squeeze(-1).shape == (4, 3)
    assert t.squeeze(-1).unsqueeze(0).shape == (1, 4, 3)
    assert t.squeeze(-1).unsqueeze(-1).shape == (4, 3, 1)


def test_reshape_never_copies_even_without_layout() -> None:
    t = lt.arange(12).reshape(3, 4)
    flat = t.T.reshape(-1)
    assert flat.layout is None
    flat[1] = 100  # position 1 of t.T flattened is t[1, 0]
    assert t[1, 0] == 100
    assert flat.reshape(4, 3)[0].tolist() == [0, 100, 8]


def test_transpose_family() -> None:
    t = lt.arange(24).reshape(2, 3, 4)
    ref = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(t.T.numpy(), ref.T)
    np.testing.assert_array_equal(t.mT.numpy(), np.swapaxes(ref, -1, -2))
    np.testing.assert_array_equal(t.permute(2, 0, 1).numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(t.permute((-1, 0, 1)).numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(t.transpose(0, 2).numpy(), ref.swapaxes(0, 2))
    with pytest.raises(ValueError, match="mT needs at least 2 axes"):
        _ = lt.arange(3).mT
    with pytest.raises(ValueError, match=r"axes \(0, 1\) don't match tensor of shape \(2, 3, 4\)"):
        t.permute(0, 1)
    with pytest.raises(ValueError, match="repeated axis"):
        t.permute(0, 0, 1)
    with pytest.raises(ValueError, match="not a permutation"):
        lt.TransposedTensor(t, (0, 1, 3))


def test_shape_errors_name_shapes_axes_and_values() -> None:
    t = lt.zeros(7, 2)
    with pytest.raises(
        ValueError, match=r"cannot reshape tensor of shape \(7, 2\) into \(-1, 3\): 14 elements"
    ):
        t.reshape(-1, 3)
    with pytest.raises(ValueError, match=r"cannot squeeze axis 0 of size 7 in a tensor of shape \(7, 2\)"):
        t.squeeze(0)
    with pytest.raises(
        ValueError, match=r"cannot expand tensor of shape \(7, 2\) to \(7, 3\): axis 1 has size 2"
    ):
        t.expand(7, 3)
    with pytest.raises(ValueError, match="-1 in new leading axis 0"):
        t.expand(-1, 7, 2)
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds for a tensor of 3 axes"):
        t.unsqueeze(3)


def test_squeeze_all_and_flatten() -> None:
    t = lt.zeros(1, 3, 1, 2)
    assert t.squeeze().shape == (3, 2)
    assert t.squeeze((0, 2)).shape == (3, 2)
    assert t.flatten().shape == (6,)
    assert t.flatten(1, 2).shape == (1, 3, 2)
    assert lt.tensor(5.0).flatten().shape == (1,)


def test_expand_is_read_only_and_writes_change_nothing() -> None:
    t = lt.tensor([1, 2, 3])
    e = t.expand(2, -1)
    assert e.layout is not None and e.layout.strides == (0, 1)
    assert not e.numpy().flags.writeable
    with pytest.raises(ValueError, match=r"cannot write through an expanded view: shape \(2, 3\)"):
        e[0, 0] = 9
    with pytest.raises(ValueError, match="expanded"):
        e.T.set((0, 0), 9)
    assert t.tolist() == [1, 2, 3]
    assert lt.tensor(4).expand().shape == ()
    np.testing.assert_array_equal(
        lt.tensor([[1], [2]]).broadcast_to((3, 2, 4)).numpy(), np.broadcast_to([[1], [2]], (3, 2, 4))
    )


def test_a_failed_write_changes_nothing() -> None:
    t = lt.arange(6).reshape(2, 3)
    before = t.tolist()
    with pytest.raises(
        ValueError, match=r"could not broadcast value of shape \(2,\) into tensor of shape \(2, 3\)"
    ):
        t[...] = [1, 2]
    with pytest.raises(ValueError):
        t[[0, 1]] = ["a", "b"]
    with pytest.raises(IndexError):
        t[[0, 5]] = 1
    with pytest.raises(IndexError):
        t.set((2, 0), 1)
    assert t.tolist() == before


def test_split_chunk_unbind_are_views() -> None:
    t = lt.arange(10).reshape(5, 2)
    parts = t.split(2)
    assert [p.shape for p in parts] == [(2, 2), (2, 2), (1, 2)]
    assert [p.shape for p in t.split([1, 4])] == [(1, 2), (4, 2)]
    assert [p.shape for p in t.chunk(2)] == [(3, 2), (2, 2)]
    cols = t.unbind(1)
    assert [c.tolist() for c in cols] == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    parts[2][0, 0] = 99
    assert t[4, 0] == 99
    with pytest.raises(ValueError, match="do not add up"):
        t.split([1, 1])


def test_layers_and_storage() -> None:
    t = lt.arange(6)
    v = t.reshape(2, 3).T[::-1]
    assert [type(layer).__name__ for layer in v.layers] == [
        "SlicedTensor", "TransposedTensor", "ReshapedTensor", "StorageTensor",
    ]  # fmt: skip
    assert v.storage is t.storage
    assert v.layers[-1] is t


def test_iteration_len_and_truth() -> None:
    t = lt.arange(6).reshape(3, 2)
    assert len(t) == 3
    assert [row.tolist() for row in t] == [[0, 1], [2, 3], [4, 5]]
    assert list(lt.arange(3)) == [0, 1, 2]
    with pytest.raises(TypeError, match="0-d"):
        len(lt.tensor(1))
    assert bool(lt.tensor([3]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)


# -- split and chunk at their edges, describe, numpy_equivalent, detach, the factories' messages -------


def test_split_and_chunk_boundaries_match_torch_semantics() -> None:
    t = lt.arange(5)
    ref = np.arange(5)
    assert [p.tolist() for p in t.split(1)] == [[i] for i in range(5)]
    pieces = t.split([2, 0, 3])
    assert [p.tolist() for p in pieces] == [[0, 1], [], [2, 3, 4]]
    # an empty piece describes itself as an empty slice does: normalised to start 0
    assert pieces[1].describe() == t[2:2].describe() == "key [0:0]"
    empty = lt.zeros(0, 3)
    assert [p.shape for p in empty.split(2)] == [(0, 3)]  # one empty piece, as torch.split
    assert [p.tolist() for p in t.chunk(1)] == [ref.tolist()]
    assert [p.tolist() for p in t.chunk(5)] == [[i] for i in range(5)]
    assert [p.tolist() for p in lt.arange(3).chunk(3)] == [[0], [1], [2]]


def test_split_and_chunk_refuse_bad_sizes_with_numpy_like_messages() -> None:
    t = lt.arange(5)
    with pytest.raises(ValueError, match=r"^split size must be positive, got 0$"):
        t.split(0)
    with pytest.raises(TypeError, match=r"^split takes an int size or a sequence of int sizes, got \[1\.5"):
        t.split([1.5, 3.5])
    with pytest.raises(ValueError, match="do not add up"):
        t.split([2, -1, 4])
    with pytest.raises(TypeError, match=r"^chunk takes an int number of chunks, got 2\.0 \(float\)$"):
        t.chunk(2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^chunk needs a positive number of chunks, got 0$"):
        t.chunk(0)


def test_describe_names_each_wrappers_parameters() -> None:
    t = lt.arange(24).reshape(2, 3, 4)
    a = lt.arange(20)
    assert a[2:0:-1].describe() == "key [2:0:-1]"  # the stop 0 is printed: `2::-1` would include 0
    assert a[3:3].describe() == "key [0:0]"
    assert lt.SlicedTensor(lt.arange(12).reshape(3, 4), (1, np.array([1, 0]))).describe() == "key [1, [1, 0]]"
    # index lists of up to 8 entries print whole, longer ones with 3 entries each side
    assert a[[1, 0, 2, 3, 4, 5, 6, 7]].describe() == "indices [[1, 0, 2, 3, 4, 5, 6, 7]]"
    assert a[[1, 0, 2, 3, 4, 5, 6, 7, 8]].describe() == "indices [[1, 0, 2, ..., 6, 7, 8]]"
    sliced = lt.SlicedTensor(a, (np.array([1, 0, 2, 3, 4, 5, 6, 7, 8]),))
    with np.printoptions(edgeitems=1, threshold=1000):  # numpy's print options change nothing here
        assert sliced.describe() == "key [[1, 0, 2, ..., 6, 7, 8]]"
    assert t[:, [0, 2]].describe() == "indices [:, [0, 2], :]"
    assert t[[0, 1], :, [1, 2]].describe() == "indices [[0, 1], :, [1, 2]]"
    assert t[..., [0, 1], [1, 2]].describe() == "indices [:, [0, 1], [1, 2]]"
    assert t[:, [0, 1], ..., [1, 2]].describe() == "indices [:, [0, 1], [1, 2]], block first"


def test_numpy_equivalent_of_each_wrapper_is_numpys_operation() -> None:
    """`numpy_equivalent` is the wrapper protocol's statement of what one layer computes."""
    ref = np.arange(6).reshape(2, 3)
    t = lt.tensor(ref)
    np.testing.assert_array_equal(lt.TransposedTensor(t, (1, 0)).numpy_equivalent(ref), ref.T)
    cube = np.arange(24).reshape(2, 3, 4)
    transposed = lt.TransposedTensor(lt.tensor(cube), (2, 0, 1))
    np.testing.assert_array_equal(transposed.numpy_equivalent(cube), cube.transpose(2, 0, 1))
    expanded = lt.ExpandedTensor(lt.tensor([1, 2, 3]), (2, 3))
    np.testing.assert_array_equal(
        expanded.numpy_equivalent(np.array([1, 2, 3])), np.broadcast_to([1, 2, 3], (2, 3))
    )
    assert lt.ExpandedTensor(lt.tensor([1, 2, 3]), (2, 3)).numpy_equivalent(np.array([1, 2, 3])).shape == (
        2,
        3,
    )


def test_detach_keeps_the_whole_view_stack() -> None:
    w = lt.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    view = w.T[1:]
    detached = view.detach()
    assert not detached.requires_grad and detached.shares_storage(w)
    assert detached.shape == (2, 2)
    np.testing.assert_array_equal(detached.numpy(), np.arange(6.0).reshape(2, 3).T[1:])
    assert [type(layer).__name__ for layer in detached.layers[:-1]] == ["SlicedTensor", "TransposedTensor"]


def test_view_factories_name_bad_arguments() -> None:
    t = lt.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match=r"^cannot expand tensor of shape \(2, 3\) to \(3,\): fewer axes$"):
        t.expand(3)
    with pytest.raises(ValueError, match=r"^flatten: start_dim 1 comes after end_dim 0$"):
        t.flatten(1, 0)


def test_argument_mistakes_say_what_was_expected() -> None:
    t = lt.arange(6)
    with pytest.raises(TypeError, match=r"an axis must be an int, got 1.5 \(float\)"):
        t.squeeze(1.5)
    with pytest.raises(TypeError, match=r"split takes an int size or a sequence of int sizes, got 2\.5"):
        t.split(2.5)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"a position of a tensor of shape \(6,\) is a sequence of ints, got 0.5"
    ):
        t.explain(0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"chunk takes an int number of chunks, got 2.5 \(float\)"):
        t.chunk(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"negative dimensions are not allowed: shape \(-1,\)"):
        lt.zeros(-1)
    with pytest.raises(ValueError, match=r"the step must not be zero \(start 0, stop 10\)"):
        lt.arange(0, 10, 0)
    with pytest.raises(ValueError, match=r"value of shape \(1, 2\) into tensor of shape \(3,\)"):
        lt.zeros(3)[:] = [[1, 2]]


def test_transposed_view_shares_storage_and_writes_through() -> None:
    t = lt.arange(6).reshape(2, 3)
    view = t.T
    view[2, 1] = 50
    assert view.shares_storage(t)
    np.testing.assert_array_equal(t.numpy(), [[0, 1, 2], [3, 4, 50]])


def test_views_with_no_element_in_common_still_share_storage() -> None:
    t = lt.arange(6)
    assert t[:2].shares_storage(t[3:]) and t[:2].shares_storage(t[6:])  # an empty view too
    assert t[4:].shares_storage(t[[0, 1]]) and t[[0, 1]].shares_storage(t[4:])  # a fancy one too
    assert not np.shares_memory(t.numpy()[:2], t.numpy()[3:])  # numpy's question is about elements
    assert not t[:2].shares_storage(lt.arange(6)) and not t.shares_storage(t.copy())


@pytest.mark.parametrize(
    "index",
    [
        [[2, 1], [1, 0]],  # a progression: strides (-1, -1), position 1 reached twice
        [[-1, 1], [1, 0]],
        [[0, 1], [1, 2]],  # strides (1, 1)
        [1, 1, 1],  # stride 0
        [-1, 1, 1, 0],  # no progression: a gather
    ],
)
@pytest.mark.parametrize("base", ["memory", "zarr"])
def test_a_repeated_index_gets_its_last_value_in_row_major_order(index: list[Any], base: str) -> None:
    """numpy writes an index array's positions in row-major order, so the last one wins; a gather
    that is a progression has a layout whose positions overlap, and numpy's copy into such a view
    chooses its own order (found by a random seed of the write-sequence test: `[[-1, 1], [1, 0]]`)."""
    values = np.arange(np.size(index) * 2.0).reshape((*np.shape(index), 2))
    expected = np.zeros((3, 2))
    expected[np.array(index)] = values
    t = lt.zeros((3, 2)) if base == "memory" else lt.from_array(zarr.zeros((3, 2), chunks=(2, 2)))
    t[np.array(index)] = values
    np.testing.assert_array_equal(t.numpy(), expected)
    t[np.array(index)] += 100  # numpy's in-place rule: each position read before any is written
    expected[np.array(index)] += 100
    np.testing.assert_array_equal(t.numpy(), expected)

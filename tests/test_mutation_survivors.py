"""Tests written for mutants that survived the mutation run (docs/testing.md, "The mutation score").

Each test pins down a behaviour no other test in the mutation run's selection checked; numpy (or
the behaviour the docstrings promise) is the reference.
"""

from __future__ import annotations

import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.views import Range  # the SlicedTensor spec type (see lt.SlicedTensor's docstring)

# -- views: split, chunk, oindex writes, describe, numpy_equivalent ---------------------------


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


def test_a_range_starting_one_past_the_end_does_not_fit() -> None:
    with pytest.raises(IndexError, match=r"^range 3:1:-1 does not fit axis 0 with size 3$"):
        lt.SlicedTensor(lt.arange(3), (Range(3, -1, 2),))


def test_view_factories_name_bad_arguments() -> None:
    t = lt.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match=r"^cannot expand tensor of shape \(2, 3\) to \(3,\): fewer axes$"):
        t.expand(3)
    with pytest.raises(ValueError, match=r"^flatten: start_dim 1 comes after end_dim 0$"):
        t.flatten(1, 0)


def test_single_element_reads_through_a_size_1_axis_over_an_unfused_layer() -> None:
    ref = np.arange(12).reshape(3, 1, 4)[[2, 0, 1]].squeeze(1)
    stack = lt.arange(12).reshape(3, 1, 4)[[2, 0, 1]].squeeze(1)  # [2, 0, 1] is no progression: no layout
    assert stack.wrapped.layout is None
    for i, j in np.ndindex(*ref.shape):
        assert stack[i, j] == ref[i, j]


# -- reductions ------------------------------------------------------------------------------

_EXPANSIONS = [  # (values, expanded shape, reduction axes): stride-0 axes of sizes 2 and 3
    (np.array([1.5, -2.0, 4.0]), (2, 3), None),
    (np.array([1.5, -2.0, 4.0]), (3, 3), 0),
    (np.array([[1, 2, 3]]), (2, 3, 3), (0, 1)),
    (np.array([[1, 2, 3]]), (2, 3, 3), 1),
    (np.array([[1, 2, 3]]), (2, 3, 3), (0, 2)),
    (np.array([[2], [3]]), (2, 2, 3), (0, 2)),
]


@pytest.mark.parametrize(("values", "shape", "dim"), _EXPANSIONS)
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any"])
def test_reductions_over_expanded_axes_match_numpy(
    values: np.ndarray, shape: tuple[int, ...], dim: int | tuple[int, ...] | None, name: str
) -> None:
    t = lt.tensor(values).expand(*shape)
    ref = np.broadcast_to(values, shape).copy()
    got = getattr(t, name)(dim).numpy()
    want = np.asarray(getattr(np, name)(ref, axis=dim))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)
    kept = getattr(t, name)(dim, keepdim=True).numpy()
    np.testing.assert_allclose(kept, np.asarray(getattr(np, name)(ref, axis=dim, keepdims=True)))


def test_a_sum_over_10_to_the_12_repeats_costs_what_the_base_costs() -> None:
    """The reduction docstring's promise: an expanded axis is summed as one copy times its size
    (the whole expansion would be 3·10^12 additions)."""
    t = lt.tensor([1.0, 2.0, 3.0]).expand(10**12, 3)
    assert t.sum().item() == 6.0 * 10**12
    assert t.sum(0).tolist() == [1.0e12, 2.0e12, 3.0e12]
    assert t.mean().item() == 2.0
    signs = lt.tensor([1.0, -1.0, 0.5]).expand(10**12 + 1, 3)
    assert signs.prod(0).tolist() == [1.0, -1.0, 0.0]  # (-1) ** odd, 0.5 ** (10^12 + 1) underflows


def test_object_reductions_stay_object() -> None:
    t = lt.tensor([1, 2, 3], dtype=object)
    for name in ("sum", "prod", "max", "min"):
        result = getattr(t, name)()
        assert result.dtype == object, name
        assert result.item() == getattr(np, name)(np.array([1, 2, 3], dtype=object))
    fractions = lt.tensor([Fraction(1, 2), 0], dtype=object)
    assert fractions.all().dtype == np.bool_ and not fractions.all().item()
    assert fractions.any().dtype == np.bool_ and fractions.any().item()
    assert lt.tensor([Fraction(1, 2), Fraction(1, 3)], dtype=object).var().item() == Fraction(1, 144)


def test_integer_means_accumulate_in_float64_as_numpy() -> None:
    ref = np.array([2**62, 2**62, 2**62, 2**62], dtype=np.int64)  # the int64 sum would overflow
    assert lt.tensor(ref).mean().item() == np.mean(ref)
    ref_u = np.array([2**63, 2**63], dtype=np.uint64)
    assert lt.tensor(ref_u).mean().item() == np.mean(ref_u)
    assert lt.tensor(ref).var().item() == np.var(ref)


def test_the_mean_of_nothing_is_nan_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(lt.zeros(0).mean().item())
        assert np.isnan(lt.zeros(2, 0).mean(1).numpy()).all()
        assert np.isnan(lt.zeros(0, dtype=np.int64).mean().item())


def _naive_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return np.asarray(e / e.sum(axis=axis, keepdims=True))


def test_softmax_shifts_each_row_by_its_own_maximum() -> None:
    ref = np.array([[1000.0, 999.0], [-1000.0, -1001.0]])
    np.testing.assert_allclose(lt.tensor(ref).softmax(1).numpy(), _naive_softmax(ref, 1))
    np.testing.assert_allclose(
        lt.tensor(ref).log_softmax(1).numpy(), np.log(_naive_softmax(ref, 1)), rtol=1e-12
    )
    # an axis of one element: softmax 1, log_softmax 0, even for huge values
    assert lt.tensor([[1000.0]]).softmax(1).tolist() == [[1.0]]
    assert lt.tensor([[1000.0]]).log_softmax(1).tolist() == [[0.0]]


def test_softmax_dtypes_follow_the_input() -> None:
    assert lt.tensor([1.0, 2.0], dtype=np.float32).softmax(0).dtype == np.float32
    assert lt.tensor([1, 2]).softmax(0).dtype == np.float64
    # small integers are widened before the shift: int8 -100 - 100 must not wrap around
    ref = np.array([-100, 100], dtype=np.int8)
    np.testing.assert_allclose(lt.tensor(ref).softmax(0).numpy(), _naive_softmax(ref.astype(float), 0))
    np.testing.assert_allclose(lt.tensor(ref).log_softmax(0).numpy(), [-200.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(
        lt.tensor([True, False]).softmax(0).numpy(), _naive_softmax(np.array([1.0, 0.0]), 0)
    )


def test_argsort_takes_the_axis_and_the_kind() -> None:
    ref = np.array([[3, 1, 2], [0, 5, 4]])
    np.testing.assert_array_equal(lt.tensor(ref).argsort().numpy(), np.argsort(ref))
    np.testing.assert_array_equal(lt.tensor(ref).argsort(0).numpy(), np.argsort(ref, axis=0))
    ties = np.repeat(np.arange(10) % 3, 100)  # long enough that numpy's default sort (here) is not stable
    np.testing.assert_array_equal(
        lt.tensor(ties).argsort(kind="stable").numpy(), np.argsort(ties, kind="stable")
    )


# -- evaluate: writes -----------------------------------------------------------------------


@pytest.mark.parametrize("value", [300, -1])
def test_a_python_int_out_of_the_dtypes_range_is_refused_as_numpy_refuses_it(value: int) -> None:
    ref = np.zeros(3, dtype=np.uint8)
    with pytest.raises(OverflowError):
        ref[...] = value
    for t in (lt.zeros(3, dtype=np.uint8), lt.zeros(3, dtype=np.uint8)[[0, 2, 1]]):  # strided, gathered
        with pytest.raises(OverflowError, match="out of bounds for uint8"):
            t[...] = value
        assert t.tolist() == [0, 0, 0]


def test_in_place_results_cast_by_the_same_kind_rule() -> None:
    t = lt.zeros(3, dtype=np.float32)
    t += np.ones(3)  # float64 into float32: same kind, allowed as in numpy
    assert t.dtype == np.float32 and t.tolist() == [1.0, 1.0, 1.0]
    i = lt.zeros(3, dtype=np.int32)
    i += np.ones(3, dtype=np.int64)
    assert i.tolist() == [1, 1, 1]
    message = (
        "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind'"
    )
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        lt.zeros(3, dtype=np.int64).__iadd__(np.ones(3))


# -- autograd -------------------------------------------------------------------------------


def test_a_second_backward_names_retain_graph() -> None:
    w = lt.ones(2, requires_grad=True)
    y = (w * 2).sum()
    y.backward()
    expected = "after the first backward; pass retain_graph=True to the first backward() to keep them"
    with pytest.raises(RuntimeError, match=r"were freed " + re.escape(expected) + "$"):
        y.backward()


def test_a_tensor_used_directly_and_through_another_gets_one_backward_step() -> None:
    """`x` is used by `c` directly and through `a`: the backward pass must reach `x` once, after
    both, or `x`'s own backward rule would run twice (its saved values are freed after one run)."""
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    x = w * 3
    a = x * 2
    c = x + a  # c = 9 w
    c.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [9.0, 9.0])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_gradients_flow_through_views(dtype: type) -> None:
    w = lt.tensor(np.array([1 + 1j, 2, 3], dtype=dtype), requires_grad=True)
    (w[[0, 2, 2]] * (2 + 1j)).sum().backward()
    assert w.grad.dtype == dtype
    np.testing.assert_allclose(w.grad.numpy(), [2 + 1j, 0, 4 + 2j])
    # positions that receive nothing at the end, an imaginary part other than 1
    v = lt.tensor(np.zeros(4, dtype=dtype), requires_grad=True)
    (v[[0, 0, 1]] * (2 + 3j)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [4 + 6j, 2 + 3j, 0, 0])


def test_a_condition_that_requires_grad_gets_none_and_stops_nothing() -> None:
    """`where`'s rule gives no gradient to its condition: the backward pass must pass over a tensor
    that received nothing and go on to the others."""
    c = lt.tensor([1.0, 0.0, 2.0], requires_grad=True)
    a = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lt.where(c, a * 2, 0.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 0.0, 2.0])
    assert c.grad is None
    b = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lt.where(c * 1, 0.0, b * 3).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 3.0, 0.0])


def test_an_operand_made_to_require_grad_later_gets_nothing_from_earlier_operations() -> None:
    """As in PyTorch: `cat` recorded `x` as not needing a gradient, so `x` (made a trainable leaf
    afterwards) gets only what later operations send it, though `cat`'s rule splits for every operand."""
    w = lt.ones(2, requires_grad=True)
    x = lt.ones(2)
    joined = lt.cat([w, x])
    x.requires_grad_(True)
    (joined.sum() + (x * 3).sum()).backward()
    assert w.grad.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [3.0, 3.0]


# -- evaluate.strided_view: the bounds check and the writeable flag ---------------------------


@pytest.mark.parametrize(
    ("layout", "words"),
    [
        (lt.Layout((3,), (3,), 0), "storage indices 0..6 outside a buffer of 6"),  # one past the end
        (lt.Layout((2,), (-1,), 0), "storage indices -1..0 outside a buffer of 6"),  # before the start
    ],
)
def test_a_strided_read_outside_its_buffer_is_refused(layout: lt.Layout, words: str) -> None:
    storage = lt.arange(6)
    with pytest.raises(IndexError, match=re.escape(words)):
        storage.read_strided(layout, writeable=False)


def test_a_strided_view_of_a_read_only_buffer_stays_read_only() -> None:
    buffer = np.arange(6)
    buffer.setflags(write=False)
    storage = lt.StorageTensor(buffer, (6,))
    assert not storage.read_strided(lt.Layout((3,), (2,), 0), writeable=True).flags.writeable
    assert lt.arange(6).read_strided(lt.Layout((3,), (2,), 0), writeable=True).flags.writeable


@pytest.mark.parametrize("writeable", [True, False])
def test_a_strided_view_of_objects_keeps_strides_and_the_flag(writeable: bool) -> None:
    objects = np.array(["a", "b", "c", "d", "e", "f"], dtype=object)
    view = lt.StorageTensor(objects, (6,)).read_strided(lt.Layout((2, 2), (1, 3), 1), writeable=writeable)
    assert view.tolist() == [["b", "e"], ["c", "f"]]
    assert view.flags.writeable == writeable

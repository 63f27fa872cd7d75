"""numpy and PyTorch habits at the REPL: 0-d tensors as numbers, `in`, `copy`, the numpy attribute
and method names, the indexing corners numpy's own tests exercise, and exceptions from callables."""

from __future__ import annotations

import copy
import itertools
import math
import operator
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "object",
]


def _outcome(call, value):
    """What `call(value)` gives, or the type of exception it raises."""
    try:
        return call(value)
    except (TypeError, ValueError, OverflowError) as error:
        return TypeError if isinstance(error, TypeError) else type(error)


CONVERSIONS = {
    "float": float,
    "int": int,
    "complex": complex,
    "index": operator.index,
    "format .2f": lambda x: format(x, ".2f"),
    "format empty": lambda x: format(x, ""),
    "percent": lambda x: "%.3f" % x,  # noqa: UP031  the habit under test
    "bool": bool,
    "sqrt": lambda x: math.sqrt(abs(x)),
}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(DTYPES), st.sampled_from(sorted(CONVERSIONS)), st.integers(-3, 100))
def test_0d_tensors_convert_as_numpys_0d_arrays(dtype, name, raw) -> None:
    value = np.array(raw).astype(dtype) if dtype != "object" else np.array(raw, dtype=object)
    call = CONVERSIONS[name]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _outcome(call, value)
        got = _outcome(call, lt.tensor(value))
    assert got == expected or (isinstance(expected, float) and math.isnan(expected) and math.isnan(got))


def test_the_issue_reproductions_of_0d_tensors_as_numbers() -> None:
    t = lt.tensor([[1.0, 4.0], [2.0, 9.0]])
    assert float(t.sum()) == 16.0
    assert int(t.argmax()) == 3
    assert ["a", "b", "c", "d"][t.argmax()] == "d"
    assert math.sqrt(t.sum()) == 4.0
    assert f"{t.mean():.2f}" == "4.00"
    assert "%.2f" % t.mean() == "4.00"  # noqa: UP031  the habit under test
    assert round(t.sum() / 3, 2) == 5.33
    assert round(t.mean()) == 4
    assert complex(t.sum()) == 16 + 0j


def test_number_protocol_on_tensors_of_several_elements() -> None:
    t = lt.arange(3.0)
    with pytest.raises(TypeError, match=r"shape \(3,\)"):
        float(t)
    with pytest.raises(TypeError, match="integer scalar"):
        operator.index(lt.tensor([1]))
    with pytest.raises(TypeError, match="unsupported format string"):
        format(t, ".2f")
    assert format(t, "") == str(t) and f"{t}" == str(t)
    assert round(lt.tensor([0.123, 4.567]), 2).tolist() == [0.12, 4.57]
    assert float(lt.tensor([2.5])) == 2.5  # one element, as PyTorch


def test_format_of_object_values_uses_their_own_format() -> None:
    assert f"{lt.tensor(Decimal('1.234'), dtype=object):.2f}" == "1.23"
    assert f"{lt.tensor(Fraction(1, 3), dtype=object)}" == "1/3"


def test_contains_is_numpys() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    assert 2.0 in t and 5 in t.T and 7.0 not in t
    assert [3.0, 4.0, 5.0] in t  # numpy: (a == x).any()
    assert 1 in lt.tensor(1)


def test_copy_copies_like_numpy() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    for c in (copy.copy(t), copy.copy(t.T), copy.deepcopy(t[0])):
        assert isinstance(c, lt.StorageTensor) and not c.shares_storage(t)
    c = copy.copy(t.T)
    c[0, 0] = 100.0
    assert t.tolist()[0][0] == 0.0 and c.shape == (3, 2)
    inner = [1, 2]
    objects = lt.tensor([None, None], dtype=object)
    objects[0] = inner
    deep = copy.deepcopy(objects)
    assert deep.tolist()[0] == [1, 2] and deep.tolist()[0] is not inner


def test_size_nbytes_itemsize() -> None:
    t = lt.zeros(4, 5, dtype="float32")
    view = t[::2, 1:]
    ref = np.zeros((4, 5), dtype="float32")[::2, 1:]
    assert (view.size, view.nbytes, view.itemsize) == (ref.size, ref.nbytes, ref.itemsize) == (8, 32, 4)


def test_transpose_forms() -> None:
    t, a = lt.arange(24).reshape(2, 3, 4), np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(t.transpose().numpy(), a.transpose())
    np.testing.assert_array_equal(t.transpose(2, 0, 1).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(t.transpose((1, 2, 0)).numpy(), a.transpose((1, 2, 0)))
    np.testing.assert_array_equal(t.transpose(0, 2).numpy(), a.swapaxes(0, 2))  # two ints swap
    assert isinstance(t.transpose(), lt.TransposedTensor)
    with pytest.raises(ValueError, match="repeated axis"):
        t.transpose(0, 0, 1)


def test_creation_names() -> None:
    np.testing.assert_array_equal(lt.linspace(0, 1, 7).numpy(), np.linspace(0, 1, 7))
    np.testing.assert_array_equal(lt.eye(3, 4, k=-1).numpy(), np.eye(3, 4, k=-1))
    r = lt.randn(1000, seed=1)
    assert r.shape == (1000,) and abs(float(r.mean())) < 0.2 and 0.8 < float(r.std()) < 1.2
    assert lt.randn(3, seed=5).tolist() == lt.randn((3,), seed=5).tolist()


def test_sort_in_place_through_a_view_and_sort_copy() -> None:
    t = lt.tensor([[3, 1, 2], [9, 7, 8]])
    t.T[:, 1].sort()
    assert t.tolist() == [[3, 1, 2], [7, 8, 9]]
    assert lt.sort(t, dim=0).tolist() == [[3, 1, 2], [7, 8, 9]]
    assert t.argsort(dim=None).tolist() == np.argsort(t.numpy(), axis=None).tolist()
    e = t.expand(2, 2, 3)
    with pytest.raises(ValueError, match="expanded view"):
        e.sort()


def test_nan_reductions_and_tests() -> None:
    a = np.array([[1.0, np.nan, 3.0], [np.inf, 2.0, np.nan]])
    t = lt.tensor(a)
    for name in ("nansum", "nanmean", "nanmax", "nanmin"):
        np.testing.assert_array_equal(getattr(t, name)(1).numpy(), getattr(np, name)(a, axis=1))
        np.testing.assert_array_equal(getattr(t, name)().numpy(), getattr(np, name)(a))
    for name in ("isnan", "isinf", "isfinite"):
        np.testing.assert_array_equal(getattr(t, name)().numpy(), getattr(np, name)(a))
    np.testing.assert_array_equal(t.round().numpy(), np.round(a))


def test_nan_reductions_differentiate_past_the_nans() -> None:
    w = lt.tensor([1.0, float("nan"), 3.0], requires_grad=True)
    (w.nansum() + w.nanmean() + w.nanmax()).backward()
    assert w.grad.tolist() == [1.5, 0.0, 2.5]


def test_flip_is_a_write_through_view() -> None:
    t = lt.arange(6).reshape(2, 3)
    f = t.flip(1)
    assert isinstance(f, lt.SlicedTensor) and f.layout is not None
    f[0, 0] = 100
    assert t.tolist() == [[0, 1, 100], [3, 4, 5]]
    np.testing.assert_array_equal(t.flip((0, 1)).numpy(), np.flip(t.numpy(), (0, 1)))
    assert lt.arange(0).flip().shape == (0,)


def test_where_with_the_condition_alone_is_nonzero() -> None:
    t = lt.tensor([[0, 3], [4, 0]])
    got = lt.where(t > 0)
    assert isinstance(got, tuple) and [i.tolist() for i in got] == [[0, 1], [1, 0]]
    with pytest.raises(TypeError, match="both a and b"):
        lt.where(t > 0, t)


def test_cumsum_and_cumprod_match_numpy() -> None:
    a = np.arange(1, 13).reshape(3, 4)
    t = lt.tensor(a)
    for axis in (None, 0, 1, -1):
        np.testing.assert_array_equal(t.cumsum(axis).numpy(), np.cumsum(a, axis=axis))
        np.testing.assert_array_equal(t.T.cumprod(axis).numpy(), np.cumprod(a.T, axis=axis))


# -- the four indexing differences ----------------------------------------------------------------


def test_an_ellipsis_of_no_axes_separates_advanced_indices() -> None:
    a = np.arange(24).reshape(2, 3, 4)
    t = lt.arange(24).reshape(2, 3, 4)
    key = (slice(None), [0, 1], Ellipsis, [1, 2])
    assert a[key].tolist() == [[1, 13], [6, 18]]
    assert t[key].tolist() == a[key].tolist()
    t[key] = lt.tensor([[-1, -2], [-3, -4]])
    a[key] = np.array([[-1, -2], [-3, -4]])
    np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize(
    "key",
    [
        (slice(None), [0, 1], Ellipsis, [1, 2]),
        ([0, 1], Ellipsis, [1, 2]),
        (0, Ellipsis, [1, 2]),
        ([1], Ellipsis, 2),
        (Ellipsis, [0, 1], [1, 2]),
        ([0, 1], [1, 2], Ellipsis),
        ([[0], [1]], Ellipsis, [[1, 2]]),
        (slice(None), [0, 2], None, [1, 3]),
        ([1, 0], None, slice(None), 1),
    ],
    ids=repr,
)
def test_advanced_index_placement_matches_numpy(key) -> None:
    a = np.arange(24).reshape(2, 3, 4)
    t = lt.arange(24).reshape(2, 3, 4)
    view = t[key]
    np.testing.assert_array_equal(view.numpy(), a[key])
    np.testing.assert_array_equal(evaluate_by_gather(view), a[key])
    view[...] = -np.arange(view.size).reshape(view.shape)
    a[key] = -np.arange(a[key].size).reshape(a[key].shape)
    np.testing.assert_array_equal(t.numpy(), a)


def evaluate_by_gather(view):
    """The values read position by position through `translate`, not through a layout."""
    return np.array([view.get(pos) for pos in itertools.product(*map(range, view.shape))]).reshape(view.shape)


class Index:
    """An object numpy takes as an integer: it has `__index__` (and, to be tricky, `__len__`)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __len__(self) -> int:
        return 5


def test_objects_with_index_are_integers() -> None:
    a = np.arange(12).reshape(3, 4)
    t = lt.arange(12).reshape(3, 4)
    assert t[Index(1)].tolist() == a[Index(1)].tolist()
    assert t[Index(1), Index(-1)] == a[Index(1), Index(-1)]
    assert t[:, Index(2)].tolist() == a[:, Index(2)].tolist()
    assert t[Index(0) : Index(2)].shape == (2, 4)
    t[Index(2), Index(0)] = 100
    assert t.tolist()[2][0] == 100
    assert t.reshape(Index(4), Index(3)).shape == (4, 3)
    assert t.get((Index(1), Index(1))) == 5
    assert t[lt.tensor(1)].tolist() == a[1].tolist()  # a 0-d integer tensor is an index too


def test_an_empty_float_array_is_not_an_index() -> None:
    t, a = lt.arange(4), np.arange(4)
    with pytest.raises(IndexError, match="integer"):
        a[np.array([])]
    with pytest.raises(IndexError, match="integer"):
        t[np.array([])]
    with pytest.raises(IndexError, match="integer"):
        t[lt.tensor([])]
    assert t[[]].shape == a[[]].shape == (0,)  # an empty list stays fine
    with pytest.raises(IndexError):
        t[np.array([1.0])]


def test_an_object_element_takes_an_array_whole() -> None:
    t = lt.tensor([None, None, None], dtype=object)
    a = np.array([None, None, None], dtype=object)
    t[1] = np.array([1, 2])
    a[1] = np.array([1, 2])
    assert isinstance(t.tolist()[1], np.ndarray) and t.tolist()[1].tolist() == a[1].tolist()
    t.T[2] = [3, 4]
    assert t.tolist()[2] == [3, 4]
    with pytest.raises(ValueError, match="broadcast"):
        t[0:1] = np.array([1, 2])


# -- exceptions from a user's callable ------------------------------------------------------------


def _stop(*_args):
    raise StopIteration("inner")


@pytest.mark.parametrize(
    "call",
    [
        lambda: lt.ttransform(lt.arange(3), _stop),
        lambda: lt.tpoint(lt.arange(3), 1, _stop),
        lambda: lt.tredux(lt.arange(6).reshape(2, 3), 1, 0, _stop),
    ],
)
def test_stop_iteration_from_a_callable_surfaces(call) -> None:
    with pytest.raises(RuntimeError, match="StopIteration") as info:
        call()
    assert isinstance(info.value.__cause__, StopIteration)


def test_stop_iteration_after_some_elements_is_not_a_short_result() -> None:
    source = iter([10, 20])
    with pytest.raises(RuntimeError, match="raised StopIteration"):
        lt.ttransform(lt.arange(3), lambda x: next(source))


def test_other_exceptions_reach_the_user_unchanged() -> None:
    def fail(x):
        raise KeyError(x)

    with pytest.raises(KeyError):
        lt.ttransform(lt.arange(3), fail)


@st.composite
def keys_with_an_ellipsis(draw):
    """A shape and a key of index arrays, ints and slices in which an `...` (of any number of axes,
    none included) replaces a run of `:`: numpy's block placement depends on where it stands."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=2, max_size=4)))
    key: list = []
    for size in shape:
        kind = draw(st.sampled_from(["array", "int", "full", "full"]))
        if kind == "array":
            key.append(np.array(draw(st.lists(st.integers(-size, size - 1), min_size=2, max_size=2))))
        elif kind == "int":
            key.append(draw(st.integers(-size, size - 1)))
        else:
            key.append(slice(None))
    start = draw(st.integers(0, len(key)))
    end = start
    while end < len(key) and isinstance(key[end], slice) and draw(st.booleans()):
        end += 1
    key[start:end] = [Ellipsis]
    return shape, tuple(key)


@settings(max_examples=300, deadline=None)
@given(keys_with_an_ellipsis())
def test_ellipsis_placement_against_numpy(case) -> None:
    shape, key = case
    n = math.prod(shape)
    t, a = lt.arange(n).reshape(shape), np.arange(n).reshape(shape)
    expected = a[key]
    if not isinstance(expected, np.ndarray):
        assert t[key] == expected
        return
    view = t[key]
    np.testing.assert_array_equal(view.numpy(), expected)
    np.testing.assert_array_equal(evaluate_by_gather(view), expected)
    view[...] = -1 - np.arange(expected.size).reshape(expected.shape)
    a[key] = -1 - np.arange(expected.size).reshape(expected.shape)
    np.testing.assert_array_equal(t.numpy(), a)

"""The shortcuts on the hottest paths agree with the general code they skip.

A gather by one 1-D list (`h[src]`, every message-passing step) derives its shape
without the general broadcast; results of operations make their gradient bookkeeping
only when asked; `apply` runs a kernel at once on operands in memory that no gradient
watches; the commonest keys (ints and slices, one list of ints) skip the parser; `t.sum()`
is one reduce. Each shortcut is checked here against the general path it skips (values,
dtypes, shapes and errors) and against numpy, on random shapes (0-d, size-0 and size-1
axes), dtypes, progressions (which keep a layout) and scattered lists.

Reaches into `lazytensor.tensors`, `lazytensor.engine`, `lazytensor.ground.indexing` and
`lazytensor.kernels.threads`: each shortcut on the hot path is checked against the general code it
skips, which only the internals can call.
"""

from __future__ import annotations

import importlib
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.engine import optable
from lazytensor.ground import indexing
from lazytensor.tensors.views import IndexedTensor, ReshapedTensor, SlicedTensor, TransposedTensor, View

tensor_module = importlib.import_module("lazytensor.tensors.apply")

Shape = tuple[int, ...]


@st.composite
def gathers(draw: st.DrawFn) -> tuple[np.ndarray, int, np.ndarray, bool, str]:
    """An array, an axis, a valid 1-D list along it, `block_first`, and what the list stands on."""
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple))
    axis = draw(st.integers(0, len(shape) - 1))
    size = shape[axis]
    if size == 0:
        ids: list[int] = []
    else:
        kind = draw(st.sampled_from(["scattered", "progression", "repeated"]))
        length = draw(st.integers(0, 6))
        if kind == "scattered":
            ids = draw(st.lists(st.integers(0, size - 1), min_size=length, max_size=length))
        elif kind == "progression":
            start = draw(st.integers(0, size - 1))
            step = draw(st.sampled_from([1, -1, 2]))
            ids = [i for i in range(start, size if step > 0 else -1, step)][:length]
        else:
            ids = [draw(st.integers(0, size - 1))] * length
    below = draw(st.sampled_from(["storage", "transposed", "unfused"]))
    array = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return array, axis, np.asarray(ids, dtype=np.intp), draw(st.booleans()), below


def _below(array: np.ndarray, kind: str) -> tuple[lt.AbstractTensor, np.ndarray]:
    """The tensor a gather stands on, and its values: storage, a view with a layout, or one without."""
    t = lt.tensor(array)
    if kind == "transposed":
        return t.T.T, array  # two layers, a layout all the way
    if kind == "unfused" and array.shape[0] > 1:
        order = np.array([*range(1, array.shape[0]), 0])  # no progression: no layout below
        return t[order], array[order]
    return t, array


@given(gathers())
def test_a_lone_list_derives_what_the_general_derivation_does(
    case: tuple[np.ndarray, int, np.ndarray, bool, str],
) -> None:
    array, axis, ids, block_first, kind = case
    below, values = _below(array, kind)
    indices = tuple(ids if k == axis else None for k in range(array.ndim))
    view = IndexedTensor.trusted(below, indices, block_first)
    assert view.shape == view._block_shape()  # the shortcut, and the general derivation through `_block`
    assert view.layout == view._affine_layout()
    assert view._lone_list is not None and view._lone_list[0] == axis
    assert view.base is below.base
    expected = np.take(values, ids, axis=axis)
    if block_first:
        expected = np.moveaxis(expected, axis, 0)
    np.testing.assert_array_equal(view.numpy(), expected)


def test_a_progression_keeps_its_layout_and_a_scattered_list_has_none() -> None:
    t = lt.arange(12).reshape(3, 4)
    assert IndexedTensor(t, (None, np.array([3, 1]))).layout == lt.Layout((3, 2), (4, -2), 3)
    scattered = IndexedTensor(t, (None, np.array([3, 0, 1])))
    assert scattered.layout is None
    assert scattered._fused_values is None  # no strided view: reads compute
    np.testing.assert_array_equal(scattered.numpy(), np.arange(12).reshape(3, 4)[:, [3, 0, 1]])


def test_a_list_over_a_view_without_layout_has_none() -> None:
    rows = lt.arange(12).reshape(3, 4)[[2, 0, 1]]  # no layout
    view = IndexedTensor(rows, (None, np.array([0, 1, 2])))  # a progression, but nothing to map
    assert view.layout is None
    np.testing.assert_array_equal(view.numpy(), np.arange(12).reshape(3, 4)[[2, 0, 1]][:, [0, 1, 2]])


# -- gradient bookkeeping, made on first use ------------------------------------------------------


def _grad_state_made(t: lt.StorageTensor) -> bool:
    return lt.StorageTensor.grad_state.peek(t) is not None


def test_a_result_without_gradients_makes_no_grad_state_until_asked() -> None:
    result = lt.arange(3.0) * 2
    assert isinstance(result, lt.StorageTensor)
    assert (result.requires_grad, result.grad) == (False, None)
    assert not _grad_state_made(result)  # asking what it is did not make one
    assert result.version == 0  # the write counter is made on first use, from zero
    assert _grad_state_made(result)


def test_a_result_made_lazily_still_counts_writes_and_shares_them_with_detach() -> None:
    result = lt.arange(3.0) + 1
    detached = result.detach()
    result[0] = 5.0
    assert result.version == detached.version == 1  # one buffer, one count, as before
    detached[1] = 7.0
    assert result.version == 2


def test_a_lazy_leaf_can_be_asked_for_gradients() -> None:
    leaf = lt.arange(3.0) * 1  # a result that has not made its state yet
    leaf.requires_grad_()
    (leaf * leaf).sum().backward()
    assert leaf.grad is not None
    np.testing.assert_array_equal(leaf.grad.numpy(), 2 * np.arange(3.0))


def test_an_operation_on_a_lazy_result_records_nothing_and_asks_nothing(monkeypatch: Any) -> None:
    """No operand wants a gradient: `apply` never asks whether recording is on."""
    calls: list[bool] = []
    autograd = importlib.import_module("lazytensor.engine.autograd")
    real = autograd.is_grad_enabled
    monkeypatch.setattr(autograd, "is_grad_enabled", lambda: calls.append(True) or real())
    result = (lt.arange(3.0) + 1) * 2
    assert calls == []
    assert not result.requires_grad
    w = lt.ones(3, requires_grad=True)
    assert (result * w).requires_grad
    assert calls == [True]


# -- apply: a ufunc on resident operands is one call ------------------------------------------------

_UFUNC_ENTRIES = sorted(
    (entry for entry in optable.TABLE.values() if entry.ufunc is not None), key=lambda entry: entry.name
)
_DTYPES = ("int64", "float64", "bool", "int8", "complex128", "object")


@st.composite
def operand_pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    """Two operands of a ufunc: tensors (storage or a transposed view) of random shapes that may not
    broadcast, numbers, arrays; random dtypes, zeros included (division by zero)."""

    def one() -> Any:
        kind = draw(st.sampled_from(["storage", "transposed", "number", "array"]))
        if kind == "number":
            return draw(st.sampled_from([0, 2, -3, 1.5, 0.0, 2j]))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        dtype = draw(st.sampled_from(_DTYPES))
        values = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 3
        values = np.asarray(values).astype(dtype)
        if kind == "array":
            return values
        t = lt.tensor(values.T.copy()).T if kind == "transposed" else lt.tensor(values)
        return t

    return one(), one()


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        with np.errstate(all="ignore"):
            result = call()
    except Exception as error:  # the same error, type and message, is the point
        return type(error).__name__, str(error)
    return "result", (type(result).__name__, result.dtype, result.shape, repr(result.tolist()))  # nan == nan


@given(st.sampled_from(_UFUNC_ENTRIES), operand_pairs())
def test_the_ufunc_fast_path_gives_what_the_general_path_gives(entry: Any, operands: tuple[Any, Any]) -> None:
    arity = 1 if entry.shapes == "same" else 2
    args = operands[:arity]
    fast = _outcome(lambda: tensor_module.apply(entry, *args))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(tensor_module, "_resident_values", lambda operands: None)
        general = _outcome(lambda: tensor_module.apply(entry, *args))
    assert fast == general


def test_the_fast_path_is_taken_and_leaves_gradients_to_the_general_path() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    assert tensor_module._resident_values((t, t.T.T, 2, 1.5)) is not None
    w = lt.ones(2, 3, requires_grad=True)
    assert tensor_module._resident_values((t, w)) is None  # a watched base: the general path records
    assert tensor_module._resident_values((t, [1, 2, 3])) is None  # a list: typed by the general path
    assert tensor_module._resident_values((t[[0, 1, 0]],)) is None  # no fused values to hand over
    assert (t + w).requires_grad and not (t + t).requires_grad


@given(
    st.booleans(),
    st.sampled_from(["none", "requires_grad", "named", "renamed view", "recorded result"]),
)
def test_a_base_is_plain_only_while_nobody_named_it_or_asked_for_its_gradient(
    turned_off: bool, event: str
) -> None:
    """`plain` is the one flag the fast paths read: any base that requires grad, carries a node or
    is named has it cleared (for good: a leaf whose `requires_grad` is turned off again stays on the
    general path, which gives the same values)."""
    t = lt.arange(6.0).reshape(2, 3)
    if event == "requires_grad":
        t = lt.ones(2, 3, requires_grad=True)
    elif event == "named":
        t = lt.zeros(2, 3, names=("row", "col"))
    elif event == "renamed view":
        t = t.rename("row", "col")  # a name over the base: views and operations over it carry names
    elif event == "recorded result":
        t = lt.ones(2, 3, requires_grad=True) * 2
    base = t.base
    watched = base.requires_grad or base.grad_state.node is not None or base.names_used
    assert base.plain == (event == "none")
    assert not (base.plain and watched)
    if turned_off and event == "requires_grad":
        base.requires_grad_(False)
    fast = tensor_module._resident_values((t, 1.0))
    assert (fast is None) == (not base.plain)
    recording = event == "recorded result" or (event == "requires_grad" and not turned_off)
    assert (t + 1.0).requires_grad == recording


# -- indexing: the commonest keys skip the general parser ------------------------------------------


@st.composite
def basic_keys(draw: st.DrawFn) -> tuple[tuple[int, ...], Any]:
    """A shape and a key of Python ints (some out of bounds) and slices, sometimes longer than the
    shape, sometimes a bare int or slice."""
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    count = draw(st.integers(0, len(shape) + 1))
    entries: list[Any] = []
    for _ in range(count):
        if draw(st.booleans()):
            entries.append(draw(st.integers(-6, 6)))
        else:
            bound = st.none() | st.integers(-6, 6)
            entries.append(slice(draw(bound), draw(bound), draw(st.none() | st.sampled_from([1, 2, -1, -3]))))
    if count == 1 and draw(st.booleans()):
        return shape, entries[0]
    return shape, tuple(entries)


def _parsed(call: Any) -> tuple[str, Any]:
    try:
        return "specs", call()
    except Exception as error:
        return type(error).__name__, str(error)


@given(basic_keys())
def test_basic_specs_are_the_parsers_specs_with_its_errors(case: tuple[tuple[int, ...], Any]) -> None:
    shape, key = case
    fast = _parsed(lambda: indexing.basic_specs(key, shape))
    general = _parsed(lambda: indexing.parse(key, shape))
    if fast == ("specs", None):  # not a key the shortcut takes: an element, or too many entries
        return
    if fast[0] == "specs":
        assert general[0] == "specs" and not general[1].is_element and not general[1].new_axes
        assert fast[1] == general[1].specs
    else:
        assert fast == general


@given(basic_keys())
def test_a_basic_key_reads_what_numpy_reads(case: tuple[tuple[int, ...], Any]) -> None:
    shape, key = case
    array = np.arange(int(np.prod(shape))).reshape(shape)
    expected = _parsed(lambda: array[key])
    got = _parsed(lambda: lt.tensor(array)[key])
    assert got[0] == expected[0]
    if got[0] == "specs":
        np.testing.assert_array_equal(np.asarray(got[1]), expected[1])


@given(
    st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
    st.lists(st.integers(-6, 6), max_size=5) | st.lists(st.booleans(), max_size=4),
)
def test_a_lone_list_is_the_parsers_index_array_with_its_errors(
    shape: tuple[int, ...], key: list[Any]
) -> None:
    fast = _parsed(lambda: indexing.lone_list(key, shape))
    general = _parsed(lambda: indexing.parse(key, shape))
    if fast[0] == "specs" and fast[1] is None:
        assert key == [] or all(type(k) is bool for k in key)  # a mask, or no type to go by
        return
    if fast[0] == "specs":
        assert general[0] == "specs"
        np.testing.assert_array_equal(fast[1], general[1].specs[0])
        assert fast[1].dtype == general[1].specs[0].dtype
    else:
        assert fast == general
    array = np.arange(int(np.prod(shape))).reshape(shape)
    expected = _parsed(lambda: array[key])
    got = _parsed(lambda: lt.tensor(array)[key].numpy())
    assert got[0] == expected[0]
    if got[0] == "specs":
        np.testing.assert_array_equal(got[1], expected[1])


# -- t.sum() of a fused tensor is one reduce --------------------------------------------------------


@st.composite
def summed(draw: st.DrawFn) -> lt.AbstractTensor:
    """A tensor of a random dtype and shape (0-d, size 0 too), as storage, a transposed or sliced view,
    or an expand (whose repeats the general path sums once)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    dtype = draw(
        st.sampled_from(
            ["bool", "int8", "uint8", "int64", "float16", "float32", "float64", "complex64", "object"]
        )
    )
    floats = st.floats(-1e3, 1e3, allow_nan=False, width=16)
    values = np.array(draw(st.lists(floats, min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    t = lt.tensor(values.reshape(shape).astype(dtype))
    kind = draw(st.sampled_from(["storage", "transposed", "sliced", "expanded"]))
    if kind == "transposed":
        return t.T
    if kind == "sliced" and t.ndim:
        return t[::-1]
    if kind == "expanded":
        return t.expand(3, *shape)
    return t


@given(summed())
def test_the_whole_sum_fast_path_gives_what_the_general_path_gives(t: lt.AbstractTensor) -> None:
    fast = _outcome(t.sum)
    general = _outcome(lambda: tensor_module.apply(optable.SUM, t, dim=None, keepdim=False))
    assert fast == general
    if not t.dtype.hasobject:  # numpy's dtype too (numpy sums an object array to a bare value)
        assert np.asarray(t.numpy()).sum().dtype == t.sum().dtype


def test_the_whole_sum_leaves_gradients_and_arguments_to_the_general_path() -> None:
    w = lt.ones(2, 3, requires_grad=True)
    assert tensor_module.whole_sum(w) is None and tensor_module.whole_sum(w.T) is None
    total = w.sum()
    assert total.requires_grad
    total.backward()
    assert w.grad is not None and w.grad.tolist() == [[1.0] * 3] * 2
    t = lt.arange(6).reshape(2, 3)
    assert tensor_module.whole_sum(t) is not None
    assert t.sum(dtype="float32").dtype == np.float32 and t.sum(keepdims=True).shape == (1, 1)


def test_the_whole_sum_of_an_expand_sums_the_repeats_once_as_the_general_path_does() -> None:
    """Repeats summed once and multiplied round differently from summing every repeat: the fast path
    leaves an expand to the general path, so `t.sum()` does not depend on which path ran."""
    t = lt.tensor([0.1, 0.2, 0.3]).expand(3, 3)
    assert t.sum().item() == 3 * (0.1 + 0.2 + 0.3)  # 1.8000000000000003; summing all nine gives 1.8
    assert t.sum().item() == tensor_module.apply(optable.SUM, t, dim=None, keepdim=False).item()


@given(
    st.sampled_from([optable.MATMUL, optable.SUM, optable.MEAN, optable.MAX, optable.PROD]),
    operand_pairs(),
    st.sampled_from([{}, {"dim": None}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": (0, 1)}]),
)
def test_any_kernel_on_resident_operands_gives_what_the_general_path_gives(
    entry: Any, operands: tuple[Any, Any], params: dict[str, Any]
) -> None:
    """Other kernels (matmul, reductions with their parameters) run at once on resident values, as
    the general path would run them: same values, dtypes, shapes and errors."""
    args, params = (operands, {}) if entry is optable.MATMUL else (operands[:1], params)
    fast = _outcome(lambda: tensor_module.apply(entry, *args, **params))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(tensor_module, "_resident_values", lambda operands: None)
        general = _outcome(lambda: tensor_module.apply(entry, *args, **params))
    assert fast == general


def test_shared_ranges_are_the_ranges_asked_for_and_their_store_stays_bounded() -> None:
    made = [indexing.Range.derived(start, 2, 3) for start in range(indexing._RANGES_KEPT + 10)]
    assert [(r.start, r.step, r.count) for r in made[:3]] == [(0, 2, 3), (1, 2, 3), (2, 2, 3)]
    assert len(indexing._RANGES) <= indexing._RANGES_KEPT
    assert indexing.Range.derived(5, 2, 3) == indexing.Range(5, 2, 3)
    assert indexing.Range.derived(5, 2, 3) is indexing.Range.derived(5, 2, 3)  # shared while kept


def test_a_slice_key_reads_its_range_from_a_bounded_store_of_resolved_bounds() -> None:
    """`basic_specs` keeps each slice's range under numpy's resolved bounds: a range met again is the
    same range, every range is the one the slice names, and the store never outgrows its bound."""
    size = indexing._RANGES_KEPT + 10
    slices = [slice(start, None, 3) for start in range(size)] + [slice(-4, 1, -1), slice(7, 2)]
    for item in slices:
        (spec,) = indexing.basic_specs(item, (size,)) or ()
        assert spec == indexing.Range.from_slice(item, size)
        assert len(indexing._SLICE_RANGES) <= indexing._RANGES_KEPT
    again = indexing.basic_specs(slice(-4, 1, -1), (size,))
    assert again is not None and again[0] is indexing.basic_specs(slice(-4, 1, -1), (size,))[0]


def test_work_big_enough_for_threads_leaves_the_fast_paths_to_the_threaded_kernels(
    monkeypatch: Any,
) -> None:
    """Resident operands whose work reaches `threads.start_at` (`reduce_at` for a sum) go to the
    kernels, which split it across threads; smaller work stays one numpy call."""
    threads = importlib.import_module("lazytensor.kernels.threads")
    calls: list[str] = []
    real_call, real_reduce = threads.ufunc_call, threads.reduce
    monkeypatch.setattr(threads, "ufunc_call", lambda *args: calls.append("ufunc") or real_call(*args))
    monkeypatch.setattr(threads, "reduce", lambda *args: calls.append("reduce") or real_reduce(*args))
    t = lt.arange(64.0).reshape(8, 8)
    small = t + t
    assert calls == [] and tensor_module.whole_sum(t) is not None
    monkeypatch.setattr(threads, "start_at", 64)
    monkeypatch.setattr(threads, "reduce_at", 64)
    big = t + t
    assert tensor_module.whole_sum(t) is None
    total = t.sum()
    assert calls == ["ufunc", "reduce"]
    np.testing.assert_array_equal(big.numpy(), small.numpy())
    assert total.item() == np.arange(64.0).sum()


def _fields(view: Any) -> list[Any]:
    return [getattr(view, field.name) for field in attrs.fields(type(view))]


def _same(mine: Any, theirs: Any) -> bool:
    """Equal field values, looking into tuples and comparing arrays by their elements."""
    if isinstance(theirs, tuple):
        return type(mine) is tuple and len(mine) == len(theirs) and all(map(_same, mine, theirs))
    if isinstance(theirs, np.ndarray):
        return isinstance(mine, np.ndarray) and np.array_equal(mine, theirs)
    return type(mine) is type(theirs) and bool(mine == theirs)


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (TransposedTensor, ((1, 0, 2),)),  # one parameter: filled without a loop
        (ReshapedTensor, ((6, 4),)),
        (SlicedTensor, ((indexing.Range(1, 1, 1), 2, indexing.Range(0, 2, 2)),)),
        (IndexedTensor, ((None, np.array([2, 0], dtype=np.intp), None), True)),  # two: the loop
    ],
)
def test_a_trusted_view_holds_the_fields_the_checking_constructor_gives(
    cls: type[View], params: tuple[Any, ...]
) -> None:
    below = lt.arange(24).reshape(2, 3, 4)
    checked, trusted = cls(below, *params), cls.trusted(below, *params)
    assert len(_fields(trusted)) == len(_fields(checked)) == 1 + len(params)
    assert _fields(trusted)[0] is below
    assert all(map(_same, _fields(trusted)[1:], _fields(checked)[1:]))
    assert trusted.shape == checked.shape
    np.testing.assert_array_equal(trusted.numpy(), checked.numpy())


def test_a_trusted_storage_tensor_shares_its_array_and_reads_it() -> None:
    array = np.arange(12.0).reshape(3, 4)
    t = lt.StorageTensor._trusted(array)
    assert t.shape == (3, 4) and t.buffer.shape == (12,)
    assert np.shares_memory(t.buffer, array) and t._fused_values is array
    t[1, 2] = -1.0  # a write through the tensor reaches the array it was made over
    assert array[1, 2] == -1.0

"""Named axes through views: one rule per wrapper, held against a model that tracks names by hand.

The model below knows nothing of wrappers: it reads each user-level step (a key, a permutation,
a reshape) and says which names the result has, by the rule of issue 28. Random stacks of steps
from a named base must agree with it at every step, and so must a 10,000-layer stack.

Reaches into `lazytensor.ground.naming`: its rules are made to fail, to see that unnamed tensors
never call them.
"""

from __future__ import annotations

import itertools
import math
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import basic_keys, fancy_keys, index_lists, reshape_targets, shapes

import lazytensor as lt

Names = tuple[str | None, ...]
Shape = tuple[int, ...]
WORDS = ("trial", "channel", "time", "freq", "batch", "head")


# -- the model: names by hand, per user-level step ----------------------------------------------


def _same_from_the_start(a: Shape, b: Shape) -> int:
    """How many sizes `a` and `b` share from their first axis on, up to the first empty axis (in an
    empty tensor sizes cannot tell which axes a reshape merged)."""
    same = itertools.takewhile(lambda pair: pair[0] == pair[1] != 0, zip(a, b, strict=False))
    return sum(1 for _ in same)


def model_reshape(names: Names, below: Shape, shape: Shape) -> Names:
    """Untouched leading and trailing axes keep their names; between them, size-1 axes coming or
    going leave the others named, and any split or merge leaves every axis between unnamed."""
    lead = _same_from_the_start(below, shape)
    trail = _same_from_the_start(below[lead:][::-1], shape[lead:][::-1])  # the same sizes at the end
    old = [
        (size, name)
        for size, name in zip(below[lead : len(below) - trail], names[lead : len(names) - trail], strict=True)
    ]
    new = shape[lead : len(shape) - trail]
    old_sizes = [size for size, _ in old if size != 1]
    if old_sizes != [size for size in new if size != 1]:
        middle: list[str | None] = [None] * len(new)
    else:
        survivors = iter(name for size, name in old if size != 1)
        middle = [None if size == 1 else next(survivors) for size in new]
    return (*names[:lead], *middle, *names[len(names) - trail :])


def _expanded_key(key: tuple[Any, ...], ndim: int) -> list[Any]:
    """The key with its `...` replaced by full slices, one entry per axis it uses (None aside)."""
    used = sum(1 for k in key if k is not None and k is not Ellipsis and not isinstance(k, bool)) + sum(
        k.ndim - 1 for k in key if isinstance(k, np.ndarray) and k.dtype == bool
    )
    out: list[Any] = []
    for k in key:
        if k is Ellipsis:
            out += [slice(None)] * (ndim - used)
        else:
            out.append(k)
    if not any(k is Ellipsis for k in key):
        out += [slice(None)] * (ndim - used)
    return out


def model_key(names: Names, key: tuple[Any, ...]) -> Names:
    """numpy's indexing, names only: an int drops its axis' name, a slice keeps it, None adds None;
    index arrays (an int beside them is one) form a block that keeps the name of the one axis a
    single 1-D list indexes, else None; a block whose indexed axes are not adjacent goes first."""
    entries = _expanded_key(key, len(names))
    per_axis: list[tuple[str, Any, str | None]] = []  # (kind, entry, name), None entries included
    axis = 0
    for entry in entries:
        if entry is None:
            per_axis.append(("new", None, None))
        elif isinstance(entry, bool | np.bool_):  # a mask of no axes: a 1-D list of 0 or 1 entries
            per_axis.append(("list", np.zeros(1), None))
        elif isinstance(entry, np.ndarray) and entry.dtype == bool:
            for _ in range(entry.ndim):  # a mask is one 1-D list per axis it covers
                per_axis.append(("list", np.zeros(1), names[axis]))
                axis += 1
        elif isinstance(entry, np.ndarray):
            per_axis.append(("list", entry, names[axis]))
            axis += 1
        elif isinstance(entry, int):
            per_axis.append(("int", entry, names[axis]))
            axis += 1
        else:
            per_axis.append(("slice", entry, names[axis]))
            axis += 1
    if not any(kind == "list" for kind, _, _ in per_axis):
        return tuple(name for kind, _, name in per_axis if kind != "int")
    advanced = [i for i, (kind, _, _) in enumerate(per_axis) if kind in ("list", "int")]
    lists = [(entry, name) for kind, entry, name in per_axis if kind == "list" and entry.ndim > 0]
    arrays = [np.asarray(entry) for kind, entry, _ in per_axis if kind in ("list", "int")]
    block_ndim = max(array.ndim for array in arrays)
    if block_ndim == 1 and len(lists) == 1:
        block: Names = (lists[0][1],)
    else:
        block = (None,) * block_ndim
    adjacent = advanced[-1] - advanced[0] == len(advanced) - 1
    before = [name for i, (_, _, name) in enumerate(per_axis) if i < advanced[0] and i not in advanced]
    after = [name for i, (_, _, name) in enumerate(per_axis) if i > advanced[0] and i not in advanced]
    if adjacent:
        return (*before, *block, *after)
    return (*block, *before, *after)


# -- random steps, each with its model ------------------------------------------------------------

Step = tuple[str, Any]


@st.composite
def named_steps(draw: st.DrawFn, shape: Shape) -> Step:
    ndim = len(shape)
    kinds = ["reshape", "basic", "unsqueeze", "expand", "fancy", "rename"]
    if ndim:
        kinds += ["permute", "swap", "T", "flatten", "oindex", "seed_slice"]
    if 1 in shape:
        kinds.append("squeeze")
    kind = draw(st.sampled_from(kinds))
    if kind == "permute":
        return kind, tuple(draw(st.permutations(range(ndim))))
    if kind == "swap":
        return kind, (draw(st.integers(-ndim, ndim - 1)), draw(st.integers(-ndim, ndim - 1)))
    if kind == "T":
        return kind, None
    if kind == "reshape":
        return kind, draw(reshape_targets(shape))
    if kind == "flatten":
        start = draw(st.integers(0, ndim - 1))
        return kind, (start, draw(st.integers(start, ndim - 1)))
    if kind == "squeeze":
        return kind, draw(st.none() | st.sampled_from([a for a, size in enumerate(shape) if size == 1]))
    if kind == "unsqueeze":
        return kind, draw(st.integers(-ndim - 1, ndim))
    if kind == "expand":
        lead = draw(st.lists(st.integers(0, 3), max_size=2))
        return kind, (*lead, *(draw(st.sampled_from([0, 1, 3])) if s == 1 else s for s in shape))
    if kind == "basic":
        return kind, draw(basic_keys(shape))
    if kind == "fancy":
        return kind, draw(fancy_keys(shape))
    if kind == "rename":
        return kind, draw(random_names(ndim))
    if kind == "oindex":
        return kind, tuple(
            draw(index_lists(n)) if draw(st.booleans()) else slice(None, None, -1) for n in shape
        )
    return kind, [
        draw(st.none() | (st.integers(-n, n - 1) if n else st.none()) | index_lists(n)) for n in shape
    ]


def random_names(ndim: int) -> st.SearchStrategy[Names]:
    return st.lists(st.sampled_from((*WORDS, None)), min_size=ndim, max_size=ndim).map(
        lambda drawn: tuple(name if drawn.index(name) == i else None for i, name in enumerate(drawn))
    )


def apply_step(t: lt.AbstractTensor, step: Step) -> lt.AbstractTensor:
    kind, arg = step
    if kind == "permute":
        return t.permute(*arg)
    if kind == "swap":
        return t.swapaxes(*arg)
    if kind == "T":
        return t.T
    if kind == "reshape":
        return t.reshape(arg)
    if kind == "flatten":
        return t.flatten(*arg)
    if kind == "squeeze":
        return t.squeeze(arg)
    if kind == "unsqueeze":
        return t.unsqueeze(arg)
    if kind == "expand":
        return t.expand(*arg)
    if kind in ("basic", "fancy"):
        return t[arg]
    if kind == "rename":
        return t.rename(*arg)
    if kind == "oindex":
        return t.oindex[arg]
    return t.slice(arg)


def model_step(names: Names, shape: Shape, step: Step, result_shape: Shape) -> Names:
    kind, arg = step
    ndim = len(names)
    if kind == "permute":
        return tuple(names[a] for a in arg)
    if kind == "swap":
        order = list(range(ndim))
        a, b = arg[0] % ndim, arg[1] % ndim
        order[a], order[b] = order[b], order[a]
        return tuple(names[i] for i in order)
    if kind == "T":
        return names[::-1]
    if kind in ("reshape", "flatten"):
        return model_reshape(names, shape, result_shape)
    if kind == "squeeze":
        dropped = [a for a, size in enumerate(shape) if size == 1] if arg is None else [arg]
        return tuple(name for a, name in enumerate(names) if a not in dropped)
    if kind == "unsqueeze":
        axis = arg % (ndim + 1)
        return (*names[:axis], None, *names[axis:])
    if kind == "expand":
        return (None,) * (len(arg) - ndim) + names
    if kind in ("basic", "fancy"):
        return model_key(names, arg)
    if kind == "rename":
        return tuple(arg)
    return names  # oindex and the seeds' slice keep every axis


@st.composite
def named_stacks(draw: st.DrawFn, max_steps: int = 5) -> tuple[Shape, Names, list[Step]]:
    shape = draw(shapes(max_dims=4))
    names = draw(random_names(len(shape)))
    steps: list[Step] = []
    current = lt.zeros(shape)
    for _ in range(draw(st.integers(1, max_steps))):
        step = draw(named_steps(current.shape))
        current = apply_step(current, step)
        steps.append(step)
        if current.numel() > 2000:
            break
    return shape, names, steps


# -- the rule on random stacks ---------------------------------------------------------------------


@given(named_stacks())
def test_names_follow_the_rule_through_random_stacks(case: tuple[Shape, Names, list[Step]]) -> None:
    shape, names, steps = case
    t: lt.AbstractTensor = lt.zeros(shape, names=names)
    expected = names
    for step in steps:
        below_shape = t.shape
        t = apply_step(t, step)
        expected = model_step(expected, below_shape, step, t.shape)
        assert t.names == expected, step
        assert len(t.names) == t.ndim


@given(named_stacks())
def test_names_read_top_first_equal_names_read_bottom_first(case: tuple[Shape, Names, list[Step]]) -> None:
    """Asking only the top layer derives every layer below in one loop: the same names as asking
    each layer as it is made."""
    shape, names, steps = case
    asked: lt.AbstractTensor = lt.zeros(shape, names=names)
    lazy: lt.AbstractTensor = lt.zeros(shape, names=names)
    for step in steps:
        asked = apply_step(asked, step)
        asked.names  # noqa: B018
        lazy = apply_step(lazy, step)
    assert lazy.names == asked.names
    assert [layer.names for layer in lazy.layers] == [layer.names for layer in asked.layers]


@given(shapes(max_dims=4).flatmap(lambda s: st.tuples(st.just(s), st.lists(named_steps(s), max_size=0))))
def test_an_unnamed_base_gives_unnamed_views(case: tuple[Shape, list[Step]]) -> None:
    shape, _ = case
    t = lt.zeros(shape)
    assert t.names == (None,) * len(shape) and not t.base.names_used
    assert t.T.names == (None,) * len(shape)


def test_a_10000_layer_stack_is_named_without_recursion() -> None:
    t: lt.AbstractTensor = lt.zeros(2, 3, 4, names=("trial", "channel", "time"))
    expected: Names = t.names
    for i in range(10_000):
        if i % 3 == 0:
            t, expected = t.permute(1, 2, 0), (expected[1], expected[2], expected[0])
        elif i % 3 == 1:
            t = t[::1]
        else:
            t = t.unsqueeze(0)[0]
    assert len(t.layers) > 10_000
    assert t.names == expected


def test_a_10000_layer_stack_of_renames_reads_its_top_name() -> None:
    t: lt.AbstractTensor = lt.zeros(3)
    for i in range(10_000):
        t = t.rename(f"axis{i}").T
    assert t.names == ("axis9999",)


# -- the rule, case by case (numpy's placement of advanced blocks) ----------------------------------


NAMED = ("trial", "channel", "time")


def named(*shape: int) -> lt.AbstractTensor:
    return lt.arange(math.prod(shape)).reshape(shape).rename(*NAMED[: len(shape)])


@pytest.mark.parametrize(
    ("key", "names"),
    [
        ((0,), ("channel", "time")),
        ((slice(None), [1, 0]), NAMED),
        (([0, 1], slice(None), 2), ("trial", "channel")),  # block first; the int drops its name
        ((slice(None), [0, 1], [2, 3]), ("trial", None)),  # two axes merge into one
        ((slice(None), np.array([[0], [1]])), ("trial", None, None, "time")),  # one axis into two
        ((np.ones((2, 3), dtype=bool),), (None, "time")),  # a mask over two axes merges them
        ((slice(None), np.array([True, False, True])), NAMED),  # a mask over one axis keeps it
        ((None, Ellipsis, 1), (None, "trial", "channel")),
    ],
)
def test_index_keys_name_their_axes_as_numpy_places_them(key: tuple[Any, ...], names: Names) -> None:
    t = named(2, 3, 4)
    view = t[key]
    assert view.names == names
    assert view.shape == np.arange(24).reshape(2, 3, 4)[key].shape


def test_squeeze_drops_the_name_of_the_axis_it_drops_even_beside_another_size_1_axis() -> None:
    t = lt.zeros(1, 1, 3, names=("a", "b", "c"))
    assert t.squeeze(0).names == ("b", "c")
    assert t.squeeze(1).names == ("a", "c")
    assert t.squeeze().names == ("c",)
    assert t.unsqueeze(1).names == ("a", None, "b", "c")
    assert t[:, None].names == ("a", None, "b", "c")


def test_reshape_keeps_untouched_leading_and_trailing_names() -> None:
    t = lt.zeros(4, 8, 100, names=("trial", "channel", "time"))
    assert t.reshape(4, 800).names == ("trial", None)
    assert t.reshape(4, 2, 4, 100).names == ("trial", None, None, "time")
    assert t.reshape(3200, 1).names == (None, None)
    assert t.flatten(1).names == ("trial", None)
    assert t.expand(2, 4, 8, 100).names == (None, "trial", "channel", "time")


def test_split_chunk_unbind_and_narrow_keep_names() -> None:
    t = lt.zeros(4, 6, names=("trial", "time"))
    assert {piece.names for piece in t.split(2, dim=1)} == {("trial", "time")}
    assert {piece.names for piece in t.chunk(2)} == {("trial", "time")}
    assert {piece.names for piece in t.unbind(0)} == {("time",)}


# -- rename, and names on the base --------------------------------------------------------------------


def test_rename_is_a_view_that_writes_through() -> None:
    base = lt.zeros(2, 3)
    view = base.rename("row", "col")
    view[1, 2] = 5.0
    assert base[1, 2] == 5.0 and view.shares_storage(base)
    assert view.names == ("row", "col") and base.names == (None, None)
    assert view.layout == base.layout and view.layer_name == "Renamed"
    assert view.rename(col="column").names == ("row", "column")
    assert view.rename(None).names == (None, None)
    assert view.rename(("x", None)).names == ("x", None)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (("a",), {}, ValueError, "give 1 names for the 2 axes of shape (2, 3)"),
        (("a", "a"), {}, ValueError, "name axis 'a' twice"),
        (("a", 3), {}, TypeError, "each name must be a str or None, got 3"),
        (
            (),
            {"nope": "x"},
            ValueError,
            "no axis is named 'nope': the tensor of shape (2, 3) has names ('row', 'col')",
        ),
        (("a", "b"), {"row": "x"}, TypeError, "either the new names or old=new pairs"),
    ],
)
def test_rename_refuses_bad_names(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type, message: str
) -> None:
    t = lt.zeros(2, 3, names=("row", "col"))
    with pytest.raises(error) as caught:
        t.rename(*args, **kwargs)
    assert message in str(caught.value)


def test_constructors_take_names_and_check_them() -> None:
    assert lt.tensor([[1, 2]], names=["row", "col"]).names == ("row", "col")
    assert lt.ones(2, names=("x",)).names == ("x",)
    assert lt.full((2, 2), 7, names=("a", None)).names == ("a", None)
    assert lt.empty((1, 2), names=(None, "b")).names == (None, "b")
    assert lt.arange(3, names=("i",)).names == ("i",)
    assert lt.trandom(2, 3, seed=0, names=("a", "b")).names == ("a", "b")
    assert lt.tensor(lt.zeros(2, names=("x",))).names == ("x",)
    with pytest.raises(TypeError, match="must be a sequence of str or None"):
        lt.zeros(2, names="x")
    with pytest.raises(ValueError, match="give 2 names for the 1 axes"):
        lt.zeros(2, names=("x", "y"))


def test_names_survive_pickling_and_views_rebuilt_from_it() -> None:
    t = lt.zeros(2, 3, names=("row", "col"))
    view = t.T[1:].rename(col="c")
    again = pickle.loads(pickle.dumps(view))
    assert again.names == ("c", "row")
    assert pickle.loads(pickle.dumps(t)).names == ("row", "col")


def test_gradients_flow_through_named_views_unchanged() -> None:
    w = lt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, names=("row", "col"))
    u = lt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    weights = np.arange(6.0).reshape(3, 2)
    (w.rename(row="r").T[::-1] * weights).sum().backward()
    (u.T[::-1] * weights).sum().backward()
    assert w.grad is not None and u.grad is not None
    assert w.grad.tolist() == u.grad.tolist()


# -- operations: PyTorch's check of names, no alignment by name ------------------------------------


def test_binary_operations_keep_the_names_broadcasting_matches() -> None:
    a = lt.zeros(2, 3, names=("trial", "time"))
    assert (a + lt.ones(3, names=("time",))).names == ("trial", "time")
    assert (lt.ones(2, 1, names=(None, "time")) * a).names == ("trial", "time")
    assert (a - 1).names == ("trial", "time")
    assert (np.ones(3) + a).names == ("trial", "time")
    assert (a[:, None] + lt.ones(4, 1, names=("freq", None))).names == ("trial", "freq", "time")
    assert lt.where(a > 0, a, lt.zeros(3, names=("time",))).names == ("trial", "time")
    assert (lt.zeros(2, 3) + lt.zeros(3)).names == (None, None)


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (
            lt.ones(3, names=("freq",)),
            "names ('trial', 'time') and ('freq',) do not match at axis -1: 'time' against 'freq'",
        ),
        (lt.ones(2, 3, names=("time", None)), "at axis -2: 'trial' against 'time'"),
    ],
)
def test_binary_operations_refuse_axes_named_differently(other: lt.AbstractTensor, message: str) -> None:
    """No silent alignment by name: an axis called 'time' on one side and 'freq' on the other is an
    error even when the sizes broadcast (transposing to match is the caller's job)."""
    a = lt.zeros(2, 3, names=("trial", "time"))
    with pytest.raises(ValueError) as caught:
        a + other
    assert message in str(caught.value)
    before = a.tolist()
    with pytest.raises(ValueError):
        a += other
    assert a.tolist() == before


def test_elementwise_and_reductions_keep_or_drop_names() -> None:
    a = lt.arange(6.0).reshape(2, 3).rename("trial", "time")
    assert a.exp().names == ("trial", "time") and abs(-a).names == ("trial", "time")
    assert a.sum(0).names == ("time",) and a.mean(-1).names == ("trial",)
    assert a.max(0, keepdim=True).names == ("trial", "time")
    assert a.sum().names == ()
    assert a.softmax(1).names == ("trial", "time")
    assert (a @ lt.ones(3, 2)).names == ("trial", None)  # matmul: PyTorch's rule, the rows keep theirs


def test_gradients_through_named_operations_are_the_unnamed_ones() -> None:
    values = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    w = lt.tensor(values, requires_grad=True, names=("trial", "time"))
    u = lt.tensor(values, requires_grad=True)
    scale = lt.tensor([1.0, -2.0, 0.5], names=("time",))
    ((w * scale).softmax(1) * w).sum().backward()
    ((u * lt.tensor([1.0, -2.0, 0.5])).softmax(1) * u).sum().backward()
    assert w.grad is not None and u.grad is not None
    assert np.allclose(w.grad.numpy(), u.grad.numpy())


def test_reshape_takes_names_for_the_axes_it_makes() -> None:
    t = lt.arange(24).reshape(2, 3, 4, names=("trial", "channel", "time"))
    assert t.names == ("trial", "channel", "time")
    assert t.reshape(6, 4, names=("epoch", None)).names == ("epoch", None)
    assert t.reshape((6, 4), names=["epoch", "time"]).tolist() == np.arange(24).reshape(6, 4).tolist()
    with pytest.raises(ValueError, match="give 1 names for the 2 axes"):
        t.reshape(6, 4, names=("epoch",))


def test_copies_and_detached_tensors_keep_their_names() -> None:
    t = lt.zeros(2, 3, names=("row", "col"), requires_grad=True)
    assert t.T.clone().names == ("col", "row") and t.T.contiguous().names == ("col", "row")
    assert t.copy().names == ("row", "col")
    assert t.detach().names == ("row", "col") and t.T.detach().names == ("col", "row")
    assert lt.zeros(2, 3).clone().names == (None, None)


@st.composite
def broadcast_operands(draw: st.DrawFn) -> tuple[tuple[Shape, Names], tuple[Shape, Names]]:
    """Two shapes that broadcast together, each axis named at random (a few names, so clashes and
    agreements both come up)."""
    ndim = draw(st.integers(0, 4))
    full = draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim))
    pair = []
    for _ in range(2):
        drop = draw(st.integers(0, ndim))
        shape = tuple(1 if draw(st.booleans()) else size for size in full[drop:])
        pair.append((shape, draw(random_names(len(shape)))))
    return pair[0], pair[1]


def model_broadcast(a: Names, b: Names) -> Names | None:
    """PyTorch's rule by hand: aligned from the right, two names must be equal or one None, and a
    name may not sit at two places; None for a clash."""
    out: list[str | None] = []
    for back in range(1, max(len(a), len(b)) + 1):
        x = a[-back] if back <= len(a) else None
        y = b[-back] if back <= len(b) else None
        if x is not None and y is not None and x != y:
            return None
        out.append(x if x is not None else y)
    named = [name for name in out if name is not None]
    if len(set(named)) != len(named):
        return None
    return tuple(reversed(out))


@given(broadcast_operands(), st.sampled_from(["+", "*", "<", "where"]))
def test_binary_operations_name_their_results_by_pytorchs_rule(
    case: tuple[tuple[Shape, Names], tuple[Shape, Names]], op: str
) -> None:
    (shape_a, names_a), (shape_b, names_b) = case
    a, b = lt.zeros(shape_a, names=names_a), lt.ones(shape_b, names=names_b)
    expected = model_broadcast(names_a, names_b)
    run = {
        "+": lambda: a + b,
        "*": lambda: b * a,
        "<": lambda: a < b,
        "where": lambda: lt.where(a < 1, a, b),
    }[op]
    if expected is None:
        with pytest.raises(ValueError, match=r"do not match at axis|are misaligned"):
            run()
        return
    result = run()
    assert result.names == expected
    assert result.shape == np.broadcast_shapes(shape_a, shape_b)


def test_a_name_at_two_places_from_the_right_is_misaligned() -> None:
    """PyTorch refuses what would put one name on two axes of the result."""
    a = lt.zeros(3, names=("time",))
    b = lt.zeros(3, 1, names=("time", None))
    with pytest.raises(ValueError) as caught:
        a + b
    assert str(caught.value) == (
        "names ('time',) and ('time', None) are misaligned: 'time' is at axes [-2, -1] from the right "
        "(broadcasting matches axes by position, not by name: permute to line the names up)"
    )


def test_unnamed_tensors_never_derive_or_check_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Names cost nothing when nobody named anything: making views and running operations on
    unnamed tensors never derives a name nor runs the names check (both are made to fail here)."""
    from lazytensor.ground import naming

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("names derived or checked for unnamed tensors")

    monkeypatch.setattr(naming, "own_names", refuse)
    monkeypatch.setattr(naming, "result_names", refuse)
    monkeypatch.setattr(naming, "reshaped", refuse)
    t, u = lt.zeros(2, 1, 3), lt.ones(3)
    views = [t.T, t[1:], t[:, 0], t[[1, 0]], t[None], t.unsqueeze(0), t.squeeze(), t.squeeze(1)]
    views += [t.reshape(6), t.expand(4, 2, 1, 3), t.permute(2, 0, 1), t.flatten()]
    assert [v.shape for v in views][:2] == [(3, 1, 2), (1, 1, 3)]
    assert (t + u).shape == (2, 1, 3) and t.sum(0).shape == (1, 3) and (t * 2).exp().shape == (2, 1, 3)
    assert lt.cat([t, t]).shape == (4, 1, 3) and t.softmax(-1).shape == (2, 1, 3)

"""Names through `matmul` and `stack` (PyTorch's rules), and through operations on every kind of base.

A model below names matmul's and stack's results by hand, axis by axis; random named operands must
agree with it. On lazy bases (dask, zarr, h5py, ...) operations check names before any work and
name their results exactly as in memory.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bases_support import KINDS, on_base
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt

Names = tuple[str | None, ...]
Shape = tuple[int, ...]


def some_names(ndim: int) -> st.SearchStrategy[Names]:
    """Names for `ndim` axes from a small pool (so clashes and agreements both come up), each name
    on one axis at most."""
    drawn = st.lists(st.sampled_from(["a", "b", "c", None]), min_size=ndim, max_size=ndim)
    return drawn.map(lambda names: tuple(n if n not in names[:i] else None for i, n in enumerate(names)))


@st.composite
def matmul_operands(draw: st.DrawFn) -> tuple[tuple[Shape, Names], tuple[Shape, Names]]:
    """Two shapes numpy's matmul takes (1-D to 4-D, batch axes that broadcast), named at random."""
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    n, k, m = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    shapes = []
    for rows, inner in (((n, k), (k,)), ((k, m), (k,))):
        if draw(st.booleans()) and not batch:
            shapes.append(inner)
            continue
        drop = draw(st.integers(0, len(batch)))
        own = tuple(1 if draw(st.booleans()) else size for size in batch[drop:])
        shapes.append((*own, *rows))
    return (shapes[0], draw(some_names(len(shapes[0])))), (shapes[1], draw(some_names(len(shapes[1]))))


def model_matmul(a: Names, b: Names) -> Names | None:
    """PyTorch's rule by hand: batch names matched from the right must be equal or one None; the
    rows take `a`'s second-to-last name, the columns `b`'s last; a 1-D operand's axis is contracted
    and leaves nothing; a name twice in the result is refused (None here)."""
    batch_a, batch_b = list(a[:-2]), list(b[:-2])
    batch: list[str | None] = []
    while batch_a or batch_b:
        x = batch_a.pop() if batch_a else None
        y = batch_b.pop() if batch_b else None
        if x is not None and y is not None and x != y:
            return None
        batch.insert(0, x if x is not None else y)
    out = [*batch]
    if len(a) >= 2:
        out.append(a[-2])
    if len(b) >= 2:
        out.append(b[-1])
    named = [name for name in out if name is not None]
    if len(set(named)) != len(named):
        return None
    return tuple(out)


@given(matmul_operands())
def test_matmul_names_its_result_by_pytorchs_rule(
    case: tuple[tuple[Shape, Names], tuple[Shape, Names]],
) -> None:
    (shape_a, names_a), (shape_b, names_b) = case
    a = lt.arange(float(np.prod(shape_a))).reshape(shape_a).rename(*names_a)
    b = lt.ones(*shape_b, names=names_b)
    expected = model_matmul(names_a, names_b)
    if expected is None:
        with pytest.raises(ValueError, match=r"do not match at axis|are misaligned|on two axes"):
            a @ b
        return
    for result in (a @ b, lt.matmul(a, b), a.matmul(b)):
        assert result.names == expected
        np.testing.assert_array_equal(result.numpy(), np.matmul(a.numpy(), b.numpy()))


def test_matmul_drops_the_contracted_names_and_keeps_rows_and_columns() -> None:
    """The example of the docs: batch names unify, the inner axis goes."""
    x = lt.ones(8, 2, 3, names=("batch", "row", "inner"))
    w = lt.ones(3, 4, names=("inner", "col"))
    assert (x @ w).names == ("batch", "row", "col")
    assert (x @ lt.ones(3, names=("inner",))).names == ("batch", "row")
    assert (lt.ones(3, names=("inner",)) @ w).names == ("col",)
    assert (lt.ones(3, names=("inner",)) @ lt.ones(3)).names == ()


def test_matmul_refuses_a_name_on_two_axes_of_its_result() -> None:
    a = lt.ones(2, 3, names=("a", "k"))
    b = lt.ones(3, 2, names=(None, "a"))
    with pytest.raises(ValueError) as caught:
        a @ b
    assert str(caught.value) == (
        "matmul: names ('a', 'k') and (None, 'a') (shapes (2, 3) and (3, 2)) would put 'a' on two axes "
        "of the result ('a', 'a'): rename an operand first"
    )


def test_matmul_gradients_are_the_unnamed_ones() -> None:
    a = lt.tensor(np.arange(6.0).reshape(2, 3), names=("row", "k")).requires_grad_()
    b = lt.tensor(np.arange(12.0).reshape(3, 4), names=(None, "col")).requires_grad_()
    product = a @ b
    assert product.names == ("row", "col")
    product.sum().backward()
    plain_a = lt.tensor(np.arange(6.0).reshape(2, 3)).requires_grad_()
    plain_b = lt.tensor(np.arange(12.0).reshape(3, 4)).requires_grad_()
    (plain_a @ plain_b).sum().backward()
    assert a.grad.tolist() == plain_a.grad.tolist() and b.grad.tolist() == plain_b.grad.tolist()


@given(
    st.lists(st.integers(1, 3), max_size=3).flatmap(
        lambda s: st.tuples(
            st.just(tuple(s)), some_names(len(s)), some_names(len(s)), st.integers(-len(s) - 1, len(s))
        )
    )
)
def test_stack_agrees_names_by_broadcasting_and_leaves_the_new_axis_unnamed(
    case: tuple[Shape, Names, Names, int],
) -> None:
    shape, names_a, names_b, dim = case
    a, b = lt.zeros(shape, names=names_a), lt.ones(shape, names=names_b)
    clash = any(x is not None and y is not None and x != y for x, y in zip(names_a, names_b, strict=True))
    if clash:
        with pytest.raises(ValueError, match="do not match at axis"):
            lt.stack([a, b], dim=dim)
        return
    agreed = [x if x is not None else y for x, y in zip(names_a, names_b, strict=True)]
    named = [name for name in agreed if name is not None]
    if len(set(named)) != len(named):
        with pytest.raises(ValueError, match="are misaligned"):
            lt.stack([a, b], dim=dim)
        return
    axis = dim % (len(shape) + 1)
    result = lt.stack([a, b], dim=dim)
    assert result.names == (*agreed[:axis], None, *agreed[axis:])
    assert result.tolist() == np.stack([a.numpy(), b.numpy()], axis=dim).tolist()


# -- every kind of base: the same check, the same names ------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_operations_on_every_base_name_their_results_as_in_memory(kind: str, tmp_path: Path) -> None:
    values = np.arange(24.0).reshape(2, 3, 4)
    t = on_base(kind, values, tmp_path).rename("trial", "channel", "time")
    scale = lt.tensor([1.0, 2.0, 3.0, 4.0], names=("time",))
    weights = lt.ones(4, 5, names=(None, "freq"))
    cases = {
        "add": (lambda u: u * scale + 1, values * np.arange(1.0, 5.0) + 1),
        "exp": (lambda u: u.exp(), np.exp(values)),
        "sum": (lambda u: u.sum("time"), values.sum(2)),
        "matmul": (lambda u: u @ weights, values @ np.ones((4, 5))),
        "stack": (lambda u: lt.stack([u, u], dim=1), np.stack([values, values], axis=1)),
    }
    memory = lt.tensor(values).rename("trial", "channel", "time")
    for name, (run, expected) in cases.items():
        result = run(t)
        assert result.names == run(memory).names, name
        np.testing.assert_allclose(np.asarray(result.numpy()), expected, err_msg=name)
    assert (t * scale).names == ("trial", "channel", "time")
    assert (t @ weights).names == ("trial", "channel", "freq")


@pytest.mark.parametrize("kind", KINDS)
def test_operations_on_every_base_refuse_mismatched_names(kind: str, tmp_path: Path) -> None:
    t = on_base(kind, np.arange(24.0).reshape(2, 3, 4), tmp_path).rename("trial", "channel", "time")
    with pytest.raises(ValueError) as caught:
        t + lt.ones(4, names=("freq",))
    assert str(caught.value) == (
        "names ('trial', 'channel', 'time') and ('freq',) do not match at axis -1: 'time' against "
        "'freq' (shapes (2, 3, 4) and (4,))"
    )
    with pytest.raises(ValueError, match="do not match at axis -1"):
        lt.stack([t, lt.zeros(2, 3, 4, names=(None, None, "freq"))])


def test_a_lazy_result_stays_lazy_and_named() -> None:
    """On dask the result is a lazy base, named; nothing is computed until asked."""
    da = pytest.importorskip("dask.array")
    t = lt.from_array(da.ones((2, 3, 4), chunks=2)).rename("trial", "channel", "time")
    result = (t + lt.ones(4, names=("time",))).sum("channel")
    assert result.base.defers_operations and result.names == ("trial", "time")
    assert result.compute().tolist() == np.full((2, 4), 6.0).tolist()


def test_an_operation_that_flattens_a_named_tensor_leaves_its_result_unnamed() -> None:
    t = lt.tensor(np.arange(6.0).reshape(2, 3), names=("a", "b"))
    for flat in (t.cumsum(), np.cumsum(t), np.cumprod(t), np.sort(t, axis=None)):
        assert flat.shape == (6,)
        assert flat.names == (None,)
    assert t.cumsum(axis=1).names == ("a", "b")

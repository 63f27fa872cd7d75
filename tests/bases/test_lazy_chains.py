"""Reaches into `lazytensor.bases.computed` (its block size, shrunk so small tensors compute in many
blocks) and `lazytensor.kernels.threads` (its test hook, so the blocks run on threads).

`with lt.lazy():` makes elementwise operations on tensors in memory computed tensors, as they are on
a file: numpy's values exactly (each element computed by the same ufunc), views and operations
stacked at any depth, one block of temporaries at a time, read-only, the rest of the library as
before (gradients, reductions, matrix products, in-place operations).
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from memory_support import peak_bytes
from tree_support import Both, Build, Pair, same, trees

import lazytensor as lt
from lazytensor.bases import computed
from lazytensor.kernels import threads


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Blocks of 3 elements, run on threads from 4 elements: every path of a read, on tiny tensors."""
    monkeypatch.setattr(computed, "CACHE_BLOCK_ELEMENTS", 3)
    with threads.split_from(4):
        yield


def _is_computed(t: Any) -> bool:
    return bool(t.base.layer_name == "Computed")


_UNARY: list[Both] = [
    same(operator.neg),
    same(abs),
    same(lambda x: x * 2.5),
    same(lambda x: 1 - x),
    same(lambda x: x / 3),
    same(np.sqrt),
    (lambda t: lt.where(t > 0, t, -2 * t), lambda a: np.where(a > 0, a, -2 * a)),
    same(lambda x: x.clip(-1.0, 1.0)),
    (lambda t: lt.ttransform(t, lambda x: x * x), lambda a: a * a),
]
_VIEWS: list[Both] = [
    same(lambda x: x.T),
    same(lambda x: x[::-1] if x.ndim else x),
    same(lambda x: x[..., ::-2] if x.ndim else x),
    same(lambda x: x[None]),
]
_BINARY: list[Both] = [same(operator.add), same(operator.sub), same(operator.mul), same(operator.truediv)]


def _fit(left: Pair, right: Pair) -> Pair:
    """Views on the two sides made shapes that do not broadcast: a number on the right instead."""
    try:
        fits = np.broadcast_shapes(right[1].shape, left[1].shape) == left[1].shape
    except ValueError:
        fits = False
    return right if fits else (0.5, 0.5)


_tree = functools.partial(trees, _UNARY, _VIEWS, _BINARY, _fit)


@settings(max_examples=80, deadline=None)
@given(
    tree=_tree(),
    values=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
        elements=st.floats(-4, 4, width=64),
    ),
)
def test_random_expressions_under_lazy_equal_numpy_element_for_element(
    tree: Build, values: np.ndarray
) -> None:
    t = lt.tensor(values)
    with np.errstate(all="ignore"), lt.lazy():
        ours, theirs = tree((t, values))
    with np.errstate(all="ignore"):
        read = ours.numpy()
        expected = np.asarray(theirs)
        np.testing.assert_array_equal(read, expected)
        assert read.dtype == expected.dtype and read.shape == expected.shape
        if expected.ndim and expected.size:
            np.testing.assert_array_equal(ours[::-1].numpy(), expected[::-1])


@pytest.mark.usefixtures("small_blocks")
@settings(max_examples=40, deadline=None)
@given(tree=_tree(), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
def test_many_blocks_on_threads_give_numpy_s_values(tree: Build, shape: tuple[int, ...]) -> None:
    values = np.random.default_rng(len(shape)).uniform(-3, 3, size=shape)
    with np.errstate(all="ignore"), lt.lazy():
        ours, theirs = tree((lt.tensor(values), values))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ours.numpy(), np.asarray(theirs))


def test_operations_inside_the_block_are_computed_and_stay_computed_after_it() -> None:
    a, b = lt.arange(6.0).reshape(2, 3), lt.tensor([1.0, 2.0, 3.0])
    with lt.lazy():
        assert lt.get_options()["lazy"] is True
        r = a * 2 + b
        assert _is_computed(r) and _is_computed(np.exp(a)) and _is_computed(a > b)
    assert lt.get_options()["lazy"] is False
    assert not _is_computed(a * 2)
    after = (r - 1).T
    assert _is_computed(after.base)
    np.testing.assert_array_equal(after.numpy(), (np.arange(6.0).reshape(2, 3) * 2 + [1, 2, 3] - 1).T)


def test_the_block_unwinds_on_an_error_and_nests() -> None:
    with pytest.raises(ZeroDivisionError), lt.lazy():
        raise ZeroDivisionError
    assert lt.get_options()["lazy"] is False
    with lt.lazy(), lt.lazy():
        pass
    assert lt.get_options()["lazy"] is False
    with lt.lazy(), lt.options(lazy=False):
        assert not _is_computed(lt.ones(2) + 1)


def test_a_lazy_result_reads_its_operands_when_read() -> None:
    a = lt.zeros(3)
    with lt.lazy():
        r = a + 1
    a[1] = 10
    assert r.tolist() == [1.0, 11.0, 1.0]


def test_a_write_into_a_lazy_result_is_refused_and_changes_nothing() -> None:
    a = lt.arange(4.0)
    with lt.lazy():
        r = a * 2
    with pytest.raises(ValueError, match=r"cannot write to a computed tensor of shape \(4,\): it is mul"):
        r[0] = 5
    assert r.tolist() == [0.0, 2.0, 4.0, 6.0] and a.tolist() == [0.0, 1.0, 2.0, 3.0]
    copy = r.compute()
    copy[0] = 5
    assert copy.tolist() == [5.0, 2.0, 4.0, 6.0]


def test_an_operand_that_requires_grad_computes_at_once_and_records_its_gradient() -> None:
    x = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lt.lazy():
        y = x * x + 1
        assert not _is_computed(y)
        y.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0, 4.0, 6.0]


def test_operations_that_are_not_elementwise_run_in_memory_on_a_lazy_result() -> None:
    values = np.arange(12.0).reshape(3, 4)
    with lt.lazy():
        r = lt.tensor(values) / 2 + 1
        product = r @ r.T
        total = r.sum(0)
    expected = values / 2 + 1
    assert not _is_computed(product) and not _is_computed(total)
    np.testing.assert_allclose(product.numpy(), expected @ expected.T)
    np.testing.assert_allclose(total.numpy(), expected.sum(0))
    np.testing.assert_allclose(np.asarray(r.mean()), expected.mean())


def test_in_place_operations_under_lazy_write_into_their_tensor() -> None:
    a = lt.arange(4.0)
    with lt.lazy():
        a += 1
        a *= lt.tensor([1.0, 2.0, 1.0, 2.0])
    assert a.tolist() == [1.0, 4.0, 3.0, 8.0]


def test_printing_a_lazy_result_computes_only_what_is_shown() -> None:
    calls = 0

    def counted(x: float) -> float:
        nonlocal calls
        calls += 1
        return x + 1

    t = lt.arange(1_000_000.0).reshape(1000, 1000)
    with lt.lazy():
        r = lt.ttransform(t, counted)
    calls = 0
    text = repr(r)
    assert "computed" in text
    assert 0 < calls < 20_000, f"{calls:,} calls to print a million elements"


def test_reading_a_lazy_chain_holds_at_most_a_quarter_more_than_its_result() -> None:
    n = 4_000_000
    rng = np.random.default_rng(6)
    a, b, c = (lt.tensor(rng.random(n)) for _ in range(3))
    with lt.lazy():
        r = a * 2 + b - c / 3
    peak = peak_bytes(r.compute)
    assert peak <= 1.25 * n * 8, f"peak {peak / 1e6:.1f} MB for a result of {n * 8 / 1e6:.1f} MB"
    eager = peak_bytes(lambda: a * 2 + b - c / 3)
    assert eager >= 2 * n * 8  # what the block saves: numpy's temporaries


def _operand(form: str, values: np.ndarray) -> Any:
    """`values` as an operand of one of the forms `computed._reader` reads differently."""
    if form == "array":
        return values
    if form == "tensor":
        return lt.tensor(values)
    if form == "gathered":  # a view with no strided layout: read through a view made for each block
        return lt.tensor(values)[list(range(len(values)))]
    with lt.lazy():
        return lt.tensor(values) * 1.0  # form == "computed": read into its scratch


_FORMS = st.sampled_from(["array", "tensor", "gathered", "computed"])


@pytest.mark.usefixtures("small_blocks")
@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 7), cols=st.integers(1, 7), forms=st.tuples(_FORMS, _FORMS, _FORMS))
def test_operands_broadcast_along_size_1_axes_in_every_block(
    rows: int, cols: int, forms: tuple[str, str, str]
) -> None:
    """A (1, n) row, an (n, 1) column and a (1, 1) corner each read at their one position in every
    block of 3, blocks starting past it included."""
    rng = np.random.default_rng(rows * 8 + cols)
    grid, row, column, corner = (
        rng.uniform(-3, 3, size=s) for s in [(rows, cols), (1, cols), (rows, 1), (1, 1)]
    )
    expected = grid + row * column - corner
    with lt.lazy():
        ours = (
            lt.tensor(grid)
            + _operand(forms[0], row) * _operand(forms[1], column)
            - _operand(forms[2], corner)
        )
    assert _is_computed(ours)
    np.testing.assert_array_equal(ours.numpy(), expected)
    np.testing.assert_array_equal(ours[rows // 2 :, ::-1].numpy(), expected[rows // 2 :, ::-1])
    picks = [rows - 1, rows // 2], [cols - 1, 0]
    np.testing.assert_array_equal(ours[picks[0]][:, picks[1]].numpy(), expected[picks[0]][:, picks[1]])


@pytest.mark.usefixtures("small_blocks")
def test_numpy_s_error_state_where_an_operation_is_written_rules_its_blocks_on_threads() -> None:
    """A lazy result read after its `np.errstate` ended, its blocks on threads, warns or raises as
    numpy's eager operation did where it was written."""
    values = np.tile([0.0, 1.0, 2.0], 20)
    with lt.lazy():
        with np.errstate(divide="ignore", invalid="ignore"):
            quiet = np.log(lt.tensor(values)) / lt.tensor(values)
        with np.errstate(divide="raise"):
            loud = 1 / lt.tensor(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = np.log(values) / values
        np.testing.assert_array_equal(quiet.numpy(), expected)
    with pytest.raises(FloatingPointError, match="divide by zero"):
        loud.numpy()

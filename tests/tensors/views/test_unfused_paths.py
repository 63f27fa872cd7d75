"""Every read, write and gradient path against numpy, on stacks of views that do not fuse.

A stack fuses when every layer has a strided `Layout`; then reading is one numpy view
and most per-layer code is never run. These tests build stacks with at least one layer
that has no layout (a reshape of a transposed view, a list that is not an arithmetic
progression, an index block, a boolean mask, `oindex`), so that each wrapper's own
`translate` and `translate_batch` carry the positions down, and they check:

- single-element reads: `t.get(pos)`, `t[i, j, ...]`, `t.locate(pos)` and a walk of
  `translate` / `translate_batch` through every layer to the storage position;
- whole reads through both ways of evaluating an unfused stack: the gather path (a
  small result above a big unfused layer: positions sent down with `translate_batch`)
  and the materialise path (the unfused layer copied whole, the layers above re-stacked);
- writes through `t.set`, `t[pos] = v`, `t[...] = v`, `t[key] = v` with basic and fancy keys;
- gradients of a weighted sum, against numpy's scatter-add of the weights.

The numpy reference of a stack is the same steps applied to `arange(n).reshape(shape)`:
its values are the storage index of every position (numpy's fancy indexing copies, so
the reference says where a write must land; it never writes through numpy itself).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import (
    Op,
    apply_ops,
    base_pair,
    basic_keys,
    describe,
    fancy_keys,
    unfused_stacks,
)

import lazytensor as lt

WRAPPERS = (lt.TransposedTensor, lt.ReshapedTensor, lt.SlicedTensor, lt.ExpandedTensor, lt.IndexedTensor)

# Budgets: each unfused stack has >= 2 axes of size >= 2 and one layer that cannot fuse by
# construction, so every example is a case that matters; 100 examples reach each of the
# five unfusing kinds (and each wrapper above them) many times over. The gather and
# materialise tests filter on the size ratio, which holds for most examples of their kind.
READS = settings(max_examples=100, deadline=None)
WRITES = settings(max_examples=120, deadline=None)
GRADS = settings(max_examples=80, deadline=None)


def lowest_unfused(t: lt.AbstractTensor) -> lt.AbstractTensor:
    """The layer that has no layout while the tensor below it has one (found with the public API)."""
    layers = t.layers
    for layer, below in zip(reversed(layers[:-1]), reversed(layers[1:]), strict=True):
        if layer.layout is None and below.layout is not None:
            return layer
    raise AssertionError("the stack fuses")


def positions(shape: tuple[int, ...], limit: int = 24) -> list[tuple[int, ...]]:
    """Up to `limit` positions spread over `shape`, every other one written with negative indices."""
    every = list(np.ndindex(*shape))
    picked = every[:: max(1, len(every) // limit)][:limit]
    if every and every[-1] not in picked:
        picked.append(every[-1])
    return [
        tuple(p - n for p, n in zip(pos, shape, strict=True)) if k % 2 else pos
        for k, pos in enumerate(picked)
    ]


def walk_down(t: lt.AbstractTensor, pos: tuple[int, ...]) -> int:
    """The storage index of `pos` by `translate` through every wrapper, ignoring every layout."""
    layer = t
    while isinstance(layer, WRAPPERS):
        pos = layer.translate(pos)
        layer = layer.wrapped
    return int(np.ravel_multi_index(pos, layer.shape)) if layer.shape else 0


def walk_down_batch(t: lt.AbstractTensor) -> np.ndarray:
    """Every storage index by `translate_batch` through every wrapper, ignoring every layout."""
    arrays = tuple(np.indices(t.shape, sparse=True))
    layer = t
    while isinstance(layer, WRAPPERS):
        arrays = layer.translate_batch(arrays)
        layer = layer.wrapped
    flat = np.ravel_multi_index(np.broadcast_arrays(*arrays), layer.shape) if layer.shape else 0
    return np.broadcast_to(flat, t.shape)


def built(
    chain: tuple[tuple[int, ...], list[Op]], fused: bool = False
) -> tuple[lt.AbstractTensor, np.ndarray]:
    """The stack on `arange` storage and its numpy reference; unfused unless `fused` says it may be."""
    shape, ops = chain
    t, ref = apply_ops(*base_pair(shape), ops)
    assert fused or t.layout is None, describe(ops)
    assert t.shape == ref.shape, describe(ops)
    return t, ref


def check_whole_read(t: lt.AbstractTensor, ref: np.ndarray) -> None:
    """numpy() (an ndarray, 0-d included), np.asarray, tolist and contiguous() all equal numpy's."""
    values = t.numpy()
    assert isinstance(values, np.ndarray), type(values)
    np.testing.assert_array_equal(values, ref)
    assert t.tolist() == ref.tolist()
    copy = t.contiguous()
    assert copy.is_contiguous() and copy.layout is not None
    np.testing.assert_array_equal(copy.numpy(), ref)
    np.testing.assert_array_equal(np.asarray(t), ref)


# -- reads ------------------------------------------------------------------------------------


@READS
@given(unfused_stacks())
def test_single_element_reads_on_unfused_stacks(chain: tuple[tuple[int, ...], list[Op]]) -> None:
    """get, an all-int key, locate, and translate through every layer all land on numpy's element."""
    t, ref = built(chain)
    values = t.storage
    for pos in positions(t.shape):
        expected = int(ref[pos])
        assert t.locate(pos) == expected, (describe(chain[1]), pos)
        assert t.get(pos) == values[expected], (describe(chain[1]), pos)
        assert t[pos] == values[expected], (describe(chain[1]), pos)
        plain = tuple(p % n for p, n in zip(pos, t.shape, strict=True))
        assert walk_down(t, plain) == expected, (describe(chain[1]), pos)
    np.testing.assert_array_equal(walk_down_batch(t), ref)


@READS
@given(unfused_stacks(shrink=True))
def test_whole_reads_through_the_gather_path(chain: tuple[tuple[int, ...], list[Op]]) -> None:
    """A few edge items of a big unfused layer: numpy(), tolist() and contiguous() gather them."""
    t, ref = built(chain)
    big = lowest_unfused(t).numel() > 4 * t.numel()
    event("gather" if big else "materialise")
    check_whole_read(t, ref)


@READS
@given(unfused_stacks(shrink=False))
def test_whole_reads_through_the_materialise_path(chain: tuple[tuple[int, ...], list[Op]]) -> None:
    """A result about the size of its unfused layer: that layer is copied whole, the rest re-stacked."""
    t, ref = built(chain)
    event("materialise" if lowest_unfused(t).numel() <= 4 * t.numel() else "gather")
    check_whole_read(t, ref)


def test_the_generated_stacks_reach_both_read_paths() -> None:
    """The two read tests above are only as good as the stacks they get: count the paths they reach."""
    ratios: dict[bool, list[bool]] = {True: [], False: []}

    @settings(max_examples=60, deadline=None, derandomize=True, database=None)
    @given(st.data())
    def sample(data: st.DataObject) -> None:
        shrink = data.draw(st.booleans())
        t, _ = built(data.draw(unfused_stacks(shrink=shrink)))
        if t.numel():
            ratios[shrink].append(lowest_unfused(t).numel() > 4 * t.numel())

    sample()
    gathered = sum(ratios[True]) / max(len(ratios[True]), 1)
    materialised = 1 - sum(ratios[False]) / max(len(ratios[False]), 1)
    assert gathered > 0.5, gathered
    assert materialised > 0.5, materialised


# -- writes -----------------------------------------------------------------------------------


@WRITES
@given(unfused_stacks(), st.data())
def test_writes_through_unfused_stacks_land_where_numpy_says(
    chain: tuple[tuple[int, ...], list[Op]], data: st.DataObject
) -> None:
    """set, t[pos] =, t[...] = and t[key] = with basic and fancy keys; expanded stacks refuse.

    A written value encodes its target storage index (`marker + index`), so positions that
    share an element (repeated list entries) write the same value and the order of the
    writes cannot matter, while a position sent to the wrong element shows.
    """
    t, ref = built(chain)
    base = t.storage
    expected = base.copy()
    if any(isinstance(layer, lt.ExpandedTensor) for layer in t.layers):
        with pytest.raises(ValueError, match="expanded view"):
            t[...] = 0
        with pytest.raises(ValueError, match="expanded view"):
            t.set((0,) * t.ndim, 0) if t.numel() else t.__setitem__(..., 0)
        np.testing.assert_array_equal(base, expected)
        return

    for pos in positions(t.shape, limit=12):
        t.set(pos, 1000 + ref[pos])
        expected[ref[pos]] = 1000 + ref[pos]
    np.testing.assert_array_equal(base, expected, err_msg=str(describe(chain[1])))
    for pos in positions(t.shape, limit=12):
        t[pos] = 2000 + ref[pos]
        expected[ref[pos]] = 2000 + ref[pos]
    np.testing.assert_array_equal(base, expected, err_msg=str(describe(chain[1])))

    t[...] = 3000 + ref
    expected[ref] = 3000 + ref
    np.testing.assert_array_equal(base, expected, err_msg=str(describe(chain[1])))

    key = data.draw(basic_keys(t.shape) | fancy_keys(t.shape), label="key")
    selected = ref[key]  # numpy copies: the storage indices the key selects
    t[key] = 4000 + selected
    expected[selected] = 4000 + selected
    np.testing.assert_array_equal(base, expected, err_msg=f"{describe(chain[1])} then [{key}]")
    t[key] = -1  # a scalar broadcast to the whole selection
    expected[selected] = -1
    np.testing.assert_array_equal(base, expected, err_msg=f"{describe(chain[1])} then [{key}] = -1")

    if np.unique(ref).size == ref.size:  # no shared elements: any values, not only markers
        values = np.random.default_rng(ref.size).integers(-99, 99, size=ref.shape)
        t[...] = values
        expected[ref] = values
        np.testing.assert_array_equal(base, expected, err_msg=str(describe(chain[1])))


# -- gradients --------------------------------------------------------------------------------


def expected_grad(ref: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """numpy's scatter-add of the weights onto the storage index each position reads."""
    grad = np.zeros(size)
    np.add.at(grad, ref.ravel(), np.broadcast_to(weights, ref.shape).ravel())
    return grad


def weighted_sum_grad(shape: tuple[int, ...], ops: list[Op], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(gradient from backward, numpy's scatter-add) for `(view * w).sum()` on a float leaf."""
    rng = np.random.default_rng(seed)
    leaf = lt.tensor(rng.normal(size=shape), requires_grad=True)
    view, ref = apply_ops(leaf, np.arange(math.prod(shape)).reshape(shape), ops)
    weights = rng.normal(size=ref.shape)
    (view * weights).sum().backward()
    assert leaf.grad is not None
    return leaf.grad.numpy().ravel(), expected_grad(ref, weights, math.prod(shape))


@GRADS
@given(unfused_stacks(), st.integers(0, 2**16))
def test_gradients_through_unfused_stacks(chain: tuple[tuple[int, ...], list[Op]], seed: int) -> None:
    """backward of a weighted sum scatters each weight onto the element its position reads."""
    shape, ops = chain
    got, want = weighted_sum_grad(shape, ops, seed)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=str(describe(ops)))


# -- the named cases, one by one ------------------------------------------------------------------


def op(description: str, key: Any) -> Op:
    """A view step given as a function of the tensor that works the same on numpy arrays."""
    return description, key, key, False


def perm(*axes: int) -> Op:
    """`permute(*axes)`, numpy's `transpose(axes)`."""
    return f"permute{axes}", lambda t: t.permute(*axes), lambda a: a.transpose(axes), True


def _stretch(a: Any) -> Any:
    return np.broadcast_to(a, (2, 3, 5)) if isinstance(a, np.ndarray) else a.expand(2, 3, 5)


NAMED: dict[str, tuple[tuple[int, ...], list[Op]]] = {
    # a permutation of three axes that is not its own inverse, over and under unfused layers
    "permute(1, 2, 0)": ((2, 3, 4), [perm(1, 2, 0)]),
    "permute(2, 0, 1).reshape(-1)": (
        (2, 3, 4),
        [perm(2, 0, 1), op("flat", lambda a: a.reshape(-1))],
    ),
    "[:, [0, 2, 1]].permute(1, 2, 0)": (
        (2, 3, 4),
        [op("list", lambda a: a[:, [0, 2, 1]]), perm(1, 2, 0)],
    ),
    "T.reshape(-1)": ((3, 5), [op("T", lambda a: a.T), op("flat", lambda a: a.reshape(-1))]),
    "T.reshape(-1)[:3] (gather)": (
        (6, 7),
        [op("T", lambda a: a.T), op("flat", lambda a: a.reshape(-1)), op("edge", lambda a: a[:3])],
    ),
    # an offset below the unfused layer (a slice that does not start at 0), read by gathering
    "[1:, 2:].T.reshape(-1)[:3] (gather, offset)": (
        (6, 7),
        [
            op("slice", lambda a: a[1:, 2:]),
            op("T", lambda a: a.T),
            op("flat", lambda a: a.reshape(-1)),
            op("edge", lambda a: a[:3]),
        ],
    ),
    # an index block in the middle stays in place; separated arrays move the block first
    "[:, [0, 2], [1, 1], :]": ((2, 3, 4, 5), [op("block", lambda a: a[:, [0, 2], [1, 1], :])]),
    "[:, [0, 2, 1], [1, 1, 3], :]": ((2, 3, 4, 5), [op("block", lambda a: a[:, [0, 2, 1], [1, 1, 3], :])]),
    "[:, [[2], [0]], [1, 3, 0], :]": ((2, 3, 4, 5), [op("block", lambda a: a[:, [[2], [0]], [1, 3, 0], :])]),
    "[[1, 0, 1], :, [3, 1, 2]]": ((2, 3, 4), [op("separated", lambda a: a[[1, 0, 1], :, [3, 1, 2]])]),
    # adjacent arrays with an (empty) `...` between them: numpy moves the block first all the same
    "[:, [[1], [0]], ..., [2, 0, 3]]": (
        (2, 3, 4),
        [op("block first", lambda a: a[:, [[1], [0]], ..., [2, 0, 3]])],
    ),
    "[:, [2, 0, 1], :, [0, 4, 1]]": (
        (2, 3, 4, 5),
        [op("separated", lambda a: a[:, [2, 0, 1], :, [0, 4, 1]])],
    ),
    # a transpose over a fancy view, an expand over a fancy view, a mask under a reshape
    "[:, [0, 2, 1]].T": ((3, 4), [op("list", lambda a: a[:, [0, 2, 1]]), op("T", lambda a: a.T)]),
    "[[2, 0, 1]][:, 1:2].expand(2, 3, 5)": (
        (3, 4),
        [
            op("list", lambda a: a[[2, 0, 1]]),
            op("one", lambda a: a[:, 1:2]),
            ("expand", _stretch, _stretch, True),
        ],
    ),
    "mask.reshape": (
        (4, 3),
        [op("mask", lambda a: a[np.array([True, False, True, True])]), op("r", lambda a: a.reshape(3, 3))],
    ),
}


def _broadcast(a: Any) -> Any:
    return np.broadcast_to(a, (2, 3, 2, 4)) if isinstance(a, np.ndarray) else a.expand(2, 3, 2, 4)


NAMED["[[2, 0, 1]][:, None].expand"] = (
    (3, 4),
    [
        op("list", lambda a: a[[2, 0, 1]]),
        op("new", lambda a: a[:, None]),
        ("expand", _broadcast, _broadcast, True),
    ],
)


def test_numpy_of_a_0d_unfused_view_is_an_array() -> None:
    """A 0-d view read through the gather path is a 0-d ndarray, so np.asarray(t) works.

    The gather path ends in `storage.take(indices)`, and `take` with a 0-d index returns a
    numpy scalar, not an array; `__array__` then hands numpy a scalar and np.asarray raises.
    """
    t = lt.arange(6).reshape(2, 3).T.reshape(-1)[0, ...]
    assert t.shape == () and t.layout is None
    assert isinstance(t.numpy(), np.ndarray)
    assert np.asarray(t).shape == ()
    assert np.asarray(t) == 0


@pytest.mark.parametrize("name", list(NAMED))
def test_named_stack_reads_element_by_element_and_whole(name: str) -> None:
    """Each named case: every position by get / t[pos] / locate / translate, and the whole read."""
    t, ref = built(NAMED[name], fused=True)
    for pos in np.ndindex(*t.shape):
        assert t.get(pos) == ref[pos] == t[pos] == t.locate(pos), (name, pos)
        assert walk_down(t, pos) == ref[pos], (name, pos)
    np.testing.assert_array_equal(walk_down_batch(t), ref)
    check_whole_read(t, ref)


@pytest.mark.parametrize("name", list(NAMED))
def test_named_stack_writes_and_gradients(name: str) -> None:
    """Each named case: writes land on numpy's storage indices (or refuse, for expand); gradients add up."""
    shape, ops = NAMED[name]
    t, ref = built(NAMED[name], fused=True)
    if any(isinstance(layer, lt.ExpandedTensor) for layer in t.layers):
        with pytest.raises(ValueError, match="expanded view"):
            t.set((0,) * t.ndim, 1)
    else:
        expected = t.storage.copy()
        last = tuple(n - 1 for n in t.shape)
        t.set(last, -7)
        expected[ref[last]] = -7
        t[...] = 100 + ref
        expected[ref] = 100 + ref
        np.testing.assert_array_equal(t.storage, expected)
    got, want = weighted_sum_grad(shape, ops, seed=3)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_single_element_reads_through_a_size_1_axis_over_an_unfused_layer() -> None:
    ref = np.arange(12).reshape(3, 1, 4)[[2, 0, 1]].squeeze(1)
    stack = lt.arange(12).reshape(3, 1, 4)[[2, 0, 1]].squeeze(1)  # [2, 0, 1] is no progression: no layout
    assert stack.wrapped.layout is None
    for i, j in np.ndindex(*ref.shape):
        assert stack[i, j] == ref[i, j]

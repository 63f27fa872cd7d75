"""Random chains of views against numpy: shapes, values, the three read paths, writes, fusion.

Reaches into `lazytensor.tensors.evaluate` and `lazytensor.ground.positions`: the three read paths
are called one by one and compared.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import base_pair, chains

import lazytensor as lt
from lazytensor.ground.positions import open_grid
from lazytensor.tensors import evaluate


def _apply(shape, ops):
    t, ref = base_pair(shape)
    steps = [(t, ref, True)]
    viewable = True
    for _, lt_step, np_step, numpy_views in ops:
        t, ref = lt_step(t), np_step(ref)
        viewable = viewable and numpy_views
        steps.append((t, ref, viewable))
    return steps


@settings(max_examples=300, deadline=None)
@given(chains())
def test_every_step_matches_numpy(chain) -> None:
    shape, ops = chain
    for t, ref, _ in _apply(shape, ops):
        assert t.shape == ref.shape, [op[0] for op in ops]
        np.testing.assert_array_equal(t.numpy(), ref)
        assert t.tolist() == ref.tolist()


@settings(max_examples=200, deadline=None)
@given(chains())
def test_translate_batch_and_layout_agree(chain) -> None:
    """The per-position path, the batched path and the fused layout give the same storage index."""
    shape, ops = chain
    t = _apply(shape, ops)[-1][0]
    ref = _apply(shape, ops)[-1][1]
    batched = evaluate.storage_indices(t)
    np.testing.assert_array_equal(batched, ref)
    for pos in list(np.ndindex(*t.shape))[:50]:
        assert t.locate(pos) == ref[pos]
        assert t.get(pos) == ref[pos]
    if t.layout is not None and t.numel():
        fused = t.layout.index_batch(open_grid(t.shape))
        np.testing.assert_array_equal(np.broadcast_to(fused, t.shape), ref)


@settings(max_examples=200, deadline=None)
@given(chains())
def test_layout_exists_whenever_numpy_views(chain) -> None:
    """If numpy can take each step without copying, the stack fuses and numpy() is zero-copy."""
    shape, ops = chain
    np_view = np.arange(math.prod(shape)).reshape(shape)
    for description, _, np_step, numpy_views in ops:
        if numpy_views:
            np_view = np_step(np_view)
        elif description.startswith(("reshape", "flatten")):
            target = np_step(np.empty(np_view.shape)).shape
            try:
                np_view = np.reshape(np_view, target, copy=False)
            except ValueError:
                return  # numpy would copy here: no claim
        else:
            return  # fancy indexing copies in numpy: covered by the progression tests
    t = _apply(shape, ops)[-1][0]
    assert t.layout is not None, [op[0] for op in ops]
    if t.numel():
        assert np.shares_memory(t.numpy(), t.storage)


@settings(max_examples=200, deadline=None)
@given(chains(), st.integers(0, 2**16))
def test_writes_land_where_numpy_index_arithmetic_says(chain, seed) -> None:
    shape, ops = chain
    t, ref, _ = _apply(shape, ops)[-1]
    if any(isinstance(layer, lt.ExpandedTensor) for layer in t.layers):
        return
    if len(np.unique(ref)) != ref.size:  # repeated positions: last-write-wins is unspecified
        return
    values = np.random.default_rng(seed).integers(1000, 2000, size=ref.shape)
    expected = np.arange(t.storage.size)
    expected[ref] = values
    t[...] = values
    np.testing.assert_array_equal(t.storage, expected)


@pytest.mark.parametrize("factor", [0, 10**9], ids=["always-gather", "always-materialise"])
@settings(max_examples=150, deadline=None)
@given(chain=chains())
def test_both_ways_of_reading_an_unfused_stack(factor, chain) -> None:
    shape, ops = chain
    t, ref, _ = _apply(shape, ops)[-1]
    with mock.patch.object(evaluate, "MATERIALISE_FACTOR", factor):
        np.testing.assert_array_equal(t.numpy(), ref)
        copy = t.clone()
    np.testing.assert_array_equal(copy.numpy(), ref)
    assert copy.is_contiguous() and (ref.size == 0 or not copy.shares_storage(t))

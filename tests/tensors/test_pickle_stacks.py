"""Pickling tensors and stacks of views: any depth, no stale cached values, one base shared.

A view pickles as its bottom tensor plus each layer's class and parameters, gathered by a loop: the
default way recursed once per layer and a 20,000-layer stack raised RecursionError. Cached values
(the zero-copy view of a fused stack) are never pickled: they would come back as copies that the
next write to the base leaves stale.
"""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import given
from strategies import apply_ops, base_pair, chains, describe

import lazytensor as lt


def test_a_20000_layer_stack_round_trips() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    stack = t
    for i in range(20_000):
        stack = stack.T if i % 2 else stack[::-1]
    copy = pickle.loads(pickle.dumps(stack))
    assert len(copy.layers) == len(stack.layers) > 20_000
    assert copy.tolist() == stack.tolist()
    copy.set((0, 1), -1.0)  # writes reach the unpickled base, through all the layers
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # and not the original's
    stack.set((0, 1), -1.0)
    assert copy.base.tolist() == stack.base.tolist() != [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@given(chain=chains())
def test_unpickled_views_match_numpy_and_write_through_to_one_base(chain) -> None:
    shape, ops = chain
    t, ref = apply_ops(*base_pair(shape), ops)
    t.numpy()  # a read first, so any cached values exist when pickling
    base, view = pickle.loads(pickle.dumps((t.base, t)))
    assert view.base is base, describe(ops)
    np.testing.assert_array_equal(view.numpy(), ref, err_msg=str(describe(ops)))
    base[...] = -np.arange(base.numel()).reshape(base.shape)  # every storage value changes sign
    np.testing.assert_array_equal(view.numpy(), -ref, err_msg=str(describe(ops)))


def test_a_read_storage_tensor_pickles_its_buffer_once_and_stays_live() -> None:
    t = lt.zeros(10_000)
    t.numpy()
    data = pickle.dumps(t)
    assert len(data) < 1.1 * 8 * 10_000  # the buffer, not also a copy of its cached view
    copy = pickle.loads(data)
    copy.set((0,), 5.0)
    assert copy.numpy()[0] == 5.0 and copy[0] == 5.0


def test_a_zero_d_view_of_objects_pickles_live() -> None:
    t = lt.tensor(np.array([1, "a"], dtype=object))
    v = t[0, ...]
    v.item()
    t2, v2 = pickle.loads(pickle.dumps((t, v)))
    t2[0] = "new"
    assert v2.item() == "new"

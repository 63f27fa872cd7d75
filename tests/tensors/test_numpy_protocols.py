"""numpy's protocols on a tensor, against numpy's behaviour on an array: `np.asarray` shares memory
and `np.array` copies (`__array__`'s `copy`), a dtype asked for is the dtype given, and a ufunc that
is not in the operation table runs on the values with its keywords, one tensor per output."""

from __future__ import annotations

import numpy as np

import lazytensor as lt


def test_asarray_shares_the_memory_and_array_copies_it_as_for_an_array() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    shared = np.asarray(t)
    assert np.shares_memory(shared, t.numpy())
    assert np.shares_memory(np.asarray(t, dtype=np.float64), t.numpy())  # its own dtype: no copy
    copied = np.array(t)
    copied[0, 0] = -1.0
    assert t[0, 0] == 0.0 and not np.shares_memory(copied, t.numpy())
    assert np.asarray(t, dtype=np.float32).dtype == np.float32


def test_a_ufunc_outside_the_table_takes_its_keywords() -> None:
    values = np.array([1.0, 2.5, -3.0])
    got = np.add(lt.tensor(values), 1, dtype=np.float32)
    assert isinstance(got, lt.AbstractTensor) and got.dtype == np.float32
    np.testing.assert_array_equal(got.numpy(), np.add(values, 1, dtype=np.float32))


def test_a_ufunc_with_two_outputs_gives_two_tensors() -> None:
    values = np.array([1.5, -2.25, 3.0])
    got = np.modf(lt.tensor(values))
    expected = np.modf(values)
    assert type(got) is tuple and len(got) == 2
    for mine, numpys in zip(got, expected, strict=True):
        assert isinstance(mine, lt.AbstractTensor) and mine.dtype == numpys.dtype
        np.testing.assert_array_equal(mine.numpy(), numpys)

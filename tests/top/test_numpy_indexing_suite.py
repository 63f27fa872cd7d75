"""numpy's own automated indexing tests (`numpy/_core/tests/test_indexing.py`,
`TestMultiIndexingAutomated`, shipped in numpy's wheel), run against lazytensor: every index they
build (ints, slices, Ellipsis, None, lists, int and bool arrays, in every position, on a 4-d array
and on one with an empty axis) is read and written through a tensor and through numpy, and the two
must agree: the same values, dtype and shape, or the same exception type; a write changes the same
elements. numpy's checks of its own view-or-copy choice and refcounts are left out: lazytensor's
fancy indexing is a write-through view on purpose (docs/numpy.md).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

suite = pytest.importorskip("numpy._core.tests.test_indexing")
Automated: Any = suite.TestMultiIndexingAutomated

CHECKED: list[int] = [0]
"""Indices compared: 2,470 with numpy 2.4 (its tests build them; the test after the class counts)."""


def _outcome(action: Any) -> tuple[str, Any]:
    try:
        return "value", action()
    except Exception as error:  # the type is what is compared
        return "error", type(error)


def check(arr: np.ndarray, index: Any) -> None:
    """Read and write `arr[index]` through numpy and through a tensor: the same outcome."""
    CHECKED[0] += 1
    where = f"arr{arr.shape}[{index!r}]"
    kind, expected = _outcome(lambda: np.asarray(arr[index]).copy())
    got_kind, got = _outcome(lambda: np.asarray(lt.tensor(arr)[index].numpy()))
    if kind == "error":
        assert (got_kind, got) == (kind, expected), f"{where}: numpy raises {expected.__name__}, not {got!r}"
        theirs, ours = arr.copy(), lt.tensor(arr)
        write_error = _outcome(lambda: theirs.__setitem__(index, 0))
        assert _outcome(lambda: ours.__setitem__(index, 0))[0] == write_error[0], f"writing {where}"
        return
    assert got_kind == "value", f"{where}: numpy reads it, lazytensor raises {got.__name__}"
    assert got.shape == expected.shape and got.dtype == expected.dtype, where
    np.testing.assert_array_equal(got, expected)
    theirs, ours = arr.copy(), lt.tensor(arr.copy())
    theirs[index] = expected + 1000
    ours[index] = expected + 1000
    np.testing.assert_array_equal(ours.numpy(), theirs)


class TestNumpysAutomatedIndexing(Automated):  # type: ignore[misc]
    """numpy's tests, each index checked by `check` instead of numpy's mimic."""

    def _check_multi_index(self, arr: np.ndarray, index: Any) -> None:
        check(arr, index)

    def _check_single_index(self, arr: np.ndarray, index: Any) -> None:
        check(arr, index)


def test_the_suite_checked_thousands_of_indices() -> None:
    """Run after the class above (pytest keeps the file's order): the suite really ran."""
    assert CHECKED[0] >= 2_000, CHECKED[0]


def test_the_suite_module_is_numpy_s() -> None:
    assert importlib.import_module("numpy").__version__ and suite.__name__.startswith("numpy.")


def test_a_wrong_answer_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a tensor that reads other values, or raises another error, is caught."""
    arr = np.arange(12).reshape(3, 4)
    monkeypatch.setattr(lt, "tensor", lambda values: lt.from_array(np.asarray(values)[::-1].copy()))
    with pytest.raises(AssertionError):
        check(arr, (1, [0, 2]))
    monkeypatch.setattr(lt, "tensor", lambda values: lt.zeros((5, 5), dtype=np.asarray(values).dtype))
    with pytest.raises(AssertionError):
        check(arr[:, :1], (0, 3))  # numpy: IndexError; the patched tensor: a value
    monkeypatch.undo()
    check(arr, (1, [0, 2]))

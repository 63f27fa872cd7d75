"""Refusals of numpy's keywords in words: the function, what was wrong and the value given."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import lazytensor as lt


@pytest.mark.parametrize(
    ("reps", "error", "words"),
    [
        (1.5, TypeError, "tile: a count must be an int, got 1.5 (float)"),
        ([2, "x"], TypeError, "tile: a count must be an int, got 'x' (str)"),
        (-1, ValueError, "tile: a count must not be negative, got -1"),
        ([1, -2], ValueError, "tile: a count must not be negative, got -2"),
    ],
)
def test_tile_refuses_a_count_that_is_not_a_non_negative_int(reps: Any, error: type, words: str) -> None:
    with pytest.raises(error) as caught:
        lt.arange(3).tile(reps)
    assert str(caught.value) == words


@pytest.mark.parametrize("reps", [True, np.int8(2), [np.uint16(1), 2]])
def test_tile_takes_any_int_numpy_takes_as_a_count(reps: Any) -> None:
    assert lt.arange(3).tile(reps).tolist() == np.tile(np.arange(3), reps).tolist()


@pytest.mark.parametrize("out", [[0.0], np.zeros(()), 0.0])
def test_a_reduction_refuses_an_out_that_is_not_a_tensor_naming_its_type(out: Any) -> None:
    with pytest.raises(TypeError) as caught:
        lt.arange(3.0).sum(out=out)
    assert str(caught.value) == f"sum: out must be a tensor, got {type(out).__name__}"


def test_lt_seed_warns_once_from_the_callers_line_and_is_lt_tenxor() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = lt.seed  # the warning points here
    assert old is lt.tenxor
    [warning] = caught
    assert warning.category is DeprecationWarning and warning.filename == __file__
    assert (
        str(warning.message) == "lt.seed is deprecated and will be removed in the next release: use lt.tenxor"
    )


def test_an_unknown_name_of_the_module_is_pythons_attribute_error() -> None:
    with pytest.raises(AttributeError) as caught:
        lt.no_such_function  # noqa: B018
    assert str(caught.value) == "module 'lazytensor' has no attribute 'no_such_function'"

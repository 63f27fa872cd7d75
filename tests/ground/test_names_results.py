"""Which names an operation's result gets, at the edges of the rules: no operands or one, a
reduction over every axis that keeps them, a 0-d operand given an axis, and the operations the rules
do not name (their results are unnamed, whatever their operands' names).

Reaches into `lazytensor.ground.naming`: the names of a broadcast of no operands are the rule's own
answer, which no operation asks for.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.ground.naming import broadcast_names


def test_no_operands_broadcast_to_the_names_of_a_0d_result() -> None:
    assert broadcast_names([]) == () == np.broadcast_shapes()


@pytest.mark.parametrize("names", [("trial", "time"), ("trial", None), (None, "time")])
def test_joining_one_named_tensor_keeps_its_names(names: tuple[Any, ...]) -> None:
    t = lt.zeros(2, 3, names=names)
    assert lt.cat([t]).names == names
    assert lt.cat([t], axis=1).names == names
    assert lt.concatenate([t]).names == names
    assert lt.stack([t]).names == (None, *names)
    assert lt.stack([t], axis=-1).names == (*names, None)


REDUCTIONS = ["sum", "mean", "prod", "max", "min", "var", "std", "all", "any", "nansum", "nanmax"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_a_reduction_over_every_axis_with_keepdims_keeps_the_names(name: str) -> None:
    t = lt.ones(2, 3, names=("trial", "time"))
    kept = getattr(t, name)(keepdims=True)
    assert kept.shape == getattr(np, name)(np.ones((2, 3)), keepdims=True).shape == (1, 1)
    assert kept.names == ("trial", "time")
    assert getattr(t, name)(keepdim=True).names == ("trial", "time")
    assert getattr(t, name)().names == ()


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "all", "any"])
def test_the_array_apis_reduction_over_every_axis_with_keepdims_keeps_the_names(name: str) -> None:
    t = lt.ones(2, 3, names=("trial", "time"))
    assert getattr(lt, name)(t, keepdims=True).names == ("trial", "time")
    assert getattr(lt, name)(t).names == ()


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "all", "any", "argmax", "argmin"])
def test_a_0d_view_of_a_named_tensor_reduced_over_an_axis_is_numpys_axis_error(name: str) -> None:
    scalar = lt.zeros(3, names=("trial",))[:1].reshape(())  # a view over a named base
    with pytest.raises(np.exceptions.AxisError):
        getattr(np, name)(np.zeros(()), axis=1)
    with pytest.raises(np.exceptions.AxisError):
        getattr(lt, name)(scalar, axis=1)


def test_solve_does_not_name_its_result_by_matmuls_rule() -> None:
    # x = solve(a, b) has a's columns as rows: matmul's rule (a's rows, b's columns) would misname it
    a = lt.tensor(np.eye(3) * 2, names=("row", "col"))
    b = lt.ones(3, 3, names=("row", "col"))
    assert lt.linalg.solve(a, b).names == (None, None)


def test_take_along_axis_leaves_its_result_unnamed_whatever_the_indices_names() -> None:
    x = lt.tensor(np.arange(6.0).reshape(2, 3), names=("a", "b"))
    index = lt.tensor(np.zeros((2, 3), dtype=int), names=("b", "a"))
    taken = lt.take_along_axis(x, index, axis=1)
    np.testing.assert_array_equal(taken.numpy(), np.take_along_axis(x.numpy(), index.numpy(), axis=1))
    assert taken.names == (None, None)

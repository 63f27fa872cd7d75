"""The naming rules as functions: which names a matmul or a stack gives, and which arguments name axes.

`test_names_ops.py` checks the names of results through the operations; these pin the rules' own
answers at their edges (a 0-d operand, a `dim` just out of range, an axis given as a numpy int).

Reaches into `lazytensor.ground.naming`: the rules are pinned as functions at edges the operations
refuse before asking them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.ground.naming import matmul_names, stacked_names


@pytest.mark.parametrize(
    ("left", "right"),
    [(((), ()), (("row", "col"), (2, 3))), ((("row", "col"), (2, 3)), ((), ())), (((), ()), ((), ()))],
)
def test_matmul_of_a_0d_operand_has_no_names(left: Any, right: Any) -> None:
    assert matmul_names(left, right) is None  # the kernel refuses it, as numpy's matmul does


@pytest.mark.parametrize(
    ("left", "right", "names"),
    [
        ((("k",), (3,)), (("k", "col"), (3, 4)), ("col",)),  # a 1-D left operand: its axis is contracted
        ((("row", "k"), (2, 3)), (("k",), (3,)), ("row",)),
        ((("k",), (3,)), (("k",), (3,)), ()),
    ],
)
def test_a_1d_operand_of_matmul_gives_no_name(left: Any, right: Any, names: tuple[Any, ...]) -> None:
    assert matmul_names(left, right) == names


def test_stack_names_its_new_axis_at_every_dim_in_range_and_gives_up_outside() -> None:
    operands = [(("trial", "time"), (2, 3))] * 2
    assert [stacked_names(operands, dim) for dim in range(-3, 3)] == [
        (None, "trial", "time"),
        ("trial", None, "time"),
        ("trial", "time", None),
        (None, "trial", "time"),
        ("trial", None, "time"),
        ("trial", "time", None),
    ]
    for dim in (-4, 3, None, 1.0, "time"):
        assert stacked_names(operands, dim) is None  # the kernel refuses these with numpy's error


@pytest.mark.parametrize("axis", [np.int64(0), np.intp(-3), np.int8(0)])
def test_numpy_ints_name_axes_where_ints_do(axis: Any) -> None:
    t, a = lt.zeros(1, 2, 1, names=("a", "b", "c")), np.zeros((1, 2, 1))
    assert t.squeeze(axis).shape == np.squeeze(a, axis).shape
    assert t.unsqueeze(axis).shape == np.expand_dims(a, axis).shape
    assert [part.shape for part in t.unbind(axis)] == [part.shape for part in np.moveaxis(a, axis, 0)]

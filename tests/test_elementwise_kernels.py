"""The kernels of `lazytensor.elementwise` and the public functions of `lazytensor.functions` at their
edges: every refusal's message in full, and the object (Fraction, Decimal) paths against Python's own
arithmetic."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

REFUSALS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (
        lambda: lt.tensor(2.0) @ lt.ones(2),
        ValueError,
        "matmul: shapes () and (2,): a 0-d operand has no matrix axes",
    ),
    (
        lambda: lt.ones(2) @ lt.tensor(2.0),
        ValueError,
        "matmul: shapes (2,) and (): a 0-d operand has no matrix axes",
    ),
    (
        lambda: lt.cat([lt.tensor(1.0), lt.tensor(2.0)]),
        ValueError,
        "cat: 0-d tensors have no axis to join along; use stack",
    ),
    (
        lambda: lt.cat([lt.zeros(2, 3), lt.zeros(2, 3), lt.zeros(2, 4)], dim=0),
        ValueError,
        "cat: tensor 0 of shape (2, 3) and tensor 2 of shape (2, 4) must have the same sizes "
        "except along dim 0",
    ),
    (
        lambda: lt.cat([lt.zeros(2, 3), lt.zeros(3)], dim=-1),
        ValueError,
        "cat: tensor 0 of shape (2, 3) and tensor 1 of shape (3,) must have the same sizes "
        "except along dim 1",
    ),
    (
        lambda: lt.stack([lt.zeros(2, 3), lt.zeros(2, 3), lt.zeros(3, 2)]),
        ValueError,
        "stack: tensor 0 of shape (2, 3) and tensor 2 of shape (3, 2) must have the same shape",
    ),
    (
        lambda: lt.where(lt.ones(2) > 0, 1.0),
        TypeError,
        "where takes the condition alone, or the condition and both a and b",
    ),
    (
        lambda: lt.where(lt.ones(2) > 0, b=1.0),
        TypeError,
        "where takes the condition alone, or the condition and both a and b",
    ),
    (lambda: lt.cat(()), TypeError, "cat takes a non-empty sequence of tensors, got tuple"),
    (lambda: lt.cat(lt.ones(2)), TypeError, "cat takes a non-empty sequence of tensors, got StorageTensor"),
    (lambda: lt.concatenate([]), TypeError, "concatenate takes a non-empty sequence of tensors, got list"),
    (
        lambda: lt.nonzero(lt.tensor(1)),
        ValueError,
        "nonzero of a 0-d tensor: index it as t[None] first, as numpy asks",
    ),
]


@pytest.mark.parametrize(("call", "error", "message"), REFUSALS)
def test_refusals_say_what_is_wrong_in_full(
    call: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        call()


def test_matmul_names_both_shapes_and_numpy_s_reason_when_they_do_not_align() -> None:
    with pytest.raises(ValueError) as raised:
        lt.ones(2, 3) @ lt.ones(2, 3)
    with pytest.raises(ValueError) as numpy_s:
        np.ones((2, 3)) @ np.ones((2, 3))
    assert str(raised.value) == f"matmul: shapes (2, 3) and (2, 3) are not aligned ({numpy_s.value})"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__

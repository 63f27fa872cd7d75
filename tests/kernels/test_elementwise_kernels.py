"""The kernels of `lazytensor.kernels.numeric` and the public functions of `lazytensor.api.functions` at their
edges: every refusal's message in full, and the object (Fraction, Decimal) paths against Python's own
arithmetic.

Reaches into `lazytensor.engine.optable` and `lazytensor.tensors`' `apply`: the kernels' own
refusals are reached through `apply`, past the doors that check the same things first.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.engine import optable
from lazytensor.tensors.apply import apply

REFUSALS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    # the table's kernels check what the doors (`keywords.join_axis`) check, for `apply(entry, ...)`
    (
        lambda: apply(optable.CAT, np.float64(1.0), np.float64(2.0)),
        ValueError,
        "cat: 0-d tensors have no axis to join along; use stack",
    ),
    (
        lambda: apply(optable.CAT, np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 4))),
        ValueError,
        "cat: tensor 0 of shape (2, 3) and tensor 2 of shape (2, 4) must have the same sizes "
        "except along dim 0",
    ),
    (
        lambda: apply(optable.CAT, np.zeros((2, 3)), np.zeros(3), dim=-1),
        ValueError,
        "cat: tensor 0 of shape (2, 3) and tensor 1 of shape (3,) must have the same sizes "
        "except along dim 1",
    ),
    (
        lambda: apply(optable.STACK, np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((3, 2))),
        ValueError,
        "stack: tensor 0 of shape (2, 3) and tensor 2 of shape (3, 2) must have the same shape",
    ),
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


@pytest.mark.parametrize(
    ("left", "right", "message"),
    [
        (
            (2, 3),
            (2, 3),
            "are not aligned: the last axis of the first (3) must match the second-to-last axis of "
            "the second (2)",
        ),
        (
            (3,),
            (2,),
            "are not aligned: the last axis of the first (3) must match the only axis of the second (2)",
        ),
        (
            (4, 3),
            (5, 2, 7),
            "are not aligned: the last axis of the first (3) must match the second-to-last axis of "
            "the second (2)",
        ),
        ((2, 2, 3), (3, 3, 4), ": the batch axes (2,) and (3,) do not broadcast"),
    ],
)
def test_matmul_names_both_shapes_and_the_axes_that_do_not_fit_where_numpy_would_refuse(
    left: tuple[int, ...], right: tuple[int, ...], message: str
) -> None:
    """In lazytensor's words (numpy's ends in its gufunc signature), where numpy raises ValueError too."""
    with pytest.raises(ValueError):
        np.ones(left) @ np.ones(right)
    with pytest.raises(ValueError) as raised:
        lt.ones(left) @ lt.ones(right)
    assert str(raised.value) == f"matmul: shapes {left} and {right} {message}".replace(" :", ":")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_concatenate_names_itself_when_the_axis_is_out_of_range() -> None:
    with pytest.raises(np.exceptions.AxisError) as raised:
        lt.concatenate([lt.ones(2), lt.ones(2)], axis=3)
    assert (
        str(raised.value)
        == "concatenate of a tensor of shape (2,): axis 3 is out of bounds for array of dimension 1"
    )


def test_sigmoid_of_object_values_uses_their_own_exp() -> None:
    """A Decimal keeps its precision (`Decimal.exp`); a Fraction, which has no `exp`, goes through float."""
    values = [Decimal(0), Decimal(2), Decimal("-1.5")]
    assert lt.tensor(values).sigmoid().tolist() == [1 / (1 + (-d).exp()) for d in values]
    assert lt.tensor([Fraction(1, 2), Fraction(-3)]).sigmoid().tolist() == [
        1 / (1 + math.exp(-0.5)),
        1 / (1 + math.exp(3.0)),
    ]


def test_allclose_of_object_values_matches_numpys_rule_at_its_edges() -> None:
    """numpy's `|a - b| <= atol + rtol * |b|`: equality at the bound counts as close, `rtol` scales
    `|b|`, equal infinities are close, and NaN is close to NaN only with `equal_nan`."""
    exact = [Fraction(1), Fraction(10)]
    for a, b, rtol, atol in [([1, 10], [Fraction(3, 2), Fraction(21, 2)], 0.0, 0.5), ([11], [10], 0.1, 0.0)]:
        expected = np.allclose(np.array(a, dtype=float), np.array(b, dtype=float), rtol=rtol, atol=atol)
        assert expected
        assert lt.allclose(
            lt.tensor([Fraction(x) for x in a]), lt.tensor([Fraction(x) for x in b]), rtol, atol
        )
    assert not lt.allclose(lt.tensor(exact), lt.tensor([Fraction(1), Fraction(11)]), rtol=0.05, atol=0.0)
    infinity = lt.tensor([Decimal("Infinity"), Decimal(1)])
    assert lt.allclose(infinity, infinity) == np.allclose([np.inf, 1.0], [np.inf, 1.0])
    nan = [np.nan, 1.0]
    assert lt.allclose(lt.tensor(nan), nan) is False
    assert lt.allclose(lt.tensor(nan), nan, equal_nan=True) is True


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("dtype", [None, np.float32, np.int16])
def test_concatenate_matches_numpy(axis: int | None, dtype: Any) -> None:
    a, b = np.arange(6).reshape(2, 3), np.arange(10, 14).reshape(2, 2)
    if axis == 0:
        b = np.arange(10, 16).reshape(2, 3)
    expected = np.concatenate([a, b], axis=axis, dtype=dtype)
    result = lt.concatenate([lt.tensor(a), b], axis=axis, dtype=dtype)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.numpy(), expected)


def test_cat_of_flattened_operands_takes_tensors_arrays_and_lists() -> None:
    parts = [np.arange(4).reshape(2, 2), [[7], [8]], np.array(9)]
    result = lt.cat([lt.tensor(parts[0]), parts[1], parts[2]], axis=None)
    np.testing.assert_array_equal(result.numpy(), np.concatenate(parts, axis=None))


def test_where_names_the_shapes_that_do_not_broadcast_whichever_operand_holds_them() -> None:
    message = (
        "shapes (2,) and (3,) cannot be broadcast together: sizes 2 and 3 differ at axis 0 of the padded "
    )
    message += "shapes"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        lt.where(lt.ones(2) > 0, lt.zeros(2), lt.zeros(3))


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.float16])
def test_relu_keeps_every_dtype_as_numpy_s_maximum_with_zero_of_that_dtype(dtype: Any) -> None:
    values = (
        np.array([1, 0, 3], dtype=dtype)
        if dtype in (np.bool_, np.uint8)
        else np.array([-2, 0, 3], dtype=dtype)
    )
    result = lt.tensor(values).relu()
    expected = np.maximum(values, dtype(0))
    assert result.dtype == expected.dtype == values.dtype
    np.testing.assert_array_equal(result.numpy(), expected)


def test_tredux_casts_to_the_dtype_it_is_given() -> None:
    t = lt.arange(6).reshape(2, 3)
    result = lt.tredux(t, 1, 0, operator.add, dtype=np.float32)
    expected = np.add.reduce(np.arange(6).reshape(2, 3), axis=1, dtype=np.float32)
    assert result.dtype == expected.dtype and result.tolist() == expected.tolist()


def test_cat_joins_named_tensors_along_an_axis_named_by_its_name() -> None:
    t = lt.tensor(np.arange(6.0).reshape(2, 3), names=("rows", "cols"))
    joined = lt.cat([t, t * 2], dim="cols")
    np.testing.assert_array_equal(joined.numpy(), np.concatenate([t.numpy(), 2 * t.numpy()], axis=1))


def test_object_values_round_and_take_exp_and_log_as_python_does() -> None:
    """Fractions and Decimals round by their own `round` (halves to even, `decimals` places);
    a Fraction, which has no `exp` or `ln`, goes through `math`'s."""
    fractions = [Fraction(1, 3), Fraction(5, 2), Fraction(-7, 2)]
    assert lt.tensor(fractions).round(2).tolist() == [round(f, 2) for f in fractions]
    assert lt.tensor(fractions).round().tolist() == [round(f, 0) for f in fractions]
    assert lt.tensor([Decimal("2.675")]).round(2).tolist() == [round(Decimal("2.675"), 2)]
    assert lt.tensor([Fraction(1, 2)]).exp().tolist() == [math.exp(0.5)]
    assert lt.tensor([Fraction(1, 2)]).log().tolist() == [math.log(0.5)]


def test_the_round_entry_without_decimals_rounds_to_integers() -> None:
    values = np.array([0.45, 1.55, -2.5])
    np.testing.assert_array_equal(apply(optable.ROUND, lt.tensor(values)).numpy(), np.round(values))


def test_allclose_passes_its_tolerances_and_names_shapes_that_do_not_broadcast() -> None:
    assert lt.allclose(lt.tensor([1.0]), [1.1], rtol=0.1) and not lt.allclose(lt.tensor([1.0]), [1.1])
    assert lt.allclose(lt.tensor([0.0]), [0.05], atol=0.1) and not lt.allclose(lt.tensor([0.0]), [0.05])
    message = (
        "shapes (2,) and (3,) cannot be broadcast together: sizes 2 and 3 differ at axis 0 of the padded "
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}shapes$"):
        lt.allclose(lt.ones(2), lt.ones(3))


def test_tanh_of_a_decimal_goes_through_float() -> None:
    """Decimal has no `tanh` method: `math.tanh` of its float."""
    assert lt.tensor([Decimal(1), Decimal("-0.5")]).tanh().tolist() == [math.tanh(1.0), math.tanh(-0.5)]


def test_the_stack_entry_without_dim_stacks_along_a_new_first_axis() -> None:
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    np.testing.assert_array_equal(apply(optable.STACK, a, b).numpy(), np.stack([a, b]))

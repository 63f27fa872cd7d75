"""numpy's ufuncs writing into tensors (`np.divmod(t, 2, out=(q, r))`, `np.add(a, b, out=t)`): each
output, a tensor or an array, gets numpy's values, the call returns what numpy returns, and an
operand or output that requires grad is refused, naming the ufunc."""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt


def test_two_outputs_a_tensor_and_an_array_get_numpys_values_and_come_back_as_a_tuple() -> None:
    values = np.array([1.5, -2.25, 3.0])
    quotient, remainder = lt.zeros(3), np.zeros(3)
    got = np.divmod(lt.tensor(values), 2, out=(quotient, remainder))
    expected = np.divmod(values, 2)
    assert type(got) is tuple and got[0] is quotient and got[1] is remainder
    np.testing.assert_array_equal(quotient.numpy(), expected[0])
    np.testing.assert_array_equal(remainder, expected[1])


def test_an_output_or_an_operand_that_requires_grad_is_refused_naming_the_ufunc() -> None:
    w = lt.ones(2, requires_grad=True)
    message = r"^in-place np\.add on a tensor of shape \(2,\) that requires grad is not differentiable"
    target = lt.zeros(2)
    with pytest.raises(RuntimeError, match=message):
        np.add(w, 1, out=target)  # an operand
    assert target.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match=message):
        np.add(1, 1, out=w * 2)  # an output that is a result in the gradient graph
    with lt.no_grad():
        assert np.add(w, 1, out=target) is target and target.tolist() == [2.0, 2.0]

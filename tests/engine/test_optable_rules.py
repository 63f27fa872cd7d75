"""The table's backward rules where the float64 gradcheck (`test_gradcheck.py`) does not look: complex
operands, ties under a stable sort, and parameters only some doors pass.

Complex gradients follow lazytensor's convention (that of `test_autograd`'s complex views): for a
holomorphic operation the gradient is the complex derivative `dL/dz` of the complex loss, which a
central difference with a real step measures; for a real result of complex operands (`std`) it is
PyTorch's `dL/dx + i dL/dy`.

Reaches into `lazytensor.engine.optable` and `lazytensor.tensors`' `apply`: the backward rules are
driven with parameters only some doors pass.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_gradcheck import _check_function

import lazytensor as lt
from lazytensor.engine import optable
from lazytensor.tensors.apply import apply

STEP = 1e-6


def _complex_values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Complex values with distinct real parts spread apart (so a sort's order survives the step)."""
    count = int(np.prod(shape))
    real = rng.permutation(np.linspace(-2.0, 2.0, num=max(count, 2) * 4))[:count]
    return (real + 1j * rng.uniform(-2.0, 2.0, size=count)).reshape(shape)


def _holomorphic_check(
    function: Callable[[lt.AbstractTensor], lt.AbstractTensor], values: np.ndarray
) -> None:
    """The gradient of `sum(w * function(z))` against the complex derivative by central differences."""
    rng = np.random.default_rng(1)
    leaf = lt.tensor(values, requires_grad=True)
    out = function(leaf)
    weights = rng.standard_normal(out.shape) + 1j * rng.standard_normal(out.shape)
    (out * weights).sum().backward()
    assert leaf.grad is not None
    assert leaf.grad.dtype == values.dtype

    def loss(z: np.ndarray) -> complex:
        with lt.no_grad():
            return complex((function(lt.tensor(z)).numpy() * weights).sum())

    numeric = np.zeros(values.shape, dtype=complex)
    for i in np.ndindex(values.shape):
        above, below = values.copy(), values.copy()
        above[i] += STEP
        below[i] -= STEP
        numeric[i] = (loss(above) - loss(below)) / (2 * STEP)
    np.testing.assert_allclose(leaf.grad.numpy(), numeric, rtol=1e-6, atol=1e-7)


COMPLEX_RULES: dict[str, tuple[Callable[[lt.AbstractTensor], lt.AbstractTensor], tuple[int, ...]]] = {
    "cumprod": (lambda z: apply(optable.CUMPROD, z, dim=1), (2, 4)),
    "cumprod_flat": (lambda z: apply(optable.CUMPROD, z, dim=None), (2, 3)),
    "prod": (lambda z: apply(optable.PROD, z, dim=0), (3, 2)),
    "sort": (lambda z: lt.sort(z, axis=0), (4, 2)),
    "take_along_axis": (
        lambda z: lt.take_along_axis(z, lt.tensor([[2, 0, 0, 1], [1, 1, 0, 2]]), axis=1),
        (2, 3),
    ),
    "take_along_axis_broadcast": (
        lambda z: lt.take_along_axis(z, lt.tensor([[1], [0], [1]]), axis=0),
        (2, 3),
    ),
    "take": (lambda z: lt.take(z, lt.tensor([2, 0, 2]), axis=1), (2, 3)),
    "repeat": (lambda z: lt.repeat(z, 2, axis=0), (2, 3)),
    "gather": (lambda z: z.gather(1, lt.tensor([[0, 0], [2, 1]])), (2, 3)),
    "scatter_add": (
        lambda z: lt.zeros(3, 2, dtype=z.dtype).scatter_add(0, lt.tensor([[0, 2], [0, 0]]), z),
        (2, 2),
    ),
    "diff": (lambda z: lt.diff(z, axis=0), (3, 2)),
    "astype": (lambda z: lt.astype(z, z.dtype) * 1.0, (2, 2)),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_RULES))
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_gradients_match_the_complex_derivative(name: str, dtype: Any) -> None:
    function, shape = COMPLEX_RULES[name]
    values = _complex_values(np.random.default_rng(0), shape).astype(dtype)
    if dtype == np.complex64:
        # single precision: the step must be larger, so compare against the float64 computation instead
        with_double = lt.tensor(values.astype(np.complex128), requires_grad=True)
        single = lt.tensor(values, requires_grad=True)
        for leaf in (with_double, single):
            (function(leaf) * (1 + 2j)).sum().backward()
        assert single.grad is not None and with_double.grad is not None
        assert single.grad.dtype == np.complex64
        np.testing.assert_allclose(single.grad.numpy(), with_double.grad.numpy(), rtol=1e-4, atol=1e-5)
        return
    _holomorphic_check(function, values)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_std_of_complex_values_has_pytorchs_gradient(axis: int | None) -> None:
    """For a real loss of complex z, PyTorch's gradient is dL/dx + i dL/dy: here `(z - mean) / (n * std)`."""
    z = _complex_values(np.random.default_rng(2), (3, 2))
    leaf = lt.tensor(z, requires_grad=True)
    leaf.std(axis).sum().backward()
    assert leaf.grad is not None

    def loss(values: np.ndarray) -> float:
        return float(np.std(values, axis=axis).sum())

    numeric = np.zeros(z.shape, dtype=complex)
    for i in np.ndindex(z.shape):
        for unit in (1, 1j):
            above, below = z.copy(), z.copy()
            above[i] += STEP * unit
            below[i] -= STEP * unit
            numeric[i] += unit * (loss(above) - loss(below)) / (2 * STEP)
    np.testing.assert_allclose(leaf.grad.numpy(), numeric, rtol=1e-6, atol=1e-7)


def test_a_stable_sort_sends_each_tie_its_own_positions_gradient() -> None:
    """Equal values keep their order in a stable sort, so the i-th of a run of ties gets the gradient
    of the i-th sorted position of that run, as PyTorch's `sort(stable=True)` backward (by its indices)."""
    rng = np.random.default_rng(0)
    values = rng.integers(0, 3, size=(2, 40)).astype(np.float64)
    weights = rng.standard_normal(values.shape)
    for descending in (False, True):
        leaf = lt.tensor(values, requires_grad=True)
        (lt.sort(leaf, axis=1, descending=descending) * weights).sum().backward()
        assert leaf.grad is not None
        order = np.argsort(-values if descending else values, axis=1, kind="stable")
        expected = np.zeros(values.shape)
        np.put_along_axis(expected, order, weights, axis=1)
        np.testing.assert_array_equal(leaf.grad.numpy(), expected)


@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_the_sort_entry_differentiates_a_descending_sort(dim: int | None) -> None:
    """`descending=True` reaches the table entry itself (the in-place `t.sort(descending=True)` passes
    it): each sorted position's gradient goes back to the element that landed there."""
    values = np.array([[0.5, -1.0, 2.0], [3.0, 1.5, -0.25]])
    weights = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).reshape(-1 if dim is None else (2, 3))
    leaf = lt.tensor(values, requires_grad=True)
    result = apply(optable.SORT, leaf, dim=dim, descending=True)
    flat = values.reshape(-1) if dim is None else values
    axis = 0 if dim is None else dim
    np.testing.assert_array_equal(result.numpy(), -np.sort(-flat, axis=axis))
    (result * weights).sum().backward()
    assert leaf.grad is not None
    order = np.argsort(-flat, axis=axis, kind="stable")
    expected = np.zeros(flat.shape)
    np.put_along_axis(expected, order, weights, axis=axis)
    np.testing.assert_array_equal(leaf.grad.numpy(), expected.reshape(values.shape))


@pytest.mark.parametrize(
    ("shape", "shift", "axis"),
    [((5,), 2, None), ((2, 3), -4, None), ((2, 3), 1, 1), ((2, 3, 4), (1, -3), (0, 2)), ((3, 4), (5,), (1,))],
)
def test_roll_gradient_matches_finite_differences(
    shape: tuple[int, ...], shift: int | tuple[int, ...], axis: int | tuple[int, ...] | None
) -> None:
    """Shifts that are not half the axis (where rolling back and forth agree), one or one per axis."""
    rng = np.random.default_rng(3)
    values = rng.permutation(np.linspace(-2.0, 2.0, num=4 * int(np.prod(shape))))[: int(np.prod(shape))]
    _check_function("roll", lambda x: lt.roll(x, shift, axis=axis), [values.reshape(shape)], rng)


def test_a_real_tensor_cast_to_complex_gets_the_real_part_of_the_gradient() -> None:
    """PyTorch: the gradient of a real input is real; the imaginary part of the complex gradient is
    dropped without a ComplexWarning."""
    x = lt.tensor([1.0, -2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (lt.astype(x, lt.complex128) * np.array([2 + 1j, -1 + 3j])).sum().backward()
    assert x.grad is not None and x.grad.dtype == np.float64
    assert x.grad.tolist() == [2.0, -1.0]


@pytest.mark.parametrize(
    ("name", "shapes", "params"),
    [
        ("cat", [(2, 3), (1, 3)], {}),
        ("stack", [(2, 3), (2, 3)], {}),
        ("diff", [(2, 2, 4)], {}),
        ("cross", [(2, 3), (3,)], {}),
        ("take_along_axis", [(2, 2, 3)], {"index": [[[2, 0, 0, 1], [1, 1, 2, 0]]]}),
        ("repeat", [(3, 2)], {"repeats": [2, 0, 1]}),
    ],
)
def test_an_entry_applied_without_its_optional_parameters_differentiates_with_the_kernels_defaults(
    name: str, shapes: list[tuple[int, ...]], params: dict[str, Any]
) -> None:
    """`apply(entry, ...)` with `dim`/`axis`/`n` left out: the kernel uses its defaults (cat/stack on
    axis 0, diff once along the last axis, cross along the last axis, ...), and the backward rule must
    assume the same ones."""
    rng = np.random.default_rng(5)
    arrays = [_spread_values(rng, shape) for shape in shapes]
    entry = optable.TABLE[name]
    index = [np.array(params["index"])] if "index" in params else []
    rest = {key: value for key, value in params.items() if key != "index"}
    _check_function(name, lambda *operands: apply(entry, *operands, *index, **rest), arrays, rng)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "sort"])
def test_a_scan_over_the_flattened_values_differentiates(name: str) -> None:
    """`dim=None` scans the values flattened (numpy's `axis=None`); the gradient goes back in the
    input's shape."""
    rng = np.random.default_rng(6)
    entry = optable.TABLE[name]
    _check_function(name, lambda x: apply(entry, x, dim=None), [_spread_values(rng, (2, 3))], rng)


def test_nanmean_over_only_nans_gives_a_nan_gradient_without_a_warning() -> None:
    """An all-NaN slice has no mean (NaN); its elements' gradient is 0/0 = NaN, as PyTorch's, and the
    backward pass does not warn about it."""
    x = lt.tensor([[np.nan, np.nan], [1.0, np.nan]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's own "Mean of empty slice" in the forward pass
        mean = apply(optable.NANMEAN, x, dim=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (mean * lt.tensor([1.0, 3.0])).sum().backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.numpy(), [[np.nan, np.nan], [3.0, 0.0]])


def _spread_values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Real values no two within 0.05 of each other (as the gradcheck's), so no tie meets the step."""
    count = int(np.prod(shape))
    return rng.permutation(np.linspace(-2.0, 2.0, num=4 * count))[:count].reshape(shape)


def _norm_grad(values: list[float], **params: Any) -> list[float]:
    x = lt.tensor(values, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        apply(optable.VECTOR_NORM, x, **params).backward()
    assert x.grad is not None
    grads: list[float] = x.grad.tolist()
    return grads


def test_vector_norm_gradient_at_zero_elements_is_pytorchs_subgradient() -> None:
    """torch's norm_backward: `sgn(x) * grad` for ord 1 (0 at x == 0), and for an order below 1 the
    power `|x| ** (ord - 1)` is masked to 0 where x == 0 (it would be infinite)."""
    assert _norm_grad([0.0, 2.0, -3.0], ord=1) == [0.0, 1.0, -1.0]
    values = [0.0, 1.0, -4.0]
    norm = (1.0 + 2.0) ** 2  # (sum |x| ** 0.5) ** 2
    expected = [0.0, norm**0.5 * 1.0**-0.5, -(norm**0.5) * 4.0**-0.5]  # sgn(x) |x|^(p-1) norm^(1-p)
    assert _norm_grad(values, ord=0.5) == pytest.approx(expected)
    assert _norm_grad([0.0, 0.0], ord=3) == [0.0, 0.0]  # a zero norm: the subgradient 0, no 0/0
    assert _norm_grad([1.0, 0.0], ord=3) == [1.0, 0.0]  # a norm of exactly 1
    assert _norm_grad([0.0, 2.0, -3.0], ord=np.inf) == [0.0, 0.0, -1.0]


@pytest.mark.parametrize("order", [np.inf, -np.inf])
def test_vector_norm_splits_the_gradient_among_tied_extremes(order: float) -> None:
    """torch: the mask of |x| == norm, each masked element getting `sgn(x) * grad / count`."""
    values = [2.0, -1.0, -2.0, 1.0, 1.5]
    expected = [0.5, 0.0, -0.5, 0.0, 0.0] if order > 0 else [0.0, -0.5, 0.0, 0.5, 0.0]
    assert _norm_grad(values, ord=order) == expected


def test_vector_norm_without_its_parameters_is_the_euclidean_norm_of_all_elements() -> None:
    values = np.array([[3.0, -4.0], [0.0, 12.0]])
    x = lt.tensor(values, requires_grad=True)
    norm = apply(optable.VECTOR_NORM, x)
    assert norm.item() == 13.0
    norm.backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), values / 13.0)
    rows = lt.tensor(values, requires_grad=True)
    (apply(optable.VECTOR_NORM, rows, axis=1) * lt.tensor([1.0, 2.0])).sum().backward()
    assert rows.grad is not None
    np.testing.assert_allclose(rows.grad.numpy(), [[3.0 / 5.0, -4.0 / 5.0], [0.0, 2.0]])


@pytest.mark.parametrize("axis", [[1], [0, 1], (1,)])
def test_vector_norm_over_listed_axes_without_keepdims(axis: Any) -> None:
    rng = np.random.default_rng(8)
    values = _spread_values(rng, (2, 3))
    _check_function("vector_norm", lambda x: lt.linalg.vector_norm(x, axis=axis, ord=3), [values], rng)


def test_matrix_norm_gradients_at_a_zero_matrix_and_at_zero_elements() -> None:
    """torch: the Frobenius gradient `x / norm` masked to 0 where the norm is 0 (no 0/0 warning); the
    1- and inf-norms' `sgn(x)` is 0 at a zero element."""
    for values, order, expected in [
        ([[0.0, 0.0], [0.0, 0.0]], "fro", [[0.0, 0.0], [0.0, 0.0]]),
        ([[0.6, 0.0], [0.0, -0.8]], "fro", [[0.6, 0.0], [0.0, -0.8]]),  # a norm of exactly 1
        ([[0.0, 2.0], [1.0, -3.0]], 1, [[0.0, 1.0], [0.0, -1.0]]),  # the second column's sum, 5
        ([[0.0, 2.0], [1.0, -3.0]], np.inf, [[0.0, 0.0], [1.0, -1.0]]),  # the second row's sum, 4
    ]:
        x = lt.tensor(values, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            apply(optable.MATRIX_NORM, x, ord=order).backward()
        assert x.grad is not None
        np.testing.assert_allclose(x.grad.numpy(), expected, err_msg=str(order))


def test_matrix_norm_without_its_parameters_is_the_frobenius_norm_of_each_matrix() -> None:
    values = np.array([[[3.0, 0.0], [0.0, -4.0]], [[1.0, 1.0], [1.0, -1.0]]])
    x = lt.tensor(values, requires_grad=True)
    norms = apply(optable.MATRIX_NORM, x)
    assert norms.tolist() == [5.0, 2.0]
    (norms * lt.tensor([1.0, 3.0])).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), [values[0] / 5.0, 3.0 * values[1] / 2.0])


@pytest.mark.parametrize("name", ["sum", "max", "std"])
def test_a_reduction_applied_without_keepdim_drops_the_reduced_axis(name: str) -> None:
    """`keepdim` left out is False (the kernels' default), for the rule as for the kernel."""
    rng = np.random.default_rng(9)
    entry = optable.TABLE[name]
    _check_function(name, lambda x: apply(entry, x, dim=1), [_spread_values(rng, (2, 3))], rng)


def test_cross_gradient_along_a_first_axis() -> None:
    """Vectors along axis 0 (not the default last axis): both operands' gradients use that axis."""
    rng = np.random.default_rng(10)
    arrays = [_spread_values(rng, (3, 2)), _spread_values(rng, (3, 1))]
    _check_function("cross", lambda a, b: apply(optable.CROSS, a, b, axis=0), arrays, rng)

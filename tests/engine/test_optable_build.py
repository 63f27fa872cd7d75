"""The operator table as its factories build it.

`optable` builds its entries once, at import: `_ufunc_op`, `_binary_ufunc_op`, `_linalg_op`, the
kernels' ufunc lookups and the rule builders `_binary`, `_unary` and `_extreme_pair_rule` run then
and never again. These tests run the module's source a second time, inside the test, and check
what that build makes against numpy and finite differences: every kernel computes its numpy
function, every differentiable entry's gradient is right (also when only one operand needs one),
and `maximum`/`minimum` split a tie's gradient evenly, as PyTorch does.

Reaches into `lazytensor.engine`, `lazytensor.kernels.callables` and `lazytensor.tensors`' `apply`:
the table's factories run once at import, so the module's source is run again to check what they
build.
"""

from __future__ import annotations

import functools
import importlib.util
import operator
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from test_gradcheck import RECIPES, _check_function

import lazytensor as lt
from lazytensor.engine import chunkforms, optable
from lazytensor.kernels.callables import binary_ufunc, unary_ufunc
from lazytensor.tensors.apply import apply


def _built_again() -> ModuleType:
    """`optable`'s source run again as a new module object (not put in `sys.modules`)."""
    spec = importlib.util.spec_from_file_location(optable.__name__, optable.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def built() -> ModuleType:
    return _built_again()


def test_every_entry_is_filed_under_its_own_name(built: ModuleType) -> None:
    assert all(isinstance(name, str) and entry.name == name for name, entry in built.TABLE.items())
    assert sorted(name for name, entry in built.TABLE.items() if entry.differentiable) == sorted(RECIPES)


def _operands(ufunc: np.ufunc) -> tuple[np.ndarray, ...]:
    """Values the ufunc takes: small integers for the bitwise ones, floats in (0.1, 0.9) otherwise
    (inside every inverse function's domain but arccosh's, which gets values above 1)."""
    if ufunc in (np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift, np.invert):
        return (np.array([[1, 6], [3, 12]]), np.array([2, 1]))[: ufunc.nin]
    if ufunc is np.arccosh:
        return (np.array([1.5, 2.0, 3.5]),)
    return (np.array([[0.1, 0.35], [0.8, 0.6]]), np.array([0.3, 0.9]))[: ufunc.nin]


def test_every_ufunc_entry_computes_its_ufunc(built: ModuleType) -> None:
    assert len(built.UFUNCS) >= 60
    for ufunc, entry in built.UFUNCS.items():
        operands = _operands(ufunc)
        np.testing.assert_array_equal(entry.kernel(*operands), ufunc(*operands), err_msg=ufunc.__name__)
        if isinstance(entry.kernel, functools.partial):
            assert entry.kernel.func is (unary_ufunc if ufunc.nin == 1 else binary_ufunc), ufunc.__name__
            assert entry.ufunc is ufunc, ufunc.__name__
            assert entry.shapes == ("same" if ufunc.nin == 1 else "broadcast"), ufunc.__name__
        else:
            assert entry.ufunc is None, ufunc.__name__


def test_a_kernel_that_is_not_a_ufunc_call_has_no_ufunc(built: ModuleType) -> None:
    entries = [built.MATMUL, built.SUM, built.INV, built.FFTS["fft"], built.REAL]
    assert [entry.ufunc for entry in entries] == [None] * len(entries)


def test_an_operator_without_a_ufunc_is_refused_when_the_table_is_built(built: ModuleType) -> None:
    with pytest.raises(TypeError, match=r"^<built-in function getitem> has no numpy ufunc$"):
        built._ufunc_kernel(operator.getitem)
    with pytest.raises(TypeError, match=r"^<built-in function len> has no numpy ufunc$"):
        built._unary_kernel(len)


_SYMMETRIC = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("cholesky", {}, np.linalg.cholesky(_SYMMETRIC)),
        ("eigh_values", {}, np.linalg.eigh(_SYMMETRIC).eigenvalues),
        ("eigh_vectors", {}, np.linalg.eigh(_SYMMETRIC).eigenvectors),
        ("eigvalsh", {}, np.linalg.eigvalsh(_SYMMETRIC)),
        ("matrix_power", {"n": 3}, np.linalg.matrix_power(_SYMMETRIC, 3)),
        ("matrix_rank", {}, np.linalg.matrix_rank(_SYMMETRIC)),
        ("pinv", {}, np.linalg.pinv(_SYMMETRIC)),
        ("qr_q", {}, np.linalg.qr(_SYMMETRIC).Q),
        ("qr_r", {}, np.linalg.qr(_SYMMETRIC).R),
        ("slogdet_sign", {}, np.linalg.slogdet(_SYMMETRIC).sign),
        ("slogdet_logabsdet", {}, np.linalg.slogdet(_SYMMETRIC).logabsdet),
        ("svd_u", {}, np.linalg.svd(_SYMMETRIC).U),
        ("svd_s", {}, np.linalg.svd(_SYMMETRIC).S),
        ("svd_vh", {}, np.linalg.svd(_SYMMETRIC).Vh),
        ("svdvals", {}, np.linalg.svd(_SYMMETRIC, compute_uv=False)),
    ],
)
def test_every_linalg_entry_without_a_gradient_computes_numpy_s(
    built: ModuleType, name: str, params: dict[str, Any], expected: np.ndarray
) -> None:
    entry = built.TABLE[name]
    assert (entry.shapes, entry.differentiable) == ("own", False)
    assert isinstance(entry.chunked, chunkforms.NoChunkedForm)
    result = apply(entry, lt.tensor(_SYMMETRIC), **params)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_differentiable_entry_built_again_matches_finite_differences(
    built: ModuleType, name: str
) -> None:
    rng = np.random.default_rng(7)
    arrays, params = RECIPES[name](rng)
    entry = built.TABLE[name]
    _check_function(name, lambda *operands: apply(entry, *operands, **params), arrays, rng)


def _two_float_operands(name: str) -> bool:
    arrays, _ = RECIPES[name](np.random.default_rng(0))
    return len(arrays) == 2 and all(array.dtype.kind == "f" for array in arrays)


BINARY = sorted(name for name in RECIPES if _two_float_operands(name))
"""The differentiable entries of two float operands: broadcasting ones, matmul, solve, cross."""


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("operand", [0, 1])
def test_a_binary_gradient_reaches_the_one_operand_that_needs_it(
    built: ModuleType, name: str, operand: int
) -> None:
    """The other operand is a plain array, which needs no gradient: the rule must still give the
    right one to the operand that does, and none to the array."""
    rng = np.random.default_rng(operand)
    arrays, params = RECIPES[name](rng)
    entry = built.TABLE[name]
    fixed = arrays[1 - operand]

    def one_sided(x: lt.AbstractTensor) -> lt.AbstractTensor:
        operands = [x, fixed] if operand == 0 else [fixed, x]
        return apply(entry, *operands, **params)

    _check_function(name, one_sided, [arrays[operand]], rng)


@pytest.mark.parametrize(
    ("name", "grad_a", "grad_b"),
    [("maximum", [0.5, 1.0, 0.0], [0.5, 0.0, 1.0]), ("minimum", [0.5, 0.0, 1.0], [0.5, 1.0, 0.0])],
)
def test_maximum_and_minimum_built_again_split_a_tie_evenly(
    built: ModuleType, name: str, grad_a: list[float], grad_b: list[float]
) -> None:
    """torch.maximum/minimum: "the gradient is evenly distributed between the equal values"."""
    a = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lt.tensor([1.0, 0.0, 5.0], requires_grad=True)
    apply(built.TABLE[name], a, b).sum().backward()
    assert a.grad is not None and b.grad is not None
    assert (a.grad.tolist(), b.grad.tolist()) == (grad_a, grad_b)

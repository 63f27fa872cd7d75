"""`lt.linalg` against `np.linalg`: offsets, dtypes, axes, keepdims, tolerances and complex inputs
passed on as numpy takes them, and every refusal's message in full."""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt

L = lt.linalg
RNG = np.random.default_rng(0)
STACK = RNG.standard_normal((2, 4, 3))


@pytest.mark.parametrize("name", ["matrix_transpose", "diagonal", "matrix_norm"])
def test_matrix_functions_refuse_a_vector_naming_themselves(name) -> None:
    message = f"{name} takes a stack of matrices (two axes or more), not shape (3,)"
    with pytest.raises(ValueError) as info:
        getattr(L, name)(lt.tensor(np.ones(3)))
    assert str(info.value) == message


@pytest.mark.parametrize("offset", range(-5, 6))
def test_diagonal_and_trace_take_every_offset_as_numpy(offset) -> None:
    np.testing.assert_array_equal(
        L.diagonal(lt.tensor(STACK), offset=offset).numpy(), np.linalg.diagonal(STACK, offset=offset)
    )
    np.testing.assert_allclose(
        L.trace(lt.tensor(STACK), offset=offset).numpy(), np.linalg.trace(STACK, offset=offset)
    )


def test_trace_takes_dtype_as_numpy() -> None:
    result = L.trace(lt.tensor(STACK), dtype=np.float32)
    expected = np.linalg.trace(STACK, dtype=np.float32)
    assert result.dtype == expected.dtype
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_vecdot_conjugates_its_first_complex_argument_as_numpy() -> None:
    a = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
    b = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
    for axis in (-1, -2):
        np.testing.assert_allclose(
            L.vecdot(lt.tensor(a), lt.tensor(b), axis=axis).numpy(), np.linalg.vecdot(a, b, axis=axis)
        )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: L.vecdot(lt.tensor(np.ones(3)), lt.tensor(np.ones(3)), axis=0),
            "vecdot: axis must count from the end (negative), got 0",
        ),
        (
            lambda: L.vecdot(lt.tensor(np.ones(3)), lt.tensor(np.ones(3)), axis=-2),
            "vecdot: shapes (3,) and (3,) differ along axis -2",
        ),
        (
            lambda: L.tensordot(lt.tensor(np.ones((2, 3))), lt.tensor(np.ones((3, 2))), axes=-1),
            "tensordot: axes=-1 for shapes (2, 3) and (3, 2)",
        ),
        (
            lambda: L.tensordot(lt.tensor(np.ones((2, 3))), lt.tensor(np.ones((3, 2))), axes=3),
            "tensordot: axes=3 for shapes (2, 3) and (3, 2)",
        ),
        (
            lambda: L.tensordot(lt.tensor(np.ones((2, 3))), lt.tensor(np.ones((2, 3))), axes=([1], [1, 0])),
            "tensordot: axes ([1], [1, 0]) of shapes (2, 3) and (2, 3) do not match",
        ),
        (
            lambda: L.outer(lt.tensor(np.ones(3)), lt.tensor(np.ones((2, 2)))),
            "outer takes two 1-D tensors, not shapes (3,) and (2, 2)",
        ),
        (
            lambda: L.outer(lt.tensor(np.ones((2, 2))), lt.tensor(np.ones(3))),
            "outer takes two 1-D tensors, not shapes (2, 2) and (3,)",
        ),
    ],
)
def test_linalg_refusals_in_full(call, message) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_tensordot_sums_every_shared_axis_as_numpy() -> None:
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    np.testing.assert_allclose(
        L.tensordot(lt.tensor(a), lt.tensor(b), axes=2).numpy(), np.tensordot(a, b, axes=2)
    )


def test_cross_takes_its_axis_as_numpy() -> None:
    a, b = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2))
    np.testing.assert_allclose(L.cross(lt.tensor(a), lt.tensor(b), axis=0).numpy(), np.cross(a, b, axis=0))


@pytest.mark.parametrize("axis", [None, 1, (0, 2), [0, 2]])
@pytest.mark.parametrize("keepdims", [False, True, None])
def test_vector_norm_takes_axes_and_keepdims_as_numpy(axis, keepdims) -> None:
    kwargs = {} if keepdims is None else {"keepdims": keepdims}
    result = L.vector_norm(lt.tensor(STACK), axis=axis, **kwargs)
    expected = np.linalg.vector_norm(STACK, axis=tuple(axis) if isinstance(axis, list) else axis, **kwargs)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.numpy(), expected)


@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm_takes_keepdims_as_numpy(keepdims) -> None:
    result = L.matrix_norm(lt.tensor(STACK), keepdims=keepdims)
    expected = np.linalg.matrix_norm(STACK, keepdims=keepdims)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.numpy(), expected)


def test_eigh_gives_values_and_vectors_as_numpy() -> None:
    m = STACK[0, :3] @ STACK[0, :3].T
    result, expected = L.eigh(lt.tensor(m)), np.linalg.eigh(m)
    np.testing.assert_allclose(result.eigenvalues.numpy(), expected.eigenvalues, atol=1e-12)
    np.testing.assert_allclose(np.abs(result.eigenvectors.numpy()), np.abs(expected.eigenvectors), atol=1e-12)


@pytest.mark.parametrize("rtol", [None, 0.3, np.array([0.3, 1e-3])])  # an array: one per matrix
def test_rank_and_pseudo_inverse_take_rtol_as_numpy(rtol) -> None:
    m = np.diag([1.0, 0.5, 0.01])[None].repeat(2, axis=0)
    given = lt.tensor(rtol) if isinstance(rtol, np.ndarray) else rtol
    rank, expected_rank = L.matrix_rank(lt.tensor(m), rtol=given).numpy(), np.linalg.matrix_rank(m, rtol=rtol)
    np.testing.assert_array_equal(rank, expected_rank)
    np.testing.assert_allclose(L.pinv(lt.tensor(m), rtol=given).numpy(), np.linalg.pinv(m, rtol=rtol))


@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_takes_mode_as_numpy(mode) -> None:
    result, expected = L.qr(lt.tensor(STACK), mode=mode), np.linalg.qr(STACK, mode=mode)
    assert result.Q.shape == expected.Q.shape and result.R.shape == expected.R.shape
    np.testing.assert_allclose(np.abs(result.R.numpy()), np.abs(expected.R), atol=1e-12)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("matrices", [STACK, STACK.transpose(0, 2, 1)], ids=["tall", "wide"])
def test_svd_takes_full_matrices_as_numpy(full_matrices, matrices) -> None:
    result, expected = (
        L.svd(lt.tensor(matrices), full_matrices=full_matrices),
        np.linalg.svd(matrices, full_matrices=full_matrices),
    )
    for got, want in zip(result, expected, strict=True):
        assert isinstance(got, lt.AbstractTensor) and got.shape == want.shape
    np.testing.assert_allclose(result.S.numpy(), expected.S)
    np.testing.assert_allclose(np.abs(result.U.numpy()), np.abs(expected.U), atol=1e-12)
    np.testing.assert_allclose(np.abs(result.Vh.numpy()), np.abs(expected.Vh), atol=1e-12)


@pytest.mark.parametrize("matrices", [STACK, STACK.transpose(0, 2, 1)], ids=["tall", "wide"])
def test_svd_and_diagonal_defaults_are_numpys(matrices) -> None:
    result, expected = L.svd(lt.tensor(matrices)), np.linalg.svd(matrices)
    assert [r.shape for r in result] == [e.shape for e in expected]
    np.testing.assert_array_equal(L.diagonal(lt.tensor(matrices)).numpy(), np.linalg.diagonal(matrices))


def test_tensordot_refuses_summed_axes_of_different_sizes() -> None:
    with pytest.raises(ValueError) as info:
        L.tensordot(lt.tensor(np.ones((2, 3))), lt.tensor(np.ones((2, 3))), axes=([1], [0]))
    assert str(info.value) == "tensordot: axes ([1], [0]) of shapes (2, 3) and (2, 3) do not match"

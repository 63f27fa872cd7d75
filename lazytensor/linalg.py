"""`lt.linalg`: the array API standard's linear algebra extension, on numpy's kernels.

Differentiable where PyTorch's are in everyday use: `matmul`, `vecdot`, `tensordot` and `outer`
(compositions of views and the table's matmul and products), `matrix_transpose` and `diagonal`
(views), `trace`, `vector_norm`, `matrix_norm`, `inv`, `solve`, `det` and `cross`. The
decompositions (`cholesky`, `eigh`, `qr`, `svd`, `slogdet`), `pinv`, `matrix_power` and
`matrix_rank` are table entries without a gradient: their results never require grad.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from lazytensor.array_api.namespace import operand_tensor
from lazytensor.array_api.namespace import sum as _sum
from lazytensor.engine import optable
from lazytensor.ground.positions import normalize_dim, numel
from lazytensor.tensors.apply import apply
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor, values_of

Operand = Any
"""A tensor, or anything `lt.asarray` takes."""


def _matrices(x: Operand, what: str) -> AbstractTensor:
    """`x` as a tensor of at least two axes (the last two: the matrices), or ValueError."""
    tensor = operand_tensor(x)
    if tensor.ndim < 2:
        raise ValueError(f"{what} takes a stack of matrices (two axes or more), not shape {tensor.shape}")
    return tensor


def matmul(x1: Operand, x2: Operand, /) -> StorageTensor:
    """The matrix product with numpy's rules (1-D operands promoted, batch axes broadcast).

    >>> import lazytensor as lt
    >>> lt.linalg.matmul(lt.tensor([[1, 2], [3, 4]]), lt.tensor([1, 1])).tolist()
    [3, 7]
    """
    return apply(optable.MATMUL, x1, x2)


def matrix_transpose(x: Operand, /) -> AbstractTensor:
    """The last two axes swapped: a view.

    >>> import lazytensor as lt
    >>> lt.matrix_transpose(lt.zeros(4, 2, 3)).shape
    (4, 3, 2)
    """
    return _matrices(x, "matrix_transpose").swapaxes(-1, -2)


def diagonal(x: Operand, /, *, offset: int = 0) -> AbstractTensor:
    """Diagonal `offset` of each matrix (above the main one when positive): a write-through view.

    >>> import lazytensor as lt
    >>> lt.linalg.diagonal(lt.arange(9).reshape(3, 3), offset=1).tolist()
    [1, 5]
    """
    tensor = _matrices(x, "diagonal")
    rows, cols = tensor.shape[-2:]
    first_row, first_col = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(rows - first_row, cols - first_col))
    index = np.arange(length)
    return tensor[..., index + first_row, index + first_col]  # type: ignore[no-any-return]


def trace(x: Operand, /, *, offset: int = 0, dtype: npt.DTypeLike | None = None) -> StorageTensor:
    """The sum of diagonal `offset` of each matrix, in `dtype` (default: as `sum`).

    >>> import lazytensor as lt
    >>> lt.linalg.trace(lt.arange(9).reshape(3, 3)).item()
    12
    """
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def vecdot(x1: Operand, x2: Operand, /, *, axis: int = -1) -> StorageTensor:
    """The dot product of the vectors along `axis` (the first conjugated), the other axes broadcast.

    >>> import lazytensor as lt
    >>> lt.vecdot(lt.tensor([[1.0, 2.0], [3.0, 4.0]]), lt.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    """
    a, b = operand_tensor(x1), operand_tensor(x2)
    if axis >= 0:
        raise ValueError(f"vecdot: axis must count from the end (negative), got {axis}")
    if min(a.ndim, b.ndim) < -axis or a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot: shapes {a.shape} and {b.shape} differ along axis {axis}")
    left = apply(optable.CONJ, a) if a.dtype.kind == "c" else a
    products = apply(optable.MUL, left, b)
    return _sum(products, axis=axis, dtype=products.dtype)  # the dtype of the operands, not sum's widening


def tensordot(
    x1: Operand, x2: Operand, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> AbstractTensor:
    """The sum of products over `axes`: the last `axes` of `x1` with the first of `x2`, or the two
    listed sequences of axes. Views and one matmul, so differentiable.

    >>> import lazytensor as lt
    >>> lt.tensordot(lt.ones(2, 3, 4), lt.ones(3, 4, 5)).shape
    (2, 5)
    >>> lt.tensordot(lt.ones(2, 3), lt.ones(2, 3), axes=([0, 1], [0, 1])).item()
    6.0
    """
    a, b = operand_tensor(x1), operand_tensor(x2)
    if isinstance(axes, int):
        if axes < 0 or axes > min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={axes} for shapes {a.shape} and {b.shape}")
        summed_a, summed_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        summed_a = [normalize_dim(n, a.ndim) for n in axes[0]]
        summed_b = [normalize_dim(n, b.ndim) for n in axes[1]]
    sizes = [a.shape[i] for i in summed_a]
    if len(summed_a) != len(summed_b) or sizes != [b.shape[i] for i in summed_b]:
        raise ValueError(f"tensordot: axes {axes} of shapes {a.shape} and {b.shape} do not match")
    free_a = [i for i in range(a.ndim) if i not in summed_a]
    free_b = [i for i in range(b.ndim) if i not in summed_b]
    rows, cols = (numel([t.shape[i] for i in free]) for t, free in ((a, free_a), (b, free_b)))
    left = a.permute((*free_a, *summed_a)).reshape(rows, numel(sizes))
    right = b.permute((*summed_b, *free_b)).reshape(numel(sizes), cols)
    product = apply(optable.MATMUL, left, right)
    return product.reshape((*(a.shape[i] for i in free_a), *(b.shape[i] for i in free_b)))


def outer(x1: Operand, x2: Operand, /) -> StorageTensor:
    """`out[i, j] = x1[i] * x2[j]` for two 1-D tensors; differentiable.

    >>> import lazytensor as lt
    >>> lt.linalg.outer(lt.tensor([1, 2]), lt.tensor([1, 10])).tolist()
    [[1, 10], [2, 20]]
    """
    a, b = operand_tensor(x1), operand_tensor(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer takes two 1-D tensors, not shapes {a.shape} and {b.shape}")
    return apply(optable.MUL, a.unsqueeze(1), b.unsqueeze(0))


def cross(x1: Operand, x2: Operand, /, *, axis: int = -1) -> StorageTensor:
    """The cross product of 3-vectors along `axis` (the other axes broadcast); differentiable.

    >>> import lazytensor as lt
    >>> lt.linalg.cross(lt.tensor([1, 0, 0]), lt.tensor([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    return apply(optable.CROSS, x1, x2, axis=axis)


def inv(x: Operand, /) -> StorageTensor:
    """The inverse of each square matrix; differentiable.

    >>> import lazytensor as lt
    >>> lt.linalg.inv(lt.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return apply(optable.INV, x)


def det(x: Operand, /) -> StorageTensor:
    """The determinant of each square matrix; differentiable (where the matrix is invertible).

    >>> import lazytensor as lt
    >>> round(lt.linalg.det(lt.tensor([[1.0, 2.0], [3.0, 4.0]])).item(), 6)
    -2.0
    """
    return apply(optable.DET, x)


def solve(x1: Operand, x2: Operand, /) -> StorageTensor:
    """The solution of `x1 @ out = x2`: `x2` one vector when 1-D, else a stack of matrices (batch axes
    broadcast); differentiable in both.

    >>> import lazytensor as lt
    >>> lt.linalg.solve(lt.tensor([[2.0, 0.0], [0.0, 4.0]]), lt.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    return apply(optable.SOLVE, x1, x2)


def vector_norm(
    x: Operand,
    /,
    *,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    ord: float = 2,
) -> StorageTensor:
    """The `ord`-norm of the vectors along `axis` (None: all elements as one vector); differentiable.

    >>> import lazytensor as lt
    >>> v = lt.tensor([3.0, -4.0])
    >>> lt.linalg.vector_norm(v).item(), lt.linalg.vector_norm(v, ord=1).item()
    (5.0, 7.0)
    """
    axes = axis if axis is None or isinstance(axis, int) else tuple(axis)
    return apply(optable.VECTOR_NORM, x, axis=axes, keepdims=keepdims, ord=ord)


def matrix_norm(x: Operand, /, *, keepdims: bool = False, ord: float | str = "fro") -> StorageTensor:
    """The `ord`-norm of each matrix ('fro', 'nuc', 1, -1, 2, -2, inf, -inf); differentiable.

    >>> import lazytensor as lt
    >>> lt.linalg.matrix_norm(lt.tensor([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    """
    return apply(optable.MATRIX_NORM, _matrices(x, "matrix_norm"), keepdims=keepdims, ord=ord)


def cholesky(x: Operand, /, *, upper: bool = False) -> StorageTensor:
    """The Cholesky factor of each symmetric positive-definite matrix (lower, or upper if asked).

    >>> import lazytensor as lt
    >>> lt.linalg.cholesky(lt.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    return apply(optable.CHOLESKY, x, upper=upper)


class EighResult(NamedTuple):
    """The eigenvalues (ascending) and the eigenvectors (columns) of symmetric matrices."""

    eigenvalues: StorageTensor
    eigenvectors: StorageTensor


def eigh(x: Operand, /) -> EighResult:
    """The eigenvalues and eigenvectors of each symmetric (Hermitian) matrix.

    >>> import lazytensor as lt
    >>> lt.linalg.eigh(lt.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """
    return EighResult(apply(optable.EIGH_VALUES, x), apply(optable.EIGH_VECTORS, x))


def eigvalsh(x: Operand, /) -> StorageTensor:
    """The eigenvalues of each symmetric (Hermitian) matrix, ascending.

    >>> import lazytensor as lt
    >>> lt.linalg.eigvalsh(lt.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    return apply(optable.EIGVALSH, x)


def matrix_power(x: Operand, n: int, /) -> StorageTensor:
    """Each square matrix raised to the integer power `n` (negative: of its inverse).

    >>> import lazytensor as lt
    >>> lt.linalg.matrix_power(lt.tensor([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    return apply(optable.MATRIX_POWER, x, n=n)


def matrix_rank(x: Operand, /, *, rtol: Operand | None = None) -> StorageTensor:
    """The rank of each matrix: its singular values above `rtol` times the largest.

    >>> import lazytensor as lt
    >>> lt.linalg.matrix_rank(lt.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    return apply(optable.MATRIX_RANK, x, rtol=None if rtol is None else values_of(rtol))


def pinv(x: Operand, /, *, rtol: Operand | None = None) -> StorageTensor:
    """The Moore-Penrose pseudo-inverse of each matrix (singular values below `rtol` times the largest
    taken as zero).

    >>> import lazytensor as lt
    >>> lt.linalg.pinv(lt.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    return apply(optable.PINV, x, rtol=None if rtol is None else values_of(rtol))


class QRResult(NamedTuple):
    """The orthonormal factor Q and the upper-triangular factor R."""

    Q: StorageTensor
    R: StorageTensor


def qr(x: Operand, /, *, mode: str = "reduced") -> QRResult:
    """The QR decomposition of each matrix ('reduced' or 'complete').

    >>> import lazytensor as lt
    >>> q, r = lt.linalg.qr(lt.tensor([[3.0, 0.0], [4.0, 5.0]]))
    >>> lt.allclose(q @ r, [[3.0, 0.0], [4.0, 5.0]])
    True
    """
    return QRResult(apply(optable.QR_Q, x, mode=mode), apply(optable.QR_R, x, mode=mode))


class SlogdetResult(NamedTuple):
    """The sign of each determinant and the natural logarithm of its absolute value."""

    sign: StorageTensor
    logabsdet: StorageTensor


def slogdet(x: Operand, /) -> SlogdetResult:
    """The sign and the log of the absolute value of each determinant (no overflow for large ones).

    >>> import lazytensor as lt
    >>> [r.item() for r in lt.linalg.slogdet(lt.tensor([[-2.0, 0.0], [0.0, 1.0]]))]
    [-1.0, 0.6931471805599453]
    """
    return SlogdetResult(apply(optable.SLOGDET_SIGN, x), apply(optable.SLOGDET_LOGABSDET, x))


class SVDResult(NamedTuple):
    """The left singular vectors U, the singular values S (descending) and the right ones Vh."""

    U: StorageTensor
    S: StorageTensor
    Vh: StorageTensor


def svd(x: Operand, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition of each matrix: `x = U @ diag(S) @ Vh`.

    >>> import lazytensor as lt
    >>> lt.linalg.svd(lt.tensor([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
    [4.0, 3.0]
    """
    return SVDResult(
        apply(optable.SVD_U, x, full_matrices=full_matrices),
        apply(optable.SVD_S, x, full_matrices=full_matrices),
        apply(optable.SVD_VH, x, full_matrices=full_matrices),
    )


def svdvals(x: Operand, /) -> StorageTensor:
    """The singular values of each matrix, descending.

    >>> import lazytensor as lt
    >>> lt.linalg.svdvals(lt.tensor([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    return apply(optable.SVDVALS, x)

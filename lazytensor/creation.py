"""Making tensors: from Python data, numpy arrays or torch tensors, and filled ones."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.positions import as_shape
from lazytensor.tensor import AbstractTensor, StorageTensor


def _from_torch(data: Any) -> npt.NDArray[Any] | None:
    """A numpy copy of a torch tensor, without importing torch when it is not in use."""
    if type(data).__module__.split(".")[0] != "torch":
        return None
    return np.array(data.detach().cpu().numpy(), copy=True)


def _shape_of(args: tuple[Any, ...]) -> tuple[int, ...]:
    """Shape arguments (ints or one tuple), or the error naming the negative size."""
    shape = as_shape(args)
    if any(size < 0 for size in shape):
        raise ValueError(f"negative dimensions are not allowed: shape {shape}")
    return shape


def _leaf(array: npt.NDArray[Any], requires_grad: bool) -> StorageTensor:
    return StorageTensor.from_array(array).requires_grad_(requires_grad)


def tensor(data: Any, dtype: npt.DTypeLike | None = None, requires_grad: bool = False) -> StorageTensor:
    """A new tensor holding a copy of `data`: nested lists, a scalar, a numpy array or a torch tensor.

    >>> tensor([[1, 2], [3, 4]]).shape
    (2, 2)
    >>> from fractions import Fraction
    >>> tensor([Fraction(1, 3)]).dtype
    dtype('O')
    """
    if isinstance(data, AbstractTensor):
        data = data.numpy()
    array = _from_torch(data)
    if array is None:
        array = np.array(data, dtype=dtype, copy=True, order="C")
    elif dtype is not None:
        array = array.astype(dtype)
    return _leaf(array, requires_grad)


def from_numpy(array: npt.NDArray[Any]) -> StorageTensor:
    """A tensor sharing memory with `array` when it is C-contiguous (else over a copy).

    >>> a = np.zeros(3)
    >>> t = from_numpy(a)
    >>> t[0] = 5.0
    >>> a
    array([5., 0., 0.])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy takes a numpy array, got {type(array).__name__}")
    return StorageTensor.from_array(array)


def zeros(
    *shape: int | tuple[int, ...], dtype: npt.DTypeLike = np.float64, requires_grad: bool = False
) -> StorageTensor:
    """A tensor of zeros; the shape as ints or one tuple.

    >>> zeros(2, 3).shape
    (2, 3)
    """
    return _leaf(np.zeros(_shape_of(shape), dtype=dtype), requires_grad)


def ones(
    *shape: int | tuple[int, ...], dtype: npt.DTypeLike = np.float64, requires_grad: bool = False
) -> StorageTensor:
    """A tensor of ones; the shape as ints or one tuple.

    >>> ones((2,)).tolist()
    [1.0, 1.0]
    """
    return _leaf(np.ones(_shape_of(shape), dtype=dtype), requires_grad)


def full(
    shape: int | tuple[int, ...], value: Any, dtype: npt.DTypeLike | None = None, requires_grad: bool = False
) -> StorageTensor:
    """A tensor with every element `value`.

    >>> full((2,), 7).tolist()
    [7, 7]
    """
    return _leaf(np.full(_shape_of((shape,)), value, dtype=dtype), requires_grad)


def arange(
    start: float, stop: float | None = None, step: float = 1, dtype: npt.DTypeLike | None = None
) -> StorageTensor:
    """Evenly spaced values in `[start, stop)`, as numpy's `arange`.

    >>> arange(5).tolist(), arange(1, 2, 0.5).tolist()
    ([0, 1, 2, 3, 4], [1.0, 1.5])
    """
    if step == 0:
        raise ValueError(f"arange: the step must not be zero (start {start}, stop {stop})")
    values = np.arange(start, dtype=dtype) if stop is None else np.arange(start, stop, step, dtype=dtype)
    return StorageTensor.from_array(values)


def trandom(
    *shape: int | tuple[int, ...], seed: int | None = None, requires_grad: bool = False
) -> StorageTensor:
    """Uniform random values in [-1, 1); the same `seed` gives the same values.

    >>> trandom(2, 2, seed=0).shape
    (2, 2)
    """
    rng = np.random.default_rng(seed)
    return _leaf(rng.uniform(-1.0, 1.0, size=_shape_of(shape)), requires_grad)


def linspace(
    start: float,
    stop: float,
    num: int = 50,
    endpoint: bool = True,
    dtype: npt.DTypeLike | None = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """`num` evenly spaced values from `start` to `stop` (included unless `endpoint=False`), as numpy.

    >>> linspace(0, 1, 5).tolist(), linspace(0, 1, 4, endpoint=False).tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.25, 0.5, 0.75])
    """
    return _leaf(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype), requires_grad)


def eye(
    n: int,
    m: int | None = None,
    k: int = 0,
    dtype: npt.DTypeLike = np.float64,
    requires_grad: bool = False,
) -> StorageTensor:
    """An `n` by `m` (default `n`) tensor with ones on diagonal `k` (0: the main one) and zeros elsewhere.

    >>> eye(2).tolist(), eye(2, 3, k=1, dtype=int).tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [[0, 1, 0], [0, 0, 1]])
    """
    return _leaf(np.eye(n, m, k, dtype=dtype), requires_grad)


def randn(
    *shape: int | tuple[int, ...],
    seed: int | None = None,
    dtype: npt.DTypeLike = np.float64,
    requires_grad: bool = False,
) -> StorageTensor:
    """Samples of the standard normal distribution (mean 0, deviation 1); the same `seed` gives the
    same values.

    >>> t = randn(2, 3, seed=0)
    >>> t.shape, t.dtype, (t == randn((2, 3), seed=0)).all().item()
    ((2, 3), dtype('float64'), True)
    """
    rng = np.random.default_rng(seed)
    return _leaf(rng.standard_normal(_shape_of(shape)).astype(dtype), requires_grad)

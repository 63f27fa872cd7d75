"""Making tensors: from Python data, numpy arrays or torch tensors, and filled ones."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.ground import keywords, naming
from lazytensor.ground.positions import as_shape
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor


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


def _named(t: StorageTensor, names: Any) -> StorageTensor:
    """`t`, a new base, with its axes named (`names` None: left unnamed)."""
    naming.name_base(t, names)
    return t


def tensor(
    data: Any, dtype: npt.DTypeLike | None = None, requires_grad: bool = False, *, names: Any = None
) -> StorageTensor:
    """A new tensor holding a copy of `data`: nested lists, a scalar, a numpy array or a torch tensor;
    `names` names its axes (a tensor's own names are copied with it when `names` is not given).

    >>> tensor([[1, 2], [3, 4]]).shape
    (2, 2)
    >>> from fractions import Fraction
    >>> tensor([Fraction(1, 3)]).dtype
    dtype('O')
    >>> tensor([[1, 2, 3]], names=("row", "col")).names
    ('row', 'col')
    """
    if isinstance(data, AbstractTensor):
        if names is None and data.base.names_used:
            names = data.names
        data = data.numpy()
    array = _from_torch(data)
    if array is None:
        array = np.array(data, dtype=dtype, copy=True, order="C")
    elif dtype is not None:
        array = array.astype(dtype)
    return _named(_leaf(array, requires_grad), names)


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
    *shape: int | tuple[int, ...],
    dtype: npt.DTypeLike = np.float64,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
) -> StorageTensor:
    """A tensor of zeros; the shape as ints (PyTorch) or one tuple (numpy, the array API).

    >>> zeros(2, 3).shape, zeros((2, 3), dtype=np.int32, device="cpu").dtype
    ((2, 3), dtype('int32'))
    >>> zeros(2, 3, names=("row", "col")).names
    ('row', 'col')
    """
    keywords.device("zeros", device)
    return _named(_leaf(np.zeros(_shape_of(shape), dtype=dtype), requires_grad), names)


def ones(
    *shape: int | tuple[int, ...],
    dtype: npt.DTypeLike = np.float64,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
) -> StorageTensor:
    """A tensor of ones; the shape as ints or one tuple.

    >>> ones((2,)).tolist(), ones(2, dtype=bool).tolist()
    ([1.0, 1.0], [True, True])
    """
    keywords.device("ones", device)
    return _named(_leaf(np.ones(_shape_of(shape), dtype=dtype), requires_grad), names)


def empty(
    shape: int | tuple[int, ...],
    *more: int,
    dtype: npt.DTypeLike = np.float64,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
) -> StorageTensor:
    """A tensor whose values are whatever the new memory held (numpy's `empty`: write before reading);
    the shape as one int, a tuple (numpy's and the array API's `shape=`), or several ints.

    >>> empty((2, 3), dtype=np.int8).shape, empty(2, 3).shape, empty(shape=4).shape
    ((2, 3), (2, 3), (4,))
    """
    keywords.device("empty", device)
    return _named(_leaf(np.empty(_shape_of((shape, *more)), dtype=dtype), requires_grad), names)


def full(
    shape: int | tuple[int, ...],
    fill_value: Any,
    dtype: npt.DTypeLike | None = None,
    device: Any = None,
    requires_grad: bool = False,
    *,
    names: Any = None,
) -> StorageTensor:
    """A tensor with every element `fill_value` (its dtype by numpy's rule unless `dtype` is given).

    >>> full((2,), 7).tolist(), full(2, fill_value=0.5).tolist()
    ([7, 7], [0.5, 0.5])
    """
    keywords.device("full", device)
    return _named(
        _leaf(np.full(_shape_of((shape,)), _fill_value(fill_value), dtype=dtype), requires_grad), names
    )


def _fill_value(fill_value: Any) -> Any:
    """A fill value as numpy takes it (a tensor's values)."""
    return fill_value.numpy() if isinstance(fill_value, AbstractTensor) else fill_value


def _like(prototype: Any, dtype: npt.DTypeLike | None, shape: Any) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype of a `*_like` result: the prototype's unless given."""
    if isinstance(prototype, AbstractTensor):
        own_shape, own_dtype = prototype.shape, prototype.dtype
    else:
        array = np.asarray(prototype)
        own_shape, own_dtype = array.shape, array.dtype
    chosen_shape = own_shape if shape is None else _shape_of((shape,))
    return chosen_shape, own_dtype if dtype is None else np.dtype(dtype)


def zeros_like(
    prototype: Any,
    dtype: npt.DTypeLike | None = None,
    shape: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """Zeros of the prototype's shape and dtype (numpy's `zeros_like`).

    >>> zeros_like(arange(3)).tolist(), zeros_like([[1.5]], dtype=int).tolist()
    ([0, 0, 0], [[0]])
    """
    keywords.device("zeros_like", device)
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape)
    return _leaf(np.zeros(chosen_shape, dtype=chosen_dtype), requires_grad)


def ones_like(
    prototype: Any,
    dtype: npt.DTypeLike | None = None,
    shape: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """Ones of the prototype's shape and dtype (numpy's `ones_like`).

    >>> ones_like(zeros(2, 1)).tolist()
    [[1.0], [1.0]]
    """
    keywords.device("ones_like", device)
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape)
    return _leaf(np.ones(chosen_shape, dtype=chosen_dtype), requires_grad)


def empty_like(
    prototype: Any,
    dtype: npt.DTypeLike | None = None,
    shape: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """A tensor of the prototype's shape and dtype whose values are unset (numpy's `empty_like`).

    >>> empty_like(zeros(2, 3)).shape
    (2, 3)
    """
    keywords.device("empty_like", device)
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape)
    return _leaf(np.empty(chosen_shape, dtype=chosen_dtype), requires_grad)


def full_like(
    prototype: Any,
    fill_value: Any,
    dtype: npt.DTypeLike | None = None,
    shape: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """`fill_value` in the prototype's shape and dtype (numpy's `full_like`: the value is cast).

    >>> full_like(arange(3), 2.7).tolist()
    [2, 2, 2]
    """
    keywords.device("full_like", device)
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape)
    return _leaf(np.full(chosen_shape, _fill_value(fill_value), dtype=chosen_dtype), requires_grad)


def arange(
    start: float,
    stop: float | None = None,
    step: float = 1,
    dtype: npt.DTypeLike | None = None,
    device: Any = None,
    *,
    names: Any = None,
) -> StorageTensor:
    """Evenly spaced values in `[start, stop)`, as numpy's `arange`; one bound alone is the stop,
    counted from 0 by `step`.

    >>> arange(5).tolist(), arange(1, 2, 0.5).tolist(), arange(10, step=3).tolist()
    ([0, 1, 2, 3, 4], [1.0, 1.5], [0, 3, 6, 9])
    """
    keywords.device("arange", device)
    if step == 0:
        raise ValueError(f"arange: the step must not be zero (start {start}, stop {stop})")
    if stop is None:
        start, stop = 0, start
    return _named(StorageTensor.from_array(np.arange(start, stop, step, dtype=dtype)), names)


def trandom(
    *shape: int | tuple[int, ...], seed: int | None = None, requires_grad: bool = False, names: Any = None
) -> StorageTensor:
    """Uniform random values in [-1, 1); the same `seed` gives the same values.

    >>> trandom(2, 2, seed=0).shape
    (2, 2)
    """
    rng = np.random.default_rng(seed)
    return _named(_leaf(rng.uniform(-1.0, 1.0, size=_shape_of(shape)), requires_grad), names)


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

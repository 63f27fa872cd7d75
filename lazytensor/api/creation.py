"""Making tensors: from Python data, numpy arrays or torch tensors, and filled ones."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.ground import arguments, keywords, naming
from lazytensor.ground import coords as labels
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor, values_of


def _from_torch(data: Any) -> npt.NDArray[Any] | None:
    """A numpy copy of a torch tensor, without importing torch when it is not in use."""
    if type(data).__module__.split(".")[0] != "torch":
        return None
    return np.array(data.detach().cpu().numpy(), copy=True)


def _shape_of(args: tuple[Any, ...], what: str) -> tuple[int, ...]:
    """Shape arguments (ints or one tuple), or the error naming the function and the bad size."""
    return arguments.shape(what, args)


def _filled(what: str, shape: tuple[int, ...], fill_value: Any, dtype: Any) -> npt.NDArray[Any]:
    """`np.full`, with a fill value numpy cannot cast to `dtype` refused in lazytensor's words."""
    try:
        return np.full(shape, _fill_value(fill_value), dtype=dtype)
    except (TypeError, ValueError, OverflowError) as error:
        raise type(error)(
            f"{what}: fill_value {arguments.quoted(fill_value)} cannot be a {np.dtype(dtype)} value "
            f"({' '.join(str(error).split())})"
        ) from None


def _leaf(array: npt.NDArray[Any], requires_grad: bool) -> StorageTensor:
    return StorageTensor.from_array(array).requires_grad_(requires_grad)


def _named(t: StorageTensor, names: Any, coords: Any = None) -> StorageTensor:
    """`t`, a new base, with its axes named (`names` None: left unnamed) and labelled by `coords` (a
    dict of axis name to labels, for named axes)."""
    naming.name_base(t, names)
    if coords is not None:
        if not t.names_used:
            raise ValueError(f"coords label named axes: name the axes of shape {t.shape} with names= first")
        labels.label_base(t, labels.checked(coords, t.names, t.shape))
    return t


def tensor(
    data: Any,
    dtype: npt.DTypeLike | None = None,
    requires_grad: bool = False,
    *,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A new tensor holding a copy of `data`: nested lists, a scalar, a numpy array or a torch tensor;
    `names` names its axes and `coords` labels them (a tensor's own names and coordinates are copied
    with it when `names` is not given).

    >>> tensor([[1, 2], [3, 4]]).shape
    (2, 2)
    >>> from fractions import Fraction
    >>> tensor([Fraction(1, 3)]).dtype
    dtype('O')
    >>> tensor([[1, 2, 3]], names=("row", "col")).names
    ('row', 'col')
    """
    dtype = arguments.dtype("tensor", dtype)
    if isinstance(data, AbstractTensor):
        if names is None and data.base.names_used:
            names = data.names
            coords = data.coords if coords is None and data.coords else coords
        data = data.numpy()
    array = _from_torch(data)
    if array is None:
        array = np.array(data, dtype=dtype, copy=True, order="C")
    elif dtype is not None:
        array = array.astype(dtype)
    return _named(_leaf(array, requires_grad), names, coords)


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
    coords: Any = None,
) -> StorageTensor:
    """A tensor of zeros; the shape as ints (PyTorch) or one tuple (numpy, the array API).

    >>> zeros(2, 3).shape, zeros((2, 3), dtype=np.int32, device="cpu").dtype
    ((2, 3), dtype('int32'))
    >>> zeros(2, 3, names=("row", "col")).names
    ('row', 'col')
    """
    keywords.device("zeros", device)
    chosen = arguments.dtype("zeros", dtype)
    return _named(_leaf(np.zeros(_shape_of(shape, "zeros"), dtype=chosen), requires_grad), names, coords)


def ones(
    *shape: int | tuple[int, ...],
    dtype: npt.DTypeLike = np.float64,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A tensor of ones; the shape as ints or one tuple.

    >>> ones((2,)).tolist(), ones(2, dtype=bool).tolist()
    ([1.0, 1.0], [True, True])
    """
    keywords.device("ones", device)
    chosen = arguments.dtype("ones", dtype)
    return _named(_leaf(np.ones(_shape_of(shape, "ones"), dtype=chosen), requires_grad), names, coords)


def empty(
    shape: int | tuple[int, ...],
    *more: int,
    dtype: npt.DTypeLike = np.float64,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A tensor whose values are whatever the new memory held (numpy's `empty`: write before reading);
    the shape as one int, a tuple (numpy's and the array API's `shape=`), or several ints.

    >>> empty((2, 3), dtype=np.int8).shape, empty(2, 3).shape, empty(shape=4).shape
    ((2, 3), (2, 3), (4,))
    """
    keywords.device("empty", device)
    chosen = arguments.dtype("empty", dtype)
    return _named(
        _leaf(np.empty(_shape_of((shape, *more), "empty"), dtype=chosen), requires_grad), names, coords
    )


def full(
    shape: int | tuple[int, ...],
    fill_value: Any,
    dtype: npt.DTypeLike | None = None,
    device: Any = None,
    requires_grad: bool = False,
    *,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A tensor with every element `fill_value` (its dtype by numpy's rule unless `dtype` is given).

    >>> full((2,), 7).tolist(), full(2, fill_value=0.5).tolist()
    ([7, 7], [0.5, 0.5])
    """
    keywords.device("full", device)
    chosen = arguments.dtype("full", dtype)
    return _named(
        _leaf(_filled("full", _shape_of((shape,), "full"), fill_value, chosen), requires_grad), names, coords
    )


def _fill_value(fill_value: Any) -> Any:
    """A fill value as numpy takes it (a tensor's values)."""
    return fill_value.numpy() if isinstance(fill_value, AbstractTensor) else fill_value


def _like(
    prototype: Any, dtype: npt.DTypeLike | None, shape: Any, what: str
) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype of a `*_like` result (`what`, for errors): the prototype's unless given."""
    if isinstance(prototype, AbstractTensor):
        own_shape, own_dtype = prototype.shape, prototype.dtype
    else:
        array = np.asarray(prototype)
        own_shape, own_dtype = array.shape, array.dtype
    chosen_shape = own_shape if shape is None else _shape_of((shape,), what)
    chosen_dtype = arguments.dtype(what, dtype)
    return chosen_shape, own_dtype if chosen_dtype is None else chosen_dtype


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
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape, "zeros_like")
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
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape, "ones_like")
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
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape, "empty_like")
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
    chosen_shape, chosen_dtype = _like(prototype, dtype, shape, "full_like")
    return _leaf(_filled("full_like", chosen_shape, fill_value, chosen_dtype), requires_grad)


def arange(
    start: float,
    stop: float | None = None,
    step: float = 1,
    dtype: npt.DTypeLike | None = None,
    device: Any = None,
    *,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """Evenly spaced values in `[start, stop)`, as numpy's `arange`; one bound alone is the stop,
    counted from 0 by `step`.

    >>> arange(5).tolist(), arange(1, 2, 0.5).tolist(), arange(10, step=3).tolist()
    ([0, 1, 2, 3, 4], [1.0, 1.5], [0, 3, 6, 9])
    """
    keywords.device("arange", device)
    arguments.finite("arange", "start" if stop is not None else "stop", start)  # one bound: the stop
    if stop is not None:
        arguments.finite("arange", "stop", stop)
    arguments.finite("arange", "step", step)
    if step == 0:
        raise ValueError(f"arange: the step must not be zero (start {start}, stop {stop})")
    if stop is None:
        start, stop = 0, start
    chosen = arguments.dtype("arange", dtype)
    length = math.ceil((float(stop) - float(start)) / float(step))
    if length > arguments.LONGEST_AXIS:
        raise ValueError(
            f"arange: start {start}, stop {stop}, step {step} make {length} values, more than an axis "
            f"numpy can index ({arguments.LONGEST_AXIS})"
        )
    return _named(StorageTensor.from_array(np.arange(start, stop, step, dtype=chosen)), names, coords)


def trandom(
    *shape: int | tuple[int, ...],
    seed: int | None = None,
    requires_grad: bool = False,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """Uniform random values in [-1, 1); the same `seed` gives the same values.

    >>> trandom(2, 2, seed=0).shape
    (2, 2)
    """
    rng = np.random.default_rng(seed)
    return _named(
        _leaf(rng.uniform(-1.0, 1.0, size=_shape_of(shape, "trandom")), requires_grad), names, coords
    )


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
    first, last = _bound("linspace", "start", start), _bound("linspace", "stop", stop)
    count = arguments.count("linspace", "num", num)
    chosen = arguments.dtype("linspace", dtype)
    return _leaf(np.linspace(first, last, count, endpoint=endpoint, dtype=chosen), requires_grad)


def _bound(what: str, argument: str, value: Any) -> Any:
    """A bound of `linspace`: a number or an array of numbers, as numpy takes them (a tensor: its values).

    >>> _bound("linspace", "start", tensor([0.0, 1.0])).tolist(), _bound("linspace", "stop", 2)
    ([0.0, 1.0], 2)
    """
    values = values_of(value) if isinstance(value, AbstractTensor) else value
    try:
        kind = np.asarray(values).dtype.kind
    except (TypeError, ValueError):  # a ragged list, an object numpy cannot read
        kind = "O"
    if kind not in "biufc":
        raise TypeError(
            f"{what}: {argument} must be a number or an array of numbers, got {arguments.quoted(value)} "
            f"({type(value).__name__})"
        )
    return values


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
    rows = arguments.count("eye", "n_rows", n)
    columns = rows if m is None else arguments.count("eye", "n_cols", m)
    offset = arguments.integer("eye", "k", k)
    return _leaf(np.eye(rows, columns, offset, dtype=arguments.dtype("eye", dtype)), requires_grad)


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
    sizes = _shape_of(shape, "randn")
    return _leaf(rng.standard_normal(sizes).astype(arguments.dtype("randn", dtype)), requires_grad)

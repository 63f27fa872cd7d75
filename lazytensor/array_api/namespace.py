"""The array API standard's functions beyond the elementwise ones: creation, data types, manipulation,
indexing, searching, sets, sorting, statistics and utilities, with the standard's signatures.

Every operation applies an entry of the operator table (so gradients follow its rule, or it has
none), and every function the standard names a view — `permute_dims`, `expand_dims`, `moveaxis`,
`broadcast_to`, `flip`, `reshape`, `squeeze`, `unstack`, `broadcast_arrays` — returns a lazy wrapper
over its input, never a copy. An input may be a tensor, or anything `asarray` takes.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from lazytensor.api import creation
from lazytensor.array_api.datatypes import check_device
from lazytensor.engine import optable
from lazytensor.ground import arguments
from lazytensor.ground.positions import normalize_dim, normalize_dims, numel
from lazytensor.tensors.apply import apply, apply_to_sequence
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor, values_of

Operand = Any
"""A tensor, or anything `asarray` takes (a numpy array, nested lists, a Python scalar)."""

Axes = int | Sequence[int] | None


def operand_tensor(x: Operand) -> AbstractTensor:
    """`x` as a tensor: itself when it is one, else `asarray(x)` (no copy when numpy can avoid one)."""
    return x if isinstance(x, AbstractTensor) else asarray(x)


_UNSET: Any = object()
"""The default of a `dim=` keyword that was not given (None is a value `dim` can take)."""


def _axis_or_dim(axis: Any, dim: Any, default: Any) -> Any:
    """The axis named by `axis=` (the standard's and numpy's word) or `dim=` (PyTorch's), not both."""
    if dim is _UNSET:
        return axis
    if axis != default:
        raise TypeError(f"give the axis as axis= or as dim=, not both (axis={axis}, dim={dim})")
    return dim


def _axes(axis: Axes) -> int | tuple[int, ...] | None:
    return axis if axis is None or isinstance(axis, int) else tuple(axis)


# -- creation --------------------------------------------------------------------------------------


def asarray(
    obj: Any, /, *, dtype: npt.DTypeLike | None = None, device: Any = None, copy: bool | None = None
) -> AbstractTensor:
    """`obj` as a tensor: a tensor of the right dtype as it is (unless `copy=True`), a C-contiguous
    numpy array without a copy (unless `copy=True`), anything else (lists, scalars, buffers) copied;
    `copy=False` raises ValueError where a copy would be needed.

    >>> import lazytensor as lt, numpy as np
    >>> a = np.zeros(3)
    >>> t = lt.asarray(a)
    >>> t[0] = 7.0
    >>> a[0], lt.asarray([1, 2], dtype=lt.float32).dtype, lt.asarray(t) is t
    (np.float64(7.0), dtype('float32'), True)
    """
    check_device(device)
    dtype = arguments.dtype("asarray", dtype)
    if isinstance(obj, AbstractTensor):
        if dtype is not None and np.dtype(dtype) != obj.dtype:
            if copy is False:
                raise ValueError(
                    f"asarray: converting {obj.dtype} to {np.dtype(dtype)} needs a copy (copy=False)"
                )
            return astype(obj, dtype)
        return obj.clone() if copy else obj
    if copy:
        array = np.array(obj, dtype=dtype, copy=True, order="C")
    else:
        array = np.asarray(obj, dtype=dtype, copy=copy)
    if array.dtype.kind in "USO" and not isinstance(obj, np.ndarray):
        # the standard's asarray takes numbers; clients (scikit-learn) rely on text being refused
        first = array.reshape(-1)[0] if array.size else ""
        first = first.item() if isinstance(first, np.generic) else first
        raise TypeError(
            f"asarray takes numbers and bools, not text or objects such as {first!r} "
            "(lt.tensor makes a tensor of them)"
        )
    if copy:
        return StorageTensor.from_array(array)
    if copy is False and not array.flags.c_contiguous:
        raise ValueError(
            f"asarray: an array of strides {array.strides} needs a copy to be a tensor (copy=False)"
        )
    return StorageTensor.from_array(array)


def zeros(
    shape: int | Sequence[int],
    *more: int,
    dtype: npt.DTypeLike | None = None,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A tensor of zeros (float64 unless `dtype`); the shape as one int, a tuple, or several ints.

    >>> import lazytensor as lt
    >>> lt.zeros((2, 3), dtype=lt.int32).tolist(), lt.zeros(2, 1).shape
    ([[0, 0, 0], [0, 0, 0]], (2, 1))
    >>> lt.zeros(2, 3, names=("trial", "time")).names
    ('trial', 'time')
    """
    check_device(device)
    dtype = np.float64 if dtype is None else dtype
    sizes = arguments.shape("zeros", (shape, *more))
    return creation.zeros(sizes, dtype=dtype, requires_grad=requires_grad, names=names, coords=coords)


def ones(
    shape: int | Sequence[int],
    *more: int,
    dtype: npt.DTypeLike | None = None,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A tensor of ones (float64 unless `dtype`); the shape as one int, a tuple, or several ints.

    >>> import lazytensor as lt
    >>> lt.ones((2,), dtype=lt.bool).tolist(), lt.ones(1, 2).tolist()
    ([True, True], [[1.0, 1.0]])
    """
    check_device(device)
    dtype = np.float64 if dtype is None else dtype
    sizes = arguments.shape("ones", (shape, *more))
    return creation.ones(sizes, dtype=dtype, requires_grad=requires_grad, names=names, coords=coords)


def full(
    shape: int | Sequence[int],
    fill_value: Any,
    dtype: npt.DTypeLike | None = None,
    *,
    device: Any = None,
    requires_grad: bool = False,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """A tensor with every element `fill_value` (its dtype from the value unless `dtype`).

    >>> import lazytensor as lt
    >>> lt.full((2,), 7).tolist(), lt.full(2, True).dtype
    ([7, 7], dtype('bool'))
    """
    check_device(device)
    sizes = arguments.shape("full", (shape,))
    return creation.full(
        sizes, fill_value, dtype=dtype, requires_grad=requires_grad, names=names, coords=coords
    )


def arange(
    start: float,
    /,
    stop: float | None = None,
    step: float = 1,
    dtype: npt.DTypeLike | None = None,
    *,
    device: Any = None,
    names: Any = None,
    coords: Any = None,
) -> StorageTensor:
    """Evenly spaced values in `[start, stop)` (`[0, start)` with one bound), as numpy's `arange`.

    >>> import lazytensor as lt
    >>> lt.arange(10, step=3).tolist(), lt.arange(1, 2, 0.5).tolist()
    ([0, 3, 6, 9], [1.0, 1.5])
    """
    check_device(device)
    return creation.arange(start, stop, step, dtype, names=names, coords=coords)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    k: int = 0,
    dtype: npt.DTypeLike | None = None,
    *,
    device: Any = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """An `n_rows` by `n_cols` (default `n_rows`) tensor with ones on diagonal `k`, zeros elsewhere.

    >>> import lazytensor as lt
    >>> lt.eye(2, 3, k=1, dtype=lt.int8).tolist()
    [[0, 1, 0], [0, 0, 1]]
    """
    check_device(device)
    dtype = np.float64 if dtype is None else dtype
    return creation.eye(n_rows, n_cols, k, dtype=dtype, requires_grad=requires_grad)


def linspace(
    start: complex,
    stop: complex,
    /,
    num: int = 50,
    endpoint: bool = True,
    dtype: npt.DTypeLike | None = None,
    *,
    device: Any = None,
    requires_grad: bool = False,
) -> StorageTensor:
    """`num` evenly spaced values from `start` to `stop` (included unless `endpoint=False`); complex
    bounds give complex values.

    >>> import lazytensor as lt
    >>> lt.linspace(0, 1, 5).tolist(), lt.linspace(0, 1, 4, endpoint=False).tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.25, 0.5, 0.75])
    """
    check_device(device)
    return creation.linspace(
        start,  # type: ignore[arg-type]
        stop,  # type: ignore[arg-type]
        num,
        endpoint=endpoint,
        dtype=dtype,
        requires_grad=requires_grad,
    )


def meshgrid(*arrays: Operand, indexing: str = "xy") -> list[StorageTensor]:
    """Coordinate grids from 1-D tensors: one tensor per input, each the input broadcast along the
    other axes ("xy": the first two axes swapped, as for plotting; "ij": matrix order). Differentiable.

    >>> import lazytensor as lt
    >>> x, y = lt.meshgrid(lt.arange(3), lt.arange(2))
    >>> x.tolist(), y.tolist()
    ([[0, 1, 2], [0, 1, 2]], [[0, 0, 0], [1, 1, 1]])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    tensors = [operand_tensor(a) for a in arrays]
    for i, t in enumerate(tensors):
        if t.ndim != 1:
            raise ValueError(f"meshgrid takes 1-D tensors; tensor {i} has shape {t.shape}")
    sizes = [t.shape[0] for t in tensors]
    axis_of = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axis_of[0], axis_of[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for t, axis in zip(tensors, axis_of, strict=True):
        shape = [1] * len(tensors)
        shape[axis] = t.shape[0]
        grids.append(apply(optable.ASTYPE, t.reshape(shape).broadcast_to(sizes), dtype=t.dtype))
    return grids


def tril(x: Operand, /, *, k: int = 0) -> StorageTensor:
    """The lower triangle of each matrix: zeros above diagonal `k`.

    >>> import lazytensor as lt
    >>> lt.tril(lt.ones(2, 2)).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return apply(optable.TRIL, x, k=arguments.integer("tril", "k", k))


def triu(x: Operand, /, *, k: int = 0) -> StorageTensor:
    """The upper triangle of each matrix: zeros below diagonal `k`.

    >>> import lazytensor as lt
    >>> lt.triu(lt.ones(2, 2)).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    return apply(optable.TRIU, x, k=arguments.integer("triu", "k", k))


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> StorageTensor:
    """A tensor over the memory of any object that exports DLPack (a numpy array, a tensor of another
    library on the CPU), shared when it is C-contiguous and `copy` is not True.

    >>> import lazytensor as lt, numpy as np
    >>> a = np.arange(3.0)
    >>> t = lt.from_dlpack(a)
    >>> t[0] = 9.0
    >>> a.tolist()
    [9.0, 1.0, 2.0]
    """
    check_device(device)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            f"from_dlpack: {type(x).__name__!r} has no __dlpack__ method: pass a numpy array or a "
            "tensor of another library that exports DLPack"
        )
    array = np.from_dlpack(x, device=device, copy=copy)
    if copy is False and not array.flags.c_contiguous:
        raise ValueError(f"from_dlpack: an array of strides {array.strides} needs a copy (copy=False)")
    return StorageTensor.from_array(array)


# -- data types --------------------------------------------------------------------------------------


def astype(x: Operand, dtype: npt.DTypeLike, /, *, copy: bool = True, device: Any = None) -> AbstractTensor:
    """`x` converted to `dtype` (numpy's casting), a copy unless `copy=False` and the dtype is already
    right; differentiable between floating dtypes.

    >>> import lazytensor as lt
    >>> t = lt.tensor([1.7, -2.5])
    >>> lt.astype(t, lt.int32).tolist(), lt.astype(t, lt.float64, copy=False) is t
    ([1, -2], True)
    """
    check_device(device)
    tensor = operand_tensor(x)
    if not copy and tensor.dtype == np.dtype(dtype):
        return tensor
    return apply(optable.ASTYPE, tensor, dtype=np.dtype(dtype))


# -- manipulation: views where the standard allows them -----------------------------------------------


def broadcast_arrays(*arrays: Operand) -> list[AbstractTensor]:
    """The tensors broadcast against each other: read-only views, none copied.

    >>> import lazytensor as lt
    >>> [t.shape for t in lt.broadcast_arrays(lt.zeros(2, 1), lt.zeros(3))]
    [(2, 3), (2, 3)]
    """
    tensors = [operand_tensor(a) for a in arrays]
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return [t.broadcast_to(shape) for t in tensors]


def broadcast_to(x: Operand, /, shape: Sequence[int]) -> AbstractTensor:
    """`x` broadcast to `shape` by numpy's rules: a read-only view.

    >>> import lazytensor as lt
    >>> lt.broadcast_to(lt.arange(3), (2, 3)).tolist()
    [[0, 1, 2], [0, 1, 2]]
    """
    return operand_tensor(x).broadcast_to(shape)


def concat(arrays: Sequence[Operand], /, *, axis: int | None = 0) -> StorageTensor:
    """The tensors joined along `axis` (None: each flattened first), in new storage; differentiable.

    >>> import lazytensor as lt
    >>> lt.concat([lt.zeros(1, 2), lt.ones(1, 2)], axis=1).tolist(), lt.concat([lt.eye(2)], axis=None).shape
    ([[0.0, 0.0, 1.0, 1.0]], (4,))
    """
    tensors = [operand_tensor(a) for a in arrays]
    if axis is None:
        return apply_to_sequence(optable.CAT, [t.reshape(-1) for t in tensors], dim=0)
    return apply_to_sequence(optable.CAT, tensors, dim=axis)


def expand_dims(x: Operand, /, axis: int = 0) -> AbstractTensor:
    """A size-1 axis inserted at `axis` (a view).

    >>> import lazytensor as lt
    >>> lt.expand_dims(lt.zeros(2, 3), axis=-1).shape
    (2, 3, 1)
    """
    return operand_tensor(x).unsqueeze(axis)


def flip(x: Operand, /, *, axis: Axes = None) -> AbstractTensor:
    """The order of the elements reversed along `axis` (None: every axis): a view.

    >>> import lazytensor as lt
    >>> lt.flip(lt.arange(3)).tolist()
    [2, 1, 0]
    """
    return operand_tensor(x).flip(_axes(axis))


def _axis_list(axes: int | Sequence[int], ndim: int, what: str) -> list[int]:
    listed = [axes] if isinstance(axes, int) else list(axes)
    found = [normalize_dim(axis, ndim) for axis in listed]
    if len(set(found)) != len(found):
        raise ValueError(f"moveaxis: repeated axis in {what} {axes}")
    return found


def moveaxis(x: Operand, source: int | Sequence[int], destination: int | Sequence[int], /) -> AbstractTensor:
    """The axes `source` moved to the positions `destination`, the others keeping their order (a view).

    >>> import lazytensor as lt
    >>> lt.moveaxis(lt.zeros(2, 3, 4), 0, -1).shape
    (3, 4, 2)
    """
    tensor = operand_tensor(x)
    moved = _axis_list(source, tensor.ndim, "source")
    places = _axis_list(destination, tensor.ndim, "destination")
    if len(moved) != len(places):
        raise ValueError(f"moveaxis: source {source} and destination {destination} differ in length")
    order = [axis for axis in range(tensor.ndim) if axis not in moved]
    for place, axis in sorted(zip(places, moved, strict=True)):
        order.insert(place, axis)
    return tensor.permute(order)


def permute_dims(x: Operand, /, axes: Sequence[int]) -> AbstractTensor:
    """The axes reordered: axis `i` of the result is axis `axes[i]` of `x` (a view).

    >>> import lazytensor as lt
    >>> lt.permute_dims(lt.zeros(2, 3, 4), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return operand_tensor(x).permute(tuple(axes))


def repeat(x: Operand, repeats: int | Operand, /, *, axis: int | None = None) -> StorageTensor:
    """Each element along `axis` (None: of the flattened tensor) repeated `repeats` times, an int or
    one count per element; differentiable.

    >>> import lazytensor as lt
    >>> lt.repeat(lt.tensor([[1, 2]]), 2, axis=1).tolist()
    [[1, 1, 2, 2]]
    >>> lt.repeat(lt.tensor([1, 2]), lt.tensor([0, 3])).tolist()
    [2, 2, 2]
    """
    tensor = operand_tensor(x)
    if axis is None:
        tensor, axis = tensor.reshape(-1), 0
    counts = repeats if isinstance(repeats, int) else np.asarray(values_of(repeats))
    return apply(optable.REPEAT, tensor, repeats=counts, axis=axis)


def reshape(x: Operand, /, shape: Sequence[int], *, copy: bool | None = None) -> AbstractTensor:
    """The same elements in row-major order under `shape` (one -1 inferred): a view, whatever the
    layout, unless `copy=True`.

    >>> import lazytensor as lt
    >>> lt.reshape(lt.arange(6), (2, -1)).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    view = operand_tensor(x).reshape(tuple(shape))
    return apply(optable.ASTYPE, view, dtype=view.dtype) if copy else view


def roll(x: Operand, /, shift: int | Sequence[int], *, axis: Axes = None) -> StorageTensor:
    """The elements shifted by `shift` along `axis` (None: the flattened tensor), wrapping round.

    >>> import lazytensor as lt
    >>> lt.roll(lt.arange(4), 1).tolist(), lt.roll(lt.eye(2), 1, axis=0).tolist()
    ([3, 0, 1, 2], [[0.0, 1.0], [1.0, 0.0]])
    """
    amount = shift if isinstance(shift, int) else tuple(shift)
    return apply(optable.ROLL, x, shift=amount, axis=_axes(axis))


def squeeze(x: Operand, /, axis: int | Sequence[int]) -> AbstractTensor:
    """The size-1 axes `axis` removed (ValueError for an axis whose size is not 1): a view.

    >>> import lazytensor as lt
    >>> lt.squeeze(lt.zeros(1, 3, 1), axis=(0, 2)).shape
    (3,)
    """
    return operand_tensor(x).squeeze(_axes(axis))


def stack(arrays: Sequence[Operand], /, axis: int = 0, *, dim: int | None = _UNSET) -> StorageTensor:
    """The tensors, all of one shape, stacked along a new axis `axis` (PyTorch's `dim=` too), in new
    storage; differentiable.

    >>> import lazytensor as lt
    >>> lt.stack([lt.tensor([1, 2]), lt.tensor([3, 4])], axis=1).tolist()
    [[1, 3], [2, 4]]
    """
    return apply_to_sequence(optable.STACK, list(arrays), dim=_axis_or_dim(axis, dim, 0))


def tile(x: Operand, repetitions: Sequence[int], /) -> StorageTensor:
    """`x` repeated `repetitions[i]` times along axis `i` (aligned from the last axis); differentiable.

    >>> import lazytensor as lt
    >>> lt.tile(lt.tensor([1, 2]), (2, 2)).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    return apply(optable.TILE, x, repetitions=tuple(repetitions))


def unstack(x: Operand, /, *, axis: int = 0) -> tuple[AbstractTensor, ...]:
    """Views of every index along `axis`, that axis removed.

    >>> import lazytensor as lt
    >>> [t.tolist() for t in lt.unstack(lt.tensor([[1, 2], [3, 4]]), axis=1)]
    [[1, 3], [2, 4]]
    """
    return operand_tensor(x).unbind(axis)


# -- indexing ----------------------------------------------------------------------------------------


def take(x: Operand, indices: Operand, /, *, axis: int | None = None) -> StorageTensor:
    """The elements at the 1-D `indices` along `axis` (None: of a 1-D `x`), in new storage, as
    numpy's `take`; differentiable (repeated indices accumulate).

    >>> import lazytensor as lt
    >>> lt.take(lt.tensor([[1, 2], [3, 4]]), lt.tensor([1, 1, 0]), axis=1).tolist()
    [[2, 2, 1], [4, 4, 3]]
    """
    return apply(optable.TAKE, x, indices, axis=axis)


def take_along_axis(x: Operand, indices: Operand, /, *, axis: int = -1) -> StorageTensor:
    """`out[..., i, ...] = x[..., indices[..., i, ...], ...]` along `axis`, the other axes broadcast.

    >>> import lazytensor as lt
    >>> lt.take_along_axis(lt.tensor([[10, 30, 20]]), lt.tensor([[0, 2, 1]])).tolist()
    [[10, 20, 30]]
    """
    return apply(optable.TAKE_ALONG_AXIS, x, indices, axis=axis)


# -- searching -------------------------------------------------------------------------------------


def argmax(x: Operand, /, *, axis: int | None = None, keepdims: bool = False) -> StorageTensor:
    """The index of the first largest element along `axis` (None: of the flattened tensor).

    >>> import lazytensor as lt
    >>> lt.argmax(lt.tensor([[1, 9], [7, 2]]), axis=0).tolist()
    [1, 0]
    """
    return apply(optable.ARGMAX, x, dim=axis, keepdim=keepdims)


def argmin(x: Operand, /, *, axis: int | None = None, keepdims: bool = False) -> StorageTensor:
    """The index of the first smallest element along `axis` (None: of the flattened tensor).

    >>> import lazytensor as lt
    >>> lt.argmin(lt.tensor([[1, 9], [7, 2]]), axis=1, keepdims=True).tolist()
    [[0], [1]]
    """
    return apply(optable.ARGMIN, x, dim=axis, keepdim=keepdims)


def count_nonzero(x: Operand, /, *, axis: Axes = None, keepdims: bool = False) -> StorageTensor:
    """How many elements are not zero along `axis` (None: all), as int64.

    >>> import lazytensor as lt
    >>> lt.count_nonzero(lt.tensor([[0, 1], [2, 3]]), axis=1).tolist()
    [1, 2]
    """
    return apply(optable.COUNT_NONZERO, x, axis=_axes(axis), keepdims=keepdims)


def searchsorted(
    x1: Operand, x2: Operand, /, *, side: str = "left", sorter: Operand | None = None
) -> StorageTensor:
    """Where each element of `x2` would go in the sorted 1-D `x1` (or `x1[sorter]`) to keep it sorted:
    before equal elements (`side="left"`) or after them ("right").

    >>> import lazytensor as lt
    >>> lt.searchsorted(lt.tensor([1, 3, 5]), lt.tensor([3, 6])).tolist()
    [1, 3]
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
    order = None if sorter is None else np.asarray(values_of(sorter))
    return apply(optable.SEARCHSORTED, x1, x2, side=side, sorter=order)


# -- sets ------------------------------------------------------------------------------------------


class UniqueAllResult(NamedTuple):
    """The distinct values, the index of each one's first occurrence, the index of each element's value
    among them (in the input's shape), and how often each occurs."""

    values: StorageTensor
    indices: StorageTensor
    inverse_indices: StorageTensor
    counts: StorageTensor


class UniqueCountsResult(NamedTuple):
    """The distinct values and how often each occurs."""

    values: StorageTensor
    counts: StorageTensor


class UniqueInverseResult(NamedTuple):
    """The distinct values and the index of each element's value among them (in the input's shape)."""

    values: StorageTensor
    inverse_indices: StorageTensor


def unique_all(x: Operand, /) -> UniqueAllResult:
    """The distinct values of `x` (sorted; every NaN distinct), with indices, inverse and counts.

    >>> import lazytensor as lt
    >>> [r.tolist() for r in lt.unique_all(lt.tensor([3, 1, 3]))]
    [[1, 3], [1, 0], [1, 0, 1], [1, 2]]
    """
    return UniqueAllResult(
        apply(optable.UNIQUE_VALUES, x),
        apply(optable.UNIQUE_INDICES, x),
        apply(optable.UNIQUE_INVERSE, x),
        apply(optable.UNIQUE_COUNTS, x),
    )


def unique_counts(x: Operand, /) -> UniqueCountsResult:
    """The distinct values of `x` and how often each occurs.

    >>> import lazytensor as lt
    >>> [r.tolist() for r in lt.unique_counts(lt.tensor([3, 1, 3]))]
    [[1, 3], [1, 2]]
    """
    return UniqueCountsResult(apply(optable.UNIQUE_VALUES, x), apply(optable.UNIQUE_COUNTS, x))


def unique_inverse(x: Operand, /) -> UniqueInverseResult:
    """The distinct values of `x` and, for every element, the index of its value among them.

    >>> import lazytensor as lt
    >>> [r.tolist() for r in lt.unique_inverse(lt.tensor([[3, 1], [3, 3]]))]
    [[1, 3], [[1, 0], [1, 1]]]
    """
    return UniqueInverseResult(apply(optable.UNIQUE_VALUES, x), apply(optable.UNIQUE_INVERSE, x))


def unique_values(x: Operand, /) -> StorageTensor:
    """The distinct values of `x`, sorted (every NaN distinct).

    >>> import lazytensor as lt
    >>> lt.unique_values(lt.tensor([3, 1, 3])).tolist()
    [1, 3]
    """
    return apply(optable.UNIQUE_VALUES, x)


# -- sorting ----------------------------------------------------------------------------------------


def sort(
    x: Operand,
    /,
    axis: int | None = -1,
    *,
    descending: bool = False,
    stable: bool = True,
    dim: int | None = _UNSET,
    kind: str | None = None,
) -> AbstractTensor:
    """A sorted copy along `axis` (None: flattened first, as numpy); `descending=True` keeps equal
    elements in their order too (stable). `dim=` is PyTorch's name for `axis`, `kind=` numpy's
    choice of algorithm. Differentiable: each gradient goes back to the element that landed there.
    `t.sort()` sorts in place instead.

    >>> import lazytensor as lt
    >>> lt.sort(lt.tensor([[3, 1, 2]])).tolist(), lt.sort(lt.tensor([3, 1, 2]), descending=True).tolist()
    ([[1, 2, 3]], [3, 2, 1])
    """
    tensor = operand_tensor(x)
    axis = _axis_or_dim(axis, dim, -1)
    kind = kind if kind is not None else "stable" if stable else None
    if not descending:
        return apply(optable.SORT, tensor, dim=axis, kind=kind)
    if axis is None:
        tensor, axis = tensor.reshape(-1), 0
    axis = normalize_dim(axis, tensor.ndim)  # AxisError for a 0-d tensor, as ascending
    # reversed, sorted ascending stably, reversed back: largest first, ties in their first order
    return apply(optable.SORT, tensor.flip(axis), dim=axis, kind="stable").flip(axis)


def argsort(
    x: Operand,
    /,
    axis: int | None = -1,
    *,
    descending: bool = False,
    stable: bool = True,
    dim: int | None = _UNSET,
    kind: str | None = None,
) -> AbstractTensor:
    """The indices that sort `x` along `axis` (None: flattened first), ties in their order (stable),
    also when descending; `dim=` and `kind=` as for `sort`.

    >>> import lazytensor as lt
    >>> lt.argsort(lt.tensor([3, 1, 3])).tolist()
    [1, 0, 2]
    >>> lt.argsort(lt.tensor([1, 3, 3, 2]), descending=True).tolist()
    [1, 2, 3, 0]
    """
    tensor = operand_tensor(x)
    axis = _axis_or_dim(axis, dim, -1)
    kind = kind if kind is not None else "stable" if stable else None
    if not descending:
        return apply(optable.ARGSORT, tensor, dim=axis, kind=kind)
    if axis is None:
        tensor, axis = tensor.reshape(-1), 0
    last = tensor.shape[normalize_dim(axis, tensor.ndim)] - 1  # AxisError for a 0-d tensor, as ascending
    ascending = apply(optable.ARGSORT, tensor.flip(axis), dim=axis, kind="stable")
    return apply(optable.SUB, last, ascending).flip(axis)


# -- statistics ------------------------------------------------------------------------------------


def _cast(x: Operand, dtype: npt.DTypeLike | None) -> AbstractTensor:
    """`x` as a tensor of `dtype` (through the table, so gradients flow), or as it is for None."""
    tensor = operand_tensor(x)
    if dtype is None or np.dtype(dtype) == tensor.dtype:
        return tensor
    return apply(optable.ASTYPE, tensor, dtype=np.dtype(dtype))


def _in_dtype(result: StorageTensor, dtype: npt.DTypeLike | None) -> StorageTensor:
    """A sum's or product's result in the `dtype` asked for, where the kernel widened it (a sum of
    uint8 in uint8 wraps round, as numpy's accumulator in that dtype does)."""
    if dtype is None or np.dtype(dtype) == result.dtype:
        return result
    return apply(optable.ASTYPE, result, dtype=np.dtype(dtype))


def sum(
    x: Operand,
    /,
    *,
    axis: Axes = None,
    dtype: npt.DTypeLike | None = None,
    keepdims: bool = False,
) -> StorageTensor:
    """The sum along `axis` (None: all), in `dtype` (default: numpy's, int64 for small integers).

    >>> import lazytensor as lt
    >>> lt.sum(lt.tensor([[1, 2], [3, 4]]), axis=0).tolist()
    [4, 6]
    >>> lt.sum(lt.tensor([1, 2]), dtype=lt.float32).dtype
    dtype('float32')
    """
    return _in_dtype(apply(optable.SUM, _cast(x, dtype), dim=_axes(axis), keepdim=keepdims), dtype)


def prod(
    x: Operand,
    /,
    *,
    axis: Axes = None,
    dtype: npt.DTypeLike | None = None,
    keepdims: bool = False,
) -> StorageTensor:
    """The product along `axis` (None: all), in `dtype` (default: numpy's).

    >>> import lazytensor as lt
    >>> lt.prod(lt.tensor([[1, 2], [3, 4]]), axis=1).tolist()
    [2, 12]
    """
    return _in_dtype(apply(optable.PROD, _cast(x, dtype), dim=_axes(axis), keepdim=keepdims), dtype)


def mean(x: Operand, /, *, axis: Axes = None, keepdims: bool = False) -> StorageTensor:
    """The arithmetic mean along `axis` (None: all).

    >>> import lazytensor as lt
    >>> lt.mean(lt.tensor([[1.0, 2.0], [3.0, 5.0]]), axis=1).tolist()
    [1.5, 4.0]
    """
    return apply(optable.MEAN, x, dim=_axes(axis), keepdim=keepdims)


def max(x: Operand, /, *, axis: Axes = None, keepdims: bool = False) -> StorageTensor:
    """The largest element along `axis` (None: all); NaN wins.

    >>> import lazytensor as lt
    >>> lt.max(lt.tensor([[1, 5], [7, 2]]), axis=0).tolist()
    [7, 5]
    """
    return apply(optable.MAX, x, dim=_axes(axis), keepdim=keepdims)


def min(x: Operand, /, *, axis: Axes = None, keepdims: bool = False) -> StorageTensor:
    """The smallest element along `axis` (None: all); NaN wins.

    >>> import lazytensor as lt
    >>> lt.min(lt.tensor([[1, 5], [7, 2]]), axis=1).tolist()
    [1, 2]
    """
    return apply(optable.MIN, x, dim=_axes(axis), keepdim=keepdims)


def _corrected(entry: optable.Op, x: Operand, axis: Axes, correction: float, keepdims: bool) -> StorageTensor:
    """The variance (or deviation) dividing by `N - correction`: the table's entry for 0, else
    numpy's own steps through the table (the squared deviations from the mean, summed, divided
    once), so the values are numpy's to the last bit and gradients flow."""
    tensor = operand_tensor(x)
    axes = normalize_dims(_axes(axis), tensor.ndim)
    if correction == 0:
        return apply(entry, tensor, dim=axes, keepdim=keepdims)
    deviation = apply(optable.SUB, tensor, apply(optable.MEAN, tensor, dim=axes, keepdim=True))
    if deviation.dtype.kind == "c":  # |z|^2 as numpy takes it: the parts squared and added
        real, imag = apply(optable.REAL, deviation), apply(optable.IMAG, deviation)
        squares = apply(optable.ADD, apply(optable.MUL, real, real), apply(optable.MUL, imag, imag))
    else:
        squares = apply(optable.MUL, deviation, deviation)
    degrees = float(builtins.max(numel([tensor.shape[a] for a in axes]) - correction, 0))
    with np.errstate(divide="ignore", invalid="ignore"):  # no degrees of freedom left: inf or nan
        variance = apply(optable.TRUEDIV, apply(optable.SUM, squares, dim=axes, keepdim=keepdims), degrees)
    return variance if entry is optable.VAR else apply(optable.SQRT, variance)


def var(
    x: Operand, /, *, axis: Axes = None, correction: float = 0.0, keepdims: bool = False
) -> StorageTensor:
    """The variance along `axis`, dividing by `N - correction` (1: the unbiased sample variance).

    >>> import lazytensor as lt
    >>> t = lt.tensor([1.0, 2.0, 3.0, 4.0])
    >>> lt.var(t).item(), lt.var(t, correction=1).item()
    (1.25, 1.6666666666666667)
    """
    return _corrected(optable.VAR, x, axis, correction, keepdims)


def std(
    x: Operand, /, *, axis: Axes = None, correction: float = 0.0, keepdims: bool = False
) -> StorageTensor:
    """The standard deviation along `axis`, dividing by `N - correction` under the square root.

    >>> import lazytensor as lt
    >>> lt.std(lt.tensor([1.0, 3.0])).item(), lt.std(lt.tensor([1.0, 3.0]), correction=1).item()
    (1.0, 1.4142135623730951)
    """
    return _corrected(optable.STD, x, axis, correction, keepdims)


def _cumulative(
    entry: optable.Op,
    x: Operand,
    axis: int | None,
    dtype: npt.DTypeLike | None,
    include_initial: bool,
    initial: int,
) -> StorageTensor:
    """A running sum or product along `axis` (required unless `x` is 1-D), in `dtype`, with the empty
    sum or product first when `include_initial`."""
    tensor = _cast(x, dtype)
    if axis is None:
        if tensor.ndim != 1:
            raise ValueError(f"a cumulative sum or product of shape {tensor.shape} needs an axis")
        axis = 0
    axis = normalize_dim(axis, tensor.ndim)
    result = _in_dtype(apply(entry, tensor, dim=axis), dtype)
    if not include_initial:
        return result
    start_shape = tuple(1 if a == axis else n for a, n in enumerate(result.shape))
    start = StorageTensor.from_array(np.full(start_shape, initial, dtype=result.dtype))
    return apply_to_sequence(optable.CAT, [start, result], dim=axis)


def cumulative_sum(
    x: Operand,
    /,
    *,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    include_initial: bool = False,
) -> StorageTensor:
    """The running sums along `axis`, starting with 0 when `include_initial`; differentiable.

    >>> import lazytensor as lt
    >>> lt.cumulative_sum(lt.tensor([1, 2, 3])).tolist()
    [1, 3, 6]
    >>> lt.cumulative_sum(lt.tensor([1, 2]), include_initial=True).tolist()
    [0, 1, 3]
    """
    return _cumulative(optable.CUMSUM, x, axis, dtype, include_initial, 0)


def cumulative_prod(
    x: Operand,
    /,
    *,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    include_initial: bool = False,
) -> StorageTensor:
    """The running products along `axis`, starting with 1 when `include_initial`; differentiable.

    >>> import lazytensor as lt
    >>> lt.cumulative_prod(lt.tensor([[1, 2], [3, 4]]), axis=0).tolist()
    [[1, 2], [3, 8]]
    """
    return _cumulative(optable.CUMPROD, x, axis, dtype, include_initial, 1)


# -- utilities -------------------------------------------------------------------------------------


def all(x: Operand, /, *, axis: Axes = None, keepdims: bool = False) -> StorageTensor:
    """Whether every element along `axis` (None: all) is true.

    >>> import lazytensor as lt
    >>> lt.all(lt.tensor([[1, 0], [2, 3]]), axis=1).tolist()
    [False, True]
    """
    return apply(optable.ALL, x, dim=_axes(axis), keepdim=keepdims)


def any(x: Operand, /, *, axis: Axes = None, keepdims: bool = False) -> StorageTensor:
    """Whether any element along `axis` (None: all) is true.

    >>> import lazytensor as lt
    >>> lt.any(lt.tensor([[1, 0], [0, 0]]), axis=1).tolist()
    [True, False]
    """
    return apply(optable.ANY, x, dim=_axes(axis), keepdim=keepdims)


def diff(
    x: Operand,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Operand | None = None,
    append: Operand | None = None,
) -> StorageTensor:
    """The `n`-th forward difference along `axis`, after joining `prepend` before and `append` after
    (for `n=0` the values as they are, without them, as numpy).

    >>> import lazytensor as lt
    >>> lt.diff(lt.tensor([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    >>> lt.diff(lt.tensor([1, 4]), prepend=lt.tensor([0])).tolist()
    [1, 3]
    """
    tensor = operand_tensor(x)
    if n < 0:
        raise ValueError(f"diff: the order n must not be negative, got {n}")
    if n == 0:  # numpy returns the input before it looks at the axis, prepend or append
        return apply(optable.ASTYPE, tensor, dtype=tensor.dtype)
    pieces = [p for p in (prepend, tensor, append) if p is not None]
    joined = tensor if len(pieces) == 1 else apply_to_sequence(optable.CAT, pieces, dim=axis)
    return apply(optable.DIFF, joined, axis=axis, n=n)


# -- numpy's functions that clients ask of a namespace (xarray's duck_array_ops) ---------------------


def _numpy_result(result: Any) -> AbstractTensor:
    """numpy's function on tensors returns a tensor (through `__array_function__`); say so to mypy."""
    tensor: AbstractTensor = result
    return tensor


def pad(x: Operand, /, pad_width: Any, mode: str = "constant", **kwargs: Any) -> AbstractTensor:
    """`x` padded as numpy's `pad` pads it (xarray's `pad`, `shift` and `rolling` call it), in new storage.

    >>> import lazytensor as lt
    >>> lt.pad(lt.tensor([1.0, 2.0]), 1, constant_values=lt.nan).tolist()
    [nan, 1.0, 2.0, nan]
    """
    return _numpy_result(np.pad(operand_tensor(x), pad_width, mode=mode, **kwargs))  # type: ignore[call-overload]


def einsum(subscripts: str, /, *operands: Operand, **kwargs: Any) -> AbstractTensor:
    """numpy's `einsum` on tensors (xarray's `dot` and `weighted` call it).

    >>> import lazytensor as lt
    >>> lt.einsum("ij,j->i", lt.eye(2), lt.tensor([3.0, 4.0])).tolist()
    [3.0, 4.0]
    """
    return _numpy_result(np.einsum(subscripts, *(operand_tensor(x) for x in operands), **kwargs))


def isin(element: Operand, test_elements: Operand, /, **kwargs: Any) -> AbstractTensor:
    """Whether each element of `element` is among `test_elements`, as numpy's `isin` (xarray's `isin`).

    >>> import lazytensor as lt
    >>> lt.isin(lt.tensor([1, 2, 3]), [2, 3]).tolist()
    [False, True, True]
    """
    return _numpy_result(np.isin(operand_tensor(element), test_elements, **kwargs))


def gradient(f: Operand, /, *varargs: Any, **kwargs: Any) -> Any:
    """numpy's `gradient` (central differences) on a tensor: a tensor, or a list of them for several
    axes (xarray's `differentiate` calls it).

    >>> import lazytensor as lt
    >>> lt.gradient(lt.tensor([1.0, 4.0, 9.0])).tolist()
    [3.0, 4.0, 5.0]
    """
    return np.gradient(operand_tensor(f), *varargs, **kwargs)


def sliding_window_view(x: Operand, window_shape: Any, axis: Any = None, **kwargs: Any) -> AbstractTensor:
    """Every window of `window_shape` along `axis`, as numpy's `lib.stride_tricks.sliding_window_view`
    (xarray's `rolling` calls it as `xp.lib.stride_tricks.sliding_window_view`).

    >>> import lazytensor as lt
    >>> lt.lib.stride_tricks.sliding_window_view(lt.arange(4), 2).tolist()
    [[0, 1], [1, 2], [2, 3]]
    """
    windows = np.lib.stride_tricks.sliding_window_view(operand_tensor(x), window_shape, axis=axis, **kwargs)
    return _numpy_result(windows)

"""Array-like bases: any object with `shape`, `dtype` and numpy-style `__getitem__` (a zarr array,
a dask array, an h5py dataset, a numpy array) at the bottom of a stack, never read until asked.

An `ArrayBase` has no flat buffer: its `layout` is the row-major layout of its shape, so
every view stacks and fuses on it exactly as on a `StorageTensor`, and its flat
indices are *virtual* (row-major positions of the array). Reads and writes come to it
as a fused `Layout` or as an array of flat indices, and it lowers them to as few
backend requests as it can:

- a layout whose strides are a permutation and sub-slicing of the array's row-major
  strides becomes one request of per-axis slices (then a transpose and flips in memory);
- flat indices that form an outer product become one orthogonal request (`oindex`);
- anything else one point request (`vindex`) of the distinct points.

Never a bounding box much larger than the selection. A dask base is lazy all the way:
reads build a dask array of the view (computed once, in one `dask.compute`), and the
operations of the table on it build dask graphs (`apply_lazily`). zarr and dask are
optional: they are imported when a base of theirs is met.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor import autograd, evaluate, generic, optable, zarrreads
from lazytensor.layout import Layout
from lazytensor.once import once
from lazytensor.optable import Op
from lazytensor.positions import Shape, index_to_position, int_tuple, numel, open_grid
from lazytensor.tensor import AbstractTensor, BaseTensor, Buffer, GradState, StorageTensor, values_of
from lazytensor.writelock import serialised

Indices = npt.NDArray[np.intp]
Key = tuple[slice | int, ...]
OuterKey = tuple[slice | Indices, ...]

BOX_FACTOR = 16
"""A backend without orthogonal or point selection reads the bounding box of the points only when it
holds at most this many times the points; else it reads the points one by one."""


def require(module: str, extra: str) -> Any:
    """Import an optional dependency, or ImportError naming the extra that installs it.

    >>> require("numpy", "none").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"this needs the optional dependency {module.split('.')[0]}: pip install 'lazytensor[{extra}]'"
        ) from None


# -- backends: how one kind of array answers a request ----------------------------------------


class Backend:
    """A generic array-like (h5py, ...): basic slicing only, so orthogonal and point selections are
    a bounding box when it is small, else one request per point."""

    kind = "array"
    lazy = False

    def basic(self, array: Any, key: Key) -> Any:
        return array[key]

    def outer(self, array: Any, keys: OuterKey) -> Any:
        per_axis = [
            np.arange(*k.indices(n)) if isinstance(k, slice) else k
            for k, n in zip(keys, array.shape, strict=True)
        ]
        box = tuple(slice(int(k.min()), int(k.max()) + 1) for k in per_axis)
        if numel(tuple(b.stop - b.start for b in box)) <= BOX_FACTOR * numel(tuple(map(len, per_axis))):
            block = np.asarray(array[box])
            return block[np.ix_(*(k - b.start for k, b in zip(per_axis, box, strict=True)))]
        grid = np.meshgrid(*per_axis, indexing="ij")
        return self.points(array, tuple(g.reshape(-1) for g in grid)).reshape(tuple(map(len, per_axis)))

    def points(self, array: Any, coords: tuple[Indices, ...]) -> Any:
        box = tuple(slice(int(c.min()), int(c.max()) + 1) for c in coords)
        if numel(tuple(b.stop - b.start for b in box)) <= BOX_FACTOR * len(coords[0]):
            block = np.asarray(array[box])
            return block[tuple(c - b.start for c, b in zip(coords, box, strict=True))]
        return np.array([array[tuple(int(c[i]) for c in coords)] for i in range(len(coords[0]))])

    def set_basic(self, array: Any, key: Key, values: Buffer) -> None:
        array[key] = values

    def set_points(self, array: Any, coords: tuple[Indices, ...], values: Buffer) -> None:
        for i in range(len(coords[0])):
            array[tuple(int(c[i]) for c in coords)] = values[i]

    def to_numpy(self, values: Any) -> Buffer:
        return np.asarray(values)

    def chunks(self, array: Any) -> Shape | None:
        chunks = getattr(array, "chunks", None)
        return (
            int_tuple(chunks)
            if isinstance(chunks, tuple) and all(isinstance(c, int) for c in chunks)
            else None
        )

    def where(self, array: Any) -> str | None:
        name = getattr(array, "name", None)
        filename = getattr(getattr(array, "file", None), "filename", None)
        return f"{filename}:{name}" if filename else None

    def read_only(self, array: Any) -> str | None:
        return None if hasattr(array, "__setitem__") else f"a {type(array).__name__} cannot be written"


class NumpyBackend(Backend):
    kind = "numpy"

    def outer(self, array: Any, keys: OuterKey) -> Any:
        per_axis = [
            np.arange(*k.indices(n)) if isinstance(k, slice) else k
            for k, n in zip(keys, array.shape, strict=True)
        ]
        return array[np.ix_(*per_axis)]

    def points(self, array: Any, coords: tuple[Indices, ...]) -> Any:
        return array[coords]

    def set_points(self, array: Any, coords: tuple[Indices, ...], values: Buffer) -> None:
        array[coords] = values

    def read_only(self, array: Any) -> str | None:
        return None if array.flags.writeable else "the numpy array is read-only"


class ZarrBackend(Backend):
    kind = "zarr"

    def basic(self, array: Any, key: Key) -> Any:
        with zarrreads.reading(array, key):  # a hostile store's errors: one line naming store and key
            return array[key]

    def outer(self, array: Any, keys: OuterKey) -> Any:
        with zarrreads.reading(array, keys):
            by_runs = zarrreads.outer_by_runs(array, keys)  # an axis of 10**9 chunks: a few slices
            return array.oindex[keys] if by_runs is None else by_runs

    def points(self, array: Any, coords: tuple[Indices, ...]) -> Any:
        with zarrreads.reading(array, coords):
            return array.vindex[coords]

    def set_basic(self, array: Any, key: Key, values: Buffer) -> None:
        # a read-modify-write of each chunk: one writer at a time (writelock)
        with serialised(array), zarrreads.reading(array, key, "write"):
            array[key] = values

    def set_points(self, array: Any, coords: tuple[Indices, ...], values: Buffer) -> None:
        with serialised(array), zarrreads.reading(array, coords, "write"):
            array.vindex[coords] = values

    def chunks(self, array: Any) -> Shape | None:
        return int_tuple(array.chunks)

    def where(self, array: Any) -> str | None:
        store = str(getattr(array, "store_path", "") or "")
        return store or None

    def read_only(self, array: Any) -> str | None:
        return "the zarr array was opened read-only" if getattr(array, "read_only", False) else None


class DaskBackend(Backend):
    kind = "dask"
    lazy = True

    def outer(self, array: Any, keys: OuterKey) -> Any:
        for axis, key in enumerate(keys):  # dask takes one index array per request
            if not isinstance(key, slice) or key != slice(None):
                array = array[(slice(None),) * axis + (key,)]
        return array

    def points(self, array: Any, coords: tuple[Indices, ...]) -> Any:
        return array.vindex[coords]

    def to_numpy(self, values: Any) -> Buffer:
        return np.asarray(values.compute() if hasattr(values, "compute") else values)

    def chunks(self, array: Any) -> Shape | None:
        return int_tuple(array.chunksize)

    def where(self, array: Any) -> str | None:
        return str(array.name)

    def read_only(self, array: Any) -> str | None:
        return "dask arrays are read-only: write into a copy (lt.tensor(t.numpy())) or into the source"


@functools.cache
def has_dask() -> bool:
    """Whether dask (the `dask` extra) is installed."""
    return importlib.util.find_spec("dask") is not None


def backend_of(array: Any) -> Backend:
    """The backend that answers requests for `array`, by the module its type comes from.

    >>> backend_of(np.zeros(2)).kind
    'numpy'
    """
    module = type(array).__module__.split(".")[0]
    if module == "zarr":
        return ZarrBackend()
    if module == "dask":
        return DaskBackend()
    if isinstance(array, np.ndarray):
        return NumpyBackend()
    return Backend()


# -- lowering a layout or flat indices to requests --------------------------------------------


def strided_key(layout: Layout, shape: Shape) -> tuple[Key, list[int], list[int], list[bool]] | None:
    """The per-axis slices of an array of `shape` that hold what `layout` maps to, or None.

    Returns the key (one slice or int per array axis), for each layout axis the array axis
    it reads (-1: a size-1 or stride-0 axis, read as size 1 and broadcast), and which axes
    run backwards. The key is only returned when every layout axis is a distinct array
    axis with a whole step and stays inside it, so it is exact.

    >>> key, source, _, flips = strided_key(Layout((2, 3), (1, 8), 1), (4, 8))
    >>> key, source, flips
    ((slice(0, 3, 1), slice(1, 3, 1)), [1, 0], [False, False])
    """
    strides = Layout.contiguous(shape).strides
    start = index_to_position(layout.offset, shape) if shape else []  # Python ints: past 2**63 too
    key: list[slice | int] = list(start)
    source: list[int] = []
    flips: list[bool] = []
    for size, stride in zip(layout.shape, layout.strides, strict=True):
        if size == 1 or stride == 0:
            source.append(-1)
            flips.append(False)
            continue
        axis = _matching_axis(size, stride, start, shape, strides, key)
        if axis is None:
            return None
        step = stride // strides[axis]
        low, high = sorted((start[axis], start[axis] + step * (size - 1)))
        key[axis] = slice(low, high + 1, abs(step))
        source.append(axis)
        flips.append(step < 0)
    return tuple(key), source, [i for i, s in enumerate(source) if s < 0], flips


def _matching_axis(
    size: int, stride: int, start: list[int], shape: Shape, strides: Shape, key: list[slice | int]
) -> int | None:
    for axis, (extent, unit) in enumerate(zip(shape, strides, strict=True)):
        if extent <= 1 or isinstance(key[axis], slice) or stride % unit:
            continue
        last = start[axis] + stride // unit * (size - 1)
        if 0 <= last < extent:
            return axis
    return None


def _arrange(block: Any, layout: Layout, source: list[int], flips: list[bool]) -> Any:
    """A block read with a strided key (array axes in order) put in the layout's axis order."""
    read_axes = sorted(axis for axis in source if axis >= 0)
    order = [read_axes.index(axis) for axis in source if axis >= 0]
    block = block.transpose(order) if order != sorted(order) else block
    flip = tuple(
        slice(None, None, -1) if f else slice(None)
        for f, axis in zip(flips, source, strict=True)
        if axis >= 0
    )
    if any(flips):
        block = block[flip]
    with_ones = tuple(size if axis >= 0 else 1 for size, axis in zip(layout.shape, source, strict=True))
    block = block.reshape(with_ones)
    return block if with_ones == layout.shape else _broadcast(block, layout.shape)


def _broadcast(block: Any, shape: Shape) -> Any:
    return block.broadcast_to(shape) if hasattr(block, "broadcast_to") else np.broadcast_to(block, shape)


def _as_slice(indices: Indices, size: int) -> slice | Indices:
    """A sorted run of distinct indices as a slice (cheaper for every backend), else the indices."""
    if len(indices) == size:
        return slice(None)
    if len(indices) and indices[-1] - indices[0] + 1 == len(indices):
        return slice(int(indices[0]), int(indices[-1]) + 1)
    return indices


# -- the base ---------------------------------------------------------------------------------


class ArrayBase(BaseTensor):
    """A tensor over any array-like, read lazily: the bottom of a stack like a `StorageTensor`.

    >>> base = ArrayBase(np.arange(12).reshape(3, 4))
    >>> base.T[::2].numpy().tolist(), base.layer_name
    ([[0, 4, 8], [2, 6, 10]], 'Numpy')
    """

    def __init__(self, array: Any) -> None:
        for needed in ("shape", "dtype", "__getitem__"):
            if not hasattr(array, needed):
                raise TypeError(
                    f"an array base needs shape, dtype and __getitem__; {type(array).__name__} "
                    f"has no {needed}"
                )
        self.array = array
        self.backend = backend_of(array)
        self._shape = int_tuple(array.shape)
        dtype: np.dtype[Any] = np.dtype(array.dtype)
        self._dtype = dtype.newbyteorder("=") if dtype.isnative else dtype  # '<f4' shows as float32
        self.grad_state = GradState()

    # -- the tensor protocol

    @property
    def layers(self) -> tuple[AbstractTensor, ...]:
        return (self,)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._dtype

    @property
    def layer_name(self) -> str:
        return self.backend.kind.capitalize()

    def describe(self) -> str:
        parts = [f"{self.backend.kind} array {self._shape} × {self._dtype}"]
        chunks = self.backend.chunks(self.array)
        if chunks is not None:
            parts.append(f"chunks {chunks}")
        where = self.backend.where(self.array)
        if where is not None:
            parts.append(f"at {where}")
        return ", ".join(parts)

    @property
    def buffer(self) -> Buffer:  # type: ignore[override]
        raise TypeError(
            f"a {self.backend.kind}-backed tensor of shape {self._shape} has no flat numpy buffer: "
            "its array is t.base.array, its values t.numpy()"
        )

    has_buffer = False

    @property
    def defers_operations(self) -> bool:  # type: ignore[override]
        """dask: operations build graphs; zarr: they run through dask chunk by chunk (when dask is
        installed), so none loads the whole array at once."""
        return self.backend.lazy or (isinstance(self.backend, ZarrBackend) and has_dask())

    @once
    def _dask_twin(self) -> ArrayBase:
        """A dask-backed base over the same zarr array, one dask chunk per zarr chunk."""
        da = require("dask.array", "dask")
        name = f"zarr-{id(self.array):x}"
        reads = zarrreads.GuardedReads(self.array)  # a bad chunk: one line naming store and key
        return ArrayBase(da.from_array(reads, chunks=self.array.chunks, name=name, asarray=True))

    @property
    def storage_note(self) -> str | None:
        return None if isinstance(self.backend, NumpyBackend) else self.backend.kind

    @property
    def read_only_reason(self) -> str | None:
        reason = self.backend.read_only(self.array)
        if reason is None:
            return None
        return f"cannot write to a {self.backend.kind}-backed tensor of shape {self._shape}: {reason}"

    @property
    def requires_grad(self) -> bool:
        return False

    def requires_grad_(self, requires_grad: bool = True) -> AbstractTensor:
        raise TypeError(f"a {self.backend.kind}-backed tensor cannot require grad: copy it with t.compute()")

    def check_write(self) -> None:
        return None

    def note_write(self) -> None:
        self.grad_state.version.value += 1

    def detach(self) -> ArrayBase:
        return self

    def may_share_memory(self, array: Any) -> bool:
        return isinstance(self.array, np.ndarray) and bool(np.may_share_memory(array, self.array))

    def shares_storage_with(self, other: Any) -> bool:
        if isinstance(other, ArrayBase):
            return other.array is self.array or (
                isinstance(self.array, np.ndarray)
                and isinstance(other.array, np.ndarray)
                and bool(np.shares_memory(self.array, other.array))
            )
        if isinstance(other, BaseTensor):
            return isinstance(self.array, np.ndarray) and bool(np.shares_memory(self.array, other.buffer))
        return isinstance(self.array, np.ndarray) and bool(np.shares_memory(self.array, other))

    # -- reading: requests in the backend's own kind of array (lazy for dask)

    def select_strided(self, layout: Layout) -> Any:
        """The values `layout` maps to, as one sliced request where it can."""
        if layout.numel() == 0:
            return np.empty(layout.shape, dtype=self._dtype)
        if not self._shape:
            return _broadcast(self.backend.basic(self.array, ()), layout.shape)
        plan = strided_key(layout, self._shape)
        if plan is None:
            grid = np.broadcast_to(layout.index_batch(open_grid(layout.shape)), layout.shape)
            return self.select_flat(grid)
        key, source, _, flips = plan
        return _arrange(self.backend.basic(self.array, key), layout, source, flips)

    def select_flat(self, indices: Indices) -> Any:
        """The values at flat `indices`: one orthogonal request when they form an outer product,
        else one point request of the distinct points."""
        if indices.size == 0:
            return np.empty(indices.shape, dtype=self._dtype)
        if not self._shape:
            return _broadcast(self.backend.basic(self.array, ()), indices.shape)
        unique, inverse = np.unique(indices.reshape(-1), return_inverse=True)
        coords = np.unravel_index(unique, self._shape)
        per_axis = [np.unique(c) for c in coords]
        if math.prod(len(p) for p in per_axis) == len(unique):  # row-major order of the product = unique
            keys = tuple(_as_slice(p, n) for p, n in zip(per_axis, self._shape, strict=True))
            values = self.backend.outer(self.array, keys).reshape(-1)
        else:
            values = self.backend.points(self.array, tuple(np.asarray(c, dtype=np.intp) for c in coords))
        if len(unique) == indices.size and np.array_equal(unique, indices.reshape(-1)):
            return values.reshape(indices.shape)
        return values[inverse.reshape(-1)].reshape(indices.shape)

    def read_strided(self, layout: Layout, writeable: bool) -> Buffer:
        return self._numpy(self.backend.to_numpy(self.select_strided(layout)))

    def read_flat(self, indices: Indices) -> Buffer:
        return self._numpy(self.backend.to_numpy(self.select_flat(indices)))

    def _numpy(self, values: Buffer) -> Buffer:
        """A read as a fresh array (a read of a numpy base can be a view of it)."""
        if isinstance(self.array, np.ndarray) and np.may_share_memory(values, self.array):
            return values.copy()
        return values

    def read_one(self, index: int) -> Any:
        pos = tuple(int(x) for x in np.unravel_index(index, self._shape)) if self._shape else ()
        value = self.backend.to_numpy(self.backend.basic(self.array, pos))
        return value[()] if isinstance(value, np.ndarray) else value

    # -- writing: only the chunks that hold written positions are rewritten

    def write_strided(self, layout: Layout, values: Buffer) -> None:
        plan = strided_key(layout, self._shape) if self._shape else None
        if plan is None or any(s == 0 and n > 1 for n, s in zip(layout.shape, layout.strides, strict=True)):
            grid = np.broadcast_to(layout.index_batch(open_grid(layout.shape)), layout.shape)
            self.write_flat(grid, values)
            return
        key, source, _, flips = plan
        block = values[tuple(slice(None, None, -1) if f else slice(None) for f in flips)]
        kept = [axis for axis in source if axis >= 0]
        block = block.reshape(tuple(n for n, axis in zip(layout.shape, source, strict=True) if axis >= 0))
        order = tuple(int(i) for i in np.argsort(kept))  # layout order -> array order
        self.backend.set_basic(self.array, key, np.array(block.transpose(order), order="C"))

    def write_flat(self, indices: Indices, values: Buffer) -> None:
        if not self._shape:
            self.backend.set_basic(self.array, (), np.asarray(values).reshape(-1)[-1])
            return
        flat = indices.reshape(-1)[::-1]  # the last write of a repeated index wins, as in numpy
        unique, first = np.unique(flat, return_index=True)
        chosen = np.ascontiguousarray(np.broadcast_to(values, indices.shape).reshape(-1)[::-1][first])
        coords = tuple(np.asarray(c, dtype=np.intp) for c in np.unravel_index(unique, self._shape))
        self.backend.set_points(self.array, coords, chosen)

    def write_one(self, index: int, value: Any) -> None:
        pos = tuple(int(x) for x in np.unravel_index(index, self._shape)) if self._shape else ()
        self.backend.set_basic(self.array, pos, value)

    # -- dask: lazy values, lazy operations, the collection protocol

    def lazy_values(self, t: AbstractTensor) -> Any:
        if not self.backend.lazy:
            if not self.defers_operations:
                raise AttributeError(f"a {self.backend.kind}-backed tensor has no lazy (dask) array")
            return self._dask_twin.lazy_values(t)
        layout = t.layout
        if layout is not None:
            return self.select_strided(layout)
        return self.select_flat(np.asarray(evaluate.storage_indices(t)))

    def apply_lazily(self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]) -> AbstractTensor:
        needs_grad = [x.shape for x in operands if isinstance(x, AbstractTensor) and x.requires_grad]
        if needs_grad and autograd.is_grad_enabled():
            raise TypeError(
                f"{entry.name}: gradients do not flow through operations on a {self.backend.kind}-backed "
                f"tensor, and an operand of shape {needs_grad[0]} requires grad; use lt.no_grad(), or "
                "bring the tensor into memory first (t.compute())"
            )
        if not self.backend.lazy:  # zarr: computed now, through dask, one chunk at a time
            return self._dask_twin.apply_lazily(entry, operands, params).compute()
        da = require("dask.array", "dask")
        inputs = tuple(_lazy_operand(x) for x in operands)
        lazy = _LAZY.get(entry.name)
        if lazy is None:  # no lazy form: compute the operands, run the numpy kernel
            arrays = tuple(x.compute() if _is_dask(x) else x for x in inputs)
            return StorageTensor.from_array(np.ascontiguousarray(entry.kernel(*arrays, **params)))
        result = lazy(da, entry, inputs, params)
        return ArrayBase(result) if _is_dask(result) else StorageTensor.from_array(np.array(result))

    def computed(self, t: AbstractTensor) -> AbstractTensor:
        return StorageTensor.from_array(evaluate.read_copy(t))

    def postcompute(self, lazy: Any) -> tuple[Any, tuple[Any, ...]]:
        finalize, args = lazy.__dask_postcompute__()
        return _finish, (finalize, args)

    def postpersist(self, lazy: Any) -> tuple[Any, tuple[Any, ...]]:
        rebuild, args = lazy.__dask_postpersist__()
        return _rebuild, (rebuild, args)


def _finish(results: Any, finalize: Any, args: tuple[Any, ...]) -> StorageTensor:
    """dask's finalize, then the values as an in-memory tensor (what `dask.compute(t)` gives)."""
    return StorageTensor.from_array(np.array(finalize(results, *args)))


def _rebuild(graph: Any, rebuild: Any, args: tuple[Any, ...], rename: Any = None) -> ArrayBase:
    """dask's rebuild after `dask.persist(t)`: a dask-backed tensor over the persisted array."""
    return ArrayBase(rebuild(graph, *args, rename=rename))


def _is_dask(x: Any) -> bool:
    return hasattr(x, "__dask_graph__") and not isinstance(x, AbstractTensor)


def _lazy_operand(x: Any) -> Any:
    """An operand for a lazy operation: a dask-backed tensor's dask array, else its numpy values."""
    if isinstance(x, AbstractTensor) and x.base.defers_operations:
        return x._lazy_values
    return values_of(x)


# -- the lazy forms of the table's operations on dask arrays ------------------------------------

_UFUNC_OF = {entry.name: ufunc for ufunc, entry in optable.UFUNCS.items() if entry.name != "matmul"}
_REDUCTIONS = ("sum", "mean", "prod", "max", "min", "var", "std", "all", "any")


def _ufunc(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return _UFUNC_OF[entry.name](*inputs)


def _reduction(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    dim = params.get("dim")
    axis = tuple(dim) if isinstance(dim, list) else dim
    return getattr(da, entry.name)(inputs[0], axis=axis, keepdims=params.get("keepdim", False))


def _arg_reduction(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, dim = inputs[0], params.get("dim")
    result = getattr(da, entry.name)(x if dim is not None else x.reshape(-1), axis=0 if dim is None else dim)
    return da.expand_dims(result, dim) if params.get("keepdim") and dim is not None else result


def _result_dtype(kernel: Any, params: dict[str, Any], inputs: tuple[Any, ...]) -> np.dtype[Any]:
    """The dtype a per-block kernel gives: `dtype` when the caller names it, else the kernel's on one
    element of each input's dtype (ones: a callable that divides by its argument works), else the
    first input's. The probe calls a user's callable once more: pass `dtype=` to avoid it."""
    if params.get("dtype") is not None:
        named: np.dtype[Any] = np.dtype(params["dtype"])
        return named
    samples = tuple(np.ones((1,) * np.ndim(x), dtype=np.result_type(x)) for x in inputs)
    try:
        probed: np.dtype[Any] = np.asarray(kernel(*samples, **params)).dtype
        return probed
    except Exception:  # the callable's own error belongs to the real call, on the real values
        return np.dtype(np.result_type(inputs[0]))


def _transform(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """`ttransform` per block: the callable runs where the block is (a worker of a cluster)."""
    x = inputs[0]
    dtype = _result_dtype(generic.transform, params, inputs)
    return x.map_blocks(functools.partial(generic.transform, **params), dtype=dtype, meta=_meta(x, dtype))


def _point(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """`tpoint` per block of the broadcast operands."""
    x, y = da.broadcast_arrays(*(v if _is_dask(v) else da.asarray(v) for v in inputs))
    dtype = _result_dtype(generic.point, params, inputs)
    kernel = functools.partial(generic.point, **params)
    return da.map_blocks(kernel, x, y, dtype=dtype, meta=_meta(x, dtype))


def _fold(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """`tredux` per block: the folded axis made one chunk, so any callable folds in order."""
    x = inputs[0]
    axis = params["dim"] % x.ndim if x.ndim else 0
    whole = x.rechunk({axis: -1})
    dtype = _result_dtype(generic.fold, params, inputs)
    kernel = functools.partial(generic.fold, **params)
    if params.get("keepdim"):
        chunks = tuple((1,) if i == axis else c for i, c in enumerate(whole.chunks))
        return whole.map_blocks(kernel, chunks=chunks, dtype=dtype, meta=_meta(x, dtype))
    return whole.map_blocks(kernel, drop_axis=axis, dtype=dtype, meta=_meta(x, dtype))


def _meta(x: Any, dtype: np.dtype[Any]) -> Buffer:
    return np.empty((0,) * max(np.ndim(x), 1), dtype=dtype)


def _relu(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return da.maximum(inputs[0], 0)


def _sigmoid(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    return x.map_blocks(entry.kernel)


def _softmax(da: Any, entry: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, dim = inputs[0], params["dim"]
    shifted = x - x.max(axis=dim, keepdims=True)
    if entry.name == "log_softmax":
        return shifted - da.log(da.exp(shifted).sum(axis=dim, keepdims=True))
    e = da.exp(shifted)
    return e / e.sum(axis=dim, keepdims=True)


_LAZY: dict[str, Any] = {
    **dict.fromkeys(_UFUNC_OF, _ufunc),
    **dict.fromkeys(_REDUCTIONS, _reduction),
    "argmax": _arg_reduction,
    "argmin": _arg_reduction,
    "matmul": lambda da, entry, inputs, params: da.matmul(*inputs),
    "where": lambda da, entry, inputs, params: da.where(*inputs),
    "clip": lambda da, entry, inputs, params: da.clip(inputs[0], params.get("lo"), params.get("hi")),
    "relu": _relu,
    "sigmoid": _sigmoid,
    "softmax": _softmax,
    "log_softmax": _softmax,
    "ttransform": _transform,
    "tpoint": _point,
    "tredux": _fold,
}
"""Table entries by name whose dask form is known; any other entry computes its operands first."""

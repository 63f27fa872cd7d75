"""Array-like bases: any object with `shape`, `dtype` and numpy-style `__getitem__` (a zarr array,
a dask array, an h5py dataset, an xarray DataArray, a numpy array) at the bottom of a stack,
never read until asked.

An `ArrayBase` has no flat buffer: its `layout` is the row-major layout of its shape, so
every view stacks and fuses on it exactly as on a `StorageTensor`, and its flat
indices are *virtual* (row-major positions of the array). Reads and writes come to it
as a fused `Layout` or as an array of flat indices, and it lowers them to as few
backend requests as the array's backend declares it can answer (`Backend.indexing`):

- a layout whose strides are a permutation and sub-slicing of the array's row-major
  strides becomes one request of per-axis slices (then a transpose and flips in memory);
- flat indices that form an outer product become one orthogonal request (OUTER);
- anything else one point request of the distinct points (VECTORIZED);
- a backend that only slices gets the bounding box of a selection when it is small, else one
  request per chunk touched (its declared chunks, or a virtual grid): never one per point.

A dask base is lazy all the way: reads build a dask array of the view (computed once, in one
`dask.compute`), and the operations of the table on it build dask graphs from each entry's
declared chunked form, or refuse (`apply_lazily`). zarr, dask, h5py and xarray are optional:
they are imported when a base of theirs is met.
"""

from __future__ import annotations

import enum
import functools
import importlib
import importlib.util
import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from lazytensor.bases import hdf5safe, zarrreads, zarrstore
from lazytensor.bases.writelock import serialised
from lazytensor.engine import autograd, chunkforms
from lazytensor.engine.chunkforms import NoChunkedForm
from lazytensor.engine.optable import Op
from lazytensor.ground import coords as coordinates
from lazytensor.ground import naming
from lazytensor.ground.layout import Layout
from lazytensor.ground.once import once
from lazytensor.ground.positions import Shape, index_to_position, int_tuple, numel, open_grid
from lazytensor.ground.settings import check_materialize
from lazytensor.tensors import evaluate
from lazytensor.tensors.tensor import AbstractTensor, BaseTensor, Buffer, GradState, StorageTensor, values_of

Indices = npt.NDArray[np.intp]
Key = tuple[slice | int, ...]
OuterKey = tuple[slice | Indices, ...]

BOX_FACTOR = 16
"""A backend without the selection a read needs reads the bounding box of the points in one request
when it holds at most this many times the points; else one bounding box per chunk touched."""

VIRTUAL_CHUNK = 1 << 16
"""Elements in one block of the grid that groups point reads of a backend that declares no chunks."""

COMPUTING: list[Callable[[Op, tuple[Any, ...], dict[str, Any]], AbstractTensor | None]] = []
"""How an operation on a base that is not in memory becomes a computed tensor, or None when it does
not (`lazytensor.bases.computed` registers itself here: it builds on this module, so this module
cannot import it; `memmap` imports it, and `lazytensor` imports `memmap` through `api.files`)."""


def require(module: str, extra: str) -> Any:
    """Import an optional dependency, or ImportError naming the extra that installs it.

    >>> require("numpy", "none").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"this needs the optional dependency {module.split('.')[0]}: from a lazytensor checkout, "
            f"pip install -e '.[{extra}]'"
        ) from None


# -- backends: what one kind of array supports, and how it answers a request ------------------


class Indexing(enum.IntEnum):
    """The selections a backend answers in one request (xarray's `IndexingSupport`): each level
    includes the ones below."""

    BASIC = 1
    """Ints and slices."""
    OUTER = 2
    """One sorted index array (or slice) per axis, selected orthogonally (`oindex`)."""
    VECTORIZED = 3
    """Points: one index array per axis, read together (`vindex`)."""


BACKENDS: list[type[Backend]] = []
"""Every backend class, in the order defined: `backend_of` asks the last first."""


class Backend:
    """What a kind of array-like supports, declared, and how it answers requests. `ArrayBase` plans
    every read from the declaration (`indexing`, `chunks`), never from the class of the array.

    This one is any array-like with `shape`, `dtype` and `__getitem__` (an h5py dataset): basic
    slicing only. A new backend is one subclass: `accepts` says which arrays are its own, the
    class attributes declare what they support, and `outer`/`points` answer the selections its
    `indexing` claims (subclasses are registered when defined).
    """

    kind: ClassVar[str] = "array"
    """The backend's name in headers, `explain()` and errors."""
    indexing: ClassVar[Indexing] = Indexing.BASIC
    lazy: ClassVar[bool] = False
    """Whether requests give lazy (dask) arrays: operations then build graphs."""
    through_dask: ClassVar[bool] = False
    """Whether operations run through dask chunk by chunk (when dask is installed)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Register the class, once it answers what it declares (TypeError naming what is missing)."""
        super().__init_subclass__(**kwargs)
        method = {Indexing.OUTER: "outer", Indexing.VECTORIZED: "points"}.get(cls.indexing)
        if method is not None and getattr(cls, method) is getattr(Backend, method):
            raise TypeError(
                f"backend {cls.__name__} declares indexing {cls.indexing.name} but defines no {method}()"
            )
        BACKENDS.append(cls)

    @classmethod
    def accepts(cls, array: Any) -> bool:
        """Whether `array` is of this backend's kind (the generic backend takes any array-like)."""
        return True

    def basic(self, array: Any, key: Key) -> Any:
        return array[key]

    def outer(self, array: Any, keys: OuterKey) -> Any:
        """An orthogonal selection, for a backend whose `indexing` is at least OUTER (a VECTORIZED
        one that defines no `outer` reads the grid of points)."""
        if self.indexing < Indexing.VECTORIZED:
            raise TypeError(f"a {self.kind} array does not declare orthogonal selection")
        per_axis = _per_axis(keys, array.shape)
        grid = np.meshgrid(*per_axis, indexing="ij")
        values = self.points(array, tuple(g.reshape(-1) for g in grid))
        return values.reshape(tuple(map(len, per_axis)))

    def points(self, array: Any, coords: tuple[Indices, ...]) -> Any:
        """A point selection, for a backend whose `indexing` is VECTORIZED."""
        raise TypeError(f"a {self.kind} array does not declare point selection")

    def set_basic(self, array: Any, key: Key, values: Buffer) -> None:
        array[key] = values

    def set_points(self, array: Any, coords: tuple[Indices, ...], values: Buffer) -> None:
        for i in range(len(coords[0])):
            array[tuple(int(c[i]) for c in coords)] = values[i]

    def to_numpy(self, values: Any) -> Buffer:
        return np.asarray(values)

    def chunks(self, array: Any) -> Shape | None:
        """The shape of one chunk (reads group by chunk), or None."""
        chunks = getattr(array, "chunks", None)
        return (
            int_tuple(chunks)
            if isinstance(chunks, tuple) and chunks and all(isinstance(c, int) for c in chunks)
            else None
        )

    def where(self, array: Any) -> str | None:
        name = getattr(array, "name", None)
        filename = getattr(getattr(array, "file", None), "filename", None)
        return f"{filename}:{name}" if filename else None

    def read_only(self, array: Any) -> str | None:
        return None if hasattr(array, "__setitem__") else f"a {type(array).__name__} cannot be written"

    def dimension_names(self, array: Any) -> tuple[Any, ...] | None:
        """The names the array's format keeps for its axes (zarr v3 `dimension_names`, xarray
        `dims`, HDF5 dimension labels), or None when it keeps none."""
        return None

    def reopening(self, array: Any) -> tuple[Any, tuple[Any, ...]]:
        """How pickle makes `array` again: a function and its arguments. By default the array pickles
        itself (numpy, dask, xarray and most array-likes do); a backend whose arrays do not overrides
        it (zarr over the safe store: reopened by path), or raises TypeError saying why it cannot."""
        return _itself, (array,)


class NumpyBackend(Backend):
    kind = "numpy"
    indexing = Indexing.VECTORIZED

    @classmethod
    def accepts(cls, array: Any) -> bool:
        return isinstance(array, np.ndarray)

    def outer(self, array: Any, keys: OuterKey) -> Any:
        return array[np.ix_(*_per_axis(keys, array.shape))]

    def points(self, array: Any, coords: tuple[Indices, ...]) -> Any:
        return array[coords]

    def set_points(self, array: Any, coords: tuple[Indices, ...], values: Buffer) -> None:
        array[coords] = values

    def read_only(self, array: Any) -> str | None:
        return None if array.flags.writeable else "the numpy array is read-only"


class ZarrBackend(Backend):
    """zarr arrays: orthogonal (`oindex`) and point (`vindex`) selections, chunks, writable."""

    kind = "zarr"
    indexing = Indexing.VECTORIZED
    through_dask = True

    @classmethod
    def accepts(cls, array: Any) -> bool:
        return all(hasattr(array, name) for name in ("oindex", "vindex", "store_path"))

    def basic(self, array: Any, key: Key) -> Any:
        with zarrreads.reading(array, key):  # a hostile store's errors: one line naming store and key
            stepped = zarrreads.basic_by_runs(array, key)  # a step over 10**9 chunks: one read per element
            return array[key] if stepped is None else stepped

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

    def reopening(self, array: Any) -> tuple[Any, tuple[Any, ...]]:
        """A store opened by lazytensor (the safe store, made on first use) by its folder and the array's
        path in it, opened through the safe store again; any other zarr array pickles as zarr does."""
        return zarrstore.reopening(array) or super().reopening(array)

    def dimension_names(self, array: Any) -> tuple[Any, ...] | None:
        """zarr v3 keeps `dimension_names` in its metadata; zarr v2 has none, but xarray writes its
        dimensions to the `_ARRAY_DIMENSIONS` attribute."""
        names = getattr(array.metadata, "dimension_names", None)
        if names is not None:
            return tuple(names)
        if "_ARRAY_DIMENSIONS" not in array.attrs:
            return None
        names = array.attrs["_ARRAY_DIMENSIONS"]
        if not isinstance(names, list) or not all(name is None or isinstance(name, str) for name in names):
            shown = repr(names)
            raise ValueError(
                f"{self.where(array)}: the attribute _ARRAY_DIMENSIONS must be a list of names (str), "
                f"got {shown if len(shown) <= 60 else shown[:60] + '…'}"
            )
        return tuple(names)


class DaskBackend(Backend):
    """dask arrays: every request is a lazy dask array; operations build graphs."""

    kind = "dask"
    indexing = Indexing.VECTORIZED
    lazy = True

    @classmethod
    def accepts(cls, array: Any) -> bool:
        return hasattr(array, "__dask_graph__") and hasattr(array, "vindex")

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


class Hdf5Backend(Backend):
    """h5py datasets: basic slicing (h5py's own fancy indexing takes one increasing list per
    request, so points are planned by chunk instead), chunks when the dataset is chunked."""

    kind = "hdf5"

    @classmethod
    def accepts(cls, array: Any) -> bool:
        return all(hasattr(array, name) for name in ("read_direct", "file", "chunks"))

    def basic(self, array: Any, key: Key) -> Any:
        return hdf5safe.read(array, key)  # split when one request would walk far more chunks than it reads

    def set_basic(self, array: Any, key: Key, values: Buffer) -> None:
        hdf5safe.write(array, key, values)

    def where(self, array: Any) -> str | None:
        return hdf5safe.where(array)  # known after the file is closed

    def read_only(self, array: Any) -> str | None:
        with hdf5safe.guarded(array):
            read_only = array.file.mode == "r" or hdf5safe.opened_read_only(array)
            return "the HDF5 file was opened read-only" if read_only else None

    def reopening(self, array: Any) -> tuple[Any, tuple[Any, ...]]:
        """The file's resolved path, the dataset's name and the options it was opened with: unpickling
        opens and checks the file again as `lt.open` does (`hdf5safe.reopening`)."""
        return hdf5safe.reopening(array)

    def dimension_names(self, array: Any) -> tuple[Any, ...] | None:
        """Each axis' dimension label, else the name of the first dimension scale attached to it
        (netCDF-4 files attach one per dimension), else None."""
        names: list[str | None] = []
        with hdf5safe.guarded(array):  # damaged dimension scales: one line naming the dataset
            for dim in array.dims:
                label = dim.label or (str(dim[0].name).rsplit("/", 1)[-1] if len(dim) else "")
                names.append(label or None)
        return tuple(names)


class XarrayBackend(Backend):
    """An xarray `DataArray` over a lazily loaded file (netCDF, zarr, HDF5): orthogonal selections
    (xarray's own for index arrays), read when asked. One over dask is read as its dask array
    (`lt.from_array` unwraps it)."""

    kind = "xarray"
    indexing = Indexing.OUTER

    @classmethod
    def accepts(cls, array: Any) -> bool:
        return hasattr(array, "dims") and hasattr(array, "variable") and hasattr(array, "isel")

    def basic(self, array: Any, key: Key) -> Any:
        with hdf5safe.reading_variable(self.where(array)):  # split as an HDF5 dataset's strided reads
            return hdf5safe.planned(
                functools.partial(self._read, array), array.shape, self.chunks(array), array.dtype, key
            )

    def outer(self, array: Any, keys: OuterKey) -> Any:
        """xarray's own selection, or, on an axis of very many chunks, one request per run of indices:
        xarray reads index arrays as their bounding box, which HDF5 walks chunk by chunk."""
        with hdf5safe.reading_variable(self.where(array)):
            runs = _ChunkedRequests(self, array, int_tuple(array.shape), np.dtype(array.dtype))
            by_runs = zarrreads.outer_by_runs(runs, keys)
            return self._read(array, keys) if by_runs is None else by_runs

    def _read(self, array: Any, key: Any) -> Any:
        """`array[key]`'s values, once the netCDF-4 chunks it touches are known not to inflate past
        their bound (`hdf5safe.VariableBound`)."""
        bound = self.__dict__.setdefault("bound", hdf5safe.VariableBound())
        bound.check(array, key)
        return array[key].values

    def chunks(self, array: Any) -> Shape | None:
        encoded = array.encoding.get("chunksizes") or array.encoding.get("chunks")
        return int_tuple(encoded) if encoded and len(encoded) == array.ndim else None

    def where(self, array: Any) -> str | None:
        source = array.encoding.get("source")
        return f"{source}:{array.name}" if source else None

    def read_only(self, array: Any) -> str | None:
        return "an xarray DataArray is read through lazytensor, not written: write to its source"

    def reopening(self, array: Any) -> tuple[Any, tuple[Any, ...]]:
        """A netCDF variable `lt.open` opened: by the file's resolved path, the variable's name and
        `allow_external`, opened and checked again as `lt.open` opens it; any other as xarray pickles it."""
        return hdf5safe.variable_reopening(array) or super().reopening(array)

    def dimension_names(self, array: Any) -> tuple[Any, ...] | None:
        return tuple(array.dims)


@functools.cache
def has_dask() -> bool:
    """Whether dask (the `dask` extra) is installed."""
    return importlib.util.find_spec("dask") is not None


def backend_of(array: Any) -> Backend:
    """The backend that answers requests for `array`: the last-defined backend class that accepts it.

    >>> backend_of(np.zeros(2)).kind, backend_of(np.zeros(2)).indexing.name
    ('numpy', 'VECTORIZED')
    """
    for backend in reversed(BACKENDS):
        if backend.accepts(array):
            return backend()
    return Backend()


def _per_axis(keys: OuterKey, shape: Shape) -> list[Indices]:
    return [np.arange(*k.indices(n)) if isinstance(k, slice) else k for k, n in zip(keys, shape, strict=True)]


def virtual_chunks(shape: Shape) -> Shape:
    """A grid to group point reads by when a backend declares no chunks: row-major blocks of about
    `VIRTUAL_CHUNK` elements (trailing axes whole while they fit).

    >>> virtual_chunks((1000, 1000)), virtual_chunks((10, 20))
    ((65, 1000), (10, 20))
    """
    chunks = [1] * len(shape)
    room = VIRTUAL_CHUNK
    for axis in reversed(range(len(shape))):
        size = max(shape[axis], 1)
        chunks[axis] = max(1, min(size, room))
        room //= size
        if room < 1:
            break
    return tuple(chunks)


def outer_by_request(backend: Backend, array: Any, keys: OuterKey, shape: Shape) -> Any:
    """An orthogonal selection planned from what `backend` declares: its own `outer` when it
    supports it, else its bounding box when that is small, else its points grouped by chunk."""
    if backend.indexing >= Indexing.OUTER:
        return backend.outer(array, keys)
    per_axis = _per_axis(keys, shape)
    box = tuple(slice(int(k.min()), int(k.max()) + 1) for k in per_axis)
    if numel(tuple(b.stop - b.start for b in box)) <= BOX_FACTOR * numel(tuple(map(len, per_axis))):
        block = np.asarray(backend.basic(array, box))
        return block[np.ix_(*(k - b.start for k, b in zip(per_axis, box, strict=True)))]
    grid = np.meshgrid(*per_axis, indexing="ij")
    points = points_by_request(backend, array, tuple(g.reshape(-1) for g in grid), shape)
    return points.reshape(tuple(map(len, per_axis)))


def points_by_request(backend: Backend, array: Any, coords: tuple[Indices, ...], shape: Shape) -> Any:
    """A point selection planned from what `backend` declares: its own `points` when it supports
    them, else the bounding box of the points when that is small, else one request per chunk
    touched (the bounding box of the points inside it), never one per point."""
    if backend.indexing >= Indexing.VECTORIZED:
        return backend.points(array, coords)
    box = tuple(slice(int(c.min()), int(c.max()) + 1) for c in coords)
    if numel(tuple(b.stop - b.start for b in box)) <= BOX_FACTOR * len(coords[0]):
        block = np.asarray(backend.basic(array, box))
        return block[tuple(c - b.start for c, b in zip(coords, box, strict=True))]
    chunks = backend.chunks(array) or virtual_chunks(shape)
    values = np.empty(len(coords[0]), dtype=np.dtype(array.dtype))
    for chosen in _chunk_groups(coords, chunks, shape):
        picked = tuple(c[chosen] for c in coords)
        low, key = _box(picked)
        block = backend.to_numpy(backend.basic(array, key))
        values[chosen] = block[tuple(p - lo for p, lo in zip(picked, low, strict=True))]
    return values


def _chunk_groups(coords: tuple[Indices, ...], chunks: Shape, shape: Shape) -> list[Indices]:
    """The positions (into `coords`) of the points in each chunk touched, one array per chunk."""
    grid = tuple(-(-n // c) for n, c in zip(shape, chunks, strict=True))
    chunk_of = np.ravel_multi_index(tuple(c // n for c, n in zip(coords, chunks, strict=True)), grid)
    order = np.argsort(chunk_of, kind="stable")
    starts = np.flatnonzero(np.diff(chunk_of[order], prepend=-1))
    return np.split(order, starts[1:])


def _box(coords: tuple[Indices, ...]) -> tuple[tuple[int, ...], tuple[slice, ...]]:
    """The low corner of the points' bounding box, and the box as a key of slices."""
    low = tuple(int(c.min()) for c in coords)
    return low, tuple(slice(lo, int(c.max()) + 1) for lo, c in zip(low, coords, strict=True))


def set_points_by_request(
    backend: Backend, array: Any, coords: tuple[Indices, ...], values: Buffer, shape: Shape
) -> None:
    """A write of distinct points planned from what `backend` declares: its own `set_points` when
    it supports point selection, else per chunk touched (or once, for a small bounding box) a read
    of the points' bounding box, the points set in it, and one write of it back: two requests
    per chunk, not one per point."""
    if backend.indexing >= Indexing.VECTORIZED:
        backend.set_points(array, coords, values)
        return
    _, box = _box(coords)
    if numel(tuple(b.stop - b.start for b in box)) <= BOX_FACTOR * len(coords[0]):
        groups = [np.arange(len(coords[0]))]
    else:
        groups = _chunk_groups(coords, backend.chunks(array) or virtual_chunks(shape), shape)
    for chosen in groups:
        picked = tuple(c[chosen] for c in coords)
        low, key = _box(picked)
        block = np.array(backend.to_numpy(backend.basic(array, key)))
        block[tuple(p - lo for p, lo in zip(picked, low, strict=True))] = values[chosen]
        backend.set_basic(array, key, block)


# -- lowering a layout or flat indices to requests --------------------------------------------


def strided_key(layout: Layout, shape: Shape) -> tuple[Key, list[int], list[bool]] | None:
    """The per-axis slices of an array of `shape` that hold what `layout` maps to, or None.

    Returns the key (one slice or int per array axis), for each layout axis the array axis
    it reads (-1: a size-1 or stride-0 axis, read as size 1 and broadcast), and which axes
    run backwards. The key is only returned when every layout axis is a distinct array
    axis with a whole step and stays inside it, so it is exact.

    >>> strided_key(Layout((2, 3), (1, 8), 1), (4, 8))
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
    return tuple(key), source, flips


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


class BackendRequests:
    """An array whose reads are its backend's basic requests: what dask reads chunks through, so a
    chunk read by a worker goes through the same door (and error messages) as any other read."""

    def __init__(self, backend: Backend, array: Any, shape: Shape, dtype: np.dtype[Any]) -> None:
        self.backend, self.array, self.shape, self.dtype, self.ndim = backend, array, shape, dtype, len(shape)

    def __getitem__(self, key: Key) -> Buffer:
        return self.backend.to_numpy(self.backend.basic(self.array, key))


class _ChunkedRequests(BackendRequests):
    """Basic requests of an array that declares its chunks (what `zarrreads.outer_by_runs` plans by)."""

    @property
    def chunks(self) -> Shape | None:
        return self.backend.chunks(self.array)


# -- the base ---------------------------------------------------------------------------------


_LONGEST_AXIS = int(np.iinfo(np.intp).max)


def _check_axis_lengths(shape: Shape) -> None:
    """ValueError for an axis longer than numpy can index (numpy's "Maximum allowed dimension
    exceeded"): its positions could not be read. The element count may pass 2**63; an axis may not.

    >>> _check_axis_lengths((2**62, 2**62))
    >>> _check_axis_lengths((3, 2**63))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: an array of shape (3, 9223372036854775808): axis 1 has 9223372036854775808 positions, ...
    """
    for axis, length in enumerate(shape):
        if length > _LONGEST_AXIS:
            raise ValueError(
                f"an array of shape {shape}: axis {axis} has {length} positions, "
                f"more than numpy can index ({_LONGEST_AXIS})"
            )


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
        _check_axis_lengths(self._shape)
        dtype: np.dtype[Any] = np.dtype(array.dtype)
        self._dtype = dtype.newbyteorder("=") if dtype.isnative else dtype  # '<f4' shows as float32
        self.grad_state = GradState()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the way to make the array again (its backend's `reopening`: a zarr store by its
        path) and the names the base was given; nothing cached (a dask twin, chunk limits) is kept."""
        make, arguments = self.backend.reopening(self.array)
        names = self.names if self.names_used else None
        labels = self.axis_coords if self.coords_used else None
        return (_unpickled_base, (make, arguments, names, labels))

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
        """Every base but a numpy array: dask's operations build graphs; on the others an elementwise
        operation is a computed tensor (`lazytensor.bases.computed`), and zarr runs the rest through
        dask chunk by chunk (when dask is installed), so none loads the whole array at once."""
        return not isinstance(self.backend, NumpyBackend)

    @once
    def _dask_twin(self) -> ArrayBase:
        """A dask-backed base over the same array, one dask chunk per chunk of the array."""
        da = require("dask.array", "dask")
        chunks = self.backend.chunks(self.array) or "auto"
        name = f"{self.backend.kind}-{id(self.array):x}"
        # through the backend's basic reads: for zarr, zarrreads' one-line errors naming store and key
        requests = BackendRequests(self.backend, self.array, self._shape, self._dtype)
        return ArrayBase(da.from_array(requests, chunks=chunks, name=name, asarray=True))

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
        key, source, flips = plan
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
            values = outer_by_request(self.backend, self.array, keys, self._shape).reshape(-1)
        else:
            coords_intp = tuple(np.asarray(c, dtype=np.intp) for c in coords)
            values = points_by_request(self.backend, self.array, coords_intp, self._shape)
        if len(unique) == indices.size and np.array_equal(unique, indices.reshape(-1)):
            return values.reshape(indices.shape)
        return values[inverse.reshape(-1)].reshape(indices.shape)

    def read_strided(self, layout: Layout, writeable: bool) -> Buffer:
        return self._numpy(self.backend.to_numpy(self.select_strided(layout)))

    def read_basic(self, key: Key) -> Buffer:
        """The values at a basic key of the array's own axes, in one request (no layout to plan)."""
        return self._numpy(self.backend.to_numpy(self.backend.basic(self.array, key)))

    def read_outer(self, keys: OuterKey) -> Buffer:
        """The values at an orthogonal selection of the array's own axes, planned by the backend."""
        return self._numpy(
            self.backend.to_numpy(outer_by_request(self.backend, self.array, keys, self._shape))
        )

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
        key, source, flips = plan
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
        set_points_by_request(self.backend, self.array, coords, chosen, self._shape)

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
            values = self.select_strided(layout)
        else:
            values = self.select_flat(np.asarray(evaluate.storage_indices(t)))
        return values if chunkforms.is_dask(values) else require("dask.array", "dask").asarray(values)

    def apply_lazily(
        self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]
    ) -> AbstractTensor | None:
        """dask (a dask base or operand): a dask graph; else an elementwise operation's computed tensor;
        else zarr's operations through dask; else None: `apply` runs it in memory."""
        if not self.backend.lazy and _lazy_base_among(operands) is None:
            for compute in COMPUTING:
                result = compute(entry, operands, params)
                if result is not None:
                    return result
            if not (self.backend.through_dask and has_dask()):
                return None
        needs_grad = [x.shape for x in operands if isinstance(x, AbstractTensor) and x.requires_grad]
        if needs_grad and autograd.is_grad_enabled():
            raise TypeError(
                f"{entry.name}: gradients do not flow through operations on a {self.backend.kind}-backed "
                f"tensor, and an operand of shape {needs_grad[0]} requires grad; use lt.no_grad(), or "
                "bring the tensor into memory first (t.compute())"
            )
        if not self.backend.lazy:  # zarr: computed now, through dask, one chunk at a time
            lazy = _lazy_base_among(operands)  # unless a dask operand keeps the whole result lazy
            if lazy is not None:
                return lazy.apply_lazily(entry, operands, params)
            return self._eager_through_dask(entry, operands, params)
        if isinstance(entry.chunked, NoChunkedForm):
            raise TypeError(
                f"{entry.name} has no chunked form, so it cannot run on a dask-backed tensor "
                f"(shape {self._shape}) without computing it whole: {entry.chunked.reason}; bring the "
                "operands into memory first (t.compute()), or write it with dask"
            )
        da = require("dask.array", "dask")
        kernel = chunkforms.UnderErrorState.now(entry.kernel)
        result = entry.chunked.build(da, kernel, tuple(_lazy_operand(x) for x in operands), params)
        return ArrayBase(result) if chunkforms.is_dask(result) else StorageTensor.from_array(np.array(result))

    def _eager_through_dask(
        self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]
    ) -> AbstractTensor:
        """An operation on a base that reads on request (zarr): its result is in memory, computed
        through dask one chunk at a time; an operation without a chunked form reads the operands as
        a memory-mapped file is read, the views' values only."""
        if isinstance(entry.chunked, NoChunkedForm):
            values = tuple(values_of(x) for x in operands)
            return StorageTensor.from_array(np.array(entry.kernel(*values, **params)))
        lazy = self._dask_twin.apply_lazily(entry, operands, params)
        if lazy is None:  # a dask base always builds a graph, or refuses
            raise AssertionError(f"{entry.name}: dask gave no graph")
        return lazy.compute()

    def computed(self, t: AbstractTensor) -> AbstractTensor:
        check_materialize(t.shape, t.dtype.itemsize, f"a {self.backend.kind}-backed tensor")
        return StorageTensor.from_array(np.array(evaluate.read(t), order="C"))  # 0-d stays 0-d

    def postcompute(self, lazy: Any) -> tuple[Any, tuple[Any, ...]]:
        finalize, args = lazy.__dask_postcompute__()
        return _finish, (finalize, args)

    def postpersist(self, lazy: Any) -> tuple[Any, tuple[Any, ...]]:
        rebuild, args = lazy.__dask_postpersist__()
        return _rebuild, (rebuild, args)


def _itself(array: Any) -> Any:
    """The array as pickle gave it back (`Backend.reopening` of an array that pickles itself)."""
    return array


def _unpickled_base(make: Any, arguments: tuple[Any, ...], names: Any, labels: Any = None) -> ArrayBase:
    """The base `ArrayBase.__reduce__` took apart: over `make(*arguments)`, named and labelled as it
    was (a base some view over it renamed keeps the flag that says so, so the views print their
    names; a pickle made before coordinates has no `labels`)."""
    base = ArrayBase(make(*arguments))
    if names is not None:
        naming.name_base(base, names)
        naming.mark_named(base)
    if labels is not None:  # labelled, by the file or by a view over it
        coordinates.label_base(base, labels)
        coordinates.mark_labelled(base)
    return base


def _finish(results: Any, finalize: Any, args: tuple[Any, ...]) -> StorageTensor:
    """dask's finalize, then the values as an in-memory tensor (what `dask.compute(t)` gives)."""
    return StorageTensor.from_array(np.array(finalize(results, *args)))


def _rebuild(graph: Any, rebuild: Any, args: tuple[Any, ...], rename: Any = None) -> ArrayBase:
    """dask's rebuild after `dask.persist(t)`: a dask-backed tensor over the persisted array."""
    return ArrayBase(rebuild(graph, *args, rename=rename))


def _lazy_base_among(operands: tuple[Any, ...]) -> ArrayBase | None:
    """The base of the first operand on a lazy (dask) base, or None."""
    for x in operands:
        if isinstance(x, AbstractTensor) and isinstance(x.base, ArrayBase) and x.base.backend.lazy:
            return x.base
    return None


def _lazy_operand(x: Any) -> Any:
    """An operand for a lazy operation: a dask-backed tensor's dask array, else its numpy values."""
    if isinstance(x, AbstractTensor) and x.base.defers_operations:
        return x._lazy_values
    return values_of(x)

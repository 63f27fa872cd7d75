"""Computed tensors: an elementwise operation of the table on operands that are not in memory (a zarr
store, an HDF5 file, a netCDF variable, any array-like, a big memory map), kept as a read-only base
whose reads compute just the positions read.

A `ComputedArray` is an array-like: it holds the table's entry, its parameters and its operands
(tensors, arrays, numbers), and answers a basic key (ints and slices) by translating it to each
operand's positions (numpy's broadcasting: an axis of size 1 is read once), reading only those, and
running the kernel on them, one block of its grid at a time (the operands' chunks where they have
them), so a read never holds more than a block of temporaries. `ComputedBase` is the `ArrayBase`
over it: every view, the printer, `explain()` and names work on it as on any base, and a computed
tensor is an operand of the next one, to any depth. Reductions of a computed tensor go through
dask as a zarr-backed tensor's do.
"""

from __future__ import annotations

import itertools
import math
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lazytensor.bases.arraylike import COMPUTING, ArrayBase, Backend, Indexing, OuterKey, strided_key
from lazytensor.engine import autograd, chunkforms, optable
from lazytensor.engine.optable import Op
from lazytensor.ground.buffers import bytes_text
from lazytensor.ground.positions import Shape, broadcast_shape, int_tuple, numel
from lazytensor.ground.settings import check_materialize
from lazytensor.kernels import callables, threads
from lazytensor.tensors import evaluate
from lazytensor.tensors.apply import LAZILY
from lazytensor.tensors.tensor import AbstractTensor, Buffer, StorageTensor, is_tensor_type, plain_values

BLOCK_ELEMENTS = 1 << 20
"""Elements in one block along the axes no operand chunks: reads compute a block at a time."""

CACHE_BLOCK_ELEMENTS = 1 << 17
"""Elements in one block of a computation whose operands are all in memory (`lt.lazy()`): 1 MiB of
float64, so a block's operands and temporaries stay in cache from one operation to the next
(measured on `a * 2 + b - c / 3` at 10⁷: 2¹⁵ pays more for its blocks than the cache saves, 2¹⁷
was fastest on one thread and on two, `benchmarks/bench_chain.py`)."""

MAX_DEPTH = 50
"""Computed tensors nested at most this deep (each read goes down them recursively): the operation
that would nest one more runs as operations not elementwise do, into memory."""

Grid = tuple[tuple[int, int], ...]
"""Per axis, a block's length and its phase: block borders are where `(position + phase) % length == 0`."""


class ComputedArray:
    """The values of `entry(*operands, **params)`, computed for the positions a key asks for.

    >>> import lazytensor as lt
    >>> from lazytensor.engine import optable
    >>> array = ComputedArray(optable.MUL, (lt.arange(6).reshape(2, 3), 10), {})
    >>> array.shape, array.dtype, array[1, 1:].tolist()
    ((2, 3), dtype('int64'), [40, 50])
    """

    def __init__(
        self, entry: Op, operands: Sequence[Any], params: dict[str, Any], errors: dict[str, str] | None = None
    ) -> None:
        names = chunkforms.elementwise_operands(entry.chunked)
        if names is None:
            raise TypeError(f"{entry.name} is not elementwise: it cannot be computed block by block")
        self.entry = entry
        # numpy's error state where the operation is written (`np.errstate`, `np.seterr`): its values
        # are computed later, maybe outside it, and warn or raise as the operation itself would have
        self.errors = dict(np.geterr()) if errors is None else errors
        self.depth = depth_of(operands)
        self.operands = tuple(x if is_tensor_type(type(x)) else plain_values(x) for x in operands)
        self.params = {k: v for k, v in params.items() if k not in names or np.ndim(v) == 0}
        self.operand_params = {k: np.asarray(v) for k, v in params.items() if k in names and np.ndim(v) > 0}
        inputs = (*self.operands, *self.operand_params.values())
        self.shape: Shape = broadcast_shape(*(_shape_of(x) for x in inputs))
        self.ndim = len(self.shape)
        self.resident = all(_in_memory(x) for x in self.operands)
        self.readers = tuple(_reader(x, self.shape) for x in self.inputs)
        self.dtype: np.dtype[Any] = self._probe_dtype()
        self.grid: Grid = self._grid()
        self.chunks: Shape = tuple(length for length, _ in self.grid)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the entry's name in the table, the operands and the parameters, so a dask
        worker that reads a block (`to_dask()` on a cluster) makes the same computation again."""
        params = {**self.params, **self.operand_params}
        return _recomputed, (self.entry.name, self.operands, params, self.errors)

    @property
    def inputs(self) -> tuple[Any, ...]:
        """Every operand the kernel reads: the operands, then the parameters that broadcast."""
        return (*self.operands, *self.operand_params.values())

    # -- the result's dtype and block grid

    def _probe_dtype(self) -> np.dtype[Any]:
        """numpy's dtype for the result: `dtype=` when given, else the kernel's on one-element
        stand-ins (ones); a Python callable that numpy does not know runs on the first element."""
        named = self.params.get("dtype")
        if named is not None:
            given: np.dtype[Any] = np.dtype(named)
            return given
        op = self.params.get("op")
        user_callable = (
            op is not None and callables.known_unary(op) is None and callables.known_binary(op) is None
        )
        if user_callable and numel(self.shape) > 0:
            first: np.dtype[Any] = np.asarray(self._kernel(tuple(slice(0, 1) for _ in self.shape))).dtype
            return first
        samples = tuple(
            np.ones((1,) * len(_shape_of(x)), dtype=_dtype_of(x)) if _is_array(x) else x for x in self.inputs
        )
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                return np.asarray(self._call(samples)).dtype
            except Exception:  # ones do not go (an int to the power -1): the first element says
                if numel(self.shape) == 0:
                    return np.dtype(np.result_type(*(_dtype_of(x) for x in self.inputs)))
        real: np.dtype[Any] = np.asarray(self._kernel(tuple(slice(0, 1) for _ in self.shape))).dtype
        return real  # numpy's error, raised now, when the operation cannot run at all

    def _grid(self) -> Grid:
        """The blocks reads compute in: along an axis an operand reads whole, that operand's chunks
        (the first that has some); along the rest, about `BLOCK_ELEMENTS` per block, trailing axes
        first (`CACHE_BLOCK_ELEMENTS` when every operand is in memory: nothing to read in chunks)."""
        grid: list[tuple[int, int] | None] = [None] * self.ndim
        for x in self.operands:
            if not isinstance(x, AbstractTensor):
                continue
            lead = self.ndim - x.ndim
            for axis, part in enumerate(view_grid(x)):
                if (
                    part is not None
                    and x.shape[axis] == self.shape[lead + axis]
                    and grid[lead + axis] is None
                ):
                    grid[lead + axis] = part
        elements = CACHE_BLOCK_ELEMENTS if self.resident else BLOCK_ELEMENTS
        room = max(1, elements // math.prod(part[0] for part in grid if part is not None))
        for axis in reversed(range(self.ndim)):
            if grid[axis] is None:
                length = max(1, min(self.shape[axis], room))
                grid[axis] = (length, 0)
                room = max(1, room // max(self.shape[axis], 1))
        return tuple(part for part in grid if part is not None)

    # -- reading

    def __getitem__(self, key: Any) -> Buffer:
        """The values at a basic key (ints and slices, one per axis or fewer), computed a block at a
        time into one new array (in memory, the blocks on every core: numpy lets go of the GIL)."""
        ranges, dropped = _ranges(key if isinstance(key, tuple) else (key,), self.shape)
        values: Buffer = np.empty(tuple(len(r) for r in ranges), dtype=self.dtype)
        pieces = [_pieces(r, length, phase) for r, (length, phase) in zip(ranges, self.grid, strict=True)]
        blocks = list(itertools.product(*pieces)) if values.size else []
        scratches: dict[int, Scratch] = {}  # one per thread

        def fill(i: int) -> None:
            block = blocks[i]
            scratch = scratches.setdefault(threading.get_ident(), Scratch())
            where = tuple(slice(*part[0]) for part in block)
            self._fill(values[where] if where else values, tuple(part[1] for part in block), scratch)

        if self.resident and len(blocks) > 1 and values.size >= threads.start_at:
            threads.run_blocks(len(blocks), fill)
        else:
            for i in range(len(blocks)):
                fill(i)
        return values[tuple(0 if drop else slice(None) for drop in dropped)]

    def outer(self, keys: OuterKey) -> Buffer:
        """The values at an orthogonal selection (per axis a slice or sorted indices), computed on each
        operand's own orthogonal selection at once."""
        shape = tuple(
            len(range(*k.indices(n))) if isinstance(k, slice) else len(k)
            for k, n in zip(keys, self.shape, strict=True)
        )
        inputs = tuple(_operand_outer(x, keys, self.shape) for x in self.inputs)
        with np.errstate(**self.errors):
            return self._finished(self._call(inputs), shape)

    def block(self, key: tuple[slice, ...], scratch: Scratch) -> Buffer:
        """The values at `key` (one slice per axis) computed at once, whatever the grid, into this
        operation's buffer in `scratch`: how an operation above reads its operand for its own block."""
        shape = tuple(len(range(*k.indices(n))) for k, n in zip(key, self.shape, strict=True))
        out = scratch.take(self, shape)
        if out.size:
            self._fill(out, key, scratch)
        return out

    def _fill(self, out: Buffer, key: tuple[slice, ...], scratch: Scratch) -> None:
        """Write one block's values (the result's positions `key`) into `out`: a ufunc writes there
        itself, so a chain of operations holds one block per operation below the top."""
        inputs = tuple(read(key, scratch) for read in self.readers)
        ufunc = self.entry.ufunc
        with np.errstate(**self.errors):
            if ufunc is not None and not self.params and not self.operand_params:
                ufunc(*inputs, out=out)
            else:
                out[...] = self._call(inputs)

    def _finished(self, result: Any, shape: Shape) -> Buffer:
        """The kernel's result as an array of the result's dtype and `shape`."""
        values = np.asarray(result)
        if values.dtype != self.dtype:
            values = values.astype(self.dtype)
        return values if values.shape == shape else np.broadcast_to(values, shape)

    def _kernel(self, key: tuple[slice, ...]) -> Any:
        """The kernel on the operands' values at `key` (slices of the result's axes)."""
        scratch = Scratch()
        inputs = tuple(read(key, scratch) for read in self.readers)
        with np.errstate(**self.errors):
            return self._call(inputs)

    def _call(self, values: tuple[Any, ...]) -> Any:
        count = len(self.operands)
        named = dict(zip(self.operand_params, values[count:], strict=True))
        return self.entry.kernel(*values[:count], **self.params, **named)

    # -- what explain and the printer say

    def describe(self) -> str:
        """`mul(Zarr (6, 8), 2) in blocks of (2, 4)`."""
        shown = ", ".join(_operand_text(x) for x in self.operands)
        params = "".join(f", {k}={_short(v)}" for k, v in self.params.items() if k != "op" and v is not None)
        params += "".join(f", {k}=array{v.shape}" for k, v in self.operand_params.items())
        op = self.params.get("op")
        if op is not None:
            params += f", op={getattr(op, '__name__', type(op).__name__)}"
        return f"{self.entry.name}({shown}{params}) in blocks of {self.chunks}"

    def stored_reads(self) -> tuple[int, list[str]]:
        """Bytes a full read takes from storage that is not in memory, and the kinds of that storage."""
        total, kinds = 0, list[str]()
        for x in self.operands:
            if not isinstance(x, AbstractTensor):
                continue
            base = x.base
            if isinstance(base, ArrayBase) and isinstance(base.array, ComputedArray):
                more, their = base.array.stored_reads()
                total, kinds = total + more, kinds + their
            elif base.storage_note is not None:
                total += x.numel() * x.dtype.itemsize
                kinds.append(base.storage_note)
        return total, list(dict.fromkeys(kinds))

    def operand_positions(self, pos: Shape) -> list[tuple[AbstractTensor, Shape]]:
        """Each tensor operand and the position of it that `pos` of the result reads."""
        found = []
        for x in self.operands:
            if isinstance(x, AbstractTensor):
                lead = self.ndim - x.ndim
                found.append((x, tuple(0 if n == 1 else p for p, n in zip(pos[lead:], x.shape, strict=True))))
        return found


class Scratch:
    """One thread's buffers for the operations below the top of a computation: each writes every
    block of its values into the same memory. (A new array a block costs more than the arithmetic:
    the allocator hands 256 KiB back to the system and takes it again, page faults and all: 640 µs
    against 6 µs for a multiplication, measured.)"""

    def __init__(self) -> None:
        self.buffers: dict[int, Buffer] = {}

    def take(self, owner: ComputedArray, shape: Shape) -> Buffer:
        """`owner`'s buffer, as an array of `shape` (made, or made bigger, on first need)."""
        count = numel(shape)
        buffer = self.buffers.get(id(owner))
        if buffer is None or buffer.size < count:
            buffer = np.empty(count, dtype=owner.dtype)
            self.buffers[id(owner)] = buffer
        return buffer[:count].reshape(shape)


class ComputedBackend(Backend):
    """Computed arrays: basic keys block by block, orthogonal selections (a print's corners) in one
    computation over each operand's own orthogonal read; the grid of blocks as chunks; never written."""

    kind = "computed"
    indexing = Indexing.OUTER
    through_dask = True  # reductions and the operations that are not elementwise: block by block

    def outer(self, array: Any, keys: OuterKey) -> Any:
        if all(isinstance(k, slice) for k in keys):
            return array[keys]
        return array.outer(keys)

    @classmethod
    def accepts(cls, array: Any) -> bool:
        return isinstance(array, ComputedArray)

    def read_only(self, array: Any) -> str | None:
        return f"it is {array.entry.name} of its operands, computed when read"

    def where(self, array: Any) -> str | None:
        return None


class ComputedBase(ArrayBase):
    """The base over a `ComputedArray`: read-only, explained as the operation it computes.

    >>> import lazytensor as lt
    >>> from lazytensor.engine import optable
    >>> c = ComputedBase(ComputedArray(optable.ADD, (lt.arange(4), 1), {}))
    >>> c[1:].tolist(), c.layer_name, c.describe()
    ([2, 3, 4], 'Computed', 'add(Storage (4,), 1) in blocks of (4,)')
    """

    array: ComputedArray

    @property
    def layer_name(self) -> str:
        return "Computed"

    def describe(self) -> str:
        return self.array.describe()

    @property
    def storage_note(self) -> str | None:
        return "computed"

    @property
    def read_only_reason(self) -> str | None:
        return (
            f"cannot write to a computed tensor of shape {self._shape}: it is {self.array.entry.name} of "
            "its operands, computed when read; write into a copy (t.compute() or lt.tensor(t))"
        )

    def read_cost(self, t: AbstractTensor) -> str:
        """What reading all of the view `t` of this base costs, for the printer's header:
        `a full read computes 48 elements from zarr (384 bytes)`."""
        stored, kinds = self.array.stored_reads()
        share = t.numel() / max(1, numel(self._shape))
        source = f" from {' and '.join(kinds)} ({bytes_text(stored * share)})" if kinds else ""
        return f"a full read computes {t.numel():,} elements{source}"

    def operand_positions(self, pos: Shape) -> list[tuple[AbstractTensor, Shape]]:
        """Where `explain(position)` goes on: each operand at the position this one reads."""
        return self.array.operand_positions(pos)

    def computed(self, t: AbstractTensor) -> AbstractTensor:
        """`t`'s values in memory, computed once into the array that is the result (a read of a
        computed array is always a new array: copied only when the view made it read-only or strided)."""
        check_materialize(t.shape, t.dtype.itemsize, "a computed tensor")
        values = np.asarray(evaluate.read(t))
        if not values.flags.writeable:
            values = np.array(values, order="C")
        return StorageTensor.from_array(values)

    def apply_lazily(
        self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]
    ) -> AbstractTensor | None:
        """Over operands in memory: the next elementwise operation's computed tensor, else None (the
        operation runs in memory on the values read); over files, what their bases do."""
        if self.array.resident and all(_in_memory(x) for x in operands):
            return computed(entry, operands, params)
        return super().apply_lazily(entry, operands, params)


def computed(entry: Op, operands: tuple[Any, ...], params: dict[str, Any]) -> AbstractTensor | None:
    """The computed tensor of an elementwise `entry` on `operands`, or None for an operation that is not
    elementwise, or that must record a gradient (it then runs in memory, as before)."""
    if chunkforms.elementwise_operands(entry.chunked) is None or entry.name == "copy":  # a copy is to write
        return None
    if autograd.is_grad_enabled() and any(
        isinstance(x, AbstractTensor) and x.requires_grad for x in operands
    ):
        return None
    if depth_of(operands) > MAX_DEPTH:
        return None
    return ComputedBase(ComputedArray(entry, operands, params))


COMPUTING.append(computed)
LAZILY.append(computed)


def _recomputed(
    name: str, operands: tuple[Any, ...], params: dict[str, Any], errors: dict[str, str]
) -> ComputedArray:
    """The computed array `ComputedBackend.reopening` took apart, over the table's entry `name`."""
    return ComputedArray(optable.TABLE[name], operands, params, errors)


def depth_of(operands: Sequence[Any]) -> int:
    """How deep a computed array over `operands` nests computed arrays: 1 over stored operands."""
    bases = [x.base for x in operands if isinstance(x, AbstractTensor)]
    below = [b.array.depth for b in bases if isinstance(b, ArrayBase) and isinstance(b.array, ComputedArray)]
    return 1 + max(below, default=0)


def view_grid(x: AbstractTensor) -> list[tuple[int, int] | None]:
    """The block grid of each axis of `x` in its own positions, from its base's chunks (a zarr array's,
    a computed array's grid), or None for an axis that maps to none."""
    base = x.base
    below = _base_grid(base)
    if below is None or x.numel() == 0:  # nothing to read: no grid to follow
        return [None] * x.ndim
    if x is base:
        return list(below)
    layout = x.layout
    plan = None if layout is None else strided_key(layout, base.shape)
    if plan is None:
        return [None] * x.ndim
    key, source, flips = plan
    grid: list[tuple[int, int] | None] = []
    for axis, flip in zip(source, flips, strict=True):
        part = key[axis] if axis >= 0 else None
        if not isinstance(part, slice):
            grid.append(None)
            continue
        length, phase = below[axis]
        step = part.step or 1
        if flip:
            grid.append((max(1, length // step), 0))
        else:
            grid.append((max(1, length // step), ((part.start + phase) % length) // step))
    return grid


def _base_grid(base: Any) -> Grid | None:
    if not isinstance(base, ArrayBase):
        return None
    if isinstance(base.array, ComputedArray):
        return base.array.grid
    chunks = base.backend.chunks(base.array)
    if chunks is None or len(chunks) != base.ndim:
        return None
    return tuple((max(1, c), 0) for c in chunks)


def _in_memory(x: Any) -> bool:
    """Whether an operand's values are in memory: a number, an array, a tensor over a numpy buffer
    (not a memory map), a computed tensor over such operands."""
    if not isinstance(x, AbstractTensor):
        return True
    base = x.base
    if isinstance(base, ArrayBase) and isinstance(base.array, ComputedArray):
        return base.array.resident
    return base.storage_note is None


def _is_array(x: Any) -> bool:
    return isinstance(x, AbstractTensor | np.ndarray)


def _shape_of(x: Any) -> Shape:
    return int_tuple(x.shape) if _is_array(x) else ()


def _dtype_of(x: Any) -> Any:
    return x.dtype if _is_array(x) else np.result_type(x)


Reader = Callable[[tuple[slice, ...], "Scratch"], Any]
"""An operand's values for a block of the result (its key: one slice per axis of the result)."""


def _reader(x: Any, shape: Shape) -> Reader:
    """How an operand of a result of `shape` is read a block at a time, decided once per operand:
    a number as it is (numpy keeps it weak); an array, or a tensor in memory, sliced; a computed
    operand into its scratch buffer; a file or store by one request."""
    if not _is_array(x):
        return lambda key, scratch: x
    own = _own_key(int_tuple(x.shape), len(shape))
    if isinstance(x, np.ndarray):
        return lambda key, scratch: x[own(key)]
    fused = x._fused_values  # in memory: a slice of its numpy view, no tensor made for the block
    if fused is not None:
        return lambda key, scratch: fused[own(key)]
    base = x.base
    if not x.ndim:
        return lambda key, scratch: x.values()
    if x is not base or not isinstance(base, ArrayBase):  # a view: made for the block, then read
        return lambda key, scratch: x[own(key)].values()
    array = base.array
    if isinstance(array, ComputedArray):
        return lambda key, scratch: array.block(own(key), scratch)
    return lambda key, scratch: base.read_basic(own(key))


def _own_key(own: Shape, ndim: int) -> Callable[[tuple[slice, ...]], tuple[slice, ...]]:
    """The operand's key for a block key of the result (`ndim` axes), by numpy's broadcasting: the
    leading axes it lacks dropped, an axis of size 1 read at its one position.

    >>> _own_key((3, 1), 3)((slice(0, 2), slice(1, 3), slice(4, 6)))
    (slice(1, 3, None), slice(0, 1, None))
    """
    lead = ndim - len(own)
    if 1 not in own:
        return (lambda key: key) if lead == 0 else (lambda key: key[lead:])
    return lambda key: tuple(slice(0, 1) if n == 1 else k for k, n in zip(key[lead:], own, strict=True))


def _operand_outer(x: Any, keys: OuterKey, shape: Shape) -> Any:
    """An operand's values for an orthogonal selection of a result of `shape` (broadcast as
    `_reader`): its slices as one view, then its index arrays one axis at a time."""
    if not _is_array(x):
        return x
    lead = len(shape) - x.ndim
    mine = [slice(0, 1) if n == 1 else k for k, n in zip(keys[lead:], x.shape, strict=True)]
    base = x.base if isinstance(x, AbstractTensor) else None
    if x is base and isinstance(base, ArrayBase) and mine:  # a base itself: one request, no views
        if isinstance(base.array, ComputedArray):
            return base.array.outer(tuple(mine))
        return base.read_outer(tuple(mine))
    view = x[tuple(k if isinstance(k, slice) else slice(None) for k in mine)]
    for axis, k in enumerate(mine):
        if not isinstance(k, slice):
            view = view[(slice(None),) * axis + (k,)]
    if isinstance(view, np.ndarray):
        return view
    return view.values() if mine else x.values()


def _ranges(key: tuple[Any, ...], shape: Shape) -> tuple[list[range], list[bool]]:
    """Each axis' positions a basic key reads, and which axes an int drops."""
    if any(k is Ellipsis or k is None for k in key) or len(key) > len(shape):
        raise IndexError(f"a computed array takes ints and slices, one per axis of {shape}, got {key!r}")
    key = key + (slice(None),) * (len(shape) - len(key))
    ranges, dropped = [], []
    for k, n in zip(key, shape, strict=True):
        if isinstance(k, slice):
            ranges.append(range(*k.indices(n)))
            dropped.append(False)
        else:
            i = int(k) + n if int(k) < 0 else int(k)
            if not 0 <= i < n:
                raise IndexError(f"index {k} is out of bounds for an axis of size {n}")
            ranges.append(range(i, i + 1))
            dropped.append(True)
    return ranges, dropped


def _pieces(positions: range, length: int, phase: int) -> list[tuple[tuple[int, int], slice]]:
    """The positions of one axis split at the grid's block borders: for each piece, where it goes in
    the read (start, stop) and the slice of the axis it reads.

    >>> _pieces(range(1, 7), 4, 0)
    [((0, 3), slice(1, 4, 1)), ((3, 6), slice(4, 7, 1))]
    """
    pieces = []
    count, step = len(positions), positions.step
    i = 0
    while i < count:
        p = positions[i]
        if step > 0:
            border = ((p + phase) // length + 1) * length - phase
            j = min(count, i + -(-(border - p) // step))
        else:
            border = ((p + phase) // length) * length - phase - 1
            j = min(count, i + -(-(p - border) // -step))
        last = positions[j - 1]
        stop = last + (1 if step > 0 else -1)
        pieces.append(((i, j), slice(p, stop if stop >= 0 else None, step)))
        i = j
    return pieces


def _operand_text(x: Any) -> str:
    if isinstance(x, AbstractTensor):
        return f"{x.layer_name} {x.shape}"
    if isinstance(x, np.ndarray):
        return f"array{x.shape}"
    return _short(x)


def _short(value: Any) -> str:
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 20 else text[:19] + "…"

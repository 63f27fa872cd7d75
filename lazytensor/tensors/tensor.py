"""`AbstractTensor`, the interface every tensor implements, and the bases at the bottom of stacks:
`BaseTensor`, and `StorageTensor`, a flat numpy buffer.

This module keeps the protocol (shape, layout, base, layers, reading and writing elements,
`numpy()`). The user-facing methods live in the mixins of `lazytensor.tensors.surface`, one job
each, which `AbstractTensor` inherits: `shaping` (views), `operators` (operators and elementwise
functions), `reducing` (reductions and scans), `arrays` (sorting and numpy's method names),
`inplace` (`t += x`, `add_`), `numbers` (a one-element tensor as a number), `gradients` (the
autograd surface), `display` (printing, `explain()`), `standard` (the array API namespace, device,
DLPack) and `collection` (the dask protocol). Each mixin names the primitives it needs (`_apply`,
`_views`, ...) on `surface.primitives.Surface`.

The primitives are the floor's other modules, which build on the classes here: `apply` (one entry
of the operation table), `dispatch` (numpy's two protocols) and `views` (the wrappers and their
constructors). They import this module, never the other way round; `lazytensor/tensors/__init__.py`
hands them to `AbstractTensor` once all are defined.
"""

from __future__ import annotations

import abc
from collections.abc import Collection, Iterator, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

import lazytensor.tensors.evaluate as evaluate
from lazytensor.engine import autograd, optable
from lazytensor.engine.autograd import Node, Version
from lazytensor.engine.optable import Op
from lazytensor.ground import coords as coordinates
from lazytensor.ground import keywords, naming
from lazytensor.ground.buffers import check_fits, is_memory_mapped
from lazytensor.ground.dtypes import as_dtype
from lazytensor.ground.layout import Layout
from lazytensor.ground.once import once
from lazytensor.ground.positions import Shape, int_tuple, normalize_position, numel, row_major_strides
from lazytensor.ground.settings import check_materialize
from lazytensor.tensors.surface.arrays import ArrayMethods
from lazytensor.tensors.surface.casts import Casts
from lazytensor.tensors.surface.collection import DaskCollection
from lazytensor.tensors.surface.display import Display
from lazytensor.tensors.surface.gradients import Gradients, float_dtype
from lazytensor.tensors.surface.inplace import InPlace
from lazytensor.tensors.surface.named_axes import Naming
from lazytensor.tensors.surface.numbers import Numbers
from lazytensor.tensors.surface.operators import Operators
from lazytensor.tensors.surface.reducing import Reductions
from lazytensor.tensors.surface.shaping import Shaping
from lazytensor.tensors.surface.standard import ArrayAPI

Buffer = npt.NDArray[Any]
_PYTHON_OBJECT_BYTES = 32
"""About what one element costs as a Python object in a list (a float: 24 bytes, and its slot)."""


TENSOR_TYPES: dict[type, bool] = {}


def is_tensor_type(cls: type) -> bool:
    """Whether instances of `cls` are tensors (an ABC check, cached per class: it is on every hot path)."""
    known = TENSOR_TYPES.get(cls)
    if known is None:
        known = TENSOR_TYPES[cls] = issubclass(cls, AbstractTensor)
    return known


def values_of(x: Any) -> Any:
    """The numpy values of an operand: a tensor evaluated (zero-copy when it can be), a list as an
    array, a scalar as it is (so numpy treats a Python number weakly, as `array + 1` does).

    >>> import lazytensor as lt
    >>> values_of(lt.arange(3)), values_of(2.5), values_of([1, 2])
    (array([0, 1, 2]), 2.5, array([1, 2]))
    """
    if is_tensor_type(type(x)):
        return x.values()
    return plain_values(x)


# Type tuples for isinstance on hot paths (`X | Y` would build a union object on every call).
_SEQUENCES = (list, tuple)
_NUMPY_VALUES = (np.ndarray, np.generic)
_PYTHON_NUMBERS = (int, float, complex)


def plain_values(x: Any) -> Any:
    """`values_of` an operand that is not a tensor: a list as an array, anything else as it is."""
    return np.asarray(x) if isinstance(x, _SEQUENCES) else x


def _is_tensor(x: Any) -> bool:
    return isinstance(x, AbstractTensor)


class AbstractTensor(
    Shaping,
    Naming,
    Operators,
    Reductions,
    ArrayMethods,
    Casts,
    InPlace,
    Numbers,
    Gradients,
    Display,
    ArrayAPI,
    DaskCollection,
    abc.ABC,
):
    """What every tensor answers: its shape, where its elements live, and how to read them.

    >>> import lazytensor as lt
    >>> t = lt.arange(6).reshape(2, 3)
    >>> t.T.shape, t.T.get((2, 1)), t.T.shares_storage(t)
    ((3, 2), np.int64(5), True)
    """

    __slots__ = ()

    # -- the primitives the surface mixins name (`surface.primitives.Surface`) ---------------------
    # `_apply`, `_whole_sum`, `_check_in_place`, `_array_ufunc`, `_array_function` and `_views` come
    # from the modules that build on this one, bound by `lazytensor/tensors/__init__.py`.

    _values_of = staticmethod(values_of)
    _is_tensor = staticmethod(_is_tensor)

    # -- the protocol -----------------------------------------------------------------------

    @property
    @abc.abstractmethod
    def shape(self) -> Shape:
        """The size of each axis."""

    @property
    @abc.abstractmethod
    def layout(self) -> Layout | None:
        """The fused strided map from positions to storage indices, or None when the stack has none."""

    @property
    @abc.abstractmethod
    def base(self) -> BaseTensor:
        """The base at the bottom of the stack (a StorageTensor, or an array-like base)."""

    @property
    @abc.abstractmethod
    def layers(self) -> tuple[AbstractTensor, ...]:
        """This tensor, the tensor it wraps, and so on down to the storage tensor."""

    @abc.abstractmethod
    def describe(self) -> str:
        """What this layer was made with, in a few words (for `explain()`)."""

    def describe_position(self, pos: Shape) -> str:
        """What this layer says of one of its positions in the trace of `explain(position)`: by default
        what it was made with; a layer over edges names the edge there."""
        return self.describe()

    @property
    def read_only_reason(self) -> str | None:
        """Why a write through this layer cannot reach storage, or None when it can."""
        return None

    @property
    def layer_name(self) -> str:
        """The short name in a layer chain: the class name without its `Tensor` suffix."""
        return type(self).__name__.removesuffix("Tensor")

    @staticmethod
    def fresh_storage(values: Buffer) -> StorageTensor:
        """A new storage tensor over `values` (how readers make one without importing this module)."""
        return StorageTensor.from_array(values)

    # -- reading and inspecting -------------------------------------------------------------

    @property
    def storage(self) -> Buffer:
        """The flat 1-D numpy buffer at the bottom of the stack (TypeError for an array-like base)."""
        return self.base.buffer

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.base.dtype

    def numel(self) -> int:
        """The number of elements."""
        return numel(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise ValueError(
                f"the truth value of a tensor of shape {self.shape} with {self.numel()} elements "
                "is ambiguous; use .any() or .all()"
            )
        return bool(self.item())

    def locate(self, pos: Sequence[int]) -> int:
        """The storage index of the element at `pos` (negative indices count from the end).

        >>> import lazytensor as lt
        >>> lt.arange(12).reshape(3, 4).T[::-1].locate((0, 2))
        11
        """
        return evaluate.locate(self, normalize_position(pos, self.shape))

    def get(self, pos: Sequence[int]) -> Any:
        """The element at `pos`.

        >>> import lazytensor as lt
        >>> lt.tensor([[1, 2], [3, 4]]).get((1, -1))
        np.int64(4)
        """
        return self.base.read_one(self.locate(pos))

    def set(self, pos: Sequence[int], value: Any) -> None:
        """Write one element through every layer down to storage.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t.T.set((0, 1), 7.0)
        >>> t.tolist()
        [[0.0, 0.0], [7.0, 0.0]]
        """
        evaluate.write_one(self, normalize_position(pos, self.shape), value)

    def numpy(self) -> Buffer:
        """The values as a numpy array: a zero-copy view when the stack has a layout, else a new array.

        >>> import lazytensor as lt
        >>> lt.arange(6).reshape(2, 3).T.numpy()
        array([[0, 3],
               [1, 4],
               [2, 5]])
        """
        fused = self._fused_values
        if fused is not None:
            return fused.view()
        if not self.base.has_buffer:  # a file, a store, a computed tensor: read on purpose, up to a limit
            kind = self.base.layer_name.lower()
            what = "a computed tensor" if kind == "computed" else f"a {kind}-backed tensor"
            check_materialize(self.shape, self.dtype.itemsize, what)
        return evaluate.read(self)

    @once
    def _fused_values(self) -> Buffer | None:
        """The zero-copy numpy view of a stack that fuses, made once (storage never moves), or None.
        When the layer below already has its own, numpy derives this one from it (a transpose or a
        slice of an array costs less than building a strided view from the layout). None also for
        an array-like base, whose values are read afresh each time, for a memory map (each read checks
        its file first), and for a shape of more than 2**63 bytes, which numpy cannot view (its
        elements are read through the layout). Only a view of storage is kept: a copy (a numpy
        scalar, say) would go stale at the next write to the base. A view numpy derives from the
        one below needs no layout: that one passed these checks, over the same base. A view over an
        expand is read-only either way, as numpy's views of a `broadcast_to` are."""
        below = getattr(self, "wrapped", None)
        known = None if below is None else _FUSED_VALUES.peek(below)
        if known is not None:
            derived = self.view_of(known)
            if isinstance(derived, np.ndarray) and derived.base is not None:
                return derived
        layout = self.layout
        if (
            layout is None
            or not self.base.has_buffer
            or not self.base.keeps_views
            or not evaluate.numpy_can_view(layout, self.dtype.itemsize)
        ):
            return None
        values = evaluate.read(self)
        if values.flags.writeable and any(layer.read_only_reason is not None for layer in self.layers):
            values.flags.writeable = False  # over an expand: read-only as numpy's, whatever was read before
        return values

    def view_of(self, below: Buffer) -> Buffer | None:
        """This layer as a numpy view of the fused array below it, when numpy has that view cheaply
        (a transpose, a basic slice, a broadcast); None to build it from the layout instead."""
        return None

    def values(self) -> Buffer:
        """The values for a computation: the fused view itself (not a fresh view object), or a read."""
        fused = self._fused_values
        return evaluate.read(self) if fused is None else fused

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> Buffer:
        array = self.numpy()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def tolist(self) -> Any:
        """Nested Python lists of Python scalars (a scalar for a 0-d tensor)."""
        check_fits(
            self.numel(), self.dtype.itemsize + _PYTHON_OBJECT_BYTES, f"tolist() of shape {self.shape}"
        )
        return self.numpy().tolist()

    def item(self) -> Any:
        """The only element, as a Python scalar."""
        if self.numel() != 1:
            raise ValueError(
                f"can only convert a tensor of size 1 to a Python scalar, not shape {self.shape}"
            )
        return self.numpy().reshape(-1).tolist()[0]

    def is_contiguous(self) -> bool:
        """Whether the elements sit in storage in row-major order with no gaps."""
        return self.layout is not None and self.layout.is_contiguous()

    def contiguous(self) -> AbstractTensor:
        """This tensor if it is contiguous, else a contiguous copy (PyTorch's rule)."""
        return self if self.is_contiguous() else self.clone()

    def clone(self) -> StorageTensor:
        """A new storage tensor holding a copy of the values."""
        check_fits(self.numel(), self.dtype.itemsize, f"a copy of shape {self.shape}")
        copied = StorageTensor.from_array(evaluate.read_copy(self))
        if self.base.names_used:  # a copy keeps the names (and coordinates), as PyTorch's clone
            naming.name_base(copied, self.names)
            coordinates.label_base(copied, self.axis_coords)
        return copied

    def astype(self, dtype: npt.DTypeLike, *, copy: bool = True) -> AbstractTensor:
        """A copy converted to `dtype` (numpy's casting); with `copy=False` this tensor itself when it
        already has that dtype, as numpy.

        >>> import lazytensor as lt
        >>> t = lt.arange(3)
        >>> t.astype("float32").dtype, t.astype(t.dtype, copy=False) is t, t.astype(t.dtype) is t
        (dtype('float32'), True, False)
        """
        if not copy and as_dtype(dtype) == self.dtype:
            return self
        if self.base.defers_operations:  # not in memory: a computed tensor (dask: a graph)
            return self._apply(optable.ASTYPE, self, dtype=as_dtype(dtype))
        check_fits(self.numel(), np.dtype(dtype).itemsize, f"a copy of shape {self.shape} as {dtype}")
        return StorageTensor.from_array(self.numpy().astype(dtype, order="C"))

    def shares_storage(self, other: AbstractTensor | Buffer) -> bool:
        """Whether the two stand on one storage, as PyTorch's views share theirs: `t[:2]` and `t[3:]`
        do, though no element of one is in the other (`np.shares_memory` asks about elements).

        >>> import lazytensor as lt
        >>> t = lt.arange(6)
        >>> t[:2].shares_storage(t[3:]), t[:2].shares_storage(lt.arange(6))
        (True, False)
        """
        return self.base.shares_storage_with(other.base if isinstance(other, AbstractTensor) else other)

    # -- operations: each one entry of the table, applied ----------------------------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's protocol, so that `ndarray + tensor` and `np.exp(tensor)` give tensors."""
        return self._array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(
        self, func: Any, types: Collection[type], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """numpy's protocol, so that `np.concatenate`, `np.transpose`, `np.sort`, ... give tensors
        (views where numpy gives views); see `lazytensor.engine.numpy_routes`.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> type(np.transpose(t)).__name__, np.concatenate([t, t]).shape, np.flip(t, 1).tolist()
        ('TransposedTensor', (4, 3), [[2, 1, 0], [5, 4, 3]])
        """
        if not all(issubclass(kind, AbstractTensor | np.ndarray) for kind in types):
            return NotImplemented
        return self._array_function(func, args, kwargs)

    def _reinterpreted(self, dtype: npt.DTypeLike) -> AbstractTensor:
        """This tensor's bytes as `dtype`, over a storage tensor on the same memory."""
        target = keywords.view_dtype("view", self.shape, self.dtype, dtype, self.requires_grad)
        base = self.base
        if not base.has_buffer:
            raise TypeError(
                f"view({target}) reads memory as another dtype: a {base.layer_name} base has none"
            )
        if target.itemsize == self.dtype.itemsize:
            same = StorageTensor(base.buffer.view(target), base.shape)
            same.grad_state.version = base.grad_state.version  # one memory, one count of writes
            return same if self is base else self._views.restack(self, base, same)
        layout = self.layout
        if layout is not None and layout.is_contiguous():  # one run of memory: a storage tensor on it
            memory = base.buffer[layout.offset : layout.offset + self.numel()].view(target)
            shape = (*self.shape[:-1], self.shape[-1] * self.dtype.itemsize // target.itemsize)
            reread = StorageTensor(memory, shape)
            reread.grad_state.version = base.grad_state.version
            return reread
        positions, skip = keywords.retyped_positions(
            "view", self.shape, evaluate.storage_indices(self), self.dtype, target
        )
        raw = base.buffer.view(np.uint8)  # the bytes, read as `target` from byte `skip` on
        count = (raw.size - skip) // target.itemsize
        whole = StorageTensor(raw[skip : skip + count * target.itemsize].view(target), (count,))
        whole.grad_state.version = base.grad_state.version
        rows: AbstractTensor = self._views.index_view(whole, (positions,))  # rows anywhere, each one run
        return rows


class GradState:
    """The mutable gradient bookkeeping of a storage tensor; the tensor itself stays frozen.

    `node` is set on the result of an operation that recorded its inputs; `version` counts the
    writes into the buffer (shared with every tensor over the same buffer, as `detach()` makes).
    """

    __slots__ = ("grad", "node", "requires_grad", "retains", "version")

    def __init__(self) -> None:
        self.requires_grad = False
        self.retains = False
        self.grad: StorageTensor | None = None
        self.node: Node | None = None
        self.version = Version()

    def without_graph(self) -> GradState:
        """The state a pickle keeps: everything but the recorded graph (`node`), which holds the
        operation's backward closures and its operands. PyTorch's `pickle` does the same: a result
        that requires grad comes back as a leaf that requires grad.

        >>> import lazytensor as lt
        >>> state = (lt.ones(2, requires_grad=True) * 2).grad_state.without_graph()
        >>> state.requires_grad, state.node
        (True, None)
        """
        kept = GradState()
        kept.requires_grad, kept.grad, kept.version = self.requires_grad, self.grad, self.version
        return kept


class BaseTensor(AbstractTensor):
    """The bottom of a stack: it answers the reading and writing questions of `evaluate` for the
    positions a fused `Layout` or an array of flat indices names (row-major indices of its shape).

    `StorageTensor` answers them with one flat numpy buffer; the array-like bases of
    `lazytensor.bases.arraylike` (zarr, dask, h5py) lower them to as few backend requests as they can.
    """

    __slots__ = ()
    grad_state: GradState
    buffer: Buffer
    """The flat 1-D numpy buffer (an array-like base raises TypeError, naming its array)."""

    has_buffer = True
    """Whether `buffer` is a flat numpy array (False: an array-like base, read on request)."""

    defers_operations = False
    """Whether `apply` hands operations on this base to `apply_lazily` (dask: they build graphs)."""

    plain = True
    """Whether `apply` may hand this base's values straight to a kernel: nobody named it and no
    gradient was asked of it. Cleared for good by the first name or gradient (`mark_named`,
    `requires_grad_`, a recorded result): a base cleared needlessly only takes the longer path."""

    keeps_views = True
    """Whether a numpy view of this base's buffer may be kept and reused between reads (False for a
    memory map, whose file can shrink: every read checks it first)."""

    _shape: Shape

    @property
    def shape(self) -> Shape:
        return self._shape

    @once
    def layout(self) -> Layout:
        """A base is row-major from offset 0: its layout is the contiguous one of its shape."""
        return Layout.derived(self._shape, row_major_strides(self._shape), 0)  # a shape of ints already

    @property
    def base(self) -> BaseTensor:
        return self

    @abc.abstractmethod
    def read_strided(self, layout: Layout, writeable: bool) -> Buffer:
        """The values at the positions `layout` maps to (a zero-copy view where the base allows)."""

    @abc.abstractmethod
    def read_flat(self, indices: npt.NDArray[np.intp]) -> Buffer:
        """The values at row-major flat `indices`, as an array of their shape."""

    @abc.abstractmethod
    def read_one(self, index: int) -> Any:
        """The value at one flat index."""

    @abc.abstractmethod
    def write_strided(self, layout: Layout, values: Buffer) -> None:
        """Write `values` (of `layout.shape`) to the positions `layout` maps to."""

    @abc.abstractmethod
    def write_flat(self, indices: npt.NDArray[np.intp], values: Buffer) -> None:
        """Write `values` (of `indices.shape`) at row-major flat `indices`; a repeated index gets its
        last value, as in numpy."""

    @abc.abstractmethod
    def write_one(self, index: int, value: Any) -> None:
        """Write one value at one flat index."""

    @abc.abstractmethod
    def may_share_memory(self, array: Any) -> bool:
        """Whether `array` may share memory with this base (so that a read must be copied)."""

    @abc.abstractmethod
    def shares_storage_with(self, other: Any) -> bool:
        """Whether this base and `other` (a base or an array) hold the same elements."""

    @abc.abstractmethod
    def detach(self) -> BaseTensor:
        """The same elements, cut from the gradient graph."""

    @abc.abstractmethod
    def check_write(self) -> None:
        """Raise if writing into this base now would be wrong."""

    @abc.abstractmethod
    def note_write(self) -> None:
        """Count one write into this base (through any view)."""

    @property
    def version(self) -> int:
        """How many writes this base has seen through lazytensor (PyTorch's `_version`)."""
        return self.grad_state.version.value

    @property
    def storage_note(self) -> str | None:
        """A word for the printer's header about where the values live, when reading them all costs
        more than memory ("memory-mapped", "zarr", "dask"), or None."""
        return None

    def lazy_values(self, t: AbstractTensor) -> Any:
        """The lazy array of the view `t` of this base (bases that defer operations)."""
        raise AttributeError(f"a tensor over a {self.layer_name} base has no lazy (dask) array")

    def apply_lazily(
        self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]
    ) -> AbstractTensor | None:
        """The lazy result of an operation of the table on operands one of which stands on this base,
        or None when it runs in memory after all."""
        raise TypeError(f"a {self.layer_name} base does not defer operations")

    def computed(self, t: AbstractTensor) -> AbstractTensor:
        """`t` with its values in memory: itself for a base whose values are already there."""
        return t

    def postcompute(self, lazy: Any) -> tuple[Any, tuple[Any, ...]]:
        """dask's `__dask_postcompute__` for the lazy array of a view of this base."""
        raise TypeError(f"a {self.layer_name} base is not a dask collection")

    def postpersist(self, lazy: Any) -> tuple[Any, tuple[Any, ...]]:
        """dask's `__dask_postpersist__` for the lazy array of a view of this base."""
        raise TypeError(f"a {self.layer_name} base is not a dask collection")


_FUSED_VALUES: once[Buffer | None] = AbstractTensor._fused_values
"""The cached fused values, as the descriptor: constructors that hold them already prime it."""


@attrs.frozen(eq=False, repr=False, slots=False)
class StorageTensor(BaseTensor):
    """The bottom of every stack: a flat 1-D numpy buffer and a shape, row-major from offset 0.

    >>> import numpy as np
    >>> t = StorageTensor(np.arange(6.0), (2, 3))
    >>> t.layout
    Layout(shape=(2, 3), strides=(3, 1), offset=0)
    """

    buffer: Buffer = attrs.field()
    _shape: Shape = attrs.field(converter=int_tuple, alias="shape")

    @buffer.validator
    def _check_buffer(self, _attribute: object, buffer: Buffer) -> None:
        if not isinstance(buffer, np.ndarray):
            raise TypeError(f"storage must be a 1-D numpy array, got {type(buffer).__name__}")
        if buffer.ndim != 1:
            raise ValueError(f"storage must be a 1-D numpy array, got one of shape {buffer.shape}")
        if not buffer.flags.c_contiguous:
            raise ValueError(f"storage must be contiguous, got strides {buffer.strides}")

    @_shape.validator
    def _check_shape(self, _attribute: object, shape: Shape) -> None:
        if any(size < 0 for size in shape):
            raise ValueError(f"negative size in shape {shape}")
        if numel(shape) != self.buffer.size:
            raise ValueError(
                f"storage of {self.buffer.size} elements cannot hold shape {shape} of {numel(shape)} elements"
            )

    def __attrs_post_init__(self) -> None:
        _FUSED_VALUES.prime(self, self.buffer.reshape(self._shape) if self.keeps_views else None)

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle: the buffer and the rest, never the cached view of the buffer (pickled
        on its own it would come back as a copy, stale at the first write) nor a recorded graph (its
        closures do not pickle; as in PyTorch, a result comes back as a leaf that requires grad)."""
        state = dict(self.__dict__)
        _FUSED_VALUES.omit(state)
        AbstractTensor._lazy_values.omit(state)
        grad_state = state.get("grad_state")
        if grad_state is not None and grad_state.node is not None:  # a result: its graph stays behind
            state["grad_state"] = grad_state.without_graph()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__attrs_post_init__()

    @classmethod
    def from_array(cls, array: Buffer) -> StorageTensor:
        """Wrap an array: without copying when it is C-contiguous, else through a row-major copy."""
        if not array.flags.c_contiguous:
            array = array.copy(order="C")
        return cls._trusted(array)

    @classmethod
    def _trusted(cls, array: Buffer) -> StorageTensor:
        """A storage tensor over a C-contiguous array, skipping the checks it passes by construction."""
        t = object.__new__(cls)
        fields = t.__dict__  # filled key by key: cheaper than `update(**fields)` on every result
        fields["buffer"] = array.ravel()  # a view of a C array, as `reshape(-1)` is, at half the cost
        fields["_shape"] = array.shape
        _FUSED_VALUES.prime(t, array)
        return t

    @once
    def grad_state(self) -> GradState:
        """Made on first use: most results of operations never need one (nothing asks for a gradient)."""
        return GradState()

    @property
    def storage(self) -> Buffer:
        return self.buffer

    @property
    def storage_note(self) -> str | None:
        return "memory-mapped" if is_memory_mapped(self.buffer) else None

    def read_strided(self, layout: Layout, writeable: bool) -> Buffer:
        return evaluate.strided_view(self.buffer, layout, writeable)

    def read_flat(self, indices: npt.NDArray[np.intp]) -> Buffer:
        return np.asarray(self.buffer).take(indices)

    def read_one(self, index: int) -> Any:
        return self.buffer[index]

    def write_strided(self, layout: Layout, values: Buffer) -> None:
        np.copyto(evaluate.strided_view(self.buffer, layout, writeable=True), values)

    def write_flat(self, indices: npt.NDArray[np.intp], values: Buffer) -> None:
        if np.may_share_memory(values, self.buffer):
            values = values.copy()
        self.buffer[indices] = values

    def write_one(self, index: int, value: Any) -> None:
        self.buffer[index] = value

    def may_share_memory(self, array: Any) -> bool:
        return bool(np.may_share_memory(array, self.buffer))

    def shares_storage_with(self, other: Any) -> bool:
        if isinstance(other, BaseTensor):
            return other.has_buffer and bool(np.shares_memory(self.buffer, other.buffer))
        return bool(np.shares_memory(self.buffer, other))

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.buffer.dtype

    @property
    def layers(self) -> tuple[AbstractTensor, ...]:
        return (self,)

    def describe(self) -> str:
        mapped = ", memory-mapped" if is_memory_mapped(self.buffer) else ""
        return f"buffer of {self.buffer.size:,} × {self.buffer.dtype}{mapped}"

    @property
    def read_only_reason(self) -> str | None:
        if self.buffer.flags.writeable:
            return None
        return f"cannot write to read-only storage of tensor of shape {self._shape}"

    @property
    def requires_grad(self) -> bool:
        state = _GRAD_STATE.peek(self)  # without one, nothing has asked for a gradient yet
        return state is not None and state.requires_grad

    @property
    def grad(self) -> StorageTensor | None:
        state = _GRAD_STATE.peek(self)
        return None if state is None else state.grad

    @grad.setter
    def grad(self, value: Any) -> None:
        """`w.grad = None` clears the gradient; a tensor (or array) of `w`'s shape replaces it.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> w.grad = lt.tensor([1.0, 2.0])
        >>> w.grad.tolist()
        [1.0, 2.0]
        >>> w.grad = None
        >>> w.grad is None
        True
        """
        if value is None:
            self.grad_state.grad = None
            return
        self.grad_state.grad = StorageTensor.from_array(
            keywords.assigned_grad(self._shape, self.dtype, values_of(value))
        )

    @property
    def backward_name(self) -> str:
        node = self.grad_state.node
        if node is None:
            return "AccumulateGrad"
        return "".join(part.capitalize() for part in optable.torch_name(node.name).split("_")) + "Backward0"

    def grad_inputs(self) -> tuple[AbstractTensor | None, ...]:
        node = self.grad_state.node
        if node is None:
            return ()
        return tuple(
            p if need and isinstance(p, AbstractTensor) else None
            for p, need in zip(node.parents, node.saved.needs, strict=True)
        )

    @property
    def retains_grad(self) -> bool:
        state = _GRAD_STATE.peek(self)
        return state is not None and state.retains and state.node is not None

    def retain_grad(self) -> None:
        """Keep this result's gradient in `.grad` after `backward` (a leaf keeps it anyway).

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> h = w * 3
        >>> h.retain_grad()
        >>> (h * h).sum().backward()
        >>> h.grad.tolist(), w.grad.tolist()
        ([6.0, 6.0], [18.0, 18.0])
        """
        if not self.requires_grad:
            raise RuntimeError(f"retain_grad on a tensor of shape {self._shape} that does not require grad")
        self.grad_state.retains = True

    def requires_grad_(self, requires_grad: bool = True) -> StorageTensor:
        if self.grad_state.node is not None:
            raise ValueError("requires_grad_ applies to leaves, not to the result of an operation")
        if requires_grad and self.dtype.kind not in "fc":
            raise TypeError(
                f"only floating and complex tensors can require gradients, not dtype {self.dtype} "
                f"(shape {self._shape})"
            )
        self.grad_state.requires_grad = requires_grad
        if requires_grad:
            object.__setattr__(self, "plain", False)  # a flag on a frozen class, set as attrs does
        return self

    def check_write(self) -> None:
        """RuntimeError if writing into this storage would corrupt a gradient: a leaf that requires
        grad is written only under `lt.no_grad()` (as optimisers do), as in PyTorch."""
        state = self.grad_state
        if state.requires_grad and state.node is None and autograd.is_grad_enabled():
            raise RuntimeError(
                f"a leaf tensor of shape {self._shape} that requires grad, or a view of it, is being "
                "written in place; do it inside lt.no_grad() (as an optimiser step does)"
            )

    def note_write(self) -> None:
        """Count one write into this storage (through any view), for backward's checks."""
        self.grad_state.version.value += 1

    def grad_parents(self) -> tuple[AbstractTensor, ...]:
        node = self.grad_state.node
        if node is None:
            return ()
        return tuple(p for p, need in zip(node.parents, node.saved.needs, strict=True) if need)

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        node = self.grad_state.node
        return [] if node is None else node.input_grads(grad, retain)

    def accumulate_grad(self, grad: Buffer) -> None:
        grad = np.asarray(grad, dtype=float_dtype(self.dtype)).reshape(self._shape)
        state = self.grad_state
        total = grad if state.grad is None else state.grad.numpy() + grad
        state.grad = StorageTensor.from_array(np.array(total, order="C"))

    def detach(self) -> StorageTensor:
        detached = StorageTensor(self.buffer, self._shape)
        detached.grad_state.version = self.grad_state.version  # one buffer, one count of writes
        if self.names_used:
            naming.name_base(detached, self.names)
            coordinates.label_base(detached, self.axis_coords)
        return detached


_GRAD_STATE: once[GradState] = StorageTensor.grad_state
"""The gradient state's descriptor: `peek` tells whether one was made, without making it."""

_frozen_setattr = StorageTensor.__setattr__


@keywords.user_error  # a wrong gradient's error is the user's assignment, not this module's frames
def _storage_setattr(self: StorageTensor, name: str, value: Any) -> None:
    """A storage tensor is frozen but for `.grad`, which PyTorch's users assign (`w.grad = None`)."""
    if name == "grad":
        StorageTensor.grad.__set__(self, value)  # type: ignore[attr-defined]
        return
    _frozen_setattr(self, name, value)


StorageTensor.__setattr__ = _storage_setattr  # type: ignore[method-assign]

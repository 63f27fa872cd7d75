"""`AbstractTensor`, the interface every tensor implements, `StorageTensor`, the base, and `apply`,
the one door through which every operation of the table runs.

Every user-facing method is a short call into a lower floor: `evaluate` reads and
writes, `optable` holds the operations, `autograd` runs backward, the printer and
`explain` show. Those floors never import this module. The view wrappers are
tensors and tensors make views, so `views` and this module import each other:
that pair is the package's one mutual import, made at the bottom of this file.
"""

from __future__ import annotations

import abc
import copy
import functools
import operator
import sys
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Self

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor import autograd, evaluate, find_nonzero, keywords, numpy_functions, optable, printer
from lazytensor.autograd import GradFn, Node, Saved, Version, Watched
from lazytensor.buffers import check_fits, is_memory_mapped
from lazytensor.dtypes import as_dtype
from lazytensor.keywords import UNSET
from lazytensor.layout import Layout
from lazytensor.once import once
from lazytensor.optable import Op
from lazytensor.positions import Shape, as_shape, int_tuple, normalize_position, numel, row_major_strides
from lazytensor.printer import explain

if TYPE_CHECKING:
    from lazytensor.views import OuterIndexer

Buffer = npt.NDArray[Any]
Dims = int | Sequence[int] | None
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
"""The revisions of the array API standard whose namespace `lazytensor` serves (2024.12 includes them)."""
_PYTHON_OBJECT_BYTES = 32
"""About what one element costs as a Python object in a list (a float: 24 bytes, and its slot)."""


class AbstractTensor(abc.ABC):
    """What every tensor answers: its shape, where its elements live, and how to read them.

    >>> import lazytensor as lt
    >>> t = lt.arange(6).reshape(2, 3)
    >>> t.T.shape, t.T.get((2, 1)), t.T.shares_storage(t)
    ((3, 2), np.int64(5), True)
    """

    __slots__ = ()

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
        return evaluate.read(self) if fused is None else fused.view()

    @once
    def _fused_values(self) -> Buffer | None:
        """The zero-copy numpy view of a stack that fuses, made once (storage never moves), or None.
        When the layer below already has its own, numpy derives this one from it (a transpose or a
        slice of an array costs less than building a strided view from the layout). None also for
        an array-like base, whose values are read afresh each time, for a memory map (each read checks
        its file first), and for a shape of more than 2**63 bytes, which numpy cannot view (its
        elements are read through the layout). Only a view of storage is kept: a copy (a numpy
        scalar, say) would go stale at the next write to the base. A view numpy derives from the
        one below needs no layout: that one passed these checks, over the same base."""
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
        return evaluate.read(self)

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
        return StorageTensor.from_array(evaluate.read_copy(self))

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
        check_fits(self.numel(), np.dtype(dtype).itemsize, f"a copy of shape {self.shape} as {dtype}")
        return StorageTensor.from_array(self.numpy().astype(dtype, order="C"))

    def shares_storage(self, other: AbstractTensor | Buffer) -> bool:
        """Whether the two share memory, so that a write to one can show in the other."""
        return self.base.shares_storage_with(other.base if isinstance(other, AbstractTensor) else other)

    # -- printing and explaining ------------------------------------------------------------

    def __repr__(self) -> str:
        """The grid print (header, then values) as plain text at the configured width."""
        return printer.to_string(self)

    def __str__(self) -> str:
        """The print; a 0-d tensor is its number, as numpy writes it (`print(t.sum())` shows `66`)."""
        return printer.tensor_str(self)

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        """rich's protocol: the print as renderables, so tensors compose in tables and panels."""
        yield printer.TensorPrint(self)

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        return printer.TensorPrint(self).__rich_measure__(console, options)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter's display: the notebook HTML (never wraps, themed colours) and its plain text."""
        return printer.tensor_mimebundle(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """IPython's prompt: the print, in colour on a terminal (`repr()` stays plain)."""
        printer.tensor_pretty(self, p, cycle)

    def summary(self, **options: Any) -> printer.SummaryLine:
        """One line: shape, dtype, count, range, mean, std, NaN/inf counts, the layers in short."""
        return printer.summary(self, **options)

    def stats(self, **options: Any) -> printer.StatsReport:
        """The statistics of every value, computed now (the print skips them for big or mapped tensors)."""
        return printer.stats(self, **options)

    def print(self, dims: Sequence[int | None] | None = None, **options: Any) -> None:
        """Print this tensor, or the slice `dims` (None = all of an axis, int = fixed), with options.

        >>> import lazytensor as lt
        >>> lt.arange(3).print(style="separators")  # doctest: +NORMALIZE_WHITESPACE
        0.00    1.00    2.00
        """
        printer.tprint(self, dims, **options)

    def explain(self, position: Sequence[int] | int | None = None) -> explain.Explanation:
        """The layer tree (class, parameters, shape, layout), or the trace of `position` down to storage.

        >>> import lazytensor as lt
        >>> print(lt.arange(6).reshape(2, 3).T.explain((2, 1)))
        position (2, 1) of a tensor of shape (3, 2)
        layer       shape   position  parameters
        Transposed  (3, 2)  (2, 1)    axes (1, 0)
        Reshaped    (2, 3)  (1, 2)    new shape (2, 3)
        Storage     (6,)    (5,)      buffer of 6 × int64
        storage index 5 holds 5
        the fused layout (strides (1, 3), offset 0) gives 5 in one step
        """
        return explain.explain(self, position)

    # -- the array API standard: namespace, device, DLPack -----------------------------------

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The array API namespace of tensors: the `lazytensor` module itself.

        >>> import lazytensor as lt
        >>> lt.zeros(2).__array_namespace__() is lt
        True
        """
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"lazytensor implements the array API {_API_VERSIONS}, not {api_version!r}")
        return sys.modules[__name__.rpartition(".")[0]]

    @property
    def device(self) -> str:
        """Where the values live: always "cpu" (this process's memory, or a file or store read into it)."""
        return "cpu"

    def to_device(self, device: Any, /, *, stream: Any = None) -> Self:
        """This tensor on `device`: itself for "cpu", the one device (ValueError for any other).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2)
        >>> t.to_device(t.device) is t
        True
        """
        if device != "cpu":
            raise ValueError(f"lazytensor has one device, 'cpu'; got {device!r}")
        return self

    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """DLPack export of the values, as numpy exports them: the storage itself when the stack fuses
        to a strided layout (so the consumer shares memory), else a new array.

        >>> import lazytensor as lt, numpy as np
        >>> t = lt.arange(6.0).reshape(2, 3).T
        >>> np.from_dlpack(t).tolist()
        [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
        """
        return self.numpy().__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """DLPack's device of the values: the CPU, (1, 0)."""
        return (1, 0)

    # -- dask: a dask-backed tensor is a dask collection (its base does the work) -----------

    def compute(self) -> AbstractTensor:
        """The values in memory, as a storage tensor (a tensor already in memory is returned as it is).

        >>> import lazytensor as lt
        >>> t = lt.arange(3)
        >>> t.compute() is t
        True
        """
        return self.base.computed(self)

    @once
    def _lazy_values(self) -> Any:
        """The lazy (dask) array of this view of a deferring base, built once."""
        return self.base.lazy_values(self)

    def __dask_graph__(self) -> Any:
        return self._lazy_values.__dask_graph__() if self.base.defers_operations else None

    def __dask_keys__(self) -> Any:
        return self._lazy_values.__dask_keys__()

    def __dask_layers__(self) -> Any:
        return self._lazy_values.__dask_layers__()

    def __dask_postcompute__(self) -> Any:
        return self.base.postcompute(self._lazy_values)

    def __dask_postpersist__(self) -> Any:
        return self.base.postpersist(self._lazy_values)

    def __dask_tokenize__(self) -> Any:
        if not self.base.defers_operations:
            return (type(self).__name__, id(self))
        return self._lazy_values.__dask_tokenize__()

    @property
    def __dask_scheduler__(self) -> Any:
        return self._lazy_values.__dask_scheduler__

    @property
    def __dask_optimize__(self) -> Any:
        return self._lazy_values.__dask_optimize__

    # -- gradients --------------------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor record what `backward` needs (a view: as its base)."""
        return self.base.requires_grad

    @property
    def grad(self) -> StorageTensor | None:
        """The gradient accumulated by `backward` (leaves only: None for views and results)."""
        return None

    def requires_grad_(self, requires_grad: bool = True) -> AbstractTensor:
        """Mark a storage tensor as a leaf whose gradient `backward` accumulates; returns it."""
        raise ValueError(
            f"requires_grad_ applies to storage tensors (leaves); this is a view of shape {self.shape} "
            "whose gradient reaches its base: call it on the base"
        )

    def grad_parents(self) -> tuple[AbstractTensor, ...]:
        """The tensors this one's gradient flows to (the autograd engine's protocol)."""
        return ()

    @property
    def is_leaf(self) -> bool:
        """PyTorch's rule: a tensor that does not require grad, or one that does and was made by the
        user (no operation or view between it and a gradient); `backward` fills `.grad` of leaves.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> w.is_leaf, (w * 2).is_leaf, w[0:1].is_leaf, lt.ones(2).is_leaf
        (True, False, False, True)
        """
        return not self.requires_grad or not self.grad_parents()

    @property
    def grad_fn(self) -> GradFn | None:
        """What made this tensor, for the gradient (PyTorch's `grad_fn`): None for a leaf, else a small
        object naming the operation (or view), with `next_functions` leading to its operands'.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> y = (w * 2).sum()
        >>> y.grad_fn, y.grad_fn.next_functions[0][0].next_functions
        (<SumBackward0>, ((<AccumulateGrad>, 0), (None, 0)))
        """
        if self.is_leaf:
            return None
        return GradFn(self.backward_name, self.grad_inputs)

    @property
    def backward_name(self) -> str:
        """The name `grad_fn` gives this tensor's step back: a view's layer name (`TransposedBackward0`)."""
        return f"{self.layer_name}Backward0"

    def grad_inputs(self) -> tuple[AbstractTensor | None, ...]:
        """Every operand of the step that made this tensor, None for one that takes no gradient."""
        return self.grad_parents()

    @property
    def retains_grad(self) -> bool:
        """Whether `backward` keeps this non-leaf's gradient in `.grad` (see `retain_grad`)."""
        return False

    def retain_grad(self) -> None:
        """Keep this tensor's gradient in `.grad` when `backward` passes through it (PyTorch's
        `retain_grad`); a leaf keeps its gradient anyway."""
        raise ValueError(
            f"retain_grad applies to storage tensors (leaves and results); this is a view of shape "
            f"{self.shape}: keep the gradient of a result (t * 1) instead"
        )

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """The gradient of each of `grad_parents()`, from this tensor's gradient."""
        return []

    def accumulate_grad(self, grad: Buffer) -> None:
        """Add `grad` into `.grad` (leaves only)."""
        raise TypeError(f"only leaves accumulate a gradient, not a {self.layer_name} of shape {self.shape}")

    def backward(self, gradient: Any = None, retain_graph: bool = False) -> None:
        """Accumulate the gradient of this tensor into every leaf it depends on (`.grad`).

        >>> import lazytensor as lt
        >>> w = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> (w[[0, 0, 2]] * w[[1, 1, 1]]).sum().backward()
        >>> w.grad.tolist()
        [4.0, 5.0, 2.0]
        """
        if not self.requires_grad:
            raise RuntimeError(f"backward of a tensor of shape {self.shape} that does not require grad")
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError(
                    f"backward needs a gradient for a tensor of shape {self.shape}, not a scalar"
                )
            seed = np.ones(self.shape, dtype=_float_dtype(self.dtype))
        else:
            seed = np.asarray(values_of(gradient))
            if seed.shape != self.shape:
                raise RuntimeError(
                    f"backward: the gradient has shape {seed.shape} but the tensor it is the gradient "
                    f"of has shape {self.shape}"
                )
        autograd.backward(self, seed, retain_graph)

    def detach(self) -> AbstractTensor:
        """The same view of the same storage, cut from the gradient graph."""
        return views.restack(self, self.base, self.base.detach())

    # -- views ------------------------------------------------------------------------------

    def permute(self, *axes: int | Sequence[int]) -> AbstractTensor:
        """Reorder the axes: axis `i` of the result is axis `axes[i]` of this tensor (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.permute(self, as_shape(axes))
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def transpose(self, *axes: int | Sequence[int]) -> AbstractTensor:
        """A view with the axes reordered: no argument reverses them (numpy's `a.transpose()`), two
        ints swap those two (PyTorch's `t.transpose(0, 1)`), a tuple or three or more ints permute.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3, 4)
        >>> t.transpose().shape, t.transpose(0, 2).shape, t.transpose(2, 0, 1).shape
        ((4, 3, 2), (4, 3, 2), (4, 2, 3))
        """
        if not axes:
            return views.reverse_axes(self)
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            if len(axes) == 2 and not any(isinstance(axis, Sequence) for axis in axes):
                dim0, dim1 = as_shape(axes)
                return views.swapaxes(self, dim0, dim1)
            return views.permute(self, as_shape(axes))
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def swapaxes(self, dim0: int, dim1: int) -> AbstractTensor:
        """Swap two axes (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.swapaxes(self, dim0, dim1)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    @property
    def T(self) -> AbstractTensor:
        """All axes reversed (a view)."""
        return views.reverse_axes(self)

    @property
    def mT(self) -> AbstractTensor:
        """The last two axes swapped (a view)."""
        if self.ndim < 2:
            raise ValueError(f"mT needs at least 2 axes, got a tensor of shape {self.shape}")
        return self.swapaxes(-2, -1)

    def reshape(self, *shape: int | Sequence[int]) -> AbstractTensor:
        """The same elements in row-major order under a new shape; one -1 is inferred (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.reshape(self, as_shape(shape))
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def view(self, *shape: int | Sequence[int] | npt.DTypeLike) -> AbstractTensor:
        """With a shape, the same as `reshape` (PyTorch's meaning): a view, never a copy. With a dtype
        (`t.view(np.int32)`), numpy's meaning: the same bytes read as another dtype, sharing storage;
        a dtype of another size needs the tensor contiguous (ValueError otherwise, as numpy).

        >>> import lazytensor as lt
        >>> t = lt.tensor([1.0, -0.0])
        >>> t.view(2, 1).shape, t.view(np.int64).tolist()[1] == -(2**63), t.view("int32").shape
        ((2, 1), True, (4,))
        """
        if len(shape) == 1 and _is_dtype_argument(shape[0]):
            try:  # free unless raised: a bad argument's traceback ends at the caller's line
                return self._reinterpreted(shape[0])  # type: ignore[arg-type]
            except (*_USER_ERRORS, RuntimeError) as error:
                raise error.with_traceback(None) from None
        return self.reshape(*shape)  # type: ignore[arg-type]

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
            return same if self is base else views.restack(self, base, same)
        layout = self.layout
        if layout is not None and layout.is_contiguous():  # one run of memory: a storage tensor on it
            memory = base.buffer[layout.offset : layout.offset + self.numel()].view(target)
            shape = (*self.shape[:-1], self.shape[-1] * self.dtype.itemsize // target.itemsize)
            reread = StorageTensor(memory, shape)
            reread.grad_state.version = base.grad_state.version
            return reread
        positions, first = keywords.retyped_positions(
            "view", self.shape, evaluate.storage_indices(self), self.dtype, target, base.buffer.size
        )
        count = (base.buffer.size - first) * self.dtype.itemsize // target.itemsize
        memory = base.buffer[first : first + count * target.itemsize // self.dtype.itemsize].view(target)
        whole = StorageTensor(memory, (count,))
        whole.grad_state.version = base.grad_state.version
        return views.index_view(whole, (positions,))  # rows anywhere, each row's bytes one run

    def squeeze(self, dim: int | Sequence[int] | None = None) -> AbstractTensor:
        """Drop size-1 axes: all of them, or the ones named (ValueError if one is not size 1)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.squeeze(self, dim)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def unsqueeze(self, dim: int) -> AbstractTensor:
        """Insert a size-1 axis at `dim` (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.unsqueeze(self, dim)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> AbstractTensor:
        """Merge the axes `start_dim..end_dim` into one (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.flatten(self, start_dim, end_dim)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def expand(self, *shape: int | Sequence[int]) -> AbstractTensor:
        """Broadcast to a larger shape, -1 keeping a size (a read-only view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.expand(self, as_shape(shape))
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def broadcast_to(self, shape: Sequence[int]) -> AbstractTensor:
        """Broadcast to `shape` by numpy's rules (a read-only view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.expand(self, as_shape((shape,)))
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def split(
        self, size: int | Sequence[int], dim: int = UNSET, *, axis: int = UNSET
    ) -> tuple[AbstractTensor, ...]:
        """Views of consecutive pieces of `size` along `dim` or `axis` (or of the sizes listed): PyTorch's
        `split` (numpy's `np.split(t, sections)` counts pieces, and works on tensors too).

        >>> import lazytensor as lt
        >>> [p.shape for p in lt.zeros(2, 5).split(2, axis=1)]
        [(2, 2), (2, 2), (2, 1)]
        """
        return views.split(self, size, keywords.one_axis("split", self.shape, dim, axis, 0, allow_none=False))

    def chunk(self, chunks: int, dim: int = 0) -> tuple[AbstractTensor, ...]:
        """At most `chunks` views of equal size (the last may be smaller) along `dim`."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.chunk(self, chunks, dim)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def unbind(self, dim: int = 0) -> tuple[AbstractTensor, ...]:
        """Views of every index along `dim`, that axis removed."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.unbind(self, dim)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def slice(self, specs: Sequence[Any]) -> AbstractTensor:
        """The seeds' per-axis selection: None = all, int = that index kept as a size-1 axis,
        list = those indices, slice = a range.

        >>> import lazytensor as lt
        >>> lt.arange(20).reshape(4, 5).slice([[1, 3], slice(0, 5, 2)]).tolist()
        [[5, 7, 9], [15, 17, 19]]
        """
        return views.axis_specs_view(self, specs)

    @property
    def oindex(self) -> OuterIndexer:
        """Outer indexing: each list selects along its own axis, independently of the others.

        >>> import lazytensor as lt
        >>> lt.arange(12).reshape(3, 4).oindex[[0, 2], [1, 3]].tolist()
        [[1, 3], [9, 11]]
        """
        return views.OuterIndexer(self)

    def __getitem__(self, key: Any) -> Any:
        """`t[key]` by numpy's rules: a view, or for a key naming one element a numpy scalar, as numpy
        gives; but a 0-d view when the tensor requires grad, so that `w[0] * 2` keeps its gradient.

        >>> import lazytensor as lt
        >>> lt.arange(3.0)[1], lt.ones(3, requires_grad=True)[1].shape
        (np.float64(1.0), ())
        """
        if _is_element_key(key, len(self.shape)):
            fused = self._fused_values
            if fused is not None and not self.requires_grad:
                try:  # free unless raised, where `contextlib.suppress` costs a third of the read
                    return fused[key]  # an element of a fused stack: numpy's own indexing and checks
                except OverflowError:  # past C's ints: our parser names the index
                    pass
        if self.requires_grad and autograd.is_grad_enabled():
            return views.index_view(self, key)
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return views.getitem(self, key)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def __setitem__(self, key: Any, value: Any) -> None:
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            views.setitem(self, key, value)
        except _USER_ERRORS as error:
            raise error.with_traceback(None) from None

    # -- operations: each one entry of the table, applied ----------------------------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's protocol, so that `ndarray + tensor` and `np.exp(tensor)` give tensors."""
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(
        self, func: Any, types: Collection[type], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """numpy's protocol, so that `np.concatenate`, `np.transpose`, `np.sort`, ... give tensors
        (views where numpy gives views); see `numpy_functions`.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> type(np.transpose(t)).__name__, np.concatenate([t, t]).shape, np.flip(t, 1).tolist()
        ('TransposedTensor', (4, 3), [[2, 1, 0], [5, 4, 3]])
        """
        if not all(issubclass(kind, AbstractTensor | np.ndarray) for kind in types):
            return NotImplemented
        return numpy_functions.dispatch(_DOORS, func, args, kwargs)

    def __add__(self, other: Any) -> StorageTensor:
        return apply(optable.ADD, self, other)

    def __radd__(self, other: Any) -> StorageTensor:
        return apply(optable.ADD, other, self)

    def __sub__(self, other: Any) -> StorageTensor:
        return apply(optable.SUB, self, other)

    def __rsub__(self, other: Any) -> StorageTensor:
        return apply(optable.SUB, other, self)

    def __mul__(self, other: Any) -> StorageTensor:
        return apply(optable.MUL, self, other)

    def __rmul__(self, other: Any) -> StorageTensor:
        return apply(optable.MUL, other, self)

    def __truediv__(self, other: Any) -> StorageTensor:
        return apply(optable.TRUEDIV, self, other)

    def __rtruediv__(self, other: Any) -> StorageTensor:
        return apply(optable.TRUEDIV, other, self)

    def __floordiv__(self, other: Any) -> StorageTensor:
        return apply(optable.FLOORDIV, self, other)

    def __rfloordiv__(self, other: Any) -> StorageTensor:
        return apply(optable.FLOORDIV, other, self)

    def __mod__(self, other: Any) -> StorageTensor:
        return apply(optable.MOD, self, other)

    def __rmod__(self, other: Any) -> StorageTensor:
        return apply(optable.MOD, other, self)

    def __pow__(self, other: Any) -> StorageTensor:
        return apply(optable.POWER, self, other)

    def __rpow__(self, other: Any) -> StorageTensor:
        return apply(optable.POWER, other, self)

    def __matmul__(self, other: Any) -> StorageTensor:
        return apply(optable.MATMUL, self, other)

    def __rmatmul__(self, other: Any) -> StorageTensor:
        return apply(optable.MATMUL, other, self)

    def __and__(self, other: Any) -> StorageTensor:
        return apply(optable.AND, self, other)

    def __rand__(self, other: Any) -> StorageTensor:
        return apply(optable.AND, other, self)

    def __or__(self, other: Any) -> StorageTensor:
        return apply(optable.OR, self, other)

    def __ror__(self, other: Any) -> StorageTensor:
        return apply(optable.OR, other, self)

    def __xor__(self, other: Any) -> StorageTensor:
        return apply(optable.XOR, self, other)

    def __rxor__(self, other: Any) -> StorageTensor:
        return apply(optable.XOR, other, self)

    def __lshift__(self, other: Any) -> StorageTensor:
        return apply(optable.LSHIFT, self, other)

    def __rlshift__(self, other: Any) -> StorageTensor:
        return apply(optable.LSHIFT, other, self)

    def __rshift__(self, other: Any) -> StorageTensor:
        return apply(optable.RSHIFT, self, other)

    def __rrshift__(self, other: Any) -> StorageTensor:
        return apply(optable.RSHIFT, other, self)

    def __neg__(self) -> StorageTensor:
        return apply(optable.NEG, self)

    def __pos__(self) -> StorageTensor:
        return apply(optable.POS, self)

    def __abs__(self) -> StorageTensor:
        return apply(optable.ABS, self)

    def __invert__(self) -> StorageTensor:
        return apply(optable.INVERT, self)

    def __eq__(self, other: object) -> StorageTensor:  # type: ignore[override]
        """Elementwise `==`, a bool tensor (so tensors are unhashable, as numpy arrays are)."""
        return apply(optable.EQ, self, other)

    def __ne__(self, other: object) -> StorageTensor:  # type: ignore[override]
        return apply(optable.NE, self, other)

    def __lt__(self, other: Any) -> StorageTensor:
        return apply(optable.LT, self, other)

    def __le__(self, other: Any) -> StorageTensor:
        return apply(optable.LE, self, other)

    def __gt__(self, other: Any) -> StorageTensor:
        return apply(optable.GT, self, other)

    def __ge__(self, other: Any) -> StorageTensor:
        return apply(optable.GE, self, other)

    __hash__ = None  # type: ignore[assignment]

    def matmul(self, other: Any) -> StorageTensor:
        """The matrix product, `self @ other`, with numpy's rules."""
        return apply(optable.MATMUL, self, other)

    def _reduced(self, op: Op, call: keywords.Call) -> AbstractTensor:
        """A checked reduction or scan applied, its result written into `out` when one was given
        (numpy's casting for `out=`), as numpy returns `out`."""
        result = apply(op, self, **call.params)
        if call.out is None:
            return result
        evaluate.check_writable(call.out)
        refuse_in_place_grad(f"{op.name}(out=...)", call.out)
        evaluate.write(call.out, result.numpy())
        return call.out  # type: ignore[no-any-return]

    def sum(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The sum over `dim` (None: all axes); numpy's `axis=`, `keepdims=`, `dtype=` and `out=` too.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> t.sum(1).tolist(), t.sum(axis=0, keepdims=True).tolist(), t.sum(dtype="float32").dtype
        ([3, 12], [[3, 5, 7]], dtype('float32'))
        """
        if dim is UNSET and keepdim is UNSET and axis is UNSET and keepdims is UNSET:
            whole = None if dtype is not None or out is not None else _whole_sum(self)
            if whole is not None:
                return whole
        call = keywords.reduction("sum", self.shape, dim, keepdim, _is_tensor, axis, keepdims, dtype, out)
        return self._reduced(optable.SUM, call)

    def mean(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The true mean over `dim`: one sum divided once by the count, so exact for Fractions.

        >>> import lazytensor as lt
        >>> from fractions import Fraction
        >>> lt.tensor([Fraction(1, 2), Fraction(1, 3)]).mean().item()
        Fraction(5, 12)
        """
        call = keywords.reduction("mean", self.shape, dim, keepdim, _is_tensor, axis, keepdims, dtype, out)
        return self._reduced(optable.MEAN, call)

    def prod(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The product over `dim`."""
        call = keywords.reduction("prod", self.shape, dim, keepdim, _is_tensor, axis, keepdims, dtype, out)
        return self._reduced(optable.PROD, call)

    def max(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The largest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy)."""
        call = keywords.reduction("max", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.MAX, call)

    def min(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The smallest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy)."""
        call = keywords.reduction("min", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.MIN, call)

    def argmax(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The index of the first largest element over `dim`; over several axes (or None: all) the
        index counts through them together in row-major order.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 9], [7, 2]])
        >>> t.argmax().item(), t.argmax(0).tolist(), t.argmax(dim=(1, 0)).item()
        (1, [1, 0], 1)
        """
        call = keywords.reduction("argmax", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.ARGMAX, call)

    def argmin(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The index of the first smallest element over `dim`, as `argmax` counts."""
        call = keywords.reduction("argmin", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.ARGMIN, call)

    def all(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """Whether every element over `dim` is true."""
        call = keywords.reduction("all", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.ALL, call)

    def any(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """Whether any element over `dim` is true."""
        call = keywords.reduction("any", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.ANY, call)

    def std(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
        ddof: float = UNSET,
        correction: float = UNSET,
    ) -> AbstractTensor:
        """The standard deviation over `dim`, divided by the count less `ddof` (numpy's name; the
        array API's `correction`); 0 by default, as numpy.

        >>> import lazytensor as lt
        >>> t = lt.tensor([1.0, 2.0, 3.0, 4.0])
        >>> round(t.std().item(), 4), round(t.std(ddof=1).item(), 4), round(t.std(correction=1).item(), 4)
        (1.118, 1.291, 1.291)
        """
        call = keywords.reduction(
            "std",
            self.shape,
            dim,
            keepdim,
            _is_tensor,
            axis,
            keepdims,
            dtype,
            out,
            ddof=ddof,
            correction=correction,
        )
        return self._reduced(optable.STD, call)

    def var(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
        ddof: float = UNSET,
        correction: float = UNSET,
    ) -> AbstractTensor:
        """The variance over `dim`, divided by the count less `ddof` (or `correction`): exact for
        Fractions.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, 2.0, 3.0, 4.0]).var(ddof=1).item()
        1.6666666666666667
        """
        call = keywords.reduction(
            "var",
            self.shape,
            dim,
            keepdim,
            _is_tensor,
            axis,
            keepdims,
            dtype,
            out,
            ddof=ddof,
            correction=correction,
        )
        return self._reduced(optable.VAR, call)

    def exp(self) -> StorageTensor:
        """`e ** x` elementwise (Decimals keep their precision)."""
        return apply(optable.EXP, self)

    def log(self) -> StorageTensor:
        """The natural logarithm elementwise."""
        return apply(optable.LOG, self)

    def sqrt(self) -> StorageTensor:
        """The square root elementwise."""
        return apply(optable.SQRT, self)

    def tanh(self) -> StorageTensor:
        """The hyperbolic tangent elementwise."""
        return apply(optable.TANH, self)

    def sigmoid(self) -> StorageTensor:
        """`1 / (1 + exp(-x))` elementwise, without overflow."""
        return apply(optable.SIGMOID, self)

    def relu(self) -> StorageTensor:
        """`max(x, 0)` elementwise."""
        return apply(optable.RELU, self)

    def abs(self) -> StorageTensor:
        """`abs(x)` elementwise (the modulus for complex numbers)."""
        return apply(optable.ABS, self)

    def clip(self, lo: Any = None, hi: Any = None) -> StorageTensor:
        """Every element limited to `[lo, hi]` (None: that side open)."""
        return apply(optable.CLIP, self, lo=values_of(lo), hi=values_of(hi))

    def softmax(self, dim: int = UNSET, *, axis: int = UNSET) -> StorageTensor:
        """`exp(x) / sum(exp(x))` along `dim` (or scipy's `axis`), numerically stable."""
        chosen = keywords.one_axis("softmax", self.shape, dim, axis, None, allow_none=False)
        return apply(optable.SOFTMAX, self, dim=chosen)

    def log_softmax(self, dim: int = UNSET, *, axis: int = UNSET) -> StorageTensor:
        """`log(softmax(x))` along `dim` (or `axis`), numerically stable."""
        chosen = keywords.one_axis("log_softmax", self.shape, dim, axis, None, allow_none=False)
        return apply(optable.LOG_SOFTMAX, self, dim=chosen)

    def gather(self, dim: int, index: Any) -> StorageTensor:
        """PyTorch's gather: `out[i][j] = self[index[i][j]][j]` for dim 0."""
        return apply(optable.GATHER, self, index, dim=dim)

    def index_add(self, dim: int, index: Any, source: Any) -> StorageTensor:
        """A copy with `source` slices added at `index` along `dim`, repeats accumulating."""
        return apply(optable.INDEX_ADD, self, index, source, dim=dim)

    def scatter_add(self, dim: int, index: Any, source: Any) -> StorageTensor:
        """A copy with `source[i][j]` added to `out[index[i][j]][j]` for dim 0, repeats accumulating."""
        return apply(optable.SCATTER_ADD, self, index, source, dim=dim)

    # -- rounding, NaN, running sums, sorting --------------------------------------------------

    def round(self, decimals: int = 0) -> StorageTensor:
        """Every element rounded to `decimals` places, halves to even (numpy's `round`).

        >>> import lazytensor as lt
        >>> lt.tensor([0.5, 1.5, 1.2345]).round().tolist(), lt.tensor([1.2345]).round(2).tolist()
        ([0.0, 2.0, 1.0], [1.23])
        """
        return apply(optable.ROUND, self, decimals=decimals)

    def isnan(self) -> StorageTensor:
        """Whether each element is NaN: a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan")]).isnan().tolist()
        [False, True]
        """
        return apply(optable.ISNAN, self)

    def isinf(self) -> StorageTensor:
        """Whether each element is infinite: a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("-inf")]).isinf().tolist()
        [False, True]
        """
        return apply(optable.ISINF, self)

    def isfinite(self) -> StorageTensor:
        """Whether each element is neither NaN nor infinite: a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), float("inf")]).isfinite().tolist()
        [True, False, False]
        """
        return apply(optable.ISFINITE, self)

    def nansum(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The sum over `dim`, NaN counted as zero.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nansum().item()
        3.0
        """
        call = keywords.reduction("nansum", self.shape, dim, keepdim, _is_tensor, axis, keepdims, dtype, out)
        return self._reduced(optable.NANSUM, call)

    def nanmean(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The mean over `dim` of the elements that are not NaN.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nanmean().item()
        1.5
        """
        call = keywords.reduction("nanmean", self.shape, dim, keepdim, _is_tensor, axis, keepdims, dtype, out)
        return self._reduced(optable.NANMEAN, call)

    def nanmax(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The largest element over `dim`, NaN ignored.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nanmax().item()
        2.0
        """
        call = keywords.reduction("nanmax", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.NANMAX, call)

    def nanmin(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The smallest element over `dim`, NaN ignored.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nanmin().item()
        1.0
        """
        call = keywords.reduction("nanmin", self.shape, dim, keepdim, _is_tensor, axis, keepdims, out=out)
        return self._reduced(optable.NANMIN, call)

    def cumsum(
        self,
        dim: int | None = UNSET,
        *,
        axis: int | None = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The running sums along `dim` or `axis` (None: over the values flattened, as numpy).

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 2], [3, 4]])
        >>> t.cumsum(1).tolist(), t.cumsum().tolist(), t.cumsum(axis=0).tolist()
        ([[1, 3], [3, 7]], [1, 3, 6, 10], [[1, 2], [4, 6]])
        """
        call = keywords.scan("cumsum", self.shape, dim, _is_tensor, axis, dtype, out)
        return self._reduced(optable.CUMSUM, call)

    def cumprod(
        self,
        dim: int | None = UNSET,
        *,
        axis: int | None = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The running products along `dim` or `axis` (None: over the values flattened, as numpy).

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2, 3, 4]).cumprod().tolist()
        [1, 2, 6, 24]
        """
        call = keywords.scan("cumprod", self.shape, dim, _is_tensor, axis, dtype, out)
        return self._reduced(optable.CUMPROD, call)

    def sort(
        self,
        dim: int = UNSET,
        kind: str | None = None,
        *,
        axis: int = UNSET,
        stable: bool | None = None,
        descending: bool = False,
    ) -> None:
        """Sort in place along `dim` (or `axis`), as numpy's `a.sort()`: through a view, the sorted
        values land in the storage below. `lt.sort(t)` (numpy's `np.sort`) returns a sorted copy
        instead. `stable=True` keeps equal elements in order; `descending=True` puts the largest first.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[3, 1, 2], [9, 7, 8]])
        >>> t[1].sort()
        >>> t[0].sort(descending=True)
        >>> t.tolist()
        [[3, 2, 1], [7, 8, 9]]
        """
        params = keywords.sorting("sort", self.shape, dim, axis, kind, stable, descending)
        _check_in_place("sort", self)
        evaluate.write(self, apply(optable.SORT, self, **params).numpy())

    def argsort(
        self,
        dim: int | None = UNSET,
        kind: str | None = None,
        *,
        axis: int | None = UNSET,
        stable: bool | None = None,
        descending: bool = False,
    ) -> StorageTensor:
        """The indices that sort the values along `dim` or `axis` (None: flattened first);
        `descending=True` orders the largest first (equal elements in order when stable).

        >>> import lazytensor as lt
        >>> t = lt.tensor([1, 3, 1])
        >>> t.argsort().tolist(), t.argsort(descending=True, stable=True).tolist()
        ([0, 2, 1], [1, 0, 2])
        """
        params = keywords.sorting("argsort", self.shape, dim, axis, kind, stable, descending)
        return apply(optable.ARGSORT, self, **params)

    def flip(
        self, dim: int | Sequence[int] | None = UNSET, *, axis: int | Sequence[int] | None = UNSET
    ) -> AbstractTensor:
        """The order of the elements reversed along `dim` or `axis` (None: every axis): a view, `t[::-1]`.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> t.flip(1).tolist(), t.flip().tolist(), type(t.flip(axis=0)).__name__
        ([[2, 1, 0], [5, 4, 3]], [[5, 4, 3], [2, 1, 0]], 'SlicedTensor')
        """
        return views.flip(self, keywords.axes("flip", self.shape, dim, axis, None))

    def roll(self, shift: int | Sequence[int], dim: Dims = UNSET, *, axis: Dims = UNSET) -> StorageTensor:
        """The elements shifted by `shift` along `dim` or `axis` (None: over the values flattened),
        those pushed past the end coming back at the start: numpy's `roll`, PyTorch's `roll`;
        differentiable.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> t.roll(1, axis=1).tolist(), t.roll(1).tolist()
        ([[2, 0, 1], [5, 3, 4]], [[5, 0, 1], [2, 3, 4]])
        """
        params = keywords.rolling("roll", self.shape, shift, dim, axis)
        return apply(optable.ROLL, self, **params)

    def nonzero(self) -> tuple[StorageTensor, ...]:
        """The indices of the elements that are not zero, one int tensor per axis (numpy's `nonzero`).

        >>> import lazytensor as lt
        >>> [i.tolist() for i in lt.tensor([[0, 3], [4, 0]]).nonzero()]
        [[0, 1], [1, 0]]
        """
        if self.ndim == 0:
            raise ValueError("nonzero of a 0-d tensor: index it as t[None] first, as numpy asks")
        return tuple(StorageTensor.from_array(i) for i in find_nonzero.nonzero(self.numpy()))

    # -- in-place operators: the result computed, then written through this tensor -------------

    @keywords.user_error  # what goes wrong here is the operands': the traceback ends at the user's line
    def _inplace(self, entry: Op, other: Any) -> Self:
        """`self op= other`: check, compute by the table's entry, write through every layer to
        storage (numpy's `same_kind` casting, the result's shape must be ours), return `self`."""
        evaluate.check_writable(self)
        refuse_in_place_grad(entry.name, self, other)
        result = apply(entry, self, other)
        evaluate.write_result(self, result.numpy(), _NUMPY_NAMES.get(entry.name, entry.name))
        return self

    def __iadd__(self, other: Any) -> Self:
        """`t += x` writes through: `t` may be any view but an expanded one, and stays the same object.

        >>> import lazytensor as lt
        >>> t = lt.arange(6.0).reshape(2, 3)
        >>> v = t[0]
        >>> v += 100
        >>> t.tolist()
        [[100.0, 101.0, 102.0], [3.0, 4.0, 5.0]]
        """
        return self._inplace(optable.ADD, other)

    def __isub__(self, other: Any) -> Self:
        """`t -= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.SUB, other)

    def __imul__(self, other: Any) -> Self:
        """`t *= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.MUL, other)

    def __itruediv__(self, other: Any) -> Self:
        """`t /= x`, written through to storage; an integer tensor refuses (numpy's casting)."""
        return self._inplace(optable.TRUEDIV, other)

    def __ifloordiv__(self, other: Any) -> Self:
        """`t //= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.FLOORDIV, other)

    def __imod__(self, other: Any) -> Self:
        """`t %= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.MOD, other)

    def __ipow__(self, other: Any) -> Self:
        """`t **= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.POWER, other)

    def __imatmul__(self, other: Any) -> Self:
        """`t @= x`, written through to storage; the product must keep `t`'s shape."""
        return self._inplace(optable.MATMUL, other)

    def __iand__(self, other: Any) -> Self:
        """`t &= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.AND, other)

    def __ior__(self, other: Any) -> Self:
        """`t |= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.OR, other)

    def __ixor__(self, other: Any) -> Self:
        """`t ^= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.XOR, other)

    def __ilshift__(self, other: Any) -> Self:
        """`t <<= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.LSHIFT, other)

    def __irshift__(self, other: Any) -> Self:
        """`t >>= x`, written through to storage (as `+=`)."""
        return self._inplace(optable.RSHIFT, other)

    # -- a one-element tensor as a number (numpy's 0-d arrays, PyTorch's 0-d tensors) -------------

    def _only_element(self, what: str) -> Any:
        if self.numel() != 1:
            raise TypeError(
                f"only tensors of one element can be converted to {what}, not a tensor of shape {self.shape}"
            )
        return self.numpy().reshape(())  # a 0-d array: numpy's own conversions, warnings and errors

    def __float__(self) -> float:
        """`float(t)` for a tensor of one element, as numpy's 0-d arrays.

        >>> import lazytensor as lt, math
        >>> float(lt.tensor([1.0, 3.0]).sum()), math.sqrt(lt.tensor(16))
        (4.0, 4.0)
        """
        return float(self._only_element("a Python float"))

    def __int__(self) -> int:
        """`int(t)` for a tensor of one element (a float is truncated, as `int(1.7)`).

        >>> import lazytensor as lt
        >>> int(lt.tensor([3, 9, 4]).argmax())
        1
        """
        return int(self._only_element("a Python int"))

    def __complex__(self) -> complex:
        """`complex(t)` for a tensor of one element.

        >>> import lazytensor as lt
        >>> complex(lt.tensor([1.5]))
        (1.5+0j)
        """
        return complex(self._only_element("a Python complex"))

    def __index__(self) -> int:
        """A 0-d integer tensor is an index: `['a', 'b'][t.argmax()]`, `range(t)`, `t[u]`.

        >>> import lazytensor as lt
        >>> ["a", "b", "c"][lt.tensor([1, 5, 2]).argmax()]
        'b'
        """
        if self.ndim != 0 or self.dtype.kind not in "iu":
            raise TypeError(
                "only integer scalar tensors can be converted to a scalar index, "
                f"not a tensor of shape {self.shape} and dtype {self.dtype}"
            )
        return operator.index(self.numpy()[()])

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats its value (`f"{t.mean():.2f}"`); any other takes only an empty spec.

        >>> import lazytensor as lt
        >>> f"{lt.tensor([1.0, 2.0]).mean():.2f}", "%.1f" % lt.tensor(2.25)
        ('1.50', '2.2')
        """
        if not spec:  # f"{t}" is str(t): for a 0-d tensor its number, even one numpy cannot format
            return str(self)
        if self.ndim == 0:
            return format(self.numpy()[()], spec)
        raise TypeError(f"unsupported format string {spec!r} passed to a tensor of shape {self.shape}")

    def __round__(self, ndigits: int | None = None) -> Any:
        """`round(t)`: an int for a one-element tensor; `round(t, n)` a number for a 0-d tensor, else
        the tensor rounded elementwise (`t.round(n)`).

        >>> import lazytensor as lt
        >>> round(lt.tensor(2.675)), round(lt.tensor(1.2345), 2), round(lt.tensor([0.12, 0.25]), 1).tolist()
        (3, np.float64(1.23), [0.1, 0.2])
        """
        if ndigits is None:
            return round(self._only_element("a Python int")[()])
        if self.ndim == 0:
            value: Any = self.numpy()[()]
            return round(value, ndigits)
        return self.round(ndigits)

    def __contains__(self, value: Any) -> bool:
        """`value in t`: whether any element equals `value`, as numpy's `(a == value).any()`.

        >>> import lazytensor as lt
        >>> 2.0 in lt.arange(3.0), 5 in lt.arange(3.0)
        (True, False)
        """
        return bool(apply(optable.EQ, self, value).numpy().any())

    def __copy__(self) -> StorageTensor:
        """`copy.copy(t)` copies the values, as numpy does (use `t.view()`-style methods to share).

        >>> import copy, lazytensor as lt
        >>> t = lt.zeros(2)
        >>> c = copy.copy(t)
        >>> c[0] = 1.0
        >>> t.tolist(), c.tolist()
        ([0.0, 0.0], [1.0, 0.0])
        """
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> StorageTensor:
        """`copy.deepcopy(t)`: the values copied, object elements deep-copied, as numpy does.

        >>> import copy, lazytensor as lt
        >>> t = lt.tensor([None], dtype=object)
        >>> t[0] = [1, 2]
        >>> copy.deepcopy(t).tolist()[0] is t.tolist()[0]
        False
        """
        return StorageTensor.from_array(np.array(copy.deepcopy(self.numpy(), memo), order="C", copy=True))

    @property
    def size(self) -> int:
        """The number of elements, as numpy's `a.size` (PyTorch's `numel()`).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3, dtype="float32")
        >>> t.size, t.itemsize, t.nbytes
        (6, 4, 24)
        """
        return self.numel()

    @property
    def itemsize(self) -> int:
        """The bytes of one element.

        >>> import lazytensor as lt
        >>> lt.zeros(3, dtype="int16").itemsize
        2
        """
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes the elements of this tensor would take in an array of their own (numpy's rule:
        a view counts its own elements, not its storage's).

        >>> import lazytensor as lt
        >>> lt.zeros(4, 5)[::2].nbytes
        80
        """
        return self.numel() * self.dtype.itemsize

    # -- numpy's names for what a numpy user types ---------------------------------------------

    def copy(self) -> StorageTensor:
        """A copy of the values in new storage, as numpy's `a.copy()` (PyTorch's `clone()` that keeps
        the gradient: it is an operation of the table).

        >>> import lazytensor as lt
        >>> t = lt.arange(3)
        >>> c = t.copy()
        >>> c[0] = 9
        >>> t.tolist(), c.tolist()
        ([0, 1, 2], [9, 1, 2])
        """
        return apply(optable.COPY, self)

    def ravel(self) -> AbstractTensor:
        """The elements in row-major order as one axis: a view (numpy copies when it must; a view
        here always writes through).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t.T.ravel()[1] = 5.0
        >>> t.tolist()
        [[0.0, 0.0], [5.0, 0.0]]
        """
        return self.reshape(-1)

    def fill(self, value: Any) -> None:
        """Write `value` into every element, through every layer to storage (numpy's `a.fill`).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3)
        >>> t[:, 1].fill(7)
        >>> t.tolist()
        [[0.0, 7.0, 0.0], [0.0, 7.0, 0.0]]
        """
        keywords.scalar_value("fill", self.shape, value)
        _check_in_place("fill", self)
        evaluate.write(self, value)

    def dot(self, other: Any) -> StorageTensor:
        """numpy's `a.dot(b)`: the matrix product for 1-D and 2-D operands, the product with a 0-d one.

        >>> import lazytensor as lt
        >>> m = lt.tensor([[1, 2], [3, 4]])
        >>> m.dot(lt.tensor([1, 1])).tolist(), m.dot(2).tolist()
        ([3, 7], [[2, 4], [6, 8]])
        """
        other_ndim = keywords.dot_operands("dot", self.shape, other)
        if self.ndim == 0 or other_ndim == 0:
            return apply(optable.MUL, self, other)
        return apply(optable.MATMUL, self, other)

    def repeat(self, repeats: int | Sequence[int], axis: int | None = None) -> StorageTensor:
        """Each element repeated `repeats` times along `axis` (None: flattened first), numpy's
        `a.repeat`; differentiable.

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2]).repeat(2).tolist(), lt.tensor([[1, 2]]).repeat([1, 2], axis=1).tolist()
        ([1, 1, 2, 2], [[1, 2, 2]])
        """
        params = keywords.repeating("repeat", self.shape, repeats, axis)
        if params["axis"] is None:  # numpy flattens first
            return apply(optable.REPEAT, self.reshape(-1), repeats=params["repeats"], axis=0)
        return apply(optable.REPEAT, self, **params)

    def tile(self, reps: int | Sequence[int]) -> StorageTensor:
        """The tensor repeated `reps` times along each axis (numpy's `np.tile`, PyTorch's `t.tile`);
        differentiable.

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2]).tile(2).tolist(), lt.tensor([1, 2]).tile((2, 1)).tolist()
        ([1, 2, 1, 2], [[1, 2], [1, 2]])
        """
        return apply(optable.TILE, self, repetitions=keywords.counts("tile", reps))

    def take(self, indices: Any, axis: int | None = None) -> AbstractTensor:
        """The elements at `indices` along `axis` (None: of the values flattened), numpy's `a.take`:
        a copy (indexing `t[..., indices]` is the write-through view); differentiable.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 2], [3, 4]])
        >>> t.take([3, 0]).tolist(), t.take([1], axis=1).tolist()
        ([4, 1], [[2], [4]])
        """
        index = keywords.indices("take", self.shape, values_of(indices), axis)
        taken = apply(optable.TAKE, self, index.reshape(-1), axis=axis)  # the entry takes 1-D indices
        if index.ndim == 1:
            return taken
        if axis is None:
            return taken.reshape(index.shape)
        along = axis % self.ndim
        return taken.reshape((*self.shape[:along], *index.shape, *self.shape[along + 1 :]))

    def put(self, indices: Any, values: Any) -> None:
        """Write `values` at the flat (row-major) `indices`, numpy's `a.put`: values repeat when
        fewer than the indices; through a view the writes reach storage.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t.put([0, 3], 5.0)
        >>> t.tolist()
        [[5.0, 0.0], [0.0, 5.0]]
        """
        index = keywords.indices("put", (self.numel(),), values_of(indices), None)
        given = np.asarray(values_of(values)).reshape(-1)
        if index.size and not given.size:
            raise ValueError(f"put: no values to write at {index.size} indices")
        repeated = np.resize(given, index.shape) if index.size else given[:0]
        _check_in_place("put", self)
        self.reshape(-1)[index] = repeated

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> AbstractTensor:
        """The diagonal `offset` of the planes spanned by `axis1` and `axis2`, as the last axis:
        numpy's `a.diagonal`, here a write-through view (numpy's is read-only).

        >>> import lazytensor as lt
        >>> t = lt.arange(9).reshape(3, 3)
        >>> t.diagonal().tolist(), t.diagonal(1).tolist()
        ([0, 4, 8], [1, 5])
        """
        first, second = keywords.diagonal_axes("diagonal", self.shape, axis1, axis2)
        rows, columns = self.shape[first], self.shape[second]
        length = max(0, min(rows, columns - offset) if offset >= 0 else min(rows + offset, columns))
        start_row, start_column = (0, offset) if offset >= 0 else (-offset, 0)
        steps = np.arange(length)
        planes = self.permute(*(a for a in range(self.ndim) if a not in (first, second)), first, second)
        return views.index_view(planes, (..., steps + start_row, steps + start_column))

    def trace(
        self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: npt.DTypeLike | None = None
    ) -> AbstractTensor:
        """The sum of a diagonal (numpy's `a.trace`); differentiable.

        >>> import lazytensor as lt
        >>> lt.arange(9).reshape(3, 3).trace().item()
        12
        """
        return self.diagonal(offset, axis1, axis2).sum(-1, dtype=dtype)

    # -- PyTorch's in-place methods: computed, then written through this tensor ----------------

    def add_(self, other: Any, *, alpha: Any = 1) -> Self:
        """`t += alpha * other`, written through (PyTorch's `add_`); a leaf that requires grad only
        under `lt.no_grad()`.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2)
        >>> t.add_(1).mul_(3).sub_(1, alpha=2).tolist()
        [1.0, 1.0]
        """
        return self._inplace(optable.ADD, other if alpha == 1 else apply(optable.MUL, other, alpha))

    def sub_(self, other: Any, *, alpha: Any = 1) -> Self:
        """`t -= alpha * other`, written through."""
        return self._inplace(optable.SUB, other if alpha == 1 else apply(optable.MUL, other, alpha))

    def mul_(self, other: Any) -> Self:
        """`t *= other`, written through."""
        return self._inplace(optable.MUL, other)

    def div_(self, other: Any) -> Self:
        """`t /= other`, written through (an integer tensor refuses, as numpy's casting)."""
        return self._inplace(optable.TRUEDIV, other)

    def pow_(self, other: Any) -> Self:
        """`t **= other`, written through."""
        return self._inplace(optable.POWER, other)

    def neg_(self) -> Self:
        """`t = -t`, written through."""
        return self._inplace(optable.MUL, -1)

    def clamp_(self, min: Any = None, max: Any = None) -> Self:
        """Every element limited to `[min, max]`, written through (PyTorch's `clamp_`).

        >>> import lazytensor as lt
        >>> lt.tensor([-2.0, 0.5, 3.0]).clamp_(0, 1).tolist()
        [0.0, 0.5, 1.0]
        """
        _check_in_place("clamp_", self)
        evaluate.write_result(self, self.clip(min, max).numpy(), "clip")
        return self

    clip_ = clamp_

    def fill_(self, value: Any) -> Self:
        """Every element set to `value`, written through; returns this tensor (PyTorch's `fill_`)."""
        keywords.scalar_value("fill_", self.shape, value)
        _check_in_place("fill_", self)
        evaluate.write(self, value)
        return self

    def zero_(self) -> Self:
        """Every element set to 0, written through: `w.grad.zero_()` between steps, as in PyTorch.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> (w * 3).sum().backward()
        >>> w.grad.zero_().tolist()
        [0.0, 0.0]
        """
        _check_in_place("zero_", self)
        evaluate.write(self, 0)
        return self

    def copy_(self, source: Any) -> Self:
        """`source` (broadcast, cast to this dtype) written into every element (PyTorch's `copy_`).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t[0].copy_([1, 2]).tolist(), t.tolist()
        ([1.0, 2.0], [[1.0, 2.0], [0.0, 0.0]])
        """
        _check_in_place("copy_", self, source)
        evaluate.write(self, values_of(source))
        return self


_NUMPY_NAMES = {entry.name: ufunc.__name__ for ufunc, entry in optable.UFUNCS.items()}
"""numpy's name of each table entry that is a ufunc, for numpy's messages (`'divide'` for truediv)."""


def refuse_in_place_grad(name: str, *operands: Any) -> None:
    """RuntimeError when an in-place operation would change a tensor the gradient graph depends on,
    or drop an operand's gradient: in-place operations are not differentiable."""
    if not autograd.is_grad_enabled():
        return
    for x in operands:
        if isinstance(x, AbstractTensor) and x.requires_grad:
            raise RuntimeError(
                f"in-place {name} on a tensor of shape {x.shape} that requires grad is not "
                "differentiable: use an out-of-place operation, or lt.no_grad() for an update"
            )


@keywords.user_error  # a refused write's traceback ends at the user's line
def _check_in_place(name: str, target: AbstractTensor, *operands: Any) -> None:
    """ValueError if a write through `target` cannot reach storage; RuntimeError if it would write
    into a leaf that requires grad outside `no_grad()`, or change what the gradient graph needs."""
    evaluate.check_writable(target)
    refuse_in_place_grad(name, target, *operands)


def _is_element_key(key: Any, ndim: int) -> bool:
    """Whether `key` is plain Python ints, one per axis (the commonest read at a prompt)."""
    if type(key) is int:
        return ndim == 1
    if type(key) is not tuple or len(key) != ndim:
        return False
    return all(type(k) is int for k in key)


def _float_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _numpy_reduction_names(dim: Dims, keepdim: bool, names: dict[str, Any]) -> tuple[Dims, bool]:
    """Accept the keywords numpy passes when `np.sum(t, axis=0)` calls `t.sum`: `axis` for `dim`,
    `keepdims` for `keepdim`, and `out=None`, `dtype=None`, `ddof=0` that change nothing."""
    if not names:
        return dim, keepdim
    unsupported = {k: v for k, v in names.items() if k not in ("axis", "keepdims", "out", "dtype", "ddof")}
    if unsupported or names.get("out") is not None or names.get("dtype") is not None or names.get("ddof", 0):
        raise TypeError(f"unsupported reduction arguments {names}: lazytensor takes dim and keepdim")
    if names.get("axis") is not None:
        dim = names["axis"]
    return dim, bool(names.get("keepdims", keepdim))


class GradState:
    """The mutable gradient bookkeeping of a storage tensor; the tensor itself stays frozen.

    `node` is set on the result of an operation that recorded its inputs; `version` counts the
    writes into the buffer (shared with every tensor over the same buffer, as `detach()` makes).
    """

    __slots__ = ("grad", "node", "requires_grad", "retains", "version")

    def __init__(self, version: Version | None = None) -> None:
        self.requires_grad = False
        self.retains = False
        self.grad: StorageTensor | None = None
        self.node: Node | None = None
        self.version = Version() if version is None else version


class BaseTensor(AbstractTensor):
    """The bottom of a stack: it answers the reading and writing questions of `evaluate` for the
    positions a fused `Layout` or an array of flat indices names (row-major indices of its shape).

    `StorageTensor` answers them with one flat numpy buffer; the array-like bases of
    `lazytensor.bases` (zarr, dask, h5py) lower them to as few backend requests as they can.
    """

    __slots__ = ()
    grad_state: GradState
    buffer: Buffer
    """The flat 1-D numpy buffer (an array-like base raises TypeError, naming its array)."""

    has_buffer = True
    """Whether `buffer` is a flat numpy array (False: an array-like base, read on request)."""

    defers_operations = False
    """Whether `apply` hands operations on this base to `apply_lazily` (dask: they build graphs)."""

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
    def storage_note(self) -> str | None:
        """A word for the printer's header about where the values live, when reading them all costs
        more than memory ("memory-mapped", "zarr", "dask"), or None."""
        return None

    def lazy_values(self, t: AbstractTensor) -> Any:
        """The lazy array of the view `t` of this base (bases that defer operations)."""
        raise AttributeError(f"a tensor over a {self.layer_name} base has no lazy (dask) array")

    def apply_lazily(self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]) -> AbstractTensor:
        """The lazy result of an operation of the table on operands one of which stands on this base."""
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
        _FUSED_VALUES.prime(self, self.buffer.reshape(self._shape))

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle: the buffer and the rest, never the cached view of the buffer (pickled
        on its own it would come back as a copy, stale at the first write)."""
        state = dict(self.__dict__)
        _FUSED_VALUES.omit(state)
        AbstractTensor._lazy_values.omit(state)
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
        t.__dict__.update(buffer=array.reshape(-1), _shape=array.shape)
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
        return (
            "".join(part.capitalize() for part in _TORCH_NAMES.get(node.name, node.name).split("_"))
            + "Backward0"
        )

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

    @property
    def version(self) -> int:
        """How many writes this storage has seen (PyTorch's `_version`)."""
        return self.grad_state.version.value

    def grad_parents(self) -> tuple[AbstractTensor, ...]:
        node = self.grad_state.node
        if node is None:
            return ()
        return tuple(p for p, need in zip(node.parents, node.saved.needs, strict=True) if need)

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        node = self.grad_state.node
        return [] if node is None else node.input_grads(grad, retain)

    def accumulate_grad(self, grad: Buffer) -> None:
        grad = np.asarray(grad, dtype=_float_dtype(self.dtype)).reshape(self._shape)
        state = self.grad_state
        total = grad if state.grad is None else state.grad.numpy() + grad
        state.grad = StorageTensor.from_array(np.array(total, order="C"))

    def detach(self) -> StorageTensor:
        detached = StorageTensor(self.buffer, self._shape)
        detached.grad_state.version = self.grad_state.version  # one buffer, one count of writes
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

_TORCH_NAMES = {"truediv": "div", "power": "pow"}
"""PyTorch's word for a table entry in `grad_fn` names, where the two differ (`DivBackward0`)."""


def _is_tensor(x: Any) -> bool:
    return isinstance(x, AbstractTensor)


def _is_dtype_argument(arg: Any) -> bool:
    """Whether the one argument of `t.view(arg)` names a dtype (numpy's meaning) rather than a shape."""
    if isinstance(arg, str | np.dtype | type):
        return True
    return hasattr(arg, "dtype") and not hasattr(arg, "shape")


# -- applying an operation of the table -------------------------------------------------------


_TENSOR_TYPES: dict[type, bool] = {}


def is_tensor_type(cls: type) -> bool:
    """Whether instances of `cls` are tensors (an ABC check, cached per class: it is on every hot path)."""
    known = _TENSOR_TYPES.get(cls)
    if known is None:
        known = _TENSOR_TYPES[cls] = issubclass(cls, AbstractTensor)
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
    return _plain_values(x)


# Type tuples for isinstance on hot paths (`X | Y` would build a union object on every call).
_SEQUENCES = (list, tuple)
_NUMPY_VALUES = (np.ndarray, np.generic)
_PYTHON_NUMBERS = (int, float, complex)


def _plain_values(x: Any) -> Any:
    """`values_of` an operand that is not a tensor."""
    return np.asarray(x) if isinstance(x, _SEQUENCES) else x


def _result(values: Any, inputs: tuple[Any, ...]) -> StorageTensor:
    """A new storage tensor over a kernel's output, copied when it might share memory with an input
    or cannot be written, so a result never aliases an operand."""
    array = values if isinstance(values, np.ndarray) else np.asarray(values)
    if array.flags.carray:
        if array.base is None:  # it owns its memory: new, unless it is an input itself
            for x in inputs:
                if x is array:
                    break
            else:
                return StorageTensor._trusted(array)
        if not _may_share_memory_with(array, inputs):
            return StorageTensor._trusted(array)
    return StorageTensor._trusted(array.copy(order="C"))


def _may_share_memory_with(array: Buffer, inputs: tuple[Any, ...]) -> bool:
    return any(isinstance(x, np.ndarray) and np.may_share_memory(array, x) for x in inputs)


def apply(entry: Op, /, *operands: Any, **params: Any) -> StorageTensor:
    """Run one operation of the table on tensors (or arrays, scalars, lists) and record it for
    `backward` when an operand requires grad and the operation is differentiable.

    >>> import lazytensor as lt
    >>> apply(optable.ADD, lt.tensor([1, 2]), 10).tolist()
    [11, 12]
    """
    resident = _resident_values(operands)  # the common case first: values in memory, no gradient
    if resident is not None:
        ufunc = entry.ufunc
        if ufunc is None or params:  # what the general path does for them, without its questions
            try:
                return _result(entry.kernel(*resident, **params), resident)
            except _USER_ERRORS as error:
                raise error.with_traceback(None) from None
        try:
            out = ufunc(*resident, order="C")  # the kernel's own call: same values, dtype, order
        except Exception:  # whatever it is, the general path below raises it again, with its message
            pass
        else:
            if type(out) is np.ndarray:  # a new C array (not a 0-d result, which is a scalar)
                return StorageTensor._trusted(out)
    bases: list[BaseTensor | None] = []  # each operand's base; None for one that is not a tensor
    for x in operands:
        tensor = _TENSOR_TYPES.get(type(x))  # `is_tensor_type`'s cache, read inline: the hottest line
        if tensor is None:
            tensor = is_tensor_type(type(x))
        base = x.base if tensor else None
        if base is not None and base.defers_operations:  # dask: the operation stays lazy, no gradient
            return base.apply_lazily(entry, operands, params)  # type: ignore[no-any-return]
        bases.append(base)
    values: list[Any] = []
    for x, base in zip(operands, bases, strict=True):
        if base is None:
            values.append(_plain_values(x))
        else:
            fused = x._fused_values  # `x.values()` without the call when the stack fuses
            values.append(x.values() if fused is None else fused)
    inputs = tuple(values)
    needs = _needs(entry, bases)
    try:  # free unless raised: a kernel's error is about the operands, so it ends at the caller's door
        if not needs:
            return _unrecorded(entry, operands, bases, inputs, params)
        result = _result(entry.kernel(*inputs, **params), inputs)
    except _USER_ERRORS as error:
        raise error.with_traceback(None) from None
    saved = Saved(inputs, result.values(), params, needs, _watch(operands, result))
    result.grad_state.requires_grad = True
    result.grad_state.node = Node(entry.name, operands, saved, entry.backward)  # type: ignore[arg-type]
    return result


_PLAIN_OPERANDS = frozenset({int, float, complex, np.ndarray, np.float64, np.int64})
"""Operand types a ufunc takes as they are, exactly as `values_of` passes them (bool is left to the
general path, which types it)."""


def _resident_values(operands: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The values `apply` hands a ufunc when that is all there is to do: every tensor operand a fused
    view of memory whose base no gradient watches, every other a number or an array; else None."""
    values = []
    for x in operands:
        kind = type(x)
        if kind in _PLAIN_OPERANDS:
            values.append(x)
            continue
        tensor = _TENSOR_TYPES.get(kind)  # `is_tensor_type`'s cache, read inline
        if not (is_tensor_type(kind) if tensor is None else tensor):
            return None
        fused = x._fused_values
        if fused is None:
            return None
        state = _GRAD_STATE.peek(x.base)
        if state is not None and state.requires_grad:
            return None
        values.append(fused)
    return tuple(values)


def _whole_sum(t: AbstractTensor) -> StorageTensor | None:
    """`t.sum()` as one `np.add.reduce`, what the general path computes, for a tensor whose values are
    a fused view of memory that no gradient watches; None for the rest: object arrays (whose sum the
    general path keeps an object), repeats (stride 0, summed once and multiplied), gradients."""
    fused = t._fused_values
    if fused is None or fused.dtype.hasobject or 0 in fused.strides:
        return None
    state = _GRAD_STATE.peek(t.base)
    if state is not None and state.requires_grad:
        return None
    return StorageTensor._trusted(np.asarray(np.add.reduce(fused, axis=None)))


_USER_ERRORS = (TypeError, ValueError, IndexError)
"""What a kernel raises about its operands (shapes, dtypes, indices): shown from the door the user
called (`t + u`, `t.sum()`), not from inside the kernel."""


def _needs(entry: Op, bases: list[BaseTensor | None]) -> tuple[bool, ...]:
    """Which operands want a gradient from this operation (a view's is its base's); () when none
    does, or the operation records nothing (no backward rule, or inside `no_grad()`)."""
    if entry.backward is None:
        return ()
    for base in bases:
        if base is not None and base.requires_grad:  # found one: say which of them do, if recording
            if not autograd.is_grad_enabled():
                return ()
            return tuple([base is not None and base.requires_grad for base in bases])
    return ()


def _unrecorded(
    entry: Op,
    operands: tuple[Any, ...],
    bases: list[BaseTensor | None],
    inputs: tuple[Any, ...],
    params: dict[str, Any],
) -> StorageTensor:
    """The result of an operation that records no gradient: written into a temporary operand when
    its ufunc can, else into new memory."""
    ufunc = entry.ufunc
    if ufunc is not None and not params:
        scratch = _scratch(ufunc, operands, bases, inputs)
        if scratch is not None:
            return StorageTensor._trusted(ufunc(*inputs, out=scratch))
    return _result(entry.kernel(*inputs, **params), inputs)


SCRATCH_BYTES = 1 << 18
"""Operand values this big that were read fresh for one operation take its elementwise result
(numpy elides temporaries from 256 KiB too): no second array, no page faults for its memory."""


def _scratch(
    ufunc: np.ufunc, operands: tuple[Any, ...], bases: list[BaseTensor | None], inputs: tuple[Any, ...]
) -> Any:
    """The values of an operand that `ufunc(*inputs)` may overwrite with its result, or None."""
    for x, base, values in zip(operands, bases, inputs, strict=True):
        big = getattr(values, "nbytes", 0) >= SCRATCH_BYTES  # first: most operands are small
        if (
            big
            and base is not None
            and _is_temporary(x, base, values)
            and _result_fits(ufunc, values, inputs)
        ):
            return values
    return None


def _is_temporary(x: AbstractTensor, base: BaseTensor, values: Any) -> bool:
    """Whether `values` were read for this operation alone: a new, writeable C array that a view
    without a layout computed from numpy storage (nothing caches those) and that is not the storage
    itself."""
    return (
        isinstance(values, np.ndarray)
        and values.base is None
        and values.flags.carray
        and x.layout is None
        and base.has_buffer
        and not base.may_share_memory(values)
    )


def _result_fits(ufunc: np.ufunc, out: Buffer, inputs: tuple[Any, ...]) -> bool:
    """Whether `ufunc(*inputs)` has exactly `out`'s dtype (numpy's own type resolution) and shape
    (every input broadcasts to it without growing it)."""
    dtypes = []
    for value in inputs:  # one pass: this runs on every elementwise operation of a big gather
        shape = getattr(value, "shape", ())
        if shape != out.shape and not _broadcasts_into(shape, out.shape):
            return False
        dtypes.append(value.dtype if isinstance(value, np.ndarray) else _dtype_of(value))
    return _result_dtype(ufunc, tuple(dtypes)) == out.dtype


@functools.lru_cache(maxsize=1024)
def _result_dtype(ufunc: np.ufunc, dtypes: tuple[Any, ...]) -> np.dtype[Any] | None:
    """The dtype `ufunc` gives inputs of these dtypes (numpy's own type resolution, asked once per
    combination), or None when numpy has no loop for them (the kernel will say so)."""
    try:
        resolved: np.dtype[Any] = ufunc.resolve_dtypes((*dtypes, None))[-1]
    except (TypeError, ValueError):
        return None
    return resolved


def _dtype_of(value: Any) -> Any:
    """What `ufunc.resolve_dtypes` takes for an input: its dtype, or a Python number's type (weak)."""
    if isinstance(value, _NUMPY_VALUES):
        return value.dtype
    if isinstance(value, _PYTHON_NUMBERS) and not isinstance(value, bool):
        return type(value)
    return np.asarray(value).dtype


def _broadcasts_into(shape: Shape, target: Shape) -> bool:
    """Whether `shape` broadcasts to `target` as it is.

    >>> _broadcasts_into((3, 1), (2, 3, 4)), _broadcasts_into((2, 4), (4,))
    (True, False)
    """
    if len(shape) > len(target):
        return False
    for size, goal in zip(reversed(shape), reversed(target), strict=False):
        if size != 1 and size != goal:
            return False
    return True


def _watch(operands: tuple[Any, ...], result: StorageTensor) -> tuple[Watched, ...]:
    """The versions of every storage an operation saved values of: its tensor operands and its result."""
    watched = [
        Watched(x.base.grad_state.version, x.base.grad_state.version.value, f"input {i} (shape {x.shape})")
        for i, x in enumerate(operands)
        if isinstance(x, AbstractTensor)
    ]
    watched.append(Watched(result.grad_state.version, 0, f"output (shape {result.shape})"))
    return tuple(watched)


def apply_to_sequence(entry: Op, tensors: Sequence[Any], **params: Any) -> StorageTensor:
    """`apply` for the operations that join a list of tensors (cat, stack)."""
    if not isinstance(tensors, list | tuple) or len(tensors) == 0:
        raise TypeError(f"{entry.name} takes a non-empty sequence of tensors, got {type(tensors).__name__}")
    return apply(entry, *tensors, **params)


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """numpy calling a ufunc on tensors (`array * t`, `np.exp(t)`): the table's entry when it has one,
    else the ufunc on the values with the result wrapped (not differentiable).

    >>> import lazytensor as lt
    >>> w = lt.ones(2, requires_grad=True)
    >>> (np.array([2.0, 3.0]) * w).sum().backward()
    >>> w.grad.tolist(), type(np.exp(lt.zeros(1))).__name__
    ([2.0, 3.0], 'StorageTensor')
    """
    entry = optable.UFUNCS.get(ufunc)
    if entry is not None and method == "__call__" and not kwargs:
        return apply(entry, *inputs)
    outputs = kwargs.get("out", ())
    if method == "at" or any(isinstance(o, AbstractTensor) for o in outputs):
        return _ufunc_in_place(ufunc, method, inputs, kwargs)
    result = getattr(ufunc, method)(*(values_of(x) for x in inputs), **kwargs)
    if isinstance(result, tuple):
        return tuple(_result(r, ()) for r in result)
    return _result(result, ())


_DOORS = numpy_functions.Doors(
    apply=apply,
    wrap=StorageTensor.from_array,
    is_tensor=lambda x: isinstance(x, AbstractTensor),
    values=values_of,
)
"""What `numpy_functions` needs of this module, lent so that it never imports it."""


def _ufunc_in_place(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A ufunc writing into tensors (`np.add(v, 1, out=v)`, `np.add.at(t, [0, 0], 1)`): numpy runs on
    copies of their values, with all its checks (casting, shapes), and then the copies are written
    through each tensor's layers; nothing is written unless every check passed.

    >>> import lazytensor as lt
    >>> t = lt.zeros(2, 3)
    >>> np.add(t[0], 1, out=t[0]) is not None, t.tolist()
    (True, [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    >>> np.add.at(t[1], [0, 0, 2], 1.0)
    >>> t[1].tolist()
    [2.0, 0.0, 1.0]
    """
    targets = list(kwargs.get("out", ()))
    values = [values_of(x) for x in inputs]
    if method == "at":
        targets, values[0] = [inputs[0]], None
    tensors = [x for x in targets if isinstance(x, AbstractTensor)]
    for target in tensors:
        evaluate.check_writable(target)
    refuse_in_place_grad(f"np.{ufunc.__name__}", *inputs, *targets)
    buffers = [evaluate.read_copy(x) if isinstance(x, AbstractTensor) else x for x in targets]
    if method == "at":
        ufunc.at(buffers[0], *values[1:], **kwargs)
    else:
        getattr(ufunc, method)(*values, **{**kwargs, "out": tuple(buffers)})
    for target, buffer in zip(targets, buffers, strict=True):
        if isinstance(target, AbstractTensor):
            evaluate.write(target, buffer)
    if method == "at":
        return None
    return targets[0] if len(targets) == 1 else tuple(targets)


# The package's one mutual import: wrappers are tensors (views imports AbstractTensor from here),
# and tensors make wrappers (every view method above calls into views). Nothing else imports up.
from lazytensor import views  # noqa: E402

"""`AbstractTensor`, the interface every tensor implements, and `StorageTensor`, the base.

Every user-facing method lives on `AbstractTensor` as a short delegation to the
module that does the work (views, indexing, evaluate, ...). Those modules build
on this one, so they are imported inside the methods: the arrows of the design
point one way.
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.buffers import is_memory_mapped
from lazytensor.layout import Layout
from lazytensor.positions import Shape, as_shape, normalize_position, numel

if TYPE_CHECKING:
    from lazytensor.indexing import OuterIndexer

Buffer = npt.NDArray[Any]


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
    def storage(self) -> Buffer:
        """The flat 1-D numpy buffer at the bottom of the stack."""

    @property
    @abc.abstractmethod
    def layers(self) -> tuple[AbstractTensor, ...]:
        """This tensor, the tensor it wraps, and so on down to the storage tensor."""

    @abc.abstractmethod
    def describe(self) -> str:
        """What this layer was made with, in a few words (for `explain()`)."""

    @property
    def read_only_reason(self) -> str | None:
        """Why a write through this layer cannot reach storage, or None when it can."""
        return None

    @property
    def layer_name(self) -> str:
        """The short name in a layer chain: the class name without its `Tensor` suffix."""
        return type(self).__name__.removesuffix("Tensor")

    # -- reading and inspecting -------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.storage.dtype

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
        from lazytensor import evaluate

        return evaluate.locate(self, normalize_position(pos, self.shape))

    def get(self, pos: Sequence[int]) -> Any:
        """The element at `pos`.

        >>> import lazytensor as lt
        >>> lt.tensor([[1, 2], [3, 4]]).get((1, -1))
        np.int64(4)
        """
        return self.storage[self.locate(pos)]

    def set(self, pos: Sequence[int], value: Any) -> None:
        """Write one element through every layer down to storage.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t.T.set((0, 1), 7.0)
        >>> t.tolist()
        [[0.0, 0.0], [7.0, 0.0]]
        """
        from lazytensor import evaluate

        evaluate.write_one(self, normalize_position(pos, self.shape), value)

    def numpy(self) -> Buffer:
        """The values as a numpy array: a zero-copy view when the stack has a layout, else a new array.

        >>> import lazytensor as lt
        >>> lt.arange(6).reshape(2, 3).T.numpy()
        array([[0, 3],
               [1, 4],
               [2, 5]])
        """
        from lazytensor import evaluate

        return evaluate.read(self)

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> Buffer:
        array = self.numpy()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def tolist(self) -> Any:
        """Nested Python lists of Python scalars (a scalar for a 0-d tensor)."""
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
        from lazytensor import evaluate

        return StorageTensor.from_array(evaluate.read_copy(self))

    def astype(self, dtype: npt.DTypeLike) -> StorageTensor:
        """A copy converted to `dtype` (numpy's casting)."""
        return StorageTensor.from_array(self.numpy().astype(dtype, order="C"))

    def shares_storage(self, other: AbstractTensor | Buffer) -> bool:
        """Whether the two share memory, so that a write to one can show in the other."""
        other_buffer = other.storage if isinstance(other, AbstractTensor) else other
        return bool(np.shares_memory(self.storage, other_buffer))

    # -- printing and explaining ------------------------------------------------------------

    def __repr__(self) -> str:
        """The grid print (header, then values) as plain text at the configured width."""
        from lazytensor import printer

        return printer.to_string(self)

    def __str__(self) -> str:
        from lazytensor import printer

        return printer.to_string(self)

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        """rich's protocol: the print as renderables, so tensors compose in tables and panels."""
        from lazytensor import printer

        yield printer.TensorPrint(self)

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from lazytensor import printer

        return printer.TensorPrint(self).__rich_measure__(console, options)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter's display: plain text and coloured HTML."""
        from lazytensor import printer

        return printer.tensor_mimebundle(self)

    def print(self, dims: Sequence[int | None] | None = None, **options: Any) -> None:
        """Print this tensor, or the slice `dims` (None = all of an axis, int = fixed), with options.

        >>> import lazytensor as lt
        >>> lt.arange(3).print(style="separators")  # doctest: +NORMALIZE_WHITESPACE
        0.00    1.00    2.00
        """
        from lazytensor import printer

        printer.tprint(self, dims, **options)

    def explain(self, position: Sequence[int] | int | None = None) -> Any:
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
        from lazytensor import explain

        return explain.explain(self, position)

    # -- gradients --------------------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor record what `backward` needs (a view: as its base)."""
        return self.layers[-1].requires_grad

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

    def backward(self, gradient: Any = None) -> None:
        """Accumulate the gradient of this tensor into every leaf it depends on (`.grad`)."""
        from lazytensor import autograd

        autograd.backward(self, gradient)

    def detach(self) -> AbstractTensor:
        """The same view of the same storage, cut from the gradient graph."""
        from lazytensor import evaluate

        base = self.layers[-1]
        return evaluate.restack(self, base, StorageTensor(self.storage, base.shape))

    # -- views ------------------------------------------------------------------------------

    def permute(self, *axes: int | Sequence[int]) -> AbstractTensor:
        """Reorder the axes: axis `i` of the result is axis `axes[i]` of this tensor (a view)."""
        from lazytensor import views

        return views.permute(self, as_shape(axes))

    def transpose(self, dim0: int, dim1: int) -> AbstractTensor:
        """Swap two axes (a view)."""
        from lazytensor import views

        return views.swapaxes(self, dim0, dim1)

    def swapaxes(self, dim0: int, dim1: int) -> AbstractTensor:
        """Swap two axes (a view)."""
        from lazytensor import views

        return views.swapaxes(self, dim0, dim1)

    @property
    def T(self) -> AbstractTensor:
        """All axes reversed (a view)."""
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> AbstractTensor:
        """The last two axes swapped (a view)."""
        if self.ndim < 2:
            raise ValueError(f"mT needs at least 2 axes, got a tensor of shape {self.shape}")
        return self.swapaxes(-2, -1)

    def reshape(self, *shape: int | Sequence[int]) -> AbstractTensor:
        """The same elements in row-major order under a new shape; one -1 is inferred (a view)."""
        from lazytensor import views

        return views.reshape(self, as_shape(shape))

    def view(self, *shape: int | Sequence[int]) -> AbstractTensor:
        """The same as `reshape`: a view, never a copy."""
        return self.reshape(*shape)

    def squeeze(self, dim: int | Sequence[int] | None = None) -> AbstractTensor:
        """Drop size-1 axes: all of them, or the ones named (ValueError if one is not size 1)."""
        from lazytensor import views

        return views.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> AbstractTensor:
        """Insert a size-1 axis at `dim` (a view)."""
        from lazytensor import views

        return views.unsqueeze(self, dim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> AbstractTensor:
        """Merge the axes `start_dim..end_dim` into one (a view)."""
        from lazytensor import views

        return views.flatten(self, start_dim, end_dim)

    def expand(self, *shape: int | Sequence[int]) -> AbstractTensor:
        """Broadcast to a larger shape, -1 keeping a size (a read-only view)."""
        from lazytensor import views

        return views.expand(self, as_shape(shape))

    def broadcast_to(self, shape: Sequence[int]) -> AbstractTensor:
        """Broadcast to `shape` by numpy's rules (a read-only view)."""
        from lazytensor import views

        return views.expand(self, as_shape((shape,)))

    def split(self, size: int | Sequence[int], dim: int = 0) -> tuple[AbstractTensor, ...]:
        """Views of consecutive pieces of `size` along `dim` (or of the sizes listed)."""
        from lazytensor import views

        return views.split(self, size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[AbstractTensor, ...]:
        """At most `chunks` views of equal size (the last may be smaller) along `dim`."""
        from lazytensor import views

        return views.chunk(self, chunks, dim)

    def unbind(self, dim: int = 0) -> tuple[AbstractTensor, ...]:
        """Views of every index along `dim`, that axis removed."""
        from lazytensor import views

        return views.unbind(self, dim)

    def slice(self, specs: Sequence[Any]) -> AbstractTensor:
        """The seeds' per-axis selection: None = all, int = that index kept as a size-1 axis,
        list = those indices, slice = a range.

        >>> import lazytensor as lt
        >>> lt.arange(20).reshape(4, 5).slice([[1, 3], slice(0, 5, 2)]).tolist()
        [[5, 7, 9], [15, 17, 19]]
        """
        from lazytensor import indexing

        return indexing.seed_slice(self, specs)

    @property
    def oindex(self) -> OuterIndexer:
        """Outer indexing: each list selects along its own axis, independently of the others.

        >>> import lazytensor as lt
        >>> lt.arange(12).reshape(3, 4).oindex[[0, 2], [1, 3]].tolist()
        [[1, 3], [9, 11]]
        """
        from lazytensor import indexing

        return indexing.OuterIndexer(self)

    def __getitem__(self, key: Any) -> Any:
        from lazytensor import indexing

        return indexing.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        from lazytensor import evaluate, indexing

        evaluate.write(indexing.index_view(self, key), value)

    # -- operators --------------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's protocol, so that `ndarray + tensor` and `np.exp(tensor)` give tensors."""
        from lazytensor import autograd

        return autograd.array_ufunc(ufunc, method, inputs, kwargs)

    def __add__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.add(self, other)

    def __radd__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.add(other, self)

    def __sub__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.sub(self, other)

    def __rsub__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.sub(other, self)

    def __mul__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.mul(self, other)

    def __rmul__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.mul(other, self)

    def __truediv__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.truediv(self, other)

    def __rtruediv__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.truediv(other, self)

    def __floordiv__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.floordiv(self, other)

    def __rfloordiv__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.floordiv(other, self)

    def __mod__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.mod(self, other)

    def __rmod__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.mod(other, self)

    def __pow__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.power(self, other)

    def __rpow__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.power(other, self)

    def __matmul__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.matmul(self, other)

    def __rmatmul__(self, other: Any) -> StorageTensor:
        from lazytensor import autograd

        return autograd.matmul(other, self)

    def __neg__(self) -> StorageTensor:
        from lazytensor import autograd

        return autograd.neg(self)

    def __pos__(self) -> StorageTensor:
        from lazytensor import operators

        return operators.pos(self)

    def __abs__(self) -> StorageTensor:
        from lazytensor import autograd

        return autograd.absolute(self)

    def __invert__(self) -> StorageTensor:
        from lazytensor import operators

        return operators.invert(self)

    def __eq__(self, other: object) -> StorageTensor:  # type: ignore[override]
        """Elementwise `==`, a bool tensor (so tensors are unhashable, as numpy arrays are)."""
        from lazytensor import operators

        return operators.eq(self, other)

    def __ne__(self, other: object) -> StorageTensor:  # type: ignore[override]
        from lazytensor import operators

        return operators.ne(self, other)

    def __lt__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.less(self, other)

    def __le__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.less_equal(self, other)

    def __gt__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.greater(self, other)

    def __ge__(self, other: Any) -> StorageTensor:
        from lazytensor import operators

        return operators.greater_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    def matmul(self, other: Any) -> StorageTensor:
        """The matrix product, `self @ other`, with numpy's rules."""
        from lazytensor import autograd

        return autograd.matmul(self, other)

    def sum(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The sum over `dim` (None: all axes)."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import autograd

        return autograd.tsum(self, dim, keepdim)

    def mean(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The true mean over `dim`: exact for Fractions."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import autograd

        return autograd.mean(self, dim, keepdim)

    def prod(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The product over `dim`."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.prod(self, dim, keepdim)

    def max(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The largest element over `dim`."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import autograd

        return autograd.tmax(self, dim, keepdim)

    def min(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The smallest element over `dim`."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import autograd

        return autograd.tmin(self, dim, keepdim)

    def argmax(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The index of the first largest element over `dim` (None: of the flattened tensor)."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.argmax(self, dim, keepdim)

    def argmin(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The index of the first smallest element over `dim` (None: of the flattened tensor)."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.argmin(self, dim, keepdim)

    def all(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """Whether every element over `dim` is true."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.tall(self, dim, keepdim)

    def any(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """Whether any element over `dim` is true."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.tany(self, dim, keepdim)

    def std(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The standard deviation over `dim` (ddof 0, as numpy)."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.std(self, dim, keepdim)

    def var(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, **numpy_names: Any
    ) -> StorageTensor:
        """The variance over `dim` (ddof 0, as numpy)."""
        dim, keepdim = _numpy_reduction_names(dim, keepdim, numpy_names)
        from lazytensor import reductions

        return reductions.var(self, dim, keepdim)

    def exp(self) -> StorageTensor:
        """`e ** x` elementwise."""
        from lazytensor import autograd

        return autograd.exp(self)

    def log(self) -> StorageTensor:
        """The natural logarithm elementwise."""
        from lazytensor import autograd

        return autograd.log(self)

    def sqrt(self) -> StorageTensor:
        """The square root elementwise."""
        from lazytensor import autograd

        return autograd.sqrt(self)

    def tanh(self) -> StorageTensor:
        """The hyperbolic tangent elementwise."""
        from lazytensor import autograd

        return autograd.tanh(self)

    def sigmoid(self) -> StorageTensor:
        """`1 / (1 + exp(-x))` elementwise, without overflow."""
        from lazytensor import autograd

        return autograd.sigmoid(self)

    def relu(self) -> StorageTensor:
        """`max(x, 0)` elementwise."""
        from lazytensor import autograd

        return autograd.relu(self)

    def abs(self) -> StorageTensor:
        """`abs(x)` elementwise."""
        from lazytensor import autograd

        return autograd.absolute(self)

    def clip(self, lo: Any = None, hi: Any = None) -> StorageTensor:
        """Every element limited to `[lo, hi]` (None: that side open)."""
        from lazytensor import autograd

        return autograd.clip(self, lo, hi)

    def softmax(self, dim: int) -> StorageTensor:
        """`exp(x) / sum(exp(x))` along `dim`, numerically stable."""
        from lazytensor import autograd

        return autograd.softmax(self, dim)

    def log_softmax(self, dim: int) -> StorageTensor:
        """`log(softmax(x))` along `dim`, numerically stable."""
        from lazytensor import autograd

        return autograd.log_softmax(self, dim)

    def gather(self, dim: int, index: Any) -> StorageTensor:
        """PyTorch's gather: `out[i][j] = self[index[i][j]][j]` for dim 0."""
        from lazytensor import autograd

        return autograd.gather(self, dim, index)

    def index_add(self, dim: int, index: Any, source: Any) -> StorageTensor:
        """A copy with `source` slices added at `index` along `dim`, repeats accumulating."""
        from lazytensor import autograd

        return autograd.index_add(self, dim, index, source)

    def scatter_add(self, dim: int, index: Any, source: Any) -> StorageTensor:
        """A copy with `source[i][j]` added to `out[index[i][j]][j]` for dim 0, repeats accumulating."""
        from lazytensor import autograd

        return autograd.scatter_add(self, dim, index, source)


def _numpy_reduction_names(
    dim: int | Sequence[int] | None, keepdim: bool, names: dict[str, Any]
) -> tuple[int | Sequence[int] | None, bool]:
    """Accept the keywords numpy passes when `np.sum(t, axis=0)` calls `t.sum`: `axis` for `dim`,
    `keepdims` for `keepdim`, and `out=None`, `dtype=None`, `ddof=0` that change nothing."""
    unsupported = {k: v for k, v in names.items() if k not in ("axis", "keepdims", "out", "dtype", "ddof")}
    if unsupported or names.get("out") is not None or names.get("dtype") is not None or names.get("ddof", 0):
        raise TypeError(f"unsupported reduction arguments {names}: lazytensor takes dim and keepdim")
    if names.get("axis") is not None:
        dim = names["axis"]
    return dim, bool(names.get("keepdims", keepdim))


def _as_shape_tuple(shape: Sequence[int]) -> Shape:
    return tuple(int(s) for s in shape)


@attrs.frozen(eq=False, repr=False)
class StorageTensor(AbstractTensor):
    """The bottom of every stack: a flat 1-D numpy buffer and a shape, row-major from offset 0.

    >>> import numpy as np
    >>> t = StorageTensor(np.arange(6.0), (2, 3))
    >>> t.layout
    Layout(shape=(2, 3), strides=(3, 1), offset=0)
    """

    buffer: Buffer = attrs.field()
    _shape: Shape = attrs.field(converter=_as_shape_tuple, alias="shape")
    grad_state: GradState = attrs.field(factory=lambda: GradState(), init=False, repr=False)

    @buffer.validator
    def _check_buffer(self, _attribute: object, buffer: Buffer) -> None:
        if not isinstance(buffer, np.ndarray) or buffer.ndim != 1:
            raise TypeError(f"storage must be a 1-D numpy array, got {type(buffer).__name__}")
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

    @classmethod
    def from_array(cls, array: Buffer) -> StorageTensor:
        """Wrap an array: without copying when it is C-contiguous, else through a row-major copy."""
        if not array.flags.c_contiguous:
            array = array.copy(order="C")
        return cls(array.reshape(-1), array.shape)

    @property
    def shape(self) -> Shape:
        return self._shape

    @functools.cached_property
    def layout(self) -> Layout:
        return Layout.contiguous(self._shape)

    @property
    def storage(self) -> Buffer:
        return self.buffer

    @property
    def layers(self) -> tuple[AbstractTensor, ...]:
        return (self,)

    @property
    def requires_grad(self) -> bool:
        return self.grad_state.requires_grad

    @property
    def grad(self) -> StorageTensor | None:
        return self.grad_state.grad

    def requires_grad_(self, requires_grad: bool = True) -> StorageTensor:
        if self.grad_state.node is not None:
            raise ValueError("requires_grad_ applies to leaves, not to the result of an operation")
        self.grad_state.requires_grad = requires_grad
        return self

    def detach(self) -> StorageTensor:
        return StorageTensor(self.buffer, self._shape)

    def describe(self) -> str:
        mapped = ", memory-mapped" if is_memory_mapped(self.buffer) else ""
        return f"buffer of {self.buffer.size:,} × {self.buffer.dtype}{mapped}"

    @property
    def read_only_reason(self) -> str | None:
        if self.buffer.flags.writeable:
            return None
        return f"cannot write to read-only storage of tensor of shape {self._shape}"


@attrs.define(eq=False)
class GradState:
    """The mutable gradient bookkeeping of a storage tensor; the tensor itself stays frozen.

    `node` (an autograd Node) is set on the result of an operation that recorded its inputs.
    """

    requires_grad: bool = False
    grad: StorageTensor | None = None
    node: Any = None

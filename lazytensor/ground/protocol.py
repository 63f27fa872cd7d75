"""The tensor protocol, written once: what every tensor offers the code that reads it.

`evaluate` (reading and writing through a stack), the printer and `explain`, and
the autograd engine meet tensors only through these three `typing.Protocol`s,
never through the classes (`AbstractTensor`, the wrappers of `views`, the bases),
so they need no run-time import of the tensor modules:

- `Tensor`: every tensor, a base or a view. Its shape and dtype; the stack it
  stands on (`layers`, down to the `base`) and its fused strided map (`layout`,
  or None); its values; what `explain()` and the printer say of it; the gradient
  hooks the backward pass walks.
- `Wrapper`: a tensor that wraps another (a view). The one map each kind of view
  defines, `translate_batch` (where positions go one layer down, as numpy index
  arrays), with `translate` for a single position (`View` derives it from
  `translate_batch`); numpy's computation of the layer; rebuilding it on another
  tensor of the same shape.
- `Base`: the tensor at the bottom of every stack, which answers reads and writes
  of storage indices (a flat numpy buffer, or an array-like base such as zarr).

A ground-floor module: it imports nothing of ours but the layout and position types.

>>> import lazytensor as lt
>>> def rows_down(view: Wrapper) -> Shape:
...     return view.translate((1, 0))
>>> rows_down(lt.arange(6).reshape(2, 3).T)
(0, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from lazytensor.ground.layout import IndexArray, Layout
from lazytensor.ground.positions import Shape

Buffer = npt.NDArray[Any]
IndexArrays = tuple[IndexArray, ...]


class Indexer(Protocol):
    """`t.oindex`: outer indexing, a view (or an element) per key."""

    def __getitem__(self, key: Any) -> Any: ...


class Tensor(Protocol):
    """What every tensor answers, base or view."""

    @property
    def shape(self) -> Shape:
        """The size of each axis."""
        ...

    @property
    def ndim(self) -> int: ...

    @property
    def dtype(self) -> np.dtype[Any]: ...

    def numel(self) -> int: ...

    @property
    def layout(self) -> Layout | None:
        """The fused strided map from positions to storage indices, or None when the stack has none."""
        ...

    @property
    def base(self) -> Base:
        """The tensor at the bottom of the stack."""
        ...

    @property
    def layers(self) -> tuple[Tensor, ...]:
        """This tensor, the tensor it wraps, and so on down to the base."""
        ...

    @property
    def storage(self) -> Buffer:
        """The flat numpy buffer at the bottom (TypeError for an array-like base)."""
        ...

    # -- values -----------------------------------------------------------------------------

    def values(self) -> Buffer:
        """The values for a computation (a zero-copy view when the stack fuses, else a read)."""
        ...

    def numpy(self) -> Buffer:
        """The values as a numpy array of their own (a fresh view object, or a read)."""
        ...

    def locate(self, pos: Sequence[int]) -> int:
        """The storage index of the element at `pos`."""
        ...

    def __getitem__(self, key: Any) -> Any:
        """numpy's indexing: a view, or the element for an all-int key."""
        ...

    @property
    def oindex(self) -> Indexer:
        """Outer indexing: each list selects along its own axis."""
        ...

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """The same elements in row-major order under another shape (a view)."""
        ...

    @staticmethod
    def fresh_storage(values: Buffer) -> Tensor:
        """A new base over `values` (how a reader makes one without importing the classes)."""
        ...

    @property
    def names(self) -> tuple[str | None, ...]:
        """The name of each axis, None where it has none (derived through the layers below)."""
        ...

    # -- what a layer says of itself --------------------------------------------------------

    @property
    def layer_name(self) -> str:
        """The short name in a layer chain (`Transposed`)."""
        ...

    def describe(self) -> str:
        """What this layer was made with, in a few words."""
        ...

    def describe_position(self, pos: Shape) -> str:
        """What this layer says of one of its positions in the trace of `explain(position)`."""
        ...

    @property
    def read_only_reason(self) -> str | None:
        """Why a write through this layer cannot reach storage, or None when it can."""
        ...

    def view_of(self, below: Buffer) -> Buffer | None:
        """This layer as a numpy view of the fused array below it, or None to use the layout."""
        ...

    # -- gradients: what the backward pass asks ---------------------------------------------

    @property
    def requires_grad(self) -> bool: ...

    @property
    def retains_grad(self) -> bool:
        """Whether a result keeps its gradient in `.grad` too."""
        ...

    def grad_parents(self) -> tuple[Any, ...]:
        """The tensors this one's gradient flows to (empty for a leaf)."""
        ...

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """The gradient of each parent, from this tensor's gradient (keeping saved values if `retain`)."""
        ...

    def accumulate_grad(self, grad: Buffer) -> None:
        """Add `grad` into `.grad` (leaves, and results that retain their gradient)."""
        ...


class Wrapper(Tensor, Protocol):
    """A view: a tensor over the tensor one layer down, which it maps positions onto."""

    @property
    def wrapped(self) -> Tensor:
        """The tensor one layer down."""
        ...

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        """Where positions go one layer down: one index array per axis in, broadcast together, and
        one per axis below out. The one map a kind of view defines. It computes with numpy's
        arithmetic and indexing only, so that Python ints work as 0-d index arrays: that is how
        `View.translate` sends one position down."""
        ...

    def translate(self, pos: Shape) -> Shape:
        """Where one (valid, non-negative) position goes one layer down."""
        ...

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        """What numpy computes for this one layer, applied to the evaluated tensor below it."""
        ...

    def names_of(self, names_below: tuple[str | None, ...]) -> tuple[str | None, ...]:
        """The names of this layer's axes, given the names of the axes of the tensor below it."""
        ...

    def with_wrapped(self, wrapped: Any) -> Wrapper:
        """The same wrapper over another tensor of the same shape."""
        ...

    @property
    def keeps_values(self) -> bool:
        """Whether each position below shows exactly once here (a reshape, a permutation of the
        axes, new names): the same values in another order, so what their order does not change (a
        sum, the statistics) may read the tensor below instead."""
        ...


class Base(Tensor, Protocol):
    """The bottom of a stack: reads and writes of row-major storage indices of its shape."""

    @property
    def has_buffer(self) -> bool:
        """Whether `storage` is one flat numpy array (False: an array-like base, read on request)."""
        ...

    @property
    def keeps_views(self) -> bool:
        """Whether a numpy view of the buffer may be kept between reads (False for a memory map)."""
        ...

    @property
    def storage_note(self) -> str | None:
        """A word about where the values live when reading them costs more than memory, or None."""
        ...

    @property
    def names_used(self) -> bool:
        """Whether any tensor over this base may have a name (False: every one is unnamed)."""
        ...

    @property
    def plain(self) -> bool:
        """Whether operations may hand these values straight to a kernel (never named, no gradient)."""
        ...

    def read_strided(self, layout: Layout, writeable: bool) -> Buffer: ...

    def read_flat(self, indices: IndexArray) -> Buffer: ...

    def read_one(self, index: int) -> Any: ...

    def write_strided(self, layout: Layout, values: Buffer) -> None: ...

    def write_flat(self, indices: IndexArray, values: Buffer) -> None: ...

    def write_one(self, index: int, value: Any) -> None: ...

    def may_share_memory(self, array: Any) -> bool: ...

    def check_write(self) -> None:
        """Raise if writing into this base now would be wrong."""
        ...

    def note_write(self) -> None:
        """Count one write into this base (through any view)."""
        ...

    @property
    def version(self) -> int:
        """How many writes this base has seen through lazytensor (what `note_write` counts)."""
        ...

    def lazy_values(self, t: Any) -> Any:
        """The lazy (dask) array of the view `t` of this base (AttributeError for other bases)."""
        ...

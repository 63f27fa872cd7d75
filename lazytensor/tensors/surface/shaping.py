"""The view methods: each wraps the tensor in a view class of `views` (transpose, reshape, index...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from lazytensor.ground import keywords, naming
from lazytensor.ground.keywords import UNSET
from lazytensor.ground.positions import as_shape
from lazytensor.tensors.surface.primitives import USER_ERRORS, Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor
    from lazytensor.tensors.views import constructors as view_constructors
    from lazytensor.tensors.views.constructors import OuterIndexer


class Shaping(Surface):
    """Views that change shape or select: `permute`, `reshape`, `t[key]`, `split`, ..., never a copy.

    Primitive: `_views`, the module of view constructors (`tensor.py` binds it: it is the one
    module that imports `views`); `view(dtype)` asks `_reinterpreted`, the storage-level half.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        _views = view_constructors

    def permute(self, *axes: int | Sequence[int]) -> AbstractTensor:
        """Reorder the axes: axis `i` of the result is axis `axes[i]` of this tensor (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return self._views.permute(cast("AbstractTensor", self), as_shape(self._named(axes, "permute")))
        except USER_ERRORS as error:
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
            return self._views.reverse_axes(cast("AbstractTensor", self))
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            axes = self._named(axes, "transpose")
            if len(axes) == 2 and not any(isinstance(axis, Sequence) for axis in axes):
                dim0, dim1 = as_shape(axes)
                return self._views.swapaxes(cast("AbstractTensor", self), dim0, dim1)
            return self._views.permute(cast("AbstractTensor", self), as_shape(axes))
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def _named(self, axes: tuple[Any, ...], what: str) -> tuple[Any, ...]:
        """Axis arguments (one by one, or one sequence) with each name replaced by its axis."""
        if len(axes) == 1 and isinstance(axes[0], Sequence) and not isinstance(axes[0], str):
            return (self._named(tuple(axes[0]), what),)
        if any(isinstance(axis, str) for axis in axes):
            resolved: tuple[Any, ...] = naming.resolve_dims(axes, self, what)
            return resolved
        return axes

    def swapaxes(self, dim0: int, dim1: int) -> AbstractTensor:
        """Swap two axes (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            dim0, dim1 = self._named((dim0, dim1), "swapaxes")
            return self._views.swapaxes(cast("AbstractTensor", self), dim0, dim1)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    @property
    def T(self) -> AbstractTensor:
        """All axes reversed (a view)."""
        return self._views.reverse_axes(cast("AbstractTensor", self))

    @property
    def mT(self) -> AbstractTensor:
        """The last two axes swapped (a view)."""
        if self.ndim < 2:
            raise ValueError(f"mT needs at least 2 axes, got a tensor of shape {self.shape}")
        return self.swapaxes(-2, -1)

    def t(self) -> AbstractTensor:
        """PyTorch's `t()`: a 2-D tensor transposed (a view); a 0-d or 1-D tensor is returned as it is,
        as PyTorch does. More axes raise ValueError (`mT` swaps the last two, `permute` any).

        >>> import lazytensor as lt
        >>> m = lt.arange(6).reshape(2, 3)
        >>> m.t().shape, m.t().shares_storage(m), lt.arange(3).t().shape
        ((3, 2), True, (3,))
        """
        if self.ndim > 2:
            raise ValueError(
                f"t() transposes a tensor of at most 2 axes, not one of shape {self.shape}: "
                "use .mT (the last two swapped) or .permute(...)"
            )
        if self.ndim < 2:
            return cast("AbstractTensor", self)
        return self._views.reverse_axes(cast("AbstractTensor", self))

    def dim(self) -> int:
        """The number of axes (PyTorch's `dim()`, numpy's `ndim`).

        >>> import lazytensor as lt
        >>> lt.zeros(2, 3).dim(), lt.tensor(1.0).dim()
        (2, 0)
        """
        return self.ndim

    def reshape(
        self, *shape: int | Sequence[int], names: Sequence[str | None] | None = None
    ) -> AbstractTensor:
        """The same elements in row-major order under a new shape; one -1 is inferred (a view).
        The axes it leaves alone keep their names; `names` names every axis of the result.

        >>> import lazytensor as lt
        >>> lt.arange(24).reshape(2, 3, 4, names=("trial", "channel", "time")).names
        ('trial', 'channel', 'time')
        """
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            reshaped = self._views.reshape(cast("AbstractTensor", self), as_shape(shape))
            return reshaped if names is None else reshaped.rename(names)
        except USER_ERRORS as error:
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
            except (*USER_ERRORS, RuntimeError) as error:
                raise error.with_traceback(None) from None
        return self.reshape(*shape)  # type: ignore[arg-type]

    def squeeze(self, dim: int | Sequence[int] | None = None) -> AbstractTensor:
        """Drop size-1 axes: all of them, or the ones named (ValueError if one is not size 1)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            if dim is not None and type(dim) is not int:  # ints first: they need no names
                dim = naming.resolve_dims(dim, self, "squeeze")
            return self._views.squeeze(cast("AbstractTensor", self), dim)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def unsqueeze(self, dim: int) -> AbstractTensor:
        """Insert a size-1 axis at `dim` (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            if type(dim) is not int:  # ints first: they need no names
                dim = naming.resolve_dims(dim, self, "unsqueeze")
            return self._views.unsqueeze(cast("AbstractTensor", self), dim)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> AbstractTensor:
        """Merge the axes `start_dim..end_dim` into one (a view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            start_dim, end_dim = self._named((start_dim, end_dim), "flatten")
            return self._views.flatten(cast("AbstractTensor", self), start_dim, end_dim)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def expand(self, *shape: int | Sequence[int]) -> AbstractTensor:
        """Broadcast to a larger shape, -1 keeping a size (a read-only view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return self._views.expand(cast("AbstractTensor", self), as_shape(shape))
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def broadcast_to(self, shape: Sequence[int]) -> AbstractTensor:
        """Broadcast to `shape` by numpy's rules (a read-only view)."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            return self._views.expand(cast("AbstractTensor", self), as_shape((shape,)))
        except USER_ERRORS as error:
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
        chosen = keywords.one_axis("split", self._axis_shape, dim, axis, 0, allow_none=False)
        return self._views.split(cast("AbstractTensor", self), size, chosen)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[AbstractTensor, ...]:
        """At most `chunks` views of equal size (the last may be smaller) along `dim`."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            if type(dim) is not int:  # ints first: they need no names
                dim = naming.resolve_dims(dim, self, "chunk")
            return self._views.chunk(cast("AbstractTensor", self), chunks, dim)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def unbind(self, dim: int = 0) -> tuple[AbstractTensor, ...]:
        """Views of every index along `dim`, that axis removed."""
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            if type(dim) is not int:  # ints first: they need no names
                dim = naming.resolve_dims(dim, self, "unbind")
            return self._views.unbind(cast("AbstractTensor", self), dim)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def slice(self, specs: Sequence[Any]) -> AbstractTensor:
        """The seeds' per-axis selection: None = all, int = that index kept as a size-1 axis,
        list = those indices, slice = a range.

        >>> import lazytensor as lt
        >>> lt.arange(20).reshape(4, 5).slice([[1, 3], slice(0, 5, 2)]).tolist()
        [[5, 7, 9], [15, 17, 19]]
        """
        return self._views.axis_specs_view(cast("AbstractTensor", self), specs)

    @property
    def oindex(self) -> OuterIndexer:
        """Outer indexing: each list selects along its own axis, independently of the others.

        >>> import lazytensor as lt
        >>> lt.arange(12).reshape(3, 4).oindex[[0, 2], [1, 3]].tolist()
        [[1, 3], [9, 11]]
        """
        return self._views.OuterIndexer(cast("AbstractTensor", self))

    def __getitem__(self, key: Any) -> Any:
        """`t[key]` by numpy's rules, always a tensor: a key naming one element gives a 0-d view, as the
        array API standard and PyTorch give (numpy gives a scalar), so an array API client's results stay
        tensors; a 0-d tensor is a number wherever Python takes one. `x[()]` of a 0-d tensor is `x`
        (SciPy ends its functions with `res[()]`); an element of an object tensor is the object, as numpy.

        >>> import lazytensor as lt
        >>> t = lt.arange(3.0)
        >>> u = t[1]
        >>> u, float(u) + 1, u[()] is u
        (tensor(1., dtype=float64), 2.0, True)
        """
        if type(key) is tuple and not key and not self.shape:
            return self
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            if self.dtype.hasobject:
                return self._views.getitem(cast("AbstractTensor", self), key)
            return self._views.index_view(cast("AbstractTensor", self), key)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None

    def __setitem__(self, key: Any, value: Any) -> None:
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            self._views.setitem(cast("AbstractTensor", self), key, value)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None


def _is_dtype_argument(arg: Any) -> bool:
    """Whether the one argument of `t.view(arg)` names a dtype (numpy's meaning) rather than a shape."""
    if isinstance(arg, str | np.dtype | type):
        return True
    return hasattr(arg, "dtype") and not hasattr(arg, "shape")

"""numpy's array methods: sorting, rolling, `nonzero`, and the names a numpy user types (`copy`,
`ravel`, `fill`, `dot`, `take`, `put`, `diagonal`, `trace`, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

import lazytensor.tensors.evaluate as evaluate
from lazytensor.engine import optable
from lazytensor.ground import find_nonzero, keywords
from lazytensor.ground.keywords import UNSET
from lazytensor.tensors.surface.primitives import Dims, Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor, StorageTensor
    from lazytensor.tensors.views import constructors as view_constructors


class ArrayMethods(Surface):
    """numpy's names for what a numpy user types, on a tensor.

    Primitive: `_apply`, which runs one entry of the table (`tensor.apply`).
    """

    __slots__ = ()

    if TYPE_CHECKING:
        _views = view_constructors

    # -- sorting, flipping, rolling, nonzero -------------------------------------------------------

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
        params = keywords.sorting(
            "sort", self._axis_shape, dim, axis, kind, stable, descending, in_place=True
        )
        self._check_in_place("sort", cast("AbstractTensor", self))
        evaluate.write(cast("AbstractTensor", self), self._apply(optable.SORT, self, **params).numpy())

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
        params = keywords.sorting("argsort", self._axis_shape, dim, axis, kind, stable, descending)
        return self._apply(optable.ARGSORT, self, **params)

    def flip(
        self, dim: int | Sequence[int] | None = UNSET, *, axis: int | Sequence[int] | None = UNSET
    ) -> AbstractTensor:
        """The order of the elements reversed along `dim` or `axis` (None: every axis): a view, `t[::-1]`.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> t.flip(1).tolist(), t.flip().tolist(), type(t.flip(axis=0)).__name__
        ([[2, 1, 0], [5, 4, 3]], [[5, 4, 3], [2, 1, 0]], 'SlicedTensor')
        """
        return self._views.flip(
            cast("AbstractTensor", self), keywords.axes("flip", self._axis_shape, dim, axis)
        )

    def roll(self, shift: int | Sequence[int], dim: Dims = UNSET, *, axis: Dims = UNSET) -> StorageTensor:
        """The elements shifted by `shift` along `dim` or `axis` (None: over the values flattened),
        those pushed past the end coming back at the start: numpy's `roll`, PyTorch's `roll`;
        differentiable.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> t.roll(1, axis=1).tolist(), t.roll(1).tolist()
        ([[2, 0, 1], [5, 3, 4]], [[5, 0, 1], [2, 3, 4]])
        """
        params = keywords.rolling("roll", self._axis_shape, shift, dim, axis)
        return self._apply(optable.ROLL, self, **params)

    def nonzero(self) -> tuple[StorageTensor, ...]:
        """The indices of the elements that are not zero, one int tensor per axis (numpy's `nonzero`).

        >>> import lazytensor as lt
        >>> [i.tolist() for i in lt.tensor([[0, 3], [4, 0]]).nonzero()]
        [[0, 1], [1, 0]]
        """
        if self.ndim == 0:
            raise ValueError("nonzero of a 0-d tensor: index it as t[None] first, as numpy asks")
        return tuple(self.fresh_storage(i) for i in find_nonzero.nonzero(self.numpy()))

    # -- numpy's names for what a numpy user types -------------------------------------------------

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
        return self._apply(optable.COPY, self)

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
        keywords.scalar_value("fill", self.shape, value, ValueError)
        self._check_in_place("fill", cast("AbstractTensor", self))
        evaluate.write(cast("AbstractTensor", self), value)

    def dot(self, other: Any) -> StorageTensor:
        """numpy's `a.dot(b)`: the matrix product for 1-D and 2-D operands, the product with a 0-d one.

        >>> import lazytensor as lt
        >>> m = lt.tensor([[1, 2], [3, 4]])
        >>> m.dot(lt.tensor([1, 1])).tolist(), m.dot(2).tolist()
        ([3, 7], [[2, 4], [6, 8]])
        """
        other_ndim = keywords.dot_operands("dot", self.shape, other)
        if self.ndim == 0 or other_ndim == 0:
            return self._apply(optable.MUL, self, other)
        return self._apply(optable.MATMUL, self, other)

    def repeat(self, repeats: int | Sequence[int], axis: int | None = None) -> StorageTensor:
        """Each element repeated `repeats` times along `axis` (None: flattened first), numpy's
        `a.repeat`; differentiable.

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2]).repeat(2).tolist(), lt.tensor([[1, 2]]).repeat([1, 2], axis=1).tolist()
        ([1, 1, 2, 2], [[1, 2, 2]])
        """
        params = keywords.repeating("repeat", self._axis_shape, repeats, axis)
        if params["axis"] is None:  # numpy flattens first
            return self._apply(optable.REPEAT, self.reshape(-1), repeats=params["repeats"], axis=0)
        return self._apply(optable.REPEAT, self, **params)

    def tile(self, reps: int | Sequence[int]) -> StorageTensor:
        """The tensor repeated `reps` times along each axis (numpy's `np.tile`, PyTorch's `t.tile`);
        differentiable.

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2]).tile(2).tolist(), lt.tensor([1, 2]).tile((2, 1)).tolist()
        ([1, 2, 1, 2], [[1, 2], [1, 2]])
        """
        return self._apply(optable.TILE, self, repetitions=keywords.counts("tile", reps))

    def take(self, indices: Any, axis: int | None = None) -> AbstractTensor:
        """The elements at `indices` along `axis` (None: of the values flattened), numpy's `a.take`:
        a copy (indexing `t[..., indices]` is the write-through view); differentiable.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 2], [3, 4]])
        >>> t.take([3, 0]).tolist(), t.take([1], axis=1).tolist()
        ([4, 1], [[2], [4]])
        """
        if axis is not None:  # an axis by name is its number from here on
            axis = keywords.single_axis(axis, self._axis_shape, "take")
        index = keywords.indices("take", self.shape, self._values_of(indices), axis)
        taken = self._apply(optable.TAKE, self, index.reshape(-1), axis=axis)  # the entry takes 1-D indices
        if index.ndim == 1:
            return taken
        if axis is None:
            return taken.reshape(index.shape)
        along = axis % self.ndim
        return taken.reshape((*self.shape[:along], *index.shape, *self.shape[along + 1 :]))

    def index_select(self, dim: int, index: Any) -> StorageTensor:
        """PyTorch's `index_select`: the entries at `index` (integers, one axis) along `dim`, in a new
        tensor (a copy, as PyTorch's: `t[:, index]` is the write-through view); differentiable.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 2, 3], [4, 5, 6]])
        >>> t.index_select(1, [2, 0]).tolist(), t.index_select(0, lt.tensor([1])).tolist()
        ([[3, 1], [6, 4]], [[4, 5, 6]])
        """
        axis = keywords.single_axis(dim, self._axis_shape, "index_select")
        given = np.asarray(self._values_of(index))
        if given.ndim > 1:
            raise IndexError(f"index_select takes a 1-D index, got one of shape {given.shape}")
        picked = keywords.indices("index_select", self.shape, given.reshape(-1), axis)
        return self._apply(optable.TAKE, self, picked, axis=axis)

    def put(self, indices: Any, values: Any) -> None:
        """Write `values` at the flat (row-major) `indices`, numpy's `a.put`: values repeat when
        fewer than the indices; through a view the writes reach storage.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t.put([0, 3], 5.0)
        >>> t.tolist()
        [[5.0, 0.0], [0.0, 5.0]]
        """
        index = keywords.indices("put", (self.numel(),), self._values_of(indices), None)
        given = np.asarray(self._values_of(values)).reshape(-1)
        if index.size and not given.size:
            raise ValueError(f"put: no values to write at {index.size} indices")
        repeated = np.resize(given, index.shape) if index.size else given[:0]
        self._check_in_place("put", cast("AbstractTensor", self))
        self.reshape(-1)[index] = repeated

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> AbstractTensor:
        """The diagonal `offset` of the planes spanned by `axis1` and `axis2`, as the last axis:
        numpy's `a.diagonal`, here a write-through view (numpy's is read-only).

        >>> import lazytensor as lt
        >>> t = lt.arange(9).reshape(3, 3)
        >>> t.diagonal().tolist(), t.diagonal(1).tolist()
        ([0, 4, 8], [1, 5])
        """
        first, second = keywords.diagonal_axes("diagonal", self._axis_shape, axis1, axis2)
        rows, columns = self.shape[first], self.shape[second]
        length = max(0, min(rows, columns - offset) if offset >= 0 else min(rows + offset, columns))
        start_row, start_column = (0, offset) if offset >= 0 else (-offset, 0)
        steps = np.arange(length)
        planes = self.permute(*(a for a in range(self.ndim) if a not in (first, second)), first, second)
        return self._views.index_view(planes, (..., steps + start_row, steps + start_column))

    def trace(
        self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: npt.DTypeLike | None = None
    ) -> AbstractTensor:
        """The sum of a diagonal (numpy's `a.trace`); differentiable.

        >>> import lazytensor as lt
        >>> lt.arange(9).reshape(3, 3).trace().item()
        12
        """
        return self.diagonal(offset, axis1, axis2).sum(-1, dtype=dtype)

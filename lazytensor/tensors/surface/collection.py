"""The dask collection protocol: a tensor over a dask base (or any base not in memory) is a dask
collection, its base doing the work; `to_dask()` hands any tensor to dask."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from lazytensor.ground.once import once
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor


class DaskCollection(Surface):
    """dask's `__dask_*__` protocol and `compute()`.

    Primitive: `base`, the protocol's base of the stack, which builds the lazy array (`lazy_values`).
    """

    __slots__ = ()

    def compute(self) -> AbstractTensor:
        """The values in memory, as a storage tensor (a tensor already in memory is returned as it is).

        >>> import lazytensor as lt
        >>> t = lt.arange(3)
        >>> t.compute() is t
        True
        """
        return self.base.computed(cast("AbstractTensor", self))

    def to_dask(self) -> Any:
        """This tensor as a dask array: a dask base's own graph; a tensor not in memory (a store, a
        file, a computed tensor) one task per block it reads in; one in memory, one chunk of its values.

        >>> import lazytensor as lt
        >>> lt.arange(4).to_dask().sum().compute()
        np.int64(6)
        """
        if self.base.defers_operations:
            return self._lazy_values
        import dask.array as da  # dask is optional: asked for here only

        return da.from_array(self.numpy(), chunks=-1)  # type: ignore[no-untyped-call]

    @once
    def _lazy_values(self) -> Any:
        """The lazy (dask) array of this view of a deferring base, built once."""
        return self.base.lazy_values(cast("AbstractTensor", self))

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

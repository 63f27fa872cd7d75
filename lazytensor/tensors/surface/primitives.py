"""`Surface`, the root of the surface mixins: the primitives they name, which the tensors floor binds
on `AbstractTensor`, and (for the type checker) the members of the tensor protocol they use."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from lazytensor.engine.optable import Op
    from lazytensor.ground.layout import Layout
    from lazytensor.ground.positions import Shape
    from lazytensor.tensors.tensor import AbstractTensor, BaseTensor, Buffer, StorageTensor
    from lazytensor.tensors.views import constructors as view_constructors

Dims = int | Sequence[int] | None
"""The axes of a reduction: one, several, or None for all."""

USER_ERRORS = (TypeError, ValueError, IndexError)
"""What a kernel or a view raises about its operands (shapes, dtypes, indices): shown from the door
the user called (`t + u`, `t.sum()`, `t.reshape(7)`), not from inside the kernel."""


class Surface:
    """What every surface mixin may ask of the tensor it is mixed into. The primitives are declared
    here; `_values_of` and `_is_tensor` are defined on `AbstractTensor`, and the rest, which live in
    the modules that build on the tensor classes, are bound on it by `lazytensor/tensors/__init__.py`
    (`PRIMITIVES`). Being the last base of every mixin, nothing here ever shadows a real method."""

    __slots__ = ()

    @staticmethod
    @abc.abstractmethod
    def _values_of(x: Any) -> Any:
        """The numpy values of an operand (a tensor read, a list as an array, a scalar as it is)."""

    @staticmethod
    @abc.abstractmethod
    def _is_tensor(x: Any) -> bool:
        """Whether `x` is a tensor."""

    if TYPE_CHECKING:  # bound on `AbstractTensor` when the tensors floor is assembled
        _views = view_constructors
        """The view constructors (`lazytensor.tensors.views.constructors`)."""

        @staticmethod
        def _apply(entry: Op, /, *operands: Any, **params: Any) -> StorageTensor:
            """Run one entry of the operation table on the operands, recording it for backward."""

        @staticmethod
        def _check_in_place(name: str, target: AbstractTensor, *operands: Any) -> None:
            """Refuse a write through `target` that cannot reach storage or would break a gradient."""

        @staticmethod
        def _array_ufunc(
            ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]
        ) -> Any:
            """numpy's `__array_ufunc__` on tensors."""

        @staticmethod
        def _array_function(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            """numpy's `__array_function__` on tensors."""

        def _whole_sum(self) -> StorageTensor | None:
            """`t.sum()` in one numpy call when its values are in memory and no gradient watches, else
            None (bound as a method, not a static one: no cast of `self` on the way)."""

    if TYPE_CHECKING:  # the protocol's members the mixins use, implemented by AbstractTensor

        @property
        def shape(self) -> Shape: ...
        @property
        def _axis_shape(self) -> Shape: ...
        @property
        def names(self) -> tuple[str | None, ...]: ...
        @property
        def ndim(self) -> int: ...
        @property
        def dtype(self) -> np.dtype[Any]: ...
        @property
        def base(self) -> BaseTensor: ...
        @property
        def layout(self) -> Layout | None: ...
        @property
        def layer_name(self) -> str: ...
        @property
        def requires_grad(self) -> bool: ...
        @property
        def _fused_values(self) -> Buffer | None: ...
        def numel(self) -> int: ...
        def numpy(self) -> Buffer: ...
        def values(self) -> Buffer: ...
        def item(self) -> Any: ...
        def clone(self) -> StorageTensor: ...
        def astype(self, dtype: npt.DTypeLike, *, copy: bool = True) -> AbstractTensor: ...
        @staticmethod
        def fresh_storage(values: Buffer) -> StorageTensor: ...
        def _reinterpreted(self, dtype: npt.DTypeLike) -> AbstractTensor: ...
        def reshape(
            self, *shape: int | Sequence[int], names: Sequence[str | None] | None = None
        ) -> AbstractTensor: ...
        def permute(self, *axes: int | Sequence[int]) -> AbstractTensor: ...
        def round(self, decimals: int = 0) -> StorageTensor: ...
        def clip(self, min: Any = ..., max: Any = ..., *, lo: Any = ..., hi: Any = ...) -> StorageTensor: ...

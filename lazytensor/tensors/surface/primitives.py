"""`Surface`, the root of the surface mixins: the primitives they name, which `tensor.py` binds on
`AbstractTensor`, and (for the type checker) the members of the tensor protocol they use."""

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
    from lazytensor.tensors import views as view_constructors
    from lazytensor.tensors.tensor import AbstractTensor, BaseTensor, Buffer, StorageTensor

Dims = int | Sequence[int] | None
"""The axes of a reduction: one, several, or None for all."""

USER_ERRORS = (TypeError, ValueError, IndexError)
"""What a kernel or a view raises about its operands (shapes, dtypes, indices): shown from the door
the user called (`t + u`, `t.sum()`, `t.reshape(7)`), not from inside the kernel."""


class Surface:
    """What every surface mixin may ask of the tensor it is mixed into. The primitives are declared
    here and bound on `AbstractTensor` in `tensor.py`; being the last base of every mixin, nothing
    here ever shadows a real method."""

    __slots__ = ()

    if TYPE_CHECKING:
        _views = view_constructors
        """The view constructors (`lazytensor.tensors.views`), bound on `AbstractTensor` where imported."""

    @staticmethod
    @abc.abstractmethod
    def _apply(entry: Op, /, *operands: Any, **params: Any) -> StorageTensor:
        """Run one entry of the operation table on the operands, recording it for backward."""

    @staticmethod
    @abc.abstractmethod
    def _values_of(x: Any) -> Any:
        """The numpy values of an operand (a tensor read, a list as an array, a scalar as it is)."""

    @staticmethod
    @abc.abstractmethod
    def _is_tensor(x: Any) -> bool:
        """Whether `x` is a tensor."""

    @staticmethod
    @abc.abstractmethod
    def _check_in_place(name: str, target: AbstractTensor, *operands: Any) -> None:
        """Refuse a write through `target` that cannot reach storage or would break a gradient."""

    @abc.abstractmethod
    def _whole_sum(self) -> StorageTensor | None:
        """`t.sum()` in one numpy call when its values are in memory and no gradient watches, else None
        (bound as a method, not a static one: no cast of `self` on the way)."""

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
        @staticmethod
        def fresh_storage(values: Buffer) -> StorageTensor: ...
        def _reinterpreted(self, dtype: npt.DTypeLike) -> AbstractTensor: ...
        def reshape(
            self, *shape: int | Sequence[int], names: Sequence[str | None] | None = None
        ) -> AbstractTensor: ...
        def permute(self, *axes: int | Sequence[int]) -> AbstractTensor: ...
        def round(self, decimals: int = 0) -> StorageTensor: ...
        def clip(self, lo: Any = None, hi: Any = None) -> StorageTensor: ...

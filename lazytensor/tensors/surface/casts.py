"""PyTorch's casts by name: `t.float()`, `t.double()`, `t.half()`, `t.long()`, `t.int()`, `t.bool()`.

A mixin of its own because its method names are builtins' (`int`, `float`, `bool`): inside this class
body those names are the methods, so no annotation here may name the builtin types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lazytensor.engine import optable
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor


class Casts(Surface):
    """`t.float()` is `t.astype(float32)`, and so on, as PyTorch's: the tensor itself when it already
    has that dtype, else a new tensor that keeps the gradient (a cast to a floating dtype passes it
    back).

    Primitive: `_apply`, which runs one entry of the table (`tensor.apply`).
    """

    __slots__ = ()

    def _cast(self, dtype: type[np.generic]) -> AbstractTensor:
        """This tensor when it already has `dtype` (PyTorch's `t.to(dtype)`), else the cast: by the table
        to a floating dtype (the gradient passes back), a plain copy to any other (no gradient, as
        PyTorch's integer and bool tensors have none)."""
        target = np.dtype(dtype)
        if self.dtype == target:
            return self  # type: ignore[return-value]  # a mixin of AbstractTensor
        if target.kind == "f":
            return self._apply(optable.ASTYPE, self, dtype=target)
        return self.astype(target)

    def float(self) -> AbstractTensor:
        """The values as float32 (PyTorch's `float()`: its default float is numpy's single).

        >>> import lazytensor as lt
        >>> f = lt.tensor([1, 2]).float()
        >>> f.dtype, f.float() is f
        (dtype('float32'), True)
        """
        return self._cast(np.float32)

    def double(self) -> AbstractTensor:
        """The values as float64.

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2]).double().dtype
        dtype('float64')
        """
        return self._cast(np.float64)

    def half(self) -> AbstractTensor:
        """The values as float16.

        >>> import lazytensor as lt
        >>> lt.tensor([1.5]).half().dtype
        dtype('float16')
        """
        return self._cast(np.float16)

    def long(self) -> AbstractTensor:
        """The values as int64 (floats truncated toward zero, as numpy's and PyTorch's casts).

        >>> import lazytensor as lt
        >>> lt.tensor([1.7, -2.7]).long().tolist()
        [1, -2]
        """
        return self._cast(np.int64)

    def int(self) -> AbstractTensor:
        """The values as int32 (PyTorch's `int()`; `int(t)` of a one-element tensor is Python's int).

        >>> import lazytensor as lt
        >>> lt.tensor([1.7, 3.0]).int().dtype, int(lt.tensor([1.7]))
        (dtype('int32'), 1)
        """
        return self._cast(np.int32)

    def bool(self) -> AbstractTensor:
        """Whether each value is non-zero, as a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([0.0, 2.0]).bool().tolist()
        [False, True]
        """
        return self._cast(np.bool_)

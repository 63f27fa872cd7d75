"""In-place operators and PyTorch's in-place methods: the result computed, then written through the
tensor to storage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self, cast

import numpy as np

import lazytensor.tensors.evaluate as evaluate
from lazytensor.engine import optable
from lazytensor.engine.optable import Op
from lazytensor.ground import keywords
from lazytensor.tensors.surface.operators import checked_mask
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor


class InPlace(Surface):
    """`t += x`, ..., `add_`, `clamp_`, `zero_`, `copy_`: computed, then written through every layer.

    Primitive: `_apply`, which runs one entry of the table (`tensor.apply`); the write is
    `evaluate`'s, refused first by `_check_in_place`.
    """

    __slots__ = ()

    @keywords.user_error  # what goes wrong here is the operands': the traceback ends at the user's line
    def _inplace(self, entry: Op, other: Any) -> Self:
        """`self op= other`: check, compute by the table's entry, write through every layer to
        storage (numpy's `same_kind` casting, the result's shape must be ours), return `self`. Every
        entry an in-place operator runs is a ufunc's: numpy's messages say its name (`'divide'`)."""
        self._check_in_place(entry.name, cast("AbstractTensor", self), other)
        result = self._apply(entry, self, other)
        evaluate.write_result(cast("AbstractTensor", self), result.numpy(), optable.NUMPY_NAMES[entry.name])
        return self

    # -- in-place operators: the result computed, then written through this tensor -----------------

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

    # -- PyTorch's in-place methods: computed, then written through this tensor --------------------

    def add_(self, other: Any, *, alpha: Any = 1) -> Self:
        """`t += alpha * other`, written through (PyTorch's `add_`); a leaf that requires grad only
        under `lt.no_grad()`.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2)
        >>> t.add_(1).mul_(3).sub_(1, alpha=2).tolist()
        [1.0, 1.0]
        """
        return self._inplace(optable.ADD, other if alpha == 1 else self._apply(optable.MUL, other, alpha))

    def sub_(self, other: Any, *, alpha: Any = 1) -> Self:
        """`t -= alpha * other`, written through."""
        return self._inplace(optable.SUB, other if alpha == 1 else self._apply(optable.MUL, other, alpha))

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
        self._check_in_place("clamp_", cast("AbstractTensor", self))
        evaluate.write_result(cast("AbstractTensor", self), self.clip(min, max).numpy(), "clip")
        return self

    clip_ = clamp_

    def masked_fill_(self, mask: Any, value: Any) -> Self:
        """`value` written where the boolean `mask` (broadcast to this shape) is true, through every
        layer to storage (PyTorch's `masked_fill_`); returns this tensor.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3)
        >>> t[:, 1:].masked_fill_(lt.tensor([True, False]), 5.0).tolist()
        [[5.0, 0.0], [5.0, 0.0]]
        >>> t.tolist()
        [[0.0, 5.0, 0.0], [0.0, 5.0, 0.0]]
        """
        fill = np.asarray(self._values_of(value), dtype=self.dtype)
        condition = checked_mask(self.shape, self._values_of(mask), fill)
        self._check_in_place("masked_fill_", cast("AbstractTensor", self))
        target = cast("AbstractTensor", self)
        target[np.broadcast_to(condition, self.shape)] = fill  # only the masked positions are written
        return self

    def fill_(self, value: Any) -> Self:
        """Every element set to `value`, written through; returns this tensor (PyTorch's `fill_`)."""
        keywords.scalar_value("fill_", self.shape, value)
        self._check_in_place("fill_", cast("AbstractTensor", self))
        evaluate.write(cast("AbstractTensor", self), value)
        return self

    def zero_(self) -> Self:
        """Every element set to 0, written through: `w.grad.zero_()` between steps, as in PyTorch.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> (w * 3).sum().backward()
        >>> w.grad.zero_().tolist()
        [0.0, 0.0]
        """
        self._check_in_place("zero_", cast("AbstractTensor", self))
        evaluate.write(cast("AbstractTensor", self), 0)
        return self

    def copy_(self, source: Any) -> Self:
        """`source` (broadcast, cast to this dtype) written into every element (PyTorch's `copy_`).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 2)
        >>> t[0].copy_([1, 2]).tolist(), t.tolist()
        ([1.0, 2.0], [[1.0, 2.0], [0.0, 0.0]])
        """
        self._check_in_place("copy_", cast("AbstractTensor", self), source)
        evaluate.write(cast("AbstractTensor", self), self._values_of(source))
        return self

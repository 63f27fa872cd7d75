"""The operators and elementwise functions: each one entry of the operation table, applied."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from lazytensor.engine import optable
from lazytensor.ground import keywords
from lazytensor.ground.keywords import UNSET
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    from lazytensor.ground.positions import Shape
    from lazytensor.tensors.tensor import StorageTensor


class Operators(Surface):
    """`+`, `*`, `@`, comparisons, `exp`, `relu`, `isnan`, `round`, `gather`, ...: each `_apply` of one
    entry of `optable`.

    Primitive: `_apply`, which runs one entry of the table (`tensor.apply`).
    """

    __slots__ = ()

    # -- operators: each one entry of the table, applied -------------------------------------------

    def __add__(self, other: Any) -> StorageTensor:
        return self._apply(optable.ADD, self, other)

    def __radd__(self, other: Any) -> StorageTensor:
        return self._apply(optable.ADD, other, self)

    def __sub__(self, other: Any) -> StorageTensor:
        return self._apply(optable.SUB, self, other)

    def __rsub__(self, other: Any) -> StorageTensor:
        return self._apply(optable.SUB, other, self)

    def __mul__(self, other: Any) -> StorageTensor:
        return self._apply(optable.MUL, self, other)

    def __rmul__(self, other: Any) -> StorageTensor:
        return self._apply(optable.MUL, other, self)

    def __truediv__(self, other: Any) -> StorageTensor:
        return self._apply(optable.TRUEDIV, self, other)

    def __rtruediv__(self, other: Any) -> StorageTensor:
        return self._apply(optable.TRUEDIV, other, self)

    def __floordiv__(self, other: Any) -> StorageTensor:
        return self._apply(optable.FLOORDIV, self, other)

    def __rfloordiv__(self, other: Any) -> StorageTensor:
        return self._apply(optable.FLOORDIV, other, self)

    def __mod__(self, other: Any) -> StorageTensor:
        return self._apply(optable.MOD, self, other)

    def __rmod__(self, other: Any) -> StorageTensor:
        return self._apply(optable.MOD, other, self)

    def __pow__(self, other: Any) -> StorageTensor:
        return self._apply(optable.POWER, self, other)

    def __rpow__(self, other: Any) -> StorageTensor:
        return self._apply(optable.POWER, other, self)

    def __matmul__(self, other: Any) -> StorageTensor:
        return self._apply(optable.MATMUL, self, other)

    def __rmatmul__(self, other: Any) -> StorageTensor:
        return self._apply(optable.MATMUL, other, self)

    def __and__(self, other: Any) -> StorageTensor:
        return self._apply(optable.AND, self, other)

    def __rand__(self, other: Any) -> StorageTensor:
        return self._apply(optable.AND, other, self)

    def __or__(self, other: Any) -> StorageTensor:
        return self._apply(optable.OR, self, other)

    def __ror__(self, other: Any) -> StorageTensor:
        return self._apply(optable.OR, other, self)

    def __xor__(self, other: Any) -> StorageTensor:
        return self._apply(optable.XOR, self, other)

    def __rxor__(self, other: Any) -> StorageTensor:
        return self._apply(optable.XOR, other, self)

    def __lshift__(self, other: Any) -> StorageTensor:
        return self._apply(optable.LSHIFT, self, other)

    def __rlshift__(self, other: Any) -> StorageTensor:
        return self._apply(optable.LSHIFT, other, self)

    def __rshift__(self, other: Any) -> StorageTensor:
        return self._apply(optable.RSHIFT, self, other)

    def __rrshift__(self, other: Any) -> StorageTensor:
        return self._apply(optable.RSHIFT, other, self)

    def __neg__(self) -> StorageTensor:
        return self._apply(optable.NEG, self)

    def __pos__(self) -> StorageTensor:
        return self._apply(optable.POS, self)

    def __abs__(self) -> StorageTensor:
        return self._apply(optable.ABS, self)

    def __invert__(self) -> StorageTensor:
        return self._apply(optable.INVERT, self)

    def __eq__(self, other: object) -> StorageTensor:  # type: ignore[override]
        """Elementwise `==`, a bool tensor (so tensors are unhashable, as numpy arrays are)."""
        return self._apply(optable.EQ, self, other)

    def __ne__(self, other: object) -> StorageTensor:  # type: ignore[override]
        return self._apply(optable.NE, self, other)

    def __lt__(self, other: Any) -> StorageTensor:
        return self._apply(optable.LT, self, other)

    def __le__(self, other: Any) -> StorageTensor:
        return self._apply(optable.LE, self, other)

    def __gt__(self, other: Any) -> StorageTensor:
        return self._apply(optable.GT, self, other)

    def __ge__(self, other: Any) -> StorageTensor:
        return self._apply(optable.GE, self, other)

    __hash__ = None  # type: ignore[assignment]

    def matmul(self, other: Any) -> StorageTensor:
        """The matrix product, `self @ other`, with numpy's rules."""
        return self._apply(optable.MATMUL, self, other)

    # -- elementwise functions ---------------------------------------------------------------------

    def exp(self) -> StorageTensor:
        """`e ** x` elementwise (Decimals keep their precision)."""
        return self._apply(optable.EXP, self)

    def log(self) -> StorageTensor:
        """The natural logarithm elementwise."""
        return self._apply(optable.LOG, self)

    def sqrt(self) -> StorageTensor:
        """The square root elementwise."""
        return self._apply(optable.SQRT, self)

    def tanh(self) -> StorageTensor:
        """The hyperbolic tangent elementwise."""
        return self._apply(optable.TANH, self)

    def sigmoid(self) -> StorageTensor:
        """`1 / (1 + exp(-x))` elementwise, without overflow."""
        return self._apply(optable.SIGMOID, self)

    def relu(self) -> StorageTensor:
        """`max(x, 0)` elementwise."""
        return self._apply(optable.RELU, self)

    def abs(self) -> StorageTensor:
        """`abs(x)` elementwise (the modulus for complex numbers)."""
        return self._apply(optable.ABS, self)

    def clip(self, min: Any = UNSET, max: Any = UNSET, *, lo: Any = UNSET, hi: Any = UNSET) -> StorageTensor:
        """Every element limited to `[min, max]` (None: that side open): numpy's `a.clip(min, max)`,
        positional or by keyword; `lo=`/`hi=` are the same two arguments.

        >>> import lazytensor as lt
        >>> v = lt.tensor([1, 2, 3, 4])
        >>> v.clip(2, 3).tolist(), v.clip(min=2).tolist(), v.clip(max=2).tolist()
        ([2, 2, 3, 3], [2, 2, 3, 4], [1, 2, 2, 2])
        """
        low = keywords.either("clip", ("min", "lo"), (min, lo), None)
        high = keywords.either("clip", ("max", "hi"), (max, hi), None)
        return self._apply(optable.CLIP, self, lo=self._values_of(low), hi=self._values_of(high))

    def clamp(self, min: Any = None, max: Any = None) -> StorageTensor:
        """PyTorch's name for `clip`: every element limited to `[min, max]` (None: that side open).

        >>> import lazytensor as lt
        >>> lt.tensor([-2.0, 0.5, 3.0]).clamp(min=0).tolist()
        [0.0, 0.5, 3.0]
        """
        return self._apply(optable.CLIP, self, lo=self._values_of(min), hi=self._values_of(max))

    def masked_fill(self, mask: Any, value: Any) -> StorageTensor:
        """A new tensor with `value` where the boolean `mask` (broadcast to this shape) is true, this
        tensor's values elsewhere, in this tensor's dtype (PyTorch's `masked_fill`); differentiable.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> t.masked_fill(t > 2, 0.0).tolist(), t.masked_fill(lt.tensor([True, False]), -1).tolist()
        ([[1.0, 2.0], [0.0, 0.0]], [[-1.0, 2.0], [-1.0, 4.0]])
        """
        same = self._is_tensor(value) and value.dtype == self.dtype  # kept: its gradient flows
        fill = value if same else np.asarray(self._values_of(value), dtype=self.dtype)
        condition = checked_mask(self.shape, self._values_of(mask), fill)
        return self._apply(optable.WHERE, condition, fill, self)

    def softmax(self, dim: int = UNSET, *, axis: int = UNSET) -> StorageTensor:
        """`exp(x) / sum(exp(x))` along `dim` (or scipy's `axis`), numerically stable."""
        chosen = keywords.one_axis("softmax", self._axis_shape, dim, axis, None, allow_none=False)
        return self._apply(optable.SOFTMAX, self, dim=chosen)

    def log_softmax(self, dim: int = UNSET, *, axis: int = UNSET) -> StorageTensor:
        """`log(softmax(x))` along `dim` (or `axis`), numerically stable."""
        chosen = keywords.one_axis("log_softmax", self._axis_shape, dim, axis, None, allow_none=False)
        return self._apply(optable.LOG_SOFTMAX, self, dim=chosen)

    def gather(self, dim: int, index: Any) -> StorageTensor:
        """PyTorch's gather: `out[i][j] = self[index[i][j]][j]` for dim 0."""
        return self._apply(optable.GATHER, self, index, dim=dim)

    def index_add(self, dim: int, index: Any, source: Any) -> StorageTensor:
        """A copy with `source` slices added at `index` along `dim`, repeats accumulating."""
        return self._apply(optable.INDEX_ADD, self, index, source, dim=dim)

    def scatter_add(self, dim: int, index: Any, source: Any) -> StorageTensor:
        """A copy with `source[i][j]` added to `out[index[i][j]][j]` for dim 0, repeats accumulating."""
        return self._apply(optable.SCATTER_ADD, self, index, source, dim=dim)

    # -- rounding and NaN tests --------------------------------------------------------------------

    def round(self, decimals: int = 0) -> StorageTensor:
        """Every element rounded to `decimals` places, halves to even (numpy's `round`).

        >>> import lazytensor as lt
        >>> lt.tensor([0.5, 1.5, 1.2345]).round().tolist(), lt.tensor([1.2345]).round(2).tolist()
        ([0.0, 2.0, 1.0], [1.23])
        """
        return self._apply(optable.ROUND, self, decimals=decimals)

    def isnan(self) -> StorageTensor:
        """Whether each element is NaN: a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan")]).isnan().tolist()
        [False, True]
        """
        return self._apply(optable.ISNAN, self)

    def isinf(self) -> StorageTensor:
        """Whether each element is infinite: a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("-inf")]).isinf().tolist()
        [False, True]
        """
        return self._apply(optable.ISINF, self)

    def isfinite(self) -> StorageTensor:
        """Whether each element is neither NaN nor infinite: a bool tensor.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), float("inf")]).isfinite().tolist()
        [True, False, False]
        """
        return self._apply(optable.ISFINITE, self)


@keywords.user_error  # the mask's or the value's fault: the traceback ends at the caller's line
def checked_mask(shape: Shape, mask: Any, value: Any) -> npt.NDArray[np.bool_]:
    """`masked_fill`'s (and `masked_fill_`'s) mask, boolean and broadcasting to `shape` without growing
    it, once its value is known to be one element."""
    if value.shape != ():
        raise ValueError(f"masked_fill takes one value (0-d), got one of shape {value.shape}")
    condition = np.asarray(mask)
    if condition.dtype != np.bool_:
        raise TypeError(f"masked_fill: the mask must be boolean, got dtype {condition.dtype}")
    try:
        grown = np.broadcast_shapes(condition.shape, shape)
    except ValueError:
        grown = None
    if grown != shape:
        raise ValueError(
            f"masked_fill: a mask of shape {condition.shape} does not broadcast to shape {shape}"
        )
    return condition

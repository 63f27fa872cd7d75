"""The operators and elementwise functions: each one entry of the operation table, applied."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lazytensor.engine import optable
from lazytensor.ground import keywords
from lazytensor.ground.keywords import UNSET
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
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

    def clip(self, lo: Any = None, hi: Any = None) -> StorageTensor:
        """Every element limited to `[lo, hi]` (None: that side open)."""
        return self._apply(optable.CLIP, self, lo=self._values_of(lo), hi=self._values_of(hi))

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

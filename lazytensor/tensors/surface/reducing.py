"""The reductions and running sums: `sum`, `mean`, `max`, `argmax`, `std`, the NaN-ignoring ones,
`cumsum`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy.typing as npt

import lazytensor.tensors.evaluate as evaluate
from lazytensor.engine import optable
from lazytensor.engine.optable import Op
from lazytensor.ground import keywords
from lazytensor.ground.keywords import UNSET
from lazytensor.tensors.surface.primitives import Dims, Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor


class Reductions(Surface):
    """Reductions over `dim` (numpy's `axis`, `keepdims`, `dtype`, `out` too) and scans.

    Primitive: `_apply`, which runs one entry of the table (`tensor.apply`).
    """

    __slots__ = ()

    def _reduced(self, op: Op, call: keywords.Call) -> AbstractTensor:
        """A checked reduction or scan applied, its result written into `out` when one was given
        (numpy's casting for `out=`), as numpy returns `out`."""
        result = self._apply(op, self, **call.params)
        if call.out is None:
            return result
        self._check_in_place(f"{op.name}(out=...)", call.out)
        evaluate.write(call.out, result.numpy())
        return call.out  # type: ignore[no-any-return]

    # -- reductions --------------------------------------------------------------------------------

    def sum(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The sum over `dim` (None: all axes); numpy's `axis=`, `keepdims=`, `dtype=` and `out=` too.

        >>> import lazytensor as lt
        >>> t = lt.arange(6).reshape(2, 3)
        >>> t.sum(1).tolist(), t.sum(axis=0, keepdims=True).tolist(), t.sum(dtype="float32").dtype
        ([3, 12], [[3, 5, 7]], dtype('float32'))
        """
        if dim is UNSET and keepdim is UNSET and axis is UNSET and keepdims is UNSET:
            whole = None if dtype is not None or out is not None else self._whole_sum()
            if whole is not None:
                return whole
        call = keywords.reduction(
            "sum", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, dtype, out
        )
        return self._reduced(optable.SUM, call)

    def mean(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The true mean over `dim`: one sum divided once by the count, so exact for Fractions.

        >>> import lazytensor as lt
        >>> from fractions import Fraction
        >>> lt.tensor([Fraction(1, 2), Fraction(1, 3)]).mean().item()
        Fraction(5, 12)
        """
        call = keywords.reduction(
            "mean", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, dtype, out
        )
        return self._reduced(optable.MEAN, call)

    def prod(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The product over `dim`."""
        call = keywords.reduction(
            "prod", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, dtype, out
        )
        return self._reduced(optable.PROD, call)

    def max(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The largest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy)."""
        call = keywords.reduction(
            "max", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.MAX, call)

    def min(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The smallest element over `dim` (NaN wins; ValueError over an empty axis, as in numpy)."""
        call = keywords.reduction(
            "min", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.MIN, call)

    def argmax(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The index of the first largest element over `dim`; over several axes (or None: all) the
        index counts through them together in row-major order.

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 9], [7, 2]])
        >>> t.argmax().item(), t.argmax(0).tolist(), t.argmax(dim=(1, 0)).item()
        (1, [1, 0], 1)
        """
        call = keywords.reduction(
            "argmax", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.ARGMAX, call)

    def argmin(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The index of the first smallest element over `dim`, as `argmax` counts."""
        call = keywords.reduction(
            "argmin", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.ARGMIN, call)

    def all(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """Whether every element over `dim` is true."""
        call = keywords.reduction(
            "all", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.ALL, call)

    def any(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """Whether any element over `dim` is true."""
        call = keywords.reduction(
            "any", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.ANY, call)

    def std(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
        ddof: float = UNSET,
        correction: float = UNSET,
    ) -> AbstractTensor:
        """The standard deviation over `dim`, divided by the count less `ddof` (numpy's name; the
        array API's `correction`); 0 by default, as numpy.

        >>> import lazytensor as lt
        >>> t = lt.tensor([1.0, 2.0, 3.0, 4.0])
        >>> round(t.std().item(), 4), round(t.std(ddof=1).item(), 4), round(t.std(correction=1).item(), 4)
        (1.118, 1.291, 1.291)
        """
        call = keywords.reduction(
            "std",
            self._axis_shape,
            dim,
            keepdim,
            self._is_tensor,
            axis,
            keepdims,
            dtype,
            out,
            ddof=ddof,
            correction=correction,
        )
        return self._reduced(optable.STD, call)

    def var(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
        ddof: float = UNSET,
        correction: float = UNSET,
    ) -> AbstractTensor:
        """The variance over `dim`, divided by the count less `ddof` (or `correction`): exact for
        Fractions.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, 2.0, 3.0, 4.0]).var(ddof=1).item()
        1.6666666666666667
        """
        call = keywords.reduction(
            "var",
            self._axis_shape,
            dim,
            keepdim,
            self._is_tensor,
            axis,
            keepdims,
            dtype,
            out,
            ddof=ddof,
            correction=correction,
        )
        return self._reduced(optable.VAR, call)

    # -- NaN-ignoring reductions and running sums --------------------------------------------------

    def nansum(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The sum over `dim`, NaN counted as zero.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nansum().item()
        3.0
        """
        call = keywords.reduction(
            "nansum", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, dtype, out
        )
        return self._reduced(optable.NANSUM, call)

    def nanmean(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The mean over `dim` of the elements that are not NaN.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nanmean().item()
        1.5
        """
        call = keywords.reduction(
            "nanmean", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, dtype, out
        )
        return self._reduced(optable.NANMEAN, call)

    def nanmax(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The largest element over `dim`, NaN ignored.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nanmax().item()
        2.0
        """
        call = keywords.reduction(
            "nanmax", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.NANMAX, call)

    def nanmin(
        self,
        dim: Dims = UNSET,
        keepdim: bool = UNSET,
        *,
        axis: Dims = UNSET,
        keepdims: bool = UNSET,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The smallest element over `dim`, NaN ignored.

        >>> import lazytensor as lt
        >>> lt.tensor([1.0, float("nan"), 2.0]).nanmin().item()
        1.0
        """
        call = keywords.reduction(
            "nanmin", self._axis_shape, dim, keepdim, self._is_tensor, axis, keepdims, out=out
        )
        return self._reduced(optable.NANMIN, call)

    def cumsum(
        self,
        dim: int | None = UNSET,
        *,
        axis: int | None = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The running sums along `dim` or `axis` (None: over the values flattened, as numpy).

        >>> import lazytensor as lt
        >>> t = lt.tensor([[1, 2], [3, 4]])
        >>> t.cumsum(1).tolist(), t.cumsum().tolist(), t.cumsum(axis=0).tolist()
        ([[1, 3], [3, 7]], [1, 3, 6, 10], [[1, 2], [4, 6]])
        """
        call = keywords.scan("cumsum", self._axis_shape, dim, self._is_tensor, axis, dtype, out)
        return self._reduced(optable.CUMSUM, call)

    def cumprod(
        self,
        dim: int | None = UNSET,
        *,
        axis: int | None = UNSET,
        dtype: npt.DTypeLike | None = None,
        out: AbstractTensor | None = None,
    ) -> AbstractTensor:
        """The running products along `dim` or `axis` (None: over the values flattened, as numpy).

        >>> import lazytensor as lt
        >>> lt.tensor([1, 2, 3, 4]).cumprod().tolist()
        [1, 2, 6, 24]
        """
        call = keywords.scan("cumprod", self._axis_shape, dim, self._is_tensor, axis, dtype, out)
        return self._reduced(optable.CUMPROD, call)

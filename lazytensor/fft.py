"""`lt.fft`: the array API standard's Fourier transform extension, on numpy's kernels (which keep
single precision: float32 in, complex64 out). Each transform is an entry of the operator table
without a gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.array_api.datatypes import check_device
from lazytensor.engine import optable
from lazytensor.ground import arguments
from lazytensor.tensors.apply import apply
from lazytensor.tensors.tensor import StorageTensor

Operand = Any
"""A tensor, or anything `lt.asarray` takes."""

Norm = str
"""'backward' (scale the inverse by 1/n), 'ortho' (both by 1/sqrt(n)) or 'forward' (the transform)."""


def fft(x: Operand, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> StorageTensor:
    """The one-dimensional discrete Fourier transform along `axis` (`n` points: cropped or zero-padded).

    >>> import lazytensor as lt
    >>> lt.fft.fft(lt.tensor([1.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    return apply(optable.FFTS["fft"], x, n=n, axis=axis, norm=norm)


def ifft(x: Operand, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> StorageTensor:
    """The inverse of `fft` along `axis`.

    >>> import lazytensor as lt
    >>> lt.fft.ifft(lt.tensor([1.0, 1.0])).tolist()
    [(1+0j), 0j]
    """
    return apply(optable.FFTS["ifft"], x, n=n, axis=axis, norm=norm)


def rfft(x: Operand, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> StorageTensor:
    """The transform of real values along `axis`: the non-negative frequencies only.

    >>> import lazytensor as lt
    >>> lt.fft.rfft(lt.tensor([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """
    return apply(optable.FFTS["rfft"], x, n=n, axis=axis, norm=norm)


def irfft(x: Operand, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> StorageTensor:
    """The inverse of `rfft`: real values (`n` of them, default `2 * (m - 1)`).

    >>> import lazytensor as lt
    >>> lt.fft.irfft(lt.tensor([4.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return apply(optable.FFTS["irfft"], x, n=n, axis=axis, norm=norm)


def hfft(x: Operand, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> StorageTensor:
    """The transform of a Hermitian-symmetric signal given by its first half: real values.

    >>> import lazytensor as lt
    >>> lt.fft.hfft(lt.tensor([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return apply(optable.FFTS["hfft"], x, n=n, axis=axis, norm=norm)


def ihfft(x: Operand, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> StorageTensor:
    """The inverse of `hfft`: the first half of a Hermitian-symmetric spectrum.

    >>> import lazytensor as lt
    >>> lt.fft.ihfft(lt.tensor([1.0, 1.0, 1.0, 1.0])).tolist()
    [(1-0j), -0j, -0j]
    """
    return apply(optable.FFTS["ihfft"], x, n=n, axis=axis, norm=norm)


def fftn(
    x: Operand,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> StorageTensor:
    """The n-dimensional discrete Fourier transform over `axes` (sizes `s`).

    >>> import lazytensor as lt
    >>> lt.fft.fftn(lt.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return apply(optable.FFTS["fftn"], x, s=s, axes=axes, norm=norm)


def ifftn(
    x: Operand,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> StorageTensor:
    """The inverse of `fftn` over `axes`.

    >>> import lazytensor as lt
    >>> lt.fft.ifftn(lt.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return apply(optable.FFTS["ifftn"], x, s=s, axes=axes, norm=norm)


def rfftn(
    x: Operand,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> StorageTensor:
    """The n-dimensional transform of real values (the last axis halved).

    >>> import lazytensor as lt
    >>> lt.fft.rfftn(lt.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return apply(optable.FFTS["rfftn"], x, s=s, axes=axes, norm=norm)


def irfftn(
    x: Operand,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> StorageTensor:
    """The inverse of `rfftn`: real values.

    >>> import lazytensor as lt
    >>> lt.fft.irfftn(lt.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return apply(optable.FFTS["irfftn"], x, s=s, axes=axes, norm=norm)


def fftshift(x: Operand, /, *, axes: int | Sequence[int] | None = None) -> StorageTensor:
    """The zero frequency moved to the middle of `axes` (None: all).

    >>> import lazytensor as lt
    >>> lt.fft.fftshift(lt.tensor([0, 1, 2, -2, -1])).tolist()
    [-2, -1, 0, 1, 2]
    """
    return apply(optable.FFTS["fftshift"], x, axes=axes)


def ifftshift(x: Operand, /, *, axes: int | Sequence[int] | None = None) -> StorageTensor:
    """The inverse of `fftshift`.

    >>> import lazytensor as lt
    >>> lt.fft.ifftshift(lt.tensor([-2, -1, 0, 1, 2])).tolist()
    [0, 1, 2, -2, -1]
    """
    return apply(optable.FFTS["ifftshift"], x, axes=axes)


def fftfreq(
    n: int, /, *, d: float = 1.0, dtype: npt.DTypeLike | None = None, device: Any = None
) -> StorageTensor:
    """The frequencies of an `n`-point transform with sample spacing `d`, in `fft`'s order.

    >>> import lazytensor as lt
    >>> lt.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    check_device(device)
    count, spacing, chosen = _frequency_arguments("fftfreq", n, d, dtype)
    return StorageTensor.from_array(np.fft.fftfreq(count, spacing).astype(chosen))


def rfftfreq(
    n: int, /, *, d: float = 1.0, dtype: npt.DTypeLike | None = None, device: Any = None
) -> StorageTensor:
    """The non-negative frequencies of an `n`-point transform with sample spacing `d`, as `rfft` gives.

    >>> import lazytensor as lt
    >>> lt.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    check_device(device)
    count, spacing, chosen = _frequency_arguments("rfftfreq", n, d, dtype)
    return StorageTensor.from_array(np.fft.rfftfreq(count, spacing).astype(chosen))


def _frequency_arguments(what: str, n: Any, d: Any, dtype: Any) -> tuple[int, float, np.dtype[Any]]:
    """`fftfreq`'s and `rfftfreq`'s arguments checked: `n` a count of at least 1 (an `n`-point transform;
    numpy divides by it), `d` a real spacing other than 0, `dtype` one numpy understands (float64 unless
    given).

    >>> _frequency_arguments("fftfreq", 4, 0.5, None)
    (4, 0.5, dtype('float64'))
    >>> _frequency_arguments("fftfreq", 4, 0, None)
    Traceback (most recent call last):
    ValueError: fftfreq: d (the sample spacing) must not be 0
    """
    count = arguments.count(what, "n", n, least=1)
    spacing = arguments.real(what, "d", d)
    if spacing == 0:
        raise ValueError(f"{what}: d (the sample spacing) must not be 0")
    chosen = arguments.dtype(what, dtype)
    return count, spacing, np.dtype(np.float64) if chosen is None else chosen

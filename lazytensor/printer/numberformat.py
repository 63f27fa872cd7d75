"""Turning the shown values into text cells: one number format for the whole print.

The format is decided once, over every value that will be shown, with numpy's
rules (`floatmode="maxprec"`): at most `precision` digits after the point, the
points aligned, scientific notation when the magnitudes call for it. Integers
are never scientific. Each cell also gets a kind (negative, zero, NaN, inf) so
the printer can colour it; the colour only repeats what the text already says.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.printer.escapes import printable

Values = npt.NDArray[Any]
Trim = Literal["k", ".", "0", "-"]


class Kind(enum.IntEnum):
    """What a value is, for its colour."""

    PLAIN = 0
    NEGATIVE = 1
    ZERO = 2
    NAN = 3
    INF = 4


@attrs.frozen
class FloatFormat:
    """numpy's float format for a set of values: positional or scientific, with padding.

    >>> values = np.array([1.0, 2.5, -10.0])
    >>> fmt = FloatFormat.decide(values, precision=4)
    >>> [fmt.format(v) for v in values]
    ['  1. ', '  2.5', '-10. ']
    >>> FloatFormat.decide(np.array([1e-5, 1.0]), precision=4).format(1e-5)
    '1.e-05'
    """

    scientific: bool
    precision: int
    min_digits: int
    trim: Trim
    pad_left: int
    pad_right: int
    exp_digits: int
    sign: bool

    @classmethod
    def decide(
        cls, values: Values, precision: int, sci_mode: bool | None = None, sign: bool = False
    ) -> FloatFormat:
        """The format numpy would choose for `values` (a float array of any shape)."""
        finite = values[np.isfinite(values)].astype(np.float64, copy=False).ravel()
        scientific = _wants_scientific(finite) if sci_mode is None else sci_mode
        if finite.size == 0:
            fmt = cls(scientific, precision, 0, ".", 0, 0, -1, sign)
        elif scientific:
            fmt = cls._scientific(finite, precision, sign)
        else:
            fmt = cls._positional(finite, precision, sign)
        return fmt._fit_non_finite(values)

    def _fit_non_finite(self, values: Values) -> FloatFormat:
        """Widen the integer part so that `nan` and `inf` fit in the same width, as numpy does."""
        non_finite = values[~np.isfinite(values)]
        if non_finite.size == 0:
            return self
        longest = max(len(_non_finite(x, self.sign)) for x in non_finite.ravel())
        return attrs.evolve(self, pad_left=max(self.pad_left, longest - self.pad_right - 1))

    @classmethod
    def _positional(cls, finite: Values, precision: int, sign: bool) -> FloatFormat:
        texts = [
            np.format_float_positional(x, precision=precision, unique=True, trim=".", sign=sign)
            for x in finite
        ]
        int_parts, frac_parts = zip(*(text.split(".") for text in texts), strict=True)
        pad_left = max(len(part) for part in int_parts)
        pad_right = max(len(part) for part in frac_parts)
        return cls(False, precision, 0, ".", pad_left, pad_right, -1, sign)

    @classmethod
    def _scientific(cls, finite: Values, precision: int, sign: bool) -> FloatFormat:
        texts = [
            np.format_float_scientific(x, precision=precision, unique=True, trim=".", sign=sign)
            for x in finite
        ]
        mantissas, _, exponents = zip(*(text.partition("e") for text in texts), strict=True)
        int_parts, frac_parts = zip(*(m.split(".") for m in mantissas), strict=True)
        exp_digits = max(len(e) for e in exponents) - 1
        digits = max(len(part) for part in frac_parts)
        pad_left = max(len(part) for part in int_parts)
        return cls(True, digits, digits, "k", pad_left, exp_digits + 2 + digits, exp_digits, sign)

    @property
    def width(self) -> int:
        return self.pad_left + self.pad_right + 1

    def format_positional_fast(self, x: float) -> str:
        """`format` for the positional form, padding by hand (the same text, one numpy call fewer)."""
        if not np.isfinite(x):
            return _non_finite(x, self.sign).rjust(self.width)
        text = np.format_float_positional(x, precision=self.precision, unique=True, trim=".", sign=self.sign)
        whole, _, fraction = text.partition(".")
        return whole.rjust(self.pad_left) + "." + fraction.ljust(self.pad_right)

    def format(self, x: float) -> str:
        """One value in this format, padded to `width` (NaN and inf right-aligned)."""
        if not np.isfinite(x):
            return _non_finite(x, self.sign).rjust(self.width)
        if self.scientific:
            return np.format_float_scientific(
                x,
                precision=self.precision,
                min_digits=self.min_digits,
                unique=True,
                trim=self.trim,
                sign=self.sign,
                pad_left=self.pad_left,
                exp_digits=self.exp_digits,
            )
        return np.format_float_positional(
            x,
            precision=self.precision,
            min_digits=self.min_digits,
            unique=True,
            fractional=True,
            trim=self.trim,
            sign=self.sign,
            pad_left=self.pad_left,
            pad_right=self.pad_right,
        )


def _wants_scientific(finite: Values) -> bool:
    """numpy's rule: huge values, tiny values, or a spread of more than 1000 between them."""
    magnitudes = np.abs(finite[finite != 0])
    if magnitudes.size == 0:
        return False
    largest, smallest = float(magnitudes.max()), float(magnitudes.min())
    return largest >= 1e8 or smallest < 1e-4 or largest / smallest > 1000.0


def _non_finite(x: float, sign: bool) -> str:
    if np.isnan(x):
        return "+nan" if sign else "nan"
    if x > 0:
        return "+inf" if sign else "inf"
    return "-inf"


@attrs.frozen
class Cells:
    """The shown values as text of one width, with a kind and a heat (0..1 or NaN) per value."""

    texts: Values
    kinds: npt.NDArray[np.int8]
    heat: npt.NDArray[np.float64]
    width: int


def format_values(values: Values, precision: int, sci_mode: bool | None = None) -> Cells:
    """Text cells for every value of `values`, in one format decided over all of them.

    >>> cells = format_values(np.array([[1, -20], [0, 3]]), precision=4)
    >>> cells.texts.tolist(), cells.width
    ([['  1', '-20'], ['  0', '  3']], 3)
    """
    kind = values.dtype.kind
    if kind == "f":
        texts = _float_texts(values, precision, sci_mode)
    elif kind == "c":
        texts = _complex_texts(values, precision, sci_mode)
    elif kind in "iu" or kind == "b":
        texts = _plain_texts(values, str)
    else:
        texts = _plain_texts(values, _object_text)
    width = max((len(text) for text in texts.flat), default=0)
    aligned = np.vectorize(lambda text: text.rjust(width), otypes=[object])(texts) if texts.size else texts
    return Cells(aligned, kinds_of(values), heat_of(values), width)


def _object_text(value: Any) -> str:
    return printable(str(value))


def _plain_texts(values: Values, convert: Any) -> Values:
    texts = np.empty(values.shape, dtype=object)
    for position, value in np.ndenumerate(values):
        texts[position] = convert(value.item() if isinstance(value, np.generic) else value)
    return texts


def _float_texts(values: Values, precision: int, sci_mode: bool | None) -> Values:
    fmt = FloatFormat.decide(values, precision, sci_mode)
    texts = np.empty(values.shape, dtype=object)
    if fmt.scientific:
        for position, value in np.ndenumerate(values):
            texts[position] = fmt.format(value)
        return texts
    for position, value in np.ndenumerate(values):
        texts[position] = fmt.format_positional_fast(value)
    return texts


def _complex_texts(values: Values, precision: int, sci_mode: bool | None) -> Values:
    real = FloatFormat.decide(values.real, precision, sci_mode)
    imag = FloatFormat.decide(values.imag, precision, sci_mode, sign=True)
    texts = np.empty(values.shape, dtype=object)
    for position, value in np.ndenumerate(values):
        imag_text = imag.format(value.imag)
        digits = len(imag_text.rstrip())
        imag_text = imag_text[:digits] + "j" + " " * (len(imag_text) - digits)
        texts[position] = real.format(value.real) + imag_text
    return texts


def kinds_of(values: Values) -> npt.NDArray[np.int8]:
    """The `Kind` of every value (objects that are not numbers are PLAIN)."""
    kinds = np.zeros(values.shape, dtype=np.int8)
    if values.dtype.kind not in "biufc":
        return kinds
    if values.dtype.kind in "iuf":
        kinds[values < 0] = Kind.NEGATIVE
    kinds[values == 0] = Kind.ZERO
    if values.dtype.kind in "fc":
        kinds[np.isinf(values)] = Kind.INF
        kinds[np.isnan(values)] = Kind.NAN
    return kinds


def heat_of(values: Values) -> npt.NDArray[np.float64]:
    """Each value's place between the shown finite minimum (0) and maximum (1); NaN where none."""
    heat = np.full(values.shape, np.nan)
    if values.dtype.kind not in "biuf" or values.size == 0:
        return heat
    numbers = values.astype(np.float64)
    finite = np.isfinite(numbers)
    if not finite.any():
        return heat
    low, high = float(numbers[finite].min()), float(numbers[finite].max())
    span = high - low if high > low else 1.0
    heat[finite] = (numbers[finite] - low) / span
    return heat


def separators_text(value: Any, precision: int, width: int) -> str:
    """One value in the seeds' `"%7.2f "` form (field width and precision as given).

    >>> separators_text(192, 2, 7), separators_text(-0.5, 3, 8)
    (' 192.00 ', '  -0.500 ')
    """
    try:
        return "%*.*f " % (width, precision, value)  # noqa: UP031 - the seeds' exact format
    except TypeError:
        return f"{value!s:>{width}} "

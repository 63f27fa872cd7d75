"""Turning the shown values into text cells: one number format for each 2-D slice.

The format is decided for each slice over the values it shows, close to numpy's
rules: in positional notation at most `precision` digits after the point
(`floatmode="maxprec"`, so 0.30000000000000004 shows as 0.3), the points aligned,
scientific notation only when positional would hide a value or show digits the
dtype does not have: a nonzero value that would round to zero, or one past the
dtype's digits. numpy also goes scientific when the largest value is more than
1000 times the smallest; the printer does not, so one small value among normal
data, or `arange(5040.0)`, stays positional. A scientific mantissa is
either exactly the stored value or shows all `precision` digits, trailing zeros
kept (`3.0000e+06`, as PyTorch): distinct values never look equal and exact.
Integers are never scientific. Each cell also gets a kind (negative, zero, NaN, inf) so
the printer can colour it; the colour only repeats what the text already says.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.printer.escapes import printable
from lazytensor.printer.options import PrintOptions

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
    >>> fmt = FloatFormat.decide(values, PrintOptions(precision=4))
    >>> [fmt.format(v) for v in values]
    ['  1. ', '  2.5', '-10. ']
    >>> FloatFormat.decide(np.array([1e-5, 1.0]), PrintOptions()).format(1e-5)
    '1.e-05'
    >>> values = np.array([1.0, 2999997.0], dtype=np.float32)
    >>> [FloatFormat.decide(values, PrintOptions()).format(v) for v in values]
    ['1.0000e+00', '3.0000e+06']
    """

    scientific: bool
    max_digits: int
    """Digits after the point, at most (numpy's `precision`)."""
    min_digits: int
    trim: Trim
    pad_left: int
    pad_right: int
    exp_digits: int
    sign: bool

    @classmethod
    def decide(cls, values: Values, options: PrintOptions, sign: bool = False) -> FloatFormat:
        """The format numpy would choose for `values` (a float array of any shape) with the options'
        `precision` and `sci_mode`."""
        finite = values[np.isfinite(values)].ravel()  # in its own dtype: a float32 0.1 is exactly "1.e-01"
        scientific = _wants_scientific(finite, options) if options.sci_mode is None else options.sci_mode
        if finite.size == 0:
            fmt = cls(scientific, options.precision, 0, ".", 0, 0, -1, sign)
        elif scientific:
            fmt = cls._scientific(finite, options.precision, sign)
        else:
            fmt = cls._positional(finite, options.precision, sign)
        return fmt._fit_non_finite(values)

    def _fit_non_finite(self, values: Values) -> FloatFormat:
        """Widen the integer part so that `nan` and `inf` fit in the same width, as numpy does."""
        non_finite = values[~np.isfinite(values)]
        if non_finite.size == 0:
            return self
        longest = max(len(_non_finite(x, self.sign)) for x in non_finite.ravel())
        return attrs.evolve(self, pad_left=max(self.pad_left, longest - self.pad_right - 1))

    @classmethod
    def _positional(cls, finite: Values, max_digits: int, sign: bool) -> FloatFormat:
        texts = [
            np.format_float_positional(x, precision=max_digits, unique=True, trim=".", sign=sign)
            for x in finite
        ]
        int_parts, frac_parts = zip(*(text.split(".") for text in texts), strict=True)
        pad_left = max(len(part) for part in int_parts)
        pad_right = max(len(part) for part in frac_parts)
        return cls(False, max_digits, 0, ".", pad_left, pad_right, -1, sign)

    @classmethod
    def _scientific(cls, finite: Values, max_digits: int, sign: bool) -> FloatFormat:
        """The digits every value needs to be shown exactly, or all `max_digits` when one needs more."""
        needed = max(len(_fraction(np.format_float_scientific(x, unique=True, trim="."))) for x in finite)
        digits = min(needed, max_digits)
        texts = [
            np.format_float_scientific(
                x, precision=digits, min_digits=digits, unique=True, trim="k", sign=sign
            )
            for x in finite
        ]
        mantissas, _, exponents = zip(*(text.partition("e") for text in texts), strict=True)
        exp_digits = max(len(e) for e in exponents) - 1
        pad_left = max(len(m.split(".")[0]) for m in mantissas)
        return cls(True, digits, digits, "k", pad_left, exp_digits + 2 + digits, exp_digits, sign)

    @property
    def width(self) -> int:
        return self.pad_left + self.pad_right + 1

    def format_positional_fast(self, x: float) -> str:
        """`format` for the positional form, padding by hand (the same text, one numpy call fewer)."""
        if not np.isfinite(x):
            return _non_finite(x, self.sign).rjust(self.width)
        text = np.format_float_positional(x, precision=self.max_digits, unique=True, trim=".", sign=self.sign)
        whole, _, fraction = text.partition(".")
        return whole.rjust(self.pad_left) + "." + fraction.ljust(self.pad_right)

    def format(self, x: float) -> str:
        """One value in this format, padded to `width` (NaN and inf right-aligned)."""
        if not np.isfinite(x):
            return _non_finite(x, self.sign).rjust(self.width)
        if self.scientific:
            return np.format_float_scientific(
                x,
                precision=self.max_digits,
                min_digits=self.min_digits,
                unique=True,
                trim=self.trim,
                sign=self.sign,
                pad_left=self.pad_left,
                exp_digits=self.exp_digits,
            )
        return np.format_float_positional(
            x,
            precision=self.max_digits,
            min_digits=self.min_digits,
            unique=True,
            fractional=True,
            trim=self.trim,
            sign=self.sign,
            pad_left=self.pad_left,
            pad_right=self.pad_right,
        )


def _fraction(scientific: str) -> str:
    """The digits after the point of a scientific number's mantissa.

    >>> _fraction("-2.5e+06"), _fraction("3.e+06")
    ('5', '')
    """
    mantissa = scientific.partition("e")[0]
    return mantissa.partition(".")[2]


def _wants_scientific(finite: Values, options: PrintOptions) -> bool:
    """Whether positional notation would hide a value or show digits the dtype does not have: a
    nonzero magnitude that rounds to zero at the options' `precision` digits after the point, or one
    from 10**8 (or from 10 to the digits the dtype holds when fewer: float32 1e6, float16 1e3, as
    numpy 2.3).
    Unlike numpy, a spread of more than 1000 between the values is no reason by itself.

    >>> options, float32 = PrintOptions(), np.array([1e6], dtype=np.float32)
    >>> _wants_scientific(np.array([1e6]), options), _wants_scientific(float32, options)
    (False, True)
    >>> _wants_scientific(np.array([0.002, 3.0]), options), _wants_scientific(np.array([2e-5, 3.0]), options)
    (False, True)
    """
    magnitudes = np.abs(finite[finite != 0])
    if magnitudes.size == 0:
        return False
    largest, smallest = magnitudes.max(), magnitudes.min()  # compared in their dtype, as numpy does
    huge = 10.0 ** min(8, np.finfo(finite.dtype).precision)
    return bool(largest >= huge or smallest < 10.0**-options.precision)


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


def format_values(values: Values, options: PrintOptions) -> Cells:
    """Text cells for every value of `values`, in one format decided over all of them.

    >>> cells = format_values(np.array([[1, -20], [0, 3]]), PrintOptions())
    >>> cells.texts.tolist(), cells.width
    ([['  1', '-20'], ['  0', '  3']], 3)
    """
    kind = values.dtype.kind
    if kind == "f":
        texts = _float_texts(values, options)
    elif kind == "c":
        texts = _complex_texts(values, options)
    elif kind in "iu" or kind == "b":
        texts = _plain_texts(values, str)
    elif kind in "Mm":
        texts = _time_texts(values)
    elif kind == "U":
        texts = _unicode_texts(values)
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
        texts[position] = convert(value)  # a numpy scalar in an object array: its own str, as the docs say
    return texts


def time_text(value: np.datetime64 | np.timedelta64) -> str:
    """A datetime as numpy prints it (in its own unit), a timedelta as its count, NaT as `NaT`.

    >>> time_text(np.datetime64("2024-01-01", "ns")), time_text(np.datetime64("NaT"))
    ('2024-01-01T00:00:00.000000000', 'NaT')
    >>> time_text(np.timedelta64(-3, "s"))
    '-3'
    """
    if np.isnat(value):
        return "NaT"
    unit, _ = np.datetime_data(value.dtype)
    if isinstance(value, np.timedelta64) or unit == "generic":  # numpy writes no generic-unit date: its count
        return str(int(value.astype(np.int64)))
    return str(np.datetime_as_string(value))


def _time_texts(values: Values) -> Values:
    texts = np.empty(values.shape, dtype=object)
    for position, value in np.ndenumerate(values):
        texts[position] = time_text(value)
    return texts


def unicode_text(codes: Any) -> str:
    r"""The text of one numpy unicode element from its UTF-32 code units (trailing NULs dropped, as numpy
    does), with a code point Python cannot hold (over 0x10FFFF) written as its escape, never an error.

    >>> unicode_text(np.array([104, 105, 0x110000, 0, 0], dtype=np.uint32))
    'hi\\U00110000'
    """
    units = [int(code) for code in codes]
    while units and units[-1] == 0:
        units.pop()
    return printable("".join(chr(code) if code <= 0x10FFFF else f"\\U{code:08x}" for code in units))


def unicode_codes(values: Values) -> npt.NDArray[np.uint32]:
    """The UTF-32 code units of a numpy unicode array, one more axis: read without making a `str`
    (numpy's own element read fails with SystemError on a code point over 0x10FFFF)."""
    per_element = values.dtype.itemsize // 4
    units = np.dtype(np.uint32).newbyteorder(values.dtype.byteorder)
    flat = np.frombuffer(np.ascontiguousarray(values).tobytes(), dtype=units)
    return flat.reshape((*values.shape, per_element)).astype(np.uint32)


def _unicode_texts(values: Values) -> Values:
    codes = unicode_codes(values)
    texts = np.empty(values.shape, dtype=object)
    for position in np.ndindex(values.shape):
        texts[position] = unicode_text(codes[position])
    return texts


def _float_texts(values: Values, options: PrintOptions) -> Values:
    """Each 2-D slice in the format its own values call for, so one slice of tiny or huge values
    leaves the others positional."""
    if values.ndim <= 2:
        return _float_slice_texts(values, options)
    texts = np.empty(values.shape, dtype=object)
    for outer in np.ndindex(values.shape[:-2]):
        texts[outer] = _float_slice_texts(values[outer], options)
    return texts


def _float_slice_texts(values: Values, options: PrintOptions) -> Values:
    fmt = FloatFormat.decide(values, options)
    texts = np.empty(values.shape, dtype=object)
    if fmt.scientific:
        for position, value in np.ndenumerate(values):
            texts[position] = fmt.format(value)
        return texts
    for position, value in np.ndenumerate(values):
        texts[position] = fmt.format_positional_fast(value)
    return texts


def _complex_texts(values: Values, options: PrintOptions) -> Values:
    real = FloatFormat.decide(values.real, options)
    imag = FloatFormat.decide(values.imag, options, sign=True)
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
    if values.dtype.kind in "Mm":
        kinds[np.isnat(values)] = Kind.NAN
        return kinds
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
    shown = numbers[finite]
    low, high = float(shown.min()), float(shown.max())
    if np.isinf(high - low):  # halved, a difference of two finite floats cannot overflow (halving
        shown, low, high = shown / 2, low / 2, high / 2  # only then: it loses the smallest subnormals)
    span = high - low if high > low else 1.0
    heat[finite] = (shown - low) / span
    return heat


def separators_text(value: Any, decimals: int, width: int) -> str:
    """One value in the seeds' `"%7.2f "` form (field width and digits after the point as given).

    >>> separators_text(192, 2, 7), separators_text(-0.5, 3, 8)
    (' 192.00 ', '  -0.500 ')
    """
    try:
        return "%*.*f " % (width, decimals, value)  # noqa: UP031 - the seeds' exact format
    except TypeError:
        return f"{value!s:>{width}} "

"""The number format of a print against numpy's own: every cell is the text `np.array2string` writes
for the same values (`floatmode="maxprec"`), except that a scientific mantissa which is not the stored
value shows all `precision` digits (numpy's `floatmode="fixed"`), and that a spread of more than 1000
between the values is no reason for scientific notation (numpy's `suppress_small=True` when the printer
stays positional; scientific only for a value past the dtype's digits or one that would round to zero);
and each cell's kind and heat are numpy's masks and numpy's arithmetic on the same values.

Reaches into `lazytensor.printer.numberformat`: each cell's text, kind and heat are checked against
`np.array2string` value by value.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from numpy._core import arrayprint

import lazytensor as lt
from lazytensor.printer.numberformat import (
    FloatFormat,
    Kind,
    format_values,
    heat_of,
    kinds_of,
    separators_text,
    time_text,
)
from lazytensor.printer.options import DEFAULTS, PrintOptions

FLOATS = (np.float16, np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)


class _Scientific(arrayprint.FloatingFormat):
    """numpy's float format with scientific notation asked for, as the printer asks where numpy would
    not (a value that positional notation would show as zero at the precision)."""

    def fillFormat(self, data: np.ndarray) -> None:
        self.exp_format = True
        super().fillFormat(data)


def _numpy_cells(
    values: np.ndarray, precision: int, floatmode: str, sign: str = "-", scientific: bool = False
) -> list[str]:
    """numpy's cells for `values`: positional unless a value is past the dtype's digits (numpy's
    `suppress_small=True`), or scientific when asked."""
    if scientific:
        fmt = _Scientific(values, precision, floatmode, False, sign, legacy=sys.maxsize)
        return [fmt(x) for x in values]
    text = np.array2string(
        values,
        precision=precision,
        floatmode=floatmode,
        sign=sign,
        separator="|",
        max_line_width=10**9,
        threshold=10**9,
        suppress_small=True,
    )
    return text[1:-1].split("|")


def _reads_back(text: str, value: Any) -> bool:
    with np.errstate(over="ignore"):
        return bool(type(value)(text.strip()) == value)


def printer_goes_scientific(values: np.ndarray, precision: int) -> bool:
    """The printer's rule, written out: a finite magnitude past the dtype's digits (numpy's `huge`), or a
    nonzero one under 10**-precision, which positional notation would show as zero."""
    magnitudes = np.abs(values[np.isfinite(values) & (values != 0)])
    if magnitudes.size == 0:
        return False
    huge = 10.0 ** min(8, np.finfo(values.dtype).precision)
    return bool(magnitudes.max() >= huge or magnitudes.min() < 10.0**-precision)


def numpy_float_cells(values: np.ndarray, precision: int, sign: str = "-") -> list[str]:
    """numpy's cells; in scientific notation with a mantissa that is not exact, every digit shown."""
    scientific = printer_goes_scientific(values, precision)
    cells = _numpy_cells(values, precision, "maxprec", sign, scientific)
    finite = [(cell, value) for cell, value in zip(cells, values, strict=True) if np.isfinite(value)]
    if any("e" in cell for cell in cells) and not all(_reads_back(cell, value) for cell, value in finite):
        return _numpy_cells(values, precision, "fixed", sign, scientific)
    return cells


def numpy_complex_cells(values: np.ndarray, precision: int) -> list[str]:
    """numpy's complex cells: the real part's cell, then the imaginary part's, signed, with its `j`."""
    real = numpy_float_cells(values.real, precision)
    imag = numpy_float_cells(values.imag, precision, sign="+")
    cells = []
    for real_cell, imag_cell in zip(real, imag, strict=True):
        digits = imag_cell.rstrip()
        cells.append(real_cell + digits + "j" + " " * (len(imag_cell) - len(digits)))
    return cells


def _values(width: int) -> st.SearchStrategy[float]:
    return st.one_of(
        st.floats(width=width),
        st.integers(-(10**7), 10**7).map(float),
        st.floats(-1e-3, 1e-3).map(float),
        st.sampled_from([0.0, -0.0, 0.1, 1e-4, 999.5, 1e6, 2999997.0, 1e8, 1e300, 5e-324, np.inf, -np.inf]),
    )


@st.composite
def float_vectors(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(st.sampled_from(FLOATS + COMPLEX))
    part = np.dtype(dtype).type(0).real.dtype
    width = 8 * part.itemsize
    size = draw(st.integers(1, 8))
    with np.errstate(over="ignore"):  # a float64 drawn for float16 becomes inf: a case worth having
        real = np.array(draw(st.lists(_values(width), min_size=size, max_size=size)), dtype=part)
        if np.dtype(dtype).kind == "f":
            return real
        values = np.empty(size, dtype=dtype)
        values.real = real
        values.imag = np.array(draw(st.lists(_values(width), min_size=size, max_size=size)), dtype=part)
    return values


@given(float_vectors(), st.integers(0, 8))
@example(np.array([1.0, 2.5, -10.0]), 4)
@example(np.array([np.nan, 1.5, -np.inf]), 2)
@example(np.array([1.0, 2999997.0]), 4)
@example(np.array([1.0, 2999997.0]), 0)
@example(np.array([1e-5, 2e-5]), 4)
@example(np.array([123456789.0, -1.0]), 3)
@example(np.array([-1e300, 1e-300]), 4)
@example(np.array([np.nan, np.nan]), 4)
@example(np.array([np.nan + 1j, 2 - np.inf * 1j]), 4)
@example(np.array([1e9 + 2j, 3 - 1.5j]), 4)
@example(np.array([1e6], dtype=np.float32), 4)
@example(np.array([9.99999e99, 1.0]), 4)  # rounded to 4 digits, the exponent takes a third digit
@example(np.array([1.0, 1000.0]), 4)  # a spread of exactly 1000: positional
@example(np.array([1.0, 1000.5]), 4)
@example(np.array([1 + 10j, 1 - 1j]), 4)  # the sign counts in the imaginary part's width
@example(np.array([0.3, 1.0], dtype=np.float32), 8)  # float32's shortest digits, not its exact ones
@example(np.array([-9.99999e99, 1.0]), 2)
@example(np.array([999.0, 1000.0], dtype=np.float16), 4)
@example(np.array([1e-4, 2e-4], dtype=np.float32), 4)
@example(np.array([1e-4, 0.05], dtype=np.float32), 4)
def test_cells_are_numpys(values: np.ndarray, precision: int) -> None:
    cells = [str(text) for text in format_values(values, PrintOptions(precision=precision)).texts]
    if values.dtype.kind == "c":
        assert cells == numpy_complex_cells(values, precision)
    else:
        assert cells == numpy_float_cells(values, precision)
    assert format_values(values, PrintOptions(precision=precision)).width == len(cells[0])


@pytest.mark.parametrize(
    ("values", "scientific"),
    [
        (np.array([999999.0], dtype=np.float32), False),
        (np.array([1e6], dtype=np.float32), True),
        (np.array([1e6], dtype=np.float64), False),
        (np.array([999.0], dtype=np.float16), False),
        (np.array([1000.0], dtype=np.float16), True),
        (np.array([99999999.0]), False),
        (np.array([1e8]), True),
    ],
)
def test_huge_starts_where_numpy_says_for_the_dtype(values: np.ndarray, scientific: bool) -> None:
    """numpy 2.3 and later: from 10**8, or 10 to the digits the dtype holds (float32 1e6, float16 1e3)."""
    text = str(format_values(values, DEFAULTS).texts[0])
    assert ("e" in text) is scientific
    assert text == np.array2string(values, precision=4)[1:-1]


def test_a_float32_tensor_of_a_million_prints_as_numpy_does() -> None:
    values = np.array([1e6, 2.5e6], dtype=np.float32)
    assert lt.to_string(lt.from_numpy(values)).splitlines()[-1].split() == ["1.0e+06", "2.5e+06"]
    assert str(values) == "[1.0e+06 2.5e+06]"


def test_tiny_is_compared_in_the_dtype_as_numpy_does() -> None:
    """float32(1e-4) is a little below 1e-4 as a float64, but not below float32(1e-4): positional."""
    values = np.array([1e-4, 0.05], dtype=np.float32)
    assert float(values[0]) < 1e-4
    assert [str(text) for text in format_values(values, DEFAULTS).texts] == ["0.0001", "0.05  "]
    assert str(values) == "[0.0001 0.05  ]"


def test_a_spread_beyond_float16_is_no_overflow() -> None:
    """999 / 0.0001 overflows float16 (numpy compares the spread, and goes scientific); the printer does
    not ask for the spread: positional, and no warning."""
    values = np.array([999.0, 1e-4], dtype=np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cells = [str(text) for text in format_values(values, DEFAULTS).texts]
    assert cells == numpy_float_cells(values, 4)
    assert cells == ["999.    ", "  0.0001"]


@pytest.mark.parametrize("precision", [0, 2, 4])
def test_forced_notation_holds_for_both_parts_of_a_complex_number(precision: int) -> None:
    values = np.array([1 + 2j, 3 - 1.5j])
    scientific = [
        str(text) for text in format_values(values, PrintOptions(precision=precision, sci_mode=True)).texts
    ]
    digits = min(precision, 1)  # each part needs its own digits: none for the real parts, one for 1.5
    real = [np.format_float_scientific(x, unique=True) for x in (1.0, 3.0)]
    imag = [
        np.format_float_scientific(x, precision=digits, min_digits=digits, unique=True, sign=True)
        for x in (2.0, -1.5)
    ]
    assert scientific == [r + i + "j" for r, i in zip(real, imag, strict=True)]
    tiny = np.array([1e-5 + 1e-5j, 1 + 1j])
    positional = [str(text) for text in format_values(tiny, PrintOptions(sci_mode=False)).texts]
    assert positional == ["0.+0.j", "1.+1.j"]


def _cells(values: np.ndarray, sci_mode: bool) -> list[str]:
    return [str(text) for text in format_values(values, PrintOptions(sci_mode=sci_mode)).texts]


def test_forced_notation_of_real_values() -> None:
    assert _cells(np.array([1.0, 2.5]), sci_mode=True) == ["1.0e+00", "2.5e+00"]
    assert _cells(np.array([1e-5, 1.0]), sci_mode=False) == ["0.", "1."]
    assert _cells(np.array([np.nan, np.inf]), sci_mode=True) == ["nan", "inf"]


@given(float_vectors(), st.integers(0, 8), st.booleans())
@example(np.array([np.nan, np.inf, -1.5]), 4, True)
def test_the_fast_positional_form_is_the_numpy_form(values: np.ndarray, precision: int, sign: bool) -> None:
    for part in (values.real, values.imag) if values.dtype.kind == "c" else (values,):
        fmt = FloatFormat.decide(part, PrintOptions(precision=precision), sign=sign)
        if fmt.scientific:
            continue
        for x in part:
            assert fmt.format_positional_fast(x) == fmt.format(x)
            assert len(fmt.format(x)) == fmt.width


@given(float_vectors(), st.integers(0, 8))
@example(np.array([-1e10, 1e10]), 4)
def test_a_float_format_pads_each_value_to_its_width_as_numpy(values: np.ndarray, precision: int) -> None:
    real = values.real
    fmt = FloatFormat.decide(real, PrintOptions(precision=precision))
    assert [fmt.format(x) for x in real] == numpy_float_cells(real, precision)
    assert {len(fmt.format(x)) for x in real} == {fmt.width}


def test_a_signed_format_pads_nan_and_inf_with_their_sign() -> None:
    values = np.array([np.nan, -np.inf, 1.5, np.inf])
    fmt = FloatFormat.decide(values, DEFAULTS, sign=True)
    assert [fmt.format(x) for x in values] == _numpy_cells(values, 4, "maxprec", sign="+")


# -- integers, booleans, objects, strings, times ---------------------------------------------------


def test_integers_booleans_and_objects_are_their_str_right_aligned() -> None:
    ints = np.array([[1, -20], [300, 0]], dtype=np.int16)
    assert format_values(ints, DEFAULTS).texts.tolist() == [["  1", "-20"], ["300", "  0"]]
    flags = np.array([True, False])
    assert format_values(flags, DEFAULTS).texts.tolist() == [" True", "False"]
    objects = np.array([None, "a\x1b[31m", 2.5], dtype=object)
    assert format_values(objects, DEFAULTS).texts.tolist() == ["     None", "a\\x1b[31m", "      2.5"]
    empty = format_values(np.zeros((0, 3)), DEFAULTS)
    assert empty.width == 0 and empty.texts.shape == (0, 3)


def test_numpy_scalars_in_an_object_array_show_their_own_str() -> None:
    """Not the str of their Python value: a datetime64[ns] would read as a count of nanoseconds."""
    stamp = np.datetime64("2024-01-01T00:00:00.000000001", "ns")
    objects = np.array([stamp, np.float32(0.1), np.int8(3)], dtype=object)
    assert [str(t).strip() for t in format_values(objects, DEFAULTS).texts] == [str(v) for v in objects]
    assert [str(v) for v in objects] == ["2024-01-01T00:00:00.000000001", "0.1", "3"]


def test_unsigned_integers_beyond_int64_print_in_full() -> None:
    values = np.array([2**64 - 1, 0], dtype=np.uint64)
    assert [str(t).strip() for t in format_values(values, DEFAULTS).texts] == [str(v) for v in values]


def test_a_datetime_of_generic_unit_prints_its_count() -> None:
    """numpy cannot write such a date (it raises); its count is all there is."""
    values = np.array([0, 5, -3], dtype=np.int64).view("datetime64")
    with pytest.raises(ValueError, match="generic units"):
        np.datetime_as_string(values[1])
    assert [time_text(v) for v in values] == ["0", "5", "-3"]
    assert lt.to_string(lt.from_numpy(values)).splitlines()[-1].split() == ["0", "5", "-3"]


def test_a_timedelta_beyond_float_precision_prints_exactly() -> None:
    value = np.timedelta64(2**62 + 1, "ns")
    assert time_text(value) == str(2**62 + 1) == str(value).split()[0]


def test_unicode_cells_are_numpys_str_right_aligned() -> None:
    values = np.array(["ab", "", "c\x00d", "\x00"], dtype="<U3")
    assert [str(t) for t in format_values(values, DEFAULTS).texts] == [
        "    ab",
        "      ",
        "c\\x00d",
        "      ",
    ]
    assert [str(v) for v in values] == ["ab", "", "c\x00d", ""]


# -- kinds and heat ---------------------------------------------------------------------------------


@given(float_vectors())
def test_kinds_are_numpys_masks(values: np.ndarray) -> None:
    kinds = kinds_of(values)
    expected = np.full(values.shape, Kind.PLAIN, dtype=np.int8)
    if values.dtype.kind == "f":
        expected[values < 0] = Kind.NEGATIVE
    expected[values == 0] = Kind.ZERO
    expected[np.isinf(values)] = Kind.INF
    expected[np.isnan(values)] = Kind.NAN
    np.testing.assert_array_equal(kinds, expected)


def test_kinds_of_integers_booleans_times_and_objects() -> None:
    np.testing.assert_array_equal(kinds_of(np.array([-2, 0, 3])), [Kind.NEGATIVE, Kind.ZERO, Kind.PLAIN])
    np.testing.assert_array_equal(kinds_of(np.array([3, 0], dtype=np.uint8)), [Kind.PLAIN, Kind.ZERO])
    np.testing.assert_array_equal(kinds_of(np.array([True, False])), [Kind.PLAIN, Kind.ZERO])
    times = np.array(["2024-01-01", "NaT"], dtype="datetime64[D]")
    np.testing.assert_array_equal(kinds_of(times), [Kind.PLAIN, Kind.NAN])
    deltas = np.array([-1, "NaT"], dtype="timedelta64[s]")
    np.testing.assert_array_equal(kinds_of(deltas), [Kind.PLAIN, Kind.NAN])
    np.testing.assert_array_equal(kinds_of(np.array([-1, None], dtype=object)), [Kind.PLAIN, Kind.PLAIN])
    np.testing.assert_array_equal(kinds_of(np.array(["-1", ""])), [Kind.PLAIN, Kind.PLAIN])
    assert kinds_of(np.zeros((2, 0))).dtype == np.int8


@given(float_vectors())
def test_heat_is_the_place_between_the_finite_minimum_and_maximum(values: np.ndarray) -> None:
    heat = heat_of(values)
    assert heat.dtype == np.float64 and heat.shape == values.shape
    if values.dtype.kind == "c":
        assert np.isnan(heat).all()
        return
    numbers = values.astype(np.float64)
    finite = np.isfinite(numbers)
    assert np.isnan(heat[~finite]).all()
    if finite.any():
        low, high = numbers[finite].min(), numbers[finite].max()
        span = high - low if high > low else 1.0
        np.testing.assert_array_equal(heat[finite], (numbers[finite] - low) / span)


def test_heat_of_integers_booleans_and_other_kinds() -> None:
    np.testing.assert_array_equal(heat_of(np.array([2, 4, 6])), [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(heat_of(np.array([7, 7])), [0.0, 0.0])
    np.testing.assert_array_equal(heat_of(np.array([True, False])), [1.0, 0.0])
    assert np.isnan(heat_of(np.array(["a"]))).all()
    assert np.isnan(heat_of(np.array([1 + 1j]))).all()
    assert heat_of(np.zeros(0)).shape == (0,)
    # the smallest subnormal apart: halving would lose it (hypothesis found it at seed 752217880)
    np.testing.assert_array_equal(heat_of(np.array([0.0, 5e-324])), [0.0, 1.0])


# -- the seeds' separators form ---------------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False, width=64), st.integers(0, 6), st.integers(1, 12))
def test_separators_text_is_printf_f(value: float, precision: int, width: int) -> None:
    assert separators_text(value, precision, width) == "%*.*f " % (width, precision, value)  # noqa: UP031


def test_separators_text_of_what_is_not_a_number_is_its_str_right_aligned() -> None:
    assert separators_text("ab", 2, 5) == "   ab "
    assert separators_text(None, 2, 6) == "  None "

"""Numbers never look exact when they are not (issue 29, item 1), and values numpy can hold but
Python cannot print (datetimes, NaT, code points over 0x10FFFF) print as numpy prints them.

The rule, checked by parsing every shown cell back: in scientific notation a mantissa is either
exactly the stored value (read in its own dtype) or shows all `precision` digits, trailing zeros
kept (`3.0000e+06`); positional notation is numpy's `maxprec`, within half a unit of the last of
`precision` digits (`0.30000000000000004` shows as `0.3`).

Reaches into `lazytensor.printer.header` and `lazytensor.printer.numberformat`: every shown cell is
parsed back from the formatters themselves.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazytensor as lt
from lazytensor.printer.header import format_number
from lazytensor.printer.numberformat import format_values, separators_text
from lazytensor.printer.options import PrintOptions

FLOATS = (np.float16, np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)


def _float_values(dtype: Any) -> st.SearchStrategy[float]:
    """Integers, huge, tiny, mixed signs, NaN and inf: what makes a format choose its notation."""
    width = 16 if dtype == np.float16 else 32 if dtype == np.float32 else 64
    return st.one_of(
        st.integers(-(10**7), 10**7).map(float),
        st.floats(width=width, allow_nan=True, allow_infinity=True),
        st.floats(-1e-3, 1e-3).map(lambda x: float(_cast(dtype, x))),
        st.sampled_from([0.0, -0.0, 0.1, 0.30000000000000004, 2999997.0, 2999998.0, 1e300, 5e-324]),
    )


@st.composite
def float_arrays(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(st.sampled_from(FLOATS + COMPLEX))
    part = np.float32 if dtype == np.complex64 else np.float64 if dtype == np.complex128 else dtype
    size = draw(st.integers(1, 12))
    with np.errstate(over="ignore"):  # a float64 drawn for float16 becomes inf: a case worth having
        real = np.array(draw(st.lists(_float_values(part), min_size=size, max_size=size)), dtype=part)
        if dtype in COMPLEX:
            values = np.empty(size, dtype=dtype)
            values.real = real
            values.imag = np.array(
                draw(st.lists(_float_values(part), min_size=size, max_size=size)), dtype=part
            )
            return values
    return real


def _cast(dtype: Any, x: float) -> Any:
    with np.errstate(over="ignore"):
        return dtype(x)


def check_number(text: str, value: Any, precision: int) -> None:
    """One shown number against its stored value, by the rule of the module docstring."""
    text = text.strip()
    if np.isnan(value):
        assert text.lstrip("+") == "nan"
        return
    if np.isinf(value):
        assert text.lstrip("+") == ("inf" if value > 0 else "-inf")
        return
    shown = Fraction(text)
    stored = Fraction(float(value))
    exact = type(value)(text) == value  # the shortest text that reads back as the stored value
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        fraction = mantissa.partition(".")[2]
        assert exact or len(fraction) == precision, (text, value)  # exact, or every digit shown
        unit = Fraction(10) ** (int(exponent) - len(fraction))
        assert exact or abs(shown - stored) <= unit / 2, (text, value)  # rounded to the last digit
        return
    fraction = text.partition(".")[2]
    assert len(fraction) <= precision, (text, value)
    assert exact or abs(shown - stored) <= Fraction(10) ** -precision / 2, (text, value)


def _parts(value: Any) -> list[Any]:
    return [value.real, value.imag] if np.iscomplexobj(value) else [value]


def _cell_parts(text: str, complex_cell: bool) -> list[str]:
    text = text.replace(" ", "")
    if not complex_cell:
        return [text]
    real, imag = re.fullmatch(r"(.+?)([+-](?:nan|inf|[\d.]+(?:e[+-]\d+)?))j", text).groups()  # type: ignore[union-attr]
    return [real, imag]


@given(float_arrays(), st.integers(0, 8), st.sampled_from([None, True, False]))
@example(np.array([0.0, 1.0, 2999997.0, 2999998.0]), 4, None)
@example(np.arange(3e6)[-3:], 4, True)
@example(np.array([0.30000000000000004, 1.0]), 4, None)
def test_every_shown_cell_is_exact_or_shows_every_digit(values: np.ndarray, precision: int, sci: Any) -> None:
    cells = format_values(values, PrintOptions(precision=precision, sci_mode=sci))
    assert len({len(text) for text in cells.texts.flat}) == 1  # one width: the points stay aligned
    for text, value in zip(cells.texts.flat, values.flat, strict=True):
        for part_text, part in zip(_cell_parts(text, np.iscomplexobj(values)), _parts(value), strict=True):
            check_number(part_text.rstrip("."), part, precision)
            if "e" in part_text and precision > 0:
                assert "." in part_text  # numpy's mark of a float, even with no digits


@given(float_arrays())
@example(np.array([0.0, 1.0, 2999997.0, 2999998.0]))
def test_the_printed_grid_and_html_show_the_same_cells(values: np.ndarray) -> None:
    t = lt.from_numpy(values)
    expected = [str(text).strip() for text in format_values(values, PrintOptions()).texts.flat]
    line = lt.to_string(t, linewidth=10**4).split("\n")[-1]
    assert line.split() == " ".join(expected).split()
    html = t._repr_mimebundle_()["text/html"]
    for text in expected:
        assert text.replace("+", "") in re.sub(r"<[^>]+>", "", html).replace("+", "")


@given(st.one_of(*(_float_values(d).map(lambda x, d=d: _cast(d, x)) for d in FLOATS)), st.integers(0, 8))
@example(np.float64(2999998.0), 4)
@example(np.float64(249999937.5), 4)
def test_statistics_are_exact_or_show_every_significant_digit(value: Any, precision: int) -> None:
    if not np.isfinite(value):
        return
    text = format_number(value, precision)
    digits = max(precision, 1)
    if "e" in text:
        mantissa = text.partition("e")[0]
        exact = type(value)(text) == value
        assert exact or len(mantissa.lstrip("-").replace(".", "")) == digits, (text, value)
    shown, stored = Fraction(text), Fraction(float(value))
    assert stored == 0 or abs(shown - stored) <= abs(stored) * Fraction(10) ** (1 - digits)


def test_the_header_and_the_grid_of_the_issue_example() -> None:
    """In float32, 3e6 is past the dtype's digits: scientific, all digits shown; in float64 the same
    values are positional and exact, whatever their spread."""
    text = lt.to_string(lt.tensor([0.0, 1.0, 2999997.0, 2999998.0], dtype="float32"))
    assert text.splitlines()[-1].split() == ["0.0000e+00", "1.0000e+00", "3.0000e+06", "3.0000e+06"]
    assert "max 3.000e+06" in text and "mean 1.500e+06" in text
    text = lt.to_string(lt.tensor([0.0, 1.0, 2999997.0, 2999998.0]))
    assert text.splitlines()[-1].split() == ["0.", "1.", "2999997.", "2999998."]
    assert lt.to_string(lt.tensor([0.1 + 0.2, 1.0])).splitlines()[-1].split() == ["0.3", "1."]


@given(hnp.arrays(np.float64, st.integers(1, 6), elements=_float_values(np.float64)), st.integers(0, 4))
def test_separators_are_fixed_notation_within_half_a_unit(values: np.ndarray, precision: int) -> None:
    for value in values:
        text = separators_text(value, precision, 7)
        assert "e" not in text.replace("inf", "")
        check_number(text, value, precision)


def test_explain_shows_the_stored_value_exactly() -> None:
    t = lt.tensor([2999997.0, 0.30000000000000004])
    for k in range(2):
        trace = str(t.explain((k,)))
        shown = re.search(r"holds (\S+)", trace).group(1)  # type: ignore[union-attr]
        assert float(shown) == t.numpy()[k]


# -- 0-d tensors read as numbers (item 5) --------------------------------------------------------


@given(
    hnp.arrays(
        st.sampled_from([np.int64, np.uint8, np.float16, np.float32, np.float64, np.complex128, np.bool_]),
        (),
    )
)
def test_str_of_a_0d_tensor_is_numpys_str_of_the_scalar(value: np.ndarray) -> None:
    t = lt.from_numpy(value)
    assert str(t) == str(value[()]) == str(value)
    assert (
        "\n" not in repr(t) and repr(t).startswith("tensor(") and repr(t).endswith(f", dtype={value.dtype})")
    )


def test_print_of_a_sum_is_the_number(capsys: pytest.CaptureFixture[str]) -> None:
    print(lt.arange(12).sum(), lt.tensor([0.1, 0.2]).sum(), lt.tensor(np.datetime64("2024-01-01", "ns")))
    assert capsys.readouterr().out == "66 0.30000000000000004 2024-01-01T00:00:00.000000000\n"
    assert repr(lt.arange(12).sum()) == "tensor(66, dtype=int64)"


def _zero_d_cases() -> list[lt.AbstractTensor]:
    beyond = np.array("a", dtype="<U1")
    beyond.view(np.uint32)[()] = 0x110000
    return [
        lt.arange(12).sum(),
        lt.tensor([0.1, 0.2]).sum(),
        lt.tensor(np.float32(0.1)),
        lt.tensor(np.float16(2999.0)),
        lt.tensor(2999998.0),
        lt.tensor(1e-300),
        lt.tensor(complex(1, -2)),
        lt.tensor(True),
        lt.tensor(np.datetime64("2024-01-01T12:00", "ns")),
        lt.tensor(np.datetime64("NaT", "ns")),
        lt.from_numpy(beyond),
        lt.tensor([1.5, -2.25])[1, ...],
    ]


def test_golden_str_and_repr_of_0d_tensors() -> None:
    text = "".join(f"str  {t}\nrepr {t!r}\n" for t in _zero_d_cases())
    check_golden("print", "0d_str_and_repr", text)


def test_json_dumps_with_a_default_hook() -> None:
    x = lt.arange(12.0)
    text = json.dumps({"loss": x.sum(), "first": x[:3]}, default=lambda t: t.tolist())
    assert json.loads(text) == {"loss": 66.0, "first": [0.0, 1.0, 2.0]}


# -- datetimes and unicode (issue 24, item 10) ---------------------------------------------------


@pytest.mark.parametrize("unit", ["D", "s", "ms", "us", "ns"])
def test_datetimes_print_as_numpy_prints_them(unit: str) -> None:
    values = np.array(["2024-01-01", "NaT", "1969-12-31T23:59:59"], dtype=f"datetime64[{unit}]")
    cells = [str(text).strip() for text in format_values(values, PrintOptions()).texts]
    assert cells == [str(v) for v in values] == list(np.datetime_as_string(values))
    assert cells[1] == "NaT"
    assert "NaT" in lt.to_string(lt.from_numpy(values))


def test_generic_unit_nat_and_timedeltas() -> None:
    assert lt.to_string(lt.from_numpy(np.array(["NaT", "NaT"], dtype="datetime64"))).endswith("NaT  NaT")
    deltas = np.array([1, -2, "NaT"], dtype="timedelta64[ms]")
    assert lt.to_string(lt.from_numpy(deltas)).splitlines()[-1].split() == ["1", "-2", "NaT"]
    assert str(lt.from_numpy(deltas[:1].reshape(()))) == str(deltas[0])


def _beyond_unicode() -> np.ndarray:
    values = np.array(["a", "bc", ""], dtype="<U2")
    values.view(np.uint32)[0] = 0x110000
    return values


@pytest.mark.parametrize("byteorder", ["<", ">"])
def test_a_code_point_beyond_unicode_prints_as_its_escape(byteorder: str) -> None:
    values = _beyond_unicode().astype(f"{byteorder}U2")
    with pytest.raises(SystemError):  # numpy itself cannot make the str
        repr(values)
    text = lt.to_string(lt.from_numpy(values))
    assert text.splitlines()[-1].split() == ["\\U00110000", "bc"]
    assert str(lt.from_numpy(values[:1].reshape(()))) == "\\U00110000"


def test_show_prints_a_file_holding_a_code_point_beyond_unicode(tmp_path: Any) -> None:
    path = tmp_path / "u.npy"
    np.save(path, _beyond_unicode())
    run = subprocess.run(
        [sys.executable, "-m", "lazytensor", "show", str(path)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert "\\U00110000" in run.stdout and "Traceback" not in run.stderr

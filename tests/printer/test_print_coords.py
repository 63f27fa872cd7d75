"""Coordinates in the printer: slice labels read `station=rome`, the header lists the first and last
labels of each shown axis, a slice's rows and columns carry theirs where the label still fits over
the values, `explain(position)` names the position by label, the HTML as the terminal; dates in
their shortest exact form, long labels cut like long names, and a tensor without coordinates
printed exactly as before.

Regenerate the golden files with
`LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/printer/test_print_coords.py`,
then read every changed file before accepting it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from golden_files import check_golden

import lazytensor as lt

DAYS = pd.date_range("2024-01-01", periods=4, freq="D").values
STATIONS = ["rome", "oslo", "lima"]


def _weather() -> lt.AbstractTensor:
    values = np.arange(3 * 2 * 4 * 5, dtype=float).reshape(3, 2, 4, 5) / 4
    coords = {"station": STATIONS, "level": [850, 500], "time": DAYS, "hour": [0, 6, 12, 18, 24]}
    return lt.tensor(values, names=("station", "level", "time", "hour"), coords=coords)


def _wide() -> lt.AbstractTensor:
    values = np.arange(2 * 3 * 12, dtype=float).reshape(2, 3, 12)
    hours = pd.date_range("2024-03-01T06:00", periods=12, freq="6h").values
    coords = {"run": ["a" * 60, "b"], "member": [0.5, 1.0, 1.5], "time": hours}
    return lt.tensor(values, names=("run", "member", "time"), coords=coords)


COORDS: dict[str, Callable[[], lt.AbstractTensor]] = {
    "coords_4d": _weather,
    "coords_4d_view": lambda: _weather().sel(station=["lima", "rome"], hour=slice(6, 18))[:, ::-1],
    "coords_2d": lambda: _weather().sel(station="oslo", level=500),
    "coords_long_labels": _wide,
}
WIDTHS = (40, 80, 120)


def _render(name: str) -> str:
    t = COORDS[name]()
    return "".join(f"== width {width} ==\n{lt.to_string(t, linewidth=width)}\n" for width in WIDTHS)


@pytest.mark.parametrize("name", sorted(COORDS))
def test_golden_print_with_coordinates(name: str) -> None:
    check_golden("print", name, _render(name))


@pytest.mark.parametrize("name", sorted(COORDS))
def test_a_print_with_coordinates_keeps_to_its_width(name: str) -> None:
    for width in WIDTHS if name != "coords_long_labels" else WIDTHS[1:]:  # a label entry is never split:
        for line in lt.to_string(COORDS[name](), linewidth=width).split("\n"):
            assert line == line.rstrip()
            assert len(line) <= width, (width, line)  # `run=` and a cut label (45) pass a width of 40


def test_a_long_label_passes_a_narrow_width_only_on_its_own_line() -> None:
    for line in lt.to_string(_wide(), linewidth=40).split("\n"):
        assert len(line) <= 40 or (line.startswith("[run=a") and len(line) <= 46), line


def test_golden_html_with_coordinates() -> None:
    check_golden("print", "coords_html", _weather().sel(level=850)._repr_mimebundle_()["text/html"] + "\n")


def test_golden_explain_with_coordinates() -> None:
    view = _weather().sel(station=["lima", "oslo"])[:, 1]
    check_golden("explain", "coords", f"{view.explain((1, 2, 3))}\n")


def test_slice_labels_read_the_labels_of_their_fixed_axes() -> None:
    text = lt.to_string(_weather(), linewidth=200)
    assert "[station=rome, level=850, time↓, hour→]" in text
    assert "[station=lima, level=500, time↓, hour→]" in text
    assert "coords station rome…lima · level 850…500 · time 2024-01-01…2024-01-04 · hour 0…24" in text


def test_a_slice_carries_the_edges_of_its_rows_and_columns_where_they_fit() -> None:
    values = np.zeros((2, 3, 9))
    t = lt.tensor(values, names=("a", "b", "c"), coords={"b": [1, 2, 3], "c": np.arange(9) * 100})
    assert "[a=0, b↓ 1…3, c→ 0…800]" in lt.to_string(t, linewidth=200)


def test_dates_print_in_their_shortest_exact_form() -> None:
    hours = pd.date_range("2024-01-01T06:00", periods=2, freq="12h").values
    t = lt.zeros(2, 2, names=("time", "x"), coords={"time": hours})
    assert "time 2024-01-01T06:00…2024-01-01T18:00" in lt.to_string(t, linewidth=200)
    seconds = np.array(["2024-01-01T00:00:01", "2024-01-01T00:00:02"], dtype="M8[ns]")
    text = lt.to_string(lt.zeros(2, 1, 1, names=("t", "x", "y"), coords={"t": seconds}), linewidth=200)
    assert "[t=2024-01-01T00:00:01, x↓, y→]" in text


def test_a_long_label_is_cut_like_a_long_name() -> None:
    t = lt.zeros(1, 2, 2, names=("run", "x", "y"), coords={"run": ["r" * 10_000]})
    text = lt.to_string(t, linewidth=200)
    assert "[run=" + "r" * 20 + "…(10,000 characters), x↓, y→]" in text


def test_a_tensor_without_coordinates_prints_as_before() -> None:
    t = lt.arange(24.0).reshape(2, 3, 4).rename("a", "b", "c")
    labelled = lt.to_string(t.assign_coords(b=None), linewidth=80)
    assert labelled.replace("Labelled ∘ ", "") == lt.to_string(t, linewidth=80)

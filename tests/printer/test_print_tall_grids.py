"""A print taller than its room keeps the most first and last 2-D slices that fit, at the exact room.

Slices of 2x2 integers at width 12 stand one under the other, each 3 lines (its label and two rows)
with a blank line between: k slices at each end take 2 * (4k - 1) + 1 = 8k - 1 lines with the
`⋮ N more slices ⋮` note. A room of exactly that many lines keeps k, one line less keeps k - 1.

Reaches into `lazytensor.printer`: the grid's height fitting (`fit_height`) is checked at exact
rooms.
"""

from __future__ import annotations

import math

import pytest

import lazytensor as lt
from lazytensor.printer.cells import CellPainter
from lazytensor.printer.grid import fit_height
from lazytensor.printer.numberformat import format_values
from lazytensor.printer.options import DEFAULTS, PrintOptions
from lazytensor.printer.shown import read_shown, select_shown


def printed(shape: tuple[int, ...], width: int, room: int) -> list[str]:
    """The lines of the values of `arange` in `shape`, fitted to `room` lines at `width` columns."""
    selection = select_shown(lt.arange(math.prod(shape)).reshape(*shape), None, PrintOptions())
    painter = CellPainter(format_values(read_shown(selection), DEFAULTS), DEFAULTS)
    return [line.plain for line in fit_height(selection, painter, width, room)]


def outline(lines: list[str]) -> list[str]:
    """The slice labels and notes of a print, in order (the rows between them left out)."""
    return [line for line in lines if line.startswith("[") or line.startswith("⋮")]


def labels(*slices: str) -> list[str]:
    return [f"[{k}, :, :]" if k.isdigit() else k for k in slices]


def test_a_room_of_exactly_three_slices_at_each_end_keeps_three() -> None:
    lines = printed((10, 2, 2), 12, 23)
    assert "\n".join(lines) == "\n".join(
        [
            "[0, :, :]",
            " 0   1",
            " 2   3",
            "",
            "[1, :, :]",
            " 4   5",
            " 6   7",
            "",
            "[2, :, :]",
            " 8   9",
            "10  11",
            "⋮ 4 more slices ⋮",
            "[7, :, :]",
            "28  29",
            "30  31",
            "",
            "[8, :, :]",
            "32  33",
            "34  35",
            "",
            "[9, :, :]",
            "36  37",
            "38  39",
        ]
    )


@pytest.mark.parametrize(
    ("room", "kept"),
    [
        (22, labels("0", "1", "⋮ 6 more slices ⋮", "8", "9")),
        (15, labels("0", "1", "⋮ 6 more slices ⋮", "8", "9")),
        (14, labels("0", "⋮ 8 more slices ⋮", "9")),
        (31, labels("0", "1", "2", "3", "⋮ 2 more slices ⋮", "6", "7", "8", "9")),
        (30, labels("0", "1", "2", "⋮ 4 more slices ⋮", "7", "8", "9")),
    ],
)
def test_the_edge_slices_kept_are_the_most_that_fit_the_room(room: int, kept: list[str]) -> None:
    lines = printed((10, 2, 2), 12, room)
    assert outline(lines) == kept
    assert len(lines) == 8 * ((len(kept) - 1) // 2) - 1 <= room


def test_an_odd_count_of_slices_that_fits_exactly_is_printed_whole() -> None:
    lines = printed((9, 2, 2), 12, 35)  # 9 slices of 3 lines and 8 blank lines: 35
    assert outline(lines) == labels(*"012345678")
    assert len(lines) == 35
    four_at_each_end = labels("0", "1", "2", "3", "⋮ 1 more slices ⋮", "5", "6", "7", "8")
    assert outline(printed((9, 2, 2), 12, 34)) == four_at_each_end


def test_three_slices_too_tall_for_the_room_keep_one_at_each_end() -> None:
    assert printed((3, 2, 2), 12, 10) == [
        "[0, :, :]",
        " 0   1",
        " 2   3",
        "⋮ 1 more slices ⋮",
        "[2, :, :]",
        " 8   9",
        "10  11",
    ]


def test_a_tall_print_of_four_axes_counts_the_slices_of_both_leading_axes() -> None:
    lines = printed((5, 2, 2, 2), 12, 15)  # 10 slices, 2 at each end fit
    ends = ["[0, 0, :, :]", "[0, 1, :, :]", "⋮ 6 more slices ⋮", "[4, 0, :, :]", "[4, 1, :, :]"]
    assert outline(lines) == ends


def test_a_tall_print_of_five_axes_counts_the_slices_of_every_leading_axis() -> None:
    lines = printed((3, 2, 2, 2, 2), 12, 31)  # 12 slices, 4 at each end fit
    assert [line for line in outline(lines) if line.startswith("⋮")] == ["⋮ 4 more slices ⋮"]
    assert len(lines) == 31

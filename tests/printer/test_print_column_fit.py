"""The columns of a 2-D slice at the width where they just fit: all of them at exactly their own width,
one dropped from the middle (for a `…`) one column less.

Four columns of two-digit numbers take 4 * 2 + 3 * 2 = 14 columns; at 13 only three fit with the `…`.
"""

from __future__ import annotations

import lazytensor as lt


def values(t: lt.AbstractTensor, width: int) -> str:
    """The values part of a plain print at `width` columns (after the header and its blank line)."""
    return lt.to_string(t, linewidth=width).split("\n\n", 1)[1]


def test_columns_exactly_as_wide_as_the_line_are_all_shown() -> None:
    assert values(lt.arange(10, 22).reshape(3, 4), 14) == "10  11  12  13\n14  15  16  17\n18  19  20  21"


def test_columns_one_wider_than_the_line_lose_one_from_the_middle() -> None:
    assert values(lt.arange(10, 22).reshape(3, 4), 13) == "10  11  …  13\n14  15  …  17\n18  19  …  21"


def test_the_columns_of_stacked_slices_fit_the_same_way() -> None:
    t = lt.arange(10, 34).reshape(2, 3, 4)
    whole = ["[0, :, :]", "10  11  12  13", "14  15  16  17", "18  19  20  21"]
    assert values(t, 14).splitlines()[:4] == whole
    assert values(t, 13).splitlines()[:4] == ["[0, :, :]", "10  11  …  13", "14  15  …  17", "18  19  …  21"]


def test_three_columns_that_do_not_fit_keep_the_first_and_last() -> None:
    t = lt.arange(100, 106).reshape(2, 3)  # 3 * 3 + 2 * 2 = 13 columns
    assert values(t, 13) == "100  101  102\n103  104  105"
    assert values(t, 12) == "100  …  102\n103  …  105"

"""The colours of a print: which words of the header, the labels, the cells, the rules and the notes are
bold, dim or coloured, and which CSS class the notebook gives them.

The golden files (tests/golden/print_styled/) write every styled run as `[style|css]text[/]`
(tests/styled_text.py), at 80 columns on a truecolor console. Regenerate them with
`LAZYTENSOR_UPDATE_GOLDEN=1` and read every change.

Reaches into `lazytensor.printer`: the style of every run and the heatmap palette are compared with
the module's own styles and CSS.
"""

from __future__ import annotations

import pathlib
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from rich.style import Style
from styled_text import ANSI, styled

import lazytensor as lt
from lazytensor.printer import TensorPrint, render, styles
from lazytensor.printer.cells import VIRIDIS, heat_bin, heat_style
from lazytensor.printer.numberformat import heat_of
from lazytensor.printer.options import current_options


def _specials() -> lt.AbstractTensor:
    t = lt.tensor([[-1.5, 0.0, 2.25], [np.nan, np.inf, -np.inf]])
    return t.reshape(2, 1, 3)


STYLED: dict[str, tuple[Callable[[], lt.AbstractTensor], dict[str, Any]]] = {
    "0d": (lambda: lt.tensor(-2.5), {}),
    "1d_specials": (lambda: lt.tensor([-1.5, 0.0, 2.25, np.nan, np.inf, -np.inf]), {}),
    "1d_summarised": (lambda: lt.arange(5000.0) - 10, {}),
    "2d_summarised": (lambda: lt.arange(10_000).reshape(100, 100), {}),
    "2d_too_wide": (lambda: lt.arange(120.0).reshape(4, 30) / 7, {}),
    "3d_specials": (_specials, {}),
    "4d_summarised": (lambda: lt.arange(10**6).reshape(100, 100, 10, 10), {"edgeitems": 2}),
    "5d_rules": (lambda: lt.arange(72).reshape(2, 2, 2, 3, 3), {}),
    "6d_rules": (lambda: lt.arange(64).reshape(2, 2, 2, 2, 2, 2) - 30, {}),
    "7d_rules": (lambda: lt.arange(128).reshape(2, 2, 2, 2, 2, 2, 2), {}),
    "dims_0d": (lambda: lt.tensor([[1.5, -2.5]]), {"dims": (0, 1)}),
    "tall": (lambda: lt.arange(240).reshape(20, 3, 4), {"maxlines": 30}),
    "bool": (lambda: lt.tensor([[True, False, True], [False, False, True]]), {}),
    "complex": (lambda: lt.tensor([[1 + 2j, -0.5j], [3.25, complex(np.nan, 1)]]), {}),
    "empty": (lambda: lt.zeros(0, 3), {}),
    "big_stats_skipped": (lambda: lt.zeros(200_001), {}),
    "stats_limit": (lambda: lt.arange(12).reshape(3, 4), {"stats_limit": 5}),
    "named": (lambda: lt.arange(24.0).reshape(2, 3, 4).rename(("trial", "time", "freq")) - 3, {}),
    "dims": (lambda: lt.arange(60).reshape(3, 4, 5).T, {"dims": (None, 2)}),
    "deep_chain": (lambda: _alternating(12), {}),
    "heatmap": (lambda: lt.arange(-4.0, 5.0).reshape(3, 3), {"heatmap": True}),
    "line": (lambda: lt.arange(4.0).reshape(2, 2).T, {"style": "line"}),
}


def _alternating(depth: int) -> lt.AbstractTensor:
    t = lt.arange(6).reshape(2, 3)
    for k in range(depth):
        t = t.T if k % 2 == 0 else t[::1]
    return t


def _print(t: lt.AbstractTensor, options: dict[str, Any], width: int = 80) -> str:
    options = dict(options)
    dims = options.pop("dims", None)
    return styled(TensorPrint(t, dims, current_options(linewidth=width, **options)), width)


@pytest.mark.parametrize("name", sorted(STYLED))
def test_golden_styled_print(name: str) -> None:
    make, options = STYLED[name]
    check_golden("print_styled", name, _print(make(), options))


def test_a_memory_mapped_tensor_is_flagged_and_its_skipped_statistics_say_how_to_get_them(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(30000.0).reshape(10000, 3))
    text = _print(lt.load(path), {})
    assert "[yellow|lt-warn]memory-mapped[/]" in text
    skipped = "[dim|lt-dim]stats skipped: [/][yellow|lt-warn]memory-mapped[/]"
    assert f"{skipped}[dim|lt-dim] · [/][cyan|lt-hint]t.stats()[/]" in text


def _rgb(code: str) -> tuple[int, int, int]:
    return int(code[1:3], 16), int(code[3:5], 16), int(code[5:7], 16)


@pytest.mark.parametrize(("step", "mix"), [(0, 0.5), (3, 0.25), (4, 0.0), (7, 0.5), (7, 0.875), (8, 0.0)])
def test_a_heat_cell_blends_the_two_nearest_viridis_steps(step: int, mix: float) -> None:
    last = len(VIRIDIS) - 1
    low, high = _rgb(VIRIDIS[step]), _rgb(VIRIDIS[min(step + 1, last)])
    blend = tuple(round(a + (b - a) * mix) for a, b in zip(low, high, strict=True))
    assert heat_style((step + mix) / last).bgcolor.get_truecolor() == blend  # type: ignore[union-attr]


def test_heat_outside_0_to_1_is_clipped_to_the_ends_of_viridis() -> None:
    assert heat_style(1.5) == heat_style(1.0) and heat_style(-0.5) == heat_style(0.0)
    assert (heat_bin(1.5), heat_bin(-0.5), heat_bin(0.99)) == (8, 0, 8)


def test_a_style_keeps_its_attributes_and_carries_its_css_class() -> None:
    style = styles._styled("lt-x", color="red", bold=True)
    assert (styles.css_class(style), style.color.name, style.bold) == ("lt-x", "red", True)  # type: ignore[union-attr]
    assert styles.css_class(Style(meta={styles.CSS: 3})) is None


def test_relative_luminance_is_wcags_on_both_sides_of_the_linear_segment() -> None:
    # WCAG 2: a channel c = v / 255 is c / 12.92 up to 0.04045 (v = 10), ((c + 0.055) / 1.055) ** 2.4 above
    assert styles.relative_luminance((10, 10, 10)) == pytest.approx(10 / 255 / 12.92)
    assert styles.relative_luminance((11, 0, 0)) == pytest.approx(
        0.2126 * ((11 / 255 + 0.055) / 1.055) ** 2.4
    )


def test_the_notebook_heat_rules_give_each_viridis_step_its_more_readable_text_colour() -> None:
    rules = render._heat_rules()
    assert rules in render.NOTEBOOK_CSS
    found = re.findall(r"\.lt-h(\d)\{background:(#[0-9a-f]{6});color:(black|white)\}", rules)
    assert "".join(f".lt-h{i}{{background:{bg};color:{fg}}}" for i, bg, fg in found) == rules
    assert [(int(i), bg) for i, bg, _ in found] == list(enumerate(VIRIDIS))
    text = {"black": (0, 0, 0), "white": (255, 255, 255)}
    for _, bg, fg in found:
        other = "white" if fg == "black" else "black"
        ratio = styles.contrast_ratio(_rgb(bg), text[fg])
        assert ratio >= 4.5 and ratio >= styles.contrast_ratio(_rgb(bg), text[other])


@pytest.mark.parametrize("width", [24, 60])
def test_the_coloured_print_is_the_plain_one_in_colour_at_any_width(width: int) -> None:
    long_cell = lt.tensor(np.array([["a" * 40, "b"], ["c", "d"]]))
    wide = lt.arange(-12.0, 12.0).reshape(2, 12) * 1000
    for t in (long_cell, wide):
        coloured = render.render_ansi(TensorPrint(t), width)
        assert "\x1b[31m" in coloured or t is long_cell  # negatives in red: colour on a string buffer
        plain = ANSI.sub("", coloured)
        assert [line.rstrip() for line in plain.splitlines()] == render.render_plain(
            TensorPrint(t), width
        ).splitlines()
    assert "a" * 40 in render.render_ansi(TensorPrint(long_cell), 24)  # wider than the line, never cut


def test_values_near_the_float_limit_print_without_a_warning_at_the_ends_of_the_heat_scale() -> None:
    t = lt.tensor([1.7e308, 0.0, -1.7e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = lt.to_string(t, heatmap=True)
    assert "max 1.7e+308" in text
    np.testing.assert_allclose(heat_of(t.numpy()), [1.0, 0.5, 0.0])

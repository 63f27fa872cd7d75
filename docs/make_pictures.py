"""Write the pictures of docs/printing.md: SVGs of what a colour terminal shows, and (with
`--screenshots`) PNG screenshots of a notebook in headless Chromium, light and dark.

CI runs this without `--screenshots` and fails when `git diff --exit-code docs/pictures`
finds a change, so the SVGs never drift from the code: everything they hold is
deterministic (seeded values, a fixed width, colours forced on whatever the environment
says). The PNGs are not byte-for-byte reproducible (a browser's font rasterising and
anti-aliasing change with its version), so they stay out of that check: CI's browser step
regenerates them with `--screenshots` after it, which proves they can still be made.

Run: `.venv/bin/python docs/make_pictures.py [--screenshots]` (screenshots need Chromium:
Debian's `chromium` package, or `LAZYTENSOR_CHROMIUM=/path/to/chrome`).
"""

from __future__ import annotations

import io
import pathlib
import sys
import tempfile
from collections.abc import Callable

import numpy as np
from rich.console import Console, RenderableType
from rich.table import Table

import lazytensor as lt
from lazytensor.printer import TensorPrint
from lazytensor.printer.options import current_options

PICTURES = pathlib.Path(__file__).parent / "pictures"
WIDTH = 100
HEIGHT = 50  # both given, rich ignores the environment's idea of the terminal size


def _console() -> Console:
    return Console(
        file=io.StringIO(),
        record=True,
        width=WIDTH,
        height=HEIGHT,
        force_terminal=True,
        force_jupyter=False,
        force_interactive=False,
        color_system="truecolor",
        no_color=False,
        legacy_windows=False,
        highlight=False,
        markup=False,
        emoji=False,
    )


def _specials() -> lt.AbstractTensor:
    t = lt.trandom(2, 3, 4, 4, seed=0)
    t[0, 1, 2, 3] = np.nan
    t[1, 0, 0, 1] = np.inf
    t[1, 2, 3, 0] = 0.0
    return t


def grid() -> RenderableType:
    return _specials()


def summarised() -> RenderableType:
    return TensorPrint(lt.arange(10**6).reshape(100, 100, 10, 10), None, current_options(edgeitems=2))


def heatmap() -> RenderableType:
    values = lt.from_numpy(np.sin(np.arange(48.0) / 5).reshape(6, 8))
    return TensorPrint(values, None, current_options(heatmap=True))


def dims() -> RenderableType:
    t = lt.arange(4 * 2 * 2 * 4 * 4).reshape(4, 2, 2, 4, 4)
    return TensorPrint(t, (3, None, None, None, None), current_options())


def names() -> RenderableType:
    values = np.sin(np.arange(120.0) / 3).reshape(2, 3, 4, 5).round(2)
    t = lt.tensor(values, names=("trial", "channel", "time", "freq"))
    t[0, 1, 2, 3] = np.nan
    return TensorPrint(t, None, current_options())


def explain_tree() -> RenderableType:
    explanation: RenderableType = lt.arange(24).reshape(2, 3, 4).T[1:, [2, 0]].explain()
    return explanation


def explain_trace() -> RenderableType:
    explanation: RenderableType = lt.arange(24).reshape(2, 3, 4).transpose(0, 2).reshape(4, 6).explain((3, 5))
    return explanation


def in_a_table() -> RenderableType:
    table = Table("name", "tensor", title="tensors are rich renderables")
    table.add_row("weights", lt.trandom(3, 4, seed=2))
    table.add_row("mask", lt.tensor([[True, False, True], [False, True, True]]))
    return table


PICTURE_MAKERS: dict[str, Callable[[], RenderableType]] = {
    "grid": grid,
    "summarised": summarised,
    "heatmap": heatmap,
    "dims": dims,
    "names": names,
    "explain_tree": explain_tree,
    "explain_trace": explain_trace,
    "in_a_table": in_a_table,
}


SCREENSHOT_CELLS = ("four_axes", "fancy_view", "heatmap", "pair")
"""The cells of the notebook (tests/browser_pages.py) the screenshots show, the view's layers opened."""


def screenshots() -> None:
    """`notebook_light.png` and `notebook_dark.png`: JupyterLab light and dark, as nbconvert exports them."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "tests"))
    import browser_pages  # the notebook of the browser tests
    from playwright.sync_api import sync_playwright

    folder = pathlib.Path(tempfile.mkdtemp(prefix="lazytensor-screenshots-"))
    tags = list(browser_pages.CELLS)
    shown = [tags.index(name) + 1 for name in SCREENSHOT_CELLS]  # +1: the set-up cell comes first
    with sync_playwright() as playwright:
        browser = browser_pages.launch(playwright)
        for theme in ("light", "dark"):
            url = browser_pages.write_page(folder, theme, browser_pages.export_html("lab", theme))
            page = browser.new_page(viewport={"width": 980, "height": 800}, color_scheme=theme)
            browser_pages.offline(page)
            page.goto(url)
            page.evaluate(
                """(shown) => {
                    document.querySelectorAll('.jp-Cell').forEach((cell, k) => {
                        if (!shown.includes(k)) cell.style.display = 'none';
                    });
                    document.querySelectorAll('.lt-out details').forEach(d => d.open = true);
                }""",
                shown,
            )
            path = PICTURES / f"notebook_{theme}.png"
            page.locator(".jp-Notebook").screenshot(path=str(path))
            print(f"wrote {path}")
            page.close()
        narrow = browser.new_page(viewport={"width": 560, "height": 800}, color_scheme="light")
        browser_pages.offline(narrow)
        narrow.goto(browser_pages.write_page(folder, "narrow", browser_pages.export_html("lab", "light")))
        path = PICTURES / "notebook_narrow.png"  # the side-by-side slices wrap to the width
        narrow.locator(".jp-Cell").nth(tags.index("four_axes") + 1).screenshot(path=str(path))
        print(f"wrote {path}")
        narrow.close()
        browser.close()


def main() -> None:
    PICTURES.mkdir(parents=True, exist_ok=True)
    if "--screenshots" in sys.argv[1:]:
        screenshots()
        return
    for name, make in PICTURE_MAKERS.items():
        console = _console()
        with lt.printoptions(maxlines=HEIGHT):  # the same on a terminal as in CI (not the screen's height)
            console.print(make())
        svg = console.export_svg(title=f"lazytensor · {name.replace('_', ' ')}")
        (PICTURES / f"{name}.svg").write_text(svg, encoding="utf-8")
        print(f"wrote {PICTURES / f'{name}.svg'}")


if __name__ == "__main__":
    main()

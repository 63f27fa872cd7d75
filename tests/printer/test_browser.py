"""The notebook in a real browser: executed with nbclient, exported with nbconvert, rendered in the
system's headless Chromium (Debian's `chromium` package; Playwright drives it and downloads nothing).

Checked through the DOM and layout, not pixels, under every template nbconvert ships (lab, classic,
basic): no tensor row wraps at 560 px nor at 1,200 px (each `<pre>` is exactly as tall as its
lines), the 2-D slices that stand side by side wrap as blocks to the width (more rows at 560 px,
none past the edge), the text contrast of plain text, negatives, NaN, heatmap cells and the other
coloured classes is at least 4.5:1 (WCAG AA) in light and dark themes (JupyterLab's own, VS Code's
`body.vscode-dark`, and `prefers-color-scheme: dark` elsewhere, classic's `pre { color: black }`
included), and the plain text is what shows, also where a renderer strips every style.

Deselected by default (`-m "not browser"` in pyproject); `.ci/run` installs Chromium and runs
`pytest -m browser`.

Reaches into `lazytensor.printer.styles`: the contrast of the rendered colours is measured with the
printer's own WCAG formula.
"""

from __future__ import annotations

import itertools
import pathlib
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from browser_pages import executed_notebook, export_html, launch, offline, write_page
from playwright.sync_api import sync_playwright

from lazytensor.printer.styles import contrast_ratio

pytestmark = pytest.mark.browser

WIDTHS = (560, 1200)
STRIP_STYLES = (
    "document.querySelectorAll('style, link[rel=stylesheet]').forEach(e => e.remove());"
    "document.querySelectorAll('[style]').forEach(e => e.removeAttribute('style'));"
)
VSCODE_DARK = (
    "document.body.classList.add('vscode-dark');"
    "document.body.style.background = '#1e1e1e'; document.body.style.color = '#cccccc';"
)

PAGES: dict[str, tuple[str, str, str, str]] = {
    # name: (nbconvert template, its theme, the emulated colour scheme, script run on the page)
    "jupyterlab light": ("lab", "light", "light", ""),
    "jupyterlab dark": ("lab", "dark", "dark", ""),
    "vscode dark": ("basic", "light", "dark", VSCODE_DARK),
    "plain page, prefers dark": ("basic", "light", "dark", ""),
    "plain page, prefers light": ("basic", "light", "light", ""),
    "classic": ("classic", "light", "light", ""),
    "classic, prefers dark": ("classic", "light", "dark", ""),
    "jupyterlab light, prefers dark": ("lab", "light", "dark", ""),
    "styles stripped (GitHub)": ("basic", "light", "light", STRIP_STYLES),
}
THEMED = [name for name in PAGES if "stripped" not in name]

MEASURE_LINES = """() => [...document.querySelectorAll('.lt-out pre:not(.lt-wrap)')].map(pre => {
    const probe = pre.cloneNode(false);
    probe.textContent = 'X';
    pre.parentNode.insertBefore(probe, pre);
    const line = probe.getBoundingClientRect().height;
    probe.remove();
    return {lines: pre.textContent.split('\\n').length, height: pre.clientHeight, line: line,
            whiteSpace: getComputedStyle(pre).whiteSpace};
})"""

MEASURE_OVERFLOW = """() => [...document.querySelectorAll('.lt-out')].map(out => ({
    scrollWidth: out.scrollWidth, clientWidth: out.clientWidth, overflowX: getComputedStyle(out).overflowX,
}))"""

MEASURE_HEADERS = """() => [...document.querySelectorAll('.lt-out pre.lt-wrap')].map(pre => ({
    whiteSpace: getComputedStyle(pre).whiteSpace, scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth,
    lines: pre.textContent.split('\\n').length, height: pre.clientHeight,
    line: parseFloat(getComputedStyle(pre).lineHeight),
}))"""

MEASURE_BREAKS = """() => [...document.querySelectorAll('.lt-out pre.lt-wrap')].map(pre => {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), chars = [];
    while (walker.nextNode()) {
        const node = walker.currentNode;
        for (let i = 0; i < node.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getClientRects()[0];
            chars.push([node.data[i], rect ? rect.top : null]);
        }
    }
    return chars;
})"""

MEASURE_PANELS = """() => [...document.querySelectorAll('.lt-out .lt-panels')].map(row => {
    const box = row.getBoundingClientRect();
    const panels = [...row.children].map(panel => panel.getBoundingClientRect());
    return {left: box.left, right: box.right, display: getComputedStyle(row).display,
            panels: panels.map(p => ({left: p.left, right: p.right, top: p.top}))};
})"""

MEASURE_COLOURS = """(selector) => [...document.querySelectorAll(selector)].map(span => {
    let element = span, background = 'rgba(0, 0, 0, 0)';
    while (element) {
        background = getComputedStyle(element).backgroundColor;
        if (!/rgba\\(.*, 0\\)$/.test(background) && background !== 'transparent') break;
        element = element.parentElement;
    }
    if (!element) background = 'rgb(255, 255, 255)';
    return {text: span.textContent, color: getComputedStyle(span).color, background: background,
            classes: span.className};
})"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("pages")
    exports: dict[tuple[str, str], str] = {}
    urls = {}
    for name, (template, theme, _, _) in PAGES.items():
        if (template, theme) not in exports:
            exports[template, theme] = export_html(template, theme)
        urls[name] = write_page(folder, re.sub(r"\W+", "-", name), exports[template, theme])
    return urls


def open_page(browser: Any, url: str, name: str, width: int) -> Any:
    _, _, scheme, script = PAGES[name]
    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    offline(page)
    page.goto(url)
    if script:
        page.evaluate(f"() => {{ {script} }}")
    return page


def plain_outputs() -> list[str]:
    """The `text/plain` of every output the notebook shows as lazytensor HTML, in order."""
    texts = []
    for cell in executed_notebook().cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "lt-out" in data.get("text/html", ""):
                texts.append(data["text/plain"])
    return texts


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _rgb(css: str) -> tuple[tuple[int, int, int], float]:
    numbers = [float(x) for x in re.findall(r"[\d.]+", css)]
    alpha = numbers[3] if len(numbers) > 3 else 1.0
    red, green, blue = (round(x) for x in numbers[:3])
    return (red, green, blue), alpha


def _over(
    colour: tuple[int, int, int], alpha: float, background: tuple[int, int, int]
) -> tuple[int, int, int]:
    red, green, blue = (round(c * alpha + b * (1 - alpha)) for c, b in zip(colour, background, strict=True))
    return red, green, blue


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(PAGES))
def test_no_tensor_row_wraps(browser: Any, pages: dict[str, str], name: str, width: int) -> None:
    page = open_page(browser, pages[name], name, width)
    measured = page.evaluate(MEASURE_LINES)
    assert len(measured) >= 2 * len(plain_outputs()) - 1  # every output has its <pre>s
    for pre in measured:
        assert pre["whiteSpace"] == "pre"
        assert abs(pre["height"] - pre["lines"] * pre["line"]) < pre["line"] / 2, pre
    overflow = page.evaluate(MEASURE_OVERFLOW)
    if "stripped" not in name:
        assert all(out["overflowX"] == "auto" for out in overflow)  # wider than the area: it scrolls
        if width == 1200:  # 120 columns fit a window of 1,200 px: a row of slices never drops a line
            assert all(out["scrollWidth"] <= out["clientWidth"] + 1 for out in overflow), overflow
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", THEMED)
def test_the_header_breaks_at_its_dots_to_fit(
    browser: Any, pages: dict[str, str], name: str, width: int
) -> None:
    page = open_page(browser, pages[name], name, width)
    headers = page.evaluate(MEASURE_HEADERS)
    assert headers and all(pre["whiteSpace"] == "pre-wrap" for pre in headers)
    assert all(pre["scrollWidth"] <= pre["clientWidth"] + 1 for pre in headers), headers  # no sideways scroll
    taller = [pre for pre in headers if pre["height"] > pre["lines"] * pre["line"] + pre["line"] / 2]
    if width == 1200:
        assert not taller, taller  # 120 columns fit: no line breaks
    else:
        assert taller  # the statistics line of 80-odd columns breaks at 560 px
    for chars in page.evaluate(MEASURE_BREAKS):  # a line breaks only at a space of a ` · `
        placed = [(char, top) for char, top in chars if top is not None]
        for (before, top_before), (_, top) in itertools.pairwise(placed):
            assert top <= top_before + 1 or before in "\n ", (name, width, "".join(c for c, _ in chars))
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", THEMED)
def test_side_by_side_slices_wrap_as_blocks(
    browser: Any, pages: dict[str, str], name: str, width: int
) -> None:
    page = open_page(browser, pages[name], name, width)
    rows = page.evaluate(MEASURE_PANELS)
    assert rows and all(row["display"] == "flex" for row in rows)
    for row in rows:
        for panel in row["panels"]:
            first_in_its_row = abs(panel["left"] - row["left"]) < 1
            assert first_in_its_row or panel["right"] <= row["right"] + 1, (
                name,
                width,
                row,
            )  # never past the edge
    rules = page.evaluate(
        "() => [...document.querySelectorAll('.lt-out pre.lt-rule')].map(pre => "
        "[pre.getBoundingClientRect().right, pre.parentElement.getBoundingClientRect().right])"
    )
    assert rules and all(right <= edge + 1 for right, edge in rules), rules  # a rule never makes it scroll
    lines_of_panels = [len({round(panel["top"]) for panel in row["panels"]}) for row in rows]
    plain_rows = [len(re.findall(r"^\[", text, flags=re.M)) for text in plain_outputs()]
    if width == 560:  # narrower than the 120 columns of the plain text: more rows of slices
        assert max(lines_of_panels) >= 3, lines_of_panels
    else:
        assert sum(lines_of_panels) <= sum(plain_rows), (lines_of_panels, plain_rows)
    page.close()


@pytest.mark.parametrize("name", THEMED)
def test_coloured_text_reads_at_wcag_aa(browser: Any, pages: dict[str, str], name: str) -> None:
    page = open_page(browser, pages[name], name, 1200)
    measured = {
        selector: page.evaluate(MEASURE_COLOURS, f".lt-out {selector}")
        for selector in (".lt-neg", ".lt-nan", ".lt-heat", ".lt-inf", ".lt-label", ".lt-dim", ".lt-zero",
                         ".lt-dtype", ".lt-chain", ".lt-warn", ".lt-hint", "pre")
    }  # fmt: skip
    for selector in (".lt-neg", ".lt-nan", ".lt-heat", ".lt-inf", ".lt-warn", "pre"):
        assert measured[selector], f"no {selector} on the page"  # `pre`: the plain text, in no span
    for spans in measured.values():
        for span in spans:
            background, background_alpha = _rgb(span["background"])
            assert background_alpha == 1.0, span
            colour, alpha = _rgb(span["color"])
            ratio = contrast_ratio(_over(colour, alpha, background), background)
            assert ratio >= 4.5, (name, span, round(ratio, 2))
    page.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_the_plain_text_is_what_shows(browser: Any, pages: dict[str, str], name: str) -> None:
    page = open_page(browser, pages[name], name, 1200)
    shown = page.evaluate("() => [...document.querySelectorAll('.lt-out')].map(out => out.innerText)")
    assert len(shown) == len(plain_outputs())
    for text, plain in zip(shown, plain_outputs(), strict=True):  # side-by-side slices wrap: same words
        assert _lines(text)[:2] == _lines(plain)[:2]
        assert Counter(text.split()) == Counter(plain.split())
    page.close()


def test_the_layer_chain_opens_into_the_explain_tree(browser: Any, pages: dict[str, str]) -> None:
    page = open_page(browser, pages["jupyterlab light"], "jupyterlab light", 1200)
    fancy = page.locator(".lt-out details").filter(has=page.locator("summary", has_text="Indexed"))
    details = fancy.first
    assert details.get_attribute("open") is None
    tree = details.locator("pre.lt-explain")
    assert not tree.is_visible()
    details.locator("summary").click()
    assert tree.is_visible()
    assert tree.inner_text().startswith("Indexed") and "buffer of 210 × float64" in tree.inner_text()
    page.close()


def test_the_screenshots_can_be_made(browser: Any, pages: dict[str, str], tmp_path: pathlib.Path) -> None:
    for name in ("jupyterlab light", "jupyterlab dark"):
        page = open_page(browser, pages[name], name, 1000)
        path = tmp_path / f"{name}.png"
        page.locator(".jp-Cell").nth(4).screenshot(path=str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        page.close()

"""The header and the layers in a tensor's notebook HTML: each part a `<pre>` of its own class, a
named header that may break between its axes (an unnamed one only at ` · `), a layer chain of
several lines kept as lines, and the `explain()` tree drawn at the notebook's width
(`printer/notebook.py`, issue #25).

Reaches into `lazytensor.printer`: the notebook print is built at given options and widths, and its
header lines read before they become HTML.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import lazytensor as lt
from lazytensor.printer.explain import explain
from lazytensor.printer.notebook import notebook_mimebundle, notebook_print
from lazytensor.printer.options import current_options
from lazytensor.printer.render import render_plain


def _classes(page: str) -> list[str]:
    return re.findall(r'<pre class="([^"]*)"', page)


def test_each_part_of_the_html_is_a_pre_of_its_own_class() -> None:
    view = lt.arange(24).reshape(2, 3, 4).T
    assert _classes(notebook_mimebundle(view, current_options())["text/html"]) == [
        "lt-pre lt-wrap",  # shape, dtype, count: breaks at ` · ` in a narrow notebook
        "lt-pre lt-explain",  # the tree inside `<details>`
        "lt-pre lt-wrap",  # statistics
        *["lt-pre lt-panel"] * 4,  # the 2-D slices, side by side
    ]
    vector = lt.arange(4)
    assert _classes(notebook_mimebundle(vector, current_options())["text/html"]) == [
        "lt-pre lt-wrap",
        "lt-pre lt-wrap",
        "lt-pre",
    ]
    assert _classes(notebook_mimebundle(lt.tensor(1.5), current_options())["text/html"]) == ["lt-pre"]


class _Parts(HTMLParser):
    """The text of each `<span class="lt-part">` of the first `<pre>`: where the header may not break."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.depth = 0  # spans open inside the current part (0: outside any part)
        self.pres = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre":
            self.pres += 1
        if tag != "span" or self.pres != 1:
            return
        if self.depth:
            self.depth += 1
        elif ("class", "lt-part") in attrs:
            self.depth = 1
            self.parts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts[-1] += data


def _header_parts(t: lt.Tensor) -> list[str]:
    parser = _Parts()
    parser.feed(notebook_mimebundle(t, current_options())["text/html"])
    return parser.parts


def test_a_named_header_may_break_between_its_axes_and_an_unnamed_one_only_at_dots() -> None:
    t = lt.arange(24).reshape(2, 3, 4)
    assert _header_parts(t) == ["shape (2, 3, 4)", "int64", "24 elements"]
    named = t.rename("trial", "channel", "time")
    assert _header_parts(named) == ["shape (trial 2", "channel 3", "time 4)", "int64", "24 elements"]


def _visible(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_a_layer_chain_of_several_lines_keeps_its_lines_in_the_summary() -> None:
    view = lt.arange(24).reshape(2, 3, 4).T[1:].reshape(-1)[::2]
    options = current_options(linewidth=30)
    chain = [line.plain for line in notebook_print(view, options).header.chain]
    assert len(chain) == 3
    page = notebook_mimebundle(view, options)["text/html"]
    summary = re.search(r"<summary>(.*?)</summary>", page, re.S)
    assert summary is not None
    assert _visible(summary.group(1)).split("\n") == chain


def test_the_explain_tree_is_drawn_at_the_notebooks_width() -> None:
    view = lt.arange(24).reshape(2, 3, 4, *[1] * 9).T  # its tree has lines 98 columns wide
    tree = explain(view)
    assert render_plain(tree, 80) != render_plain(tree, 120)
    for options, width in ((current_options(), 120), (current_options(linewidth=90), 90)):
        page = notebook_mimebundle(view, options)["text/html"]
        drawn = re.search(r'<pre class="lt-pre lt-explain"[^>]*>(.*?)</pre>', page, re.S)
        assert drawn is not None
        assert _visible(drawn.group(1)) == render_plain(tree, width)

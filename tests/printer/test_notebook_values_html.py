"""The values in a tensor's notebook HTML keep the order of the plain text: a note of slices left
out stays between the rows of panels it separates, as a rule does (`printer/notebook.py`'s
`body_html`, issue #25)."""

from __future__ import annotations

import html
import re

import lazytensor as lt


def _lines(text: str) -> list[str]:
    """The non-blank lines, a rule as one `─` (its width follows the line width)."""
    return ["─" if set(line) == {"─"} else line for line in text.split("\n") if line.strip()]


def test_a_note_of_slices_left_out_stays_between_the_rows_it_separates() -> None:
    t = lt.arange(20 * 6 * 2 * 2).reshape(20, 6, 2, 2)
    with lt.printoptions(threshold=10, edgeitems=2):
        page = t._repr_mimebundle_()["text/html"]  # what Jupyter asks for
    values = page.split('<div class="lt-values">')[1].replace("</pre>", "</pre>\n")
    shown = _lines(html.unescape(re.sub(r"<[^>]+>", "", values)))
    assert "⋮ 16 slices along axis 0 omitted" in shown
    alone = lt.to_string(t, threshold=10, edgeitems=2, linewidth=14)  # one slice per row
    assert shown == _lines(alone.split("\n\n", 1)[1])

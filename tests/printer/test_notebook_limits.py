"""How big a notebook output may be: a print of exactly `limit` characters is shown whole, one more
character is summarised harder, and a print still too big keeps the longest run of its first lines
that fits, then a dim note of the cut (`printer/notebook.py`, issue #25).

Reaches into `lazytensor.printer.notebook` and `lazytensor.printer.options`: the notebook print is
built at exact size limits around the print's own size.
"""

from __future__ import annotations

import re

import numpy as np

import lazytensor as lt
from lazytensor.printer.notebook import notebook_mimebundle, notebook_print
from lazytensor.printer.options import current_options

HARDER = "(summarised harder for the notebook: edgeitems 3)"


def test_a_print_of_exactly_the_limit_is_whole_and_one_character_more_is_summarised_harder() -> None:
    t = lt.arange(600.0).reshape(20, 30) / 7
    options = current_options()
    whole = notebook_print(t, options, limit=10**9)
    size = len(whole.plain())
    exact = notebook_print(t, options, limit=size)
    assert exact.plain() == whole.plain() and exact.grid is not None
    over = notebook_print(t, options, limit=size - 1)
    assert over.body[-1].plain == HARDER
    assert len(over.plain()) <= size - 1


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def test_a_cut_keeps_the_longest_run_of_first_lines_that_fits() -> None:
    words = np.array([["a" * 30], ["b" * 50], ["c" * 70]], dtype=object)
    t = lt.tensor(words)
    options = current_options(threshold=0, edgeitems=1)  # nothing left to summarise harder
    whole = notebook_print(t, options, limit=10**9)
    header = [line.plain for line in whole.header.lines()]
    body = [line.plain for line in whole.body]
    assert len(body) == 3  # the first word, `⋮`, the last word
    for limit in range(_size(header) - 2, len(whole.plain()) + 2):
        printed = notebook_print(t, options, limit=limit)
        if len(whole.plain()) <= limit:
            assert [line.plain for line in printed.body] == body
            continue
        fitting = 0
        while fitting < len(body) and _size(header + body[: fitting + 1]) <= limit:
            fitting += 1
        assert [line.plain for line in printed.body] == [
            *body[:fitting],
            f"(cut to {limit:,} characters for the notebook)",
        ], limit
        assert printed.grid is None


def test_the_note_of_a_cut_is_dim_in_the_html() -> None:
    words = lt.tensor(np.array(["x" * 60_000] * 4, dtype=object).reshape(4, 1))
    page = notebook_mimebundle(words, current_options(threshold=10**9))["text/html"]
    note = "(cut to 100,000 characters for the notebook)"
    assert re.search(rf'<span class="lt-dim">{re.escape(note)}</span>', page)

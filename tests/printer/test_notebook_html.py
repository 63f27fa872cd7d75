"""The notebook print of a tensor: the rule between groups of slices is a dim `<pre>` like the
plain rule, notes of harder summarising are dim, and a print that is too big is summarised down to one
edge item before it is cut (the mutation run of `lazytensor/printer/notebook.py`, issue #25).

Reaches into `lazytensor.printer.notebook` and `lazytensor.printer.options`: the notebook print is
built at a size limit smaller than the module's own.
"""

from __future__ import annotations

import re

import attrs
import numpy as np

import lazytensor as lt
from lazytensor.printer.notebook import notebook_mimebundle, notebook_print
from lazytensor.printer.options import current_options


def test_the_rule_between_groups_of_slices_is_a_dim_pre_like_the_plain_rule() -> None:
    t = lt.asarray(np.arange(48).reshape(2, 2, 3, 4))
    bundle = notebook_mimebundle(t, current_options())
    plain_rules = [line for line in bundle["text/plain"].splitlines() if line and set(line) == {"─"}]
    html_rules = re.findall(r'<pre class="lt-pre lt-rule"[^>]*>(.*?)</pre>', bundle["text/html"])
    assert plain_rules == ["─" * 32]
    assert html_rules == [f'<span class="lt-dim">{rule}</span>' for rule in plain_rules]


def test_the_note_of_harder_summarising_is_dim_in_the_html() -> None:
    options = attrs.evolve(current_options(), threshold=10**9)
    bundle = notebook_mimebundle(lt.arange(10**5), options)
    note = "(summarised harder for the notebook: edgeitems 3)"
    assert bundle["text/plain"].splitlines()[-1] == note
    assert f'<span class="lt-dim">{note}</span>' in bundle["text/html"]


def test_a_print_too_big_at_two_edge_items_is_summarised_to_one_not_cut() -> None:
    t = lt.arange(5**6).reshape(5, 5, 5, 5, 5, 5)
    printed = notebook_print(t, attrs.evolve(current_options(), edgeitems=3), limit=3000)
    assert printed.body[-1].plain == "(summarised harder for the notebook: edgeitems 1)"

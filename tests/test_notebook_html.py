"""The notebook HTML of a tensor: the rule between groups of slices is its own dim `<pre>`, the
rule of the plain text (the mutation run of `lazytensor/printer/notebook.py`, issue #25)."""

from __future__ import annotations

import re

import attrs
import numpy as np

import lazytensor as lt
from lazytensor.printer.notebook import notebook_mimebundle
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

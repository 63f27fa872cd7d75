"""The key table is the one place keys are bound: the app's bindings, its footer and the table in
`docs/browse.md` all follow it.

Reaches into `lazytensor.browse`: the key table and the app that binds it.
"""

from __future__ import annotations

import pathlib
import re

import pytest
from browse_support import drive

import lazytensor as lt
from lazytensor.browse.keys import KEYS, Key, key_table

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "browse.md"


def _docs_table() -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8").split("<!-- key-table -->")[1]
    rows = [line for line in text.strip().splitlines() if line.startswith("|")][2:]
    return [tuple(cell.strip() for cell in row.strip("|").split("|")) for row in rows]  # type: ignore[misc]


def test_the_docs_key_table_is_the_key_table() -> None:
    assert _docs_table() == key_table()


def test_every_key_the_issue_names_is_bound_once() -> None:
    bound = [name for key in KEYS for name in key.keys.split(",")]
    assert len(bound) == len(set(bound)), "a key is bound twice"
    for name in ("left", "right", "up", "down", "x", "y", "t", "h", "plus", "minus", "pageup", "pagedown"):
        assert name in bound
    for name in ("home", "end", "slash", "s", "e", "c", "q", "enter", "u"):
        assert name in bound
    assert len({key.action for key in KEYS}) == len(KEYS)


def test_a_binding_without_an_action_is_refused() -> None:
    with pytest.raises(ValueError, match="needs keys, an action and a description"):
        Key("q", "", "quit", "q")


def test_the_app_binds_the_table_and_has_an_action_for_each_entry() -> None:
    app = pytest.importorskip("lazytensor.browse.app", reason="the browse extra (textual) is not installed")
    bindings = app.BrowseApp.BINDINGS
    assert [(b.key, b.action, b.description, b.show) for b in bindings] == [
        (k.keys, k.action, k.description, k.footer) for k in KEYS
    ]
    for key in KEYS:
        method = re.sub(r"\(.*\)$", "", key.action)
        assert method == "quit" or hasattr(app.BrowseApp, f"action_{method}"), key


def test_the_footer_shows_the_tables_keys() -> None:
    app = pytest.importorskip("lazytensor.browse.app", reason="the browse extra (textual) is not installed")
    footer = drive(app.BrowseApp(lt.zeros(2, 3, 4), "t"), [], size=(200, 12)).splitlines()[-1]
    shown = [key for key in KEYS if key.footer]
    for key in shown:
        assert (key.group or key.description) in footer, key
    groups = [key.group for key in shown if key.group]
    words = [key.group or key.description for key in shown]
    assert sorted({w: footer.index(w) for w in words}, key=lambda w: footer.index(w)) == list(
        dict.fromkeys(words)
    )
    assert len(groups) == 2 * len(set(groups))  # each group is shown once for its two keys

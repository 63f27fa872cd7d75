"""The browser's keys, in one table: rebind a key here and the app, its footer and the docs follow.

Each entry names the keys (textual's names, comma-separated), the action the app runs and the
words the footer and `docs/browse.md` show for it.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Key:
    """One binding: `keys` (textual's key names, comma-separated), the app's `action`, a `description`
    for the footer, and `shown` (what the docs' key table writes for the keys).

    >>> Key("q", "quit", "quit", "q").keys
    'q'
    """

    keys: str
    action: str
    description: str
    shown: str
    footer: bool = True

    def __attrs_post_init__(self) -> None:
        if not self.keys or not self.action or not self.description:
            raise ValueError(f"a key binding needs keys, an action and a description, got {self!r}")


KEYS: tuple[Key, ...] = (
    Key("left", "step(-1)", "previous index", "←"),
    Key("right", "step(1)", "next index", "→"),
    Key("up", "choose_axis(-1)", "axis up", "↑"),
    Key("down", "choose_axis(1)", "axis down", "↓"),
    Key("x", "make_columns", "axis → columns", "x"),
    Key("y", "make_rows", "axis → rows", "y"),
    Key("t", "transpose", "transpose", "t"),
    Key("h", "heatmap", "heatmap", "h"),
    Key("plus,equals_sign", "precision(1)", "more digits", "+"),
    Key("minus", "precision(-1)", "fewer digits", "-"),
    Key("pageup", "page(-1)", "page up", "PgUp", footer=False),
    Key("pagedown", "page(1)", "page down", "PgDn", footer=False),
    Key("home", "home", "first row", "Home", footer=False),
    Key("end", "end", "last row", "End", footer=False),
    Key("left_square_bracket", "page_columns(-1)", "page left", "[", footer=False),
    Key("right_square_bracket", "page_columns(1)", "page right", "]", footer=False),
    Key("shift+up", "cursor(-1, 0)", "cell up", "Shift+↑", footer=False),
    Key("shift+down", "cursor(1, 0)", "cell down", "Shift+↓", footer=False),
    Key("shift+left", "cursor(0, -1)", "cell left", "Shift+←", footer=False),
    Key("shift+right", "cursor(0, 1)", "cell right", "Shift+→", footer=False),
    Key("slash", "jump", "jump", "/"),
    Key("s", "stats", "stats", "s"),
    Key("e", "explain", "explain", "e"),
    Key("c", "copy_key", "copy key", "c"),
    Key("enter", "edit", "edit cell", "Enter", footer=False),
    Key("u", "undo", "undo edit", "u", footer=False),
    Key("escape", "cancel", "cancel", "Esc", footer=False),
    Key("q", "quit", "quit", "q"),
)
"""Every key of the browser, in the order the footer and the docs list them."""


def key_table() -> list[tuple[str, str]]:
    """The docs' key table: what is pressed, and what it does.

    >>> key_table()[0]
    ('←', 'previous index')
    """
    return [(key.shown, key.description) for key in KEYS]

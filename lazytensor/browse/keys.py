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
    group: str | None = None
    """Keys of one group show once in the footer, side by side, with the group's words."""

    def __attrs_post_init__(self) -> None:
        if not self.keys or not self.action or not self.description:
            raise ValueError(f"a key binding needs keys, an action and a description, got {self!r}")


KEYS: tuple[Key, ...] = (
    Key("q", "quit", "quit", "q"),
    Key("left", "step(-1)", "previous index of the moving axis", "←", group="index"),
    Key("right", "step(1)", "next index of the moving axis", "→", group="index"),
    Key("up", "choose_axis(-1)", "the outer axis before moves", "↑", group="axis"),
    Key("down", "choose_axis(1)", "the outer axis after moves", "↓", group="axis"),
    Key("x", "make_columns", "the moving axis becomes the columns", "x", group="slice axes"),
    Key("y", "make_rows", "the moving axis becomes the rows", "y", group="slice axes"),
    Key("t", "transpose", "transpose", "t"),
    Key("h", "heatmap", "heatmap", "h"),
    Key("plus,equals_sign", "precision(1)", "one more digit", "+", group="digits"),
    Key("minus", "precision(-1)", "one digit fewer", "-", group="digits"),
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
    Key("c", "copy_key", "copy", "c"),
    Key("enter", "edit", "edit cell", "Enter", footer=False),
    Key("u", "undo", "undo edit", "u", footer=False),
    Key("escape", "cancel", "cancel", "Esc", footer=False),
)
"""Every key of the browser, in the order the footer and the docs list them (`q` first: a narrow
footer shows the start of the list)."""


def key_table() -> list[tuple[str, str]]:
    """The docs' key table: what is pressed, and what it does.

    >>> key_table()[1]
    ('←', 'previous index of the moving axis')
    """
    return [(key.shown, key.description) for key in KEYS]

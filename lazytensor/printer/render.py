"""Any rich renderable as plain text, coloured HTML or a Jupyter mimebundle, and the consoles for them.

Plain text has no colour and a fixed width whenever the output is not a terminal, so
tests compare strings; the printer and `explain` both render through here.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console


def plain_console(width: int) -> Console:
    """A colourless console writing into a string, `width` columns wide, whatever the environment says."""
    return Console(
        file=io.StringIO(),
        width=width,
        color_system=None,
        force_terminal=False,
        force_jupyter=False,
        force_interactive=False,
        no_color=True,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
        legacy_windows=False,
    )


def output_console(width: int | None) -> Console:
    """A console on stdout: colour on a terminal; a given width is kept even on a dumb terminal."""
    height = None if width is None else 25  # rich keeps a width only when a height comes with it
    return Console(width=width, height=height, highlight=False, markup=False, emoji=False)


def render_plain(renderable: Any, width: int) -> str:
    """Any renderable as plain text at `width` columns: no colour, no trailing spaces, no final newline.

    >>> from rich.text import Text
    >>> render_plain(Text("a long line of words"), 10)
    'a long\\nline of\\nwords'
    """
    console = plain_console(width)
    console.print(renderable)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def render_html(renderable: Any, width: int) -> str:
    """Any renderable as coloured HTML (for Jupyter), inline styles, in a `<pre>`.

    >>> from rich.text import Text
    >>> render_html(Text("hi", style="red"), 20).startswith("<pre")
    True
    """
    console = Console(
        file=io.StringIO(),
        record=True,
        width=width,
        force_terminal=True,
        force_jupyter=False,
        color_system="truecolor",
        highlight=False,
        markup=False,
        emoji=False,
    )
    console.print(renderable)
    code_format = (
        "<pre style=\"font-family:Menlo,'DejaVu Sans Mono',consolas,monospace;line-height:1.25\">{code}</pre>"
    )
    return console.export_html(inline_styles=True, code_format=code_format)


def mimebundle(renderable: Any, plain: str, width: int) -> dict[str, str]:
    """The Jupyter display bundle: plain text, and HTML with the colours.

    >>> from rich.text import Text
    >>> sorted(mimebundle(Text("hi"), "hi", 20))
    ['text/html', 'text/plain']
    """
    return {"text/plain": plain, "text/html": render_html(renderable, width)}

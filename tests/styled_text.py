"""Rendered text with its styles written inline, for golden files that pin colours as well as characters.

`styled(renderable, width)` renders on a fixed truecolor console (whatever the environment says) and
writes every styled run as `[style|css-class]text[/]`, so a golden file shows which words are bold,
dim or coloured and which CSS class the notebook gives them, and stays readable in a diff.
"""

from __future__ import annotations

import re
from typing import Any

from rich.segment import Segment

from lazytensor.printer.render import html_console
from lazytensor.printer.styles import css_class

ANSI = re.compile(r"\x1b\[[0-9;]*m")
"""The colour and style escapes a terminal rendering carries."""


def _tag(segment: Segment) -> str:
    style = segment.style
    if style is None or (str(style) in ("", "none") and css_class(style) is None):
        return ""
    return f"{style}|{css_class(style)}"


def styled_line(segments: list[Segment]) -> str:
    """One rendered line as text with `[style|css]...[/]` around each styled run, trailing spaces dropped."""
    runs: list[tuple[str, str]] = []
    for segment in segments:
        if segment.control or not segment.text:
            continue
        tag = _tag(segment)
        if runs and runs[-1][0] == tag:
            runs[-1] = (tag, runs[-1][1] + segment.text)
        else:
            runs.append((tag, segment.text))
    if runs and runs[-1][0] == "":
        runs[-1] = ("", runs[-1][1].rstrip())
    return "".join(f"[{tag}]{text}[/]" if tag and text.strip() else text for tag, text in runs).rstrip()


def styled(renderable: Any, width: int) -> str:
    """`renderable` rendered at `width` columns, one line per line, styles inline."""
    console = html_console(width)  # fixed truecolor, whatever the environment says
    lines = console.render_lines(renderable, console.options.update(width=width), pad=False, new_lines=False)
    return "\n".join(styled_line(line) for line in lines) + "\n"

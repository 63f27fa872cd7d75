"""Any rich renderable as plain text, coloured HTML or a Jupyter mimebundle, and the consoles for them.

Plain text has no colour and a fixed width whenever the output is not a terminal, so
tests compare strings; the printer and `explain` both render through here.
"""

from __future__ import annotations

import html
import io
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.color import Color
from rich.console import Console
from rich.segment import Segment
from rich.text import Span, Text

from lazytensor.printer.cells import VIRIDIS, readable_on
from lazytensor.printer.styles import css_class

WIDTH_KEEPING_HEIGHT = 25
"""A console's height, given with its width: without one, rich drops a given width on a terminal it
calls dumb (`TERM=dumb` or `unknown`) and draws at 80 columns. Nothing the printer draws reads it."""


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
    """A console on stdout: colour on a terminal or with `FORCE_COLOR`, none at all with `NO_COLOR`
    (not even bold or dim); a given width is kept even on a dumb terminal."""
    height = None if width is None else WIDTH_KEEPING_HEIGHT
    if os.environ.get("NO_COLOR"):
        return Console(
            width=width, height=height, color_system=None, highlight=False, markup=False, emoji=False
        )
    return Console(width=width, height=height, highlight=False, markup=False, emoji=False)


def colour_wanted(stream: Any = None) -> bool:
    """Colour on `stream` (stdout by default): never with `NO_COLOR`, always with `FORCE_COLOR`,
    else on a terminal that is not `dumb` (the conventions of no-color.org and force-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty()) and os.environ.get("TERM") != "dumb"


def render_ansi(renderable: Any, width: int) -> str:
    """Any renderable as text with ANSI colours (the terminal's colour system), no final newline."""
    console = Console(
        file=io.StringIO(),
        width=width,
        height=WIDTH_KEEPING_HEIGHT,
        force_terminal=True,
        force_jupyter=False,
        no_color=False,
        highlight=False,
        markup=False,
        emoji=False,
        legacy_windows=False,
    )
    console.print(renderable, crop=False)  # a cell wider than the line is shown whole, never cut
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text.rstrip("\n")


def render_for_prompt(renderable: Any, width: int) -> str:
    """What a prompt shows: colour when `colour_wanted()`, plain text otherwise."""
    return render_ansi(renderable, width) if colour_wanted() else render_plain(renderable, width)


def render_plain(renderable: Any, width: int) -> str:
    """Any renderable as plain text at `width` columns: no colour, no trailing spaces, no final newline.

    >>> from rich.text import Text
    >>> render_plain(Text("a long line of words"), 10)
    'a long\\nline of\\nwords'
    """
    console = plain_console(width)
    console.print(renderable, crop=False)  # a cell wider than the line is shown whole, never cut
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def html_console(width: int) -> Console:
    """A console that renders styled segments (their `meta` carries the CSS classes), never to a screen."""
    return Console(
        file=io.StringIO(),
        width=width,
        height=WIDTH_KEEPING_HEIGHT,
        force_terminal=True,
        force_jupyter=False,
        color_system="truecolor",
        no_color=False,
        highlight=False,
        markup=False,
        emoji=False,
        legacy_windows=False,
    )


def segments_html(segments: Iterable[Segment], strip: bool = True) -> str:
    """One line of segments as HTML: text escaped, each styled run in a `<span>` of its CSS class.

    >>> from lazytensor.printer.styles import NEGATIVE
    >>> segments_html([Segment("a<b "), Segment("-1", NEGATIVE), Segment("  ")])
    'a&lt;b <span class="lt-neg">-1</span>'
    """
    pieces: list[str] = []
    current: str | None = None
    run: list[str] = []

    def flush() -> None:
        text = html.escape("".join(run), quote=False)
        pieces.append(f'<span class="{current}">{text}</span>' if current and text else text)
        run.clear()

    for segment in segments:
        if segment.control:
            continue
        css = css_class(segment.style)
        if css != current:
            flush()
            current = css
        run.append(segment.text)
    flush()
    joined = "".join(pieces)
    return joined.rstrip() if strip else joined


def texts_html(lines: Sequence[Text], width: int, strip: bool = True) -> list[str]:
    """Lines of `Text` as lines of HTML (trailing spaces dropped unless `strip` is False)."""
    console = html_console(width)
    return [segments_html(_as_span(line).render(console, end=""), strip) for line in lines]


def renderable_html(renderable: Any, width: int) -> list[str]:
    """Any renderable (an `explain()` tree) as lines of HTML."""
    console = html_console(width)
    return [segments_html(line) for line in console.render_lines(renderable, pad=False, new_lines=False)]


def _as_span(line: Text) -> Text:
    """`Text.render` ignores a text's own style: make it a span."""
    if not line.style:
        return line
    return Text(line.plain, spans=[Span(0, len(line.plain), line.style), *line.spans])


PRE_STYLE = "white-space:pre;overflow-x:auto;margin:0;padding:0;border:0;background:transparent"
"""On every `<pre>` itself too: where a renderer drops the style sheet, rows still never wrap."""


def _heat_rules() -> str:
    rules = []
    for index, colour in enumerate(VIRIDIS):
        red, green, blue = Color.parse(colour).get_truecolor()
        rules.append(f".lt-h{index}{{background:{colour};color:{readable_on((red, green, blue))}}}")
    return "".join(rules)


_DARK_COLOURS = (
    "--lt-neg:#ff8a80;--lt-nan:#e1a6ff;--lt-inf:#ffcc66;--lt-warn:#ffcc66;--lt-label:#4dd0e1;"
    "--lt-chain:#82b1ff;--lt-dtype:#81c784;--lt-dim:#a8a8a8"
)
NOTEBOOK_CSS = (
    ".lt-out{--lt-neg:var(--jp-error-color1,#b3261e);--lt-nan:#8e24aa;--lt-inf:#8a4b00;--lt-warn:#8a4b00;"
    "--lt-label:#00677d;--lt-chain:#1a56b0;--lt-dtype:#2e7d32;--lt-dim:#5f6368;"
    "color:var(--jp-content-font-color1,inherit);max-width:100%;overflow-x:auto}"
    ".lt-out.lt-out pre.lt-pre,.lt-out.lt-out summary{white-space:pre!important;overflow:visible!important;"
    "margin:0;padding:0;border:0;"
    "background:transparent;font-family:var(--jp-code-font-family,ui-monospace,Menlo,Consolas,monospace);"
    "font-size:var(--jp-code-font-size,13px);line-height:var(--jp-code-line-height,1.3);color:inherit}"
    ".lt-out.lt-out pre.lt-wrap{white-space:pre-wrap!important;overflow-wrap:normal;word-break:normal}"
    ".lt-out .lt-part{white-space:pre}"
    ".lt-out.lt-out pre.lt-rule{overflow:hidden!important;max-width:100%}"
    ".lt-out .lt-values{margin-top:calc(var(--jp-code-line-height,1.3) * var(--jp-code-font-size,13px))}"
    ".lt-out.lt-out .lt-panels{display:flex;flex-wrap:wrap;align-items:flex-start;column-gap:4ch;"
    "row-gap:calc(var(--jp-code-line-height,1.3) * var(--jp-code-font-size,13px));"
    "font-family:var(--jp-code-font-family,ui-monospace,Menlo,Consolas,monospace);"
    "font-size:var(--jp-code-font-size,13px);line-height:var(--jp-code-line-height,1.3)}"
    ".lt-out summary{display:block;cursor:pointer}.lt-out summary::-webkit-details-marker{display:none}"
    '.lt-out summary::after{content:" ▸ explain";color:var(--lt-dim)}'
    '.lt-out details[open]>summary::after{content:" ▾"}'
    ".lt-explain{padding-left:2ch!important}"
    ".lt-neg{color:var(--lt-neg)}.lt-nan{color:var(--lt-nan);font-weight:bold}"
    ".lt-inf{color:var(--lt-inf);font-weight:bold}.lt-warn{color:var(--lt-warn)}"
    ".lt-label,.lt-hint{color:var(--lt-label)}.lt-label{font-weight:bold}.lt-chain{color:var(--lt-chain)}"
    ".lt-dtype{color:var(--lt-dtype)}.lt-dim,.lt-zero{color:var(--lt-dim)}.lt-shape{font-weight:bold}"
    + _heat_rules()
    + f'body[data-jp-theme-light="false"] .lt-out,body.vscode-dark .lt-out,'
    f"body.vscode-high-contrast:not(.vscode-high-contrast-light) .lt-out{{{_DARK_COLOURS}}}"
    "@media (prefers-color-scheme:dark){"
    "body:not([data-jp-theme-light]):not(.vscode-light):not(.vscode-dark):not(.vscode-high-contrast) .lt-out"
    f"{{{_DARK_COLOURS};background:#1e1e1e;color:#e8e8e8}}}}"
)
"""The notebook's style sheet: colours by CSS class, from JupyterLab's theme variables where they read
well, with dark rules for JupyterLab (`data-jp-theme-light="false"`), VS Code (`body.vscode-dark`) and
`prefers-color-scheme: dark` elsewhere. Every colour reads at 4.5:1 or more (WCAG AA) on its theme.
The `<pre>` rules name `.lt-out.lt-out pre.lt-pre` so that they outrank what a template says of every
`pre` (nbconvert's classic `div.output_area pre { color: black }`), and the side-by-side slices
(`.lt-panels`) wrap as blocks to the width of the output area."""


def pre_html(lines: Sequence[str], css: str = "lt-pre") -> str:
    """Lines of HTML in a `<pre>` that never wraps."""
    body = "\n".join(lines)
    if body.startswith("\n"):
        body = "\n" + body  # HTML drops one newline right after `<pre>`
    return f'<pre class="{css}" style="{PRE_STYLE}">{body}</pre>'


def notebook_html(parts: Sequence[str]) -> str:
    """The parts of one output in the notebook's container, with its style sheet."""
    return f'<div class="lt-out"><style>{NOTEBOOK_CSS}</style>{"".join(parts)}</div>'


def render_html(renderable: Any, width: int) -> str:
    """Any renderable as notebook HTML: a `<pre>` that never wraps, colours by CSS class.

    >>> from lazytensor.printer.styles import LABEL
    >>> html_text = render_html(Text("hi", style=LABEL), 20)
    >>> html_text.startswith('<div class="lt-out">'), '<span class="lt-label">hi</span>' in html_text
    (True, True)
    """
    return notebook_html([pre_html(renderable_html(renderable, width))])


def mimebundle(renderable: Any, plain: str, width: int) -> dict[str, str]:
    """The Jupyter display bundle: plain text, and HTML with the colours.

    >>> from rich.text import Text
    >>> sorted(mimebundle(Text("hi"), "hi", 20))
    ['text/html', 'text/plain']
    """
    return {"text/plain": plain, "text/html": render_html(renderable, width)}

"""What Jupyter shows for a tensor: HTML made for notebooks, and the plain text beside it.

The `<pre>` never wraps (`white-space: pre`, a horizontal scroll when wider than the
output area), is `notebook_width` (120) columns wide unless `linewidth` is set, and
takes its colours from CSS classes (see `render.NOTEBOOK_CSS`), so a dark theme gets
dark-theme colours. The layer chain of a view opens into its `explain()` tree (an
HTML `<details>`, no JavaScript). The text is the plain print, so where a renderer
strips styles it still reads the same. The 2-D slices that stand side by side
are blocks of their own (`<pre class="lt-panel">` in a wrapping flex row), so a
narrow notebook lays them out in as many rows as its width needs. The output stays small whatever the tensor:
a print over `MAX_CHARACTERS` is summarised harder, then cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs
from rich.text import Text

from lazytensor.ground.protocol import Tensor
from lazytensor.printer.axisnames import names_of
from lazytensor.printer.explain import explain
from lazytensor.printer.grid import Panels, SliceGrid
from lazytensor.printer.header import Header
from lazytensor.printer.options import PrintOptions, notebook_line_width
from lazytensor.printer.render import notebook_html, pre_html, renderable_html, texts_html
from lazytensor.printer.styles import DIM
from lazytensor.printer.tensorprint import TensorPrint

MAX_CHARACTERS = 100_000
"""The most characters of text one notebook output holds (its HTML is a few times that)."""


@attrs.frozen
class NotebookPrint:
    """A tensor's print laid out for a notebook: its header, values, and a note if it was cut down."""

    header: Header
    body: tuple[Text, ...]
    one_line: bool
    grid: SliceGrid | None = None
    """The grid the body was drawn from, when the body is all of it (not cut down); None otherwise."""

    def lines(self) -> list[Text]:
        if self.one_line:
            return list(self.body)
        return [*self.header.lines(), Text(), *self.body]

    def plain(self) -> str:
        return "\n".join(line.plain.rstrip() for line in self.lines())


def _size(header: Header, body: list[Text]) -> int:
    return sum(len(line.plain) + 1 for line in (*header.lines(), *body))


def _harder(options: PrintOptions) -> list[PrintOptions]:
    """The options to try, in order, when a print is too big for a notebook."""
    tries = [options]
    for edge in (3, 2, 1):
        if edge < options.edgeitems or (edge == 3 and options.threshold > 0):
            tries.append(attrs.evolve(options, threshold=0, edgeitems=min(edge, options.edgeitems)))
    return tries


def notebook_print(
    t: Tensor,
    options: PrintOptions,
    limit: int = MAX_CHARACTERS,
    dims: tuple[int | None, ...] | None = None,
) -> NotebookPrint:
    """The print of `t` at the notebook width, summarised harder (then cut) until it holds `limit` characters.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.options import PrintOptions
    >>> printed = notebook_print(lt.arange(10**4), PrintOptions(threshold=10**9), limit=400)
    >>> printed.body[-1].plain
    '(summarised harder for the notebook: edgeitems 3)'
    """
    width = notebook_line_width(options)
    for tried in _harder(options):
        printable = TensorPrint(t, dims, tried)
        header, grid, body = printable.laid_out(width)
        if _size(header, body) <= limit:
            break
    if tried is not options:
        body.append(Text(f"(summarised harder for the notebook: edgeitems {tried.edgeitems})", style=DIM))
    if _size(header, body) > limit:
        kept: list[Text] = []
        room = limit - _size(header, [])
        for line in body:
            room -= len(line.plain) + 1
            if room < 0:
                break
            kept.append(line)
        kept.append(Text(f"(cut to {limit:,} characters for the notebook)", style=DIM))
        body = kept
        grid = None
    return NotebookPrint(header, tuple(body), printable.one_line, grid)


DOT = " · "
COMMA = ", "
"""Where else a named header may break: between the axes of a named shape or slice, whose parts
(`shape (trial 2, channel 64, time 1000)`) can be wider than a narrow notebook."""


def header_html(lines: Sequence[Text], width: int, separators: Sequence[str] = (DOT,)) -> list[str]:
    """Header lines as HTML that a narrow notebook may break at the `separators` between their parts
    (` · `, and `, ` in a named header) and nowhere else: each part is a `<span class="lt-part">`,
    which never breaks (`nowrap`).

    >>> header_html([Text("min 0 · max 3")], 80)
    ['<span class="lt-part">min 0</span> · <span class="lt-part">max 3</span>']
    >>> header_html([Text("shape (a 2, 3)")], 80, (DOT, COMMA))
    ['<span class="lt-part">shape (a 2</span>, <span class="lt-part">3)</span>']
    """
    pattern = re.compile("|".join(re.escape(separator) for separator in separators))
    html_lines = []
    for line in lines:
        offsets = [offset for found in pattern.finditer(line.plain) for offset in found.span()]
        pieces = line.divide(offsets) if offsets else [line]
        rendered = texts_html(list(pieces), width, strip=False)
        html_lines.append(
            "".join(
                piece if k % 2 else f'<span class="lt-part">{piece}</span>'
                for k, piece in enumerate(rendered)
            )
        )
    return html_lines


def _rule_width(body: tuple[Text, ...]) -> int:
    return max((line.cell_len for line in body), default=1)


def body_html(printed: NotebookPrint, width: int) -> list[str]:
    """The values as HTML: runs of lines in a `<pre>`, and the slices that stand side by side as
    one `<pre class="lt-panel">` each in a `<div class="lt-panels">`, which wraps them to the width
    of the notebook (the plain text packs them at `width` columns)."""
    if printed.grid is None:
        return [pre_html(texts_html(list(printed.body), width))]
    parts: list[str] = []
    run: list[Text] = []
    rule_width = _rule_width(printed.body)
    for part in printed.grid.parts():
        if isinstance(part, Text):
            run.append(part)
            continue
        if run:
            parts.append(pre_html(texts_html(run, width)))
            run = []
        if isinstance(part, Panels):
            panels = [
                pre_html(texts_html(list(block.lines), width), css="lt-pre lt-panel") for block in part.blocks
            ]
            parts.append(f'<div class="lt-panels">{"".join(panels)}</div>')
        else:  # a rule, cut at the output's width: it never makes the output scroll
            parts.append(
                pre_html(
                    texts_html([Text(part.character * rule_width, style=DIM)], width), css="lt-pre lt-rule"
                )
            )
    trailing = list(printed.body[len(printed.grid.body()) :])  # a note of harder summarising
    if run or trailing:
        parts.append(pre_html(texts_html([*run, *trailing], width)))
    return parts


def notebook_mimebundle(
    t: Tensor, options: PrintOptions, dims: tuple[int | None, ...] | None = None
) -> dict[str, str]:
    """`text/plain` and `text/html` of `t` (or its `dims` slice) for Jupyter.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.options import PrintOptions
    >>> bundle = notebook_mimebundle(lt.arange(6).reshape(2, 3).T, PrintOptions())
    >>> bundle["text/plain"].splitlines()[1]
    'layers Transposed ∘ Reshaped ∘ Storage · strided'
    >>> "<details" in bundle["text/html"] and "white-space:pre" in bundle["text/html"]
    True
    """
    printed = notebook_print(t, options, dims=dims)
    width = notebook_line_width(options)
    if printed.one_line:
        parts = [pre_html(texts_html(printed.lines(), width))]
    else:
        head = printed.header
        separators = (DOT,) if names_of(t) is None else (DOT, COMMA)
        parts = [pre_html(header_html(head.top, width, separators), css="lt-pre lt-wrap")]
        if head.chain:
            summary = "\n".join(texts_html(head.chain, width))
            tree = pre_html(renderable_html(explain(t), width), css="lt-pre lt-explain")
            parts.append(f'<details class="lt-layers"><summary>{summary}</summary>{tree}</details>')
        if head.stats:
            parts.append(pre_html(header_html(head.stats, width), css="lt-pre lt-wrap"))
        parts.append(f'<div class="lt-values">{"".join(body_html(printed, width))}</div>')
    return {"text/plain": printed.plain(), "text/html": notebook_html(parts)}

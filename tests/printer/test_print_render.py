"""How the printer renders: where colour goes (NO_COLOR, FORCE_COLOR, a terminal, a dumb one) and
the HTML pieces of the notebook (escaping, CSS spans, `<pre>` blocks), each against the text it
must give.

Reaches into `lazytensor.printer`: the renderers and the notebook's pieces are called with each
colour setting and the styles compared with the module's own.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.segment import ControlType, Segment
from rich.text import Span, Text
from styled_text import ANSI

import lazytensor as lt
from lazytensor.printer import TensorPrint, render
from lazytensor.printer.notebook import notebook_mimebundle
from lazytensor.printer.options import current_options
from lazytensor.printer.styles import LABEL, NEGATIVE


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def plain_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_colour_on_a_terminal_that_is_not_dumb_only(plain_env: pytest.MonkeyPatch) -> None:
    assert render.colour_wanted(Terminal())
    assert not render.colour_wanted(io.StringIO())
    assert not render.colour_wanted(object())  # a stream without isatty
    plain_env.setattr("sys.stdout", Terminal())
    assert render.colour_wanted()  # stdout by default
    plain_env.setenv("TERM", "dumb")
    assert not render.colour_wanted(Terminal())
    plain_env.setenv("TERM", "xterm-256color")
    assert render.colour_wanted(Terminal())


def test_force_color_and_no_color_decide_before_the_terminal(plain_env: pytest.MonkeyPatch) -> None:
    plain_env.setenv("FORCE_COLOR", "1")
    assert render.colour_wanted(io.StringIO())
    plain_env.setenv("NO_COLOR", "1")
    assert not render.colour_wanted(Terminal())


def test_the_prompt_in_colour_keeps_the_width(plain_env: pytest.MonkeyPatch) -> None:
    plain_env.setenv("FORCE_COLOR", "1")
    wide = lt.arange(-12.0, 12.0).reshape(2, 12) * 1000
    coloured = render.render_for_prompt(TensorPrint(wide), 30)
    assert "\x1b[" in coloured
    plain = [line.rstrip() for line in ANSI.sub("", coloured).splitlines()]
    assert plain == render.render_plain(TensorPrint(wide), 30).splitlines()


def test_segments_escape_text_but_not_quotes_and_skip_control_codes() -> None:
    bell = Segment("", None, [(ControlType.BELL,)])
    assert render.segments_html([Segment('say "hi" <b>'), bell, Segment("&'")]) == 'say "hi" &lt;b&gt;&amp;\''
    assert render.segments_html([Segment("-1", NEGATIVE), Segment(" ")], strip=False) == (
        '<span class="lt-neg">-1</span> '
    )


def test_lines_of_text_become_html_with_their_own_style_as_a_span() -> None:
    styled = Text("ab", style=LABEL)
    spanned = Text("a-1 ", spans=[Span(1, 3, NEGATIVE)])
    assert render.texts_html([styled, spanned], 20) == [
        '<span class="lt-label">ab</span>',
        'a<span class="lt-neg">-1</span>',
    ]
    assert render.texts_html([spanned], 20, strip=False) == ['a<span class="lt-neg">-1</span> ']
    assert render.renderable_html(Text("ab  \ncd"), 20) == ["ab", "cd"]


def test_a_pre_block_keeps_a_leading_empty_line() -> None:
    assert render.pre_html(["a", "b"]) == f'<pre class="lt-pre" style="{render.PRE_STYLE}">a\nb</pre>'
    assert render.pre_html(["", "b"], css="x") == f'<pre class="x" style="{render.PRE_STYLE}">\n\nb</pre>'


def test_inside_jupyter_the_text_renderings_still_come_back_as_strings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("rich.console._is_jupyter", lambda: True)  # as rich finds a Jupyter kernel
    t = lt.tensor([[-1.5, 2.0]])
    assert render.render_plain(TensorPrint(t), 40) == lt.to_string(t, linewidth=40)
    coloured = render.render_ansi(TensorPrint(t), 40)
    assert [line.rstrip() for line in ANSI.sub("", coloured).splitlines()] == render.render_plain(
        TensorPrint(t), 40
    ).splitlines()


def test_a_0d_print_follows_the_options_of_its_call() -> None:
    assert lt.to_string(lt.tensor(2 / 3), precision=2) == "tensor(0.67, dtype=float64)"
    assert lt.to_string(lt.tensor(2 / 3)) == "tensor(0.6667, dtype=float64)"


def test_a_heatmap_survives_the_cut_of_rows_and_nan_keeps_its_own_style() -> None:
    t = lt.arange(3 * 8 * 4).reshape(3, 8, 4) / 3
    heat, no_heat = (
        render.render_ansi(TensorPrint(t, None, current_options(heatmap=h, maxlines=12, linewidth=80)), 80)
        for h in (True, False)
    )
    assert "⋮" in heat and heat != no_heat  # rows cut, and the cells still coloured by their heat
    assert ANSI.sub("", heat) == ANSI.sub("", no_heat)
    with_nan = lt.tensor([1.0, np.nan, 2.0])
    html = notebook_mimebundle(with_nan, current_options(heatmap=True))["text/html"]
    assert '<span class="lt-nan">nan</span>' in html and html.count("lt-heat") == 2


def test_a_tensor_that_rich_prints_keeps_the_print_options_linewidth() -> None:
    t = lt.arange(3 * 8 * 4).reshape(3, 8, 4) / 3
    with lt.printoptions(linewidth=30):
        assert render.render_plain(t, 80) == lt.to_string(t)
    assert max(len(line) for line in lt.to_string(t, linewidth=30).splitlines()) <= 30


def test_a_heatmap_of_values_without_an_order_leaves_their_cells_plain() -> None:
    for t in (lt.tensor([1 + 2j, 3j]), lt.tensor(np.array(["a", "b"]))):
        html = notebook_mimebundle(t, current_options(heatmap=True))["text/html"]
        assert "lt-heat" not in html

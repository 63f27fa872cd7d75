"""The notebook HTML (no browser needed here: see test_browser.py for the rendered checks), and the
IPython prompt: colour through `_repr_pretty_`, containers of tensors one line per tensor.

Reaches into `lazytensor.printer`: the notebook's CSS, palette and size limit are the module's own
constants, and the prompt's registration is called on IPython shells built here.
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from browser_pages import CELLS, outputs
from IPython.core.formatters import PlainTextFormatter
from IPython.core.interactiveshell import InteractiveShell
from IPython.lib.pretty import pretty
from ipython_support import ipython_shell, registered_shell
from styled_text import ANSI

import lazytensor as lt
from lazytensor.printer import prompt
from lazytensor.printer.cells import VIRIDIS, readable_on
from lazytensor.printer.notebook import MAX_CHARACTERS, notebook_mimebundle
from lazytensor.printer.options import current_options
from lazytensor.printer.prompt import register_ipython
from lazytensor.printer.render import NOTEBOOK_CSS, colour_wanted
from lazytensor.printer.styles import contrast_ratio


def visible_text(fragment: str) -> str:
    """What a browser shows of the HTML with its `<details>` closed and its styles stripped."""
    fragment = re.sub(r"<style>.*?</style>", "", fragment, flags=re.S)
    fragment = re.sub(r"(<details[^>]*><summary>.*?</summary>).*?</details>", r"\1", fragment, flags=re.S)
    fragment = fragment.replace("</pre>", "\n").replace("</summary>", "\n")
    fragment = fragment.replace('<div class="lt-values">', "\n")  # a line's height of margin above the values
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).rstrip("\n")


def _values(text: str) -> list[str]:
    """The non-blank lines after the header, rules as one character (their width follows the lines),
    without the trailing blanks a notebook's panel keeps and a terminal's line drops."""
    lines = [line.rstrip() for line in text.split("\n")]
    body = lines[lines.index("") + 1 :]
    return [
        line[0] if line and set(line) == {line[0]} and line[0] in "─═━" else line for line in body if line
    ]


def test_the_html_text_is_the_plain_text() -> None:
    t = lt.trandom(2, 3, 4, 5, seed=0).transpose(0, 1)[:, ::-1]
    bundle = t._repr_mimebundle_()
    assert bundle["text/plain"] == lt.to_string(t, linewidth=120)
    page = bundle["text/html"]
    head = visible_text(page).split("\n\n")[0]
    assert head == bundle["text/plain"].split("\n\n")[0]
    panels = re.findall(r'<pre class="lt-pre lt-panel"[^>]*>(.*?)</pre>', page, flags=re.S)
    assert len(panels) == 3 * 2  # every 2-D slice is a block of its own, which the notebook wraps
    widest = max(
        len(line) for panel in panels for line in html.unescape(re.sub(r"<[^>]+>", "", panel)).split("\n")
    )
    alone = lt.to_string(t, linewidth=widest + 1)  # so narrow that every slice stands alone in its row
    assert _values(visible_text(page)) == _values(alone)


def test_the_notebook_width_is_a_print_option() -> None:
    t = lt.arange(2 * 4 * 3 * 5).reshape(2, 4, 3, 5)  # slices 23 columns wide

    def slices_in_a_row() -> int:
        labels = [line for line in t._repr_mimebundle_()["text/plain"].splitlines() if line.startswith("[")]
        return labels[0].count("[")

    assert slices_in_a_row() == 4  # 120 columns: a row of four slices (80 columns hold three)
    assert lt.to_string(t).splitlines()[4].count("[") == 3
    with lt.printoptions(notebook_width=60):
        assert slices_in_a_row() == 2
    with lt.printoptions(linewidth=30):
        assert slices_in_a_row() == 1


def test_every_pre_never_wraps_even_without_the_style_sheet() -> None:
    page = lt.trandom(3, 4, seed=1).T._repr_mimebundle_()["text/html"]
    pres = re.findall(r"<pre [^>]*>", page)
    assert len(pres) == 4  # the top of the header, the explain tree, statistics, values
    assert all("white-space:pre;overflow-x:auto" in pre for pre in pres)  # the header's, too: a narrow
    # notebook breaks it at its ` · ` only (pre-wrap, each part a span that never breaks)
    assert ".lt-out.lt-out pre.lt-pre,.lt-out.lt-out summary{white-space:pre!important;" in NOTEBOOK_CSS


def test_colours_are_css_classes_not_inline_colours() -> None:
    t = lt.tensor([[-1.0, np.nan], [0.0, np.inf]])
    page = t._repr_mimebundle_()["text/html"]
    for css in ("lt-neg", "lt-nan", "lt-zero", "lt-inf", "lt-dtype", "lt-dim"):
        assert f'<span class="{css}">' in page
    assert "color:#" not in page.split("</style>")[1]  # no fixed colour on the text itself
    with lt.printoptions(heatmap=True):
        heatmap = lt.from_numpy(np.linspace(-1, 1, 9))._repr_mimebundle_()["text/html"]
    assert all(f'class="lt-heat lt-h{k}"' in heatmap for k in range(9))


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _custom_properties(rule: str) -> dict[str, str]:
    return dict(re.findall(r"--(lt-[a-z]+):(#[0-9a-f]{6})", rule))


def test_the_fixed_colours_read_at_aa_on_their_themes() -> None:
    light, dark = NOTEBOOK_CSS.split("body[data-jp-theme-light")[0], NOTEBOOK_CSS.split("@media")[1]
    light_colours = _custom_properties(light.replace("var(--jp-error-color1,", ""))
    dark_colours = _custom_properties(dark)
    assert set(light_colours) == set(dark_colours) == {
        "lt-neg", "lt-nan", "lt-inf", "lt-warn", "lt-label", "lt-chain", "lt-dtype", "lt-dim"
    }  # fmt: skip
    for colour in light_colours.values():
        assert contrast_ratio(_hex(colour), (255, 255, 255)) >= 4.5
    for colour in dark_colours.values():
        assert contrast_ratio(_hex(colour), _hex("#1e1e1e")) >= 4.5
    for colour in VIRIDIS:
        text = (0, 0, 0) if readable_on(_hex(colour)) == "black" else (255, 255, 255)
        assert contrast_ratio(_hex(colour), text) >= 4.5


def test_the_layer_chain_opens_into_the_explain_tree() -> None:
    t = lt.arange(24).reshape(2, 3, 4).T[1:, [2, 0]]
    page = t._repr_mimebundle_()["text/html"]
    details = re.search(r"<details class=\"lt-layers\"><summary>(.*?)</summary>(.*?)</details>", page, re.S)
    assert details is not None
    assert "layers" in visible_text(details.group(1)) and "Indexed" in visible_text(details.group(1))
    tree = visible_text(details.group(2))
    assert tree == str(t.explain())
    assert "<script" not in page
    assert "<details" not in lt.arange(3)._repr_mimebundle_()["text/html"]  # no chain, nothing to open


def test_the_output_stays_small_whatever_the_tensor() -> None:
    t = lt.arange(8**6).reshape(8, 8, 8, 8, 8, 8)
    options = current_options(threshold=10**9, edgeitems=4, maxlines=10**6)  # every slice, however tall
    bundle = notebook_mimebundle(t, options)
    assert len(bundle["text/plain"]) <= MAX_CHARACTERS
    assert len(bundle["text/html"]) < 20 * MAX_CHARACTERS
    assert bundle["text/plain"].endswith("(summarised harder for the notebook: edgeitems 2)")
    words = lt.tensor(np.array(["x" * 60_000] * 4, dtype=object).reshape(4, 1))
    cut = notebook_mimebundle(words, current_options(threshold=10**9))
    assert len(cut["text/plain"]) <= MAX_CHARACTERS + 100
    assert cut["text/plain"].endswith("(cut to 100,000 characters for the notebook)")


def test_a_one_line_print_in_the_notebook() -> None:
    bundle = lt.tensor(3.5)._repr_mimebundle_()
    assert bundle["text/plain"] == "tensor(3.5, dtype=float64)"
    assert visible_text(bundle["text/html"]) == "tensor(3.5, dtype=float64)"


# -- the prompt -----------------------------------------------------------------------------------


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    with registered_shell() as instance:
        yield instance


def _plain(shell: InteractiveShell, value: Any) -> str:
    data, _ = shell.display_formatter.format(value)
    text: str = data["text/plain"]
    return text


def test_repr_stays_plain_and_the_prompt_follows_no_color_and_force_color(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = lt.tensor([[-1.5, 2.0], [0.0, 3.0]])
    shell.display_formatter.active_types = ["text/plain"]  # IPython in a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_wanted()
    coloured = _plain(shell, t)
    assert "\x1b[" in coloured and ANSI.sub("", coloured) == repr(t)
    assert "\x1b[" not in repr(t) and "\x1b[" not in str(t)
    monkeypatch.setenv("NO_COLOR", "1")
    assert _plain(shell, t) == repr(t)
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.delenv("FORCE_COLOR")
    assert _plain(shell, t) == repr(t)  # stdout under pytest is not a terminal


def test_jupyter_gets_html_and_plain_text(shell: InteractiveShell) -> None:
    data, _ = shell.display_formatter.format(lt.arange(3))
    assert set(data) >= {"text/plain", "text/html"}
    assert data["text/plain"] == repr(lt.arange(3))


def test_containers_at_the_prompt(shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    mu, sd = lt.tensor([1.0, 2.0]), lt.tensor([0.5, 0.25])
    assert _plain(shell, (mu, sd)).splitlines() == [
        "(tensor (2,) float64 n=2 x∈[1, 2] μ=1.5 σ=0.5,",
        " tensor (2,) float64 n=2 x∈[0.25, 0.5] μ=0.375 σ=0.125)",
    ]
    assert _plain(shell, [mu, sd]).startswith("[tensor (2,)")
    assert _plain(shell, {"mu": mu, "sd": sd}).startswith("{'mu': tensor (2,)")
    assert _plain(shell, (1, 2)) == "(1, 2)"  # IPython's own printer for everything else
    assert _plain(shell, {"a": [1, 2]}) == "{'a': [1, 2]}"
    assert not register_ipython(shell)  # once per shell


def test_the_prompt_keeps_ipythons_printer_for_containers_without_tensors(shell: InteractiveShell) -> None:
    long = list(range(40))
    assert _plain(shell, long) == pretty(long)  # wrapped by IPython's printer, unlike repr
    assert "\n" in pretty(long)


def test_the_prompt_prints_at_the_print_options_width(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell.display_formatter, "active_types", ["text/plain"])  # a terminal
    wide = lt.arange(-12.0, 12.0).reshape(2, 12) * 1000
    with lt.printoptions(linewidth=30):
        assert _plain(shell, wide) == repr(wide)
        assert max(len(line) for line in repr(wide).splitlines()) == 30
        assert max(len(line) for line in _plain(shell, (wide, -wide)).splitlines()) <= 30


def test_containers_register_on_the_shell_given_and_on_none_outside_ipython(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    formatter = PlainTextFormatter()
    given = SimpleNamespace(display_formatter=SimpleNamespace(formatters={"text/plain": formatter}))
    assert register_ipython(given)
    assert getattr(formatter.lookup_by_type(list), "lazytensor_containers", False)
    assert not register_ipython(given)  # once per shell
    InteractiveShell.clear_instance()
    with ipython_shell() as running:
        assert register_ipython()  # the running shell, by default
        assert _plain(running, [lt.arange(2), lt.arange(3)]).startswith("[tensor (2,)")
    monkeypatch.delitem(sys.modules, "IPython")
    assert not register_ipython()


def test_no_shell_without_ipython_and_a_shell_without_a_formatter_shows_html(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "IPython")
    assert prompt.running_shell() is None
    assert prompt.shows_html(object())
    plain = SimpleNamespace(display_formatter=SimpleNamespace(active_types=["text/plain"]))
    assert not prompt.shows_html(plain)


# -- a real notebook, executed with nbclient (the browser renders it in test_browser.py) -----------


def _data(name: str) -> dict[str, str]:
    (output,) = outputs(name)
    data: dict[str, str] = output["data"]
    return data


def test_the_executed_notebook_shows_every_tensor_as_notebook_html() -> None:
    for name in CELLS:
        if name == "pair":
            continue
        data = _data(name)
        assert data["text/html"].startswith('<div class="lt-out">'), name
        assert "\x1b[" not in data["text/plain"], name
    assert "<details" in _data("fancy_view")["text/html"]
    assert 'class="lt-heat lt-h0"' in _data("heatmap")["text/html"]
    assert _data("explain")["text/plain"].startswith("Indexed (6, 3, 5)")


def test_the_executed_notebook_says_what_was_skipped() -> None:
    assert "stats skipped: memory-mapped · t.stats()" in _data("memory_map")["text/plain"]
    assert "stats skipped: over 100,000 elements · t.stats()" in _data("big")["text/plain"]
    small = _data("memory_map_slice")["text/plain"]
    assert "memory-mapped" in small and "min -100" in small


def test_the_executed_notebook_prints_one_liners() -> None:
    assert _data("zero_d")["text/plain"].startswith("tensor(")
    pair = ANSI.sub("", _data("pair")["text/plain"]).splitlines()  # the kernel sets FORCE_COLOR
    assert len(pair) == 2 and pair[0].startswith("(tensor (6,) float64 n=6 x∈[")


def test_explain_summary_and_stats_are_coloured_at_a_terminal_prompt(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell.display_formatter.active_types = ["text/plain"]
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    t = lt.arange(6.0).reshape(2, 3).T - 1
    assert t.T.explain()._repr_mimebundle_() == {}  # IPython then asks `_repr_pretty_`
    assert t._repr_mimebundle_() == {}
    for value in (t.T.explain(), t.summary(), t.stats(), t):
        coloured = _plain(shell, value)
        assert "\x1b[" in coloured and ANSI.sub("", coloured) == str(value)
    shell.display_formatter.active_types = ["text/plain", "text/html"]
    assert "<details" not in t.T.explain()._repr_mimebundle_()["text/html"]


def test_t_print_in_jupyter_displays_the_notebook_html(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    published: list[dict[str, str]] = []
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, metadata: published.append(data))
    t = lt.arange(24).reshape(2, 3, 4)
    t.print((1, None, None), heatmap=True)
    (bundle,) = published
    assert bundle["text/plain"].startswith("slice [1, :, :] of a tensor of shape (2, 3, 4)")
    assert 'class="lt-heat lt-h0"' in bundle["text/html"]
    t.print(style="separators")  # the seeds' text stays text
    assert len(published) == 1


def test_t_print_in_ipython_in_a_terminal_prints_the_text(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    published: list[dict[str, str]] = []
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, metadata: published.append(data))
    monkeypatch.setattr(shell.display_formatter, "active_types", ["text/plain"])
    t = lt.arange(6).reshape(2, 3)
    t.print(linewidth=80)
    assert published == []
    assert ANSI.sub("", capsys.readouterr().out) == lt.to_string(t, linewidth=80) + "\n"


def test_the_executed_notebook_names_the_axes() -> None:
    named = _data("named")["text/plain"]
    assert named.startswith("shape (trial 2, channel 3, time 4, freq 5) · float64 · 120 elements\n")
    assert "[trial=0, channel=1, time↓, freq→]" in named
    sliced = _data("named_slice")
    slice_line = (
        "slice [freq=:, time=1, channel=:, trial=:] of a tensor of shape (freq 5, time 4, channel 3, trial 2)"
    )
    assert sliced["text/plain"].startswith(slice_line + "\n")
    assert "[freq=0, time=1, channel↓, trial→]" in sliced["text/plain"]
    header = sliced["text/html"].split('class="lt-pre lt-wrap"')[1]
    assert '</span>, <span class="lt-part">' in header  # a narrow notebook may break it between axes

"""The summary line and `t.stats()` beyond their plain text: the style of each part (the colour only
repeats what the text says), the print options they honour, the prompt's text, and containers that
are not plain tuples, lists or dicts.

Reaches into `lazytensor.printer`: the summary's parts (`SummaryLine`, `StatsReport`,
`container_summary`, `is_tensor`) are built directly and their styles compared with the module's
own.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from rich.text import Text

import lazytensor as lt
from lazytensor.printer import streamstats
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.styles import CHAIN, DIM, DTYPE, SHAPE, WARN
from lazytensor.printer.summary import (
    StatsReport,
    SummaryLine,
    container_summary,
    is_tensor,
    streamed_statistics,
    summary_text,
)


def runs(text: Text) -> list[tuple[str, Any]]:
    """Each styled run of `text`: the characters it covers and its style."""
    return [(text.plain[span.start : span.end], span.style) for span in text.spans]


def test_each_part_of_a_summary_has_its_style() -> None:
    t = lt.tensor([1.0, np.nan, np.inf]).T[::1]
    text = summary_text(t)
    assert text.plain == "tensor (3,) float64 n=3 x∈[1, 1] μ=1 σ=0 nan 1 inf 1 Sliced∘Transposed∘Storage"
    styled = runs(text)
    assert styled[:5] == [
        ("tensor", DIM),
        ("(3,)", SHAPE),
        ("float64", DTYPE),
        ("nan 1", WARN),
        ("inf 1", WARN),
    ]
    assert ("Sliced∘Transposed∘Storage", CHAIN) in styled
    assert {style for part, style in styled[5:]} == {CHAIN}


def test_a_summary_names_the_axes_of_its_shape() -> None:
    t = lt.zeros(2, 3, names=("row", None))
    assert str(t.summary()) == "tensor (row 2, 3) float64 n=6 x∈[0, 0] μ=0 σ=0"
    assert str(t.T.summary()).startswith("tensor (3, row 2) float64 n=6")


def test_empty_and_skipped_statistics_are_styled() -> None:
    assert runs(summary_text(lt.zeros(0, 2)))[-1] == ("empty", DIM)
    skipped = summary_text(lt.arange(200_000))
    assert skipped.plain.endswith("(stats skipped: over 100,000 elements)")
    assert runs(skipped)[-1] == ("(stats skipped: over 100,000 elements)", WARN)


def test_a_0d_summary_follows_precision_and_notation() -> None:
    value = lt.tensor(1 / 3)
    assert str(value.summary(precision=2)) == "tensor(0.33, dtype=float64)"
    assert str(value.summary(sci_mode=True)) == "tensor(3.3333e-01, dtype=float64)"
    assert summary_text(value, PrintOptions(precision=1)).plain == "tensor(0.3, dtype=float64)"
    with lt.printoptions(precision=3):
        assert summary_text(value).plain == "tensor(0.333, dtype=float64)"
        assert str(SummaryLine(value)) == "tensor(0.333, dtype=float64)"


def test_a_summary_shows_counts_of_true_and_nothing_for_strings() -> None:
    assert str(lt.tensor([True, True, False]).summary()) == "tensor (3,) bool n=3 true 2"
    assert str(lt.from_numpy(np.array(["a", "bc"])).summary()) == "tensor (2,) <U2 n=2"


def test_a_summary_and_its_statistics_follow_the_options() -> None:
    t = lt.tensor([1.0, 2.0, 4.0])
    assert str(t.summary(precision=6)) == "tensor (3,) float64 n=3 x∈[1, 4] μ=2.33333 σ=1.24722"
    assert (
        str(t.summary(stats_limit=2)) == "tensor (3,) float64 n=3 (stats skipped: 3 elements > stats_limit 2)"
    )


class _Pretty:
    """IPython's pretty printer, as far as `_repr_pretty_` uses it."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def text(self, value: str) -> None:
        self.texts.append(value)


def test_the_prompt_shows_the_plain_line_when_not_a_terminal() -> None:
    line = lt.tensor([1.0, 2.0]).T.summary()
    pretty = _Pretty()
    line._repr_pretty_(pretty, cycle=False)
    assert pretty.texts == [str(line)] == [repr(line)]
    report = lt.tensor([1.0, 2.0]).stats()
    pretty = _Pretty()
    report._repr_pretty_(pretty, cycle=False)
    assert pretty.texts == [str(report)]


def test_a_report_at_the_prompt_wraps_at_the_configured_width() -> None:
    report = lt.tensor([1.0, 2.0]).stats()
    pretty = _Pretty()
    with lt.printoptions(linewidth=30):
        report._repr_pretty_(pretty, cycle=False)
    lines = pretty.texts[0].splitlines()
    assert max(len(line) for line in lines) <= 30 < len(str(report).splitlines()[1])
    assert " ".join(pretty.texts[0].split()) == " ".join(str(report).split())


def test_a_summary_line_in_rich_is_its_text_in_colour() -> None:
    line = lt.tensor([1.0, np.nan]).summary()
    console = Console(width=200, force_terminal=True, color_system="standard", record=True)
    console.print(line)
    assert console.export_text(clear=False) == str(line) + "\n"
    assert "\x1b[" in console.export_text(styles=True)


def test_a_narrow_prompt_wraps_a_summary_at_its_width() -> None:
    line = SummaryLine(lt.arange(6.0).reshape(2, 3), PrintOptions(linewidth=20))
    pretty = _Pretty()
    line._repr_pretty_(pretty, cycle=False)
    assert pretty.texts[0].split() == str(line).split()
    assert max(len(row) for row in pretty.texts[0].splitlines()) <= 20


# -- containers ---------------------------------------------------------------------------------------


def test_only_plain_tuples_lists_and_dicts_are_summarised() -> None:
    a, b = lt.arange(2), lt.arange(3)
    assert container_summary(collections.OrderedDict(a=a, b=b)) is None
    assert container_summary(collections.namedtuple("Pair", "a b")(a, b)) is None
    assert container_summary(frozenset({1, 2})) is None
    assert container_summary([a, b]) is not None


def test_a_list_of_tensors_and_other_items_is_bracketed_one_per_line() -> None:
    a, b = lt.arange(2), lt.tensor(2.5)
    text = container_summary([a, "x\x1b", b])
    assert text is not None
    assert text.plain.splitlines() == [
        "[tensor (2,) int64 n=2 x∈[0, 1] μ=0.5 σ=0.5,",
        " 'x\\x1b',",
        " tensor(2.5, dtype=float64)]",
    ]


def test_a_dict_of_tensors_is_keyed_and_follows_the_options() -> None:
    value = {"a\x1b": lt.tensor(1 / 3), 2: lt.tensor(2 / 3)}
    text = container_summary(value, PrintOptions(precision=2))
    assert text is not None
    assert text.plain.splitlines() == [
        "{'a\\x1b': tensor(0.33, dtype=float64),",
        " 2: tensor(0.67, dtype=float64)}",
    ]
    with lt.printoptions(precision=1):
        default = container_summary(value)
    assert default is not None and default.plain.endswith("2: tensor(0.7, dtype=float64)}")


def test_a_tensor_is_known_by_its_protocol_without_running_properties() -> None:
    class Raising:
        layers = layer_name = oindex = numel = ()

        @property
        def storage(self) -> None:
            raise RuntimeError("read")

    assert is_tensor(Raising())
    assert not is_tensor(type("Partial", (), {"layers": (), "layer_name": "", "oindex": None, "numel": 0})())
    for name in ("layers", "layer_name", "oindex", "numel", "storage"):
        attributes = dict.fromkeys(("layers", "layer_name", "oindex", "numel", "storage"))
        del attributes[name]
        assert not is_tensor(type("Missing", (), attributes)()), name


# -- t.stats() ----------------------------------------------------------------------------------------


def test_a_report_of_one_element_and_of_none() -> None:
    one = lt.tensor([2.0]).stats()
    assert str(one).splitlines()[0] == "stats of shape (1,) · float64 · 1 element"
    assert str(lt.zeros(0).stats()).splitlines() == [
        "stats of shape (0,) · float64 · 0 elements",
        "no values",
    ]
    assert str(lt.zeros(2, 0).stats()).splitlines()[0] == "stats of shape (2, 0) · float64 · 0 elements"


def test_a_report_is_styled_and_named() -> None:
    report = lt.zeros(2, 3, names=("row", None)).stats()
    first, second = report.lines()
    assert first.plain == "stats of shape (row 2, 3) · float64 · 6 elements"
    assert runs(first) == [("(row 2, 3)", SHAPE), (" · ", DIM), ("float64", DTYPE), (" · ", DIM)]
    assert second.plain == "min 0 · max 0 · mean 0 · std 0 · zeros 6 · nan 0 · inf 0"
    assert runs(second)[:3] == [("min ", DIM), (" · ", DIM), ("max ", DIM)]
    empty = StatsReport((0,), np.dtype(np.float64), 0, ()).lines()[1]
    assert empty.plain == "no values" and empty.style == DIM
    console = Console(width=100, color_system=None, record=True)
    console.print(report)
    assert console.export_text() == str(report) + "\n"


def test_a_report_follows_precision() -> None:
    t = lt.tensor([1.0, 2.0, 4.0])
    assert t.stats(precision=6)["mean"] == "2.33333"
    assert StatsReport.of(t, PrintOptions(precision=5))["std"] == "1.2472"
    with lt.printoptions(precision=6):
        assert StatsReport.of(t)["std"] == "1.24722"


@pytest.mark.parametrize("chunk", [1, 2, 5, 7])
def test_streamed_statistics_of_a_view_in_any_chunk(chunk: int) -> None:
    t = lt.arange(12.0).reshape(3, 4).T[::-1]
    values = np.asarray(t.numpy())
    expected = dict(streamed_statistics(lt.from_numpy(values), PrintOptions()))
    assert dict(streamed_statistics(t, PrintOptions(), chunk=chunk)) == expected
    assert expected["mean"] == f"{values.mean():.4g}"


@pytest.mark.parametrize("chunk", [3, 4])
def test_streamed_statistics_read_at_most_chunk_elements_at_a_time(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes: list[int] = []
    read = streamstats._read

    def counting(t: Any) -> np.ndarray:
        sizes.append(t.numel())
        return read(t)

    monkeypatch.setattr(streamstats, "_read", counting)
    t = lt.arange(24.0).reshape(4, 6)
    for view in (t, t.T, t[:, ::2]):
        sizes.clear()
        streamed_statistics(view, PrintOptions(), chunk=chunk)
        assert sum(sizes) == view.numel() and max(sizes) <= chunk

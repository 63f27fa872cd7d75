"""One line per tensor: `t.summary()`, the `"line"` style, 0-d tensors, and containers of tensors.

`tensor (3, 4) float64 n=12 x∈[-0.9945, 0.8701] μ=-0.02355 σ=0.643 Sliced∘Transposed∘Storage`:
shape, dtype, count, range, mean, standard deviation, the counts of NaN and inf when
there are any, and a view's layer chain in short. Statistics follow the same rule as
the header (`statistics_plan`): a line never reads more than a print would.
A 0-d tensor shows its value instead of a range.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from lazytensor.ground.protocol import Tensor
from lazytensor.printer.axisnames import AxisNames, names_of, shape_text
from lazytensor.printer.escapes import printable
from lazytensor.printer.header import chain_names, format_statistics, statistics_plan
from lazytensor.printer.numberformat import format_values
from lazytensor.printer.options import PrintOptions, current_options, line_width
from lazytensor.printer.render import render_for_prompt
from lazytensor.printer.shown import select_shown
from lazytensor.printer.streamstats import BLOCK_ELEMENTS, one_pass
from lazytensor.printer.styles import CHAIN, DIM, DTYPE, SHAPE, WARN

CHAIN_EDGE = 2
"""Layers named at each end of a summarised chain in one line."""


def is_tensor(value: object) -> bool:
    """Whether `value` speaks the tensor protocol (duck typing: the printer never imports the tensor module).

    >>> import lazytensor as lt
    >>> is_tensor(lt.arange(2)), is_tensor([1, 2])
    (True, False)
    """
    return all(_has_static(value, name) for name in ("layers", "layer_name", "oindex", "numel", "storage"))


def _has_static(value: object, name: str) -> bool:
    """`hasattr` without running properties: a zarr or dask base's `storage` raises (it has no buffer)."""
    try:
        inspect.getattr_static(value, name)
    except AttributeError:
        return False
    return True


def _value_text(t: Tensor, options: PrintOptions) -> Text:
    values = np.asarray(t.numpy())
    cells = format_values(values, options)
    return Text(str(cells.texts[()]).strip())


def summary_text(t: Tensor, options: PrintOptions | None = None) -> Text:
    """The one-line summary of `t`, styled.

    >>> import lazytensor as lt
    >>> summary_text(lt.arange(12.0).reshape(3, 4).T[1:]).plain
    'tensor (3, 3) float64 n=9 x∈[1, 11] μ=6 σ=3.367 Sliced∘Transposed∘Reshaped∘Storage'
    >>> summary_text(lt.tensor(7)).plain, summary_text(lt.arange(3.0)[1]).plain
    ('tensor(7, dtype=int64)', 'tensor(1., dtype=float64)')
    """
    options = current_options() if options is None else options
    if len(t.shape) == 0:  # a number: its value and dtype, as PyTorch writes one (`explain()` has the layers)
        return Text.assemble(
            ("tensor(", DIM), _value_text(t, options), (", dtype=", DIM), (str(t.dtype), DTYPE), (")", DIM)
        )
    space = Text(" ")
    shape = shape_text(t.shape, names_of(t))
    parts = [Text("tensor", style=DIM), Text(shape, style=SHAPE), Text(str(t.dtype), style=DTYPE)]
    parts.append(Text(f"n={t.numel():,}"))
    parts += _statistics_parts(t, options)
    if len(t.layers) > 1:
        names = chain_names(t.layers, CHAIN_EDGE)
        parts.append(Text("∘", style=CHAIN).join(names))
    return space.join(parts)


def _statistics_parts(t: Tensor, options: PrintOptions) -> list[Text]:
    selection = select_shown(t, None, options)
    plan = statistics_plan(selection, options)
    if not plan.compute:
        if t.numel() == 0:
            return [Text("empty", style=DIM)]
        return [Text(f"(stats skipped: {plan.skipped})", style=WARN)] if plan.skipped else []
    entries = dict(streamed_statistics(t, options))  # cheap: the plan said so, or its base is
    parts: list[Text] = []
    if "min" in entries:
        parts.append(Text(f"x∈[{entries['min']}, {entries['max']}]"))
        parts.append(Text(f"μ={entries['mean']} σ={entries['std']}"))
    if "true" in entries:
        parts.append(Text(f"true {entries['true']}"))
    for name in ("nan", "inf"):
        if entries.get(name, "0") != "0":
            parts.append(Text(f"{name} {entries[name]}", style=WARN))
    return parts


@attrs.frozen
class SummaryLine:
    """One line per tensor; prints plain with `str`/`repr`, in colour through rich, coloured in IPython.

    >>> import lazytensor as lt
    >>> SummaryLine(lt.tensor([1.0, float("nan")]))
    tensor (2,) float64 n=2 x∈[1, 1] μ=1 σ=0 nan 1
    """

    tensor: Tensor
    options: PrintOptions = attrs.field(factory=current_options)

    def text(self) -> Text:
        return summary_text(self.tensor, self.options)

    def __str__(self) -> str:
        return self.text().plain

    def __repr__(self) -> str:
        return str(self)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's prompt: in colour on a terminal."""
        printer.text(render_for_prompt(self, line_width(self.options)))


def container_summary(value: object, options: PrintOptions | None = None) -> Text | None:
    """A tuple, list or dict holding more than one tensor, one line per item; None for anything else.

    Tensors are summarised, other items shown with `repr`.

    >>> import lazytensor as lt
    >>> print(container_summary((lt.arange(3), lt.tensor(2.5))))
    (tensor (3,) int64 n=3 x∈[0, 2] μ=1 σ=0.8165,
     tensor(2.5, dtype=float64))
    >>> container_summary((lt.arange(3), 1)) is None
    True
    """
    if isinstance(value, Mapping) and type(value) is dict:
        items: list[Any] = list(value.values())
        keys: list[str] | None = [printable(repr(key)) + ": " for key in value]
        opening, closing = "{", "}"
    elif type(value) in (tuple, list):
        assert isinstance(value, tuple | list)
        items, keys = list(value), None
        opening, closing = ("(", ")") if isinstance(value, tuple) else ("[", "]")
    else:
        return None
    if sum(1 for item in items if is_tensor(item)) < 2:
        return None
    options = current_options() if options is None else options
    lines: list[Text] = []
    for k, item in enumerate(items):
        line = Text(opening if k == 0 else " ")
        if keys is not None:
            line.append(keys[k])
        line.append_text(summary_text(item, options) if is_tensor(item) else Text(printable(repr(item))))
        line.append("," if k < len(items) - 1 else closing)
        lines.append(line)
    return Text("\n").join(lines)


@attrs.frozen
class StatsReport:
    """`t.stats()`: the statistics of every value of a tensor, computed on request whatever its size
    or storage, in one pass over its base (`streamstats.one_pass`: each chunk read once).

    >>> import lazytensor as lt
    >>> report = StatsReport.of(lt.tensor([1.0, 2.0, float("nan")]))
    >>> report
    stats of shape (3,) · float64 · 3 elements
    min 1 · max 2 · mean 1.5 · std 0.5 · zeros 0 · nan 1 · inf 0
    >>> report["mean"]
    '1.5'
    """

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    count: int
    entries: tuple[tuple[str, str], ...]
    names: AxisNames | None = None

    @classmethod
    def of(cls, t: Tensor, options: PrintOptions | None = None) -> StatsReport:
        options = current_options() if options is None else options
        entries = streamed_statistics(t, options)
        return cls(tuple(t.shape), t.dtype, t.numel(), tuple(entries), names_of(t))

    def __getitem__(self, name: str) -> str:
        return dict(self.entries)[name]

    def lines(self) -> list[Text]:
        dot = Text(" · ", style=DIM)
        first = Text.assemble(
            "stats of shape ",
            (shape_text(self.shape, self.names), SHAPE),
            dot,
            (str(self.dtype), DTYPE),
            dot,
            f"{self.count:,} element{'' if self.count == 1 else 's'}",
        )
        entries = [Text.assemble((name + " ", DIM), value) for name, value in self.entries]
        second = Text() if entries else Text(_no_statistics(self.count, self.dtype), style=DIM)
        for k, entry in enumerate(entries):
            second.append_text(dot if k else Text())
            second.append_text(entry)
        return [first, second]

    def __str__(self) -> str:
        return "\n".join(line.plain for line in self.lines())

    def __repr__(self) -> str:
        return str(self)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's prompt: in colour on a terminal."""
        printer.text(render_for_prompt(self, line_width(current_options())))


def _no_statistics(count: int, dtype: np.dtype[Any]) -> str:
    """Why a report has no statistics: no values, or values of a kind without them (strings, objects)."""
    return "no values" if count == 0 else "no statistics for this dtype"


def streamed_statistics(
    t: Tensor, options: PrintOptions, chunk: int = BLOCK_ELEMENTS
) -> list[tuple[str, str]]:
    """The header's statistics of all of `t` in one pass over its base, `chunk` elements (or one
    stored chunk) at a time: memory stays bounded, each chunk is read once, repeats cost nothing.

    >>> import lazytensor as lt
    >>> from lazytensor.printer.header import statistics
    >>> t, options = lt.arange(10.0).reshape(2, 5).T, PrintOptions()
    >>> streamed_statistics(t, options, chunk=3) == statistics(np.asarray(t.numpy()), options)
    True
    >>> dict(streamed_statistics(lt.tensor([0.0, 2.0]).expand(10**7, 10**7, 2), options))["zeros"]
    '100000000000000'
    """
    return format_statistics(one_pass(t, chunk).numbers(), options)


def inline_text(t: Tensor, max_width: int) -> str:
    """The first and last values of `t`, flat, in at most `max_width` characters (xarray's one-line
    `_repr_inline_` in a Dataset's repr); reads only the values shown.

    >>> import lazytensor as lt
    >>> inline_text(lt.arange(12.0).reshape(3, 4), 30)
    '0.0 1.0 2.0 ... 9.0 10.0 11.0'
    >>> inline_text(lt.arange(3), 30), inline_text(lt.tensor(2.5), 30)
    ('0 1 2', '2.5')
    """
    count = math.prod(t.shape)
    if count == 0:
        return "[]"
    flat = np.asarray(t.numpy()).reshape(-1) if count <= 2 * max_width else None

    def value(i: int) -> str:  # the whole tensor when small, else one element at a time
        element = flat[i] if flat is not None else np.asarray(t[np.unravel_index(i, t.shape)])[()]
        return printable(str(element.item() if isinstance(element, np.generic) else element))

    front: list[str] = []
    back: list[str] = []
    used = 0
    for k in range(count):
        i = k // 2 if k % 2 == 0 else count - 1 - k // 2
        text = value(i)
        ellipsis = 4 if k + 1 < count else 0
        if front and used + len(text) + 1 + ellipsis > max_width:
            return " ".join([*front, "...", *reversed(back)])
        (front if k % 2 == 0 else back).append(text)
        used += len(text) + 1
    return " ".join([*front, *reversed(back)])

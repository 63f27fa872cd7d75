"""The lines above a print's values: which slice, shape, dtype and count, the layer chain, statistics.

Statistics are computed only when reading the values is cheap (at most `stats_limit`
elements, never a memory-mapped file), and a very deep stack's layer chain is
summarised to its first and last few layers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from rich.text import Text

from lazytensor.printer.numberformat import Values
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.shown import Selection
from lazytensor.printer.styles import CHAIN, DIM, DTYPE, LABEL, SHAPE, WARN

if TYPE_CHECKING:
    from lazytensor.tensor import AbstractTensor

CHAIN_EDGE = 4
"""Layers named at each end of a summarised layer chain."""


def _number(value: Any, precision: int) -> str:
    if isinstance(value, int | np.integer):
        return str(int(value))
    return f"{float(value):.{max(precision, 1)}g}"


def statistics(values: Values, precision: int) -> list[tuple[str, str]]:
    """Summary numbers of the values, by kind: min, max, mean, std, and counts of zeros, NaN, inf.

    >>> dict(statistics(np.array([1.0, np.nan, 0.0, 3.0]), 4))
    {'min': '0', 'max': '3', 'mean': '1.333', 'std': '1.247', 'zeros': '1', 'nan': '1', 'inf': '0'}
    """
    kind = values.dtype.kind
    if values.size == 0 or kind not in "biufc":
        return []
    if kind == "b":
        true = int(np.count_nonzero(values))
        return [("true", str(true)), ("false", str(values.size - true))]
    entries: list[tuple[str, str]] = []
    finite = values[np.isfinite(values)] if kind in "fc" else values
    if kind != "c" and finite.size:
        entries += [
            ("min", _number(finite.min(), precision)),
            ("max", _number(finite.max(), precision)),
            ("mean", _number(finite.mean(dtype=np.float64), precision)),
            ("std", _number(finite.std(dtype=np.float64), precision)),
        ]
    entries.append(("zeros", str(int(np.count_nonzero(values == 0)))))
    if kind in "fc":
        entries.append(("nan", str(int(np.count_nonzero(np.isnan(values))))))
        entries.append(("inf", str(int(np.count_nonzero(np.isinf(values))))))
    return entries


def _statistics_source(selection: Selection, shown: Values, options: PrintOptions) -> Values | None:
    """The values the statistics are computed on, or None when reading them would cost too much."""
    sub = selection.sub
    if sub.numel() == 0 or sub.numel() > options.stats_limit or sub.base.reads_are_costly:
        return None
    return shown if not selection.summarised else np.asarray(sub.numpy())


def pack_parts(parts: Sequence[Text], separator: Text, width: int) -> list[Text]:
    """Parts joined by `separator` into as few lines as fit `width`; a line never starts with it.

    >>> [line.plain for line in pack_parts([Text("aaa"), Text("bbb"), Text("cc")], Text(" · "), 10)]
    ['aaa · bbb', 'cc']
    """
    lines: list[Text] = []
    for part in parts:
        if lines and lines[-1].cell_len + separator.cell_len + part.cell_len <= width:
            lines[-1].append_text(separator)
            lines[-1].append_text(part)
        else:
            lines.append(part.copy())
    return lines


def chain_names(layers: Sequence[Any], edge: int = CHAIN_EDGE) -> list[Text]:
    """The short names of a layer chain, top first; a deep one as its first and last `edge` and a count.

    >>> from types import SimpleNamespace as Layer
    >>> [name.plain for name in chain_names([Layer(layer_name=f"L{i}") for i in range(12)], edge=2)]
    ['L0', 'L1', '… 8 more', 'L10', 'L11']
    """
    count = len(layers)
    if count <= 2 * edge + 1:
        return [Text(layer.layer_name, style=CHAIN) for layer in layers]
    head = [Text(layer.layer_name, style=CHAIN) for layer in layers[:edge]]
    tail = [Text(layer.layer_name, style=CHAIN) for layer in layers[count - edge :]]
    return [*head, Text(f"… {count - 2 * edge:,} more", style=DIM), *tail]


def _chain_lines(t: AbstractTensor, dot: Text, width: int) -> list[Text]:
    """`layers Sliced ∘ Transposed ∘ Storage · strided`, packed into lines of `width`."""
    names = chain_names(t.layers)
    names[0] = Text.assemble("layers ", names[0])
    names[-1].append_text(dot)
    names[-1].append("strided" if t.layout is not None else "gather")
    return pack_parts(names, Text(" ∘ ", style=CHAIN), width)


def header_lines(selection: Selection, shown: Values, options: PrintOptions, width: int) -> list[Text]:
    """The lines above the values: which slice, shape and dtype, layers, statistics."""
    t, sub = selection.tensor, selection.sub
    dot = Text(" · ", style=DIM)
    lines: list[Text] = []
    if selection.is_slice:
        lines.append(
            Text.assemble("slice ", (selection.slice_text(), LABEL), f" of a tensor of shape {t.shape}")
        )
    count = sub.numel()
    parts = [
        Text.assemble("shape ", (str(sub.shape), SHAPE)),
        Text(str(sub.dtype), style=DTYPE),
        Text(f"{count:,} element{'' if count == 1 else 's'}"),
    ]
    note = t.base.storage_note
    if note is not None:
        parts.append(Text(note, style=WARN))
    lines += pack_parts(parts, dot, width)
    if len(t.layers) > 1:
        lines += _chain_lines(t, dot, width)
    source = _statistics_source(selection, shown, options)
    entries = [] if source is None else statistics(source, options.precision)
    stats = [Text.assemble((name + " ", DIM), value) for name, value in entries]
    lines += pack_parts(stats, dot, width)
    return lines

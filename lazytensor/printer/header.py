"""The lines above a print's values: which slice, shape, dtype and count, the layer chain, statistics.

Statistics are computed only when reading the values is cheap (see `statistics_plan`);
when they are not, the header says so in a word and how to get them (`t.stats()`).
A very deep stack's layer chain is summarised to its first and last few layers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from rich.text import Text

from lazytensor.ground.buffers import is_memory_mapped
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.axisnames import coords_entries, one_line_or_two, shape_entries, shape_text, wrapped
from lazytensor.printer.escapes import printable
from lazytensor.printer.numberformat import Values
from lazytensor.printer.options import AUTO_STATS_LIMIT, PrintOptions
from lazytensor.printer.shown import Selection
from lazytensor.printer.streamstats import one_pass
from lazytensor.printer.styles import CHAIN, DIM, DTYPE, HINT, LABEL, SHAPE, WARN

CHAIN_EDGE = 4
"""Layers named at each end of a summarised layer chain."""


def format_number(value: Any, digits: int) -> str:
    """A statistic as text: an int as it is, a float to `max(digits, 1)` significant digits.

    In scientific notation the mantissa is the exact value or keeps all its digits (`3.000e+06`
    for 2999998, `3e+06` only for 3000000), as in the grid.

    >>> format_number(np.int64(3), 4), format_number(2 / 3, 4)
    ('3', '0.6667')
    >>> format_number(2999998.0, 4), format_number(3e6, 4), format_number(np.float32(1e-5), 4)
    ('3.000e+06', '3e+06', '1e-05')
    """
    if isinstance(value, int | np.integer):
        return str(int(value))
    digits = max(digits, 1)
    number = float(value)
    text = f"{number:.{digits}g}"
    if "e" not in text or _parses_back(text, value):
        return text
    return f"{number:.{digits - 1}e}"


def _parses_back(text: str, value: Any) -> bool:
    """Whether `text` read in `value`'s own float type is `value` exactly."""
    kind = type(value) if isinstance(value, np.floating) else np.float64
    return bool(kind(text) == value)


STATISTICS_DIGITS = 4
"""The fewest significant digits the header's statistics show, whatever the values' precision."""


def statistics_digits(options: PrintOptions) -> int:
    """The significant digits of a statistic: the options' `precision`, and at least `STATISTICS_DIGITS`
    (a print at precision 0 still gets a readable mean).

    >>> statistics_digits(PrintOptions(precision=0)), statistics_digits(PrintOptions(precision=6))
    (4, 6)
    """
    return max(options.precision, STATISTICS_DIGITS)


def statistics(values: Values, options: PrintOptions) -> list[tuple[str, str]]:
    """Summary numbers of the values, by kind: min, max, mean, std, and counts of zeros, NaN, inf.

    >>> dict(statistics(np.array([1.0, np.nan, 0.0, 3.0]), PrintOptions()))
    {'min': '0', 'max': '3', 'mean': '1.333', 'std': '1.247', 'zeros': '1', 'nan': '1', 'inf': '0'}
    """
    kind = values.dtype.kind
    if values.size == 0 or kind not in "biufc":
        return []
    digits = statistics_digits(options)
    if kind == "b":
        true = int(np.count_nonzero(values))
        return [("true", str(true)), ("false", str(values.size - true))]
    entries: list[tuple[str, str]] = []
    finite = values[np.isfinite(values)] if kind in "fc" else values
    if kind != "c" and finite.size:
        with np.errstate(
            over="ignore", invalid="ignore"
        ):  # values near the float limit: an inf std, no warning
            mean, std = finite.mean(dtype=np.float64), finite.std(dtype=np.float64)
        entries += [
            ("min", format_number(finite.min(), digits)),
            ("max", format_number(finite.max(), digits)),
            ("mean", format_number(mean, digits)),
            ("std", format_number(std, digits)),
        ]
    entries.append(("zeros", str(int(np.count_nonzero(values == 0)))))
    if kind in "fc":
        entries.append(("nan", str(int(np.count_nonzero(np.isnan(values))))))
        entries.append(("inf", str(int(np.count_nonzero(np.isinf(values))))))
    return entries


def format_statistics(numbers: Sequence[tuple[str, Any]], options: PrintOptions) -> list[tuple[str, str]]:
    """Statistics by name (`streamstats.Moments.numbers`) as text, as `statistics` writes them.

    >>> format_statistics([("mean", 2 / 3), ("zeros", 10**18)], PrintOptions(precision=2))
    [('mean', '0.6667'), ('zeros', '1000000000000000000')]
    """
    digits = statistics_digits(options)
    return [(name, format_number(value, digits)) for name, value in numbers]


def storage_kind(t: Tensor) -> str | None:
    """`"memory-mapped"` or `"chunked"` when reading all of `t` costs more than memory; None in memory.

    >>> import lazytensor as lt
    >>> storage_kind(lt.arange(3)) is None
    True
    """
    if not t.base.has_buffer:  # an array-like base says what it is (zarr, dask), or None when cheap
        return t.base.storage_note
    storage = t.storage
    if is_memory_mapped(storage):
        return "memory-mapped"
    if not isinstance(storage, np.ndarray):
        return "chunked"
    return None


@attrs.frozen
class StatisticsPlan:
    """Whether a print computes statistics, and if not, why (None: nothing to say, e.g. strings)."""

    compute: bool
    skipped: str | None = None


def statistics_plan(selection: Selection, options: PrintOptions) -> StatisticsPlan:
    """Whether the statistics of the shown view are computed, or the word saying why they are not.

    With `stats_limit` given, it is the only rule, for every kind of storage. With the default
    (None): tensors in memory up to `AUTO_STATS_LIMIT` elements, and a memory-mapped or chunked
    one only when the print reads every value anyway (it is not summarised).

    >>> import lazytensor as lt
    >>> from lazytensor.printer.shown import select_shown
    >>> options = PrintOptions(stats_limit=5)
    >>> statistics_plan(select_shown(lt.zeros(10), None, options), options)
    StatisticsPlan(compute=False, skipped='10 elements > stats_limit 5')
    """
    sub = selection.sub
    count = sub.numel()
    if count == 0 or sub.dtype.kind not in "biufc":
        return StatisticsPlan(False)
    if options.stats_limit is not None:
        if count > options.stats_limit:
            return StatisticsPlan(False, f"{count:,} elements > stats_limit {options.stats_limit:,}")
        return StatisticsPlan(True)
    kind = storage_kind(selection.tensor)
    if kind is not None and selection.summarised:
        return StatisticsPlan(False, kind)
    if count > AUTO_STATS_LIMIT:
        return StatisticsPlan(False, f"over {AUTO_STATS_LIMIT:,} elements")
    return StatisticsPlan(True)


def shown_statistics(selection: Selection, shown: Values, options: PrintOptions) -> list[tuple[str, str]]:
    """The statistics of the shown values, or of all of them when summarised (in one pass over the
    base: an expanded axis costs nothing, a chunk is read once)."""
    if not selection.summarised:
        return statistics(shown, options)
    return format_statistics(one_pass(selection.sub).numbers(), options)


def skipped_text(reason: str) -> Text:
    """`stats skipped: memory-mapped · t.stats()`: what was not computed, why, and how to get it."""
    return Text.assemble(("stats skipped: ", DIM), (reason, WARN), (" · ", DIM), ("t.stats()", HINT))


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


def _chain_lines(t: Tensor, dot: Text, width: int) -> list[Text]:
    """`layers Sliced ∘ Transposed ∘ Storage · strided`, packed into lines of `width`."""
    names = chain_names(t.layers)
    names[0] = Text.assemble("layers ", names[0])
    names[-1].append_text(dot)
    names[-1].append("strided" if t.layout is not None else "gather")
    return pack_parts(names, Text(" ∘ ", style=CHAIN), width)


@attrs.frozen
class Header:
    """The header's lines in three parts: which slice and what it is, the layer chain, statistics."""

    top: tuple[Text, ...]
    chain: tuple[Text, ...]
    stats: tuple[Text, ...]

    def lines(self) -> list[Text]:
        return [*self.top, *self.chain, *self.stats]


def _slice_lines(selection: Selection, width: int) -> list[Text]:
    """`slice [1, :, :] of a tensor of shape (4, 2, 3)`; with names, in as many lines as `width` needs."""
    if selection.names is None:
        whole = shape_text(selection.tensor.shape, None)
        return [Text.assemble("slice ", (selection.slice_text(), LABEL), f" of a tensor of shape {whole}")]
    which = wrapped("slice ", selection.slice_entries(selection.names), "[]", LABEL, width)
    of = wrapped(
        "of a tensor of shape ", shape_entries(selection.tensor.shape, selection.names), "()", None, width
    )
    return one_line_or_two(which, of, width)


def _shape_lines(selection: Selection, width: int) -> list[Text]:
    """`shape (2, 3)`, or with names `shape (trial 2, 3)` in as many lines as `width` needs."""
    names = selection.sub_names
    if names is None:
        return [Text.assemble("shape ", (shape_text(selection.sub.shape, None), SHAPE))]
    return wrapped("shape ", shape_entries(selection.sub.shape, names), "()", SHAPE, width)


def _coords_lines(selection: Selection, dot: Text, width: int) -> list[Text]:
    """`coords station rome…lima · time 2024-01-01…2024-01-04`: the first and last labels of each
    shown axis that has a coordinate; nothing when none has."""
    names = selection.sub_names
    if selection.coords is None or names is None:
        return []
    entries = coords_entries(names, selection.sub_coords)
    if not entries:
        return []
    parts = [Text(item, style=LABEL) for item in entries]
    parts[0] = Text.assemble(("coords ", DIM), parts[0])
    lines = pack_parts(parts, dot, width)
    for line in lines:  # an entry wider than the console (two long labels) is cut at its edge
        line.truncate(width, overflow="ellipsis")
    return lines


def header(selection: Selection, shown: Values, options: PrintOptions, width: int) -> Header:
    """The lines above the values: which slice, shape and dtype, layers, statistics."""
    t, sub = selection.tensor, selection.sub
    dot = Text(" · ", style=DIM)
    top: list[Text] = []
    if selection.is_slice:
        top += _slice_lines(selection, width)
    count = sub.numel()
    *shape_above, shape = _shape_lines(selection, width)
    top += shape_above
    parts = [
        shape,
        Text(str(sub.dtype), style=DTYPE),
        Text(f"{count:,} element{'' if count == 1 else 's'}"),
    ]
    kind = storage_kind(t)
    if kind is not None:
        parts.append(Text(kind, style=WARN))
    read_cost = getattr(t.base, "read_cost", None)  # a computed base: what reading all of `t` costs
    if read_cost is not None:
        parts.append(Text(printable(read_cost(t)), style=DIM))
    top += pack_parts(parts, dot, width)
    top += _coords_lines(selection, dot, width)
    chain = _chain_lines(t, dot, width) if len(t.layers) > 1 else []
    plan = statistics_plan(selection, options)
    if plan.compute:
        entries = shown_statistics(selection, shown, options)
        stats = pack_parts([Text.assemble((name + " ", DIM), value) for name, value in entries], dot, width)
    else:
        stats = [skipped_text(plan.skipped)] if plan.skipped else []
    return Header(tuple(top), tuple(chain), tuple(stats))

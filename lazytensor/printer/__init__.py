"""The printer: a tensor as rich renderables, plain text, HTML, or the seeds' separators text.

The default ("grid") style shows a header (shape, dtype, element count, the layer
chain of a view, and statistics for small tensors) and then the values: every 2-D
slice of a tensor of 3 or more axes labelled with its index (`[1, 0, :, :]`), slices
of the next axis out side by side while the width allows, axes further out stacked
with a rule. A big tensor is summarised with `edgeitems` per axis, and only the
shown values are read; a print taller than `maxlines` keeps its first and last slices.

Everything is built as `rich.text.Text` (never markup, which would swallow
`[1, 0, :, :]`). The modules, each with one job: `options` (print options),
`numberformat` (numbers as text cells), `styles` (shared colours), `axisnames` (axis
names in shapes, positions and labels), `shown` (which
items a print shows), `header`, `cells`, `grid` (the values as lines),
`tensorprint` (the renderable), `separators` (the seeds' style), `summary` (one line
per tensor, `t.stats()`), `scalar` (a 0-d tensor's `str`, its number), `render` (plain
text, ANSI, HTML, consoles), `notebook` (Jupyter's HTML), `prompt` (IPython), `explain`
(`t.explain()`: the layers of a view, one position traced to storage). This module holds
the public functions.

Imported inside IPython or Jupyter, it registers the formatters that print a tuple,
list or dict of tensors one line per tensor (`prompt.register_ipython`).
"""

from __future__ import annotations

import sys
from typing import Any

from lazytensor.ground.protocol import Tensor
from lazytensor.printer.notebook import notebook_mimebundle
from lazytensor.printer.options import PrintOptions, current_options, line_width
from lazytensor.printer.prompt import pretty, register_ipython, running_shell, shows_html
from lazytensor.printer.render import output_console, render_plain
from lazytensor.printer.scalar import scalar_text
from lazytensor.printer.separators import SeparatorsFormat, separators_string
from lazytensor.printer.shown import DimsSpec, resolve_dims
from lazytensor.printer.summary import StatsReport, SummaryLine
from lazytensor.printer.tensorprint import TensorPrint, rich_print

__all__ = [
    "DimsSpec",
    "StatsReport",
    "SummaryLine",
    "TensorPrint",
    "rich_print",
    "stats",
    "summary",
    "tensor_mimebundle",
    "tensor_pretty",
    "tensor_str",
    "to_string",
    "tprint",
]


def _resolve(overrides: dict[str, Any]) -> tuple[PrintOptions, SeparatorsFormat | None]:
    """The options of one call, and for the separators style its cell format (`width`, the seeds'
    field width, is a keyword of that style only, not a print option)."""
    resolved = current_options(**{name: value for name, value in overrides.items() if name != "width"})
    if resolved.style == "separators":
        return resolved, SeparatorsFormat.of(overrides)
    if "width" in overrides:
        raise TypeError("width is the separators style's field width; use linewidth for the grid style")
    return resolved, None


def to_string(t: Tensor, dims: DimsSpec = None, style: str | None = None, **options: Any) -> str:
    """The printed text of `t` (or of its `dims` slice), plain, without colour.

    `style` is `"grid"` (the default print option) or `"separators"` (the seeds' text,
    byte for byte: `precision` defaults to 2 and `width` to 7 there). Other keyword
    arguments override print options for this call.

    >>> import lazytensor as lt
    >>> print(to_string(lt.arange(24).reshape(2, 3, 4), dims=(1, None, None)))
    slice [1, :, :] of a tensor of shape (2, 3, 4)
    shape (3, 4) · int64 · 12 elements
    layers Reshaped ∘ Storage · strided
    min 12 · max 23 · mean 17.5 · std 3.452 · zeros 0
    <BLANKLINE>
    [1, :, :]
    12  13  14  15
    16  17  18  19
    20  21  22  23
    >>> to_string(lt.arange(4).reshape(2, 2), style="separators")
    '   0.00    1.00 \\n   2.00    3.00 \\n'
    """
    resolved, separators = _resolve({**options, "style": style})
    if separators is not None:
        return separators_string(t, dims, separators)
    printable = TensorPrint(t, resolve_dims(t, dims), resolved)
    return render_plain(printable, line_width(resolved))


def tensor_str(t: Tensor) -> str:
    """`str(t)`: a 0-d tensor is its number, as numpy's `str` writes that scalar; any other is its print.

    `repr(t)` of a 0-d tensor is its value and dtype on one line, as PyTorch writes it.

    >>> import lazytensor as lt
    >>> tensor_str(lt.arange(12).sum()), repr(lt.arange(12).sum())
    ('66', 'tensor(66, dtype=int64)')
    """
    if len(t.shape) == 0:
        return scalar_text(t.numpy())
    return to_string(t)


def tprint(t: Tensor, dims: DimsSpec = None, **options: Any) -> None:
    """Print `t` (or its `dims` slice) to stdout: in colour on a terminal, plain text otherwise.

    In Jupyter it displays the notebook HTML instead (themed colours, never wrapping).

    >>> import lazytensor as lt
    >>> tprint(lt.tensor([1.5, -2.0]), linewidth=40)
    shape (2,) · float64 · 2 elements
    min -2 · max 1.5 · mean -0.25 · std 1.75
    zeros 0 · nan 0 · inf 0
    <BLANKLINE>
     1.5  -2.
    """
    resolved, separators = _resolve(options)
    if separators is not None:
        sys.stdout.write(separators_string(t, dims, separators))
        return
    shell = running_shell()
    if shell is not None and shows_html(shell):  # Jupyter: the notebook HTML, themed, never wrapping
        shell.display_pub.publish(data=notebook_mimebundle(t, resolved, resolve_dims(t, dims)), metadata={})
        return
    console = output_console(resolved.linewidth)
    console.print(TensorPrint(t, resolve_dims(t, dims), resolved), crop=False)


def tensor_mimebundle(t: Tensor) -> dict[str, str]:
    """What Jupyter shows for `t`: the notebook HTML and its plain text (see `printer.notebook`).

    Inside IPython in a terminal (its front end shows no HTML) it is empty, so that
    IPython asks `_repr_pretty_`, which prints in colour.

    >>> import lazytensor as lt
    >>> tensor_mimebundle(lt.arange(3))["text/plain"].splitlines()[-1]
    '0  1  2'
    """
    shell = running_shell()
    if shell is not None and not shows_html(shell):
        return {}
    return notebook_mimebundle(t, current_options())


def tensor_pretty(t: Tensor, printer: Any, cycle: bool) -> None:
    """IPython's `_repr_pretty_` for a tensor: the print, in colour on a terminal (see `colour_wanted`)."""
    pretty(TensorPrint(t), printer, cycle)


def summary(t: Tensor, **options: Any) -> SummaryLine:
    """`t.summary()`: one line (shape, dtype, count, range, mean, std, NaN/inf, layers in short).

    >>> import lazytensor as lt
    >>> summary(lt.arange(4.0).reshape(2, 2).T)
    tensor (2, 2) float64 n=4 x∈[0, 3] μ=1.5 σ=1.118 Transposed∘Reshaped∘Storage
    """
    return SummaryLine(t, current_options(**options))


def stats(t: Tensor, **options: Any) -> StatsReport:
    """`t.stats()`: the statistics of all of `t`, computed now, whatever its size or storage."""
    return StatsReport.of(t, current_options(**options))


register_ipython()

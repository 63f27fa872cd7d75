"""The rich styles the printer and `explain` share: labels, dim text, shapes, dtypes, layer chains.

Ground floor: rich only. One place for them, so a tensor's print and its explanation
colour the same things the same way.
"""

from __future__ import annotations

from rich.style import Style

LABEL = Style(color="cyan", bold=True)
"""Slice labels (`[1, 0, :, :]`), layer names in `explain`, positions."""
DIM = Style(dim=True)
"""Secondary text: separators, rules, `…`, statistic names, layouts."""
SHAPE = Style(bold=True)
DTYPE = Style(color="green")
CHAIN = Style(color="blue")
"""The layer names of the header's chain."""
WARN = Style(color="yellow")
"""What the reader should know before relying on the print (`memory-mapped`)."""

"""The seeds' separators style, byte for byte: values as `%7.2f `, rows ended by `\\n`, blocks by rules.

2-D blocks are separated by `---`, 3-D ones by `===`, then `***` and `###`. Every
value of the slice is printed: this style never summarises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from lazytensor.ground.buffers import check_fits
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.escapes import printable
from lazytensor.printer.numberformat import separators_text
from lazytensor.printer.shown import DimsSpec, fixed_slice, resolve_dims

SEPARATORS = ("\n", "\n---\n", "\n===\n", "\n***\n", "\n###\n")


TEXT_BYTES_PER_VALUE = 128
"""What one value costs while the text is built: its Python float, its string, two list slots."""


@attrs.frozen
class SeparatorsFormat:
    """The seeds' `"%7.2f "` cell: `decimals` digits after the point in a field `width` characters wide.

    >>> SeparatorsFormat.of({"precision": 3}), SeparatorsFormat.of({})
    (SeparatorsFormat(decimals=3, width=7), SeparatorsFormat(decimals=2, width=7))
    """

    decimals: int = 2
    """Digits after the point: the call's `precision` keyword, else 2 (`set_printoptions` is not read)."""
    width: int = 7
    """Characters of each value's field, before the space that ends it."""

    @classmethod
    def of(cls, overrides: Mapping[str, Any]) -> SeparatorsFormat:
        """The format one call asks for with its keywords: `precision` (2 unless given, whatever
        `set_printoptions` says: the seeds' text) and `width`."""
        precision = overrides.get("precision")
        decimals = SEEDS_FORMAT.decimals if precision is None else int(precision)
        return cls(decimals, overrides.get("width", SEEDS_FORMAT.width))


SEEDS_FORMAT = SeparatorsFormat()
"""The seeds' own `"%7.2f "`."""


def separators_string(t: Tensor, dims: DimsSpec = None, fmt: SeparatorsFormat = SEEDS_FORMAT) -> str:
    """The seeds' text: each value `"%7.2f "`, rows ended by `\\n`, 2-D blocks by `---`, 3-D by `===` ...

    Fixed axes of `dims` are left out; every value of the slice is printed (no summary). Text
    values are shown with their control characters escaped (`printable`).

    >>> import lazytensor as lt
    >>> separators_string(lt.arange(4).reshape(2, 2))
    '   0.00    1.00 \\n   2.00    3.00 \\n'
    """
    shown = fixed_slice(t, resolve_dims(t, dims))
    check_fits(shown.numel(), TEXT_BYTES_PER_VALUE, f"the separators text of shape {shown.shape}")
    values = np.asarray(shown.numpy())
    if values.ndim == 0:
        return printable(separators_text(values.item(), fmt.decimals, fmt.width)) + "\n"
    pieces: list[str] = []
    flat = values.reshape(-1)
    inner = values.shape[::-1]
    for index, value in enumerate(flat.tolist()):
        pieces.append(printable(separators_text(value, fmt.decimals, fmt.width)))
        if index + 1 < flat.size:
            pieces.append(_separator_after(index + 1, inner))
    pieces.append("\n")
    return "".join(pieces)


def _separator_after(count: int, inner: Sequence[int]) -> str:
    """What follows the `count`-th value: nothing inside a row, else the separator of the block that ends."""
    ended = -1
    product = 1
    for size in inner:
        product *= size
        if count % product:
            break
        ended += 1
    if ended < 0:
        return ""
    return SEPARATORS[min(ended, len(SEPARATORS) - 1)]

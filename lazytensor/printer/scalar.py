"""A 0-d tensor read as a number: `str()` gives its value as numpy's `str()` gives that scalar.

`print(x.sum())` shows `66`, as numpy prints `66`; `repr()` is the value with its dtype
(`tensor(66, dtype=int64)`). Text that numpy itself cannot make (a unicode code point
over 0x10FFFF) is written as its escape, and control characters as theirs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lazytensor.printer.escapes import printable
from lazytensor.printer.numberformat import unicode_codes, unicode_text


def scalar_text(values: Any) -> str:
    """The value of a 0-d array as numpy's `str` writes that scalar.

    >>> scalar_text(np.array(66)), scalar_text(np.array(0.1 + 0.2)), scalar_text(np.array(0.1, np.float32))
    ('66', '0.30000000000000004', '0.1')
    >>> scalar_text(np.array(np.datetime64("2024-01-01", "ns"))), scalar_text(np.array(1 + 2j))
    ('2024-01-01T00:00:00.000000000', '(1+2j)')
    """
    array = np.asarray(values)
    if array.dtype.kind == "U":
        return unicode_text(unicode_codes(array)[()])
    return printable(str(array[()]))

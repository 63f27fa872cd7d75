"""Kernels of numpy's names that copy elements: a plain copy, and `unique`'s parts. numpy arrays
in, numpy arrays out (numpy's own functions). The array API's rearrangements (roll, repeat, tile,
take) are in `array_kernels`.
"""

from __future__ import annotations

import numpy as np

from lazytensor.generic import Buffer, Values


def copy(t: Values) -> Buffer:
    """A new C-contiguous array holding the values.

    >>> copy(np.arange(3)[::-1]).tolist()
    [2, 1, 0]
    """
    return np.array(t, copy=True, order="C")


def unique(t: Values, part: str = "values") -> Buffer:
    """The sorted distinct values (`part="values"`), or what numpy's `unique` returns beside them:
    the first index of each (`"index"`), where each element went (`"inverse"`, in the input's
    shape, as numpy 2), or how often each occurs (`"counts"`).

    >>> unique(np.array([3, 1, 3])).tolist(), unique(np.array([3, 1, 3]), "counts").tolist()
    ([1, 3], [1, 2])
    """
    values = np.asarray(t)
    if part == "index":
        return np.unique(values, return_index=True)[1]
    if part == "inverse":
        return np.unique(values, return_inverse=True)[1]
    if part == "counts":
        return np.unique(values, return_counts=True)[1]
    return np.unique(values)

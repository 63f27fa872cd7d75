"""Reading what the browser shows, and nothing more: the visible window `t[key][r0:r1, c0:c1]` of the
slice on screen, read in one request (so a chunked store reads only the chunks under those cells).

The app runs `read_window` in a worker thread; it touches no terminal.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from lazytensor.browse.state import BrowseState
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.numberformat import Values


@attrs.frozen
class Window:
    """The values of the slice's rows `top`..`top + values.shape[0]` and columns `left`.., as read for
    `state` (the app drops a window read for a state it no longer shows)."""

    state: BrowseState
    top: int
    left: int
    values: Values

    def __attrs_post_init__(self) -> None:
        if self.values.ndim != 2:
            raise ValueError(f"a window is 2-D, got values of shape {self.values.shape}")


def slice_view(t: Tensor, state: BrowseState) -> Any:
    """The slice on screen as a view of `t`: `t[key]`, transposed when the state says so; a 0-d
    tensor's slice is the tensor itself."""
    if not t.shape:
        return t
    view: Any = t[state.key()]
    return view.T if state.transposed else view


def window_view(t: Tensor, state: BrowseState, rows: int, cols: int) -> Any:
    """`t[key][top:top + rows, left:left + cols]` as a view (a 1-D slice's rows only)."""
    view = slice_view(t, state)
    if view.ndim == 2:
        return view[state.top : state.top + rows, state.left : state.left + cols]
    if view.ndim == 1:
        return view[state.top : state.top + rows]
    return view


def read_window(t: Tensor, state: BrowseState, rows: int, cols: int) -> Window:
    """The values of `rows` × `cols` cells from the state's first shown row and column, read now.

    >>> import lazytensor as lt
    >>> t = lt.arange(24).reshape(2, 3, 4)
    >>> read_window(t, BrowseState.start(t.shape).step(1), 2, 3).values.tolist()
    [[12, 13, 14], [16, 17, 18]]
    """
    if any(state.shape[axis] == 0 for axis in state.outer):  # no index to fix: the slice is empty
        return Window(state, state.top, state.left, np.empty((0, 0), dtype=t.dtype))
    view = window_view(t, state, max(rows, 1), max(cols, 1))
    values = np.asarray(view.numpy())
    if values.ndim < 2:
        values = values.reshape(-1, 1)
    return Window(state, state.top, state.left, values)

"""Progress of a long pass as log lines on stderr: nothing for a pass shorter than `AFTER` seconds,
then a line at most every `EVERY` seconds and one when it ends, on a terminal or not (a log file, a
notebook's stderr, a batch job all see them). `LAZYTENSOR_PROGRESS=0` in the environment, or
`set_enabled(False)`, turns them off.
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO

AFTER = 1.0
"""Seconds a pass runs before it says anything."""

EVERY = 5.0
"""Seconds between two lines of one pass, at least."""

_switch: list[bool | None] = [None]  # None: as the environment says


def enabled() -> bool:
    """Whether passes log their progress: `set_enabled`'s choice, else `LAZYTENSOR_PROGRESS` (on unless
    it is 0, false, off or no).

    >>> previous = set_enabled(False)
    >>> enabled()
    False
    >>> _ = set_enabled(previous)
    """
    chosen = _switch[0]
    if chosen is not None:
        return chosen
    return os.environ.get("LAZYTENSOR_PROGRESS", "1").strip().lower() not in {"0", "false", "off", "no"}


def set_enabled(on: bool | None) -> bool | None:
    """Turn progress lines on or off for this process (None: back to the environment's choice); returns
    the previous choice, for putting it back."""
    previous = _switch[0]
    _switch[0] = on
    return previous


class LogProgress:
    """The progress of `total` steps of one pass named `what`, logged to `stream` (stderr by default).

    >>> import io
    >>> out = io.StringIO()
    >>> progress = LogProgress("sum", 4, out, after=0.0, every=0.0)
    >>> progress.advance(); progress.close()
    >>> print(out.getvalue().splitlines()[0].split(",")[0])
    lazytensor: sum: 1/4 blocks (25%)
    """

    def __init__(
        self,
        what: str,
        total: int,
        stream: IO[str] | None = None,
        after: float | None = None,
        every: float | None = None,
    ) -> None:
        self.what = what
        self.total = total
        self.done = 0
        self.stream = stream
        self.after = AFTER if after is None else after  # the module's values now: tests may change them
        self.every = EVERY if every is None else every
        self.started = time.monotonic()
        self.last: float | None = None  # when the last line was written
        self.on = enabled()

    def advance(self, count: int = 1) -> None:
        """`count` more steps done: a line when the pass has run long enough and the last is old enough."""
        self.done += count
        if not self.on:
            return
        now = time.monotonic()
        if now - self.started < self.after or (self.last is not None and now - self.last < self.every):
            return
        self._line(now)

    def close(self) -> None:
        """The pass ended: a last line when it said anything before."""
        if self.on and self.last is not None and self.done != self.total:
            self.done = self.total
        if self.on and self.last is not None:
            self._line(time.monotonic(), ended=True)

    def _line(self, now: float, ended: bool = False) -> None:
        elapsed = now - self.started
        share = self.done / self.total if self.total else 1.0
        text = f"lazytensor: {self.what}: {self.done:,}/{self.total:,} blocks ({share:.0%}), {elapsed:.1f} s"
        if ended:
            text += ", done"
        elif 0 < share < 1:
            text += f", about {elapsed * (1 - share) / share:.0f} s left"
        stream = sys.stderr if self.stream is None else self.stream
        print(text, file=stream, flush=True)
        self.last = now

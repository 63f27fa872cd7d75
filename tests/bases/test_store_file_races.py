"""A key's file swapped for a FIFO between `read_key`'s stat and its open: the open must not wait for
a writer (O_NONBLOCK), and the descriptor's own fstat refuses the FIFO in one line.

Reaches into `lazytensor.bases.zarrstore`: the FIFO swapped in between `read_key`'s stat and its
open needs `read_key` itself.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from lazytensor.bases.zarrstore import Limits, StoreError, read_key

RESCUE_SECONDS = 30.0
"""Only an open that waits for a writer is still blocked this long after the call; a writer is then
opened to free it, and the test fails."""


def test_a_fifo_swapped_in_after_the_stat_is_refused_without_waiting_for_a_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = str(tmp_path)
    fifo = tmp_path / "c"
    os.mkfifo(fifo)
    real_stat = os.stat

    def stat_before_the_swap(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == str(fifo):  # what the stat saw: a regular file of one byte
            return os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 1, 0, 0, 0))
        return real_stat(path, *args, **kwargs)

    rescued = threading.Event()

    def rescue() -> None:
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # succeeds only while a reader waits
        except OSError:
            return
        rescued.set()
        os.close(writer)

    monkeypatch.setattr(os, "stat", stat_before_the_swap)
    timer = threading.Timer(RESCUE_SECONDS, rescue)
    timer.start()
    try:
        with pytest.raises(StoreError) as caught:
            read_key(root, "c", None, Limits())
    finally:
        timer.cancel()
        timer.join()
    assert not rescued.is_set(), "read_key waited for a writer to the FIFO"
    assert str(caught.value) == f"{root}: key c: is not a regular file"

"""Helpers for the fuzz tests: a per-example time limit, marker pickles, one-line error checks."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the main thread when the block runs longer than `seconds` (a hang fails)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class MarkerPayload:
    """Unpickled by plain pickle.load, this would create the file `marker` (and nothing worse)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.mknod, (str(self.marker),))


def marker_pickle(marker: Path, protocol: int = 2) -> bytes:
    return pickle.dumps(MarkerPayload(marker), protocol=protocol)


def assert_one_line(message: str, *fragments: str) -> None:
    assert message and "\n" not in message.strip() and "Traceback" not in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


# -- zarr stores ---------------------------------------------------------------------------------------

OUTCOMES = ("clean error", "opened and printed", "hang", "raw traceback", "wrong result")


def zarr_metadata_name(folder: Path) -> str:
    """The array's metadata document in a store folder: `zarr.json` (v3) or `.zarray` (v2)."""
    return "zarr.json" if (folder / "zarr.json").exists() or not (folder / ".zarray").exists() else ".zarray"


def chunk_files(folder: Path) -> list[Path]:
    """The chunk files of a store folder (every regular file that is not metadata), sorted."""
    names = {"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in names)

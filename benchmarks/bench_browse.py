"""Time each key of the browser on a 10¹⁰-element zarr store on disk, from the key pressed to its cells
drawn, against zarr reading the same window of cells directly.

A key reads only the chunks under the visible cells, so it costs about what reading that window
costs, whatever the store holds; the ratio says what the screen adds (formatting, drawing, the
worker thread). The store (sparse: a fill value and a few written chunks, so the files stay small)
is made in a temporary directory. Run: `.venv/bin/python benchmarks/bench_browse.py` (needs textual).
"""

from __future__ import annotations

import asyncio
import pathlib
import statistics
import tempfile
import time
from typing import Any

import numpy as np
import zarr

import lazytensor as lt
from lazytensor.browse.app import BrowseApp

SHAPE = (10, 100, 1000, 10_000)
CHUNKS = (1, 1, 100, 100)
KEYS = ["right", "left", "pagedown", "pageup", "right_square_bracket", "left_square_bracket"] * 5


def _store(path: pathlib.Path) -> zarr.Array:
    array = zarr.create_array(str(path), shape=SHAPE, chunks=CHUNKS, dtype="f4", fill_value=0.5)
    rng = np.random.default_rng(0)
    for b in range(3):
        array[0, b, :200, :200] = rng.normal(size=(200, 200)).astype(np.float32)
    return array


class TimedApp(BrowseApp):
    """The browser, noting when a key's new state is taken and when its cells are drawn."""

    def __init__(self, t: lt.AbstractTensor) -> None:
        super().__init__(t, "big.zarr")
        self.moved = 0.0
        self.answers: list[float] = []

    def move(self, state: Any) -> None:
        self.moved = time.perf_counter()
        super().move(state)

    def show_window(self, state: Any, window: Any, drawn: Any) -> None:
        super().show_window(state, window, drawn)
        if self.moved:
            self.answers.append(time.perf_counter() - self.moved)


async def _key_times(t: lt.AbstractTensor) -> tuple[list[float], list[float]]:
    """Seconds from each key's action to its cells drawn, and from the test driver's key press to the
    screen refreshed after it (textual's headless pilot adds its own waits)."""
    app = TimedApp(t)
    round_trips = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        for key in KEYS:
            start = time.perf_counter()
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            round_trips.append(time.perf_counter() - start)
    return app.answers, round_trips


def _direct_times(array: zarr.Array) -> list[float]:
    """Seconds zarr takes to read a window of the size the screen shows, at the same places."""
    times = []
    for b in (1, 0) * 15:
        start = time.perf_counter()
        np.asarray(array[0, b, :36, :12])
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        array = _store(pathlib.Path(folder) / "big.zarr")
        t = lt.open(str(pathlib.Path(folder) / "big.zarr"), mode="r")
        keys, round_trips = asyncio.run(_key_times(t))
        direct = _direct_times(array)
    key_ms, direct_ms = statistics.median(keys) * 1e3, statistics.median(direct) * 1e3
    print(f"10^10-element zarr store, {len(keys)} keys at 120x40")
    print(f"a key's action to its cells drawn: median {key_ms:7.2f} ms, slowest {max(keys) * 1e3:7.2f} ms")
    print(f"the pilot's key press to refreshed: median {statistics.median(round_trips) * 1e3:7.2f} ms")
    print(f"zarr reading that window directly:  median {direct_ms:7.2f} ms")
    print(f"ratio (a key / zarr's read):        {key_ms / direct_ms:7.1f}")


if __name__ == "__main__":
    main()

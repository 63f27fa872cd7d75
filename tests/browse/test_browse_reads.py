"""The browser reads only what is on screen: walking a sparse zarr store of 10¹⁰ elements with the
keys reads only the chunks under the visible cells (a store that counts what it hands out), and the
whole command stays under 300 MB (measured in a subprocess).

Reaches into `lazytensor.browse`: the app is driven headless, as the command runs it.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
from store_support import CountingStore

import lazytensor as lt

pytest.importorskip(
    "textual", reason="the browse extra (textual) is not installed: pip install -e '.[browse]'"
)
zarr = pytest.importorskip("zarr")

from browse_support import drive, settle  # noqa: E402

from lazytensor.browse.app import BrowseApp  # noqa: E402

SHAPE = (10, 100, 1000, 10_000)  # 10¹⁰ elements
CHUNKS = (1, 1, 100, 100)


def _store() -> tuple[CountingStore, Any]:
    """The 10¹⁰-element array: a fill value everywhere but three written chunks."""
    store = CountingStore()
    array = zarr.create_array(
        store=store,
        shape=SHAPE,
        chunks=CHUNKS,
        dtype="f4",
        fill_value=0.5,
        dimension_names=("a", "b", "c", "d"),
    )
    array[0, 0, :100, :100] = np.arange(10_000, dtype=np.float32).reshape(100, 100)
    array[0, 1, 900:, :100] = -1.0
    array[5, 50, :100, 9900:] = 7.0
    store.chunk_reads.clear()
    return store, array


def _reads(steps: list[Any]) -> set[str]:
    store, array = _store()
    drive(BrowseApp(lt.from_array(array), "big.zarr"), steps)
    return set(store.chunk_reads)


def test_the_first_screen_reads_one_chunk_of_ten_billion_elements() -> None:
    assert _reads([]) == {"c/0/0/0/0"}


def _visible_chunks(app: BrowseApp) -> set[str]:
    """The chunk keys of the store that hold the cells on the screen now."""
    state = app.state
    rows, cols = app.shown_values.shape
    spans = []
    for axis, chunk in enumerate(CHUNKS):
        if axis == state.rows:
            low, high = state.top, state.top + rows
        elif axis == state.cols:
            low, high = state.left, state.left + cols
        else:
            low, high = state.index[axis], state.index[axis] + 1
        spans.append(range(low // chunk, (high - 1) // chunk + 1))
    return {"c/" + "/".join(map(str, key)) for key in itertools.product(*spans)}


WALK = [
    "right",
    "right",
    "up",
    "right",
    "end",
    "y",  # the rows run along a, each in a chunk of its own
    "right",
    "x",
    "right_square_bracket",
    "t",
    "pagedown",
    "plus",
    "h",
    "home",
    "slash",
    *"5, 50, :, :",
    "enter",
    "right_square_bracket",
]


def test_a_walk_through_every_axis_reads_exactly_the_chunks_on_screen() -> None:
    store, array = _store()
    seen = [0]
    screens: list[tuple[str, set[str], set[str]]] = []

    def check(key: str) -> Any:
        def after(app: BrowseApp) -> None:
            read = set(store.chunk_reads[seen[0] :])
            seen[0] = len(store.chunk_reads)
            screens.append((key, read, _visible_chunks(app)))

        return after

    steps: list[Any] = [check("start")]
    for key in WALK:
        steps += [key, check(key)]
    drive(BrowseApp(lt.from_array(array), "big.zarr"), steps)
    for key, read, visible in screens:
        assert read <= visible, f"after {key}: read {sorted(read - visible)}, not on screen"
        if key not in ("up", "plus", "slash", *"5, 50, :, :"):  # these show the cells already read
            assert read == visible or key == "h", f"after {key}: {sorted(visible - read)} not read"
    assert len(store.chunk_reads) <= 2 * sum(len(visible) for _, _, visible in screens)


def test_the_whole_command_stays_under_300_mb(tmp_path: Any) -> None:
    path = tmp_path / "big.zarr"
    array = zarr.create_array(str(path), shape=SHAPE, chunks=(1, 1, 1000, 1000), dtype="f8", fill_value=0.0)
    array[0, 0, :1000, :1000] = np.ones((1000, 1000))
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {os.path.dirname(os.path.dirname(__file__))!r})
        import lazytensor as lt
        from browse_support import drive
        from lazytensor.browse.app import BrowseApp
        t = lt.open({str(path)!r}, mode="r")
        steps = ["right", "end", "right_square_bracket", "up", "right", "x", "t", "h", "pagedown"] * 3
        drive(BrowseApp(t, "big.zarr"), steps, size=(160, 48))
        # VmHWM: this process's own peak (ru_maxrss keeps the forking parent's peak across exec on Linux)
        try:
            with open("/proc/self/status") as status:
                peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        except OSError:  # no /proc: ru_maxrss (kilobytes on Linux, bytes on macOS)
            import resource
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            peak = peak // 1024 if sys.platform == "darwin" else peak
        print(peak // 1024)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    peak_mb = int(run.stdout.split()[-1])
    print(f"peak memory of the browser on a 10**10-element store: {peak_mb} MB")
    assert peak_mb < 300, f"the browser's peak memory was {peak_mb} MB"


def test_the_whole_tensors_statistics_stream_with_progress_and_esc_stops_them() -> None:
    store, array = _store()
    app = BrowseApp(lt.from_array(array), "big.zarr")

    async def run() -> tuple[str, str]:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            before = len(store.chunk_reads)
            await pilot.press("s")
            for _ in range(100):  # until the first blocks are read (never a time asserted)
                await pilot.pause(0.05)
                if "blocks read" in app.screen_text():
                    break
            streaming = app.screen_text()
            await pilot.press("escape")
            await settle(pilot)
            assert len(store.chunk_reads) - before < 100_000  # of 10⁶ chunks (3,000 blocks): stopped early
            return streaming, app.screen_text()

    streaming, stopped = asyncio.run(run())
    assert re.search(r"stats of the whole tensor: [\d,]+/3,000 blocks read \(Esc cancels\)", streaming)
    assert "stats of the whole tensor" not in stopped

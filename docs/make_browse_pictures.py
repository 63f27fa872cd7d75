"""Write the screenshots of docs/browse.md: the browser driven headless (textual's `Pilot`) on a
seeded 4-D named tensor, saved as SVG by textual's `save_screenshot`.

Run: `.venv/bin/python docs/make_browse_pictures.py` (needs the browse extra: textual).
"""

from __future__ import annotations

import asyncio
import pathlib

import numpy as np

import lazytensor as lt
from lazytensor.browse.app import BrowseApp

PICTURES = pathlib.Path(__file__).parent / "pictures"
SIZE = (100, 30)
SHOTS = {
    "browse.svg": ["right", "up", "right"],  # trial 1, channel 1
    "browse_heatmap.svg": ["right", "h", "x"],  # channel across, a heatmap with its scale
}


def eeg() -> lt.AbstractTensor:
    """Seeded values on named axes: 4 trials, 3 channels, 60 times, 40 frequencies."""
    values = np.random.default_rng(0).normal(size=(4, 3, 60, 40)).round(2)
    return lt.tensor(values, names=("trial", "channel", "time", "freq"))


async def shoot(name: str, keys: list[str]) -> None:
    app = BrowseApp(eeg(), "eeg")
    async with app.run_test(size=SIZE) as pilot:
        for key in ["", *keys]:
            if key:
                await pilot.press(key)
            for _ in range(2):
                await pilot.pause()
                await app.workers.wait_for_complete()
            await pilot.pause()
        app.save_screenshot(filename=name, path=str(PICTURES))


def main() -> None:
    for name, keys in SHOTS.items():
        asyncio.run(shoot(name, keys))
        print(PICTURES / name)


if __name__ == "__main__":
    main()

"""Driving the browser headless: textual's `Pilot` presses keys, each followed by the worker's read,
and the screen is read back as text."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

Step = str | Callable[[Any], Any]
"""A key to press (textual's name), or a function of the app run between keys."""


async def settle(pilot: Any) -> None:
    """Wait until the app has read and drawn what the last key asked for."""
    for _ in range(2):  # a redraw may follow the first one (a panel opened: the cells' area resized)
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def drive(app: Any, steps: Sequence[Step], size: tuple[int, int] = (80, 24)) -> str:
    """Run `app` at `size`, take `steps`, and return the screen's text at the end."""

    async def run() -> str:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            for step in steps:
                if isinstance(step, str):
                    await pilot.press(step)
                else:
                    step(app)
                await settle(pilot)
            return str(app.screen_text())

    return asyncio.run(run())

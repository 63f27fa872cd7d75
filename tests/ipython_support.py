"""Test helper for the IPython prompt: a shell with lazytensor's printers registered, cleared after."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from IPython.core.interactiveshell import InteractiveShell

from lazytensor.printer.prompt import register_ipython

PROMPTS = ("ps1", "ps2")


@contextlib.contextmanager
def ipython_shell() -> Iterator[InteractiveShell]:
    """IPython's shell, cleared after, and the prompts it sets (`sys.ps1 = 'In : '`) put back: a repl
    run later in the same process (`tests/top/test_cli_main.py`) must see Python's own."""
    prompts = {name: getattr(sys, name) for name in PROMPTS if hasattr(sys, name)}
    instance = InteractiveShell.instance()
    try:
        yield instance
    finally:
        InteractiveShell.clear_instance()
        for name in PROMPTS:
            if name in prompts:
                setattr(sys, name, prompts[name])
            elif hasattr(sys, name):
                delattr(sys, name)


@contextlib.contextmanager
def registered_shell(terminal: bool = False) -> Iterator[InteractiveShell]:
    """IPython's shell with lazytensor's printers registered; `terminal`: text only, as in a terminal."""
    with ipython_shell() as instance:
        if terminal:
            instance.display_formatter.active_types = ["text/plain"]
        register_ipython(instance)
        yield instance

"""Test helper for the IPython prompt: a shell with lazytensor's printers registered, cleared after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from IPython.core.interactiveshell import InteractiveShell

from lazytensor.printer.prompt import register_ipython


@contextlib.contextmanager
def registered_shell(terminal: bool = False) -> Iterator[InteractiveShell]:
    """IPython's shell with lazytensor's printers registered; `terminal`: text only, as in a terminal."""
    instance = InteractiveShell.instance()
    if terminal:
        instance.display_formatter.active_types = ["text/plain"]
    register_ipython(instance)
    try:
        yield instance
    finally:
        InteractiveShell.clear_instance()

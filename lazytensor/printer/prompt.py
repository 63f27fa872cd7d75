"""Tensors at an interactive prompt: IPython's pretty printer in colour, and containers of tensors.

`repr()` stays plain text (logs, doctests, pipes); what a person sees at the IPython
prompt goes through `_repr_pretty_` instead, in colour when `colour_wanted()` (a
terminal, `FORCE_COLOR`; never with `NO_COLOR`). A tuple, list or dict holding more
than one tensor prints one line per item (`container_summary`), through formatters
registered when lazytensor is imported inside IPython. IPython is never imported
here: the shell is found in `sys.modules` when it is running.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from lazytensor.printer.options import current_options, line_width
from lazytensor.printer.render import render_for_prompt
from lazytensor.printer.summary import container_summary

PrettyPrinter = Callable[[Any, Any, bool], None]


def running_shell() -> Any:
    """The running IPython shell, or None (IPython not imported, or imported but not running)."""
    module = sys.modules.get("IPython")
    get_ipython = getattr(module, "get_ipython", None)
    return get_ipython() if get_ipython is not None else None


def shows_html(shell: Any) -> bool:
    """Whether the shell's front end shows HTML (Jupyter) or only text (IPython in a terminal)."""
    formatter = getattr(shell, "display_formatter", None)
    return "text/html" in getattr(formatter, "active_types", ("text/html",))


def pretty(renderable: Any, printer: Any, cycle: bool) -> None:
    """IPython's `_repr_pretty_`: the print, in colour when the output wants colour."""
    if cycle:
        printer.text("…")
        return
    printer.text(render_for_prompt(renderable, line_width(current_options())))


def _container_printer(previous: PrettyPrinter | None) -> PrettyPrinter:
    def print_container(value: Any, printer: Any, cycle: bool) -> None:
        summary = None if cycle else container_summary(value)
        if summary is not None:
            printer.text(render_for_prompt(summary, line_width(current_options())))
        elif previous is not None:
            previous(value, printer, cycle)
        else:
            printer.text(repr(value))

    print_container.lazytensor_containers = True  # type: ignore[attr-defined]
    return print_container


def register_ipython(shell: Any = None) -> bool:
    """Show tuples, lists and dicts of more than one tensor one line per item in IPython and Jupyter.

    Called when lazytensor is imported; the shell defaults to the running one. Returns
    whether formatters were registered (False outside IPython, or when already done).
    """
    shell = running_shell() if shell is None else shell
    formatter = getattr(getattr(shell, "display_formatter", None), "formatters", {}).get("text/plain")
    if formatter is None:
        return False
    for kind in (tuple, list, dict):
        old = formatter.lookup_by_type(kind) if _has_printer(formatter, kind) else None
        if getattr(old, "lazytensor_containers", False):
            return False
        formatter.for_type(kind, _container_printer(old))
    return True


def _has_printer(formatter: Any, kind: type) -> bool:
    try:
        formatter.lookup_by_type(kind)
    except KeyError:
        return False
    return True

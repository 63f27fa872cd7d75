"""The formatters lazytensor registers for tuples, lists and dicts at the IPython prompt: on a
formatter that has no printer of its own for them (their `repr` then), and on containers that hold
themselves, which IPython's own printer shows as `[...]` (`printer/prompt.py`, issue #25).

Reaches into `lazytensor.printer.prompt`: the formatters are registered on IPython shells built
here.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from IPython.core.formatters import PlainTextFormatter
from IPython.core.interactiveshell import InteractiveShell
from ipython_support import registered_shell

import lazytensor as lt
from lazytensor.printer.prompt import register_ipython


def _shell_of(formatter: PlainTextFormatter) -> SimpleNamespace:
    return SimpleNamespace(display_formatter=SimpleNamespace(formatters={"text/plain": formatter}))


def test_a_formatter_without_printers_for_containers_gets_ours_and_their_repr_otherwise() -> None:
    formatter = PlainTextFormatter()
    for kind in (tuple, list, dict):
        del formatter.type_printers[kind]
    assert register_ipython(_shell_of(formatter))
    assert all(
        getattr(formatter.lookup_by_type(kind), "lazytensor_containers", False)
        for kind in (tuple, list, dict)
    )
    assert formatter([1, "a"]) == "[1, 'a']"
    assert formatter({"a": (1, 2)}) == "{'a': (1, 2)}"
    pair = (lt.arange(2), lt.arange(3))
    assert formatter(pair).splitlines() == [
        "(tensor (2,) int64 n=2 x∈[0, 1] μ=0.5 σ=0.5,",
        " tensor (3,) int64 n=3 x∈[0, 2] μ=1 σ=0.8165)",
    ]


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    with registered_shell() as instance:
        yield instance


def _plain(shell: InteractiveShell, value: Any) -> str:
    text: str = shell.display_formatter.formatters["text/plain"](value)
    return text


def test_a_container_holding_itself_is_shown_as_ipython_shows_it(shell: InteractiveShell) -> None:
    items: list[Any] = [1]
    items.append(items)
    assert _plain(shell, items) == "[1, [...]]"
    table: dict[str, Any] = {"n": 1}
    table["self"] = table
    assert _plain(shell, table) == "{'n': 1, 'self': {...}}"

"""Print options travel whole: the printer's functions take the `PrintOptions` object, never one option.

A new print option is one field on `PrintOptions` and the one place that reads it. That
holds only while no function between them takes the option as a parameter of its own
(`precision=...`, `sci_mode=...`), so this test reaches internals on purpose: it walks every
module of `lazytensor.printer` and the tensor's display surface, and inspects the signature
of each function, method and class defined there for a parameter named like a print option.

The exceptions are listed by name: the public entry points that take options as keywords
(`set_printoptions`, `to_string`'s `style`, `PrintOptions` itself), and the parameters that
share a name with an option but are something else (a rich `Style` is no print-option `style`).

Reaches into `lazytensor.printer` and `lazytensor.tensors` (the display surface): the signatures
walked are internal by nature; no public call can show which function takes which parameter.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import attrs

import lazytensor.printer
import lazytensor.tensors.surface.display
from lazytensor.printer.options import PrintOptions

OPTION_NAMES = frozenset(field.name for field in attrs.fields(PrintOptions))

ENTRY_POINTS: dict[str, set[str]] = {
    "lazytensor.printer.options.PrintOptions": set(OPTION_NAMES),
    "lazytensor.printer.options.set_printoptions": {"precision", "threshold", "edgeitems", "linewidth"},
    "lazytensor.printer.to_string": {"style"},
}
"""Public functions that take print options as keywords (overrides for one call), and which."""

NOT_PRINT_OPTIONS: dict[str, set[str]] = {
    "lazytensor.printer.axisnames.wrapped": {"style"},
    "lazytensor.printer.grid.TextBuilder.add": {"style"},
    "lazytensor.printer.styles.css_class": {"style"},
}
"""Parameters named like a print option that hold something else: here a rich `Style`."""

ALLOWED = ENTRY_POINTS | NOT_PRINT_OPTIONS


def _modules() -> Iterator[ModuleType]:
    """Every module of the printer package, and the display surface that hands tensors to it."""
    package = lazytensor.printer
    yield package
    for found in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        yield importlib.import_module(found.name)
    yield lazytensor.tensors.surface.display


def _callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Each function, class and method defined in those modules, by its full dotted name."""
    for module in _modules():
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__:
                continue  # imported from elsewhere: inspected where it is defined
            qualified = f"{module.__name__}.{name}"
            if inspect.isfunction(value):
                yield qualified, value
            elif inspect.isclass(value):
                yield qualified, value
                for member_name, member in vars(value).items():
                    function = member.__func__ if isinstance(member, classmethod | staticmethod) else member
                    function = inspect.unwrap(function) if hasattr(function, "__wrapped__") else function
                    if inspect.isfunction(function) and member_name != "__init__":
                        yield f"{qualified}.{member_name}", function


def _option_parameters(item: Callable[..., Any]) -> set[str]:
    """The parameters of `item` named like a print option (a class: those of its constructor)."""
    try:
        parameters = inspect.signature(item).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin's): nothing of ours
        return set()
    return {
        name
        for name, parameter in parameters.items()
        if name in OPTION_NAMES
        and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    }


def test_no_printer_function_takes_a_print_option_by_itself() -> None:
    offenders = {
        name: sorted(found - ALLOWED.get(name, set()))
        for name, item in _callables()
        if (found := _option_parameters(item)) - ALLOWED.get(name, set())
    }
    assert not offenders, (
        "these take print options one by one; pass the PrintOptions object and read the field "
        f"where it is used: {offenders}"
    )


def test_the_walk_sees_functions_classes_and_methods() -> None:
    """Not vacuous: the walk reaches the formatting and painting code, its classes and their methods."""
    names = {name for name, _ in _callables()}
    assert {
        "lazytensor.printer.numberformat.format_values",
        "lazytensor.printer.numberformat.FloatFormat.decide",
        "lazytensor.printer.cells.CellPainter",
        "lazytensor.printer.tensorprint.TensorPrint",
        "lazytensor.printer.shown.select_shown",
        "lazytensor.printer.header.statistics",
        "lazytensor.printer.summary.streamed_statistics",
        "lazytensor.tensors.surface.display.Display.print",
    } <= names


def test_every_exception_is_still_needed() -> None:
    """The lists name only what exists and still takes those parameters: they cannot go stale."""
    found = dict(_callables())
    for name, allowed in ALLOWED.items():
        assert name in found, f"{name} is allowed but no longer defined"
        assert allowed <= _option_parameters(found[name]), f"{name} no longer takes {sorted(allowed)}"


def test_a_parameter_named_like_an_option_is_found() -> None:
    """The check itself: a function with a `sci_mode` parameter is caught, a `**options` one is not."""

    def one_by_one(values: Any, precision: int, sci_mode: bool | None = None) -> None: ...

    def whole(values: Any, options: PrintOptions, **overrides: Any) -> None: ...

    assert _option_parameters(one_by_one) == {"precision", "sci_mode"}
    assert _option_parameters(whole) == set()

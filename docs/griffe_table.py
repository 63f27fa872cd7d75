"""Griffe extension: the array API's elementwise functions documented as the functions they are.

`lazytensor.array_api.elementwise` makes `lt.sin`, `lt.add`, ... at import, one for each entry of the
operator table that carries an `Api`; its source holds only the one-line declarations mypy reads
(`sin: _Unary`). Griffe reads source without running it, so this extension imports the module and puts
the functions it made (signature, docstring) in place of the declarations, and gives the module its
run-time `__all__` as its exports, so that `::: lazytensor.sin` in docs/api.md finds `sin` through
the package's `from lazytensor.array_api.elementwise import *`.
"""

from __future__ import annotations

import importlib
from typing import Any

import griffe

MODULE = "lazytensor.array_api.elementwise"


class TableFunctions(griffe.Extension):
    def on_module_members(self, *, mod: griffe.Module, agent: Any, **kwargs: Any) -> None:
        if mod.path != MODULE:
            return
        names: list[str] = importlib.import_module(MODULE).__all__
        made = griffe.inspect(
            MODULE, docstring_parser=agent.docstring_parser, docstring_options=agent.docstring_options
        )
        for name in names:
            member = mod.members.get(name)
            if member is None or member.is_attribute:  # declared for mypy, made at import
                mod.set_member(name, made[name])
        mod.exports = list(names)

"""Test helper: an optional dependency missing, as `importlib.import_module` (which the package's
`require` and lazy imports call) would report it."""

from __future__ import annotations

import importlib
from typing import Any

import pytest


def refuse_import(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make `importlib.import_module` raise ImportError for these module names, as if not installed."""
    real = importlib.import_module

    def refusing(name: str, *args: Any) -> Any:
        if name in names:
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", refusing)

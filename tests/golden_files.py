"""Golden-text files: compare printed text with the checked-in file, or rewrite it on request.

Regenerate with `LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/...`, then read every
changed file before committing it.
"""

from __future__ import annotations

import os
import pathlib

GOLDEN = pathlib.Path(__file__).parent / "golden"
UPDATE = os.environ.get("LAZYTENSOR_UPDATE_GOLDEN") == "1"


def check_golden(folder: str, name: str, text: str) -> None:
    """Assert that `text` equals golden/<folder>/<name>.txt (write it instead when updating)."""
    path = GOLDEN / folder / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")

"""Shared test fixtures: the Planetoid data, which lives beside the repository in ../shared/data."""

from __future__ import annotations

from pathlib import Path

import pytest

PLANETOID = Path(__file__).resolve().parents[2] / "shared" / "data" / "planetoid"


@pytest.fixture
def planetoid_data() -> Path:
    """The Planetoid directory; a missing one fails the test (it must not pass by skipping)."""
    if not (PLANETOID / "ind.cora.x").is_file():
        pytest.fail(f"the Planetoid files are expected in {PLANETOID} (shared/ beside the repository)")
    return PLANETOID

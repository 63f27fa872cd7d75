"""Shared test fixtures and the hypothesis profiles.

Profiles (chosen with the `HYPOTHESIS_PROFILE` environment variable, `dev` when unset):

- `dev`: random examples on every run, so local runs keep exploring; no deadline
  (timings are never asserted, and a slow first call must not fail a test).
- `ci`: `derandomize=True` and no example database, so the same examples run on
  every CI run and nothing is written into the repository; `.ci/run` selects it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", deadline=None)
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    # a timing health check would make a derandomized run depend on the machine's speed
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

PLANETOID = Path(__file__).resolve().parents[2] / "shared" / "data" / "planetoid"


@pytest.fixture
def planetoid_data() -> Path:
    """The Planetoid directory; a missing one fails the test (it must not pass by skipping)."""
    if not (PLANETOID / "ind.cora.x").is_file():
        pytest.fail(f"the Planetoid files are expected in {PLANETOID} (shared/ beside the repository)")
    return PLANETOID

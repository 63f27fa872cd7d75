"""Shared test fixtures and the hypothesis profiles.

The Planetoid-format files are made from the `.npz` files the examples ship: nothing outside
the repository is read, so a fresh clone has all it needs (the original Planetoid files are
only needed to re-run `scripts/convert_planetoid.py`).

Profiles (chosen with the `HYPOTHESIS_PROFILE` environment variable, `ci` when unset, so the
README's command runs the same examples as CI on every machine):

- `ci`: `derandomize=True` and no example database, so the same examples run on
  every run and nothing is written into the repository.
- `random` (`dev` is the same): new random examples on every run, for exploring; no example
  database either, so a failure is replayed with the seed pytest prints
  (`--hypothesis-seed=N`) or the `@reproduce_failure` blob. `.ci/run` makes one such pass
  over the property tests at a printed seed.

Neither has a deadline: timings are never asserted, and a slow first call must not fail a test.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# SciPy reads its array-API switch once, when first imported (by networkx, scikit-learn, ...):
# set before any test imports it, so tests/top/test_clients.py calls SciPy's array-API paths
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    # a timing health check would make a derandomized run depend on the machine's speed
    suppress_health_check=[HealthCheck.too_slow],
)
for _name in ("random", "dev"):
    settings.register_profile(
        _name, deadline=None, database=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
    )
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import planetoid_files  # noqa: E402 -- found through the sys.path entry above


@pytest.fixture(scope="session")
def planetoid_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of `ind.{cora,citeseer}.*` in the original format, written from the shipped data."""
    folder = tmp_path_factory.mktemp("planetoid")
    for name in ("cora", "citeseer"):
        parts = planetoid_files.shipped_parts(name)
        planetoid_files.write_planetoid(folder, name, planetoid_files.planetoid_pieces(parts))
    return folder

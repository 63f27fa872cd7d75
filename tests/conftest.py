"""Shared test fixtures: Planetoid-format files made from the `.npz` files the examples ship.

Nothing outside the repository is read: a fresh clone has all it needs. The original Planetoid
files are only needed to re-run `scripts/convert_planetoid.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import planetoid_files


@pytest.fixture(scope="session")
def planetoid_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of `ind.{cora,citeseer}.*` in the original format, written from the shipped data."""
    folder = tmp_path_factory.mktemp("planetoid")
    for name in ("cora", "citeseer"):
        parts = planetoid_files.shipped_parts(name)
        planetoid_files.write_planetoid(folder, name, planetoid_files.planetoid_pieces(parts))
    return folder

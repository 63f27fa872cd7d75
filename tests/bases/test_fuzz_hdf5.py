"""Fuzzing the HDF5 and netCDF doors: hostile files (`hdf5_corpus`) opened, printed and read by
`lt.open`, each in a child process with a time limit. The only outcomes allowed are the values or a
one-line error naming the file: never a hang, a crash, another exception, or a byte of another file.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hdf5_corpus import MUTATIONS, NETCDF_MUTATIONS, classify_file, hostile_files, make_file
from hypothesis import HealthCheck, given, settings

ALLOWED = ("clean error", "opened and printed")
RECIPE = {"dtype": "<f8", "shape": (4, 3), "chunks": (2, 2), "compression": "gzip", "shuffle": True}


def _outcome(recipe: dict[str, Any]) -> tuple[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        path, key = make_file(Path(folder), recipe)
        return classify_file(path, key, recipe)


OUTSIDE = ("external storage", "virtual dataset", "external link")
CASES = [(m, "secret") for m in MUTATIONS] + [(m, t) for m in OUTSIDE for t in ("passwd", "fifo", "zero")]


@pytest.mark.parametrize(("mutation", "target"), CASES)
def test_each_hostile_kind_of_hdf5_file_fails_in_one_line(mutation: str, target: str) -> None:
    recipe = {
        **RECIPE,
        "netcdf": False,
        "mutation": mutation,
        "target": target,
        "flips": [(0.3, 9)],
        "cut": 0.5,
    }
    outcome, detail = _outcome(recipe)
    assert outcome in ALLOWED, (outcome, detail)
    if mutation not in ("valid", "bit flips", "inflating chunk", "huge strided"):
        assert outcome == "clean error", (mutation, outcome)


@pytest.mark.parametrize("mutation", NETCDF_MUTATIONS)
def test_each_hostile_kind_of_netcdf_file_fails_in_one_line(mutation: str) -> None:
    recipe = {
        **RECIPE,
        "netcdf": True,
        "mutation": mutation,
        "target": "fifo",
        "flips": [(0.5, 1)],
        "cut": 0.5,
    }
    outcome, detail = _outcome(recipe)
    assert outcome in ALLOWED, (outcome, detail)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipe=hostile_files())
def test_hostile_hdf5_files_open_print_and_read_or_fail_in_one_line(recipe: dict[str, Any]) -> None:
    outcome, detail = _outcome(recipe)
    assert outcome in ALLOWED, (recipe, outcome, detail)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipe=hostile_files(netcdf=True))
def test_hostile_netcdf_files_open_print_and_read_or_fail_in_one_line(recipe: dict[str, Any]) -> None:
    outcome, detail = _outcome(recipe)
    assert outcome in ALLOWED, (recipe, outcome, detail)

"""`show` and `repl` on a netCDF file written with xarray: the slices are labelled with the file's
coordinates (`station=rome`), as the printer labels them everywhere.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import xarray as xr


@pytest.fixture
def weather(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "weather.nc"
    xr.DataArray(
        np.arange(24.0).reshape(3, 2, 4),
        dims=("station", "level", "time"),
        coords={
            "station": ["rome", "oslo", "lima"],
            "level": [850, 500],
            "time": pd.date_range("2024-01-01", periods=4, freq="D"),
        },
        name="temperature",
    ).to_dataset().to_netcdf(path, engine="h5netcdf")
    return path


def _run(*args: str, commands: str | None = None) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.run(
        [sys.executable, "-m", "lazytensor", *args],
        input=commands,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**environment, "NO_COLOR": "1"},
        timeout=120,
        check=False,
    )


def test_show_labels_the_slices_of_a_netcdf_file_with_its_coordinates(weather: pathlib.Path) -> None:
    result = _run("show", str(weather), "--width", "100")
    assert result.returncode == 0, result.stderr
    assert "coords station rome…lima · level 850…500 · time 2024-01-01…2024-01-04" in result.stdout
    assert "[station=rome, level↓, time→]" in result.stdout
    assert "[station=lima, level↓, time→]" in result.stdout


def test_repl_labels_the_slices_and_selects_by_label(weather: pathlib.Path) -> None:
    result = _run("repl", str(weather), commands="t\nt.sel(station='oslo').sum().item()\n")
    assert result.returncode == 0, result.stderr
    assert "[station=oslo, level↓, time→]" in result.stdout
    assert str(np.arange(8.0, 16.0).sum()) in result.stdout

"""`scripts/fuzz_outcomes.py` prints an outcome table per corpus, the HDF5 and netCDF ones included,
and a small run of them finds no hang, crash, raw traceback or foreign byte."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_hdf5_and_netcdf_tables_show_only_clean_outcomes() -> None:
    command = [sys.executable, str(ROOT / "scripts" / "fuzz_outcomes.py"), "--npy", "0", "--bytes", "0"]
    command += ["--zarr", "0", "--hdf5", "8", "--netcdf", "4"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    tables = dict(
        re.findall(
            r"\n(hostile \w+ files): \d+ inputs\n\| outcome \| inputs \|\n\|---\|---\|\n((?:\|.*\|\n)+)",
            done.stdout,
        )
    )
    assert set(tables) == {"hostile HDF5 files", "hostile netCDF files"}, done.stdout
    for name, table in tables.items():
        rows = dict(re.findall(r"\| ([\w ]+) \| (\d+) \|", table))
        assert set(rows) >= {"hang", "raw traceback", "wrong result", "foreign bytes read", "crash"}, table
        bad = {
            outcome: int(count)
            for outcome, count in rows.items()
            if outcome not in ("clean error", "opened and printed")
        }
        assert not any(bad.values()), (name, bad, done.stderr[-2000:])
        assert int(rows["clean error"]) + int(rows["opened and printed"]) > 0, table

"""benchmarks/bench_lazy.py, issue #40's table: its goals are judged as they say, its rows are in an
order that runs each row's baseline first, and a row runs in a child process on a store it writes.

Reaches into the benchmark script (loaded from its file: benchmarks/ is no package), not the
public `lazytensor` API.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from repo_paths import ROOT

SCRIPT = ROOT / "benchmarks" / "bench_lazy.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    pytest.importorskip("zarr")
    pytest.importorskip("h5py")
    spec = importlib.util.spec_from_file_location("bench_lazy", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _measured(wall: float, peak_mb: float, start_mb: float = 60.0) -> dict[str, float]:
    peak, start = peak_mb * 1e6, start_mb * 1e6
    return {"wall": wall, "cpu": wall, "runs": 1, "peak": peak, "start": start, "added": peak - start}


def test_a_ratio_goal_is_met_within_its_bounds_and_missed_past_either(bench: ModuleType) -> None:
    goal = bench.Goal("≤ 1.3× time, ≤ 2× added", against="sum", time=1.3, memory=2.0, memory_field="added")
    done = {"sum": _measured(1.0, 160)}  # 100 MB added
    assert bench.verdict(goal, _measured(1.3, 260), done).endswith(": met")
    assert bench.verdict(goal, _measured(1.31, 200), done).endswith(": MISSED")  # too slow
    assert bench.verdict(goal, _measured(1.0, 261), done).endswith(": MISSED")  # 201 MB added
    assert "1.30× wall" in bench.verdict(goal, _measured(1.3, 260), done)


def test_a_peak_goal_counts_the_whole_peak(bench: ModuleType) -> None:
    goal = bench.Goal("peak < 300 MB", peak_mb=300)
    assert bench.verdict(goal, _measured(5.0, 299), {}) == "goal peak < 300 MB: met"
    assert bench.verdict(goal, _measured(5.0, 300), {}) == "goal peak < 300 MB: MISSED"
    assert bench.verdict(None, _measured(5.0, 999), {}) == ""


def test_every_row_runs_after_the_row_it_is_held_against(bench: ModuleType) -> None:
    seen: set[str] = set()
    for row in bench.ROWS:
        compile(row.setup, "<setup>", "exec"), compile(row.code, "<row>", "exec")
        if row.goal is not None and row.goal.against is not None:
            assert row.goal.against in seen, row.label
        seen.add(row.label)


def test_a_row_runs_in_a_child_on_each_format(bench: ModuleType, tmp_path: Path) -> None:
    stores = bench.write_stores(tmp_path, 0.004, ("zarr", "hdf5"))  # 100 rows of 10⁴ float32
    save = next(row for row in bench.ROWS if row.label.startswith("lt.save(out / 'e.npy'"))
    for kind, path in stores.items():
        measured = bench.run_child(path, kind, save, tmp_path / "out", least=2)
        assert measured["runs"] >= 2 and measured["peak"] >= measured["start"] > 0
        assert not (tmp_path / "out").exists()  # what the row wrote is deleted

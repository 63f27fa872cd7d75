"""The conformance suite's summary script: counts from a JUnit XML report, and the baseline check."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from repo_paths import ROOT

SCRIPT = ROOT / "scripts" / "array_api_summary.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("array_api_summary", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="5">
<testcase classname="array_api_tests.test_a" name="test_one"/>
<testcase classname="array_api_tests.test_a" name="test_two"/>
<testcase classname="array_api_tests.test_b" name="test_three">
<failure message="AssertionError: out.dtype=uint64&#10;more">x</failure></testcase>
<testcase classname="array_api_tests.test_b" name="test_four"><error message="boom">x</error></testcase>
<testcase classname="array_api_tests.test_c" name="test_five"><skipped message="flaky"/></testcase>
</testsuite></testsuites>
"""


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "junit.xml"
    path.write_text(REPORT)
    return path


def test_counts_passes_failures_errors_and_skips(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _script().main([str(report)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "array API conformance: 2 passed, 2 failed, 1 skipped"
    assert lines[1:] == [
        "  FAILED array_api_tests.test_b::test_three: AssertionError: out.dtype=uint64",
        "  FAILED array_api_tests.test_b::test_four: boom",
    ]


@pytest.mark.parametrize(("recorded", "status"), [(1, 0), (2, 0), (3, 1)])
def test_fails_when_passes_fall_below_the_baseline(
    report: Path, tmp_path: Path, recorded: int, status: int
) -> None:
    baseline = tmp_path / "baseline.txt"
    baseline.write_text(f"# passes at the recorded settings\n{recorded}\n")
    assert _script().main([str(report), "--baseline", str(baseline)]) == status


def test_a_missing_report_is_an_error_not_a_pass(tmp_path: Path) -> None:
    assert _script().main([str(tmp_path / "absent.xml")]) == 2


def test_a_baseline_without_a_count_is_refused(report: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("# nothing recorded\n")
    with pytest.raises(ValueError, match="no line holding just the count"):
        _script().main([str(report), "--baseline", str(baseline)])

"""Summarise a run of the array API conformance suite from its JUnit XML report, and fail when fewer
tests passed than the count recorded in the repository.

usage: python scripts/array_api_summary.py REPORT.xml [--baseline tests/array_api_baseline.txt]

Prints one line, `array API conformance: N passed, N failed, N skipped`, then the failed tests (each
with the first line of its message). Exits 1 when the passes fall below the baseline (the first
integer in the baseline file), 2 when the report is missing or unreadable, else 0.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import attrs


@attrs.frozen
class Outcome:
    """How one test case ended: "passed", "failed" (a failure or an error) or "skipped"."""

    name: str
    result: str
    message: str


def outcomes(report: Path) -> list[Outcome]:
    """Every test case of a JUnit XML report (pytest's `--junitxml`) and how it ended."""
    found = []
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        result, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                result, message = "failed", child.get("message", "")
                break
            if child.tag == "skipped":
                result, message = "skipped", child.get("message", "")
        found.append(Outcome(name, result, message))
    return found


def baseline(path: Path) -> int:
    """The recorded count of passing tests: the first integer in the file (comments may surround it)."""
    match = re.search(r"^\s*(\d+)\s*$", path.read_text(), flags=re.MULTILINE)
    if match is None:
        raise ValueError(f"{path}: no line holding just the count of passing tests")
    return int(match.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the JUnit XML report of the suite's run")
    parser.add_argument("--baseline", type=Path, help="the file holding the least count of passes")
    args = parser.parse_args(argv)
    try:
        found = outcomes(args.report)
    except (OSError, ET.ParseError) as error:
        print(f"array API conformance: cannot read the report {args.report}: {error}", file=sys.stderr)
        return 2
    counts = {kind: sum(1 for o in found if o.result == kind) for kind in ("passed", "failed", "skipped")}
    print(
        f"array API conformance: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['skipped']} skipped"
    )
    for outcome in found:
        if outcome.result == "failed":
            first_line = outcome.message.strip().splitlines()[0] if outcome.message.strip() else ""
            print(f"  FAILED {outcome.name}: {first_line[:160]}")
    if args.baseline is None:
        return 0
    least = baseline(args.baseline)
    if counts["passed"] < least:
        print(
            f"array API conformance fell: {counts['passed']} passed, fewer than the {least} recorded in "
            f"{args.baseline}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The repository's root for tests in any subfolder of tests/ (found through conftest's sys.path entry).

A test that runs a script, copies the package or sets `PYTHONPATH` for a child process names the
repository by `ROOT`, so it keeps working wherever it sits under `tests/`.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

"""examples/seed_walkthrough.py prints what tests/golden/seeds/walkthrough.txt holds, byte for byte.

The golden text was checked by hand against the seed posts (shared/seeds): every value
there is the value a post shows, or, where a comment in the script says the post slipped,
the right one. If the script changes on purpose, regenerate it as every golden file is
regenerated (`LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/examples/test_seed_walkthrough.py`)
and read the diff.
"""

from __future__ import annotations

import subprocess
import sys

from golden_files import GOLDEN, check_golden
from repo_paths import ROOT

SCRIPT = ROOT / "examples" / "seed_walkthrough.py"
EXPECTED = GOLDEN / "seeds" / "walkthrough.txt"


def test_walkthrough_prints_the_expected_text() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, encoding="utf-8", check=True
    )
    assert result.stderr == ""
    check_golden("seeds", "walkthrough", result.stdout)


def test_the_seeds_printed_blocks_are_in_the_expected_text() -> None:
    """Spot checks, typed from the posts: the 5-D slice of part II and the final product."""
    expected = EXPECTED.read_text(encoding="utf-8")
    blocks = (
        " 192.00  193.00  194.00  195.00 \n 196.00  197.00  198.00  199.00 \n",
        " 204.00  205.00  206.00  207.00 \n---\n 208.00  209.00  210.00  211.00 \n",
        " 220.00  221.00  222.00  223.00 \n===\n 224.00  225.00  226.00  227.00 \n",
        " 130.00  130.00  150.00  150.00 \n 154.00  154.00  178.00  178.00 \n",
        " 178.00  178.00  206.00  206.00 \n",
        "First position out of bounds for shape [2, 2, 2] is [2, 0, 0]\n",
        "position [1, 1, 1] maps to [4, 1, 1]\n",
    )
    for block in blocks:
        assert block in expected

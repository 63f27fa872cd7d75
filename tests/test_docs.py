"""The docs site stays true to the code.

- The API reference (docs/api.md) documents exactly the public names, `lazytensor.__all__`.
- Every page of the site is in the navigation of mkdocs.yml, and every page there exists.
- The `>>>` examples of the pages run, and print what the pages say they print: each
  page is one doctest session, its ```` ```pycon ```` and ```` ```python ```` blocks in order.
- The README's two commands are the ones CI runs.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import lazytensor

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCED_BLOCK = re.compile(r"^```(?:pycon|python)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
DOCTESTED_PAGES = (
    "README.md",
    "docs/index.md",
    "docs/concepts.md",
    "docs/indexing.md",
    "docs/operators.md",
    "docs/autograd.md",
    "docs/gnn.md",
    "docs/seeds.md",
    "docs/bigger.md",
    "docs/concurrency.md",
)


def test_api_reference_documents_every_public_name() -> None:
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^::: lazytensor\.(\w+)\s*$", text, flags=re.MULTILINE)
    assert len(documented) == len(set(documented)), "a name is documented twice"
    assert sorted(documented) == sorted(lazytensor.__all__)


def test_every_page_is_in_the_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    in_nav = set(re.findall(r"^  - [^:]+: (\S+\.md)$", config, flags=re.MULTILINE))
    pages = {path.name for path in DOCS.glob("*.md")}
    assert in_nav == pages


def as_doctest_text(block: str) -> str:
    """A fenced block as doctest source: blank lines inside an output become `<BLANKLINE>`."""
    lines = block.rstrip("\n").split("\n")
    out: list[str] = []
    for k, line in enumerate(lines):
        if line.strip():
            out.append(line)
            continue
        rest = [later for later in lines[k + 1 :] if later.strip()]
        inside_output = bool(out) and bool(rest) and not rest[0].startswith(">>>")
        out.append("<BLANKLINE>" if inside_output else "")
    return "\n".join(out) + "\n"


class TrailingSpaceChecker(doctest.OutputChecker):
    """Compare outputs line by line without trailing spaces (the seeds' style ends values with one)."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        def strip(text: str) -> str:
            return "\n".join(line.rstrip() for line in text.split("\n"))

        return super().check_output(strip(want), strip(got), optionflags)


def page_examples(page: str) -> str:
    text = (ROOT / page).read_text(encoding="utf-8")
    return "\n".join(as_doctest_text(block) for block in FENCED_BLOCK.findall(text) if ">>>" in block)


@pytest.mark.parametrize("page", DOCTESTED_PAGES)
def test_page_examples_print_what_the_page_says(page: str) -> None:
    source = page_examples(page)
    assert ">>>" in source, f"{page} has no examples"
    parser = doctest.DocTestParser()
    test = parser.get_doctest(source, {"__name__": "__docs__"}, page, str(ROOT / page), 0)
    runner = doctest.DocTestRunner(checker=TrailingSpaceChecker(), optionflags=doctest.ELLIPSIS)
    with lazytensor.printoptions():  # pages leave the options as they found them
        result = runner.run(test)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page} failed (see above)"


def test_readme_keeps_the_two_commands_that_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    tour = "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/python -m lazytensor tour"
    tests = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && .venv/bin/python -m pytest"
    assert tour in readme
    assert tests in readme
    assert tests in ci

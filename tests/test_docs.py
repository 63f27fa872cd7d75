"""The docs site stays true to the code.

- The API reference (docs/api.md) documents exactly the public names, `lazytensor.__all__`.
- Every page of the site is in the navigation of mkdocs.yml, and every page there exists.
- The `>>>` examples of the pages run, and print what the pages say they print: each
  page is one doctest session, its ```` ```pycon ```` and ```` ```python ```` blocks in order.
- The console examples run and print what the pages say: every `$ python -m lazytensor ...` of a
  ```` ```console ```` block (its output, then `$ echo $?` checks its exit status; `>>> ` lines
  after a `repl` command are typed at its prompt; a `...` line stands for output left out), and
  every IPython session of an ```` ```ipython ```` block. Console blocks of other programs (the
  benchmarks of docs/performance.md, which print timings) are not examples of output and are
  not run.
- The README's two commands are the ones CI runs.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import attrs
import numpy as np
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
    "docs/names.md",
    "docs/numpy.md",
    "docs/operators.md",
    "docs/autograd.md",
    "docs/nn.md",
    "docs/gnn.md",
    "docs/seeds.md",
    "docs/bigger.md",
    "docs/concurrency.md",
    "docs/printing.md",
    "docs/array-api.md",
    "docs/clients.md",
    "docs/performance.md",
    "docs/extending.md",
)
CONSOLE_BLOCK = re.compile(r"^```console\n(.*?)^```$", re.DOTALL | re.MULTILINE)
IPYTHON_BLOCK = re.compile(r"^```ipython\n(.*?)^```$", re.DOTALL | re.MULTILINE)
LAZYTENSOR = "python -m lazytensor "


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


# -- console examples ------------------------------------------------------------------------------


@attrs.frozen
class Command:
    """One `$ ...` line of a console block, what is typed at its prompt, and the output shown."""

    page: str
    line: str
    typed: tuple[str, ...]
    shown: str


def console_commands(page: str) -> list[Command]:
    """The commands of the page's console blocks that run lazytensor (and their `echo $?`)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    commands: list[Command] = []
    for block in CONSOLE_BLOCK.findall(text):
        if not block.startswith("$ " + LAZYTENSOR):
            continue
        for chunk in re.split(r"^(?=\$ )", block, flags=re.MULTILINE):
            if not chunk.strip():
                continue
            line, _, rest = chunk.partition("\n")
            if not line.startswith("$ " + LAZYTENSOR + "repl"):  # `>>> ` is output (the tour prints it)
                commands.append(Command(page, line[2:], (), rest))
                continue
            typed = tuple(row[4:] for row in rest.splitlines() if row.startswith(">>> "))
            shown = "\n".join(row for row in rest.splitlines() if not row.startswith(">>> "))
            commands.append(Command(page, line[2:], typed, shown))
    return commands


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _data_files(folder: Path) -> None:
    """The files the pages' commands name (docs/cli.md says how each was made)."""
    np.save(folder / "data.npy", np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 7)
    np.save(folder / "objects.npy", np.array({"a": 1}, dtype=object), allow_pickle=True)


def _matches(want: str, got: str) -> bool:
    """doctest's comparison: trailing spaces ignored, `...` standing for any text."""
    checker = TrailingSpaceChecker()
    return checker.check_output(want.strip("\n") + "\n", got.strip("\n") + "\n", doctest.ELLIPSIS)


def _without_prompts(text: str) -> str:
    """A console's output with its `>>> ` prompts taken out (what was typed is not echoed)."""
    lines = [line.removeprefix(">>> ") if line.startswith(">>> ") else line for line in text.split("\n")]
    return "\n".join(line for line in lines if line != ">>>")


CONSOLE_PAGES = (*(str(path.relative_to(ROOT)) for path in sorted(DOCS.glob("*.md"))), "README.md")
SESSIONS = [command for page in CONSOLE_PAGES for command in console_commands(page)]


def test_the_cli_page_has_console_examples() -> None:
    pages = {command.page for command in SESSIONS}
    assert "docs/cli.md" in pages
    assert any(command.typed for command in SESSIONS)  # a repl session among them


def _run_sessions(page: str, folder: Path) -> list[tuple[Command, str, str]]:
    """Every command of the page, run in `folder`: (command, what it printed, what the page shows)."""
    results = []
    status = 0
    for command in (c for c in SESSIONS if c.page == page):
        if command.line == "echo $?":
            results.append((command, str(status), command.shown))
            continue
        assert command.line.startswith(LAZYTENSOR), command.line
        argv = [sys.executable, "-m", "lazytensor", *shlex.split(command.line[len(LAZYTENSOR) :])]
        run = subprocess.run(
            argv,
            input="".join(line + "\n" for line in command.typed),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=folder,
            env=_environment(),
            timeout=120,
            check=False,
        )
        status = run.returncode
        got = _without_prompts(run.stdout) if command.typed else run.stdout
        results.append((command, got, command.shown))
    return results


@pytest.mark.parametrize("page", sorted({command.page for command in SESSIONS}))
def test_console_examples_print_what_the_page_says(page: str, tmp_path: Path) -> None:
    _data_files(tmp_path)
    for command, got, shown in _run_sessions(page, tmp_path):
        assert _matches(shown, got), (
            f"{page}: $ {command.line}\n--- the page shows:\n{shown}\n--- it prints:\n{got}"
        )


def ipython_sessions(page: str) -> list[tuple[list[str], str]]:
    """Each ```ipython block: the lines typed at its `In [n]:` prompts, and the outputs shown."""
    text = (ROOT / page).read_text(encoding="utf-8")
    sessions = []
    for block in IPYTHON_BLOCK.findall(text):
        typed = [m.group(1) for m in re.finditer(r"^In \[\d+\]: (.*)$", block, flags=re.MULTILINE)]
        shown = "\n".join(
            line for line in block.splitlines() if line.strip() and not re.match(r"In \[\d+\]:", line)
        )
        sessions.append((typed, shown))
    return sessions


IPYTHON_PAGES = [page for page in CONSOLE_PAGES if ipython_sessions(page)]


@pytest.mark.parametrize("page", IPYTHON_PAGES)
def test_ipython_sessions_print_what_the_page_says(page: str, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "IPython", "--simple-prompt", "--no-banner", "--colors=NoColor"]
    argv.append("--HistoryManager.enabled=False")
    for typed, shown in ipython_sessions(page):
        run = subprocess.run(
            argv,
            input="".join(line + "\n" for line in typed),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=_environment(),
            timeout=120,
            check=False,
        )
        out = re.sub(r"In \[\d+\]: ", "", run.stdout)
        got = "\n".join(
            line for line in out.splitlines() if line.strip() and not line.startswith("Do you really want")
        )
        assert _matches(shown, got), f"{page}\n--- the page shows:\n{shown}\n--- IPython prints:\n{got}"

"""MkDocs hook: show the doctest examples of lazytensor's docstrings as Python code blocks.

The docstrings hold plain doctest blocks (`>>> code` followed by its output, up to a
blank line), which pytest runs with `--doctest-modules`. Markdown would read their
`>>>` as nested quotes, so this hook adds a Markdown preprocessor that wraps each such
block, outside fenced code, in a ```` ```pycon ```` fence. It runs before mkdocstrings
reads the Markdown configuration, so the API reference pages get it too.
"""

from __future__ import annotations

from typing import Any

from markdown import Markdown  # type: ignore[import-untyped, unused-ignore]
from markdown.extensions import Extension  # type: ignore[import-untyped, unused-ignore]
from markdown.preprocessors import Preprocessor  # type: ignore[import-untyped, unused-ignore]
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

FENCE = "```"
PROMPT = ">>>"


def wrap_doctest_blocks(lines: list[str]) -> list[str]:
    """Put every doctest block that is not already in a fence inside a ```` ```pycon ```` fence.

    >>> wrap_doctest_blocks(["Text.", "", ">>> 1 + 1", "2", "", "More."])
    ['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
    >>> wrap_doctest_blocks(["Text:", ">>> x = 1"])
    ['Text:', '', '```pycon', '>>> x = 1', '```']
    """
    out: list[str] = []
    in_fence = False
    in_block = False
    indent = ""
    for line in lines:
        stripped = line.lstrip()
        if in_block and not stripped:
            out.append(indent + FENCE)
            in_block = False
        if not in_block and stripped.startswith(FENCE):
            in_fence = not in_fence
        elif not in_fence and not in_block and stripped.startswith(PROMPT):
            indent = line[: len(line) - len(stripped)]
            if out and out[-1].strip():
                out.append("")  # a fence needs a blank line before it
            out.append(indent + FENCE + "pycon")
            in_block = True
        out.append(line)
    if in_block:
        out.append(indent + FENCE)
    return out


class DoctestBlocks(Preprocessor):  # type: ignore[misc, unused-ignore]
    def run(self, lines: list[str]) -> list[str]:
        return wrap_doctest_blocks(lines)


class DoctestBlocksExtension(Extension):  # type: ignore[misc, unused-ignore]
    def extendMarkdown(self, md: Markdown) -> None:  # Python-Markdown's name for the hook
        # before the fenced-code preprocessors (priority 25-30), so they see the new fences
        md.preprocessors.register(DoctestBlocks(md), "lazytensor_doctest_blocks", 40)


@event_priority(100)  # before mkdocstrings builds its Markdown from this configuration
def on_config(config: MkDocsConfig, **_: Any) -> MkDocsConfig:
    config.markdown_extensions.append(DoctestBlocksExtension())
    return config

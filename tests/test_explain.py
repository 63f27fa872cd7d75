"""`t.explain()`: the layer tree and the trace of one position, as text, rich and HTML.

Regenerate the golden files with `LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_explain.py`,
then read every changed file before accepting it.
"""

from __future__ import annotations

import io
import itertools
import pathlib
from collections.abc import Callable

import numpy as np
import pytest
from golden_files import check_golden
from rich.console import Console
from rich.panel import Panel

import lazytensor as lt

STACKS: dict[str, Callable[[], lt.AbstractTensor]] = {
    "storage": lambda: lt.arange(6),
    "fused": lambda: lt.arange(24).reshape(2, 3, 4).T[1:, ::-1],
    "gather": lambda: lt.arange(24).reshape(2, 3, 4).transpose(0, 2).reshape(4, 6)[::2],
    "indexed_expanded": lambda: lt.arange(5.0).expand(3, 5)[:, [4, 0, 3]],
    "mask": lambda: lt.arange(10).reshape(2, 5)[lt.arange(10).reshape(2, 5).numpy() % 3 == 0],
}
POSITIONS = {"storage": (-1,), "fused": (2, 0, 1), "gather": (1, 5), "indexed_expanded": (2, 0), "mask": (2,)}


@pytest.mark.parametrize("name", sorted(STACKS))
def test_golden_tree_and_trace(name: str) -> None:
    t = STACKS[name]()
    text = f"{t.explain()}\n\n{t.explain(POSITIONS[name])}\n"
    check_golden("explain", name, text)
    assert all(line == line.rstrip() for line in text.split("\n"))


@pytest.mark.parametrize("name", sorted(STACKS))
def test_every_trace_ends_at_the_storage_index_locate_finds(name: str) -> None:
    t = STACKS[name]()
    for position in itertools.product(*(range(size) for size in t.shape)):
        text = str(t.explain(position))
        index = t.locate(position)
        assert f"storage index {index} holds {t.get(position).item()!r}" in text


def test_the_tree_names_each_layer_with_its_parameters_and_layout() -> None:
    text = str(lt.arange(12).reshape(3, 4).T[::2].explain())
    assert "Sliced (2, 3) · key [0:4:2, 0:3]" in text
    assert "Transposed (4, 3) · axes (1, 0)" in text
    assert "Reshaped (3, 4) · new shape (3, 4)" in text
    assert "Storage (12,) · buffer of 12 × int64" in text
    assert "strides (2, 4), offset 0" in text
    gather = str(lt.arange(12).reshape(3, 4).T.reshape(12).explain())
    assert "gather: no strided layout" in gather


def test_positions_are_checked() -> None:
    t = lt.zeros(2, 3)
    with pytest.raises(IndexError):
        t.explain((2, 0))
    with pytest.raises(IndexError):
        t.explain((0,))
    assert t.explain((-1, -1)).position == (1, 2)
    assert lt.arange(4).explain(3).position == (3,)


def test_explain_renders_in_rich_and_jupyter() -> None:
    t = lt.arange(6).reshape(2, 3).T
    console = Console(file=io.StringIO(), width=70, color_system=None)
    console.print(Panel(t.explain((1, 1))))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "storage index 4 holds 4" in text
    bundle = t.explain()._repr_mimebundle_()
    assert bundle["text/plain"] == str(t.explain()) == repr(t.explain())
    assert bundle["text/html"].startswith("<pre")


def test_a_memory_mapped_storage_says_so(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(6.0))
    assert "buffer of 6 × float64, memory-mapped" in str(lt.load(path).explain())

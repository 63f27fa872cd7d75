"""`t.explain()`: the layer tree and the trace of one position, as text, rich and HTML.

Regenerate the golden files with `LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/printer/test_explain.py`,
then read every changed file before accepting it.

Reaches into `lazytensor.printer.explain`: a duck-typed stack of 10,000 layers has no `explain()`
method, so `Explanation` is built on it directly.
"""

from __future__ import annotations

import io
import itertools
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from rich.console import Console
from rich.panel import Panel

import lazytensor as lt
from lazytensor.printer.explain import Explanation

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
    assert bundle["text/html"].startswith('<div class="lt-out">') and "<pre" in bundle["text/html"]


def test_a_memory_mapped_storage_says_so(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(6.0))
    assert "buffer of 6 × float64, memory-mapped" in str(lt.load(path).explain())


# -- deep stacks: summarised, walked in a loop ----------------------------------------------------


class FakeLayer:
    """A duck-typed wrapper: the layer protocol and nothing else (no class of lazytensor's)."""

    layer_name = "Fake"
    layout = None

    def __init__(self, wrapped: Any, depth: int) -> None:
        self.wrapped = wrapped
        self.depth = depth
        self.shape = wrapped.shape
        self.storage = wrapped.storage

    def describe(self) -> str:
        return f"fake {self.depth}"

    def translate(self, pos: tuple[int, ...]) -> tuple[int, ...]:
        return pos

    @property
    def layers(self) -> tuple[Any, ...]:
        found: list[Any] = []
        layer: Any = self
        while layer is not None:
            found.append(layer)
            layer = getattr(layer, "wrapped", None)
        return tuple(found)


def _fake_stack(depth: int) -> Any:
    layer: Any = lt.arange(6).reshape(2, 3).numpy().copy()
    layer = lt.from_numpy(layer)
    for k in range(depth):
        layer = FakeLayer(layer, k)
    return layer


def _alternating_stack(depth: int) -> lt.AbstractTensor:
    t = lt.arange(6).reshape(2, 3)
    for k in range(depth):
        t = t.T if k % 2 == 0 else t[::1]
    return t


def test_a_10000_layer_duck_typed_stack_explains_in_a_few_lines() -> None:
    t = _fake_stack(10_000)
    tree = str(Explanation(t))
    trace = str(Explanation(t, (1, 2)))
    assert "… 9,991 more layers" in tree  # 10,000 fakes and the storage, 5 shown at each end
    assert tree.count("Fake") == 9 and "fake 9999" in tree and "fake 0" in tree
    assert "… 9,991 more layers" in trace
    assert "storage index 5 holds 5" in trace
    assert len(tree.splitlines()) < 30 and len(trace.splitlines()) < 20


def test_a_deep_real_stack_is_summarised_in_tree_and_trace() -> None:
    t = _alternating_stack(200)  # 200 views, the reshape and the storage
    tree, trace = str(t.explain()), str(t.explain((0, 0)))
    assert "… 192 more layers" in tree and "… 192 more layers" in trace
    assert "storage index 0 holds 0" in trace
    assert tree.splitlines()[0] == "Sliced (2, 3) · key [0:2, 0:3]"
    assert "└── Storage (6,) · buffer of 6 × int64" in tree


def test_a_stack_just_too_shallow_to_summarise_is_shown_whole() -> None:
    t = _alternating_stack(9)  # 11 layers: 5 + 1 + 5, a count would not be shorter
    assert "more layers" not in str(t.explain()) and "more layers" not in str(t.explain((0, 0)))
    assert str(t.explain()).count("Transposed") == 5


def test_a_10000_layer_real_stack_is_explained_in_summary() -> None:
    t = _alternating_stack(10_000)
    tree, trace = str(t.explain()), str(t.explain((0, 0)))
    assert "more layers" in tree and "more layers" in trace
    assert "… 9,994 more" in lt.to_string(t, linewidth=200).splitlines()[1]  # the header's layer chain

"""How `explain()` looks: its styles, where a deep stack's "… more layers" row goes, its table's wrapping,
and how it shows at a prompt and in a notebook.

The styled golden files (tests/golden/explain_styled/) write every styled run as `[style|css]text[/]`
(tests/styled_text.py); regenerate them with `LAZYTENSOR_UPDATE_GOLDEN=1` and read every change.

Reaches into `lazytensor.printer.explain` and `lazytensor.printer.styles`: where the rows of a deep
stack are cut and how they align are the module's own functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from rich.text import Text
from styled_text import styled

import lazytensor as lt
from lazytensor.printer.explain import (
    EDGE_LAYERS,
    Explanation,
    aligned_rows,
    as_wrapper,
    layer_names,
    more_layers,
    split_layers,
)
from lazytensor.printer.styles import DIM


def _alternating_stack(depth: int) -> lt.AbstractTensor:
    t = lt.arange(6).reshape(2, 3)
    for k in range(depth):
        t = t.T if k % 2 == 0 else t[::1]
    return t


STYLED: dict[str, Callable[[], lt.AbstractTensor]] = {
    "fused": lambda: lt.arange(24).reshape(2, 3, 4).T[1:, ::-1],
    "gather": lambda: lt.arange(24).reshape(2, 3, 4).transpose(0, 2).reshape(4, 6)[::2],
    "deep": lambda: _alternating_stack(14),  # 16 layers: 5 shown, 6 counted, 5 shown
    "named": lambda: lt.zeros(2, 3, names=("row", "col")).T[1:],
    "float": lambda: lt.arange(4.0)[::-1],
}
STYLED_POSITIONS = {"fused": (2, 0, 1), "gather": (1, 5), "deep": (2, 1), "named": (1, 0), "float": (1,)}


@pytest.mark.parametrize("name", sorted(STYLED))
def test_golden_styled_tree_and_trace(name: str) -> None:
    t = STYLED[name]()
    text = f"{styled(t.explain(), 80)}\n{styled(t.explain(STYLED_POSITIONS[name]), 80)}"
    check_golden("explain_styled", name, text)


def test_the_more_layers_row_of_a_deep_trace_sits_between_the_top_and_the_bottom_layers() -> None:
    t = _alternating_stack(14)  # 14 views, the reshape and the storage
    lines = str(t.explain((2, 1))).splitlines()
    table = lines[1:-2]  # after the position line, before the storage index and the shortcut
    assert table[0].split() == ["layer", "shape", "position", "parameters"]
    names = [row.split()[0] for row in table[1:]]
    assert names[:5] == ["Sliced", "Transposed", "Sliced", "Transposed", "Sliced"]
    assert table[1 + EDGE_LAYERS] == "… 6 more layers"
    assert names[6:] == ["Transposed", "Sliced", "Transposed", "Reshaped", "Storage"]
    tree = str(t.explain()).splitlines()
    assert tree[2 * EDGE_LAYERS].strip() == "└── … 6 more layers"


def test_more_layers_is_dim() -> None:
    row = more_layers(12345)
    assert row.plain == "… 12,345 more layers" and row.style == DIM


def test_split_layers_keeps_the_top_and_bottom_edges() -> None:
    assert split_layers(range(12)) == (range(5), range(7, 12), 2)
    assert split_layers(range(11)) == (range(11), range(11, 11), 0)
    top, bottom, omitted = split_layers(list("abcdefghij"), edge=3)
    assert (top, bottom, omitted) == (list("abc"), list("hij"), 4)


def _plain(rows: list[list[Text]], **options: Any) -> list[str]:
    return [line.plain for line in aligned_rows(rows, **options)]


def test_aligned_rows_pads_columns_by_the_gap_and_wraps_the_last_at_spaces() -> None:
    rows = [[Text("a"), Text("bb"), Text("c")], [Text("ddd"), Text("e"), Text("ffff")]]
    assert _plain(rows) == ["a    bb  c", "ddd  e   ffff"]
    assert _plain(rows, gap=1) == ["a   bb c", "ddd e  ffff"]
    long = [[Text("ab"), Text("one two three four five")]]
    assert _plain(long, width=13) == ["ab  one two", "    three", "    four five"]
    assert _plain(long, width=12) == ["ab  one two", "    three", "    four", "    five"]
    # a column narrower than 8 cells is not worth wrapping into: the line stays whole
    assert _plain(long, width=11) == ["ab  one two three four five"]
    # a word longer than the room (a path) is shortened from the left: its end tells files apart
    word = [[Text("ab"), Text("abcdefghijkl mn")]]
    assert _plain(word, width=12) == ["ab  …fghijkl", "    mn"]
    split_at_room = [[Text("ab"), Text("abcdefgh ij")]]
    assert _plain(split_at_room, width=12) == ["ab  abcdefgh", "    ij"]
    # never a piece wider than the room: a space just past it is no place to break
    assert _plain([[Text("ab"), Text("abcdefghi jk")]], width=12) == ["ab  …cdefghi", "    jk"]
    # a one-letter piece is a piece; a word too long for the room after it is shortened, spaces skipped
    assert _plain([[Text("ab"), Text("a bcdefghijk")]], width=12) == ["ab  a", "    …efghijk"]
    assert _plain([[Text("ab"), Text("abcdefgh  ijklmnopq")]], width=12) == ["ab  abcdefgh", "    …klmnopq"]
    fits = [[Text("ab"), Text("one two")]]
    assert _plain(fits, width=11) == ["ab  one two"]


def test_a_trace_wraps_its_parameters_to_the_console_width() -> None:
    t = lt.arange(1000.0).reshape(10, 10, 10)[1:, ::2]
    narrow = styled(t.explain((3, 2, 1)), 50).splitlines()
    assert max(len(line) for line in str(t.explain((3, 2, 1))).splitlines()) <= 80
    assert any("key" in line for line in narrow)
    wide = Explanation(t, (3, 2, 1)).renderables(None)
    table = list(wide)[1]
    assert "key [1:10, 0:10:2, 0:10]" in table.plain  # no width: nothing wraps


def test_the_value_found_is_shown_as_python_shows_it() -> None:
    assert "holds 2.5\n" in str(lt.tensor([1.0, 2.5]).explain(1)) + "\n"
    assert "holds True\n" in str(lt.tensor([False, True]).explain(1)) + "\n"
    assert "holds 'b'\n" in str(lt.tensor(np.array(["a", "b"], dtype=object)).explain(1)) + "\n"


def test_the_shortcut_names_the_fused_layout_or_its_absence() -> None:
    fused = str(lt.arange(12).reshape(3, 4).T.explain((1, 2))).splitlines()
    assert fused[-1] == "the fused layout (strides (1, 4), offset 0) gives 9 in one step"
    gather = str(lt.arange(12).reshape(3, 4).T.reshape(12).explain(5)).splitlines()
    assert gather[-1] == "no fused layout: the position goes down layer by layer"


class _Plain:
    """A duck-typed layer at the bottom of a stack: no `names`, no `describe_position`, no `wrapped`."""

    layer_name = "Plain"
    layers: tuple[Any, ...] = ()

    def __init__(self) -> None:
        self.shape = (3,)
        self.base = lt.arange(3).base
        self.layout = lt.arange(3).layout
        self.layers = (self,)

    def describe(self) -> str:
        return "plain values"


def test_a_duck_typed_layer_without_names_or_wrapped_explains() -> None:
    layer = _Plain()
    assert layer_names(layer) is None  # type: ignore[arg-type]
    assert as_wrapper(layer) is None  # type: ignore[arg-type]
    text = str(Explanation(layer, (2,)))  # type: ignore[arg-type]
    assert text.splitlines()[2].split() == ["Plain", "(3,)", "(2,)", "plain", "values"]
    assert "storage index 2 holds 2" in text


class _Printer:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def text(self, text: str) -> None:
        self.texts.append(text)


def test_the_prompt_shows_an_explanation_or_an_ellipsis_for_a_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    explanation = lt.arange(6).reshape(2, 3).T.explain()
    printer = _Printer()
    explanation._repr_pretty_(printer, True)
    explanation._repr_pretty_(printer, False)
    assert printer.texts == ["…", str(explanation)]


def test_the_notebook_shows_an_explanation_at_its_own_width() -> None:
    t = lt.arange(10**6.0).reshape(10, 10, 10, 10, 10, 10)[1:, ::2]
    explanation = t.explain((3, 2, 1, 4, 5, 6))
    bundle = explanation._repr_mimebundle_()
    plain_lines = bundle["text/plain"].splitlines()
    assert max(len(line) for line in plain_lines) > 80  # 120 columns, not a terminal's 80
    assert max(len(line) for line in plain_lines) <= 120
    html = bundle["text/html"]
    assert "key [1:10, 0:10:2, 0:10, 0:10, 0:10, 0:10]" in html  # one line at 120 columns
    assert "gives 441456 in one step" in html.split("offset 100000)")[1].split("\n")[0]


class _Scattered:
    """A duck-typed bottom layer with no strided layout: its values sit in storage backwards."""

    layer_name = "Scattered"
    layout = None

    def __init__(self) -> None:
        self.shape = (4,)
        self.base = lt.arange(4).base
        self.layers = (self,)

    def describe(self) -> str:
        return "reversed"

    def locate(self, pos: tuple[int, ...]) -> int:
        return 3 - pos[0]


def test_a_bottom_without_a_layout_is_read_where_the_tensor_locates_the_position() -> None:
    text = str(Explanation(_Scattered(), (1,)))  # type: ignore[arg-type]
    assert "storage index 2 holds 2" in text
    assert text.splitlines()[-1] == "no fused layout: the position goes down layer by layer"


def test_without_a_width_a_named_position_stays_on_one_line() -> None:
    names = tuple(f"axis_with_a_long_name_{k}" for k in range(4))
    t = lt.zeros(2, 2, 2, 2, names=names)
    position_line = next(iter(Explanation(t, (1, 1, 1, 1)).renderables(None))).plain
    assert "\n" not in position_line and len(position_line) > 200
    assert position_line.startswith("position (axis_with_a_long_name_0=1, ")
    assert " of a tensor of shape (axis_with_a_long_name_0 2, " in position_line


@pytest.mark.parametrize("position", [(1, 0, 1), None])
@pytest.mark.parametrize("width", [60, 80, 120])
def test_explain_fits_the_width_with_a_long_path_shortened_from_the_left(
    tmp_path: Any, position: Any, width: int
) -> None:
    """A file's path longer than the parameters column keeps its end (the file and variable names)
    and loses its start to `…`, instead of running past the console or landing at column 0."""
    folder = tmp_path.joinpath(*["a_rather_long_directory_name"] * 6)
    folder.mkdir(parents=True)
    np.save(folder / "temperatures_2024.npy", np.arange(24.0).reshape(2, 3, 4))
    t = lt.from_array(np.load(folder / "temperatures_2024.npy", mmap_mode="r"))
    zarr = pytest.importorskip("zarr")
    store = zarr.create_array(str(folder / "temperatures_2024.zarr"), shape=(2, 3, 4), dtype="f8")
    t = lt.from_array(store).T[1:, ::-1]
    with lt.printoptions(linewidth=width):
        text = str(t.explain(position))
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), text
    assert any(line.rstrip().endswith("temperatures_2024.zarr") for line in lines), text
    assert "…" in text
    assert not any(line.startswith(("ectory", "name", "_")) for line in lines)

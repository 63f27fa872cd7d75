"""Axis names in the printer: slice labels, the header's shape, the grid's rows and columns, the
omitted-slices note, `explain()`, `t.summary()`, `t.stats()`; and an unnamed tensor printed exactly
as before names existed.

Regenerate the golden files with
`LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/printer/test_print_names.py`,
then read every changed file before accepting it.

Reaches into `lazytensor.printer`: how axis names are written (`shape_text`, `position_text`,
`wrap_entries`) is checked on the module's own functions.
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import pytest
import zarr
from golden_files import check_golden
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.printer.axisnames import given_names, kept_names, position_text, shape_text, wrap_entries
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.shown import select_shown

LABEL = re.compile(r"\[([^\]]*)\]")
NAMES = st.one_of(st.none(), st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))


# -- the text of names -----------------------------------------------------------------------------


@given(st.lists(st.integers(0, 10**6), max_size=6))
def test_no_names_write_shapes_and_positions_as_python_does(shape: list[int]) -> None:
    unnamed = given_names((None,) * len(shape))
    assert unnamed is None
    assert shape_text(tuple(shape), unnamed) == str(tuple(shape))
    assert position_text(tuple(shape), unnamed) == str(tuple(shape))


@given(st.lists(st.tuples(st.integers(0, 10**6), NAMES), min_size=1, max_size=6))
def test_a_named_shape_writes_each_axis_in_its_place(axes: list[tuple[int, str | None]]) -> None:
    sizes = tuple(size for size, _ in axes)
    names = tuple(name for _, name in axes)
    given = given_names(names)
    text = shape_text(sizes, given)
    position = position_text(sizes, given)
    if given is None:
        assert text == str(sizes)
        return
    entries = text[1:-1].split(", ")
    assert len(entries) == len(axes)
    for entry, (size, name), at in zip(entries, axes, position[1:-1].split(", "), strict=True):
        assert entry == (str(size) if name is None else f"{name} {size}")
        assert at == (str(size) if name is None else f"{name}={size}")


def test_fixing_an_axis_drops_its_name() -> None:
    assert kept_names(("trial", "time", "freq"), (2, None, None)) == ("time", "freq")
    assert kept_names(("trial", None, None), (2, None, None)) is None
    assert kept_names(None, (2, None)) is None


def test_names_are_user_text_and_never_reach_a_terminal_as_escapes() -> None:
    hostile = "\x1b]0;owned\x07"
    assert "\x1b" not in shape_text((2, 3), (hostile, None))
    assert "\x1b" not in position_text((1, 0), (None, hostile))
    selection = attrs.evolve(
        select_shown(lt.zeros(2, 3, 4), None, PrintOptions()), names=(hostile, None, None)
    )
    assert "\x1b" not in selection.label((1,)) + selection.slice_text()


# -- labels ----------------------------------------------------------------------------------------


def test_a_label_names_its_fixed_axes_and_its_rows_and_columns() -> None:
    selection = select_shown(lt.zeros(2, 3, 4, 5), None, PrintOptions())
    named = attrs.evolve(selection, names=("trial", "channel", "time", "freq"))
    assert named.label((1, 2)) == "[trial=1, channel=2, time↓, freq→]"
    half = attrs.evolve(selection, names=("trial", None, None, "freq"))
    assert half.label((1, 2)) == "[trial=1, 2, :, freq→]"
    assert selection.label((1, 2)) == "[1, 2, :, :]"  # no names: as before


def test_a_dims_slice_labels_its_fixed_axes_where_they_are() -> None:
    selection = select_shown(lt.zeros(2, 3, 4, 5), (1, None, 2, None), PrintOptions())
    named = attrs.evolve(selection, names=("trial", "channel", "time", "freq"))
    assert named.slice_text() == "[trial=1, channel=:, time=2, freq=:]"
    assert named.label(()) == "[trial=1, channel↓, time=2, freq→]"
    assert named.sub_names == ("channel", "freq")
    assert selection.slice_text() == selection.label(()) == "[1, :, 2, :]"


@given(
    st.lists(st.text(alphabet="ab=↓→", min_size=1, max_size=9), min_size=1, max_size=8), st.integers(1, 60)
)
def test_a_wrapped_label_is_the_label_in_lines_that_fit(entries: list[str], width: int) -> None:
    lines = wrap_entries(entries, width)
    assert " ".join(line.strip() for line in lines) == "[" + ", ".join(entries) + "]"
    assert all(line == line.rstrip() for line in lines)
    longest_piece = max(len(entry) for entry in entries) + 2  # a space or "[" before, "," or "]" after
    if longest_piece <= width:
        assert all(len(line) <= width for line in lines)
    assert len(lines) == 1 or all(line.endswith(",") for line in lines[:-1])
    assert lines[0].startswith("[") and all(line.startswith(" ") for line in lines[1:])


# -- printed: golden text --------------------------------------------------------------------------

EEG = ("trial", "channel", "time", "freq")


def _eeg() -> lt.AbstractTensor:
    return lt.arange(120).reshape(2, 3, 4, 5).rename(*EEG)


NAMED: dict[str, tuple[Callable[[], lt.AbstractTensor], dict[str, Any]]] = {
    "named_4d": (_eeg, {}),
    "named_4d_partly": (lambda: lt.arange(120).reshape(2, 3, 4, 5).rename("trial", None, None, "freq"), {}),
    "named_4d_view": (lambda: _eeg().transpose(1, 3)[:, ::2], {}),
    "named_4d_dims": (_eeg, {"dims": (1, None, 2, None)}),
    "named_2d": (lambda: lt.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -4.5]], names=("node", "feature")), {}),
    "named_1d": (lambda: lt.arange(6.0, names=("time",)), {}),
    "named_6d_summarised": (
        lambda: (
            lt.arange(5**6).reshape(5, 5, 5, 5, 5, 5).rename("run", "trial", "channel", None, "time", "freq")
        ),
        {"edgeitems": 1},
    ),
}
NAMED_WIDTHS = (40, 80, 120)


def _render(name: str) -> str:
    make, options = NAMED[name]
    t = make()
    return "".join(
        f"== width {width} ==\n{lt.to_string(t, linewidth=width, **options)}\n" for width in NAMED_WIDTHS
    )


@pytest.mark.parametrize("name", sorted(NAMED))
def test_golden_named_print(name: str) -> None:
    check_golden("print", name, _render(name))


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_named_print_keeps_to_its_width(name: str) -> None:
    make, options = NAMED[name]
    for width in NAMED_WIDTHS:
        for line in lt.to_string(make(), linewidth=width, **options).split("\n"):
            assert line == line.rstrip()
            assert len(line) <= width, (width, line)


def test_golden_named_explain() -> None:
    view = _eeg()[1, :, ::2].T
    check_golden("explain", "named", f"{view.explain()}\n\n{view.explain((1, 0, 2))}\n")


def test_golden_named_summary_and_stats() -> None:
    lines = [str(_eeg().summary()), str(_eeg()[1, :, ::2].T.summary()), str(_eeg().stats())]
    check_golden("print", "named_summary_lines", "\n".join(lines) + "\n")


# -- printed: properties ---------------------------------------------------------------------------


@st.composite
def named_tensors(draw: st.DrawFn) -> lt.AbstractTensor:
    """A tensor of 1 to 5 axes (sizes 1 to 4), each axis named or not, under a random transpose and slice."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=5)))
    names = draw(st.lists(NAMES, min_size=len(shape), max_size=len(shape), unique_by=lambda n: n or object()))
    t = lt.arange(int(np.prod(shape))).reshape(shape).rename(*names)
    order = draw(st.permutations(range(len(shape))))
    step = draw(st.sampled_from([1, -1, 2]))
    view: lt.AbstractTensor = t.permute(*order)[::step]
    return view


@given(named_tensors())
def test_the_print_names_the_axes_the_view_has(t: lt.AbstractTensor) -> None:
    text = lt.to_string(t, linewidth=400, maxlines=10**6)
    names = t.names
    shape_line = text.splitlines()[0].split(" · ")[0]
    if not any(names):
        assert shape_line == f"shape {t.shape}"
        return
    expected = [
        str(size) if name is None else f"{name} {size}" for name, size in zip(names, t.shape, strict=True)
    ]
    assert shape_line == "shape (" + ", ".join(expected) + ")"
    labels = [label for line in text.splitlines() if line.startswith("[") for label in LABEL.findall(line)]
    assert len(labels) == (int(np.prod(t.shape[:-2])) if t.ndim >= 2 else 0)
    for label in labels:
        entries = label.split(", ")
        assert len(entries) == t.ndim
        for axis, (name, item) in enumerate(zip(names, entries, strict=True)):
            arrow = {t.ndim - 2: "↓", t.ndim - 1: "→"}.get(axis)
            if arrow is not None:
                assert item == (":" if name is None else name + arrow)
            else:
                assert item.removeprefix(f"{name}=").isdigit()
                assert item.isdigit() == (name is None)


@given(named_tensors())
def test_a_tensor_whose_names_are_all_none_prints_as_an_unnamed_one(t: lt.AbstractTensor) -> None:
    unnamed = lt.tensor(t.numpy())
    named_none = lt.tensor(t.numpy(), names=(None,) * t.ndim)
    for dims in (None, (0,)):
        assert lt.to_string(named_none, dims=dims) == lt.to_string(unnamed, dims=dims)
    assert str(named_none.summary()) == str(unnamed.summary())
    assert str(named_none.explain()) == str(unnamed.explain())
    position = (0,) * t.ndim
    assert str(named_none.explain(position)) == str(unnamed.explain(position))


def test_names_from_a_zarr_store_are_printed_without_a_word_from_the_user(tmp_path: pathlib.Path) -> None:
    store = zarr.create_array(str(tmp_path / "eeg.zarr"), shape=(2, 3, 4), chunks=(1, 3, 2), dtype="i8",
                              dimension_names=("trial", "channel", None))  # fmt: skip
    store[...] = np.arange(24).reshape(2, 3, 4)
    t = lt.open(tmp_path / "eeg.zarr")
    text = repr(t)
    assert text.startswith("shape (trial 2, channel 3, 4) · int64 · 24 elements")
    assert "[trial=1, channel↓, :]" in text
    assert "(trial=1, channel=2, 3)" in str(t.explain((1, 2, 3)))
    assert str(t.T.summary()).startswith("tensor (4, channel 3, trial 2) int64 n=24")


def test_a_10000_layer_named_stack_explains_each_shown_layer_with_its_names() -> None:
    t = lt.arange(6).reshape(2, 3).rename("row", "col")
    for k in range(10_000):
        t = t.T if k % 2 == 0 else t[::1]
    tree, trace = str(t.explain()), str(t.explain((1, 2)))
    assert tree.startswith("Sliced (row 2, col 3) · key [0:2, 0:3]\n")
    assert "Transposed (col 3, row 2) · axes (1, 0)" in tree and "more layers" in tree
    assert "Renamed (row 2, col 3)" in tree and "Reshaped (2, 3)" in tree  # below the rename: no names
    assert "Transposed  (3, 2)  (col=2, row=1)" in trace and "Reshaped    (2, 3)  (1, 2)" in trace
    assert repr(t).endswith("[row↓, col→]\n0  1  2\n3  4  5")


def test_entries_wrap_only_when_the_next_would_pass_the_width() -> None:
    assert wrap_entries(["ab", "cd"], 8) == ["[ab, cd]"]  # exactly 8 cells: one line
    assert wrap_entries(["ab", "cd"], 7) == ["[ab,", " cd]"]
    assert wrap_entries(["ab", "cd"], 9, indent=1) == ["[ab, cd]"]

"""The printer: golden text at widths 80 and 120, the seeds' separators text, options, colour,
and the promise that printing reads only what it shows.

Regenerate the golden files with `LAZYTENSOR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/printer/test_printing.py`,
then read every changed file before accepting it.

Reaches into `lazytensor.printer` and `lazytensor.tensors.evaluate`: reads are counted at
`evaluate.read`, to check that a print reads only what it shows.
"""

from __future__ import annotations

import io
import pathlib
import re
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from rich.console import Console
from rich.table import Table
from styled_text import ANSI

import lazytensor as lt
from lazytensor.printer import TensorPrint
from lazytensor.printer.options import current_options
from lazytensor.tensors import evaluate

WIDTHS = (80, 120)


def _with_specials() -> lt.AbstractTensor:
    t = lt.trandom(2, 2, 3, 3, seed=3)
    t[0, 0, 0, 1] = np.nan
    t[0, 1, 2, 2] = np.inf
    t[1, 0, 1, 1] = -np.inf
    t[1, 1, 0, 0] = 0.0
    return t


def _normal_with_one_small_value() -> lt.StorageTensor:
    """Standard-normal data with one value near 0.002: numpy goes scientific (a spread over 1000)."""
    values = np.random.default_rng(0).standard_normal((2, 2, 3, 4))
    values[0, 0, 0, 0] = 0.0021
    return lt.tensor(values)


def _one_slice_tiny() -> lt.StorageTensor:
    """One 2-D slice of values around 1e-6 beside slices of ordinary ones: only it is scientific."""
    values = np.arange(24.0).reshape(2, 3, 4) / 7
    values[1] *= 1e-6
    return lt.tensor(values)


CASES: dict[str, tuple[Callable[[], lt.AbstractTensor], dict[str, Any]]] = {
    "0d_int": (lambda: lt.tensor(7), {}),
    "0d_float_view": (lambda: lt.tensor([1.5, -2.25])[1, ...], {}),
    "1d_float": (lambda: lt.tensor([0.5, -1.25, 3.0, 0.0]), {}),
    "1d_wrapped": (lambda: lt.arange(60), {}),
    "1d_summarised": (lambda: lt.arange(5000.0), {}),
    "2d_int": (lambda: lt.arange(12).reshape(3, 4), {}),
    "2d_too_wide": (lambda: lt.trandom(4, 30, seed=1), {}),
    "2d_summarised": (lambda: lt.arange(10_000).reshape(100, 100), {}),
    "2d_gather_view": (lambda: lt.arange(12).reshape(3, 4).T.reshape(2, 6), {}),
    "3d_view": (lambda: lt.arange(24).reshape(2, 3, 4).transpose(0, 2)[::-1], {}),
    "4d_int": (lambda: lt.arange(120).reshape(2, 3, 4, 5), {}),
    "4d_float_nan_inf": (_with_specials, {}),
    "4d_summarised": (lambda: lt.arange(10**6).reshape(100, 100, 10, 10), {"edgeitems": 2}),
    "5d_int": (lambda: lt.arange(72).reshape(2, 2, 2, 3, 3), {}),
    "6d_int": (lambda: lt.arange(64).reshape(2, 2, 2, 2, 2, 2), {}),
    "6d_summarised": (lambda: lt.arange(7**6).reshape(7, 7, 7, 7, 7, 7), {"edgeitems": 1}),
    "bool": (lambda: lt.tensor([[True, False, True], [False, False, True]]), {}),
    "complex": (lambda: lt.tensor([[1 + 2j, -0.5j], [3.25, complex(np.nan, 1)]]), {}),
    "object": (lambda: lt.tensor(np.array([Fraction(1, 3), "abc", None, 10**30], dtype=object)), {}),
    "scientific": (lambda: lt.tensor([1e-6, 1.0, 1e9, -250.0]), {}),
    "big_ints_never_scientific": (lambda: lt.tensor([1, -(10**15), 10**17]), {}),
    "precision_2": (lambda: lt.trandom(2, 3, seed=5), {"precision": 2}),
    "expanded_huge": (lambda: lt.tensor([1.0, -2.0]).expand(10**6, 10**6, 2), {}),
    "dims_5d_seed": (
        lambda: lt.arange(4 * 2 * 2 * 4 * 4).reshape(4, 2, 2, 4, 4),
        {"dims": (3, None, None, None, None)},
    ),
    "dims_fix_middle": (lambda: lt.arange(60).reshape(3, 4, 5), {"dims": (None, 2)}),
    "dims_to_1d": (lambda: lt.arange(60).reshape(3, 4, 5), {"dims": (1, None, -1)}),
    "empty": (lambda: lt.zeros(0, 3), {}),
    "6d_5040_taller_than_the_screen": (lambda: lt.arange(5040).reshape(2, 3, 4, 5, 6, 7), {}),
    "3d_maxlines_30": (lambda: lt.arange(240).reshape(20, 3, 4), {"maxlines": 30}),
    "2d_taller_than_the_screen": (lambda: lt.arange(900).reshape(300, 3), {}),
    "3d_rows_taller_than_maxlines": (lambda: lt.arange(900).reshape(3, 100, 3), {"maxlines": 30}),
    "scientific_exact_or_full": (lambda: lt.tensor([0.0, 1.0, 2999997.0, 2999998.0], dtype="float32"), {}),
    "positional_despite_spread": (lambda: lt.tensor([0.0, 1.0, 2999997.0, 2999998.0]), {}),
    "one_small_value_among_normal_data": (_normal_with_one_small_value, {}),
    "a_slice_of_tiny_values_goes_scientific_alone": (_one_slice_tiny, {}),
    "datetime_ns_and_nat": (
        lambda: lt.tensor(np.array(["2024-01-01", "NaT", "2024-02-29T12:30"], dtype="datetime64[ns]")),
        {},
    ),
    "timedelta_and_nat": (
        lambda: lt.tensor(np.array([[1, -2, "NaT"]], dtype="timedelta64[s]")),
        {},
    ),
}


def _render(name: str) -> str:
    make, options = CASES[name]
    t = make()
    sections = [f"== width {width} ==\n{lt.to_string(t, linewidth=width, **options)}\n" for width in WIDTHS]
    return "".join(sections)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_grid(name: str) -> None:
    check_golden("print", name, _render(name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_line_has_trailing_spaces_or_exceeds_the_width(name: str) -> None:
    make, options = CASES[name]
    for width in WIDTHS:
        for line in lt.to_string(make(), linewidth=width, **options).split("\n"):
            assert line == line.rstrip()
            assert len(line) <= width


def test_repr_str_and_to_string_agree_at_80_columns_when_not_a_terminal() -> None:
    t = lt.arange(24).reshape(2, 3, 4)
    assert repr(t) == str(t) == lt.to_string(t) == lt.to_string(t, linewidth=80)


def test_every_2d_slice_is_labelled_with_its_index() -> None:
    text = lt.to_string(lt.arange(2 * 3 * 2 * 2).reshape(2, 3, 2, 2))
    labels = re.findall(r"\[\d, \d, :, :\]", text)
    assert labels == [f"[{i}, {j}, :, :]" for i in range(2) for j in range(3)]


def test_dims_labels_keep_the_original_indices() -> None:
    t = lt.arange(4 * 2 * 2 * 4 * 4).reshape(4, 2, 2, 4, 4)
    text = lt.to_string(t, dims=(3, None, None, None, None))
    assert text.startswith("slice [3, :, :, :, :] of a tensor of shape (4, 2, 2, 4, 4)\n")
    assert "[3, 0, 1, :, :]" in text
    assert "[3, 1, 1, :, :]" in text


def test_t_print_is_tprint(capsys: pytest.CaptureFixture[str]) -> None:
    t = lt.arange(6).reshape(2, 3)
    t.print(linewidth=80)
    printed = capsys.readouterr().out
    assert printed == lt.to_string(t, linewidth=80) + "\n"


@pytest.mark.parametrize(
    "options",
    [
        {"dims": (None, 1, None), "linewidth": 30},  # its first line is longer than 30: never cropped
        {"dims": (1, None, None), "style": "separators", "precision": 3, "width": 9},
    ],
)
def test_tprint_prints_to_string_of_the_same_slice_style_and_options(
    options: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    t = lt.arange(2 * 3 * 12).reshape(2, 3, 12).transpose(2, 1, 0)[1:]
    lt.tprint(t, **options)
    text = lt.to_string(t, **options)
    assert capsys.readouterr().out == (text if options.get("style") else text + "\n")


@pytest.mark.parametrize(
    "env",
    [
        {"TERM": "dumb", "FORCE_COLOR": "1"},
        {"TERM": "dumb", "FORCE_COLOR": "1", "NO_COLOR": "1"},
        {"FORCE_COLOR": "1", "NO_COLOR": "1"},
    ],
)
def test_tprint_keeps_its_linewidth_on_a_dumb_terminal_and_no_color_means_no_style_at_all(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("TERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    t = lt.arange(-12.0, 12.0).reshape(2, 12) * 1000
    lt.tprint(t, linewidth=30)
    printed = capsys.readouterr().out
    assert ANSI.sub("", printed) == lt.to_string(t, linewidth=30) + "\n"
    assert "NO_COLOR" not in env or "\x1b[" not in printed  # NO_COLOR: not even bold


def test_the_header_names_the_layers_and_whether_they_fuse() -> None:
    strided = lt.to_string(lt.arange(12).reshape(3, 4).T[1:])
    gather = lt.to_string(lt.arange(12).reshape(3, 4).T.reshape(12))
    assert "layers Sliced ∘ Transposed ∘ Reshaped ∘ Storage · strided" in strided
    assert "layers Reshaped ∘ Transposed ∘ Reshaped ∘ Storage · gather" in gather
    assert "layers" not in lt.to_string(lt.tensor([1, 2]))


def test_a_deep_stack_header_names_its_first_and_last_layers_only() -> None:
    t = lt.arange(6).reshape(2, 3)
    for k in range(200):
        t = t.T if k % 2 == 0 else t[::1]
    names = ["Sliced", "Transposed", "Sliced", "Transposed", "… 194 more", "Sliced", "Transposed", "Reshaped"]
    chain = " ∘ ".join([*names, "Storage"])
    assert lt.to_string(t, linewidth=200).splitlines()[1] == f"layers {chain} · strided"
    nine = lt.arange(6).reshape(2, 3).T.T.T.T.T.T[::1]  # 9 layers: a count would not be shorter
    assert "more" not in lt.to_string(nine, linewidth=200)


def test_float_cells_follow_numpy() -> None:
    rng = np.random.default_rng(7)
    arrays = [
        rng.uniform(-1, 1, 9),
        rng.uniform(-1000, 1000, 9).round(2),
        np.array([1.0, 2.5, -10.0, np.nan, -np.inf]),
        np.array([1e-6, 1.0, 3e9]),
        np.array([0.0, 0.5, 100.0]),
    ]
    for array in arrays:
        ours = lt.to_string(lt.from_numpy(array), linewidth=1000).split("\n")[-1].split()
        theirs = np.array2string(array, precision=4, max_line_width=1000).strip("[]").split()
        assert ours == theirs


# -- reading only what is shown -------------------------------------------------------------------


@pytest.fixture
def elements_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The sizes of the tensors the printer asks to evaluate.

    Every read of values goes through `evaluate.read`; only the outermost calls count,
    as `read` may call itself on zero-copy strided views on its way to a gather.
    """
    sizes: list[int] = []
    depth = [0]
    original = evaluate.read

    def counting_read(t: lt.AbstractTensor) -> Any:
        if depth[0] == 0:
            sizes.append(t.numel())
        depth[0] += 1
        try:
            return original(t)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(evaluate, "read", counting_read)
    yield sizes


def test_a_huge_expanded_tensor_reads_only_the_shown_elements(elements_read: list[int]) -> None:
    t = lt.trandom(5, seed=0).expand(10**4, 10**4, 10**4, 5)  # 5 * 10**12 elements
    with lt.printoptions(maxlines=1000):  # every shown slice printed, none cut for the height
        text = repr(t)
    assert sum(elements_read) == 6 * 6 * 6 * 5
    assert "⋮ 9,994 slices along axis 0 omitted" in text
    assert "min" not in text  # no statistics: far over the limit


def test_a_memory_mapped_tensor_reads_only_the_shown_elements(
    tmp_path: pathlib.Path, elements_read: list[int]
) -> None:
    path = tmp_path / "big.npy"
    lt.save(path, lt.arange(200 * 300.0).reshape(200, 300))
    t = lt.load(path)
    elements_read.clear()  # saving read the values
    text = lt.to_string(t[::-1].T)
    assert sum(elements_read) == 6 * 6
    assert "memory-mapped" in text
    assert "min" not in text  # summarised: statistics would read the whole file
    assert "stats skipped: memory-mapped · t.stats()" in text


def test_a_huge_gathering_view_reads_only_the_shown_elements(elements_read: list[int]) -> None:
    t = lt.arange(10**6).reshape(1000, 1000).T.reshape(10**6)  # no strided layout: a gather
    assert repr(t).endswith("\n     0    1000    2000  …  997999  998999  999999")
    assert sum(elements_read) == 6


def test_statistics_only_below_the_size_limit(elements_read: list[int]) -> None:
    t = lt.arange(5000.0)
    assert "mean 2500" in lt.to_string(t)
    elements_read.clear()
    text = lt.to_string(t, stats_limit=4999)
    assert "mean" not in text
    assert sum(elements_read) == 6


def test_statistics_by_kind() -> None:
    assert "true 2 · false 1" in lt.to_string(lt.tensor([True, False, True]))
    floats = lt.to_string(lt.tensor([1.0, np.nan, np.inf, 0.0]))
    assert "min 0 · max 1 · mean 0.5 · std 0.5 · zeros 1 · nan 1 · inf 1" in floats
    assert "zeros" not in lt.to_string(lt.tensor(np.array(["a", "b"], dtype=object)))


# -- the separators style: the seeds' printed examples, byte for byte ------------------------------


def seed_text(printed: str) -> str:
    """A seed's printed example as the bytes its printer writes: each number `"%7.2f "`-wide,
    separators on their own lines, one final newline. (The web page lost the leading spaces.)"""
    lines = []
    for line in printed.strip().split("\n"):
        stripped = line.strip()
        if stripped in ("---", "===", "***", "###"):
            lines.append(stripped)
        else:
            lines.append("".join(token.rjust(7) + " " for token in stripped.split()))
    return "\n".join(lines) + "\n"


SEED_FIVE_D = """
192.00 193.00 194.00 195.00
196.00 197.00 198.00 199.00
200.00 201.00 202.00 203.00
204.00 205.00 206.00 207.00
---
208.00 209.00 210.00 211.00
212.00 213.00 214.00 215.00
216.00 217.00 218.00 219.00
220.00 221.00 222.00 223.00
===
224.00 225.00 226.00 227.00
228.00 229.00 230.00 231.00
232.00 233.00 234.00 235.00
236.00 237.00 238.00 239.00
---
240.00 241.00 242.00 243.00
244.00 245.00 246.00 247.00
248.00 249.00 250.00 251.00
252.00 253.00 254.00 255.00
"""


def _seed_examples() -> list[tuple[str, lt.AbstractTensor, Any, str]]:
    tw = lt.tensor([1, 2, 3, 4, 5, 6]).reshape(2, 3)
    t6 = lt.arange(6)
    t1 = lt.arange(20).reshape(4, 5)
    a = t1.slice([[1, 3], slice(0, 5, 2)])
    at = a.mT
    b = t1.slice([[1, 1], slice(4)])
    bt = b.swapaxes(0, 1)
    tr = lt.from_numpy(np.asarray(at.numpy()) @ np.asarray(bt.reshape(2, 4).numpy()))
    five = lt.arange(4 * 2 * 2 * 4 * 4).reshape(4, 2, 2, 4, 4)
    return [
        ("five_d_dims", five, (3, None, None, None, None), SEED_FIVE_D),
        ("tw", tw, None, "1.00 2.00 3.00\n4.00 5.00 6.00"),
        ("tt", tw.mT, None, "1.00 4.00\n2.00 5.00\n3.00 6.00"),
        ("ttt", tw.mT.mT, None, "1.00 2.00 3.00\n4.00 5.00 6.00"),
        ("range6", t6, None, "0.00 1.00 2.00 3.00 4.00 5.00"),
        ("view_2_3", t6.reshape(2, 3), None, "0.00 1.00 2.00\n3.00 4.00 5.00"),
        ("view_3_2", t6.reshape(3, 2), None, "0.00 1.00\n2.00 3.00\n4.00 5.00"),
        ("view_6_1", t6.reshape(6, 1), None, "0.00\n1.00\n2.00\n3.00\n4.00\n5.00"),
        (
            "t1",
            t1,
            None,
            "0.00 1.00 2.00 3.00 4.00\n5.00 6.00 7.00 8.00 9.00\n"
            "10.00 11.00 12.00 13.00 14.00\n15.00 16.00 17.00 18.00 19.00",
        ),
        ("a", a, None, "5.00 7.00 9.00\n15.00 17.00 19.00"),
        ("at", at, None, "5.00 15.00\n7.00 17.00\n9.00 19.00"),
        ("b", b, None, "5.00 6.00 7.00 8.00\n5.00 6.00 7.00 8.00"),
        ("bt", bt, None, "5.00 5.00\n6.00 6.00\n7.00 7.00\n8.00 8.00"),
        (
            "tr",
            tr,
            None,
            "130.00 130.00 150.00 150.00\n154.00 154.00 178.00 178.00\n178.00 178.00 206.00 206.00",
        ),
    ]


@pytest.mark.parametrize("example", _seed_examples(), ids=lambda example: example[0])
def test_separators_style_reproduces_the_seeds(example: tuple[str, lt.AbstractTensor, Any, str]) -> None:
    _, t, dims, printed = example
    assert lt.to_string(t, dims=dims, style="separators") == seed_text(printed)


def test_separators_by_rank_and_exact_bytes() -> None:
    t = lt.arange(2**5).reshape(2, 2, 2, 2, 2)
    text = lt.to_string(t, style="separators")
    assert text.startswith("   0.00    1.00 \n   2.00    3.00 \n---\n   4.00 ")
    assert text.count("\n---\n") == 4 and text.count("\n===\n") == 2 and text.count("\n***\n") == 1
    assert text.endswith("  31.00 \n")
    six = lt.to_string(lt.zeros(2, 1, 1, 1, 1, 1), style="separators")
    assert six == "   0.00 \n###\n   0.00 \n"
    for ndim in (7, 8):  # past the fifth rank, blocks keep the last separator
        assert lt.to_string(lt.zeros(2, *[1] * (ndim - 1)), style="separators") == six


def test_separators_precision_and_width_options(capsys: pytest.CaptureFixture[str]) -> None:
    t = lt.tensor([[1.5, -2.0]])
    assert lt.to_string(t, style="separators", precision=3, width=9) == "    1.500    -2.000 \n"
    lt.tprint(t, style="separators")
    assert capsys.readouterr().out == "   1.50   -2.00 \n"
    with lt.printoptions(style="separators"):
        assert repr(t) == "   1.50   -2.00 \n"
    message = "width is the separators style's field width; use linewidth for the grid style"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        lt.to_string(t, width=9)


def test_separators_of_objects_and_scalars() -> None:
    assert lt.to_string(lt.tensor(2.5), style="separators") == "   2.50 \n"
    text = lt.to_string(lt.tensor(np.array(["ab", 1.5], dtype=object)), style="separators")
    assert text == "     ab    1.50 \n"


# -- options --------------------------------------------------------------------------------------


def test_default_options() -> None:
    options = lt.get_printoptions()
    assert (options["precision"], options["threshold"], options["edgeitems"]) == (4, 1000, 3)
    assert options["linewidth"] is None and options["style"] == "grid"


def test_printoptions_nest_and_unwind_on_errors() -> None:
    t = lt.tensor([1 / 3])
    with lt.printoptions(precision=2):
        assert repr(t).endswith("0.33")
        with pytest.raises(RuntimeError), lt.printoptions(precision=1):
            assert repr(t).endswith("0.3")
            raise RuntimeError
        assert lt.get_printoptions()["precision"] == 2
    assert lt.get_printoptions()["precision"] == 4


def test_set_printoptions_and_per_call_overrides() -> None:
    t = lt.arange(20.0)
    try:
        lt.set_printoptions(threshold=10, edgeitems=2)
        assert repr(t).endswith(" 0.   1.  …  18.  19.")
        assert lt.to_string(t, threshold=100).endswith("19.")
    finally:
        lt.set_printoptions(threshold=1000, edgeitems=3)
    assert lt.get_printoptions()["threshold"] == 1000


def test_bad_options_are_refused() -> None:
    with pytest.raises(TypeError, match="unknown print option colour"):
        lt.set_printoptions(colour=True)
    with pytest.raises(ValueError, match="precision"):
        lt.set_printoptions(precision=-1)
    with pytest.raises(ValueError, match="style"):
        lt.to_string(lt.zeros(1), style="fancy")
    with pytest.raises(ValueError, match="linewidth"):
        lt.to_string(lt.zeros(1), linewidth=0)


def test_bad_dims_are_refused() -> None:
    t = lt.zeros(2, 3)
    with pytest.raises(IndexError, match="3 entries"):
        lt.to_string(t, dims=(0, 0, 0))
    with pytest.raises(IndexError, match="out of bounds"):
        lt.to_string(t, dims=(5,))
    with pytest.raises(TypeError, match="None or an int"):
        lt.to_string(t, dims=(slice(1),))  # type: ignore[arg-type]


# -- rich: colour, composition, Jupyter -----------------------------------------------------------


def _terminal(width: int = 80) -> Console:
    return Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=width)


def test_colour_on_a_forced_terminal_repeats_the_text() -> None:
    t = lt.tensor([[-1.5, 0.0], [np.nan, np.inf]])
    console = _terminal()
    console.print(t)
    coloured = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[31m-1.5" in coloured  # negative: red
    assert "\x1b[2m 0." in coloured  # zero: dim
    assert "\x1b[1;35m nan" in coloured  # NaN: bold magenta
    assert "\x1b[1;33m inf" in coloured  # inf: bold yellow
    plain = "\n".join(line.rstrip() for line in ANSI.sub("", coloured).rstrip("\n").split("\n"))
    assert plain == lt.to_string(t)
    console = _terminal()
    console.print(lt.tensor([-2.5]).expand(2, 2, 1))
    labelled = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[1;36m[1, :, :]\x1b[0m" in labelled  # labels: bold cyan
    assert "\x1b[31m-2.5" in labelled


def test_heatmap_colours_backgrounds_and_leaves_plain_text_alone() -> None:
    t = lt.arange(4.0).reshape(2, 2)
    console = _terminal()
    console.print(TensorPrint(t, None, current_options(heatmap=True)))
    assert "48;2;" in console.file.getvalue()  # type: ignore[attr-defined]
    assert lt.to_string(t, heatmap=True) == lt.to_string(t)


def test_tensors_compose_inside_rich_tables() -> None:
    table = Table("name", "tensor")
    table.add_row("t", lt.arange(6).reshape(2, 3))
    console = Console(file=io.StringIO(), width=60, color_system=None)
    console.print(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "shape (2, 3)" in text and "3  4  5" in text


def test_jupyter_bundle_has_plain_text_and_html() -> None:
    bundle = lt.arange(4)._repr_mimebundle_()
    assert bundle["text/plain"] == repr(lt.arange(4))  # narrow enough to be the same at 80 and 120
    assert bundle["text/html"].startswith('<div class="lt-out">') and "shape" in bundle["text/html"]


def test_separators_text_bigger_than_memory_refuses_at_once() -> None:
    with pytest.raises(MemoryError, match=r"separators text of shape \(100000000, 10\) needs"):
        lt.to_string(lt.zeros(10).expand(10**8, 10), style="separators")

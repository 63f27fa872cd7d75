"""The header of a print: the statistics it computes (and when it does not), the layer chain, and how
its parts are packed into lines. Statistics are compared with numpy's own.

Reaches into `lazytensor.printer`: the header's statistics, plan and packing are the module's own
functions, checked against numpy.
"""

from __future__ import annotations

import pathlib
from types import SimpleNamespace
from typing import Any

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given
from rich.text import Text

import lazytensor as lt
from lazytensor.printer.header import (
    CHAIN_EDGE,
    StatisticsPlan,
    chain_names,
    format_number,
    format_statistics,
    pack_parts,
    statistics,
    statistics_plan,
    storage_kind,
)
from lazytensor.printer.notebook import notebook_mimebundle
from lazytensor.printer.options import AUTO_STATS_LIMIT, DEFAULTS, PrintOptions, current_options
from lazytensor.printer.shown import select_shown
from lazytensor.printer.styles import CHAIN, DIM


def _header(t: lt.AbstractTensor, width: int = 80, **options: Any) -> list[str]:
    text = lt.to_string(t, linewidth=width, **options)
    return text.split("\n\n")[0].splitlines()


@given(
    hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=6), elements=st.floats(-1e6, 1e6)
    )
)
def test_statistics_of_floats_are_numpys(values: np.ndarray) -> None:
    stats = dict(statistics(values, DEFAULTS))
    assert stats["min"] == format_number(values.min(), 4) and stats["max"] == format_number(values.max(), 4)
    assert stats["mean"] == format_number(values.mean(), 4) and stats["std"] == format_number(values.std(), 4)
    assert stats["zeros"] == str(int(np.count_nonzero(values == 0)))
    assert stats["nan"] == "0" and stats["inf"] == "0"


def test_statistics_leave_nan_and_inf_out_of_the_numbers_and_count_them() -> None:
    values = np.array([np.nan, 1.0, np.inf, -np.inf, 0.0, 3.0])
    assert statistics(values, DEFAULTS) == [
        ("min", "0"),
        ("max", "3"),
        ("mean", "1.333"),
        ("std", "1.247"),
        ("zeros", "1"),
        ("nan", "1"),
        ("inf", "2"),
    ]
    assert statistics(np.array([np.nan, np.inf]), DEFAULTS) == [("zeros", "0"), ("nan", "1"), ("inf", "1")]


def test_statistics_by_kind() -> None:
    assert statistics(np.array([True, False, True]), DEFAULTS) == [("true", "2"), ("false", "1")]
    assert statistics(np.array([1 + 1j, 0j, complex(np.nan, 0)]), DEFAULTS) == [
        ("zeros", "1"),
        ("nan", "1"),
        ("inf", "0"),
    ]
    assert statistics(np.array([3, -1, 0, 0], dtype=np.int8), DEFAULTS) == [
        ("min", "-1"),
        ("max", "3"),
        ("mean", "0.5"),
        ("std", "1.5"),
        ("zeros", "2"),
    ]
    assert statistics(np.array([2, 4], dtype=np.uint8), DEFAULTS)[:3] == [
        ("min", "2"),
        ("max", "4"),
        ("mean", "3"),
    ]
    assert statistics(np.array(["a"], dtype=object), DEFAULTS) == []
    assert statistics(np.array(["ab"]), DEFAULTS) == []
    assert statistics(np.zeros(0), DEFAULTS) == []


def test_statistics_keep_at_least_four_digits_whatever_the_precision() -> None:
    values = np.array([0.0, 1.0, 1.0])
    assert dict(statistics(values, PrintOptions(precision=0)))["mean"] == "0.6667"
    assert dict(statistics(values, PrintOptions(precision=6)))["mean"] == "0.666667"
    assert format_statistics([("mean", 2 / 3)], PrintOptions(precision=0)) == [("mean", "0.6667")]
    assert format_statistics([("mean", 2 / 3), ("std", 1 / 3)], PrintOptions(precision=6)) == [
        ("mean", "0.666667"),
        ("std", "0.333333"),
    ]


def test_statistics_near_the_float_limit_warn_of_nothing() -> None:
    values = np.array([1.7e308, -1.7e308])
    with np.errstate(all="raise"):
        stats = dict(statistics(values, DEFAULTS))
    assert stats["std"] == "inf" and stats["min"] == "-1.7e+308"


def test_format_number_rounds_to_the_precision_and_keeps_exact_scientific() -> None:
    assert format_number(np.int64(-7), 4) == "-7" and format_number(7, 0) == "7"
    assert format_number(1 / 3, 0) == "0.3" and format_number(1 / 3, 2) == "0.33"
    assert format_number(123456.0, 4) == "1.235e+05"
    assert format_number(120000.0, 4) == "1.2e+05"
    assert format_number(np.float32(0.1), 4) == "0.1"


def test_pack_parts_fills_each_line_up_to_the_width_exactly() -> None:
    parts = [Text("aaa"), Text("bbb"), Text("cc")]
    dot = Text(" · ")
    assert [line.plain for line in pack_parts(parts, dot, 9)] == ["aaa · bbb", "cc"]
    assert [line.plain for line in pack_parts(parts, dot, 8)] == ["aaa", "bbb · cc"]
    assert [line.plain for line in pack_parts(parts, dot, 14)] == ["aaa · bbb · cc"]
    assert [line.plain for line in pack_parts(parts, dot, 2)] == ["aaa", "bbb", "cc"]
    assert parts[0].plain == "aaa"  # the parts themselves are not changed


def test_chain_names_count_what_a_deep_chain_leaves_out() -> None:
    layers = [SimpleNamespace(layer_name=f"L{i}") for i in range(2 * CHAIN_EDGE + 2)]
    names = chain_names(layers)
    assert [name.plain for name in names] == ["L0", "L1", "L2", "L3", "… 2 more", "L6", "L7", "L8", "L9"]
    assert [name.style for name in names] == [CHAIN] * 4 + [DIM] + [CHAIN] * 4
    whole = chain_names(layers[:-1])
    assert [name.plain for name in whole] == [f"L{i}" for i in range(2 * CHAIN_EDGE + 1)]
    assert {name.style for name in whole} == {CHAIN}
    many = chain_names([SimpleNamespace(layer_name="L")] * 1234, edge=1)
    assert [name.plain for name in many] == ["L", "… 1,232 more", "L"]


def test_a_header_names_one_element_in_the_singular() -> None:
    assert _header(lt.arange(1))[0] == "shape (1,) · int64 · 1 element"
    assert _header(lt.arange(2))[0] == "shape (2,) · int64 · 2 elements"
    assert _header(lt.arange(1234))[0] == "shape (1234,) · int64 · 1,234 elements"


def test_the_layer_chain_says_strided_or_gather_and_wraps_at_its_dots() -> None:
    t = lt.arange(12).reshape(3, 4).T[1:]
    assert _header(t)[1] == "layers Sliced ∘ Transposed ∘ Reshaped ∘ Storage · strided"
    narrow = _header(t, width=30)
    assert narrow[2:4] == ["layers Sliced ∘ Transposed", "Reshaped ∘ Storage · strided"]
    assert _header(lt.arange(12).reshape(3, 4).T.reshape(12))[1].endswith("Storage · gather")
    assert not any(line.startswith("layers") for line in _header(lt.arange(3)))


def _plan(t: lt.AbstractTensor, **options: int | None) -> StatisticsPlan:
    chosen = PrintOptions(**options)  # type: ignore[arg-type]
    return statistics_plan(select_shown(t, None, chosen), chosen)


def test_statistics_are_computed_up_to_the_limits_inclusive() -> None:
    assert _plan(lt.zeros(5), stats_limit=5) == StatisticsPlan(True)
    assert _plan(lt.zeros(6), stats_limit=5) == StatisticsPlan(False, "6 elements > stats_limit 5")
    assert _plan(lt.zeros(1500), stats_limit=1200) == StatisticsPlan(
        False, "1,500 elements > stats_limit 1,200"
    )
    assert _plan(lt.zeros(AUTO_STATS_LIMIT)) == StatisticsPlan(True)
    assert _plan(lt.zeros(AUTO_STATS_LIMIT + 1)) == StatisticsPlan(False, "over 100,000 elements")
    assert _plan(lt.zeros(0)) == StatisticsPlan(False)
    assert _plan(lt.tensor(np.array(["a", "b"], dtype=object))) == StatisticsPlan(False)
    assert _plan(lt.tensor(np.array(["a", "b"]))) == StatisticsPlan(False)


@pytest.fixture
def mapped(tmp_path: pathlib.Path) -> lt.AbstractTensor:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(3000.0).reshape(1000, 3))
    return lt.load(path)


def test_a_memory_map_has_statistics_only_when_the_print_reads_it_all(mapped: lt.AbstractTensor) -> None:
    assert storage_kind(mapped) == "memory-mapped" and storage_kind(mapped[:4]) == "memory-mapped"
    assert _plan(mapped) == StatisticsPlan(False, "memory-mapped")
    assert _plan(mapped[:4]) == StatisticsPlan(True)  # not summarised: every value is read anyway
    assert _plan(mapped, stats_limit=10**6) == StatisticsPlan(True)
    assert _header(mapped)[0] == "shape (1000, 3) · float64 · 3,000 elements · memory-mapped"


def test_storage_kind_says_chunked_for_a_buffer_that_is_not_an_ndarray() -> None:
    t = lt.arange(4)
    chunked = SimpleNamespace(base=SimpleNamespace(has_buffer=True), storage=[0, 1, 2, 3])
    assert storage_kind(chunked) == "chunked"  # type: ignore[arg-type]
    assert storage_kind(t) is None
    note = SimpleNamespace(base=SimpleNamespace(has_buffer=False, storage_note="zarr"))
    assert storage_kind(note) == "zarr"  # type: ignore[arg-type]


def test_the_statistics_of_small_floats_are_summed_in_float64() -> None:
    mean = dict(statistics(np.array([3e38, 3e38], np.float32), DEFAULTS))["mean"]
    assert float(mean) == pytest.approx(3e38)  # inf in float32
    assert (
        dict(statistics(np.array([60000, -60000], np.float16), DEFAULTS))["std"] == "6e+04"
    )  # inf in float16


def test_the_slice_in_the_header_is_styled_as_a_label() -> None:
    t = lt.arange(24).reshape(2, 3, 4)
    html = notebook_mimebundle(t, current_options(), (1, None, None))["text/html"]
    assert 'slice <span class="lt-label">[1, :, :]</span>' in html


def test_the_storage_kind_in_the_header_is_styled_as_a_warning(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(6.0))
    html = notebook_mimebundle(lt.load(path), current_options())["text/html"]
    assert '<span class="lt-warn">memory-mapped' in html

"""One line per tensor: `t.summary()`, `style="line"`, 0-d tensors, containers; and `t.stats()` with
the header saying when and why statistics were skipped, for every kind of storage.

Reaches into `lazytensor.printer.header` and `lazytensor.printer.summary`: a container's summary and
the streamed statistics are checked against the header's own statistics.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import pytest
from golden_files import check_golden
from rich.console import Console

import lazytensor as lt
from lazytensor.printer.header import statistics
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.summary import container_summary, streamed_statistics


@pytest.fixture
def mapped(tmp_path: pathlib.Path) -> lt.AbstractTensor:
    """A memory-mapped 200 x 300 float tensor with a NaN at [1, 1]."""
    values = np.arange(200 * 300.0).reshape(200, 300)
    values[1, 1] = np.nan
    path = tmp_path / "big.npy"
    np.save(path, values)
    return lt.load(path)


def test_summary_lines_golden() -> None:
    t = lt.trandom(3, 4, seed=0)
    t[0, 0] = np.nan
    lines = [
        str(t.summary()),
        str(t.T[::2].summary()),
        str(lt.tensor(7).summary()),
        str(lt.tensor([True, False, True]).summary()),
        str(lt.zeros(0, 3).summary()),
        str(lt.tensor(np.array(["a", None], dtype=object)).summary()),
        str(lt.tensor([1.0, np.inf, -np.inf]).summary()),
        str(lt.arange(10**6).reshape(1000, 1000).summary()),
        str(lt.arange(10**6).summary(stats_limit=10**6)),
        lt.to_string(lt.arange(6.0).reshape(2, 3)[:, [2, 0]], style="line"),
    ]
    check_golden("print", "summary_lines", "\n".join(lines) + "\n")


def test_a_0d_tensor_at_the_prompt_is_one_line() -> None:
    assert repr(lt.tensor(2.5)) == "tensor(2.5, dtype=float64)"
    assert lt.tensor(2.5)._repr_mimebundle_()["text/plain"] == "tensor(2.5, dtype=float64)"
    assert repr(lt.arange(3).sum()).count("\n") == 0


def test_the_line_style_and_summary_agree() -> None:
    t = lt.arange(12).reshape(3, 4).T
    assert lt.to_string(t, style="line") == str(t.summary()) == repr(t.summary())
    assert "\n" not in lt.to_string(lt.trandom(4, 5, 6, seed=1), style="line")


def test_a_summary_names_a_deep_chain_in_short() -> None:
    t = lt.arange(4)
    for _ in range(12):
        t = t[::1]
    assert str(t.summary()).endswith("Sliced∘Sliced∘… 9 more∘Sliced∘Storage")


def test_containers_of_tensors_are_one_line_per_item() -> None:
    mu, sd = lt.tensor([1.0, 2.0]), lt.tensor([0.5, 0.25])
    text = container_summary((mu, sd))
    assert text is not None
    assert text.plain.splitlines() == [
        "(tensor (2,) float64 n=2 x∈[1, 2] μ=1.5 σ=0.5,",
        " tensor (2,) float64 n=2 x∈[0.25, 0.5] μ=0.375 σ=0.125)",
    ]
    as_list = container_summary([mu, "label", sd])
    assert as_list is not None and as_list.plain.splitlines()[1] == " 'label',"
    as_dict = container_summary({"mu": mu, "sd": sd})
    assert (
        as_dict is not None
        and as_dict.plain.startswith("{'mu': tensor (2,)")
        and as_dict.plain.endswith("σ=0.125}")
    )
    assert container_summary((mu,)) is None  # one tensor: the ordinary print
    assert container_summary((1, 2)) is None


def test_stats_skipped_is_said_for_a_memory_map(mapped: lt.AbstractTensor) -> None:
    text = lt.to_string(mapped)
    assert "stats skipped: memory-mapped · t.stats()" in text
    assert "mean" not in text


def test_a_small_view_of_a_memory_map_has_statistics_and_shows_its_nan(mapped: lt.AbstractTensor) -> None:
    text = lt.to_string(mapped[:3, :3])  # nine elements: the print reads them all anyway
    assert "nan 1" in text and "min 0" in text and "skipped" not in text


def test_stats_limit_works_for_a_memory_map(mapped: lt.AbstractTensor) -> None:
    text = lt.to_string(mapped, stats_limit=10**9)  # read it all: asked for
    assert "min 0 · max 6.000e+04 · mean 3.000e+04" in text
    assert "nan 1" in text and "skipped" not in text
    small = lt.to_string(mapped[:3, :3], stats_limit=5)
    assert "stats skipped: 9 elements > stats_limit 5 · t.stats()" in small


def test_stats_limit_works_for_memory() -> None:
    t = lt.arange(5000.0)
    assert "stats skipped: 5,000 elements > stats_limit 4,999 · t.stats()" in lt.to_string(
        t, stats_limit=4999
    )
    assert "mean 1.000e+05" in lt.to_string(lt.arange(2 * 10**5.0), stats_limit=10**6)
    assert "stats skipped: over 100,000 elements" in lt.to_string(lt.arange(2 * 10**5.0))


def test_t_stats_computes_them_on_request(mapped: lt.AbstractTensor) -> None:
    report = mapped.stats()
    assert str(report).splitlines()[0] == "stats of shape (200, 300) · float64 · 60,000 elements"
    assert report["nan"] == "1" and report["min"] == "0"
    console = Console(width=100, color_system=None, record=True)
    console.print(report)
    assert "60,000 elements" in console.export_text()
    assert str(lt.tensor(np.array(["a"], dtype=object)).stats()).endswith("no statistics for this dtype")


def test_the_summary_line_follows_the_statistics_rule(mapped: lt.AbstractTensor) -> None:
    assert str(mapped.summary()) == "tensor (200, 300) float64 n=60,000 (stats skipped: memory-mapped)"
    assert "nan 1" in str(mapped.summary(stats_limit=10**9))


@pytest.mark.parametrize(
    "values",
    [
        np.array([1.5, -2.0, np.nan, 0.0, np.inf, -np.inf, 7.25, 3.0, -1.0, 0.0, 2.0]),
        np.arange(-20, 17, dtype=np.int32),
        np.array([True, False, True, True, False, True, False]),
        np.array([1 + 2j, 0j, complex(np.nan, 1), 3.5, -1j, 2.0, 0.5j]),
        np.full(9, np.nan),
        np.random.default_rng(0).normal(1e6, 3.0, size=1000),  # a large mean: the merge must stay exact
    ],
    ids=["floats", "ints", "bools", "complex", "all_nan", "large_mean"],
)
@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_stats_read_in_chunks_are_the_same_statistics(values: np.ndarray[Any, Any], chunk: int) -> None:
    t = lt.from_numpy(values)
    whole = statistics(values, PrintOptions())
    assert streamed_statistics(t, PrintOptions(), chunk=chunk) == whole
    if values.size % 2 == 0 or values.size % 3 == 0:
        shaped = t.reshape(2, -1).T if values.size % 2 == 0 else t.reshape(3, -1).T  # a gathering view
        assert streamed_statistics(shaped, PrintOptions(), chunk=chunk) == statistics(
            np.asarray(shaped.numpy()), PrintOptions()
        )


def test_statistics_keep_four_significant_digits_at_any_precision() -> None:
    header = lt.to_string(lt.tensor([89.5, 90.0, 89.0]), precision=0).splitlines()[1]
    assert "mean 89.5" in header and "std 0.4082" in header

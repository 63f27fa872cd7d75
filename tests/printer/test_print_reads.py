"""A print reads its base once: rich measures a renderable before it draws it (a `Table` sizes its
columns first), and a zarr-backed tensor must not be fetched again for the drawing.

Reaches into `lazytensor.printer` and `lazytensor.bases.arraylike`: the base's reads are counted,
and the printer's table of pending prints is read to see it stays bounded.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import zarr
from bases_support import Plain
from rich.console import Console
from rich.table import Table

import lazytensor as lt
from lazytensor.bases.arraylike import ArrayBase
from lazytensor.printer import TensorPrint, tensorprint


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every read an array-like base answers, by name, in order."""
    calls: list[str] = []
    for name in ("read_strided", "read_flat", "read_one"):
        original = getattr(ArrayBase, name)

        def counting(
            self: ArrayBase, *args: Any, _original: Any = original, _name: str = name, **kw: Any
        ) -> Any:
            calls.append(_name)
            return _original(self, *args, **kw)

        monkeypatch.setattr(ArrayBase, name, counting)
    yield calls


def _zarr_tensor(shape: tuple[int, ...]) -> lt.AbstractTensor:
    array = zarr.create_array(store={}, shape=shape, chunks=(2,) * len(shape), dtype="f8")
    array[...] = np.arange(float(np.prod(shape))).reshape(shape)
    return lt.from_array(array)


def _console() -> Console:
    return Console(file=io.StringIO(), width=100, color_system=None)


def _in_table(*cells: Any) -> str:
    console = _console()
    table = Table()
    for k in range(len(cells)):
        table.add_column(f"column {k}")
    table.add_row(*cells)
    console.print(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


@pytest.mark.parametrize("make", [lambda t: t, lambda t: t[1:, ::2], lambda t: t.T])
def test_a_tensor_in_a_table_reads_its_base_once(reads: list[str], make: Any) -> None:
    t = make(_zarr_tensor((6, 5)))
    text = _in_table(t)
    assert len(reads) == 1
    assert str(float(t.numpy()[-1, -1])).removesuffix(".0") in text


def test_a_summarised_tensor_in_a_table_reads_its_edge_items_once(reads: list[str]) -> None:
    t = _zarr_tensor((40, 40))
    with lt.printoptions(threshold=100, edgeitems=2):
        text = _in_table(t)
    assert reads == ["read_flat"]  # the edge items only, in one request
    assert "1599." in text and "…" in text


def test_a_tensor_print_measured_and_drawn_reads_once(reads: list[str]) -> None:
    text = _in_table(TensorPrint(_zarr_tensor((3, 4))), "beside it")
    assert len(reads) == 1 and "11" in text


def test_two_tensors_in_one_table_read_once_each(reads: list[str]) -> None:
    a, b = _zarr_tensor((3, 2)), _zarr_tensor((2, 3))
    _in_table(a, b)
    assert len(reads) == 2


def test_each_print_reads_afresh_and_shows_writes_between_prints(reads: list[str]) -> None:
    t = _zarr_tensor((2, 3))
    assert "99" not in _in_table(t)
    t[0, 0] = 99.0
    assert "99" in _in_table(t)
    console = _console()
    console.print(t)
    t[1, 2] = 77.0
    console.print(t)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "77" in text
    assert reads.count("read_strided") == 4  # one per print


def test_a_tensor_measured_but_not_drawn_then_written_prints_its_new_values(reads: list[str]) -> None:
    """rich may measure without drawing (`console.measure`): the next print still reads what is there now."""
    t = _zarr_tensor((2, 3))
    console = _console()
    console.measure(t)
    t[0, 0] = 55.0
    console.print(t)
    assert "55" in console.file.getvalue()  # type: ignore[attr-defined]


def test_a_print_summarised_along_the_rows_reads_the_head_and_the_tail_once_each() -> None:
    store = Plain(np.zeros((2_000_000, 3)))
    lt.to_string(lt.from_array(store))
    assert store.requests == 2  # the whole width of the first and last rows, one request each


def test_prints_measured_and_never_drawn_are_kept_sixteen_at_most() -> None:
    tensors = [_zarr_tensor((2, 3)) for _ in range(tensorprint.PENDING_LIMIT + 4)]
    console = _console()
    for t in tensors:  # measured, as a Table measures its cells, and never drawn
        console.measure(t)
    assert len(tensorprint._pending) <= tensorprint.PENDING_LIMIT
    assert id(tensors[-1]) in tensorprint._pending and id(tensors[0]) not in tensorprint._pending

"""A 10 MB axis name, from every place a name comes from (`names=`, `rename`, a zarr v3 store's
`dimension_names`, a zarr v2 store's `_ARRAY_DIMENSIONS`, an xarray dim, an HDF5 dimension label),
printed through every door that prints a name: `repr`, `str`, rich, `to_string` with a slice, the
notebook's HTML, `explain()` (tree and trace), `summary()`, `stats()`, the repl's banner, and the
error messages that quote a name. Each output is bounded (a few hundred characters, not 10 MB) and
shows the name cut: its start, an ellipsis and its length. (Sizes are checked, never times.)
"""

from __future__ import annotations

import io
import pathlib
import subprocess
import sys
from collections.abc import Callable

import h5py
import numpy as np
import pytest
import xarray as xr
import zarr
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

import lazytensor as lt

LONG = "channel" + "x" * (10 * 2**20 - len("channel"))
"""A name of 10 MiB (10,485,760 characters)."""
CUT = "channelxxxxxxxxx…(10,485,760 characters)"
"""How it prints: 40 characters."""
BOUND = 20_000
"""More than any of the prints below needs with the name cut (the notebook's HTML carries its
style sheet); far less than the name."""


def _from_names() -> lt.AbstractTensor:
    return lt.arange(24.0).reshape(2, 3, 4, names=(LONG, "b", None))


def _from_rename() -> lt.AbstractTensor:
    return lt.arange(24.0).reshape(2, 3, 4).rename(LONG, "b", None)


def _from_zarr_v3(folder: pathlib.Path) -> lt.AbstractTensor:
    path = folder / "v3.zarr"
    array = zarr.create_array(
        store=str(path), shape=(2, 3, 4), dtype="f8", dimension_names=(LONG, "b", None), zarr_format=3
    )
    array[...] = np.arange(24.0).reshape(2, 3, 4)
    return lt.open(path)


def _from_zarr_v2(folder: pathlib.Path) -> lt.AbstractTensor:
    path = folder / "v2.zarr"
    array = zarr.create_array(store=str(path), shape=(2, 3, 4), dtype="f8", zarr_format=2)
    array[...] = np.arange(24.0).reshape(2, 3, 4)
    array.attrs["_ARRAY_DIMENSIONS"] = [LONG, "b", "c"]
    return lt.open(path)


def _from_xarray(folder: pathlib.Path) -> lt.AbstractTensor:
    return lt.from_array(xr.DataArray(np.arange(24.0).reshape(2, 3, 4), dims=(LONG, "b", "c")))


def _from_hdf5(folder: pathlib.Path) -> lt.AbstractTensor:
    file = h5py.File(folder / "labelled.h5", "w")
    dataset = file.create_dataset("data", data=np.arange(24.0).reshape(2, 3, 4))
    dataset.dims[0].label = LONG
    return lt.from_array(dataset)


SOURCES: dict[str, Callable[[pathlib.Path], lt.AbstractTensor]] = {
    "names=": lambda folder: _from_names(),
    "rename": lambda folder: _from_rename(),
    "zarr v3": _from_zarr_v3,
    "zarr v2": _from_zarr_v2,
    "xarray": _from_xarray,
    "hdf5": _from_hdf5,
}


def _rich(t: lt.AbstractTensor) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(t)
    return console.file.getvalue()  # type: ignore[attr-defined]


PRINTS: dict[str, Callable[[lt.AbstractTensor], str]] = {
    "repr": repr,
    "str": str,
    "rich": _rich,
    "to_string, a slice": lambda t: lt.to_string(t, dims=(1,)),
    "to_string, one 2-D slice": lambda t: lt.to_string(t[:, 0]),
    "to_string, summarised": lambda t: lt.to_string(t, threshold=4, edgeitems=1),
    "notebook html": lambda t: t._repr_mimebundle_()["text/html"],
    "notebook text": lambda t: t._repr_mimebundle_()["text/plain"],
    "explain": lambda t: str(t.explain()),
    "explain a position": lambda t: str(t.explain((1, 2, 3))),
    "explain html": lambda t: t.explain((1, 2, 3))._repr_mimebundle_()["text/html"],
    "summary": lambda t: str(t.summary()),
    "stats": lambda t: str(t.stats()),
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("door", PRINTS)
def test_a_10_mb_name_prints_cut_everywhere(source: str, door: str, tmp_path: pathlib.Path) -> None:
    t = SOURCES[source](tmp_path)
    assert t.names[0] == LONG  # the name itself is kept whole: only its print is cut
    text = PRINTS[door](t)
    assert len(text) < BOUND, (source, door, len(text))
    assert "channelxxxxxxxxx…" in text, (source, door, text)


ERRORS: dict[str, Callable[[lt.AbstractTensor], object]] = {
    "a name it has not": lambda t: t.sum(LONG + "y"),
    "isel": lambda t: t.isel(**{LONG + "y": 0}),
    "names that do not match": lambda t: t + lt.zeros(2, 1, 1, names=(LONG + "y", None, None)),
    "a name twice": lambda t: t.rename(LONG, LONG, None),
    "too few names": lambda t: t.rename(LONG),
    "names as one str": lambda t: lt.zeros(2, names=LONG),
    "misaligned": lambda t: t[:, :1, :1] + lt.zeros(2, 1, 1, 1, names=(LONG, None, None, None)),
    "matmul": lambda t: t[:, 0, :3] @ lt.zeros(3, 3, names=(None, LONG)),
}


@pytest.mark.parametrize("error", ERRORS)
def test_errors_quote_a_10_mb_name_cut(error: str) -> None:
    t = _from_names()
    with pytest.raises((ValueError, TypeError)) as caught:
        ERRORS[error](t)
    message = str(caught.value)
    assert len(message) < 1_000, (error, len(message))
    assert "…(10,485,76" in message, message


def test_the_repl_banner_and_show_print_a_10_mb_name_cut(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "v3.zarr"
    _from_zarr_v3(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "lazytensor", "repl", str(path)],
        input="print(t[:, 0])\nt.explain()\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[:2000]
    assert len(result.stdout) + len(result.stderr) < BOUND
    assert (result.stdout + result.stderr).count(CUT) >= 3, result  # the banner, the print, the tree


def test_the_cut_is_at_most_40_characters_and_short_names_are_whole() -> None:
    for length in (40, 41, 1_000, 10**6):
        name = "n" * length
        t = lt.zeros(1, names=(name,))
        shown = str(t.summary()).split("(", 1)[1].rsplit(" 1)", 1)[0]
        assert len(shown) == 40
        assert (shown == name) == (length == 40)


@given(st.text(min_size=1, max_size=120) | st.integers(41, 100_000).map(lambda n: "n" * n))
def test_any_name_prints_in_at_most_40_characters_and_a_short_one_whole(name: str) -> None:
    summary = str(lt.zeros(1, names=(name,)).summary())
    if len(name) <= 40 and name.isprintable():
        assert summary.startswith(f"tensor ({name} 1) float64")
    if len(name) > 40:
        assert f"…({len(name):,} characters) 1) float64" in summary
    assert len(summary) < 40 * len(r"\U0010ffff") + 100  # each shown character at worst escaped

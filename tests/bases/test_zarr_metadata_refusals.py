"""zarr metadata that zarr accepts but cannot serve, refused at open in one line naming the store:
an `_ARRAY_DIMENSIONS` attribute (xarray's names of a zarr v2 array's axes) that is not a list of
names, and a chunk shape with a 0 along an axis that holds elements (zarr's own reads of it divide by
zero). A chunk of 0 along an empty axis is read as zarr reads it: there is nothing to read.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import zarr

import lazytensor as lt


def _v2_store(path: Path, dimensions: object) -> Path:
    array = zarr.create_array(store=str(path), shape=(2, 3), chunks=(1, 3), dtype="f8", zarr_format=2)
    array[...] = np.arange(6.0).reshape(2, 3)
    array.attrs["_ARRAY_DIMENSIONS"] = dimensions
    return path


@pytest.mark.parametrize("dimensions", [3, "ab", {"a": 1}, None, [["a"], "b"], ["row", 7]])
def test_array_dimensions_that_are_not_a_list_of_names_are_refused_naming_the_store(
    dimensions: object, tmp_path: Path
) -> None:
    path = _v2_store(tmp_path / "dims.zarr", dimensions)
    for opening in (lambda: lt.open(path), lambda: lt.from_array(zarr.open_array(str(path), mode="r"))):
        with pytest.raises(ValueError) as caught:
            opening()
        message = str(caught.value)
        assert "dims.zarr" in message and "_ARRAY_DIMENSIONS" in message and "\n" not in message
        assert repr(dimensions)[:10] in message


def test_a_list_of_names_still_names_the_axes(tmp_path: Path) -> None:
    assert lt.open(_v2_store(tmp_path / "ok.zarr", ["row", "col"])).names == ("row", "col")
    assert lt.open(_v2_store(tmp_path / "none.zarr", [None, "col"])).names == (None, "col")


def _zero_chunks(path: Path, shape: tuple[int, ...], zarr_format: int) -> Path:
    zarr.create_array(store=str(path), shape=shape, chunks=(1, 2), dtype="f8", zarr_format=zarr_format)
    document = path / ("zarr.json" if zarr_format == 3 else ".zarray")
    metadata = json.loads(document.read_text())
    if zarr_format == 3:
        metadata["chunk_grid"]["configuration"]["chunk_shape"] = [0, 2]
    else:
        metadata["chunks"] = [0, 2]
    document.write_text(json.dumps(metadata))
    return path


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_a_chunk_of_size_0_along_an_axis_with_elements_is_refused_at_open(
    zarr_format: int, tmp_path: Path
) -> None:
    path = _zero_chunks(tmp_path / "zero.zarr", (3, 4), zarr_format)
    for opening in (lambda: lt.open(path), lambda: lt.from_array(zarr.open_array(str(path), mode="r"))):
        with pytest.raises(ValueError) as caught:
            opening()
        message = str(caught.value)
        assert "zero.zarr" in message and "(0, 2)" in message and "axis 0" in message and "\n" not in message
    in_memory = zarr.create_array(store={}, shape=(3, 4), chunks=(0, 2), dtype="f8")
    with pytest.raises(ValueError, match=r"memory://.*chunk shape \(0, 2\)"):
        lt.from_array(in_memory)


def test_a_chunk_of_size_0_along_an_empty_axis_reads_nothing_as_zarr_does(tmp_path: Path) -> None:
    t = lt.open(_zero_chunks(tmp_path / "empty.zarr", (0, 4), 3))
    assert t.shape == (0, 4) and t.sum().item() == 0.0
    np.testing.assert_array_equal(t.sum(0).numpy(), np.zeros(4))
    assert "0 elements" in repr(t)

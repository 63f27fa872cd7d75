"""Pickling tensors on every kind of base, and tensors with a recorded gradient graph.

A tensor pickles whenever its base can be opened again: a zarr store by its path (and the array's
path inside it), reopened through the safe store on unpickling; dask, xarray, numpy and memory-mapped
bases as they pickle themselves; an HDF5 dataset by its file's resolved path, its name and the options
it was opened with, opened and checked again as `lt.open` opens it (a file gone by then is one line).
A result with a recorded graph pickles as PyTorch's `pickle` does: its values and `requires_grad`, as
a leaf (the graph stays behind).
"""

from __future__ import annotations

import pathlib
import pickle

import h5netcdf
import h5py
import numpy as np
import pytest
import zarr
from bases_support import KINDS, on_base

import lazytensor as lt

VALUES = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("kind", KINDS)
def test_every_base_that_can_be_reopened_round_trips(kind: str, tmp_path: pathlib.Path) -> None:
    t = on_base(kind, VALUES, tmp_path)
    view = t.permute(2, 0, 1)[1:, ::-1]
    base, copy = pickle.loads(pickle.dumps((t, view)))
    assert type(base.base) is type(t.base)
    assert copy.base is base  # one base under both, as before pickling
    np.testing.assert_array_equal(base.numpy(), VALUES)
    np.testing.assert_array_equal(copy.numpy(), np.transpose(VALUES, (2, 0, 1))[1:, ::-1])


def _store(folder: pathlib.Path, inside: str | None = None) -> pathlib.Path:
    path = folder / "store.zarr"
    if inside is None:
        array = zarr.create_array(
            store=str(path), shape=VALUES.shape, chunks=(1, 2, 2), dtype="f8", dimension_names=("a", "b", "c")
        )
    else:
        array = zarr.open_group(str(path), mode="w").create_array(
            inside, shape=VALUES.shape, chunks=(1, 2, 2), dtype="f8"
        )
    array[...] = VALUES
    return path


def test_a_zarr_store_opened_by_path_pickles_by_its_path(tmp_path: pathlib.Path) -> None:
    t = lt.open(_store(tmp_path))
    view = t[1, ::2].T
    copy = pickle.loads(pickle.dumps(view))
    assert type(copy.base.array.store).__name__ == "SafeLocalStore"  # reopened through the safe store
    assert copy.base.array is not t.base.array
    assert copy.names == view.names == ("c", "b")
    np.testing.assert_array_equal(copy.numpy(), VALUES[1, ::2].T)
    copy[0, 0] = -1.0  # opened "r+" as the original: writes reach the store
    assert lt.open(tmp_path / "store.zarr").numpy()[1, 0, 0] == -1.0


def test_a_zarr_array_inside_a_group_and_read_only_pickles(tmp_path: pathlib.Path) -> None:
    path = _store(tmp_path, inside="deep/data")
    t = lt.open(path, "deep/data", mode="r")
    copy = pickle.loads(pickle.dumps(t[:, 1]))
    np.testing.assert_array_equal(copy.numpy(), VALUES[:, 1])
    assert copy.base.read_only_reason is not None and "read-only" in copy.base.read_only_reason
    assert copy.names == (None, None)


def test_a_zarr_array_from_zarr_itself_pickles(tmp_path: pathlib.Path) -> None:
    t = lt.from_array(zarr.open_array(str(_store(tmp_path)), mode="r"))
    assert type(t.base.array.store).__name__ == "SafeLocalStore"  # lt.from_array guards it
    copy = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(copy.numpy(), VALUES)
    assert copy.names == ("a", "b", "c")
    raw = pickle.loads(pickle.dumps(t.base.array))  # the safe store itself pickles too
    np.testing.assert_array_equal(raw[...], VALUES)


def test_names_given_to_an_array_base_survive_pickling(tmp_path: pathlib.Path) -> None:
    t = lt.from_array(np.arange(6).reshape(2, 3), names=("row", "col"))
    assert pickle.loads(pickle.dumps(t)).names == ("row", "col")
    assert pickle.loads(pickle.dumps(lt.from_array(np.arange(3)))).names == (None,)


def _hdf5(folder: pathlib.Path) -> pathlib.Path:
    path = folder / "data.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("deep/x", data=VALUES, chunks=(1, 2, 2), compression="gzip")
        f["deep/x"].dims[0].label = "trial"
    return path


def test_an_hdf5_dataset_pickles_by_file_and_name_and_its_views_write_through(tmp_path: pathlib.Path) -> None:
    path = _hdf5(tmp_path)
    t = lt.open(tmp_path / "." / "data.h5", "deep/x")
    view = t[1, ::2].T
    base, copy = pickle.loads(pickle.dumps((t, view)))
    assert copy.base is base and base.base.array is not t.base.array
    np.testing.assert_array_equal(copy.numpy(), VALUES[1, ::2].T)
    assert base.names == t.names == ("trial", None, None)
    copy[0, 0] = -1.0  # opened "r+" as the original: writes reach the file
    assert lt.open(path, "deep/x", mode="r")[1, 0, 0].item() == -1.0


def test_a_read_only_hdf5_dataset_comes_back_read_only(tmp_path: pathlib.Path) -> None:
    path = _hdf5(tmp_path)
    writable = lt.open(path, "deep/x")  # the same file open for writing in this process
    copy = pickle.loads(pickle.dumps(lt.open(path, "deep/x", mode="r")[:, 1]))
    np.testing.assert_array_equal(copy.numpy(), VALUES[:, 1])
    assert copy.base.read_only_reason is not None and "read-only" in copy.base.read_only_reason
    with pytest.raises(ValueError, match="read-only"):
        copy[0, 0] = 5.0
    assert writable[0, 1, 0].item() == VALUES[0, 1, 0]


def test_an_hdf5_dataset_with_external_storage_keeps_its_permission(tmp_path: pathlib.Path) -> None:
    secret = tmp_path / "raw.bin"
    secret.write_bytes(bytes(range(8)))
    path = tmp_path / "ext.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=(8,), dtype="u1", external=[(str(secret), 0, 8)])
    copy = pickle.loads(pickle.dumps(lt.open(path, allow_external=True)))
    assert copy.tolist() == list(range(8))


def test_an_hdf5_file_gone_at_unpickling_is_one_line_naming_it(tmp_path: pathlib.Path) -> None:
    path = _hdf5(tmp_path)
    data = pickle.dumps(lt.open(path, "deep/x", mode="r")[0])
    path.unlink()
    with pytest.raises(FileNotFoundError) as caught:
        pickle.loads(data)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message


def test_an_hdf5_dataset_in_memory_is_refused_in_one_line(tmp_path: pathlib.Path) -> None:
    file = h5py.File(tmp_path / "core.h5", "w", driver="core", backing_store=False)
    file["x"] = np.arange(3)
    with pytest.raises(TypeError) as caught:
        pickle.dumps(lt.from_array(file["x"])[1:])
    message = str(caught.value)
    assert "\n" not in message and "Can't pickle" not in message
    assert "HDF5" in message and "core.h5" in message and "t.compute()" in message


def _netcdf(path: pathlib.Path) -> pathlib.Path:
    with h5netcdf.File(path, "w") as f:
        f.dimensions = {"trial": 2, "time": 3}
        v = f.create_variable("v", ("trial", "time"), "f8", chunks=(1, 3), compression="gzip")
        v[...] = VALUES[0, :2, :3]
        f.create_variable("w", ("time",), "i4")[...] = [1, 2, 3]
    return path


def test_a_netcdf_variable_opened_by_lt_open_pickles_by_its_file_and_is_checked_again(
    tmp_path: pathlib.Path,
) -> None:
    path = _netcdf(tmp_path / "data.nc")
    t = lt.open(path, "v")
    copy = pickle.loads(pickle.dumps(t.T[::2]))
    np.testing.assert_array_equal(copy.numpy(), VALUES[0, :2, :3].T[::2])
    assert copy.names == ("time", "trial")
    data = pickle.dumps(t)
    hostile = _netcdf(tmp_path / "hostile.nc")
    with h5py.File(hostile, "a") as f:  # the file turned hostile since: refused as lt.open refuses it
        f["far"] = h5py.ExternalLink(str(tmp_path / "other.h5"), "/s")
    hostile.replace(path)
    with pytest.raises(ValueError, match="external link"):
        pickle.loads(data)
    path.unlink()
    with pytest.raises(FileNotFoundError, match=r"data\.nc: no such file"):
        pickle.loads(data)


def test_a_result_with_a_recorded_graph_pickles_as_a_leaf_as_in_pytorch() -> None:
    x = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for result in (x * 2, (x * 2)[1:], x.exp().sum(), (x[::-1] + x).T):
        copy = pickle.loads(pickle.dumps(result))
        np.testing.assert_array_equal(copy.numpy(), result.numpy())
        assert copy.requires_grad and copy.base.is_leaf and copy.base.grad_fn is None
        assert not result.base.is_leaf  # the original keeps its graph
        copy.sum().backward()  # the copy is a leaf of its own graph
        assert copy.base.grad is not None and x.grad is None


def test_a_leaf_keeps_its_gradient_through_pickling() -> None:
    x = lt.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    copy = pickle.loads(pickle.dumps(x))
    assert copy.requires_grad and copy.is_leaf and copy.grad.tolist() == [2.0, 4.0]

"""What each backend declares about its arrays (kind, chunks, where they live, why they cannot be
written, their axis names) and what an array base says from it: the header line, the refusals, and
which arrays it shares memory with; the generic backend's fallbacks for what a backend leaves out.

Reaches into `lazytensor.bases.arraylike`: the backend protocol (`Backend`, `Indexing`, `ArrayBase`)
is what a new kind of array plugs into, and its fallbacks are checked on backends defined here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import dask
import dask.array as da
import h5py
import numpy as np
import pytest
import xarray as xr
import zarr
from bases_support import Plain, on_base
from dask.graph_manipulation import clone

import lazytensor as lt
from lazytensor.bases import arraylike
from lazytensor.bases.arraylike import ArrayBase, Backend, Indexing

# -- the header line of every kind of base ------------------------------------------------------------


def test_each_base_describes_its_kind_shape_dtype_chunks_and_place(tmp_path: Path) -> None:
    values = np.arange(6.0).reshape(2, 3)
    lines = {
        kind: on_base(kind, values, tmp_path).base.describe() for kind in ("zarr", "dask", "h5py", "xarray")
    }
    assert re.fullmatch(r"zarr array \(2, 3\) × float64, chunks \(2, 2\), at memory://\d+", lines["zarr"])
    assert re.fullmatch(
        r"dask array \(2, 3\) × float64, chunks \(2, 2\), at array-[0-9a-f]{32}", lines["dask"]
    )
    assert re.fullmatch(
        rf"hdf5 array \(2, 3\) × float64, chunks \(2, 2\), at {tmp_path}/a\d+\.h5:/data", lines["h5py"]
    )
    assert re.fullmatch(rf"xarray array \(2, 3\) × float64, at {tmp_path}/a\d+\.nc:data", lines["xarray"])
    big_endian = lt.from_array(Plain(np.arange(6, dtype=">i4").reshape(2, 3)))
    assert big_endian.base.describe() == "array array (2, 3) × >i4"  # kept: the bytes are big-endian
    assert big_endian.T.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert lt.from_array(np.zeros(3, "<f4")).base.describe() == "numpy array (3,) × float32"


def test_an_array_like_is_placed_by_its_file_and_name() -> None:
    class File:
        filename = "/data/run.h5"

    class InFile(Plain):
        name = "/grp/x"
        file = File()

    assert Backend().where(InFile(np.zeros(2))) == "/data/run.h5:/grp/x"
    assert Backend().where(Plain(np.zeros(2))) is None
    assert (
        lt.from_array(InFile(np.zeros(2))).base.describe()
        == "array array (2,) × float64, at /data/run.h5:/grp/x"
    )


def test_netcdf_chunks_and_zarr_encoded_chunks_show_for_xarray(tmp_path: Path) -> None:
    path = tmp_path / "b.nc"
    xr.DataArray(np.zeros((4, 6)), dims=("y", "x"), name="v").to_netcdf(
        path, engine="h5netcdf", encoding={"v": {"chunksizes": (2, 3)}}
    )
    base = lt.from_array(xr.open_dataarray(path, engine="h5netcdf")).base
    assert base.describe() == f"xarray array (4, 6) × float64, chunks (2, 3), at {path}:v"
    in_memory = xr.DataArray(np.zeros((4, 6)), dims=("y", "x"), name="v")
    backend = arraylike.backend_of(in_memory)
    assert backend.kind == "xarray" and backend.chunks(in_memory) is None and backend.where(in_memory) is None
    in_memory.encoding = {"chunks": (4, 2)}  # what xarray keeps of a zarr store's chunks
    assert backend.chunks(in_memory) == (4, 2)
    in_memory.encoding = {"chunksizes": (1, 6), "chunks": (4, 2)}
    assert backend.chunks(in_memory) == (1, 6)
    in_memory.encoding = {"chunks": (4,)}  # not one per axis: ignored
    assert backend.chunks(in_memory) is None


def test_declared_chunks_must_be_a_tuple_of_ints() -> None:
    backend = Backend()
    assert backend.chunks(Plain(np.zeros((4, 4)), chunks=(2, 4))) == (2, 4)
    assert backend.chunks(Plain(np.zeros((4, 4)), chunks=(np.int64(2), 4))) is None
    assert backend.chunks(Plain(np.zeros((4, 4)), chunks=[2, 4])) is None  # type: ignore[arg-type]
    assert backend.chunks(Plain(np.zeros(()), chunks=())) is None
    assert backend.chunks(Plain(np.zeros((4, 4)))) is None


def test_dask_chunks_are_the_largest_block() -> None:
    array = da.zeros((5, 7), chunks=((2, 3), (4, 3)))
    assert arraylike.backend_of(array).chunks(array) == (3, 4)
    assert arraylike.backend_of(array).where(array) == array.name


# -- refusals: why a base cannot be written, or require grad ------------------------------------------


def test_each_read_only_base_says_why_in_full(tmp_path: Path) -> None:
    values = np.arange(6.0).reshape(2, 3)
    dask_t = on_base("dask", values, tmp_path)
    assert dask_t.base.read_only_reason == (
        "cannot write to a dask-backed tensor of shape (2, 3): dask arrays are read-only: write into a copy "
        "(lt.tensor(t.numpy())) or into the source"
    )
    assert on_base("xarray", values, tmp_path).base.read_only_reason == (
        "cannot write to a xarray-backed tensor of shape (2, 3): an xarray DataArray is read through "
        "lazytensor, not written: write to its source"
    )
    path = tmp_path / "r.h5"
    with h5py.File(path, "w") as file:
        file.create_dataset("d", data=values)
    with h5py.File(path, "r") as file:
        t = lt.from_array(file["d"])
        assert t.base.read_only_reason == (
            "cannot write to a hdf5-backed tensor of shape (2, 3): the HDF5 file was opened read-only"
        )
        with pytest.raises(ValueError, match=r"the HDF5 file was opened read-only"):
            t[0, 0] = 1.0
    with h5py.File(path, "r+") as file:
        assert lt.from_array(file["d"]).base.read_only_reason is None
    frozen = values.copy()
    frozen.flags.writeable = False
    assert lt.from_array(frozen).base.read_only_reason == (
        "cannot write to a numpy-backed tensor of shape (2, 3): the numpy array is read-only"
    )
    assert lt.from_array(values.copy()).base.read_only_reason is None
    store = zarr.create_array(store={}, shape=(2,), dtype="f8")
    assert lt.from_array(store).base.read_only_reason is None
    opened = zarr.open_array(store.store, mode="r")
    assert lt.from_array(opened).base.read_only_reason == (
        "cannot write to a zarr-backed tensor of shape (2,): the zarr array was opened read-only"
    )


def test_an_array_like_without_setitem_cannot_be_written() -> None:
    class ReadOnly:
        def __init__(self) -> None:
            self.shape, self.dtype = (3,), np.dtype("f8")

        def __getitem__(self, key: Any) -> np.ndarray:
            return np.arange(3.0)[key]

    t = lt.from_array(ReadOnly())
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert (
        t.base.read_only_reason
        == "cannot write to a array-backed tensor of shape (3,): a ReadOnly cannot be written"
    )
    assert Backend().read_only(Plain(np.zeros(1))) is None


def test_an_array_base_never_requires_grad(tmp_path: Path) -> None:
    t = on_base("zarr", np.zeros((2, 2)), tmp_path)
    assert t.requires_grad is False and t.base.requires_grad is False
    with pytest.raises(TypeError) as info:
        t.base.requires_grad_()
    assert str(info.value) == "a zarr-backed tensor cannot require grad: copy it with t.compute()"
    with pytest.raises(TypeError, match=r"^a zarr-backed tensor cannot require grad"):
        t.base.requires_grad_(False)
    assert t.base.detach() is t.base


# -- memory shared with numpy arrays and other tensors -------------------------------------------------


def test_a_numpy_base_shares_memory_with_its_array_and_its_views() -> None:
    values = np.arange(12.0).reshape(3, 4)
    base = ArrayBase(values)
    other = ArrayBase(values[1:, ::2])
    assert base.may_share_memory(values[2]) and not base.may_share_memory(np.arange(3.0))
    assert base.shares_storage_with(other) and other.shares_storage_with(base)
    assert base.shares_storage_with(values[::-1]) and not base.shares_storage_with(values.copy())
    assert not base.shares_storage_with(ArrayBase(values.copy()))
    assert base.shares_storage_with(lt.from_numpy(values[0]).base)
    assert not base.shares_storage_with(lt.tensor(values).base)  # lt.tensor copies
    assert lt.from_array(values).T.shares_storage(lt.from_array(values[1:]))


def test_a_base_that_is_not_numpy_shares_memory_only_with_itself() -> None:
    plain = Plain(np.arange(4.0))
    base = ArrayBase(plain)
    assert base.shares_storage_with(ArrayBase(plain))  # the same array object
    assert not base.shares_storage_with(ArrayBase(Plain(plain.array)))  # another wrapper: unknown
    assert not base.shares_storage_with(ArrayBase(plain.array))
    assert not ArrayBase(plain.array).shares_storage_with(base)
    assert not base.shares_storage_with(lt.from_numpy(plain.array).base)
    assert not base.shares_storage_with(plain.array)
    assert not base.may_share_memory(plain.array)


# -- the generic backend: what a backend that declares little gets ------------------------------------


def test_the_generic_backend_refuses_selections_it_does_not_declare() -> None:
    array = Plain(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError) as info:
        Backend().outer(array, (slice(None), np.array([0, 2])))
    assert str(info.value) == "a array array does not declare orthogonal selection"
    with pytest.raises(TypeError) as info:
        Backend().points(array, (np.array([0]), np.array([1])))
    assert str(info.value) == "a array array does not declare point selection"
    assert array.requests == 0


def test_a_points_backend_reads_outer_selections_as_its_grid_of_points(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(arraylike, "BACKENDS", list(arraylike.BACKENDS))
    seen: list[tuple[np.ndarray, ...]] = []

    class PointsOnly(Backend):
        kind = "pointsonly"
        indexing: ClassVar[Indexing] = Indexing.VECTORIZED

        def points(self, array: Any, coords: tuple[np.ndarray, ...]) -> Any:
            seen.append(coords)
            return array.array[coords]

    values = np.arange(20.0).reshape(4, 5)
    got = PointsOnly().outer(Plain(values), (np.array([1, 3]), slice(1, 4)))
    assert got.shape == (2, 3) and got.tolist() == values[np.ix_([1, 3], [1, 2, 3])].tolist()
    assert [c.shape for c in seen[0]] == [(6,), (6,)]
    assert PointsOnly.accepts(object()) and Backend.accepts(None)  # the generic test takes anything
    t = lt.from_array(Plain(values.copy()))
    assert t.base.backend.kind == "pointsonly"  # the last backend defined that accepts it
    t[[0, 3, 0], [4, 1, 4]] = lt.tensor([-1.0, -2.0, -3.0])  # the generic write: one point at a time
    expected = values.copy()
    expected[[0, 3, 0], [4, 1, 4]] = [-1.0, -2.0, -3.0]
    assert t.numpy().tolist() == expected.tolist()
    assert t.base.array.writes == 2  # distinct points only, the last write of a repeat wins


def test_the_generic_backend_writes_points_one_by_one() -> None:
    array = Plain(np.zeros((2, 3)))
    Backend().set_points(array, (np.array([1, 0]), np.array([2, 0])), np.array([5.0, 7.0]))
    assert array.array.tolist() == [[7.0, 0.0, 0.0], [0.0, 0.0, 5.0]] and array.writes == 2
    assert Backend().dimension_names(array) is None


# -- one element -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["zarr", "getitem", "h5py", "numpy-array"])
def test_set_writes_one_element_of_an_array_base(kind: str, tmp_path: Path) -> None:
    values = np.arange(6.0).reshape(2, 3)
    t = lt.from_array(values.copy()) if kind == "numpy-array" else on_base(kind, values, tmp_path)
    t.T.set((2, 1), -7.0)
    t.set((0, 0), -1.0)
    expected = values.copy()
    expected[1, 2], expected[0, 0] = -7.0, -1.0
    assert t.numpy().tolist() == expected.tolist()
    scalar = lt.from_array(np.array(2.5)) if kind == "numpy-array" else on_base(kind, np.array(2.5), tmp_path)
    scalar.set((), 4.0)
    assert scalar.item() == 4.0


@pytest.mark.parametrize("kind", ["zarr", "getitem", "h5py"])
def test_a_0_d_base_reads_and_writes_its_one_element(kind: str, tmp_path: Path) -> None:
    t = on_base(kind, np.array(2.5), tmp_path)
    assert t.item() == 2.5 and t.numpy().shape == ()
    t[()] = 4.0
    assert t.item() == 4.0
    t.fill_(6.0)
    assert t.tolist() == 6.0 and t.expand(2, 3).numpy().tolist() == [[6.0] * 3] * 2


# -- dask collections -----------------------------------------------------------------------------------


def test_persist_keeps_the_values_and_renamed_keys_rebuild_the_same_array() -> None:
    values = np.arange(12.0).reshape(3, 4)
    t = lt.from_array(da.from_array(values, chunks=2))
    (persisted,) = dask.persist(t.T * 2)
    assert isinstance(persisted.base, ArrayBase) and persisted.base.backend.lazy
    assert persisted.numpy().tolist() == (values.T * 2).tolist()
    doubled = t.T * 2
    cloned = clone(doubled)  # dask rebuilds the collection under new keys (`rename`)
    assert isinstance(cloned, ArrayBase) and cloned.array.name != doubled._lazy_values.name
    assert cloned.numpy().tolist() == (values.T * 2).tolist()
    (computed,) = dask.compute(t[1:].sum(0))
    assert isinstance(computed, lt.StorageTensor) and computed.tolist() == values[1:].sum(0).tolist()


# -- axis names kept by the format --------------------------------------------------------------------


def test_hdf5_axes_are_named_by_label_else_by_their_first_dimension_scale(tmp_path: Path) -> None:
    with h5py.File(tmp_path / "x.h5", "w") as file:
        data = file.create_dataset("grp/d", data=np.zeros((2, 3, 4)))
        file.create_dataset("grp/time", data=np.arange(2.0))
        file["grp/time"].make_scale("t")  # the scale's own name is not the axis name: its path is
        file.create_dataset("lat", data=np.arange(3.0))
        file["lat"].make_scale()
        file.create_dataset("other", data=np.arange(3.0))
        file["other"].make_scale()
        data.dims[0].attach_scale(file["grp/time"])
        data.dims[1].attach_scale(file["lat"])
        data.dims[1].attach_scale(file["other"])
        data.dims[1].label = "y"  # a label wins over a scale
        assert arraylike.backend_of(data).dimension_names(data) == ("time", "y", None)
        assert lt.from_array(data).names == ("time", "y", None)
        scaled = file.create_dataset("e", data=np.zeros((2, 3)))
        scaled.dims[1].attach_scale(file["lat"])
        scaled.dims[1].attach_scale(file["other"])
        assert lt.from_array(scaled).names == (None, "lat")  # the first scale attached
        assert lt.from_array(file.create_dataset("f", data=np.zeros(2))).names == (None,)

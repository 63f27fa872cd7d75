"""Backends declare what they support and reads are planned from it; `lt.open` opens `.npy`, zarr
(v2 and v3), HDF5 and netCDF without ever writing; xarray comes in through `lt.from_array`; a
0-d reduction is a number on every base.

Reaches into `lazytensor.bases.arraylike` and `lazytensor.api.files`: a backend of each indexing
kind is defined here, dask is made missing, and the netCDF engines are swapped for one that is not
installed.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, ClassVar

import dask.array as da
import h5py
import numpy as np
import pytest
import xarray as xr
import zarr
from bases_support import KINDS, Plain, on_base
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.api import files
from lazytensor.bases import arraylike
from lazytensor.bases.arraylike import Backend, Indexing

# -- a 0-d result is a number on every base --------------------------------------------------------

REDUCTIONS = {
    "sum": np.sum,
    "mean": np.mean,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
    "std": np.std,
    "var": np.var,
    "argmax": np.argmax,
    "argmin": np.argmin,
    "nansum": np.nansum,
    "nanmean": np.nanmean,
    "nanmax": np.nanmax,
    "nanmin": np.nanmin,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_full_reductions_are_0_d_numbers_on_every_base(kind: str, name: str, tmp_path: Path) -> None:
    values = np.arange(1.0, 13.0).reshape(3, 4) / 4
    if name.startswith("nan"):
        values[1, 2] = values[0, 0] = np.nan
    expected = REDUCTIONS[name](values)
    t = on_base(kind, values, tmp_path)
    result = getattr(t, name)()
    assert result.shape == ()
    assert result.tolist() == pytest.approx(expected.item())
    assert float(result) == pytest.approx(float(expected))
    assert f"{result:.3f}" == f"{expected:.3f}"
    kept = getattr(t, name)(dim=None if name.startswith("arg") else (0, 1), keepdim=True)
    assert kept.shape == (1, 1)
    along = getattr(t, name)(dim=1)
    np.testing.assert_allclose(along.numpy(), REDUCTIONS[name](values, axis=1), rtol=1e-12)


def test_the_issue_s_zarr_example_gives_a_number() -> None:
    z = zarr.create_array(store={}, shape=(4, 6), chunks=(2, 2), dtype="f8")
    z[...] = np.arange(24.0).reshape(4, 6)
    s = lt.from_array(z).sum()
    assert s.shape == () and s.tolist() == 276.0 and f"{s:.1f}" == "276.0"


def test_zarr_without_dask_reads_the_view_and_reduces_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    z = zarr.create_array(store={}, shape=(4, 6), chunks=(2, 2), dtype="f8")
    z[...] = np.arange(24.0).reshape(4, 6)
    monkeypatch.setattr(arraylike, "has_dask", lambda: False)
    t = lt.from_array(z)
    assert (t * 2).base.layer_name == "Computed"  # elementwise: computed when read, dask or not
    assert t.T[::2].nansum(0).tolist() == np.arange(24.0).reshape(4, 6).T[::2].sum(0).tolist()
    assert t.sum().shape == ()


def test_zarr_with_dask_runs_a_refused_operation_on_the_view_s_values() -> None:
    z = zarr.create_array(store={}, shape=(4, 6), chunks=(2, 2), dtype="f8")
    z[...] = np.arange(24.0).reshape(4, 6)
    t = lt.from_array(z)
    rows = t[1:3].gather(0, lt.tensor([[1, 0, 0, 1, 1, 0]]))
    assert rows.tolist() == [[12.0, 7.0, 8.0, 15.0, 16.0, 11.0]]


def test_zarr_and_dask_operands_together_stay_lazy() -> None:
    z = zarr.create_array(store={}, shape=(4, 6), chunks=(2, 2), dtype="f8")
    z[...] = np.arange(24.0).reshape(4, 6)
    d = lt.from_array(da.ones((6,), chunks=3))
    total = lt.from_array(z) + d
    assert total.base.defers_operations and total.base.layer_name == "Dask"
    assert total.tolist() == (np.arange(24.0).reshape(4, 6) + 1).tolist()


def test_a_refused_operation_on_dask_says_what_to_do() -> None:
    t = lt.from_array(da.zeros((4, 3), chunks=2))
    with pytest.raises(TypeError, match=r"index_add .*dask-backed tensor \(shape \(4, 3\)\).*t\.compute\(\)"):
        t.index_add(0, [0, 1], lt.ones(2, 3))
    assert t.compute().index_add(0, [0, 1], lt.ones(2, 3)).sum().item() == 6.0


# -- backends declare what they support; reads are planned from the declaration ---------------------


def test_each_kind_of_array_gets_its_declared_backend(tmp_path: Path) -> None:
    file = h5py.File(tmp_path / "f.h5", "w")
    file.create_dataset("d", data=np.zeros((2, 3)), chunks=(1, 3))
    path = tmp_path / "a.nc"
    xr.DataArray(np.zeros((2, 3)), name="v").to_netcdf(path, engine="h5netcdf")
    arrays = {
        "numpy": np.zeros(3),
        "zarr": zarr.create_array(store={}, shape=(3,), dtype="f8"),
        "dask": da.zeros(3),
        "hdf5": file["d"],
        "xarray": xr.open_dataarray(path, engine="h5netcdf"),
        "array": Plain(np.zeros(3)),
    }
    kinds = {name: arraylike.backend_of(array) for name, array in arrays.items()}
    assert {name: backend.kind for name, backend in kinds.items()} == {name: name for name in arrays}
    assert [kinds[name].indexing for name in ("numpy", "zarr", "dask", "xarray", "hdf5", "array")] == [
        Indexing.VECTORIZED,
        Indexing.VECTORIZED,
        Indexing.VECTORIZED,
        Indexing.OUTER,
        Indexing.BASIC,
        Indexing.BASIC,
    ]
    assert kinds["hdf5"].chunks(file["d"]) == (1, 3)


def _chunks_touched(rows: np.ndarray, cols: np.ndarray, chunk: tuple[int, int]) -> int:
    return len(set(zip((rows // chunk[0]).tolist(), (cols // chunk[1]).tolist(), strict=True)))


@pytest.mark.parametrize("chunks", [(100, 100), (10, 1000), None], ids=["square", "rows", "undeclared"])
def test_scattered_points_on_a_slice_only_array_take_one_request_per_chunk(chunks: Any) -> None:
    values = np.arange(10**6, dtype=np.int64).reshape(1000, 1000)
    plain = Plain(values, chunks=chunks)
    t = lt.from_array(plain)
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, 1000, size=2000), rng.integers(0, 1000, size=2000)
    got = t[rows, cols].numpy()
    np.testing.assert_array_equal(got, values[rows, cols])
    grid = chunks if chunks is not None else arraylike.virtual_chunks(values.shape)
    assert plain.requests == _chunks_touched(rows, cols, grid) < 2000


def test_scattered_writes_to_a_slice_only_array_take_two_requests_per_chunk() -> None:
    values = np.arange(10**6, dtype=np.int64).reshape(1000, 1000)
    plain = Plain(values.copy(), chunks=(100, 100))
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, 1000, size=2000), rng.integers(0, 1000, size=2000)
    new = rng.integers(-9, 0, size=2000)
    lt.from_array(plain)[rows, cols] = new
    values[rows, cols] = new
    np.testing.assert_array_equal(plain.array, values)
    touched = _chunks_touched(rows, cols, (100, 100))
    assert plain.requests == plain.writes == touched < 2000


def test_a_slice_only_array_reads_an_outer_selection_by_chunk_too() -> None:
    values = np.arange(10**6).reshape(1000, 1000)
    plain = Plain(values, chunks=(250, 250))
    rows, cols = np.array([3, 5, 400, 999]), np.array([0, 1, 500, 998])
    got = lt.from_array(plain)[rows][:, cols].numpy()
    np.testing.assert_array_equal(got, values[np.ix_(rows, cols)])
    touched = _chunks_touched(*(g.reshape(-1) for g in np.meshgrid(rows, cols)), (250, 250))
    assert plain.requests == touched < rows.size * cols.size


def test_a_new_backend_is_one_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arraylike, "BACKENDS", list(arraylike.BACKENDS))

    class Points:
        """An array that reads points in one call (`take`) and counts the calls."""

        def __init__(self, values: np.ndarray) -> None:
            self.values, self.shape, self.dtype, self.calls = values, values.shape, values.dtype, 0

        def __getitem__(self, key: Any) -> np.ndarray:
            self.calls += 1
            return self.values[key]

        def take(self, coords: tuple[np.ndarray, ...]) -> np.ndarray:
            self.calls += 1
            return self.values[coords]

    class PointsBackend(Backend):
        kind = "points"
        indexing: ClassVar[Indexing] = Indexing.VECTORIZED

        @classmethod
        def accepts(cls, array: Any) -> bool:
            return isinstance(array, Points)

        def points(self, array: Any, coords: tuple[np.ndarray, ...]) -> Any:
            return array.take(coords)

    array = Points(np.arange(10**6).reshape(1000, 1000))
    t = lt.from_array(array)
    assert t.base.layer_name == "Points"
    rows, cols = np.arange(0, 1000, 7), np.arange(999, 0, -7)
    assert t[rows, cols].tolist() == array.values[rows, cols].tolist()
    assert array.calls == 1
    rows = np.array([1, 500, 998])
    assert t[rows][:, rows].tolist() == array.values[np.ix_(rows, rows)].tolist()  # outer, as points
    assert array.calls == 2
    with pytest.raises(TypeError, match="declares indexing OUTER but defines no outer"):

        class Forgetful(Backend):
            indexing: ClassVar[Indexing] = Indexing.OUTER


# -- xarray in ----------------------------------------------------------------------------------------


def test_from_array_of_an_xarray_over_a_file_reads_lazily(tmp_path: Path) -> None:
    values = np.arange(60.0).reshape(5, 12)
    path = tmp_path / "v.nc"
    xr.DataArray(values, dims=("x", "y"), name="v").to_netcdf(path, engine="h5netcdf")
    t = lt.from_array(xr.open_dataarray(path, engine="h5netcdf"))
    assert t.base.layer_name == "Xarray"
    np.testing.assert_array_equal(t.T[::3, 1:4].numpy(), values.T[::3, 1:4])
    np.testing.assert_array_equal(t[[0, 4, 2], 5].numpy(), values[[0, 4, 2], 5])
    assert t.mean(1).tolist() == values.mean(1).tolist()
    with pytest.raises(ValueError, match="xarray"):
        t[0, 0] = 1.0


def test_from_array_of_an_xarray_dataset_asks_for_one_variable() -> None:
    dataset = xr.Dataset({"t": (("x",), np.ones(3)), "p": (("x",), np.zeros(3))})
    with pytest.raises(
        TypeError, match=r"holds several arrays \(t, p\): pass one, lt\.from_array\(ds\[name\]\)"
    ):
        lt.from_array(dataset)
    assert lt.from_array(dataset["p"]).tolist() == [0.0, 0.0, 0.0]


def test_from_array_of_an_xarray_over_dask_is_its_dask_array() -> None:
    values = np.arange(24.0).reshape(4, 6)
    array = xr.DataArray(da.from_array(values, chunks=2), dims=("x", "y"))
    t = lt.from_array(array)
    assert t.base.layer_name == "Dask"
    total = (t * 2).nansum(0)
    assert total.base.defers_operations and total.tolist() == (values * 2).sum(0).tolist()


# -- lt.open: every format, never a write ---------------------------------------------------------------


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        os.path.relpath(os.path.join(root, name), folder): Path(root, name).read_bytes()
        for root, _, names in os.walk(folder)
        for name in names
    }


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_open_reads_and_writes_zarr_v2_and_v3(tmp_path: Path, zarr_format: int) -> None:
    store = tmp_path / "z.zarr"
    zarr.create_array(
        store=str(store), shape=(3, 4), chunks=(2, 2), dtype="f8", fill_value=0, zarr_format=zarr_format
    )
    t = lt.open(store)
    t.T[1] = 5.0
    assert lt.open(store, mode="r")[:, 1].tolist() == [5.0, 5.0, 5.0]
    assert lt.open(store).sum().item() == 15.0


def test_open_takes_an_array_inside_a_zarr_group_by_its_path(tmp_path: Path) -> None:
    store = tmp_path / "g.zarr"
    zarr.open_group(str(store), mode="w").create_array("sub/a", shape=(3,), dtype="f8", fill_value=4.0)
    assert lt.open(store, "sub/a").tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(ValueError, match=r"g\.zarr: key zarr\.json: not an array zarr can open"):
        lt.open(store)  # a group
    lt.save(tmp_path / "t.npy", lt.arange(3))
    with pytest.raises(ValueError, match=r"t\.npy: a \.npy file holds one array, so there is no 'x' in it"):
        lt.open(tmp_path / "t.npy", "x")


@pytest.mark.parametrize("mode", ["w", "w-", "a", "x", "rw"])
def test_open_never_creates_or_truncates(tmp_path: Path, mode: str) -> None:
    store = tmp_path / "z.zarr"
    zarr.create_array(store=str(store), shape=(3,), chunks=(2,), dtype="f8", fill_value=7)[...] = [
        1.0,
        2.0,
        3.0,
    ]
    before = _snapshot(store)
    with pytest.raises(
        ValueError, match=rf"never creates or truncates, and mode='{mode}'.*mode='r'.*mode='r\+'"
    ):
        lt.open(store, mode=mode)
    with pytest.raises(ValueError, match="never creates"):
        lt.open(tmp_path / "new.zarr", mode=mode)
    assert _snapshot(store) == before and not (tmp_path / "new.zarr").exists()
    assert lt.open(store, mode="r").tolist() == [1.0, 2.0, 3.0]
    assert lt.open(store).sum().item() == 6.0  # opening read-write and reading writes nothing either
    assert _snapshot(store) == before


def test_a_failed_open_changes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "notzarr"
    folder.mkdir()
    (folder / "data.txt").write_text("hello")
    with pytest.raises(ValueError, match=r"not a \.npy file nor a zarr array"):
        lt.open(folder)
    assert _snapshot(folder) == {"data.txt": b"hello"}


@pytest.mark.parametrize("url", ["memory://x", "s3://bucket/a.zarr", "file:///tmp/a.zarr"])
def test_open_refuses_urls_in_one_line(url: str) -> None:
    with pytest.raises(ValueError, match=r"local paths only.*lt\.from_array") as error:
        lt.open(url)
    assert "\n" not in str(error.value)


def test_open_reads_an_hdf5_dataset_by_its_path(tmp_path: Path) -> None:
    path = tmp_path / "f.h5"
    values = np.arange(24.0).reshape(4, 6)
    with h5py.File(path, "w") as file:
        file.create_dataset("group/data", data=values, chunks=(2, 3))
        file.create_dataset("labels", data=np.arange(4))
    t = lt.open(path, "group/data")
    np.testing.assert_array_equal(t.T[::2].numpy(), values.T[::2])
    t[0, 0] = -1.0
    del t
    assert lt.open(path, "/group/data", mode="r")[0, 0].item() == -1.0
    with pytest.raises(ValueError, match=r"holds 2 datasets \(group/data, labels\): name one"):
        lt.open(path)
    with pytest.raises(KeyError, match="no dataset 'nothing'"):
        lt.open(path, "nothing")
    with pytest.raises(ValueError, match="read-only"):
        lt.open(path, "labels", mode="r")[0] = 1


def test_open_reads_a_netcdf_variable_through_xarray(tmp_path: Path) -> None:
    path = tmp_path / "a.nc"
    temperature = np.arange(12.0).reshape(3, 4)
    xr.Dataset({"t": (("x", "y"), temperature), "p": (("x",), np.ones(3))}).to_netcdf(path, engine="h5netcdf")
    t = lt.open(path, "t")
    assert t.T[1:, ::-1].tolist() == temperature.T[1:, ::-1].tolist()
    with pytest.raises(ValueError, match=r"holds 2 variables"):
        lt.open(path)


def test_open_netcdf_without_a_backend_says_how_to_install_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.nc"
    xr.DataArray(np.ones(3), name="v").to_netcdf(path, engine="h5netcdf")
    monkeypatch.setattr(files, "NETCDF_ENGINES", ("no_such_backend",))
    with pytest.raises(ImportError, match=r"pip install -e '\.\[xarray\]'"):
        lt.open(path)


def test_open_of_a_missing_path_names_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing\.h5"):
        lt.open(tmp_path / "missing.h5")


def test_every_kind_reads_the_same_stack_of_views(tmp_path: Path) -> None:
    values = np.arange(math.prod((3, 4, 5)), dtype=np.float64).reshape(3, 4, 5)
    for kind in KINDS:
        t = on_base(kind, values, tmp_path)
        view = t.permute(2, 0, 1)[::-2, [2, 0, 2]][..., 1:]
        np.testing.assert_array_equal(view.numpy(), values.transpose(2, 0, 1)[::-2, [2, 0, 2]][..., 1:])


def test_a_0_d_tensor_saves_and_loads_0_d(tmp_path: Path) -> None:
    lt.save(tmp_path / "s.npy", lt.tensor(2.5))
    assert np.load(tmp_path / "s.npy").shape == ()
    loaded = lt.load(tmp_path / "s.npy")
    assert loaded.shape == () and f"{loaded.exp():.3f}" == f"{np.exp(2.5):.3f}"


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_random_point_reads_of_a_slice_only_array_take_at_most_one_request_per_chunk(
    data: st.DataObject,
) -> None:
    shape = tuple(data.draw(st.lists(st.integers(1, 40), min_size=1, max_size=3), label="shape"))
    chunks = tuple(data.draw(st.integers(1, n), label="chunk") for n in shape)
    declared = data.draw(st.booleans(), label="declared")
    values = np.arange(math.prod(shape)).reshape(shape)
    plain = Plain(values, chunks=chunks if declared else None)
    count = data.draw(st.integers(1, 60), label="count")
    coords = tuple(
        np.asarray(data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count))) for n in shape
    )
    got = lt.from_array(plain)[coords].numpy()
    np.testing.assert_array_equal(got, values[coords])
    grid = chunks if declared else arraylike.virtual_chunks(shape)
    touched = len({tuple(int(c[i]) // g for c, g in zip(coords, grid, strict=True)) for i in range(count)})
    assert 1 <= plain.requests <= touched

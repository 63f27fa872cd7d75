"""HDF5 and netCDF files are opened as carefully as zarr stores: nothing read from another file unless
asked, no FIFO opened, no chunk inflated past a bound, no strided read walking billions of chunks, and
every h5py error one line naming the file and the dataset.

Reaches into `lazytensor.bases.hdf5safe`: its chunk bounds are read, h5py's reads are watched to
see that none spans a huge box of chunks, and `h5py.File` is wrapped (in a child process) to swap a
FIFO in at the path between lazytensor's check and h5py's open.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from typing import Any

import h5netcdf
import h5py
import numpy as np
import pytest
from fuzz_support import assert_one_line, time_limit

import lazytensor as lt
from lazytensor.bases import hdf5safe

SECRET = b"SECRET-BYTES-NOT-IN-THE-FILE" * 4


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.bin"
    path.write_bytes(SECRET)
    return path


def _refused(path: Path, fragment: str, key: str | None = None, **options: Any) -> str:
    with time_limit(20), pytest.raises(ValueError) as caught:
        lt.open(path, key, **options)
    message = str(caught.value)
    assert_one_line(message, str(path), fragment)
    return message


# -- nothing read from another file ------------------------------------------------------------------


def test_external_storage_is_refused_unless_allowed(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    path = tmp_path / "ext.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=(len(SECRET),), dtype="u1", external=[(str(secret), 0, len(SECRET))])
    message = _refused(path, "/x", mode="r")
    assert "another file" in message and "allow_external=True" in message and "SECRET" not in message
    assert lt.open(path, allow_external=True).numpy().tobytes() == SECRET


def test_external_storage_on_etc_passwd_reads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "passwd.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=(16,), dtype="u1", external=[("/etc/passwd", 0, 16)])
    _refused(path, "/etc/passwd")


def test_external_storage_on_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path = tmp_path / "fifo-ext.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=(4,), dtype="u1", external=[(str(fifo), 0, 4)])
    _refused(path, "another file")


def test_a_virtual_dataset_over_another_file_is_refused_unless_allowed(tmp_path: Path) -> None:
    source = tmp_path / "src.h5"
    with h5py.File(source, "w") as f:
        f["s"] = np.arange(10)
    layout = h5py.VirtualLayout(shape=(10,), dtype="i8")
    layout[:] = h5py.VirtualSource(str(source), "s", shape=(10,))
    path = tmp_path / "vds.h5"
    with h5py.File(path, "w") as f:
        f.create_virtual_dataset("v", layout)
    _refused(path, "virtual dataset")
    assert lt.open(path, allow_external=True).tolist() == list(range(10))


def test_a_virtual_dataset_inside_its_own_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "self.h5"
    with h5py.File(path, "w") as f:
        f["s"] = np.arange(6)
        layout = h5py.VirtualLayout(shape=(3,), dtype="i8")
        layout[:] = h5py.VirtualSource(".", "s", shape=(6,))[::2]
        f.create_virtual_dataset("v", layout)
    assert lt.open(path, "v").tolist() == [0, 2, 4]


def test_an_external_link_is_refused_and_a_soft_link_followed(tmp_path: Path) -> None:
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["s"] = np.arange(3)
    path = tmp_path / "links.h5"
    with h5py.File(path, "w") as f:
        f["a"] = np.arange(4)
        f["soft"] = h5py.SoftLink("/a")
        f["far"] = h5py.ExternalLink(str(other), "/s")
        f["g/deeper"] = h5py.SoftLink("/far")
    assert "external link" in _refused(path, str(other), "far")
    _refused(path, "external link", "g/deeper")
    assert lt.open(path, "soft").tolist() == [0, 1, 2, 3]


# -- nothing that is not a regular file ----------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".h5", ".nc"])
@pytest.mark.parametrize("mode", ["r", "r+"])
def test_a_fifo_named_like_a_file_is_refused_before_it_is_opened(
    tmp_path: Path, suffix: str, mode: str
) -> None:
    path = tmp_path / f"pipe{suffix}"
    os.mkfifo(path)
    _refused(path, "FIFO", mode=mode)


@pytest.mark.parametrize("suffix", [".h5", ".nc"])
def test_a_fifo_swapped_in_between_the_check_and_h5pys_open_does_not_hang(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"swapped{suffix}"
    if suffix == ".nc":
        _netcdf(path)
    else:
        with h5py.File(path, "w") as f:
            f["x"] = np.arange(4.0)
    answer = _run_child(
        f"""
        import os, h5py
        import lazytensor as lt

        real = h5py.File
        def swapping(name, *args, **kwargs):  # the path becomes a FIFO just before h5py opens it
            if not os.path.exists({str(path)!r}) or os.path.isfile({str(path)!r}):
                os.unlink({str(path)!r})
                os.mkfifo({str(path)!r})
            return real(name, *args, **kwargs)
        h5py.File = swapping
        try:
            print(lt.open({str(path)!r}, mode="r").tolist())
        except ValueError as error:
            print(error)
        """,
        seconds=30,
    )
    # the file checked is read, or (HDF5 cannot name a file unlinked meanwhile) refused in one line
    assert answer == "[0.0, 1.0, 2.0, 3.0]" or (answer.startswith(f"{path}: ") and "\n" not in answer), answer


def test_a_directory_named_h5_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "folder.h5"
    path.mkdir()
    _refused(path, "directory")


# -- chunks bounded before they are inflated -------------------------------------------------------------


def test_a_chunk_larger_than_the_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.h5"
    n = 1 << 30  # one chunk of 1 GiB, compressed: a few KB on disk
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(n,), chunks=(n,), dtype="u1", compression="gzip")
        ds.id.write_direct_chunk((0,), zlib.compress(b"\0" * (1 << 20)))
    assert os.path.getsize(path) < 1 << 20
    message = _refused(path, "/x")
    assert f"{hdf5safe.MAX_CHUNK_BYTES:,}" in message


def _deflated_zeros(size: int) -> bytes:
    """A zlib stream of `size` zero bytes, made a MiB at a time."""
    compressor = zlib.compressobj(9)
    pieces = [compressor.compress(bytes(1 << 20)) for _ in range(size >> 20)]
    return b"".join([*pieces, compressor.flush()])


def _run_child(code: str, seconds: float = 60) -> str:
    """What a child Python running `code` (from the worktree, with lazytensor importable) prints;
    one still running after `seconds` is killed and the test fails (a hang)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True, text=True, timeout=seconds, cwd=Path(__file__).parents[2],
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child still ran after {seconds} s: a hang")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_small_chunk_whose_stream_inflates_far_past_it_is_refused_before_hdf5_inflates_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "inflating.h5"
    with h5py.File(path, "w") as f:  # a chunk of 1 KiB whose deflate stream inflates to 256 MiB
        ds = f.create_dataset("g/x", shape=(4096,), chunks=(1024,), dtype="u1", compression="gzip")
        ds[:] = np.arange(4096) % 7
        ds.id.write_direct_chunk((2048,), _deflated_zeros(256 << 20))
    assert os.path.getsize(path) < 1 << 20
    grown = _run_child(f"""
        import lazytensor as lt

        def peak():
            return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])

        t = lt.open({str(path)!r}, "g/x", mode="r")
        assert t[:2048].tolist() == [i % 7 for i in range(2048)]
        before = peak()
        try:
            t.sum()
        except ValueError as error:
            print(f"{{(peak() - before) >> 10}} MiB: {{error}}")
    """)
    growth, _, message = grown.partition(" MiB: ")
    assert_one_line(message, f"{path}:/g/x", "chunk at (2048,)", "inflates to more than", "1,024")
    assert int(growth) < 64, grown  # not the 256 MiB the stream inflates to


def test_without_hdf5s_chunk_walk_chunks_are_found_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(3072,), chunks=(1024,), dtype="u1", compression="gzip")
        ds[:] = 1
        ds.id.write_direct_chunk((1024,), _deflated_zeros(32 << 20))

    class OlderHdf5:  # an h5py dataset id without chunk_iter, as over HDF5 before 1.14
        def __init__(self, dsid: Any) -> None:
            self.get_num_chunks, self.get_chunk_info = dsid.get_num_chunks, dsid.get_chunk_info

    walk = hdf5safe._walk_chunks
    monkeypatch.setattr(hdf5safe, "_walk_chunks", lambda dsid, visit: walk(OlderHdf5(dsid), visit))
    t = lt.open(path, mode="r")
    assert t[:1024].tolist() == [1] * 1024 and t[2048:].sum().item() == 1024
    with time_limit(20), pytest.raises(ValueError, match=r"chunk at \(1024,\) inflates"):
        t[1500].item()


def test_a_chunk_stored_larger_than_any_deflate_stream_of_it_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "stored.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(8,), chunks=(8,), dtype="u1", compression="gzip")
        ds.id.write_direct_chunk((0,), zlib.compress(os.urandom(hdf5safe.INFLATE_SLACK + (1 << 16)), 0))
    t = lt.open(path, mode="r")
    with time_limit(20), pytest.raises(ValueError) as caught:
        t.numpy()
    assert_one_line(str(caught.value), f"{path}:/x", "chunk at (0,)", "is stored in")


def test_legitimate_gzip_and_shuffle_chunks_read_whether_checked_or_not(tmp_path: Path) -> None:
    path = tmp_path / "fine.h5"
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (4, 1 << 18), dtype="u1")  # stored about as large: inflated to check
    smooth = np.round(rng.normal(size=(300, 40)), 1)  # stored small: not inflated
    with h5py.File(path, "w") as f:
        f.create_dataset("noise", data=noise, chunks=(1, 1 << 18), compression="gzip", shuffle=True)
        f.create_dataset("smooth", data=smooth, chunks=(10, 40), compression="gzip", fletcher32=True)
    t = lt.open(path, "noise")
    assert np.array_equal(t[::2, 5:].numpy(), noise[::2, 5:]) and np.array_equal(t.numpy(), noise)
    t[1, :4] = 9
    assert t[1, :5].tolist() == [9, 9, 9, 9, int(noise[1, 4])]
    assert np.array_equal(lt.open(path, "smooth", mode="r").T[3].numpy(), smooth.T[3])


def test_a_pipeline_that_compresses_twice_or_through_an_unknown_filter_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "filters.h5"
    with h5py.File(path, "w") as f:
        for name, add in (("twice", lambda p: (p.set_deflate(1), p.set_deflate(9))),
                          ("plugin", lambda p: p.set_filter(32001, h5py.h5z.FLAG_OPTIONAL))):  # fmt: skip
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk((4,))
            add(dcpl)
            h5py.h5d.create(
                f.id, name.encode(), h5py.h5t.NATIVE_INT32, h5py.h5s.create_simple((8,)), dcpl=dcpl
            )
        f.create_dataset(
            "fine", data=np.arange(8), chunks=(4,), compression="gzip", shuffle=True, fletcher32=True
        )
    with h5py.File(path, "a") as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_deflate(4)
        dcpl.set_shuffle()
        h5py.h5d.create(f.id, b"after", h5py.h5t.NATIVE_INT32, h5py.h5s.create_simple((8,)), dcpl=dcpl)
    _refused(path, "deflate → deflate", "twice")
    _refused(path, "transforms the deflate stream", "after")
    _refused(path, "filter 32001", "plugin")
    assert lt.open(path, "fine").tolist() == list(range(8))


# -- h5py's errors as one line -----------------------------------------------------------------------


def test_a_corrupt_compressed_chunk_is_one_line_naming_file_and_dataset(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("grp/x", shape=(40,), chunks=(10,), dtype="f8", compression="gzip")
        ds[:] = np.arange(40.0)
        ds.id.write_direct_chunk((10,), b"not deflate data")
    t = lt.open(path, "grp/x", mode="r")
    assert t[:10].tolist() == list(range(10))
    with pytest.raises(ValueError) as caught:
        t.sum()
    assert_one_line(str(caught.value), f"{path}:/grp/x", "cannot be read")


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda f: f.create_dataset("x", shape=(6,), dtype=np.dtype(("i4", (2,)))), "subarray dtype"),
        (lambda f: f.create_dataset("x", data=h5py.Empty("f4")), "empty dataspace"),
        (lambda f: f.create_dataset("x", data=[f.create_group("g").ref], dtype=h5py.ref_dtype), "references"),
    ],
    ids=["subarray", "empty", "reference"],
)
def test_a_dataset_lazytensor_cannot_read_is_refused_in_one_line(
    tmp_path: Path, make: Any, fragment: str
) -> None:
    path = tmp_path / "odd.h5"
    with h5py.File(path, "w") as f:
        make(f)
    _refused(path, fragment, "x")
    with h5py.File(path, "r") as f, pytest.raises(ValueError, match=fragment):
        lt.from_array(f["x"])


def test_a_tensor_used_after_its_file_closed_says_so(tmp_path: Path) -> None:
    path = tmp_path / "closed.h5"
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(6.0)
    t = lt.open(path)
    t.base.array.file.close()
    for use in (str, lambda t: t.numpy(), lambda t: t.__setitem__(0, 1.0)):
        with pytest.raises(ValueError) as caught:
            use(t)
        assert_one_line(str(caught.value), f"{path}:/x", "closed")


def test_a_missing_or_damaged_key_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "keys.h5"
    with h5py.File(path, "w") as f:
        f["a/b"] = np.arange(2)
    with pytest.raises(KeyError, match="has no dataset 'a'"):
        lt.open(path, "a")
    with pytest.raises(KeyError, match="has no dataset 'nope'"):
        lt.open(path, "nope")
    assert lt.open(path, "/a/b").tolist() == [0, 1]


# -- strided reads of huge declared datasets -----------------------------------------------------------


def _watched(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every key h5py reads or writes; a request whose chunks' box is huge fails before HDF5 walks it."""
    keys: list[Any] = []
    real_get, real_set = h5py.Dataset.__getitem__, h5py.Dataset.__setitem__

    def check(ds: h5py.Dataset, key: Any) -> None:
        keys.append(key)
        if ds.chunks is None or not isinstance(key, tuple):
            return
        box = 1
        for entry, size, chunk in zip(key, ds.shape, ds.chunks, strict=False):
            if isinstance(entry, slice):
                picked = range(*entry.indices(size))
                box *= picked[-1] // chunk - picked[0] // chunk + 1 if picked else 1
        assert box <= hdf5safe.SCANNED_CHUNKS, f"a request of {key} walks {box:,} chunks"

    def get(ds: h5py.Dataset, key: Any, *rest: Any) -> Any:
        check(ds, key)
        return real_get(ds, key, *rest)

    def put(ds: h5py.Dataset, key: Any, value: Any) -> None:
        check(ds, key)
        real_set(ds, key, value)

    monkeypatch.setattr(h5py.Dataset, "__getitem__", get)
    monkeypatch.setattr(h5py.Dataset, "__setitem__", put)
    return keys


def test_a_strided_read_of_a_huge_declared_dataset_touches_only_its_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=(2**40,), chunks=(2,), dtype="f8", fillvalue=1.5)
        f.create_dataset("y", shape=(2**20, 2**20), chunks=(2, 2), dtype="i2")
    keys = _watched(monkeypatch)
    t = lt.open(path, "x")
    assert t[:: 2**38].tolist() == [1.5] * 4
    assert t[:: -(2**39)].tolist() == [1.5] * 2
    t[:: 2**39] = 7.0
    assert t[[0, 2**39]].tolist() == [7.0, 7.0]
    y = lt.open(path, "y")
    assert y[:: 2**18, 5].tolist() == [0] * 4 and y.T[:: 2**19, :: 2**19].shape == (2, 2)
    assert str(y).count("\n") > 2 and keys


def test_a_strided_read_of_a_huge_netcdf_variable_touches_only_its_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.nc"
    with h5netcdf.File(path, "w") as f:
        f.dimensions = {"x": 2**40}
        f.create_variable("v", ("x",), "f8", chunks=(2,))
    keys = _watched(monkeypatch)
    t = lt.open(path)
    assert t[:: 2**39].tolist() == t[[0, 2**39]].tolist()
    assert "1,099,511,627,776" in str(t) and keys


def test_split_requests_read_what_one_request_reads(tmp_path: Path) -> None:
    path = tmp_path / "small.h5"
    values = np.arange(4096 * 3, dtype="i4").reshape(4096, 3)
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=values, chunks=(1, 3))
    t = lt.open(path, mode="r")
    for key in (slice(None, None, 1500), slice(7, None, 2000)):
        plan = hdf5safe.split_key(values.shape, (1, 3), (slice(*key.indices(4096)), slice(0, 3, 1)))
        assert plan is None or len(plan) == math.ceil((4096 - (key.start or 0)) / key.step)
        assert t[key].tolist() == values[key].tolist()
    assert hdf5safe.split_key((2**40, 3), (1, 3), (slice(0, 2**40, 2**38), 1)) is not None


# -- netCDF files get the same checks ------------------------------------------------------------------


def _netcdf(path: Path) -> None:
    with h5netcdf.File(path, "w") as f:
        f.dimensions = {"x": 4}
        v = f.create_variable("v", ("x",), "f8", chunks=(2,), compression="gzip")
        v[:] = np.arange(4.0)


def test_a_netcdf_file_with_external_storage_or_links_is_refused(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    path = tmp_path / "ext.nc"
    _netcdf(path)
    with h5py.File(path, "a") as f:
        f.create_dataset("leak", shape=(len(SECRET),), dtype="u1", external=[(str(secret), 0, len(SECRET))])
    _refused(path, "/leak", "v")
    linked = tmp_path / "linked.nc"
    _netcdf(linked)
    with h5py.File(linked, "a") as f:
        f["far"] = h5py.ExternalLink(str(path), "/v")
    _refused(linked, "external link", "v")


def test_a_corrupt_netcdf_chunk_is_one_line_naming_file_and_variable(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.nc"
    _netcdf(path)
    with h5py.File(path, "a") as f:
        f["v"].id.write_direct_chunk((2,), b"garbage")
    t = lt.open(path)
    assert t[:2].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError) as caught:
        t.numpy()
    assert_one_line(str(caught.value), str(path), "v", "cannot be read")


def test_a_netcdf_chunk_inflating_far_past_it_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    path = tmp_path / "inflating.nc"
    _netcdf(path)
    with h5py.File(path, "a") as f:
        f["v"].id.write_direct_chunk((2,), _deflated_zeros(64 << 20))  # 16 bytes inflating to 64 MiB
    t = lt.open(path)
    assert t[:2].tolist() == [0.0, 1.0] and t[[0, 1]].tolist() == [0.0, 1.0]
    for read in (lambda: t.numpy(), lambda: t[[0, 3]].numpy(), lambda: t[3].item()):
        with time_limit(20), pytest.raises(ValueError) as caught:
            read()
        assert_one_line(str(caught.value), str(path), "v", "chunk at (2,)", "inflates to more than")

"""Making tensors, reading them whole, and .npy files."""

from __future__ import annotations

import os
import pickle
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import lazytensor as lt


def test_tensor_copies_and_infers_dtype() -> None:
    data = np.arange(4.0)
    t = lt.tensor(data)
    data[0] = 9
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert lt.tensor([[1, 2], [3, 4]]).dtype == np.int64
    assert lt.tensor(3.5).shape == () and lt.tensor(3.5).item() == 3.5
    assert lt.tensor([1, 2], dtype=np.float32).dtype == np.float32
    assert lt.tensor([Fraction(1, 3), Fraction(2, 3)]).get((1,)) == Fraction(2, 3)
    assert lt.tensor(lt.arange(3).T).tolist() == [0, 1, 2]


def test_ragged_lists_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="inhomogeneous"):
        lt.tensor([[1, 2], [3]])


def test_tensor_from_a_torch_tensor_without_importing_torch() -> None:
    class FakeTorchTensor:
        __module__ = "torch"

        def detach(self) -> FakeTorchTensor:
            return self

        def cpu(self) -> FakeTorchTensor:
            return self

        def numpy(self) -> np.ndarray:
            return np.array([[1.0, 2.0]], dtype=np.float32)

    t = lt.tensor(FakeTorchTensor())
    assert t.dtype == np.float32 and t.tolist() == [[1.0, 2.0]]


def test_from_numpy_shares_memory_when_contiguous() -> None:
    a = np.zeros((2, 3))
    t = lt.from_numpy(a)
    t[1, 2] = 5
    assert a[1, 2] == 5
    strided = np.zeros((4, 4))[:, ::2]
    assert not lt.from_numpy(strided).shares_storage(strided)
    with pytest.raises(TypeError, match="numpy array"):
        lt.from_numpy([1, 2])  # type: ignore[arg-type]


def test_filled_and_random() -> None:
    assert lt.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert lt.ones((2,), dtype=np.int32).dtype == np.int32
    assert lt.full((2, 2), 7).tolist() == [[7, 7], [7, 7]]
    assert lt.arange(2, 8, 3).tolist() == [2, 5]
    r = lt.trandom(100, 3, seed=1)
    assert r.shape == (100, 3) and (r.numpy() >= -1).all() and (r.numpy() < 1).all()
    assert r.tolist() == lt.trandom(100, 3, seed=1).tolist()


def test_numpy_is_zero_copy_exactly_when_there_is_a_layout() -> None:
    t = lt.arange(12).reshape(3, 4)
    view = t.T[1:]
    assert np.shares_memory(view.numpy(), t.storage)
    view.numpy()[0, 0] = -1  # a writable view of storage, as torch's .numpy()
    assert t[0, 1] == -1
    gathered = t[[0, 2, 1]]
    assert not np.shares_memory(gathered.numpy(), t.storage)
    np.testing.assert_array_equal(np.asarray(gathered), t.numpy()[[0, 2, 1]])
    assert np.asarray(gathered, dtype=np.float32).dtype == np.float32


def test_contiguous_clone_astype() -> None:
    t = lt.arange(6).reshape(2, 3)
    assert t.is_contiguous() and t.contiguous() is t
    tt = t.T
    assert not tt.is_contiguous()
    c = tt.contiguous()
    assert c.is_contiguous() and c.tolist() == tt.tolist() and not c.shares_storage(t)
    assert t[[1, 0]].contiguous().tolist() == [[3, 4, 5], [0, 1, 2]]
    clone = t.clone()
    clone[0, 0] = 100
    assert t[0, 0] == 0
    assert t.astype(np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="size 1"):
        t.item()


def test_object_dtype_views_and_writes() -> None:
    t = lt.tensor([[Fraction(1, 2), Fraction(1, 3)], [Fraction(1, 4), Fraction(1, 5)]])
    assert t.T[0].tolist() == [Fraction(1, 2), Fraction(1, 4)]
    t[[1, 0], 1] = [Fraction(7), Fraction(8)]
    assert t.tolist() == [[Fraction(1, 2), Fraction(8)], [Fraction(1, 4), Fraction(7)]]


def test_save_and_load_memory_mapped(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    lt.save(path, lt.arange(24).reshape(2, 3, 4).T)
    loaded = lt.load(path)
    assert isinstance(loaded.storage, np.memmap)
    np.testing.assert_array_equal(loaded.numpy(), np.arange(24).reshape(2, 3, 4).T)
    with pytest.raises(ValueError, match="read-only"):
        loaded[0, 0, 0] = 1
    assert lt.load(path, mmap=False)[0, 0, 0] == 0


def test_fortran_order_file_loads_as_a_transposed_view(tmp_path: Path) -> None:
    path = tmp_path / "f.npy"
    np.save(path, np.asfortranarray(np.arange(6).reshape(2, 3)))
    loaded = lt.load(path)
    assert isinstance(loaded, lt.TransposedTensor)
    assert loaded.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_bad_files_are_value_errors_naming_the_file(tmp_path: Path) -> None:
    pickled = tmp_path / "object.npy"
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match=r"object\.npy"):
        lt.load(pickled)
    truncated = tmp_path / "truncated.npy"
    np.save(truncated, np.arange(100))
    truncated.write_bytes(truncated.read_bytes()[:200])
    with pytest.raises(ValueError, match=r"truncated\.npy"):
        lt.load(truncated)
    garbage = tmp_path / "garbage.npy"
    garbage.write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(ValueError, match=r"garbage\.npy"):
        lt.load(garbage, mmap=False)
    with pytest.raises(FileNotFoundError):
        lt.load(tmp_path / "missing.npy")
    with pytest.raises(ValueError, match="object"):
        lt.save(tmp_path / "x.npy", lt.tensor([Fraction(1)]))


# -- saving is atomic ------------------------------------------------------------------------------


def test_saving_onto_the_memory_mapped_source_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(12.0).reshape(3, 4))
    lt.save(path, lt.load(path))
    np.testing.assert_array_equal(np.load(path), np.arange(12.0).reshape(3, 4))
    big = tmp_path / "big.npy"
    np.save(big, np.arange(10**6, dtype=np.float64))
    lt.save(big, lt.load(big)[::-1])
    np.testing.assert_array_equal(np.load(big), np.arange(10**6, dtype=np.float64)[::-1])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.npy", "t.npy"]  # no temporary left


def test_a_failed_save_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(5))
    before = path.read_bytes()

    def fail_after_writing(fd: int) -> None:  # the data written, the disk full on the flush
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail_after_writing)
    with pytest.raises(OSError, match=r"t\.npy: no space left on the device"):
        lt.save(path, lt.arange(1000))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.npy"]


def test_save_follows_numpy_naming_and_keeps_permissions(tmp_path: Path) -> None:
    lt.save(tmp_path / "plain", lt.arange(3))  # numpy's rule: `.npy` is appended
    assert np.load(tmp_path / "plain.npy").tolist() == [0, 1, 2]
    target = tmp_path / "kept.npy"
    np.save(target, np.zeros(2))
    target.chmod(0o640)
    lt.save(target, lt.ones(2))
    assert (target.stat().st_mode & 0o777) == 0o640
    link = tmp_path / "link.npy"
    link.symlink_to(target)
    lt.save(link, lt.full((2,), 7.0))
    assert link.is_symlink() and np.load(target).tolist() == [7.0, 7.0]


# -- one error path for files ------------------------------------------------------------------------


def npy_bytes(header: str, version: int = 1) -> bytes:
    """A `.npy` prefix of format `version` holding `header` as its header text."""
    encoded = header.encode("latin1")
    length = len(encoded).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + length + encoded


def header_of(shape: str, descr: str = "<f8") -> str:
    return f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"


CRAFTED = {
    "bool-shape.npy": (npy_bytes(header_of("(True, True)")) + bytes(8), "True"),
    "two-to-63.npy": (npy_bytes(header_of(f"({2**63},)")), "truncated or corrupt"),
    "ten-to-30.npy": (npy_bytes(header_of(f"({10**30},)")), "truncated or corrupt"),
    "product.npy": (npy_bytes(header_of(f"({2**40}, {2**40}, {2**40})")), "truncated or corrupt"),
    "length-1.npy": (b"\x93NUMPY\x01\x00\x01\x00{" + b" " * 64, "corrupt .npy header"),
    "length-10.npy": (b"\x93NUMPY\x01\x00\x0a\x00{'descr': " + b" " * 64, "corrupt .npy header"),
    "brace.npy": (npy_bytes("{"), "corrupt .npy header"),
    "minus.npy": (npy_bytes(header_of("(" + "- " * 3000 + "1,)")), "signs"),
    "nested.npy": (npy_bytes(header_of("(" + "(" * 3000 + "1" + ")" * 3000 + ",)")), "nested"),
    "axes-33.npy": (npy_bytes(header_of("(" + "1, " * 33 + ")", "|u1")) + b"\0", "33 axes"),
    "axes-64.npy": (npy_bytes(header_of("(" + "1, " * 64 + ")", "|u1"), 2) + b"\0", "64 axes"),
    "negative.npy": (npy_bytes(header_of("(-1,)")), "-1"),
    "huge-header.npy": (b"\x93NUMPY\x02\x00\xff\xff\xff\x7f", "at most 10000"),
    "version.npy": (b"\x93NUMPY\x07\x00\x00\x00", "version 7.0"),
    "objects.npy": (npy_bytes(header_of("(1,)", "|O")) + bytes(8), "never unpickles"),
    "no-magic.npy": (b"col1,col2\n1,2\n", "not a .npy file"),
    "empty.npy": (b"", "not a .npy file"),
    "pickle.npy": (pickle.dumps([1, 2, 3]), "pickle"),
    "zip.npy": (b"PK\x03\x04" + bytes(40), "zip"),
    "not-a-dict.npy": (npy_bytes("[1, 2, 3]"), "corrupt .npy header"),
    "bad-descr.npy": (npy_bytes(header_of("(1,)", "<q99")) + bytes(8), "corrupt .npy header"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
@pytest.mark.parametrize("mmap", [True, False])
def test_crafted_files_are_one_line_value_errors(tmp_path: Path, name: str, mmap: bool) -> None:
    content, fragment = CRAFTED[name]
    path = tmp_path / name
    path.write_bytes(content)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning on the way either
        with pytest.raises(ValueError) as caught:
            lt.load(path, mmap=mmap)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert fragment in message
    assert "allow_pickle" not in message


def test_special_files_are_refused_without_opening(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.npy"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"fifo\.npy: is a FIFO"):
        lt.load(fifo)  # would block forever if it were opened for reading
    with pytest.raises(ValueError, match="character device"):
        lt.load("/dev/zero")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        lt.load(tmp_path)
    loop = tmp_path / "loop.npy"
    loop.symlink_to(loop)
    with pytest.raises(ValueError, match=r"loop\.npy: cannot be opened"):
        lt.load(loop)
    with pytest.raises(FileNotFoundError, match=r"missing\.npy: no such file"):
        lt.load(tmp_path / "missing.npy")


def test_text_and_zip_files_say_what_they_are(tmp_path: Path) -> None:
    csv = tmp_path / "data.csv"
    csv.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"data\.csv: not a \.npy file \(it is text\)"):
        lt.load(csv)
    archive = tmp_path / "arrays.npz"
    np.savez(archive, a=np.arange(3))
    with pytest.raises(ValueError, match="zip archive"):
        lt.load(archive)


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((0, 3)),
        np.arange(6, dtype=">i2").reshape(2, 3),
        np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8", (2,))]),
        np.array(["ab", "c"]),
        np.float64(2.5),
        np.ones((1,) * 32, dtype=np.int8),
    ],
    ids=["empty", "big-endian", "structured", "strings", "0-d", "32-axes"],
)
@pytest.mark.parametrize("mmap", [True, False])
def test_well_formed_files_still_load(tmp_path: Path, array: np.ndarray, mmap: bool) -> None:
    path = tmp_path / "ok.npy"
    np.save(path, array)
    loaded = lt.load(path, mmap=mmap).numpy()
    assert loaded.shape == array.shape and loaded.dtype == array.dtype
    np.testing.assert_array_equal(loaded, array)

"""Making tensors, reading them whole, and .npy files."""

from __future__ import annotations

import pickle
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

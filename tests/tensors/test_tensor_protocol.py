"""The protocol every tensor answers (`lazytensor/tensors/tensor.py`): sizes and iteration, contiguity,
copies, shared storage, reading memory as another dtype, the gradient bookkeeping of storage
tensors, and the refusals of a base that is not dask's, each against numpy or PyTorch.

Reaches into `lazytensor.ground.buffers` and `lazytensor.engine.optable`: the machine's memory is
planted, and a table entry is applied lazily to a base that is not dask's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bases_support import on_base

import lazytensor as lt
from lazytensor.ground import buffers


def test_a_0d_tensor_has_no_length_and_no_iteration_as_numpy() -> None:
    with pytest.raises(TypeError, match=r"^len\(\) of a 0-d tensor$"):
        len(lt.tensor(1.0))
    with pytest.raises(TypeError, match=r"^iteration over a 0-d tensor$"):
        next(iter(lt.tensor(1.0)))
    with pytest.raises(TypeError):  # numpy's refusals, for comparison
        len(np.array(1.0))
    with pytest.raises(TypeError):
        iter(np.array(1.0))


@pytest.mark.parametrize(
    "key",
    [(), (slice(None),), (1,), (slice(1, None),), (slice(None), slice(1, None)), ([1, 0],), ([0, 1],)],
    ids=["whole", "all rows", "a row", "trailing rows", "columns", "list reversed", "list in order"],
)
@pytest.mark.parametrize("transposed", [False, True])
def test_contiguity_is_numpys_c_contiguity_and_contiguous_copies_only_what_is_not(
    key: tuple[Any, ...], transposed: bool
) -> None:
    """`is_contiguous()`: the view's elements sit in storage in row-major order, numpy's
    `C_CONTIGUOUS` of the same view of storage (a view without a layout never is); `contiguous()` is
    the tensor itself exactly then, else a C copy of its values."""
    values = np.arange(12.0).reshape(3, 4)
    t = lt.tensor(values)
    view = (t.T if transposed else t)[key]
    expected = (values.T if transposed else values)[key]
    in_storage = view.numpy()
    assert np.shares_memory(in_storage, t.numpy())
    assert view.is_contiguous() == in_storage.flags.c_contiguous
    made = view.contiguous()
    np.testing.assert_array_equal(made.numpy(), expected)
    assert (made is view) == view.is_contiguous()
    assert made.is_contiguous()
    if made is not view:
        assert not made.shares_storage(t)


def test_a_view_without_a_layout_is_not_contiguous() -> None:
    t = lt.arange(6.0)[[4, 0, 2]]
    assert t.layout is None
    assert not t.is_contiguous()
    assert t.contiguous() is not t and t.contiguous().tolist() == [4.0, 0.0, 2.0]


def test_shares_storage_with_an_array_asks_numpy() -> None:
    values = np.arange(6.0)
    t = lt.from_numpy(values)
    assert t.shares_storage(values) and t[2:].shares_storage(values[:3])
    assert not t.shares_storage(values.copy())
    assert t.shares_storage(t[::2]) and not t.shares_storage(lt.arange(6.0))


def test_copies_are_refused_by_their_size_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """`clone()` and `astype()` ask for the bytes of the copy they make (the target dtype's), and
    name it in the MemoryError."""
    t = lt.zeros(10, dtype="float32")  # 40 bytes; as float64, 80
    monkeypatch.setattr(buffers, "physical_memory", lambda: 60)
    assert t.clone().dtype == np.float32
    assert t.astype("int16").dtype == np.int16  # 20 bytes fit
    with pytest.raises(
        MemoryError, match=r"^a copy of shape \(10,\) as float64 needs 80 bytes \(10 elements\)"
    ):
        t.astype("float64")
    monkeypatch.setattr(buffers, "physical_memory", lambda: 30)
    with pytest.raises(MemoryError, match=r"^a copy of shape \(10,\) needs 40 bytes"):
        t.clone()


def test_tolist_is_refused_by_the_size_of_its_python_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """A list of Python floats costs about 32 bytes more per element than the array: `tolist()` asks
    for that much and names itself in the MemoryError."""
    t = lt.zeros(10)  # 80 bytes as an array, 400 as a list
    monkeypatch.setattr(buffers, "physical_memory", lambda: 100)
    with pytest.raises(MemoryError, match=r"^tolist\(\) of shape \(10,\) needs 400 bytes \(10 elements\)"):
        t.tolist()
    assert t[:2].tolist() == [0.0, 0.0]


def test_a_dtype_view_counts_its_writes_with_the_base() -> None:
    """A write through any reinterpreted view is a write into the base's memory: its version goes up,
    so a gradient that saved those values refuses (as PyTorch's `_version`)."""
    values = np.arange(12.0).reshape(3, 4)
    t = lt.tensor(values)
    cases = [
        t.view(np.int64),  # the base itself, the same itemsize
        t.T.view(np.int64),  # a view, the same itemsize
        t[1:].view(np.int32),  # contiguous, another itemsize
        t[::-1].view(np.int32),  # rows anywhere, another itemsize
    ]
    for view in cases:
        before = t.base.version
        view[(0,) * view.ndim] = 7
        assert t.base.version == before + 1 and view.base.version == t.base.version


def test_a_dtype_view_of_another_size_is_numpys_on_every_axis() -> None:
    values = np.arange(24.0).reshape(2, 3, 4)
    t = lt.tensor(values)
    for key in [(), (1,), (slice(None), slice(1, None)), (slice(None, None, -1),), (slice(None), [2, 0])]:
        for target in ("int32", "int16", "complex128"):
            view = t[key].view(target)
            np.testing.assert_array_equal(view.numpy(), values[key].view(target))
            assert view.shape == values[key].view(target).shape


def test_a_dtype_view_of_contiguous_memory_is_contiguous_storage_and_rows_may_start_off_the_grid() -> None:
    """A contiguous tensor read as another dtype is one run of memory: a storage tensor of its own over
    it, contiguous as numpy's view; rows that all start one element past the larger dtype's grid are read from
    that element on."""
    values = np.arange(12.0).reshape(3, 4)
    view = lt.tensor(values)[1:].view("int32")
    assert view.is_contiguous() and values[1:].view("int32").flags.c_contiguous
    assert view.base is view and len(view.layers) == 1  # storage over that run: no layer to walk
    small = np.arange(12, dtype=np.int16).reshape(3, 4)
    got = lt.tensor(small)[::-1, 1:3].view("int32")  # rows start at elements 9, 5 and 1
    np.testing.assert_array_equal(got.numpy(), small[::-1, 1:3].view("int32"))


def test_a_dtype_view_is_refused_with_the_method_named(tmp_path: Path) -> None:
    with pytest.raises(
        TypeError, match=r"^view\(int64\) reads memory as another dtype: a Zarr base has none$"
    ):
        on_base("zarr", np.arange(6.0), tmp_path).view(np.int64)
    with pytest.raises(RuntimeError, match=r"^view\(int64\) of a tensor of shape \(2,\) that requires grad"):
        lt.ones(2, requires_grad=True).view(np.int64)
    with pytest.raises(ValueError, match=r"^view\(int32\) of a tensor of shape \(3, 2\): to change"):
        lt.arange(12.0).reshape(3, 4)[:, ::2].view(np.int32)
    with pytest.raises(ValueError, match=r"^view\(int32\) of a tensor of shape \(4, 2\): its rows start at"):
        lt.arange(12, dtype="int16").reshape(4, 3)[::-1, :2].view(np.int32)


def test_grad_fn_names_no_function_for_an_operand_that_takes_no_gradient() -> None:
    w = lt.ones(2, requires_grad=True)
    assert str((w * lt.ones(2)).grad_fn.next_functions) == "((<AccumulateGrad>, 0), (None, 0))"
    assert str((lt.ones(2) * w).grad_fn.next_functions) == "((None, 0), (<AccumulateGrad>, 0))"


def test_retain_grad_of_a_tensor_without_gradient_is_refused_as_pytorch() -> None:
    with pytest.raises(
        RuntimeError, match=r"^retain_grad on a tensor of shape \(2,\) that does not require grad$"
    ):
        lt.ones(2).retain_grad()


def test_a_base_that_is_not_dasks_refuses_daskss_questions() -> None:
    base = lt.zeros(2).base
    with pytest.raises(AttributeError, match=r"^a tensor over a Storage base has no lazy \(dask\) array$"):
        base.lazy_values(base)
    with pytest.raises(TypeError, match=r"^a Storage base does not defer operations$"):
        base.apply_lazily(lt.engine.optable.ADD, (base, 1), {})
    for ask in (base.postcompute, base.postpersist):
        with pytest.raises(TypeError, match=r"^a Storage base is not a dask collection$"):
            ask(None)


def test_joining_takes_a_non_empty_sequence_of_tensors() -> None:
    t = lt.arange(3.0)
    assert lt.cat([t]).tolist() == [0.0, 1.0, 2.0] and lt.stack((t,)).shape == (1, 3)
    with pytest.raises(TypeError, match=r"^cat takes a non-empty sequence of tensors, got list$"):
        lt.cat([])
    with pytest.raises(TypeError, match=r"^cat takes a non-empty sequence of tensors, got StorageTensor$"):
        lt.cat(t)
    with pytest.raises(TypeError, match=r"^stack takes a non-empty sequence of tensors, got list$"):
        lt.stack([])


def test_the_truth_and_the_item_of_several_elements_are_refused_as_numpy() -> None:
    t = lt.zeros(2, 3)
    with pytest.raises(
        ValueError,
        match=r"^the truth value of a tensor of shape \(2, 3\) with 6 elements is ambiguous; "
        r"use \.any\(\) or \.all\(\)$",
    ):
        bool(t)
    with pytest.raises(
        ValueError, match=r"^can only convert a tensor of size 1 to a Python scalar, not shape \(2, 3\)$"
    ):
        t.item()
    assert lt.tensor([[2.5]]).item() == 2.5 and bool(lt.tensor([[1]])) is True


def test_a_write_of_a_tensors_own_values_in_another_order_is_numpys() -> None:
    """`t[scattered] = t[::-1]`: the values are read from the memory they are written into, so they
    are copied first, as numpy copies an overlapping operand."""
    values = np.arange(5.0)
    t = lt.tensor(values)
    t[[4, 0, 2, 1, 3]] = t[::-1]
    values[[4, 0, 2, 1, 3]] = values[::-1]
    np.testing.assert_array_equal(t.numpy(), values)


def test_a_leafs_gradient_has_the_leafs_dtype_as_pytorchs() -> None:
    """A float32 leaf used with float64 values gets a float32 gradient (PyTorch's rule: `.grad` has
    the dtype of its tensor)."""
    w = lt.ones(3, dtype="float32", requires_grad=True)
    product = w * np.arange(3.0)
    assert product.dtype == np.float64
    product.sum().backward()
    assert w.grad.dtype == np.float32
    np.testing.assert_array_equal(w.grad.numpy(), np.arange(3.0, dtype=np.float32))


def test_a_memory_mapped_storage_says_so_in_its_description(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.arange(6.0))
    assert lt.load(path).base.describe() == "buffer of 6 × float64, memory-mapped"
    assert lt.arange(6.0).base.describe() == "buffer of 6 × float64"

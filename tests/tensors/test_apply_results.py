"""What `apply` hands back (`tensor.apply`, `_result`, `_scratch`, `apply_to_sequence`): a result is a
C array of its own that keeps its writes, whatever path computed it (the resident fast path, a kernel
that returns a numpy scalar); an operand is a tensor whether or not its type was seen before, so its
gradient is recorded; and `requires_grad_` marks a leaf as PyTorch does.

Reaches into `lazytensor.tensors`' `apply`: the table of seen tensor types is emptied, and the
scratch size is the module's own threshold.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from memory_support import peak_bytes

import lazytensor as lt

tensor_module = importlib.import_module("lazytensor.tensors.apply")


@pytest.mark.parametrize("shape", [(2, 3), (4, 1), (3, 5, 2)])
def test_an_elementwise_result_over_a_transposed_view_is_a_c_array_that_keeps_its_writes(
    shape: tuple[int, ...],
) -> None:
    """`t.T + 1` (the resident fast path: a fused view, no gradient) is a new C array, as numpy's
    `np.ascontiguousarray(a.T + 1)`; a write into it is seen and leaves `t` alone."""
    array = np.arange(float(np.prod(shape))).reshape(shape)
    t = lt.tensor(array.copy())
    result = t.T + 1
    expected = array.T + 1
    assert result.numpy().flags.c_contiguous
    np.testing.assert_array_equal(result.numpy(), expected)
    first = (0,) * len(shape)
    result[first] = -7.0
    expected[first] = -7.0
    np.testing.assert_array_equal(result.numpy(), expected)
    np.testing.assert_array_equal(t.numpy(), array)


def test_a_zero_d_result_is_an_array_that_keeps_its_writes() -> None:
    """`v @ v` of two vectors: numpy's kernel gives a numpy scalar; the result is a 0-d array (as
    `np.asarray(v @ v)`), and a write into it is seen."""
    v = lt.tensor([1.0, 5.0, 2.0])
    result = v @ v
    assert type(result.numpy()) is np.ndarray
    assert result.numpy().shape == ()
    assert result.item() == 30.0
    result[()] = 3.0
    assert result.item() == 3.0
    assert v.tolist() == [1.0, 5.0, 2.0]


def test_an_operand_whose_type_was_never_seen_is_a_tensor(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache of tensor types is only a cache: with it empty, `np.add([1, 2], w)` (a list first,
    so the fast path looks no further) still records the gradient of `w`."""
    monkeypatch.setattr(tensor_module, "TENSOR_TYPES", {})
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    result = np.add([3.0, 4.0], w)
    assert result.requires_grad
    (result * result).sum().backward()
    assert w.grad is not None
    assert w.grad.tolist() == [8.0, 12.0]


def test_joining_one_tensor_is_a_copy_of_it() -> None:
    """`cat`/`stack` of a list of one tensor: numpy's `concatenate([a])` and `stack([a])`."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    t = lt.tensor(a)
    np.testing.assert_array_equal(lt.cat([t]).numpy(), np.concatenate([a]))
    np.testing.assert_array_equal(lt.stack((t,)).numpy(), np.stack([a]))


@pytest.mark.parametrize(
    ("join", "tensors", "message"),
    [
        (lt.cat, "tensor", "cat takes a non-empty sequence of tensors, got StorageTensor"),
        (lt.cat, [], "cat takes a non-empty sequence of tensors, got list"),
        (lt.stack, (), "stack takes a non-empty sequence of tensors, got list"),
    ],
    ids=["a tensor, not a sequence", "an empty list", "an empty tuple"],
)
def test_joining_needs_a_non_empty_list_or_tuple(join: object, tensors: object, message: str) -> None:
    """As `torch.cat`: a tensor (which numpy's `concatenate` would split into rows) or an empty
    sequence is a TypeError naming what was given."""
    given = lt.ones((2, 3)) if tensors == "tensor" else tensors
    with pytest.raises(TypeError) as caught:
        join(given)  # type: ignore[operator]
    assert str(caught.value) == message


def test_a_gathered_operand_of_exactly_the_threshold_takes_the_result() -> None:
    """Scratch from `SCRATCH_BYTES` on, that size included: `t[index] * 2` over exactly 256 KiB of
    gathered values writes into them (one array at the peak, not two)."""
    rows = tensor_module.SCRATCH_BYTES // (4 * 4)  # x 4 float32 columns: exactly the threshold
    rng = np.random.default_rng(0)
    array = rng.standard_normal((rows, 4)).astype(np.float32)
    index = rng.permutation(rows)
    view = lt.from_numpy(array)[index]
    np.testing.assert_array_equal((view * 2).numpy(), array[index] * 2)
    assert peak_bytes(lambda: view * 2) < 1.5 * tensor_module.SCRATCH_BYTES


def test_requires_grad_marks_a_leaf_and_returns_it() -> None:
    """`requires_grad_()` (True by default) returns the tensor itself; the next operation on it is
    recorded, through the fast path's door too; `requires_grad_(False)` turns it off again."""
    leaf = lt.tensor([1.0, 2.0])
    assert leaf.requires_grad_() is leaf
    assert leaf.requires_grad
    product = leaf * 3
    assert product.requires_grad
    product.sum().backward()
    assert leaf.grad is not None
    assert leaf.grad.tolist() == [3.0, 3.0]
    assert leaf.requires_grad_(False) is leaf
    assert not leaf.requires_grad
    assert not (leaf * 3).requires_grad


def test_requires_grad_false_is_allowed_on_any_dtype() -> None:
    """Only asking for a gradient needs floats: `requires_grad_(False)` on an int tensor is a no-op,
    as in PyTorch."""
    t = lt.tensor([1, 2])
    assert t.requires_grad_(False) is t
    assert not t.requires_grad
    assert (t + 1).tolist() == [2, 3]


def test_requires_grad_on_an_int_tensor_names_its_dtype_and_shape() -> None:
    t = lt.tensor([[1, 2]], dtype="int32")
    with pytest.raises(TypeError) as caught:
        t.requires_grad_()
    assert str(caught.value) == (
        "only floating and complex tensors can require gradients, not dtype int32 (shape (1, 2))"
    )
    assert not t.requires_grad


def test_requires_grad_on_a_result_is_refused_and_changes_nothing() -> None:
    """A result of an operation is not a leaf; the refusal leaves its gradient recording as it was."""
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    result = w * 2
    with pytest.raises(ValueError) as caught:
        result.requires_grad_(False)
    assert str(caught.value) == "requires_grad_ applies to leaves, not to the result of an operation"
    assert result.requires_grad
    result.sum().backward()
    assert w.grad is not None
    assert w.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("name", ["exp", "sqrt", "tanh", "isnan", "sigmoid"])
def test_a_function_without_a_ufunc_over_big_gathered_values_matches_numpy(name: str) -> None:
    """Functions the table computes with kernels of their own (no numpy ufunc to write into scratch)
    over gathered values above `SCRATCH_BYTES`: new memory, numpy's values."""
    rows = 2 * tensor_module.SCRATCH_BYTES // (4 * 4)
    rng = np.random.default_rng(1)
    array = rng.random((rows, 4)).astype(np.float32)
    index = rng.permutation(rows)
    gathered = array[index]
    expected = {
        "exp": np.exp(gathered),
        "sqrt": np.sqrt(gathered),
        "tanh": np.tanh(gathered),
        "isnan": np.isnan(gathered),
        "sigmoid": 1 / (1 + np.exp(-gathered)),
    }[name]
    result = getattr(lt.from_numpy(array)[index], name)()
    assert result.dtype == expected.dtype
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(array[index], gathered)

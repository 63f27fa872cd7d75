"""Every worked example of the five seed posts, redone with lazytensor, in the posts' order.

    python examples/seed_walkthrough.py

The posts (kept in the project's shared/seeds folder) are:

1. "Implementing Pytorch-like arbitrary dimensional Tensor in Go" (gladuz, 2024; code at
   https://github.com/gladuz/deep-learning-go): strides, `At`, `View`, `DimSlice`.
2. "Tensor computing from scratch part I - Fundamental operations" (2025): the `Tenxor`
   container, `position_to_index`, `tredux`, `tpoint`, broadcasting.
3. "8. TENSOR", a chapter of a Go LLaMA implementation's notes: byte strides, dtypes.
4. "PyTorch Tensors" (rushilg99, 2020): `storage()`, `stride()`, offset, broadcasting.
5. "Tensor computing from scratch part II - Advanced operations" (2025): the printer,
   transposed, reshaped and sliced wrappers, `tmatmul`.

Each example prints the values the post shows. Where a post printed a tensor as text, this
script prints it in the posts' own format, `style="separators"` (`%7.2f ` per value, `---`
between 2-D blocks, `===` between 3-D ones). Where a post's prose or code has a slip, a
comment says so and the script prints what is right; tests/examples/test_seed_walkthrough.py holds
the output to tests/golden/seeds/walkthrough.txt.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

import lazytensor as lt


def heading(title: str) -> None:
    """The start of one post."""
    print()
    print(f"=== {title} ===")


def step(title: str) -> None:
    """The start of one worked example."""
    print(f"--- {title}")


def show(t: lt.AbstractTensor, dims: list[int | None] | None = None) -> None:
    """Print a tensor as the seed posts print it."""
    t.print(dims, style="separators")


def error_of(action: Callable[[], Any]) -> str:
    """The exception `action` raises, as `Type: message` (the examples where the posts fail)."""
    try:
        action()
    except (ValueError, IndexError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    return "no error"


# -- 1. the Go tensor: strides, At, View, DimSlice --------------------------------------------


def go_tensor() -> None:
    heading("1. Implementing Pytorch-like arbitrary dimensional Tensor in Go")

    step("calculateStrides: sizes [3, 5, 4] give strides [20, 4, 1]")
    sizes = lt.zeros(3, 5, 4)
    print("strides", list(sizes.layout.strides))  # a StorageTensor always has a layout
    print("a[0, 0, 0] is data index", sizes.locate((0, 0, 0)))
    print("a[2, 0, 0] is data index", sizes.locate((2, 0, 0)))

    step("At(1, 2, 4) of sizes [3, 4, 5]")
    # The post writes data[3*1 + 4*2 + 5*4] = data[21], multiplying by the sizes; the strides
    # of [3, 4, 5] are [20, 5, 1], so the element is data[20*1 + 5*2 + 1*4] = data[34].
    print("data index", lt.zeros(3, 4, 5).locate((1, 2, 4)))

    step("TestMatrixAt: NewTensor(1..8, [2, 2, 2]).At(1, 0, 1)")
    a = lt.arange(1.0, 9.0).reshape(2, 2, 2)
    print(a[1, 0, 1])

    step("TestMatrixView: b := a.View(4, 2); a.Set(12, 1, 0, 1); b.At(2, 1)")
    b = a.view(4, 2)
    a.set((1, 0, 1), 12.0)
    print(b[2, 1], "shares storage:", b.shares_storage(a))

    step("DimSlice: sizes [2, 5, 6], a[:, 4, :]")
    # The post gives stride [60, 30]; the strides of [2, 5, 6] are [30, 6, 1], and dropping
    # axis 1 keeps [30, 1], with offset 4 * 6 = 24.
    print(lt.zeros(2, 5, 6)[:, 4, :].layout)

    step("TestDimSlice: a.DimSlice(2, 1) of 1..8 in [2, 2, 2], then At(1, 0)")
    a = lt.arange(1.0, 9.0).reshape(2, 2, 2)
    show(a)
    b = a[:, :, 1]
    show(b)
    print("b.At(1, 0) =", b[1, 0])

    step("seed bug: DimSlice of a DimSlice must add the base offset")
    # The Go DimSlice sets the new offset to stride * index, forgetting the offset of the
    # tensor it slices: a.DimSlice(0, 1).DimSlice(0, 1) would read [3, 4] instead of [7, 8].
    row = a[1][1]
    print(row.tolist(), row.layout)


# -- 2. part I: the container, positions, tredux, tpoint --------------------------------------


def part_one() -> None:
    heading("2. Tensor computing from scratch part I - Fundamental operations")

    step("Tenxor([0] * 12, [6, 2])")
    t = lt.tensor([0] * 12).reshape(6, 2)
    print(f"{t.numel()} items with shape {list(t.shape)} and values {t.reshape(-1)[:5].tolist()} ...")

    step("tadd_scalar(t, 5)")
    plus_five = lt.ttransform(t, lambda x: 5 + x)
    print(f"{plus_five.numel()} items with shape {list(plus_five.shape)} and values ", end="")
    print(f"{plus_five.reshape(-1)[:5].tolist()} ...")

    step("tview([6, 2], [-1, 3, 1])")
    print(list(t.reshape(-1, 3, 1).shape))
    print(error_of(lambda: lt.zeros(7, 2).reshape(-1, 3)))

    step("tsqueeze([4, 3, 1], -1), tunsqueeze([4, 3], 0), tunsqueeze([4, 3], -1)")
    print(list(lt.zeros(4, 3, 1).squeeze(-1).shape))
    print(list(lt.zeros(4, 3).unsqueeze(0).shape))
    print(list(lt.zeros(4, 3).unsqueeze(-1).shape))
    print(error_of(lambda: lt.zeros(4, 3).squeeze(0)))

    step("position_to_index([1, 2, 3], [5, 6, 7])")
    print(lt.tenxor.position_to_index([1, 2, 3], [5, 6, 7]))

    step("index_to_position(59, [5, 6, 7])")
    print(lt.tenxor.index_to_position(59, [5, 6, 7]))

    step("next_position([1, 2, 6], [5, 6, 7])")
    p = [1, 2, 6]
    more = lt.tenxor.next_position(p, [5, 6, 7])
    print(p, more)

    step("scanning every position of shape [2, 2, 2]")
    pos, shape = [0, 0, 0], [2, 2, 2]
    has_more, idx = True, 0
    while has_more:
        print(f"Index {idx} corresponds to position {pos} for shape {shape}")
        assert pos == lt.tenxor.index_to_position(idx, shape)
        assert idx == lt.tenxor.position_to_index(pos, shape)
        has_more = lt.tenxor.next_position(pos, shape)
        idx += 1
    print(f"First position out of bounds for shape {shape} is {pos}")

    step("tredux(Tenxor(range(24), (4, 3, 2)), dim, 0, +) for dim 0, 1, 2")
    tx = lt.arange(24).reshape(4, 3, 2)
    for dim in range(3):
        summed = lt.tredux(tx, dim, 0, lambda x, y: x + y)
        print(f"dim {dim}: shape {list(summed.shape)} values {summed.reshape(-1).tolist()}")

    step("broadcast_shapes([5, 1, 3], [7, 1, 4, 3])")
    print(lt.tenxor.broadcast_shapes([5, 1, 3], [7, 1, 4, 3]))

    step("tpoint(Tenxor([1, 2, 3], (3, 1)), Tenxor([1, 2, 3], (1, 3)), *)")
    # (The post's matrix picture of this product has 4 6 8 in its middle row; the values
    # computed, and asserted in the post, are 2 4 6.)
    outer = lt.tpoint(lt.tensor([1, 2, 3]).reshape(3, 1), lt.tensor([1, 2, 3]).reshape(1, 3), operator.mul)
    show(outer)


# -- 3. the Go LLaMA chapter: byte strides and dtypes -----------------------------------------


def go_llama_tensor() -> None:
    heading("3. TENSOR (a Go LLaMA implementation's notes)")

    step("the contiguous matrix of the picture: row 1, column 2")
    # The picture is 3 rows of 4 (the post's [4, 3] lists the row length first); row-major,
    # element (1, 2) is at 1 * 4 + 2 = 6, and holds 6.
    m = lt.arange(12).reshape(3, 4)
    print("index", m.locate((1, 2)), "value", m[1, 2])

    step("the same element as 2-byte values (BF16 in the post): byte address")
    half = m.astype(np.float16)  # 2 bytes per element, as bfloat16
    print("byte strides", half.numpy().strides, "byte address", half.locate((1, 2)) * half.dtype.itemsize)

    step("calculateByteStride([128256, 4096], DT_BF16)")
    layout = lt.Layout.contiguous((128256, 4096))  # the arithmetic alone: no 1 GB buffer
    print([stride * 2 for stride in layout.strides])

    step("calculateByteOffset([3, 19]) of sizes [8192, 64], DT_BF16")
    print(lt.Layout.contiguous((8192, 64)).index((3, 19)) * 2)

    step("the Go dtypes as numpy dtypes: bytes per element")
    # DT_BF16 is ml_dtypes.bfloat16 (from a checkout: pip install -e '.[bfloat16]'), also 2 bytes.
    for name, dtype in (("DT_F32", np.float32), ("DT_UINT16", np.uint16), ("DT_INT32", np.int32)):
        print(name, lt.zeros(2, dtype=dtype).dtype, lt.zeros(2, dtype=dtype).dtype.itemsize)
    print("DT_COMPLEX", lt.zeros(2, dtype=np.complex64).dtype, lt.zeros(2, dtype=np.complex64).dtype.itemsize)


# -- 4. PyTorch tensors: storage, stride, offset, broadcasting ---------------------------------


def pytorch_tensors() -> None:
    heading("4. PyTorch Tensors")

    step("a = tensor([1, 2, 3]); a.storage()")
    a = lt.tensor([1, 2, 3])
    print(a.storage.tolist(), a.storage.dtype, "size", a.storage.size)

    step("b shares a's storage; b[0] = 0 changes a")
    b = a[:]  # a view (the post's `b = a` is the very same object)
    b[0] = 0
    show(b)
    show(a)

    step("matrix of shape (3, 2), int16")
    matrix = lt.tensor([[1, 2], [3, 4], [5, 6]], dtype=np.int16)
    show(matrix)
    print(matrix.shape, matrix.dtype)

    step("matrix [[1, 2, 3], [4, 5, 6]]: storage and stride")
    matrix = lt.tensor([[1, 2, 3], [4, 5, 6]], dtype=np.int16)
    print(matrix.storage.tolist(), "stride", matrix.layout.strides)

    step("offset: the storage index of a view's first element")
    print(matrix[1].layout, "->", matrix[1].tolist())

    step("matrix * vector")
    show(lt.tensor([[1, 2], [3, 4]]) * lt.tensor([5, 6]))

    step("cvector + rvector: shapes (4,) and (3,) do not broadcast")
    cvector: lt.AbstractTensor = lt.tensor([0, 10, 20, 30])
    rvector = lt.tensor([0, 1, 2])
    print(cvector.shape, rvector.shape)
    print(error_of(lambda: cvector + rvector))

    step("cvector.unsqueeze(-1) + rvector")
    cvector = cvector.unsqueeze(-1)
    print(cvector.shape, rvector.shape)
    show(cvector + rvector)


# -- 5. part II: printing, transposed, reshaped and sliced wrappers ----------------------------


def part_two() -> None:
    heading("5. Tensor computing from scratch part II - Advanced operations")

    step("tprint(Tenxor(range(4**5), [4, 2, 2, 4, 4]), (3, None, None, None, None))")
    # The post passes 4**5 = 1024 values for a shape of 256 elements; its Tenxor does not
    # check, and only the first 256 are ever read. lazytensor refuses the mismatch:
    print(error_of(lambda: lt.arange(4**5).reshape(4, 2, 2, 4, 4)))
    show(lt.arange(4**5)[:256].reshape(4, 2, 2, 4, 4), [3, None, None, None, None])

    step("tw, ttranspose(tw), ttranspose(ttranspose(tw))")
    tw = lt.tensor([1, 2, 3, 4, 5, 6]).reshape(2, 3)
    show(tw)
    tt = tw.mT
    show(tt)
    ttt = tt.mT
    show(ttt)
    print("all three share storage:", tt.shares_storage(tw) and ttt.shares_storage(tw))

    step("view_position_to_original_position: (3, 2) positions in a (6,) tensor")
    reshaped = lt.ReshapedTensor(lt.arange(6), (3, 2))
    print(list(reshaped.translate((0, 1))), list(reshaped.translate((2, 1))))

    step("ReshapedTenxor of Tenxor(range(6), [6]) into [2, 3], [3, 2], [6, 1]")
    t = lt.arange(6)
    show(t)
    for shape in ((2, 3), (3, 2), (6, 1)):
        show(lt.ReshapedTensor(t, shape))

    step("compute_sliced_shape([5, 4, 3], ...)")
    full = lt.zeros(5, 4, 3)
    print(list(full.slice([[2, 3], None, 1]).shape))
    print(list(full.slice([3]).shape))
    print(list(full.slice([None, slice(3, 1, -1)]).shape))

    step("sliced_position_to_full_position for [[3, 4], None, slice(3, 0, -1)] of [5, 2, 3]")
    sliced = lt.zeros(5, 2, 3).slice([[3, 4], None, slice(3, 0, -1)])
    assert isinstance(sliced, lt.SlicedTensor)  # one wrapper, whose translate is the post's map
    print(list(sliced.shape))
    subset_pos = [0, 0, 0]
    has_more = True
    while has_more:
        print(f"position {subset_pos} maps to {list(sliced.translate(tuple(subset_pos)))}")
        has_more = lt.tenxor.next_position(subset_pos, list(sliced.shape))

    step("tmatmul([[1, 2, 3], [2, 4, 6]], [[1, 4], [2, 5], [3, 6]])")
    left = lt.tensor([1, 2, 3, 2, 4, 6]).reshape(2, 3)
    right = lt.tensor([1, 4, 2, 5, 3, 6]).reshape(3, 2)
    by_broadcast = (left.unsqueeze(-1) * right.unsqueeze(-3)).sum(-2)  # the post's way
    show(by_broadcast)
    print("equal to left @ right:", lt.array_equal(by_broadcast, left @ right))

    step("t1 = Tenxor(range(20), [4, 5])")
    t1 = lt.arange(20).reshape(4, 5)
    show(t1)

    step("a = t1.slice([[1, 3], slice(0, 5, 2)])")
    a = t1.slice([[1, 3], slice(0, 5, 2)])
    show(a)

    step("at = a.t()")
    at = a.mT
    show(at)

    step("b = t1.slice([[1, 1], slice(4)])")
    b = t1.slice([[1, 1], slice(4)])
    show(b)

    step("bt = b.swapaxes(0, 1)")
    bt = b.swapaxes(0, 1)
    show(bt)

    step("tr = at.matmul(bt.view([2, 4]))")
    tr = at.matmul(bt.view(2, 4))
    show(tr)
    print("bt.view(2, 4) fuses into one layout:", bt.view(2, 4).layout is not None)

    step("seed bug: tmean divides at every step of the fold")
    threes = lt.tensor([3.0, 3.0, 3.0])
    seed_mean = lt.tredux(threes, 0, 0, lambda x, y: (x + y) / threes.shape[0])
    print(f"the post's fold: {seed_mean.item():.4f}; lazytensor's mean: {threes.mean().item():.4f}")

    step("seed bug: transform_values of a wrapper forgets the wrapper")
    # The post's TransposedTenxor.transform_values returns the wrapped tensor's transform,
    # so the result has the untransposed shape (2, 3). ttransform keeps the view's shape.
    show(lt.ttransform(tw.mT, lambda x: 10 * x))


def main() -> None:
    print("The seed posts' worked examples, with lazytensor")
    go_tensor()
    part_one()
    go_llama_tensor()
    pytorch_tensors()
    part_two()


if __name__ == "__main__":
    main()

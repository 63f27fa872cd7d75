"""Reductions over the axes that hide bugs: non-leading axes and tuples of axes, keepdim both ways.

A reduction that mixes up axes still passes on 0-d tensors, on one axis, on square
shapes and when it reduces the leading axis. Every example here has at least two axes
of size >= 2 (`multi_axis_shapes`), the shapes are rarely square, and the axes drawn are
a non-leading int (positive or negative) or a tuple of two or more axes in any order,
with `keepdim` True and False; the input is a view (transposed, flipped, a list index)
as often as not. numpy (`axis=`, `keepdims=`) is the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import multi_axis_shapes

import lazytensor as lt

# 80 examples: each draws one of three axis kinds (non-leading int, tuple, None) and a
# keepdim, so every kind meets both keepdims about a dozen times, on 2- to 4-axis shapes.
AXES = settings(max_examples=80, deadline=None)


@st.composite
def reduced_axes(draw: st.DrawFn, ndim: int) -> Any:
    """A non-leading axis (maybe negative), a tuple of >= 2 distinct axes in any order, or None."""
    kind = draw(st.sampled_from(["non-leading", "non-leading", "tuple", "tuple", "none"]))
    if kind == "none":
        return None
    if kind == "non-leading":
        axis = draw(st.integers(1, ndim - 1))
        return axis - ndim if draw(st.booleans()) else axis
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=2, max_size=ndim, unique=True))
    return tuple(axis - ndim if draw(st.booleans()) else axis for axis in axes)


@st.composite
def tensors(draw: st.DrawFn, dtype: Any) -> tuple[lt.AbstractTensor, np.ndarray]:
    """A tensor of a multi-axis shape, as plain storage or a view, with the numpy array it equals."""
    shape = draw(multi_axis_shapes())
    size = int(np.prod(shape))
    values = np.array(draw(st.lists(st.integers(-4, 4), min_size=size, max_size=size))).astype(dtype)
    kind = draw(st.sampled_from(["plain", "transposed", "flipped", "listed"]))
    if kind == "transposed":
        base = values.reshape(shape[::-1])
        return lt.tensor(base).T, base.T
    a = values.reshape(shape)
    if kind == "flipped":
        return lt.tensor(a[::-1].copy())[::-1], a
    if kind == "listed":
        order = np.argsort(draw(st.permutations(range(shape[-1]))))
        stored = a[..., np.argsort(order)].copy()
        return lt.tensor(stored)[..., order], a
    return lt.tensor(a), a


def same(result: lt.AbstractTensor, expected: Any, exact: bool = True) -> None:
    expected = np.asarray(expected)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    if exact:
        np.testing.assert_array_equal(result.numpy(), expected)
    else:
        np.testing.assert_allclose(result.numpy(), expected, rtol=1e-12, atol=1e-12)


@AXES
@given(st.data(), st.sampled_from([np.int64, np.float64]), st.booleans())
def test_reductions_over_non_leading_axes_and_tuples(data: st.DataObject, dtype: Any, keepdim: bool) -> None:
    """sum, prod, max, min, all, any (exact) and mean, var, std (close) against numpy."""
    t, a = data.draw(tensors(dtype))
    dim = data.draw(reduced_axes(a.ndim), label="dim")
    for name in ["sum", "prod", "max", "min", "all", "any"]:
        same(getattr(t, name)(dim, keepdim), getattr(np, name)(a, axis=dim, keepdims=keepdim))
    for name in ["mean", "var", "std"]:
        same(getattr(t, name)(dim, keepdim), getattr(np, name)(a, axis=dim, keepdims=keepdim), exact=False)
    # numpy's keyword names reach the same code
    same(t.var(axis=dim, keepdims=keepdim), np.var(a, axis=dim, keepdims=keepdim), exact=False)


def arg_reference(a: np.ndarray, dim: Any, keepdim: bool, find: Any) -> np.ndarray:
    """numpy's argmax/argmin over several axes taken together, counted in row-major order of those axes.

    lazytensor's rule (see `AbstractTensor.argmax`): the index counts through the reduced
    axes in the tensor's own axis order, whatever order `dim` lists them in.
    """
    if dim is None:
        dim = tuple(range(a.ndim))
    axes = sorted({axis % a.ndim for axis in ((dim,) if isinstance(dim, int) else dim)})
    kept = [axis for axis in range(a.ndim) if axis not in axes]
    rows = a.transpose(*kept, *axes).reshape(*(a.shape[k] for k in kept), -1)
    index = find(rows, axis=-1)
    if keepdim:
        index = index.reshape([1 if axis in axes else n for axis, n in enumerate(a.shape)])
    return np.asarray(index)


@AXES
@given(st.data(), st.booleans())
def test_argmax_and_argmin_over_non_leading_axes_and_tuples(data: st.DataObject, keepdim: bool) -> None:
    """argmax/argmin: with one axis exactly numpy's; with several, the row-major count over them."""
    t, a = data.draw(tensors(np.int64))
    dim = data.draw(reduced_axes(a.ndim), label="dim")
    if dim is None or isinstance(dim, int):
        same(t.argmax(dim, keepdim), np.argmax(a, axis=dim, keepdims=keepdim))
        same(t.argmin(dim, keepdim), np.argmin(a, axis=dim, keepdims=keepdim))
    same(t.argmax(dim, keepdim), arg_reference(a, dim, keepdim, np.argmax))
    same(t.argmin(dim, keepdim), arg_reference(a, dim, keepdim, np.argmin))


def test_argmax_over_axes_listed_out_of_order_counts_in_the_tensors_axis_order() -> None:
    """argmax(dim=(1, 0)) counts through axis 0 then axis 1 (row-major), exactly as dim=(0, 1).

    The values are chosen so that the other order (axis 1 then axis 0) gives other answers.
    """
    a = np.zeros((2, 3, 4), dtype=np.int64)
    a[0, 2, 0] = 9  # row-major over (0, 1): 0 * 3 + 2 = 2; the other order: 2 * 2 + 0 = 4
    a[1, 0, 1] = 9  # row-major: 1 * 3 + 0 = 3; the other order: 0 * 2 + 1 = 1
    a[1, 2, 2] = 9  # row-major: 5; the other order: 5
    a[0, 1, 3] = 9  # row-major: 1; the other order: 2
    t = lt.tensor(a)
    assert t.argmax(dim=(1, 0)).tolist() == [2, 3, 5, 1]
    assert t.argmax(dim=(0, 1)).tolist() == [2, 3, 5, 1]
    assert t.argmax(dim=(-2, 0), keepdim=True).tolist() == [[[2, 3, 5, 1]]]
    assert (-t).argmin(dim=(1, 0)).tolist() == [2, 3, 5, 1]
    # through a transpose the view's own axis order is the other one: axis 1, then axis 0 of `a`
    assert t.T.argmax(dim=(2, 1)).tolist() == [4, 1, 5, 2]


@pytest.mark.parametrize("keepdim", [False, True])
def test_var_and_std_over_a_non_leading_axis_of_a_non_square_tensor(keepdim: bool) -> None:
    """var/std over axis 1 and over (2, 0) of a (2, 3, 4) tensor, against numpy."""
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 1.5
    t = lt.tensor(a)
    for dim in [1, -1, (2, 0), (0, 1)]:
        same(t.var(dim, keepdim), np.var(a, axis=dim, keepdims=keepdim), exact=False)
        same(t.std(dim, keepdim), np.std(a, axis=dim, keepdims=keepdim), exact=False)
        same(
            t.transpose(0, 2).var(dim, keepdim),
            np.var(a.transpose(2, 1, 0), axis=dim, keepdims=keepdim),
            False,
        )

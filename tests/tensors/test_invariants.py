"""Invariants that whole classes of bugs break at once: every write bumps its storage's version, every
view carries gradients back to the positions it read (real and complex), the table's kinks take
PyTorch's subgradients, creation functions honour their keywords, and a deep trace hides no layer.

Each property stands for a family of hand-planted bugs that once passed the whole suite: a write
path that forgot its version bump, an operation that watched only some operands, a dropped
imaginary part, a clip rule that excluded its boundary, an overflowing elu gradient, a moveaxis
that sorted its destinations, a creation function that ignored `dtype=`, and a trace that elided
one layer too many.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import apply_ops, chains, shapes

import lazytensor as lt

# -- every write bumps the version of the storage it writes ------------------------------------

Write = Callable[[lt.AbstractTensor], None]


def _first(t: lt.AbstractTensor) -> tuple[int, ...]:
    return (0,) * t.ndim


def _write_set(t: lt.AbstractTensor) -> None:
    t.set(_first(t), 7)


def _write_setitem_element(t: lt.AbstractTensor) -> None:
    t[_first(t)] = 7


def _write_setitem_all(t: lt.AbstractTensor) -> None:
    t[...] = 7


def _write_iadd(t: lt.AbstractTensor) -> None:
    t += 1


def _write_imul(t: lt.AbstractTensor) -> None:
    t *= 2


def _write_ufunc_out(t: lt.AbstractTensor) -> None:
    np.add(t, 1, out=t)


WRITES: dict[str, Write] = {
    "set": _write_set,
    "t[pos] = v": _write_setitem_element,
    "t[...] = v": _write_setitem_all,
    "t += 1": _write_iadd,
    "t *= 2": _write_imul,
    "np.add(t, 1, out=t)": _write_ufunc_out,
}


def _writable(ops: list[Any]) -> bool:
    """Whether a chain of view steps can be written through (expand repeats elements: read-only)."""
    return not any(name.startswith("expand") for name, *_ in ops)


@settings(max_examples=60, deadline=None)  # 60 chains × 6 write kinds: every wrapper kind is drawn
@given(chains(), st.sampled_from(sorted(WRITES)))
def test_every_write_through_any_view_bumps_the_storage_version(chain: Any, kind: str) -> None:
    shape, ops = chain
    if not _writable(ops):
        return
    storage = lt.arange(math.prod(shape), dtype=np.float64)
    view, ref = apply_ops(
        storage.reshape(shape), np.arange(math.prod(shape), dtype=np.float64).reshape(shape), ops
    )
    if ref.size == 0:
        return
    before = storage.version
    WRITES[kind](view)
    assert storage.version > before, (
        f"{kind} through {[name for name, *_ in ops]} left the version at {before}"
    )


def test_optimiser_steps_and_zarr_writes_bump_versions() -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    before = w.version
    lt.optim.SGD([w], lr=0.1).step()
    assert w.version > before
    zarr = pytest.importorskip("zarr")
    z = lt.from_array(zarr.zeros((4, 3)))
    for kind, write in WRITES.items():
        if kind == "np.add(t, 1, out=t)":
            continue  # out= needs an in-memory base (numpy writes into the array it is given)
        before = z.base.grad_state.version.value
        write(z.T[1:])
        assert z.base.grad_state.version.value > before, kind


@pytest.mark.parametrize("kind", sorted(WRITES))
def test_a_write_to_a_saved_operand_that_needs_no_gradient_is_caught(kind: str) -> None:
    """`x * w` saves `w` for `x`'s gradient even though `w` needs none: writing `w` afterwards must make
    `backward` refuse, not return a gradient computed from the new values."""
    x = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lt.tensor([[4.0, 5.0, 6.0]])
    y = x * w[0]
    WRITES[kind](w.T[::-1])  # through a view of a view
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("kind", sorted(WRITES))
def test_a_write_to_a_saved_input_through_any_write_path_is_caught(kind: str) -> None:
    """An in-place write to a tensor the graph needs is refused at once outside `no_grad`; inside it,
    the write happens and `backward` refuses instead."""
    x = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1.0
    y = h * h
    with lt.no_grad():
        WRITES[kind](h[1:])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# -- gradients through every view land where the view read ----------------------------------------


@settings(max_examples=80, deadline=None)  # random chains of every view kind, real and complex
@given(chains(), st.sampled_from([np.float64, np.complex128, np.complex64]), st.integers(0, 2**16))
def test_gradients_through_any_view_chain_add_up_where_each_element_came_from(
    chain: Any, dtype: type, seed: int
) -> None:
    shape, ops = chain
    n = math.prod(shape)
    rng = np.random.default_rng(seed)
    w = lt.tensor(np.arange(n).reshape(shape).astype(dtype), requires_grad=True)
    view, sources = apply_ops(w, np.arange(n).reshape(shape), ops)
    weights = rng.uniform(-2, 2, sources.shape)
    if np.dtype(dtype).kind == "c":
        weights = weights + 1j * rng.uniform(-2, 2, sources.shape)
    weights = weights.astype(dtype)
    (view * lt.tensor(weights)).sum().backward()
    expected = np.zeros(n, dtype=dtype)
    np.add.at(expected, sources.reshape(-1), weights.reshape(-1))
    assert w.grad is not None
    assert w.grad.dtype == np.dtype(dtype)
    tol = 1e-5 if dtype is np.complex64 else 1e-12
    np.testing.assert_allclose(w.grad.numpy(), expected.reshape(shape), rtol=tol, atol=tol)


# -- kinks and boundaries: PyTorch's subgradients -------------------------------------------------


def _grad(f: Callable[[lt.AbstractTensor], lt.AbstractTensor], values: list[float]) -> list[float]:
    x = lt.tensor(values, requires_grad=True)
    f(x).sum().backward()
    assert x.grad is not None
    grads: list[float] = x.grad.tolist()
    return grads


def test_clip_passes_the_gradient_at_its_boundaries_as_torch_clamp_does() -> None:
    assert _grad(lambda x: x.clip(lo=0.0), [-1.0, 0.0, 1.0]) == [0.0, 1.0, 1.0]
    assert _grad(lambda x: x.clip(hi=0.0), [-1.0, 0.0, 1.0]) == [1.0, 1.0, 0.0]
    assert _grad(lambda x: x.clip(-1.0, 1.0), [-2.0, -1.0, 0.0, 1.0, 2.0]) == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_relu_and_abs_take_the_zero_subgradient_at_zero() -> None:
    assert _grad(lambda x: x.relu(), [-1.0, 0.0, 2.0]) == [0.0, 0.0, 1.0]
    assert _grad(lambda x: abs(x), [-1.0, 0.0, 2.0]) == [-1.0, 0.0, 1.0]


def test_max_and_min_split_the_gradient_evenly_among_ties() -> None:
    assert _grad(lambda x: x.max(), [1.0, 3.0, 3.0]) == [0.0, 0.5, 0.5]
    assert _grad(lambda x: x.min(), [2.0, 2.0, 2.0, 5.0]) == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
    assert _grad(lambda x: lt.maximum(x, lt.tensor([1.0, 0.0])), [1.0, 1.0]) == [0.5, 1.0]


def test_elu_gradient_is_finite_for_large_inputs() -> None:
    grads = _grad(lt.nn.elu, [1000.0, 1.0, 0.0, -1.0, -1000.0])
    assert np.all(np.isfinite(grads))
    np.testing.assert_allclose(grads, [1.0, 1.0, 1.0, math.exp(-1.0), 0.0])


# -- numpy's functions on tensors: moveaxis with destinations in any order -----------------------


@settings(max_examples=60, deadline=None)  # source/destination pairs of every order on 1-5 axes
@given(st.data())
def test_np_moveaxis_matches_numpy_for_any_source_and_destination_order(data: st.DataObject) -> None:
    shape = data.draw(shapes(max_dims=5, max_side=3).filter(lambda s: len(s) > 0))
    ndim = len(shape)
    count = data.draw(st.integers(1, ndim))
    source = data.draw(st.permutations(range(-ndim, 0)).map(lambda p: list(p[:count])))
    destination = data.draw(st.permutations(range(ndim)).map(lambda p: list(p[:count])))
    ref = np.arange(math.prod(shape)).reshape(shape)
    t = lt.arange(math.prod(shape)).reshape(shape)
    np.testing.assert_array_equal(
        np.asarray(np.moveaxis(t, source, destination)), np.moveaxis(ref, source, destination)
    )


# -- creation functions honour their keywords ----------------------------------------------------

CREATORS: dict[str, Callable[..., lt.AbstractTensor]] = {
    "zeros": lambda **kw: lt.zeros(2, 3, **kw),
    "ones": lambda **kw: lt.ones(2, 3, **kw),
    "full": lambda **kw: lt.full((2, 3), 4, **kw),
    "arange": lambda **kw: lt.arange(6, **kw),
    "linspace": lambda **kw: lt.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: lt.eye(3, **kw),
    "randn": lambda **kw: lt.randn(2, 3, seed=0, **kw),
    "tensor": lambda **kw: lt.tensor([[1, 2], [3, 4]], **kw),
}


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        (name, dtype)
        for name in sorted(CREATORS)
        for dtype in ("float32", np.float16, np.int32, "complex64")
        if not (name == "randn" and dtype is np.int32)  # normal samples are floats (torch refuses ints too)
    ],
)
def test_every_creation_function_honours_dtype(name: str, dtype: Any) -> None:
    made = CREATORS[name](dtype=dtype)
    assert made.dtype == np.dtype(dtype), f"{name}(dtype={dtype!r}) gave {made.dtype}"


@pytest.mark.parametrize("make", [lt.randn, lt.trandom])
def test_random_creation_functions_repeat_with_a_seed_and_differ_without(make: Any) -> None:
    assert make(3, 4, seed=5).tolist() == make(3, 4, seed=5).tolist()
    assert make(3, 4, seed=5).tolist() != make(3, 4, seed=6).tolist()
    assert make(3, 4).tolist() != make(3, 4).tolist()


# -- explain: a deep trace leaves out exactly the layers it says it leaves out -------------------


@pytest.mark.parametrize("transposes", [*range(0, 14), 40])
def test_a_trace_shows_every_layer_or_says_how_many_it_leaves_out(transposes: int) -> None:
    v: lt.AbstractTensor = lt.arange(6).reshape(2, 3)
    for _ in range(transposes):
        v = v.T
    layers = len(v.layers)
    lines = str(v.explain(_first(v))).splitlines()
    kept = [line for line in lines if line.split(" ")[0] in ("Transposed", "Reshaped", "Storage", "…")]
    rows = [line for line in kept if not line.startswith("…")]
    assert rows[0].startswith(v.layers[0].layer_name) and rows[-1].startswith("Storage")
    more = [i for i, line in enumerate(kept) if line.startswith("…")]
    if not more:
        assert len(rows) == layers
        return
    (at,) = more
    omitted = int(kept[at].split()[1].replace(",", ""))
    assert len(rows) + omitted == layers
    assert at == len(kept) - 1 - at  # as many layers shown above the gap as below it


@pytest.mark.parametrize("transposes", [*range(0, 14), 40])
def test_a_layer_tree_shows_every_layer_or_says_how_many_it_leaves_out(transposes: int) -> None:
    v: lt.AbstractTensor = lt.arange(6).reshape(2, 3)
    for _ in range(transposes):
        v = v.T
    labels = [line.lstrip(" └─") for line in str(v.explain()).splitlines() if "strides" not in line]
    more = [i for i, label in enumerate(labels) if label.startswith("…")]
    omitted = sum(int(labels[i].split()[1].replace(",", "")) for i in more)
    assert len(labels) - len(more) + omitted == len(v.layers)
    assert labels[-1].startswith("Storage") and labels[0].startswith(v.layers[0].layer_name)
    assert all(at == len(labels) - 1 - at for at in more)


def test_the_operators_module_and_the_table_agree_on_what_a_write_is() -> None:
    """In-place operators go through the same write path as `t[...] = t op other`."""
    for op, inplace in ((operator.add, operator.iadd), (operator.mul, operator.imul)):
        t = lt.arange(6.0)
        v = t.reshape(2, 3).T
        expected = op(v.numpy().copy(), 2)
        before = t.version
        v = inplace(v, 2)
        np.testing.assert_array_equal(v.numpy(), expected)
        assert t.version > before

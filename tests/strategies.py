"""Hypothesis strategies: random shapes and random chains of views, each paired with numpy.

A chain starts from `arange(n).reshape(shape)`, so the numpy reference's values
are the storage index of every position: reading checks values, and the same
array says where every write must land.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

import lazytensor as lt

Op = tuple[str, Callable[[Any], Any], Callable[[np.ndarray], np.ndarray], bool]
"""(description, lazytensor step, numpy step, whether numpy does it without copying)"""


def shapes(max_dims: int = 5, max_side: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(0, max_side), min_size=0, max_size=max_dims).map(tuple)


def _prime_factors(n: int) -> list[int]:
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


@st.composite
def reshape_targets(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    n = math.prod(shape)
    if n == 0:
        others = draw(st.lists(st.integers(0, 3), max_size=3))
        target = [*others, 0]
        return tuple(draw(st.permutations(target)))
    factors = draw(st.permutations(_prime_factors(n)))
    groups: list[int] = []
    for factor in factors:
        if groups and draw(st.booleans()):
            groups[-1] *= factor
        else:
            groups.append(factor)
    for _ in range(draw(st.integers(0, 2))):
        groups.insert(draw(st.integers(0, len(groups))), 1)
    if len(groups) > 6:
        groups = [math.prod(groups[:-5]), *groups[-5:]]
    return tuple(groups)


@st.composite
def basic_keys(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Ints (negative too), slices with any step, at most one `...`, and None."""
    key: list[Any] = []
    for size in shape:
        kind = draw(st.sampled_from(["int", "slice", "slice", "full"] if size else ["slice", "full"]))
        if kind == "int":
            key.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 2, size + 2)
            step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
            key.append(slice(draw(bound), draw(bound), step))
        else:
            key.append(slice(None))
    if key and draw(st.booleans()):
        start = draw(st.integers(0, len(key)))
        end = draw(st.integers(start, len(key)))
        key[start:end] = [Ellipsis]
    for _ in range(draw(st.integers(0, 2))):
        key.insert(draw(st.integers(0, len(key))), None)
    if all(isinstance(k, int) for k in key):  # an element, not a view: tested on its own
        key.append(Ellipsis)
    return tuple(key)


def index_lists(size: int) -> st.SearchStrategy[list[int]]:
    if size == 0:
        return st.just([])
    return st.lists(st.integers(-size, size - 1), min_size=0, max_size=5)


def _rest(draw: st.DrawFn, shape: tuple[int, ...]) -> list[Any]:
    """Ints and slices for the axes an advanced key leaves to basic indexing."""
    rest: list[Any] = []
    for size in shape:
        if size and draw(st.booleans()):
            rest.append(draw(st.integers(-size, size - 1)))
        else:
            rest.append(slice(None, None, draw(st.sampled_from([1, -1, 2]))))
    return rest


@st.composite
def fancy_keys(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """numpy advanced indexing: a boolean mask over leading axes, or index arrays broadcast together."""
    if not shape:
        return (draw(st.booleans()),)
    if draw(st.booleans()):
        k = draw(st.integers(1, len(shape)))
        n = math.prod(shape[:k])
        mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        return (mask.reshape(shape[:k]), *_rest(draw, shape[k:]))
    block = draw(st.sampled_from([(0,), (2,), (3,), (2, 1), (1, 3), (2, 2)]))
    key = _rest(draw, shape)
    indexed = [axis for axis, size in enumerate(shape) if size > 0] or [0]
    chosen = draw(st.lists(st.sampled_from(indexed), min_size=1, max_size=3, unique=True))
    if any(shape[axis] == 0 for axis in chosen):
        block = (0,)
    for axis in chosen:
        size = shape[axis]
        n = math.prod(block) if size else 0
        values = draw(st.lists(st.integers(-size, size - 1), min_size=n, max_size=n)) if size else []
        key[axis] = np.array(values, dtype=np.intp).reshape(block if size else (0,))
    return tuple(key)


@st.composite
def view_ops(draw: st.DrawFn, shape: tuple[int, ...]) -> Op:
    """One random view step valid for `shape`, for lazytensor and numpy alike."""
    ndim = len(shape)
    kinds = ["reshape", "basic", "unsqueeze", "expand", "fancy"]
    if ndim:
        kinds += ["permute", "swap", "T", "flatten", "oindex", "seed_slice"]
    if 1 in shape:
        kinds.append("squeeze")
    kind = draw(st.sampled_from(kinds))
    if kind == "permute":
        axes = tuple(draw(st.permutations(range(ndim))))
        return f"permute{axes}", lambda t: t.permute(*axes), lambda a: a.transpose(axes), True
    if kind == "swap":
        d0, d1 = draw(st.integers(-ndim, ndim - 1)), draw(st.integers(-ndim, ndim - 1))
        return f"swapaxes({d0}, {d1})", lambda t: t.swapaxes(d0, d1), lambda a: a.swapaxes(d0, d1), True
    if kind == "T":
        return "T", lambda t: t.T, lambda a: a.T, True
    if kind == "reshape":
        target = draw(reshape_targets(shape))
        if target and draw(st.booleans()) and math.prod(target) > 0:
            shown = list(target)
            shown[draw(st.integers(0, len(target) - 1))] = -1
            target_arg: tuple[int, ...] = tuple(shown)
        else:
            target_arg = target
        return f"reshape{target_arg}", lambda t: t.reshape(target_arg), lambda a: a.reshape(target_arg), False
    if kind == "flatten":
        start = draw(st.integers(0, ndim - 1))
        end = draw(st.integers(start, ndim - 1))
        new = (*shape[:start], math.prod(shape[start : end + 1]), *shape[end + 1 :])
        return f"flatten({start}, {end})", lambda t: t.flatten(start, end), lambda a: a.reshape(new), False
    if kind == "squeeze":
        ones = [axis for axis, size in enumerate(shape) if size == 1]
        dim = draw(st.none() | st.sampled_from(ones))
        return f"squeeze({dim})", lambda t: t.squeeze(dim), lambda a: a.squeeze(dim), True
    if kind == "unsqueeze":
        dim = draw(st.integers(-ndim - 1, ndim))
        return f"unsqueeze({dim})", lambda t: t.unsqueeze(dim), lambda a: np.expand_dims(a, dim), True
    if kind == "expand":
        lead = draw(st.lists(st.integers(0, 3), max_size=2))
        target = [*lead, *(draw(st.sampled_from([0, 1, 3])) if s == 1 else s for s in shape)]
        return (
            f"expand{tuple(target)}",
            lambda t: t.expand(*target),
            lambda a: np.broadcast_to(a, tuple(target)),
            True,
        )
    if kind == "basic":
        key = draw(basic_keys(shape))
        return f"[{key}]", lambda t: t[key], lambda a: a[key], True
    if kind == "fancy":
        key = draw(fancy_keys(shape))
        return f"[{key}]", lambda t: t[key], lambda a: a[key], False
    if kind == "oindex":
        lists = [draw(index_lists(size)) if draw(st.booleans()) else slice(None, None, -1) for size in shape]
        return (
            f"oindex{lists}",
            lambda t: t.oindex[tuple(lists)],
            lambda a: a[np.ix_(*_outer(lists, a.shape))],
            False,
        )
    specs = [
        draw(st.none() | (st.integers(-size, size - 1) if size else st.none()) | index_lists(size))
        for size in shape
    ]
    return f"slice({specs})", lambda t: t.slice(specs), lambda a: a[np.ix_(*_seed(specs, a.shape))], False


def _outer(lists: list[Any], shape: tuple[int, ...]) -> list[np.ndarray]:
    return [
        np.arange(size)[spec] if isinstance(spec, slice) else np.array(spec, dtype=np.intp)
        for spec, size in zip(lists, shape, strict=True)
    ]


def _seed(specs: list[Any], shape: tuple[int, ...]) -> list[np.ndarray]:
    out = []
    for spec, size in zip(specs, shape, strict=True):
        if spec is None:
            out.append(np.arange(size))
        elif isinstance(spec, int):
            out.append(np.array([spec % size]))
        else:
            out.append(np.array(spec, dtype=np.intp))
    return out


@st.composite
def chains(draw: st.DrawFn, max_steps: int = 4) -> tuple[tuple[int, ...], list[Op]]:
    shape = draw(shapes())
    ops: list[Op] = []
    current = np.arange(math.prod(shape)).reshape(shape)
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(view_ops(current.shape))
        current = op[2](current)
        ops.append(op)
        if current.size > 2000:
            break
    return shape, ops


def base_pair(shape: tuple[int, ...]) -> tuple[lt.AbstractTensor, np.ndarray]:
    n = math.prod(shape)
    return lt.arange(n).reshape(shape), np.arange(n).reshape(shape)

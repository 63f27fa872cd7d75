"""Hypothesis strategies: random shapes and random chains of views, each paired with numpy.

A chain starts from `arange(n).reshape(shape)`, so the numpy reference's values
are the storage index of every position: reading checks values, and the same
array says where every write must land.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

import lazytensor as lt

Op = tuple[str, Callable[[Any], Any], Callable[[np.ndarray], np.ndarray], bool]
"""(description, lazytensor step, numpy step, whether numpy does it without copying)"""

Shape = tuple[int, ...]


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


# -- shapes that exercise what matters, and stacks that do not fuse ------------------------------


def multi_axis_shapes(min_dims: int = 2, max_dims: int = 4, max_side: int = 5) -> st.SearchStrategy[Shape]:
    """Shapes with at least `min_dims` axes of size 2 or more (non-square most of the time).

    A size-1 axis is sometimes inserted, so squeezing and broadcasting still come up,
    but the axes that make a wrong axis number visible (two or more of size >= 2) are
    always there: a 0-d or one-row example can hide a swapped axis.
    """

    @st.composite
    def build(draw: st.DrawFn) -> Shape:
        sizes = draw(st.lists(st.integers(2, max_side), min_size=min_dims, max_size=max_dims))
        if len(sizes) < max_dims and draw(st.integers(0, 4)) == 0:
            sizes.insert(draw(st.integers(0, len(sizes))), 1)
        return tuple(sizes)

    return build()


def is_progression(values: Sequence[int]) -> bool:
    """Whether the (non-negative) indices are an arithmetic progression, the case that still fuses."""
    return len(values) < 3 or all(b - a == values[1] - values[0] for a, b in itertools.pairwise(values))


@st.composite
def scattered_indices(draw: st.DrawFn, size: int) -> list[int]:
    """An index list along an axis of `size` (>= 2) that is not an arithmetic progression.

    Negative indices appear too; the check is made on the indices they stand for.
    """
    values = draw(
        st.lists(st.integers(0, size - 1), min_size=3, max_size=6).filter(lambda v: not is_progression(v))
    )
    return [v - size if draw(st.booleans()) else v for v in values]


def axes_of_at_least(shape: Shape, size: int) -> list[int]:
    return [axis for axis, n in enumerate(shape) if n >= size]


@st.composite
def scattered_list(draw: st.DrawFn, shape: Shape) -> Op:
    """`t[:, :, [0, 2, 1]]`: a list that is not a progression, on an axis of size >= 2."""
    axis = draw(st.sampled_from(axes_of_at_least(shape, 2)))
    values = draw(scattered_indices(shape[axis]))
    key = (*(slice(None),) * axis, values)
    array_key = (*key[:-1], np.array(values))
    return f"[{':, ' * axis}{values}]", lambda t: t[key], lambda a: a[array_key], False


@st.composite
def unfusing_ops(draw: st.DrawFn, shape: Shape) -> Op:
    """One view step on `shape` (two axes of size >= 2) that does not fuse on a contiguous base.

    - a permutation that puts two axes of size >= 2 out of order, then a reshape merging
      them (`t.T.reshape(-1)`, `t.permute(1, 2, 0).reshape(...)`): numpy would copy;
    - a list that is not an arithmetic progression on any axis (`t[:, [0, 2, 1]]`);
    - an index block of two arrays, adjacent (stays in place: `t[:, [0, 2], [1, 1]]`) or
      separated by a kept axis (the block moves first, as in numpy);
    - a boolean mask over the leading axes that selects a non-progression;
    - `oindex` with a non-progression list (outer indexing, a SlicedTensor).
    """
    big = axes_of_at_least(shape, 2)
    ndim = len(shape)
    kind = draw(st.sampled_from(["permute-reshape", "permute-reshape", "list", "block", "mask", "oindex"]))
    if kind == "permute-reshape":
        i, j = sorted(draw(st.lists(st.sampled_from(big), min_size=2, max_size=2, unique=True)))
        axes = tuple(draw(st.permutations(range(ndim)).filter(lambda p: p.index(j) < p.index(i))))
        permuted = tuple(shape[a] for a in axes)
        first, second = axes.index(j), axes.index(i)
        # merge at least the run of axes that holds both out-of-order axes, so numpy must copy
        merged = (*permuted[:first], math.prod(permuted[first : second + 1]), *permuted[second + 1 :])
        final = draw(st.sampled_from([(-1,), merged, draw(reshape_targets(merged))]))
        return (
            f"permute{axes}.reshape{merged}.reshape{final}",
            lambda t: t.permute(*axes).reshape(merged).reshape(final),
            lambda a: a.transpose(axes).reshape(merged).reshape(final),
            False,
        )
    if kind == "list":
        return draw(scattered_list(shape))
    if kind == "oindex":
        axis = draw(st.sampled_from(big))
        values = draw(scattered_indices(shape[axis]))
        key = (*(slice(None),) * axis, values)
        return (
            f"oindex[{':, ' * axis}{values}]",
            lambda t: t.oindex[key],
            lambda a: np.take(a, np.array(values), axis=axis),
            False,
        )
    if kind == "block":
        pairs = list(itertools.combinations(big, 2))
        adjacent = [(i, j) for i, j in pairs if j == i + 1]
        i, j = draw(st.sampled_from(adjacent if adjacent and draw(st.booleans()) else pairs))
        first = draw(scattered_indices(shape[i]))
        n = len(first)
        second = draw(st.lists(st.integers(-shape[j], shape[j] - 1), min_size=n, max_size=n))
        rows: np.ndarray = np.array(first)
        cols: np.ndarray = np.array(second)
        if draw(st.booleans()):  # a 2-D block: a column broadcast against a row
            rows, cols = rows.reshape(-1, 1), cols[: draw(st.integers(1, n))].reshape(1, -1)
        key_list: list[Any] = [slice(None)] * ndim
        key_list[i], key_list[j] = rows, cols
        key = tuple(key_list)
        where = "adjacent" if j == i + 1 else "separated"
        return f"index block ({where}) on axes {i}, {j}", lambda t: t[key], lambda a: a[key], False
    k = draw(st.integers(1, 2)) if shape[0] >= 4 else 2  # at least 4 mask entries
    n = math.prod(shape[:k])
    if n < 4:  # too small for a scattered mask: a list instead
        return draw(scattered_list(shape))
    chosen = draw(
        st.lists(st.integers(0, n - 1), min_size=3, max_size=n, unique=True)
        .map(sorted)
        .filter(lambda v: not is_progression(v))
    )
    flat = np.zeros(n, dtype=bool)
    flat[chosen] = True
    mask = flat.reshape(shape[:k])
    return f"mask over {k} axes {np.flatnonzero(mask).tolist()}", lambda t: t[mask], lambda a: a[mask], False


@st.composite
def shrinking_ops(draw: st.DrawFn, shape: Shape) -> Op:
    """An edge item or two of every axis (what the printer reads): a small result above a big layer."""
    key: tuple[Any, ...] = tuple(
        draw(st.sampled_from([0, -1, slice(0, 1), slice(-1, None), slice(None, None, max(size - 1, 1))]))
        for size in shape
    )
    if all(isinstance(k, int) for k in key):
        key = (*key, Ellipsis)
    return f"edge items {key}", lambda t: t[key], lambda a: a[key], True


@st.composite
def stretched(draw: st.DrawFn, shape: Shape) -> Op:
    """`t[:, k : k + 1].expand(2, ..., 3, ...)`: one index of an axis, stretched, under a new axis.

    The size-1 axis is a real one-element slice (not an inserted axis, which the layer
    below would drop anyway), so a stretched position that is not sent to 0 reads
    another element.
    """
    axis = draw(st.sampled_from(axes_of_at_least(shape, 2)))
    k = draw(st.integers(0, shape[axis] - 1))
    key = (*(slice(None),) * axis, slice(k, k + 1))
    target = (2, *shape[:axis], 3, *shape[axis + 1 :])
    return (
        f"[{':, ' * axis}{k}:{k + 1}].expand{target}",
        lambda t: t[key].expand(*target),
        lambda a: np.broadcast_to(a[key], target),
        True,
    )


def apply_ops(t: Any, ref: np.ndarray, ops: Sequence[Op]) -> tuple[Any, np.ndarray]:
    """Run a stack of view steps on a tensor and on its numpy reference."""
    for _, lt_step, np_step, _ in ops:
        t, ref = lt_step(t), np_step(ref)
    return t, ref


def describe(ops: Sequence[Op]) -> list[str]:
    return [op[0] for op in ops]


@st.composite
def unfused_stacks(
    draw: st.DrawFn, max_before: int = 2, max_after: int = 3, shrink: bool | None = None
) -> tuple[Shape, list[Op]]:
    """A random stack of views whose top has no strided layout.

    Some random views (any kind, see `view_ops`), one step that does not fuse
    (`unfusing_ops`; when the views below undid its disorder, a scattered list on top of
    it), then more random views above (a transpose or an expand over a fancy view, a
    fancy view over a fancy view, ...). With `shrink`, a last step keeps an edge item or
    two per axis, so the result is small next to the unfused layer: the gather path;
    without, the result is about the size of that layer: the materialise path.
    """
    shape = draw(multi_axis_shapes())
    ops: list[Op] = []
    current = np.arange(math.prod(shape)).reshape(shape)
    for _ in range(draw(st.integers(0, max_before))):
        op = draw(view_ops(current.shape))
        after = op[2](current)
        if len(axes_of_at_least(after.shape, 2)) < 2 or not 0 < after.size <= 600:
            break
        ops.append(op)
        current = after
    op = draw(unfusing_ops(current.shape))
    ops.append(op)
    current = op[2](current)
    if apply_ops(*base_pair(shape), ops)[0].layout is not None:
        op = draw(scattered_list(current.shape))
        ops.append(op)
        current = op[2](current)
    if draw(st.integers(0, 3)) == 0:  # an expand over the fancy view, of an axis that is really there
        op = draw(stretched(current.shape))
        ops.append(op)
        current = op[2](current)
    for _ in range(draw(st.integers(0, max_after))):
        op = draw(view_ops(current.shape))
        after = op[2](current)
        if after.size > 2000:
            break
        ops.append(op)
        current = after
    if (draw(st.booleans()) if shrink is None else shrink) and current.size:
        ops.append(draw(shrinking_ops(current.shape)))
    return shape, ops

"""Every differentiable entry of the operator table against central finite differences (float64).

The check walks `optable.TABLE`: an entry with a backward rule and no input recipe here fails
the suite, so a new differentiable operation cannot land without its gradient being checked.
Each recipe draws random shapes (broadcasting ones for binary operations), and every operand
reaches the operation through a random stack of views over a leaf — transposed, reversed,
list-indexed with repeats, expanded — so the view backward is checked along with the rule.

Reaches into `lazytensor.engine.optable` and `lazytensor.tensors`' `apply`: the walk is over the
operation table, so that a new differentiable entry cannot land unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.engine import optable
from lazytensor.tensors.apply import apply

Rng = np.random.Generator
Recipe = Callable[[Rng], tuple[list[Any], dict[str, Any]]]
"""From a generator: the operands (float arrays become differentiable leaves) and the parameters."""


def _shape(rng: Rng, ndim: int | None = None) -> tuple[int, ...]:
    ndim = int(rng.integers(1, 4)) if ndim is None else ndim
    return tuple(int(n) for n in rng.integers(1, 4, size=ndim))


def _values(rng: Rng, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0) -> np.ndarray:
    """Values spread apart (no two within 0.05), so kinks and ties stay away from the step."""
    count = int(np.prod(shape))
    grid = np.linspace(low, high, num=max(count, 2) * 4)
    return rng.permutation(grid)[:count].reshape(shape)


def _broadcast_pair(rng: Rng) -> tuple[tuple[int, ...], tuple[int, ...]]:
    a = _shape(rng)
    b = list(a[int(rng.integers(0, len(a))) :])
    for axis in range(len(b)):
        if rng.random() < 0.4:
            b[axis] = 1
    return (a, tuple(b)) if rng.random() < 0.5 else (tuple(b), a)


def _binary(low: float = -2.0, high: float = 2.0) -> Recipe:
    def recipe(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
        a, b = _broadcast_pair(rng)
        return [_values(rng, a, low, high), _values(rng, b, low, high)], {}

    return recipe


def _unary(low: float = -2.0, high: float = 2.0) -> Recipe:
    return lambda rng: ([_values(rng, _shape(rng), low, high)], {})


def _reduction(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng, int(rng.integers(1, 4)))
    axes = [axis for axis in range(len(shape)) if rng.random() < 0.5]
    dim: Any = None if rng.random() < 0.2 else (tuple(axes) if len(axes) != 1 else axes[0])
    return [_values(rng, shape)], {"dim": dim, "keepdim": bool(rng.random() < 0.5)}


def _along(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng, int(rng.integers(1, 4)))
    return [_values(rng, shape)], {"dim": int(rng.integers(-len(shape), len(shape)))}


def _matmul(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    n, k, m = (int(x) for x in rng.integers(1, 4, size=3))
    batch = _shape(rng, int(rng.integers(0, 2)))
    forms = [((k,), (k, m)), ((n, k), (k,)), ((*batch, n, k), (k, m)), ((n, k), (*batch, k, m))]
    a, b = forms[int(rng.integers(0, len(forms)))]
    return [_values(rng, a), _values(rng, b)], {}


def _where(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    a, b = _broadcast_pair(rng)
    condition = rng.random(a) < 0.5
    return [condition, _values(rng, a), _values(rng, b)], {}


def _gather(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng, 2)
    dim = int(rng.integers(0, 2))
    index = rng.integers(0, shape[dim], size=(int(rng.integers(1, 4)), shape[1 - dim]))
    index = index if dim == 0 else index.T
    return [_values(rng, shape), index], {"dim": dim}


def _index_add(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng, 2)
    dim = int(rng.integers(0, 2))
    index = rng.integers(0, shape[dim], size=int(rng.integers(1, 5)))
    source = list(shape)
    source[dim] = len(index)
    return [_values(rng, shape), index, _values(rng, tuple(source))], {"dim": dim}


def _segment_sum(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    """Rows of any rank (trailing axes kept), into some segments that receive none."""
    source = _values(rng, (int(rng.integers(1, 6)), *_shape(rng, int(rng.integers(0, 3)))))
    segments = int(rng.integers(1, 5))
    return [source, rng.integers(0, segments, size=source.shape[0])], {"num_segments": segments}


def _scatter_add(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng, 2)
    index = rng.integers(0, shape[0], size=(int(rng.integers(1, 4)), shape[1]))
    return [_values(rng, shape), index, _values(rng, (index.shape[0] + 1, shape[1]))], {"dim": 0}


def _join(new_axis: bool) -> Recipe:
    def recipe(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
        shape = _shape(rng, 2)
        dim = int(rng.integers(0, 3 if new_axis else 2))
        shapes = [shape] * 3
        if not new_axis:
            shapes = [
                tuple(int(rng.integers(1, 4)) if a == dim else n for a, n in enumerate(shape)) for _ in shapes
            ]
        return [_values(rng, s) for s in shapes], {"dim": dim}

    return recipe


def _spread(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    """A reduction's recipe, with numpy's `ddof=1` half the time when two or more elements are reduced."""
    arrays, params = _reduction(rng)
    shape = arrays[0].shape
    axes = range(len(shape)) if params["dim"] is None else np.atleast_1d(params["dim"]).tolist()
    if int(np.prod([shape[a] for a in axes])) >= 2 and rng.random() < 0.5:
        params["ddof"] = 1
    return arrays, params


def _with_a_nan(recipe: Recipe) -> Recipe:
    """The recipe's values with the first element NaN (when there are three or more): the nan-reductions
    skip it, so its gradient is 0 and the others' are those of the plain reduction."""

    def with_nan(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
        arrays, params = recipe(rng)
        if arrays[0].size >= 3:
            arrays[0].reshape(-1)[0] = np.nan
        return arrays, params

    return with_nan


RECIPES: dict[str, Recipe] = {
    "add": _binary(),
    "sub": _binary(),
    "mul": _binary(),
    "truediv": _binary(0.5, 3.0),
    "power": _binary(0.5, 2.0),
    "maximum": _binary(),
    "minimum": _binary(),
    "matmul": _matmul,
    "where": _where,
    "neg": _unary(),
    "pos": _unary(),
    "abs": _unary(),
    "exp": _unary(),
    "log": _unary(0.2, 3.0),
    "sqrt": _unary(0.2, 3.0),
    "tanh": _unary(),
    "sigmoid": _unary(),
    "relu": _unary(),
    "clip": lambda rng: ([_values(rng, _shape(rng))], {"lo": -0.51, "hi": 0.73}),
    "softmax": _along,
    "log_softmax": _along,
    "sum": _reduction,
    "mean": _reduction,
    "prod": _reduction,
    "max": _reduction,
    "min": _reduction,
    "var": _spread,
    "std": _spread,
    "gather": _gather,
    "index_add": _index_add,
    "scatter_add": _scatter_add,
    "segment_sum": _segment_sum,
    "cat": _join(new_axis=False),
    "stack": _join(new_axis=True),
    "nansum": _with_a_nan(_reduction),
    "nanmean": _with_a_nan(_reduction),
    "nanmax": _with_a_nan(_reduction),
    "nanmin": _with_a_nan(_reduction),
    "cumsum": _along,
    "cumprod": _along,
    "sort": _along,
    "round": _unary(),
    "copy": _unary(),
}


# -- the array API standard's entries -------------------------------------------------------------


def _matrices(rng: Rng, batch_ndim: int | None = None) -> np.ndarray:
    """Square matrices far from singular: random values plus 5 on the diagonal."""
    n = int(rng.integers(1, 4))
    batch = _shape(rng, int(rng.integers(0, 2)) if batch_ndim is None else batch_ndim)
    return _values(rng, (*batch, n, n)) + 5 * np.eye(n)


def _solve(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    a = _matrices(rng)
    n = a.shape[-1]
    if rng.random() < 0.4:
        return [a, _values(rng, (n,))], {}
    batch = a.shape[:-2][int(rng.integers(0, len(a.shape) - 1)) :]
    return [a, _values(rng, (*batch, n, int(rng.integers(1, 3))))], {}


def _cross(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    a, b = _broadcast_pair(rng)
    return [_values(rng, (*a, 3)), _values(rng, (*b, 3))], {"axis": -1}


def _vector_norm(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    """Values with no two equal magnitudes and no zero (asymmetric range), so max/min are unique."""
    arrays, params = _reduction(rng)
    order = [2, 1, np.inf, -np.inf, 3, 0][int(rng.integers(0, 6))]
    values = _values(rng, arrays[0].shape, -1.7, 2.3)
    return [values], {"axis": params["dim"], "keepdims": params["keepdim"], "ord": order}


def _matrix_norm(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = (*_shape(rng, int(rng.integers(0, 2))), int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    order = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf][int(rng.integers(0, 8))]
    return [_values(rng, shape, -1.7, 2.3)], {"keepdims": bool(rng.random() < 0.5), "ord": order}


def _take(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng)
    axis = None if rng.random() < 0.3 else int(rng.integers(-len(shape), len(shape)))
    size = int(np.prod(shape)) if axis is None else shape[axis]
    indices = rng.integers(-size, size, size=int(rng.integers(0, 5)))
    values = _values(rng, (int(np.prod(shape)),) if axis is None else shape)
    return [values, indices], {"axis": axis}


def _take_along_axis(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng)
    axis = int(rng.integers(0, len(shape)))
    index_shape = [1 if rng.random() < 0.3 else n for n in shape]
    index_shape[axis] = int(rng.integers(1, 5))
    return [_values(rng, shape), rng.integers(0, shape[axis], size=index_shape)], {"axis": axis}


def _repeat(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng)
    axis = int(rng.integers(0, len(shape)))
    repeats: Any = int(rng.integers(0, 3)) if rng.random() < 0.5 else rng.integers(0, 3, size=shape[axis])
    return [_values(rng, shape)], {"repeats": repeats, "axis": axis}


def _roll(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng)
    axis = None if rng.random() < 0.3 else int(rng.integers(0, len(shape)))
    return [_values(rng, shape)], {"shift": int(rng.integers(-4, 5)), "axis": axis}


def _tile(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    repetitions = tuple(int(n) for n in rng.integers(1, 3, size=int(rng.integers(1, 4))))
    return [_values(rng, _shape(rng))], {"repetitions": repetitions}


def _triangle(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    return [_values(rng, _shape(rng, int(rng.integers(2, 4))))], {"k": int(rng.integers(-2, 3))}


def _diff(rng: Rng) -> tuple[list[Any], dict[str, Any]]:
    shape = _shape(rng)
    return [_values(rng, shape)], {
        "axis": int(rng.integers(-len(shape), len(shape))),
        "n": int(rng.integers(1, 3)),
    }


RECIPES.update(
    {
        "acos": _unary(-0.9, 0.9),
        "acosh": _unary(1.2, 3.0),
        "asin": _unary(-0.9, 0.9),
        "asinh": _unary(),
        "atan": _unary(),
        "atanh": _unary(-0.9, 0.9),
        "cos": _unary(),
        "cosh": _unary(),
        "sin": _unary(),
        "sinh": _unary(),
        "tan": _unary(-1.2, 1.2),
        "expm1": _unary(),
        "log1p": _unary(-0.5, 2.0),
        "log2": _unary(0.2, 3.0),
        "log10": _unary(0.2, 3.0),
        "reciprocal": _unary(0.5, 3.0),
        "square": _unary(),
        # step functions: no grid point lands on an integer (or on 0) inside (-1.9, 1.9)
        "ceil": _unary(-1.9, 1.9),
        "floor": _unary(-1.9, 1.9),
        "trunc": _unary(-1.9, 1.9),
        "sign": _unary(-1.9, 1.9),
        "atan2": _binary(),
        "copysign": _binary(),
        "hypot": _binary(),
        "logaddexp": _binary(),
        "astype": lambda rng: ([_values(rng, _shape(rng))], {"dtype": np.dtype(np.float64)}),
        "diff": _diff,
        "take": _take,
        "take_along_axis": _take_along_axis,
        "repeat": _repeat,
        "roll": _roll,
        "tile": _tile,
        "tril": _triangle,
        "triu": _triangle,
        "inv": lambda rng: ([_matrices(rng)], {}),
        "det": lambda rng: ([_matrices(rng)], {}),
        "solve": _solve,
        "cross": _cross,
        "vector_norm": _vector_norm,
        "matrix_norm": _matrix_norm,
    }
)


def _through_views(rng: Rng, values: np.ndarray) -> tuple[lt.AbstractTensor, lt.StorageTensor]:
    """A view stack showing `values`, over a leaf that holds them in another arrangement."""
    kind = ["plain", "transposed", "reversed", "listed", "expanded"][int(rng.integers(0, 5))]
    if kind == "transposed":
        leaf = lt.tensor(np.ascontiguousarray(values.T), requires_grad=True)
        return leaf.T, leaf
    if kind == "reversed" and values.ndim:
        leaf = lt.tensor(np.ascontiguousarray(values[::-1]), requires_grad=True)
        return leaf[::-1], leaf
    if kind == "listed" and values.ndim:
        order = rng.permutation(values.shape[0])
        leaf = lt.tensor(np.ascontiguousarray(values[np.argsort(order)]), requires_grad=True)
        return leaf[order], leaf
    if kind == "expanded" and values.ndim and values.shape[0] > 1:
        leaf = lt.tensor(values[:1].copy(), requires_grad=True)  # every row repeats the first
        return leaf.expand(values.shape), leaf
    leaf = lt.tensor(values, requires_grad=True)
    return leaf, leaf


def _check(name: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrays, params = RECIPES[name](rng)
    entry = optable.TABLE[name]
    _check_function(name, lambda *operands: apply(entry, *operands, **params), arrays, rng)


def _check_function(
    name: str, function: Callable[..., lt.AbstractTensor], arrays: list[Any], rng: Rng
) -> None:
    """The gradient of a weighted sum of `function(*operands)` against central finite differences,
    every float array reaching it as a differentiable leaf under a random stack of views."""
    operands: list[Any] = []
    leaves: list[lt.StorageTensor] = []
    for array in arrays:
        if array.dtype.kind == "f":
            view, leaf = _through_views(rng, array)
            operands.append(view)
            leaves.append(leaf)
        else:
            operands.append(array)
    out = function(*operands)
    weights = rng.standard_normal(out.shape)
    (out * weights).sum().backward()

    def loss() -> float:
        with lt.no_grad():
            return float((function(*operands).numpy() * weights).sum())

    step = 1e-6
    for leaf in leaves:
        assert leaf.grad is not None, f"{name}: no gradient reached an operand"
        numeric = np.zeros(leaf.shape)
        flat = leaf.numpy().reshape(-1)
        for i in range(flat.size):
            original = flat[i]
            if np.isnan(original):
                continue  # a NaN that a nan-reduction skips: its gradient is 0
            flat[i] = original + step
            above = loss()
            flat[i] = original - step
            below = loss()
            flat[i] = original
            numeric.reshape(-1)[i] = (above - below) / (2 * step)
        got = np.where(np.isnan(leaf.numpy()), np.nan_to_num(leaf.grad.numpy(), nan=1.0), leaf.grad.numpy())
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6, err_msg=name)


DIFFERENTIABLE = sorted(name for name, entry in optable.TABLE.items() if entry.differentiable)


def test_every_differentiable_entry_has_a_recipe() -> None:
    assert sorted(RECIPES) == DIFFERENTIABLE


@pytest.mark.parametrize("name", DIFFERENTIABLE)
@pytest.mark.parametrize("seed", range(6))
def test_gradient_matches_finite_differences(name: str, seed: int) -> None:
    _check(name, seed)


def test_non_differentiable_results_never_require_grad() -> None:
    w = lt.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    results = [w < 0, w == w, w // 2, w % 2, w.argmax(), w.argmin(1), w.all(), w.any(0)]
    results += [lt.ttransform(w, abs), lt.tpoint(w, w, max), lt.tredux(w, 0, 0.0, max)]
    assert not any(r.requires_grad for r in results)
    not_differentiable = {name for name, e in optable.TABLE.items() if not e.differentiable}
    assert not_differentiable >= {"eq", "argmax", "segment_max"}
    assert not lt.segment_max(w, [0, 1], 2).requires_grad


# -- compositions of table entries: their gradients come from the entries' rules -------------------


def _edge_scores(rng: Rng) -> tuple[np.ndarray, np.ndarray, int]:
    """Scores of shape (E,) or (E, heads) on a random multigraph whose targets are not grouped; some
    node receives no edge."""
    num_nodes = int(rng.integers(2, 5))
    edges = int(rng.integers(1, 8))
    dst = rng.integers(0, num_nodes - 1, size=edges)  # the last node receives nothing
    heads = () if rng.random() < 0.4 else (int(rng.integers(1, 4)),)
    return _values(rng, (edges, *heads), -3.0, 3.0), dst, num_nodes


@pytest.mark.parametrize("seed", range(12))
def test_edge_softmax_gradient_matches_finite_differences(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores, dst, num_nodes = _edge_scores(rng)
    _check_function("edge_softmax", lambda s: lt.nn.edge_softmax(s, dst, num_nodes), [scores], rng)


@pytest.mark.parametrize("name", ["leaky_relu", "elu"])
@pytest.mark.parametrize("seed", range(4))
def test_activations_gradient_matches_finite_differences(name: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    activation = getattr(lt.nn, name)
    _check_function(name, activation, [_values(rng, _shape(rng))], rng)


# -- the array API functions that compose table entries and views ------------------------------------

COMPOSITIONS: dict[str, tuple[Callable[..., lt.AbstractTensor], Callable[[Rng], list[Any]]]] = {
    "tensordot": (
        lambda a, b: lt.tensordot(a, b, axes=([1, 0], [0, 2])),
        lambda rng: [_values(rng, (3, 2, 2)), _values(rng, (2, 3, 3))],
    ),
    "tensordot_outer": (
        lambda a, b: lt.tensordot(a, b, axes=0),
        lambda rng: [_values(rng, (2,)), _values(rng, (3,))],
    ),
    "vecdot": (
        lambda a, b: lt.vecdot(a, b, axis=-2),
        lambda rng: [_values(rng, (2, 3, 2)), _values(rng, (3, 1))],
    ),
    "outer": (lt.linalg.outer, lambda rng: [_values(rng, (3,)), _values(rng, (2,))]),
    "trace": (lambda a: lt.linalg.trace(a, offset=-1), lambda rng: [_values(rng, (2, 3, 3))]),
    "matrix_transpose": (lt.matrix_transpose, lambda rng: [_values(rng, (2, 3, 2))]),
    "diagonal": (lambda a: lt.linalg.diagonal(a, offset=1), lambda rng: [_values(rng, (3, 4))]),
    "var_correction": (lambda a: lt.var(a, axis=0, correction=1), lambda rng: [_values(rng, (3, 2))]),
    "std_correction": (lambda a: lt.std(a, axis=(0, 1), correction=1.5), lambda rng: [_values(rng, (3, 2))]),
    "cumulative_sum": (
        lambda a: lt.cumulative_sum(a, axis=1, include_initial=True),
        lambda rng: [_values(rng, (2, 3))],
    ),
    "cumulative_prod": (lambda a: lt.cumulative_prod(a, axis=0), lambda rng: [_values(rng, (3, 2))]),
    "sort_descending": (lambda a: lt.sort(a, axis=0, descending=True), lambda rng: [_values(rng, (4, 2))]),
    "meshgrid": (
        lambda a, b: lt.meshgrid(a, b)[0] * lt.meshgrid(a, b)[1],
        lambda rng: [_values(rng, (3,)), _values(rng, (2,))],
    ),
    "reshape_copy": (lambda a: lt.reshape(a, (3, 2), copy=True), lambda rng: [_values(rng, (2, 3))]),
    "sum_dtype": (lambda a: lt.sum(a, axis=1, dtype=lt.float64), lambda rng: [_values(rng, (2, 3))]),
    "concat_none": (
        lambda a, b: lt.concat([a, b], axis=None),
        lambda rng: [_values(rng, (2, 2)), _values(rng, (3,))],
    ),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
@pytest.mark.parametrize("seed", range(3))
def test_array_api_compositions_differentiate(name: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    function, arrays = COMPOSITIONS[name]
    _check_function(name, function, arrays(rng), rng)


@pytest.mark.parametrize("order", [2, 1, np.inf, -np.inf, 3, 0.5, 0])
@pytest.mark.parametrize("seed", range(2))
def test_vector_norm_gradient_for_every_order(order: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrays, params = _vector_norm(rng)
    params["ord"] = order
    _check_function("vector_norm", lambda x: apply(optable.VECTOR_NORM, x, **params), arrays, rng)


@pytest.mark.parametrize("order", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("seed", range(2))
def test_matrix_norm_gradient_for_every_order(order: float | str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrays, params = _matrix_norm(rng)
    params["ord"] = order
    _check_function("matrix_norm", lambda x: apply(optable.MATRIX_NORM, x, **params), arrays, rng)

"""How each operation of the table runs on chunked (dask) arrays, or why it does not.

Every entry of `optable.TABLE` declares one of two things (a required field, so none can be
forgotten): a `ChunkedForm` that builds the result as a dask array from dask operands, or a
`NoChunkedForm` that says why there is none. A dask-backed tensor then either stays a dask
collection through the operation or refuses it in one line; it never computes its whole base
behind the caller's back.

The builders here cover what the table needs; a new entry picks one:

- `blockwise()`: an elementwise kernel run on each block (operands broadcast, chunks aligned);
- `dask_function("nansum", reduction=True)`: dask's own function of that name (reductions get
  `axis`/`keepdims` from `dim`/`keepdim`);
- `whole_axis()`: the kernel on blocks that hold the whole of the `dim` axis (rechunked so), for
  operations along one axis (`sort`, `argsort`);
- `ChunkedForm(build)`: any function `build(da, kernel, inputs, params)` returning a dask array;
- `refuse("reason")`: no chunked form, and why.

They take the `dask.array` module as an argument, so this module needs no dask to import.

>>> form = dask_function("nansum", reduction=True)
>>> isinstance(form, ChunkedForm), isinstance(refuse("writes by index"), NoChunkedForm)
(True, True)
"""

from __future__ import annotations

import functools
import importlib
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.ground.positions import normalize_dim, normalize_dims
from lazytensor.kernels import callables

Build = Callable[[Any, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]
"""`build(da, kernel, inputs, params)`: the result as a dask array, from the `dask.array` module,
the entry's numpy kernel, the operands (dask arrays, numpy arrays or scalars) and the parameters."""


@attrs.frozen
class UnderErrorState:
    """`kernel` run under numpy's error state of the moment it was made (`np.errstate`): a dask graph
    computes later, on other threads or machines, and its warnings and errors are the operation's,
    as numpy's eager call would have had them. Pickles when the kernel does (for a cluster).

    >>> with np.errstate(divide="ignore"):
    ...     reciprocal = UnderErrorState.now(np.reciprocal)
    >>> with np.errstate(divide="raise"):
    ...     reciprocal(np.array([0.0]))
    array([inf])
    """

    kernel: Callable[..., Any]
    errors: tuple[tuple[str, Any], ...]

    @classmethod
    def now(cls, kernel: Callable[..., Any]) -> UnderErrorState:
        return cls(kernel, tuple(sorted(np.geterr().items())))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with np.errstate(**dict(self.errors)):
            return self.kernel(*args, **kwargs)


@attrs.frozen
class ChunkedForm:
    """An operation's chunked form: a function that builds its result as a dask array."""

    build: Build


def _non_empty(instance: Any, attribute: Any, value: str) -> None:
    if not value.strip():
        raise ValueError("a refusal of a chunked form needs a reason users can act on")


@attrs.frozen
class NoChunkedForm:
    """The declaration that an operation has no chunked form, and why (shown in the error)."""

    reason: str = attrs.field(validator=[attrs.validators.instance_of(str), _non_empty])


Declaration = ChunkedForm | NoChunkedForm


def refuse(reason: str) -> NoChunkedForm:
    """Declare that an operation has no chunked form, for `reason` (the error message says it).

    >>> refuse("it writes into a copy by index").reason
    'it writes into a copy by index'
    """
    return NoChunkedForm(reason)


def is_dask(x: Any) -> bool:
    """Whether `x` is a dask collection (and not a tensor presenting itself as one)."""
    return hasattr(x, "__dask_graph__") and not hasattr(x, "layers")


def _as_block_operand(da: Any, x: Any) -> Any:
    """A dask array for an array operand (broadcast and chunked with the others); a scalar or a 0-d
    array as it is, so each block sees it as the kernel would (weak Python scalars stay weak)."""
    if is_dask(x) or np.ndim(x) == 0:
        return x
    return da.asarray(x)


def _sample(x: Any) -> Any:
    """A one-element stand-in for an operand, of its dtype and number of axes; scalars as they are."""
    if not is_dask(x) and np.ndim(x) == 0:
        return x
    return np.ones((1,) * np.ndim(x), dtype=np.result_type(x))


def result_dtype(
    kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]
) -> np.dtype[Any]:
    """The dtype `kernel` gives on these operands: `dtype` when the caller names it, else the
    kernel's on one-element stand-ins (ones, so a callable that divides works), else the first
    operand's. A user's callable is called once more for this: pass `dtype=` to avoid it.

    >>> result_dtype(np.true_divide, (np.arange(3), 2), {})
    dtype('float64')
    """
    if params.get("dtype") is not None:
        named: np.dtype[Any] = np.dtype(params["dtype"])
        return named
    try:
        probed: np.dtype[Any] = np.asarray(kernel(*map(_sample, inputs), **params)).dtype
        return probed
    except Exception:  # the callable's own error belongs to the real call, on the real values
        first: np.dtype[Any] = np.dtype(np.result_type(inputs[0]))
        return first


def meta(ndim: int, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """dask's `meta`: an empty array of the result's kind, so dask does not call a kernel to guess."""
    return np.empty((0,) * ndim, dtype=dtype)


def _blockwise(
    operand_params: Sequence[str],
    da: Any,
    kernel: Callable[..., Any],
    inputs: tuple[Any, ...],
    params: dict[str, Any],
) -> Any:
    named = {name: params[name] for name in operand_params if name in params}
    rest = {name: value for name, value in params.items() if name not in named}
    operands = tuple(_as_block_operand(da, x) for x in (*inputs, *named.values()))
    names = tuple(named)

    def per_block(*blocks: Any) -> Any:
        head, tail = blocks[: len(inputs)], blocks[len(inputs) :]
        return kernel(*head, **rest, **dict(zip(names, tail, strict=True)))

    dtype = result_dtype(per_block, operands, {})
    ndim = max(np.ndim(x) for x in operands)
    # numpy's broadcasting in blockwise's index notation: axes numbered from the last, as
    # dask's own elementwise operations do; blockwise aligns the chunks of equal axes
    indexed = [(x, tuple(range(x.ndim))[::-1] if is_dask(x) else None) for x in operands]
    pairs = [part for pair in indexed for part in pair]
    return da.blockwise(per_block, tuple(range(ndim))[::-1], *pairs, dtype=dtype, meta=meta(ndim, dtype))


def blockwise(operand_params: Sequence[str] = ()) -> ChunkedForm:
    """The kernel on each block of the broadcast operands: for elementwise kernels, which give each
    position from the operands' values at that position alone. Parameters named in
    `operand_params` (clip's `lo` and `hi`) may be arrays and are broadcast like operands.

    >>> blockwise(("lo", "hi")).build.args
    (('lo', 'hi'),)
    """
    return ChunkedForm(functools.partial(_blockwise, tuple(operand_params)))


def _axis_params(params: dict[str, Any]) -> dict[str, Any]:
    """The table's reduction parameters under numpy's (and dask's) names."""
    renamed: dict[str, Any] = {}
    for name, value in params.items():
        if name == "dim":
            renamed["axis"] = tuple(value) if isinstance(value, list) else value
        elif name == "keepdim":
            renamed["keepdims"] = value
        elif name == "correction":
            renamed["ddof"] = value
        else:
            renamed[name] = value
    return renamed


def _dask_function(
    name: str,
    reduction: bool,
    da: Any,
    kernel: Callable[..., Any],
    inputs: tuple[Any, ...],
    params: dict[str, Any],
) -> Any:
    function = functools.reduce(getattr, name.split("."), da)
    if reduction:
        return function(*inputs, **_axis_params(params))
    return function(*inputs, **params)


def dask_function(name: str, reduction: bool = False) -> ChunkedForm:
    """dask.array's function `name` (dotted for a submodule: `"linalg.norm"`, `"fft.fft"`) on the
    operands, with the parameters as they are; a `reduction` gets `dim`, `keepdim` and
    `correction` as `axis`, `keepdims` and `ddof`.

    >>> import dask.array as da
    >>> fft = dask_function("fft.fft").build(da, np.fft.fft, (da.ones(4, chunks=4),), {})
    >>> fft.compute().real.tolist()
    [4.0, 0.0, 0.0, 0.0]
    """
    return ChunkedForm(functools.partial(_dask_function, name, reduction))


def _whole_axis(
    default_dim: int | None,
    da: Any,
    kernel: Callable[..., Any],
    inputs: tuple[Any, ...],
    params: dict[str, Any],
) -> Any:
    x = inputs[0]
    dim = params.get("dim", default_dim)
    if dim is None or x.ndim == 0:  # numpy's dim=None: the flattened values, in one block
        whole = x.reshape(-1).rechunk(-1)
    else:
        whole = x.rechunk({normalize_dim(dim, x.ndim): -1})
    dtype = result_dtype(kernel, (whole, *inputs[1:]), params)
    return whole.map_blocks(functools.partial(kernel, **params), dtype=dtype, meta=meta(whole.ndim, dtype))


def whole_axis(default_dim: int | None = -1) -> ChunkedForm:
    """The kernel on blocks that each hold the whole `dim` axis (rechunked so; `dim=None`: the
    flattened values in one block; no `dim`: the kernel's default, `default_dim`): exact for any
    operation along one axis that keeps the operand's shape (`sort`, `argsort`). Memory: one
    block holds a whole line of the axis.

    >>> whole_axis().build.args
    (-1,)
    """
    return ChunkedForm(functools.partial(_whole_axis, default_dim))


# -- forms of particular entries ------------------------------------------------------------------


def _arg_extreme(
    name: str, da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]
) -> Any:
    x, dim = inputs[0], params.get("dim")
    if dim is None:
        result = getattr(da, name)(x.reshape(-1), axis=0)
        return result.reshape((1,) * x.ndim) if params.get("keepdim") else result
    result = getattr(da, name)(x, axis=dim)
    return da.expand_dims(result, dim) if params.get("keepdim") else result


def arg_extreme(name: str) -> ChunkedForm:
    """dask's `argmax`/`argmin`, with `dim=None` over the flattened values and `keepdim` kept."""
    return ChunkedForm(functools.partial(_arg_extreme, name))


def _softmax(
    log: bool, da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]
) -> Any:
    x, dim = inputs[0], params["dim"]
    if x.dtype.kind in "biu":
        x = x.astype(np.float64)
    shifted = x - x.max(axis=dim, keepdims=True)
    if log:
        return shifted - da.log(da.exp(shifted).sum(axis=dim, keepdims=True))
    powers = da.exp(shifted)
    return powers / powers.sum(axis=dim, keepdims=True)


def softmax(log: bool = False) -> ChunkedForm:
    """softmax (or log-softmax) from dask's reductions along `dim`: no block holds a whole axis."""
    return ChunkedForm(functools.partial(_softmax, log))


def _scan(
    name: str, da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]
) -> Any:
    x, dim, dtype = inputs[0], params.get("dim"), params.get("dtype")
    if dim is None:
        x, axis = x.reshape(-1), 0
    else:
        axis = normalize_dim(dim, x.ndim)
    running = getattr(np, name)
    result = running(np.ones((1,) * x.ndim, x.dtype), axis=axis, dtype=dtype).dtype
    first = functools.partial(_scan_block, running, axis, dtype)
    after = functools.partial(_scan_after, running, axis, dtype)
    out = f"{name}-exact-{importlib.import_module('dask.base').tokenize(x, axis, dtype)}"
    graph: dict[Any, Any] = {}
    for index in itertools.product(*(range(n) for n in x.numblocks)):
        before = (*index[:axis], index[axis] - 1, *index[axis + 1 :])
        block = (x.name, *index)
        graph[(out, *index)] = (after, block, (out, *before)) if index[axis] else (first, block)
    layers = importlib.import_module("dask.highlevelgraph").HighLevelGraph.from_collections(
        out, graph, dependencies=[x]
    )
    return da.Array(layers, out, chunks=x.chunks, dtype=result, meta=meta(x.ndim, result))


def _scan_block(running: Callable[..., Any], axis: int, dtype: Any, block: Any) -> Any:
    """The first block's running sums (products) along `axis`."""
    return running(block, axis=axis, dtype=dtype)


def _scan_after(running: Callable[..., Any], axis: int, dtype: Any, block: Any, before: Any) -> Any:
    """A block's running sums (products) with the last ones of the block `before` it in front: numpy's
    sequential order, so the values are numpy's to the bit (dask's own `cumsum` adds the blocks'
    totals after scanning each block, which rounds differently).

    >>> _scan_after(np.cumsum, 0, None, np.array([1.0, 2.0]), np.array([4.0, 10.0]))
    array([11., 13.])
    """
    carry = before[(slice(None),) * axis + (slice(-1, None),)]
    joined = np.concatenate([carry, block.astype(carry.dtype, copy=False)], axis=axis)
    return running(joined, axis=axis, dtype=dtype)[(slice(None),) * axis + (slice(1, None),)]


def scan(name: str) -> ChunkedForm:
    """numpy's running `cumsum`/`cumprod` on dask blocks, one block after another along the axis
    (`_scan_after`: numpy's values to the bit), `dim=None` flattened."""
    return ChunkedForm(functools.partial(_scan, name))


def _join(
    name: str, da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]
) -> Any:
    return getattr(da, name)([da.asarray(x) for x in inputs], axis=params.get("dim", 0))


def join(name: str) -> ChunkedForm:
    """dask's `concatenate`/`stack` of the operands along `dim`."""
    return ChunkedForm(functools.partial(_join, name))


def _transform(da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """`ttransform` per block: the callable runs where the block is (a worker of a cluster)."""
    x = inputs[0]
    dtype = result_dtype(callables.transform, inputs, params)
    return x.map_blocks(
        functools.partial(callables.transform, **params), dtype=dtype, meta=meta(x.ndim, dtype)
    )


def _point(da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """`tpoint` per block of the broadcast operands."""
    x, y = da.broadcast_arrays(*(v if is_dask(v) else da.asarray(v) for v in inputs))
    dtype = result_dtype(callables.point, inputs, params)
    return da.map_blocks(
        functools.partial(callables.point, **params), x, y, dtype=dtype, meta=meta(x.ndim, dtype)
    )


def _fold(da: Any, kernel: Callable[..., Any], inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """`tredux` per block: the folded axis made one chunk, so any callable folds in order."""
    x = inputs[0]
    axis = normalize_dim(params["dim"], x.ndim) if x.ndim else 0
    whole = x.rechunk({axis: -1})
    dtype = result_dtype(callables.fold, inputs, params)
    folded = functools.partial(callables.fold, **params)
    if params.get("keepdim"):
        chunks = tuple((1,) if i == axis else c for i, c in enumerate(whole.chunks))
        return whole.map_blocks(folded, chunks=chunks, dtype=dtype, meta=meta(x.ndim, dtype))
    return whole.map_blocks(folded, drop_axis=axis, dtype=dtype, meta=meta(x.ndim - 1, dtype))


TRANSFORM = ChunkedForm(_transform)
POINT = ChunkedForm(_point)
FOLD = ChunkedForm(_fold)


# -- chunked (dask) forms of the entries above that dask's own functions do not give as they are ----
# Each takes the `dask.array` module, the entry's kernel, the operands and the parameters.


def _count_nonzero_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    axes = params.get("axis")
    counted = (x != 0).sum(axis=axes, keepdims=params.get("keepdims", False))
    return counted.astype(np.int64)


def _take_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, indices = inputs
    axis = params.get("axis")
    if axis is None:
        return da.take(x.reshape(-1), np.asarray(indices), axis=0)
    return da.take(x, np.asarray(indices), axis=normalize_dim(axis, x.ndim))


def _searchsorted_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """dask's searchsorted, with numpy's `sorter` (which dask refuses) applied first: searching
    `x[sorter]` is what numpy's `sorter` means."""
    sorted_values, values = (da.asarray(x) for x in inputs)
    sorter = params.get("sorter")
    if sorter is not None:
        sorted_values = sorted_values[np.asarray(sorter)]
    return da.searchsorted(sorted_values, values, side=params.get("side", "left"))


def _repeat_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    repeats = params["repeats"]
    if not isinstance(repeats, int):
        raise TypeError(
            "repeat on a dask-backed tensor takes one int count (dask's repeat); compute it first"
        )
    return da.repeat(inputs[0], repeats, axis=params.get("axis", 0))


def _tile_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return da.tile(inputs[0], params["repetitions"])


def _cross_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """The cross product from the components: each vector axis moved last and picked by lists."""
    axis = params.get("axis", -1)
    a, b = (da.moveaxis(da.asarray(x), axis, -1) for x in inputs)
    after, before = [1, 2, 0], [2, 0, 1]
    product = a[..., after] * b[..., before] - a[..., before] * b[..., after]
    return da.moveaxis(product, -1, axis)


def _vector_norm_chunked(da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """The norms from dask's reductions of the magnitudes (as numpy's `vector_norm` computes them)."""
    x = inputs[0]
    magnitude = abs(x)
    axes = normalize_dims(params.get("axis"), x.ndim)
    keep = params.get("keepdims", False)
    order = params.get("ord", 2)
    if order == np.inf:
        return magnitude.max(axis=axes, keepdims=keep)
    if order == -np.inf:
        return magnitude.min(axis=axes, keepdims=keep)
    if order == 0:
        return (magnitude != 0).sum(axis=axes, keepdims=keep).astype(magnitude.dtype)
    if order == 1:
        return magnitude.sum(axis=axes, keepdims=keep)
    if order == 2:
        return da.sqrt((magnitude * magnitude).sum(axis=axes, keepdims=keep))
    return ((magnitude**order).sum(axis=axes, keepdims=keep)) ** (1.0 / order)


def _shift_chunked(name: str, da: Any, kernel: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return getattr(da.fft, name)(inputs[0], axes=params.get("axes"))


COUNT_NONZERO = ChunkedForm(_count_nonzero_chunked)
TAKE = ChunkedForm(_take_chunked)
SEARCHSORTED = ChunkedForm(_searchsorted_chunked)
REPEAT = ChunkedForm(_repeat_chunked)
TILE = ChunkedForm(_tile_chunked)
CROSS = ChunkedForm(_cross_chunked)
VECTOR_NORM = ChunkedForm(_vector_norm_chunked)


def fft_shift(name: str) -> ChunkedForm:
    """dask's `fftshift`/`ifftshift` (rolls of every named axis)."""
    return ChunkedForm(functools.partial(_shift_chunked, name))


def elementwise_operands(form: Declaration) -> tuple[str, ...] | None:
    """For an elementwise form (`blockwise`, `ttransform`'s, `tpoint`'s), the parameters that are
    operands broadcast with the others (clip's `lo` and `hi`); None for any other form: what a
    computed tensor (`lazytensor.bases.computed`) may compute block by block.

    >>> elementwise_operands(blockwise(("lo", "hi"))), elementwise_operands(TRANSFORM)
    (('lo', 'hi'), ())
    >>> elementwise_operands(whole_axis()) is None
    True
    """
    if form is TRANSFORM or form is POINT:
        return ()
    build = getattr(form, "build", None)
    if isinstance(build, functools.partial) and build.func is _blockwise:
        names: tuple[str, ...] = build.args[0]
        return names
    return None

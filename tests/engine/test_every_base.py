"""Every entry of the operator table on every kind of base: the shape, dtype and values numpy's
kernel gives, full reductions 0-d, and on dask either a dask collection (nothing computed) or
the entry's declared refusal.

The walk is over `optable.TABLE`, as `test_gradcheck` walks it for gradients: an entry gets
its cases from `CASES` (by name) or from the default of its kind of shapes; an entry with
neither fails `test_every_entry_has_cases`, and an entry without a chunked form or a declared
refusal cannot be built at all (`test_an_op_must_declare_its_chunked_form`).

Reaches into `lazytensor.engine.optable`, `lazytensor.engine.chunkforms` and `lazytensor.tensors`'
`apply`: the walk is over the operation table, so that a new entry is checked on every base.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bases_support import KINDS, on_base
from dask.callbacks import Callback
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazytensor as lt
from lazytensor.engine import chunkforms, optable
from lazytensor.tensors.apply import apply

Case = tuple[list[Any], dict[str, Any]]
"""The operands (the first goes on the base under test, the others are in-memory tensors or
scalars) and the parameters."""

_rng = np.random.default_rng(23)


def _floats(*shape: int) -> np.ndarray:
    """Positive values with three decimals (log and sqrt are defined; sums are exact enough)."""
    return _rng.uniform(0.5, 3.0, size=shape).round(3)


def _with_nans(*shape: int) -> np.ndarray:
    values = _floats(*shape)
    values.reshape(-1)[::3] = np.nan
    return values


def _ints(*shape: int) -> np.ndarray:
    return _rng.integers(0, 8, size=shape)


def _unary() -> list[Case]:
    return [([_floats(3, 4)], {}), ([_floats(5)], {}), ([_ints(3, 4) + 1], {})]


def _binary() -> list[Case]:
    return [
        ([_floats(3, 4), _floats(4)], {}),
        ([_floats(2, 3), 2.5], {}),
        ([_floats(4), _floats(3, 1)], {}),
        ([_ints(3, 4).astype(np.int32) + 1, 3], {}),
    ]


def _reductions(make: Callable[..., np.ndarray] = _floats) -> list[Case]:
    dims: list[Any] = [None, 0, -1, [0, 1]]
    cases = [([make(3, 4)], {"dim": dim, "keepdim": keep}) for dim in dims for keep in (False, True)]
    return [
        *cases,
        ([make(2, 3, 2)], {"dim": 1}),
        ([make(5)], {}),
        ([_ints(3, 4).astype(np.int16) + 1], {"dim": 0}),
    ]


def _arg_reductions() -> list[Case]:
    return [
        ([_floats(3, 4)], {"dim": dim, "keepdim": keep}) for dim in (None, 0, -1) for keep in (False, True)
    ]


def _along(dims: tuple[Any, ...]) -> list[Case]:
    return [([_floats(3, 4)], {"dim": dim}) for dim in dims]


def _bitwise() -> list[Case]:
    return [([_ints(3, 4), _ints(4)], {}), ([_ints(5), 3], {})]


DEFAULTS: dict[str, Callable[[], list[Case]]] = {"same": _unary, "broadcast": _binary, "reduce": _reductions}
"""Cases for an entry of this kind of shapes that `CASES` does not name."""

CASES: dict[str, Callable[[], list[Case]]] = {
    **dict.fromkeys(("and", "or", "xor", "lshift", "rshift"), _bitwise),
    "invert": lambda: [([_ints(3, 4)], {})],
    "matmul": lambda: [([_floats(3, 4), _floats(4, 2)], {}), ([_floats(4), _floats(4, 2)], {})],
    "where": lambda: [([_floats(3, 4) > 1.5, _floats(3, 4), _floats(4)], {})],
    "clip": lambda: [
        ([_floats(3, 4)], {"lo": 1.0, "hi": 2.0}),
        ([_floats(3, 4)], {"lo": _floats(4), "hi": None}),
    ],
    "softmax": lambda: _along((0, -1)),
    "log_softmax": lambda: _along((0, -1)),
    "argmax": _arg_reductions,
    "argmin": _arg_reductions,
    "all": lambda: _reductions(lambda *shape: _floats(*shape) > 1.0),
    "any": lambda: _reductions(lambda *shape: _floats(*shape) > 2.5),
    **dict.fromkeys(("nansum", "nanmean", "nanmax", "nanmin"), lambda: _reductions(_with_nans)),
    "round": lambda: [([_floats(3, 4) * 10], {"decimals": 0}), ([_floats(3, 4)], {"decimals": 1})],
    **dict.fromkeys(
        ("isnan", "isinf", "isfinite"), lambda: [([np.array([[1.0, np.nan], [np.inf, -np.inf]])], {})]
    ),
    "sum": lambda: [
        *_reductions(),
        ([_ints(3, 4)], {"dim": 0, "keepdim": False, "dtype": np.dtype("float32")}),
    ],
    "var": lambda: [*_reductions(), ([_floats(3, 4)], {"dim": 1, "keepdim": False, "ddof": 1})],
    "std": lambda: [*_reductions(), ([_floats(3, 4)], {"dim": None, "keepdim": True, "ddof": 1})],
    "cumsum": lambda: [*_along((None, 0, 1)), ([_ints(3, 4)], {"dim": 1, "dtype": np.dtype("float32")})],
    "cumprod": lambda: [*_along((None, 0, 1)), ([_ints(3, 4)], {"dim": None, "dtype": np.dtype("float64")})],
    "sort": lambda: [
        *_along((-1, 0, None)),
        ([_floats(3, 4)], {}),
        ([_floats(3, 4)], {"dim": 0, "kind": "stable", "descending": True}),
    ],
    "argsort": lambda: [
        *_along((-1, 0, None)),
        ([_floats(3, 4)], {}),
        ([_floats(3, 4)], {"dim": 1, "kind": "stable", "descending": True}),
    ],
    "gather": lambda: [([_floats(3, 4), _rng.integers(0, 3, size=(2, 4))], {"dim": 0})],
    "index_add": lambda: [([_floats(3, 4), np.array([0, 2, 0]), _floats(3, 4)], {"dim": 0})],
    "scatter_add": lambda: [([_floats(3, 4), _rng.integers(0, 3, size=(2, 4)), _floats(2, 4)], {"dim": 0})],
    "segment_sum": lambda: [([_floats(5, 3), np.array([0, 1, 0, 2, 1])], {"num_segments": 3})],
    "segment_max": lambda: [([_floats(5, 3), np.array([0, 1, 0, 2, 1])], {"num_segments": 3})],
    "cat": lambda: [
        ([_floats(3, 4), _floats(2, 4)], {"dim": 0}),
        ([_floats(3, 4), _floats(3, 1)], {"dim": 1}),
    ],
    "stack": lambda: [([_floats(3, 4), _floats(3, 4)], {"dim": 1})],
    "ttransform": lambda: [([_floats(3, 4)], {"op": lambda x: x * 2 + 1}), ([_floats(3, 4)], {"op": abs})],
    "tpoint": lambda: [
        ([_floats(3, 4), _floats(4)], {"op": lambda x, y: x - 2 * y}),
        ([_floats(3, 4), 2.0], {"op": operator.mul}),
    ],
    "copy": _unary,
    "unique": lambda: [([_ints(3, 4)], {}), ([_ints(3, 4)], {"part": "counts"})],
    "tredux": lambda: [
        ([_floats(3, 4)], {"dim": 0, "init": 0.0, "op": lambda acc, x: acc + x}),
        ([_floats(3, 4)], {"dim": -1, "init": 1.0, "op": operator.mul, "keepdim": True}),
    ],
}
"""Cases by entry name, where the default of the entry's shapes does not fit."""


def _spd(*batch: int) -> np.ndarray:
    """Symmetric positive-definite matrices (for cholesky, eigh and the other square-matrix entries)."""
    values = _floats(*batch, 3, 3)
    return values @ np.swapaxes(values, -1, -2) + 3 * np.eye(3)


CASES.update(  # the array API standard's entries
    {
        "astype": lambda: [([_floats(3, 4)], {"dtype": np.dtype(np.float32)})],
        "count_nonzero": lambda: [
            ([_ints(3, 4)], {"axis": None, "keepdims": False}),
            ([_ints(3, 4)], {"axis": (0,), "keepdims": True}),
        ],
        "diff": lambda: [([_floats(3, 4)], {"axis": -1, "n": 1}), ([_floats(3, 4)], {"axis": 0, "n": 2})],
        "searchsorted": lambda: [([np.arange(6.0), _floats(4)], {"side": "right"})],
        "take": lambda: [
            ([_floats(3, 4), np.array([2, 0, 2])], {"axis": 1}),
            ([_floats(5), np.array([4, 1])], {}),
        ],
        "take_along_axis": lambda: [([_floats(3, 4), _rng.integers(0, 4, size=(3, 2))], {"axis": 1})],
        "repeat": lambda: [([_floats(3, 4)], {"repeats": 2, "axis": 0})],
        "roll": lambda: [
            ([_floats(3, 4)], {"shift": 1, "axis": 1}),
            ([_floats(3, 4)], {"shift": -2, "axis": None}),
        ],
        "tile": lambda: [([_floats(3, 4)], {"repetitions": (2, 1)})],
        "tril": lambda: [([_floats(3, 4)], {"k": 0})],
        "triu": lambda: [([_floats(3, 4)], {"k": 1})],
        "cross": lambda: [([_floats(4, 3), _floats(3)], {"axis": -1})],
        "vector_norm": lambda: [
            ([_floats(3, 4)], {"axis": axis, "keepdims": keep, "ord": order})
            for axis, keep, order in ((None, False, 2), (1, True, 1), ((0, 1), False, np.inf), (0, False, 3))
        ],
        "matrix_norm": lambda: [([_floats(2, 3, 4)], {"keepdims": False, "ord": "fro"})],
        **dict.fromkeys(
            ("unique_values", "unique_indices", "unique_inverse", "unique_counts"),
            lambda: [([_ints(3, 4)], {})],
        ),
        **dict.fromkeys(
            ("inv", "det", "eigh_values", "eigh_vectors", "eigvalsh", "pinv", "svdvals", "svd_s"),
            lambda: [([_spd(2)], {})],
        ),
        **dict.fromkeys(("svd_u", "svd_vh"), lambda: [([_spd(2)], {"full_matrices": False})]),
        **dict.fromkeys(("slogdet_sign", "slogdet_logabsdet", "matrix_rank"), lambda: [([_spd(2)], {})]),
        **dict.fromkeys(("qr_q", "qr_r"), lambda: [([_spd(2)], {"mode": "reduced"})]),
        "cholesky": lambda: [([_spd(2)], {"upper": False})],
        "matrix_power": lambda: [([_spd(2)], {"n": 2})],
        "solve": lambda: [([_spd(2), _floats(2, 3, 1)], {}), ([_spd(), _floats(3)], {})],
        **{
            f"fft.{name}": lambda: [([_floats(3, 4)], {"n": None, "axis": -1, "norm": "backward"})]
            for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
        },
        **{
            f"fft.{name}": lambda: [([_floats(3, 4)], {"s": None, "axes": None, "norm": "ortho"})]
            for name in ("fftn", "ifftn", "rfftn", "irfftn")
        },
        **{f"fft.{name}": lambda: [([_floats(3, 4)], {"axes": None})] for name in ("fftshift", "ifftshift")},
    }
)


def _cases(entry: optable.Op) -> list[Case]:
    recipe = CASES.get(entry.name) or DEFAULTS.get(entry.shapes)
    if recipe is None:
        raise LookupError(f"{entry.name}: no cases in CASES and no default for shapes {entry.shapes!r}")
    return recipe()


ALL_CASES = [
    pytest.param(name, operands, params, id=f"{name}-{i}")
    for name, entry in optable.TABLE.items()
    if CASES.get(name) or DEFAULTS.get(entry.shapes)
    for i, (operands, params) in enumerate(_cases(entry))
]


class Computes(Callback):  # type: ignore[misc]
    """Counts dask computations started while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def _start(self, dsk: Any) -> None:
        self.count += 1


def test_every_entry_has_cases() -> None:
    missing = [
        name for name, entry in optable.TABLE.items() if not (CASES.get(name) or DEFAULTS.get(entry.shapes))
    ]
    assert not missing, f"entries without cases on every base: {missing}"


def test_every_entry_declares_its_chunked_form() -> None:
    declarations = (chunkforms.ChunkedForm, chunkforms.NoChunkedForm)
    undeclared = [
        name for name, entry in optable.TABLE.items() if not isinstance(entry.chunked, declarations)
    ]
    assert not undeclared
    assert set(optable.UFUNCS.values()) <= set(optable.TABLE.values())


def test_an_op_must_declare_its_chunked_form() -> None:
    with pytest.raises(TypeError, match="chunked"):
        optable.Op("twice", lambda x: 2 * x, None, "same")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="chunked"):
        optable.Op("twice", lambda x: 2 * x, None, "same", chunked=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reason"):
        chunkforms.refuse("  ")


def _expected(entry: optable.Op, operands: list[Any], params: dict[str, Any]) -> np.ndarray:
    return np.asarray(entry.kernel(*operands, **params))


def _same(result: lt.AbstractTensor, expected: np.ndarray) -> None:
    values = result.numpy()
    assert values.shape == expected.shape
    assert values.dtype == expected.dtype
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(values, expected, rtol=1e-10, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(values, expected)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "operands", "params"), ALL_CASES)
def test_every_operation_on_every_base(
    kind: str, name: str, operands: list[Any], params: dict[str, Any], tmp_path: Path
) -> None:
    entry = optable.TABLE[name]
    expected = _expected(entry, operands, params)
    first = on_base(kind, operands[0], tmp_path)
    rest = [lt.tensor(x) if isinstance(x, np.ndarray) else x for x in operands[1:]]
    with Computes() as computes:
        if kind == "dask" and isinstance(entry.chunked, chunkforms.NoChunkedForm):
            with pytest.raises(TypeError, match=rf"^{name} has no chunked form.*t\.compute\(\)"):
                apply(entry, first, *rest, **params)
            assert computes.count == 0
            return
        result = apply(entry, first, *rest, **params)
    if kind == "dask":  # still a dask collection: nothing was computed to build it
        assert computes.count == 0
        assert result.base.defers_operations
    _same(result, expected)
    if result.shape == () and expected.dtype.kind in "fiu":
        assert float(result) == pytest.approx(float(expected), nan_ok=True)
        assert f"{result:.3f}" == f"{expected.item():.3f}"


# -- random shapes: 0-d, size-0 and size-1 axes, every dim ----------------------------------------------

PROPERTY_OPS = (
    *("add", "sub", "mul", "truediv", "power", "floordiv", "mod", "maximum", "minimum"),
    *("eq", "ne", "lt", "le", "gt", "ge", "neg", "pos", "abs", "exp", "log", "sqrt", "tanh"),
    *("sigmoid", "relu", "clip", "softmax", "log_softmax", "round", "isnan", "isinf", "isfinite"),
    *("sum", "mean", "prod", "max", "min", "var", "std", "argmax", "argmin", "all", "any"),
    *("nansum", "nanmean", "nanmax", "nanmin", "cumsum", "cumprod", "sort", "argsort"),
)
"""Entries checked on random shapes of floats, any number of axes (the walk above uses fixed
shapes): the elementwise operations, the reductions and the operations along one axis."""
EMPTY_OK = ("sum", "nansum", "prod", "all", "any")
"""Reductions defined on empty input (numpy raises or warns for the others)."""
ALONG_ONE = ("cumsum", "cumprod", "sort", "argsort", "softmax", "log_softmax")


@st.composite
def _shaped_case(draw: st.DrawFn) -> tuple[str, np.ndarray, dict[str, Any]]:
    name = draw(st.sampled_from(PROPERTY_OPS))
    entry = optable.TABLE[name]
    empty_ok = entry.shapes != "reduce" or name in EMPTY_OK
    min_ndim = 1 if name in ("softmax", "log_softmax") else 0
    shape = tuple(draw(st.lists(st.integers(0 if empty_ok else 1, 3), min_size=min_ndim, max_size=3)))
    finite = st.floats(-4, 4, width=32)
    elements = st.one_of(finite, st.just(np.nan)) if name.startswith("nan") else finite
    values = draw(hnp.arrays(np.float64, shape, elements=elements))
    params: dict[str, Any] = {}
    ndim = len(shape)
    if entry.shapes == "reduce":
        dim = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1))) if ndim else None
        params = {"dim": dim, "keepdim": draw(st.booleans())}
    elif name in ("softmax", "log_softmax"):
        params = {"dim": draw(st.integers(-ndim, ndim - 1))}
    elif name in ALONG_ONE:
        params = {"dim": draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1))) if ndim else None}
    return name, values, params


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log, sqrt, power of negatives: NaN on each side
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_shaped_case())
def test_random_shapes_on_every_base(
    kind: str, case: tuple[str, np.ndarray, dict[str, Any]], tmp_path: Path
) -> None:
    name, values, params = case
    entry = optable.TABLE[name]
    operands = [values, values[..., :1] if values.ndim else 1.5] if entry.shapes == "broadcast" else [values]
    expected = _expected(entry, operands, params)
    rest = [lt.tensor(x) if isinstance(x, np.ndarray) else x for x in operands[1:]]
    result = apply(entry, on_base(kind, values, tmp_path), *rest, **params)
    _same(result, expected)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_running_sums_and_products_are_numpy_s_to_the_bit_on_every_base(
    kind: str, name: str, dim: int | None, tmp_path: Path
) -> None:
    """float32 running sums over many chunks round in numpy's sequential order on every base (through
    dask, each block scanned with the running value before it in front)."""
    values = np.random.default_rng(7).uniform(0.5, 1.5, size=(40, 30)).astype(np.float32)
    expected = getattr(np, name)(values, axis=dim)
    got = getattr(on_base(kind, values, tmp_path), name)(dim).numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)

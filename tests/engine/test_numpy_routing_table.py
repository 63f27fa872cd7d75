"""The routing table of `__array_function__` (`numpy_routes.HANDLERS`): exactly the numpy functions
lazytensor runs itself, each with the handler that behaves as numpy. The table is filled once, when
the module is imported, so these tests read the table and call its handlers.

Reaches into `lazytensor.engine.numpy_routes`, `lazytensor.engine.optable` and `lazytensor.tensors`'
doors: the routing table is read and its handlers called, and a fresh table is built to check how it
is filled.
"""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt
from lazytensor.engine import numpy_routes, optable
from lazytensor.engine.numpy_routes import HANDLERS
from lazytensor.tensors.dispatch import DOORS as _DOORS

ALIASES = [
    ("transpose", "permute_dims"),
    ("concatenate", "concat"),
    ("vstack", "row_stack"),
    ("round", "around"),
    ("max", "amax"),
    ("min", "amin"),
]
SINGLE = [
    "reshape",
    "ravel",
    "squeeze",
    "expand_dims",
    "moveaxis",
    "swapaxes",
    "flip",
    "fliplr",
    "flipud",
    "broadcast_to",
    "split",
    "shape",
    "ndim",
    "size",
    "stack",
    "hstack",
    "where",
    "nonzero",
    "argwhere",
    "count_nonzero",
    "clip",
    "sort",
    "argsort",
    "cumsum",
    "cumprod",
    "roll",
    "repeat",
    "tile",
    "take",
    "diagonal",
    "trace",
    "cumulative_sum",
    "cumulative_prod",
    "dot",
]
REDUCTIONS = [
    "sum",
    "mean",
    "prod",
    "std",
    "var",
    "argmax",
    "argmin",
    "all",
    "any",
    "nansum",
    "nanmean",
    "nanmax",
    "nanmin",
    "max",
    "min",
]
NAMES = (
    [name for group in ALIASES for name in group]
    + SINGLE
    + [r for r in REDUCTIONS if r not in ("max", "min")]
)


def test_the_table_holds_exactly_the_functions_lazytensor_runs() -> None:
    expected = {getattr(np, name) for name in NAMES if getattr(np, name, None) is not None}
    assert np.sum in expected and np.cumulative_sum in expected and np.amax in expected
    assert set(HANDLERS) == expected
    assert all(callable(handler) for handler in HANDLERS.values())


def test_aliases_share_a_handler_and_other_functions_do_not() -> None:
    for group in ALIASES:
        present = [getattr(np, name) for name in group if getattr(np, name, None) is not None]
        assert len({id(HANDLERS[function]) for function in present}) == 1, group
    distinct = [HANDLERS[getattr(np, group[0])] for group in ALIASES] + [
        HANDLERS[getattr(np, name)] for name in SINGLE + REDUCTIONS if name not in ("max", "min")
    ]
    assert len({id(handler) for handler in distinct}) == len(distinct)


def test_handles_registers_the_numpy_functions_of_these_names_this_numpy_has(monkeypatch) -> None:
    """numpy 1.26 has no `np.concat`: a name numpy lacks is skipped, not an error at import."""
    table: dict = {}
    monkeypatch.setattr(numpy_routes, "HANDLERS", table)

    def handler(doors, a):
        return a

    assert numpy_routes.handles("sum", "amax", "not_a_numpy_function")(handler) is handler
    assert table == {np.sum: handler, np.amax: handler}


def _fresh_reductions(monkeypatch) -> dict:
    """The reduction handlers built now (the module builds its own at import, out of a test's reach)."""
    table: dict = {}
    monkeypatch.setattr(numpy_routes, "HANDLERS", table)
    for name in REDUCTIONS:
        numpy_routes._reduction(name, *((name, "a" + name) if name in ("max", "min") else ()))
    return table


def test_reductions_register_under_their_numpy_names(monkeypatch) -> None:
    table = _fresh_reductions(monkeypatch)
    expected = {getattr(np, name) for name in REDUCTIONS} | {np.amax, np.amin}
    assert set(table) == expected
    assert table[np.max] is table[np.amax] and table[np.min] is table[np.amin]


def _same(result, expected) -> None:
    expected = np.asarray(expected)
    assert isinstance(result, lt.AbstractTensor)
    assert result.shape == expected.shape and result.dtype == expected.dtype
    np.testing.assert_allclose(result.numpy(), expected)


VALUES = np.array([[[1.0, 5.0, 2.0], [0.5, 3.0, 4.0]], [[6.0, 1.0, 7.0], [2.0, 8.0, 0.25]]])


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 1, -1, (0, 2), [0, 2]])  # a list as a tuple, which numpy refuses
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_handlers_agree_with_numpy(name, axis, keepdims, monkeypatch) -> None:
    function = getattr(np, name)
    fresh = _fresh_reductions(monkeypatch)
    if name in ("argmax", "argmin") and not isinstance(axis, int | None):
        return  # numpy's argmax takes one axis
    t = lt.tensor(VALUES, requires_grad=name not in ("argmax", "argmin", "all", "any"))
    expected = function(VALUES, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keepdims)
    _same(HANDLERS[function](_DOORS, t, axis=axis, keepdims=keepdims).detach(), expected)
    _same(fresh[function](_DOORS, t, axis=axis, keepdims=keepdims).detach(), expected)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "std", "var", "nansum", "nanmean", "max", "min"])
def test_reductions_keep_the_gradient(name, monkeypatch) -> None:
    t = lt.tensor(VALUES, requires_grad=True)
    for handler in (HANDLERS[getattr(np, name)], _fresh_reductions(monkeypatch)[getattr(np, name)]):
        handler(_DOORS, t, axis=[0, 2]).sum().backward()
    assert t.grad is not None and t.grad.shape == VALUES.shape


@pytest.mark.parametrize(
    ("label", "call"),
    [
        ("dtype", lambda a: np.sum(a, axis=0, dtype=np.float32)),
        ("dtype given by position", lambda a: np.sum(a, 0, np.float32)),
        ("ddof", lambda a: np.std(a, axis=2, ddof=1)),
        ("where", lambda a: np.sum(a, axis=1, where=np.array([True, False, True]))),
        ("initial", lambda a: np.max(a, axis=0, initial=6.5)),
        ("out ndarray", lambda a: np.mean(a, axis=0, out=np.zeros((2, 3)))),
    ],
)
def test_reduction_keywords_agree_with_numpy(label, call, monkeypatch) -> None:
    expected = call(VALUES)
    _same(call(lt.tensor(VALUES)), expected)
    _fresh_reductions(monkeypatch)  # np.* now dispatches to the handlers built in this test
    _same(call(lt.tensor(VALUES)), expected)


@pytest.mark.parametrize("rebuilt", [False, True])
def test_a_reduction_into_a_tensor_out_writes_it_and_returns_it(rebuilt, monkeypatch) -> None:
    if rebuilt:
        _fresh_reductions(monkeypatch)
    out = lt.tensor(np.zeros((2, 3)))
    result = np.sum(lt.tensor(VALUES), axis=0, out=out)
    assert result is out
    np.testing.assert_array_equal(out.numpy(), VALUES.sum(axis=0))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("rebuilt", [False, True])
def test_cumulative_handlers_agree_with_numpy_and_keep_the_gradient(name, axis, rebuilt, monkeypatch) -> None:
    function = getattr(np, name)
    if rebuilt:  # the handler built now, in reach of a test (the module's is built at import)
        entry = optable.CUMSUM if name == "cumulative_sum" else optable.CUMPROD
        monkeypatch.setitem(HANDLERS, function, numpy_routes._cumulative(entry))
    values = VALUES[0]
    t = lt.tensor(values, requires_grad=True)
    result = function(t, axis=axis)
    _same(result.detach(), function(values, axis=axis))
    result.sum().backward()
    assert t.grad is not None and t.grad.shape == values.shape
    for vector in (values[0], values[0, 0]):  # 1-d and 0-d need no axis
        _same(function(lt.tensor(vector)), function(vector))
    _same(function(lt.tensor(values[0, 0]), axis=0), function(values[0, 0], axis=0))  # 0-d as 1-d
    _same(
        function(lt.tensor(values), axis=0, include_initial=True),
        function(values, axis=0, include_initial=True),
    )
    _same(function(lt.tensor(values), axis=1, dtype=np.float32), function(values, axis=1, dtype=np.float32))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("rebuilt", [False, True])
def test_cumulative_handlers_need_an_axis_above_one_dimension_as_numpy(name, rebuilt, monkeypatch) -> None:
    function = getattr(np, name)
    if rebuilt:
        entry = optable.CUMSUM if name == "cumulative_sum" else optable.CUMPROD
        monkeypatch.setitem(HANDLERS, function, numpy_routes._cumulative(entry))
    with pytest.raises(ValueError) as numpys:
        function(VALUES[0])
    with pytest.raises(ValueError) as ours:
        function(lt.tensor(VALUES[0]))
    assert str(ours.value) == str(numpys.value)

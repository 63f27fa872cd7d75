"""Random sequences of views, reads and writes against a numpy model: no view ever shows a stale value.

The model is one flat numpy array (the storage) and, for every view, the storage index of each of
its positions (the numpy steps applied to `arange(n)`, as in `strategies.py`). So every tensor's
values are `storage[indices]` after every step, whatever was read or cached before. The sequences
mix views of every kind (0-d ones too: `t[0, ...]`, `unbind`, ints with an ellipsis), reads that
could prime a cache (`numpy()`, `item()`, `tolist()`, an element, the print) and writes through the
base and through any view (`t[key] = v`, `set`, in-place operators, a view combined with another).
A write through a view with an expanded layer is refused and changes nothing.

`OPERATIONS` counts the sequences, the rules and the checks run (the closing note's outcome table
quotes them).
"""

from __future__ import annotations

import math
import operator
import signal
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from strategies import basic_keys, fancy_keys, shapes, view_ops

import lazytensor as lt

MAX_VIEWS = 6
MAX_SIZE = 120
IN_PLACE: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "+=": (operator.iadd, operator.add),
    "-=": (operator.isub, operator.sub),
    "*=": (operator.imul, operator.mul),
    "/=": (operator.itruediv, operator.truediv),
    "//=": (operator.ifloordiv, operator.floordiv),
    "%=": (operator.imod, operator.mod),
}
DIVISIONS = {"float64": "/=", "int64": "//=", "object": "%="}
"""The division each dtype takes (by a nonzero scalar: no warnings, no infinities)."""
OPERATIONS = {"sequences": 0, "rules": 0, "checks": 0}
SEQUENCE_SECONDS = 60.0
"""Each sequence runs under this limit (a few milliseconds is usual): a hang is a failure, not a stall."""


def _hung(signum: int, frame: Any) -> None:
    raise TimeoutError(f"a view/write sequence ran over {SEQUENCE_SECONDS:g} s")


def _zero_d_ops(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[str, Any, Any, bool] | None:
    """A step to a 0-d (or lower) view: `unbind(dim)[k]`, or ints for every axis ended by `...`."""
    if not shape or 0 in shape:
        return None
    if draw(st.booleans()):
        dim = draw(st.integers(0, len(shape) - 1))
        k = draw(st.integers(0, shape[dim] - 1))
        key = (*(slice(None),) * dim, k, Ellipsis)
        return f"unbind({dim})[{k}]", lambda t: t.unbind(dim)[k], lambda a: a[key], True
    ints = tuple(draw(st.integers(-size, size - 1)) for size in shape)
    key = (*ints, Ellipsis) if draw(st.booleans()) else (Ellipsis, *ints)
    return f"[{key}]", lambda t: t[key], lambda a: a[key], True


def _values(data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    """A scalar, or an array of `shape` (or one that broadcasts to it), of small integers."""
    if data.draw(st.booleans()) or not shape:
        value = data.draw(st.integers(-50, 50))
        return value if dtype.hasobject else dtype.type(value)
    target = shape[data.draw(st.integers(0, len(shape))) :]  # a trailing part broadcasts
    n = math.prod(target)
    values = np.array(data.draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n)))
    return values.reshape(target).astype(dtype)


class ViewWriteSequences(RuleBasedStateMachine):
    """A base tensor, a pool of views of it (and of each other), and the numpy model of all of them."""

    @initialize(shape=shapes(max_dims=3, max_side=4), dtype=st.sampled_from(["float64", "int64", "object"]))
    def start(self, shape: tuple[int, ...], dtype: str) -> None:
        OPERATIONS["sequences"] += 1
        self.previous_alarm = signal.signal(signal.SIGALRM, _hung)
        signal.setitimer(signal.ITIMER_REAL, SEQUENCE_SECONDS)  # a hang fails the sequence
        self.dtype = np.dtype(dtype)
        n = math.prod(shape)
        values = np.arange(n).astype(self.dtype)
        self.storage = values.copy()
        self.base = lt.tensor(values.reshape(shape))
        # (tensor, storage index of each position, whether writes may go through, description)
        self.pool: list[tuple[Any, np.ndarray, bool, str]] = [
            (self.base, np.arange(n).reshape(shape), True, f"base{shape} {dtype}")
        ]

    def teardown(self) -> None:
        if hasattr(self, "previous_alarm"):
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous_alarm)

    def _model(self, indices: np.ndarray) -> np.ndarray:
        """The model's values at `indices`, always an array (numpy gives a scalar for 0-d indices)."""
        return self.storage[indices.reshape(-1)].reshape(indices.shape)

    def _pick(self, data: st.DataObject) -> tuple[Any, np.ndarray, bool, str]:
        return data.draw(st.sampled_from(self.pool), label="view")

    @rule(data=st.data())
    def make_view(self, data: st.DataObject) -> None:
        OPERATIONS["rules"] += 1
        t, indices, writable, text = self._pick(data)
        step = data.draw(st.composite(_zero_d_ops)(indices.shape)) if data.draw(st.booleans()) else None
        if step is None:
            step = data.draw(view_ops(indices.shape))
        name, lt_step, np_step, _ = step
        new_indices = np.asarray(np_step(indices))
        if new_indices.size > MAX_SIZE:
            return
        view = lt_step(t)
        assert view.shape == new_indices.shape, (text, name)
        writable = writable and not name.startswith("expand")
        entry = (view, new_indices, writable, f"{text} -> {name}")
        if len(self.pool) < MAX_VIEWS:
            self.pool.append(entry)
        else:
            self.pool[data.draw(st.integers(1, MAX_VIEWS - 1))] = entry

    @rule(data=st.data(), kind=st.sampled_from(["numpy", "tolist", "item", "element", "print", "values"]))
    def read(self, data: st.DataObject, kind: str) -> None:
        """Reads that make or use a view's cached strided array (the stale-value bug lived there)."""
        OPERATIONS["rules"] += 1
        t, indices, _, text = self._pick(data)
        expected = self._model(indices)
        if kind == "numpy":
            np.testing.assert_array_equal(t.numpy(), expected, err_msg=text)
        elif kind == "tolist":
            assert t.tolist() == expected.tolist(), text
        elif kind == "values":
            np.testing.assert_array_equal(t.values(), expected, err_msg=text)
        elif kind == "item" and indices.size == 1:
            assert t.item() == expected.reshape(-1)[0], text
        elif kind == "element" and indices.size:
            pos = tuple(data.draw(st.integers(0, size - 1)) for size in indices.shape)
            got = t[pos] if pos else t[...].item()  # an element key on a 0-d tensor is `()`
            assert got == expected[pos], text
        elif kind == "print":
            str(t)

    @rule(data=st.data(), how=st.sampled_from(["basic", "fancy", "all", "set"]))
    def write(self, data: st.DataObject, how: str) -> None:
        """`t[key] = v` (a basic or fancy key, or `...`) or `t.set(pos, v)` through any view."""
        OPERATIONS["rules"] += 1
        t, indices, writable, text = self._pick(data)
        if how == "set":
            if not indices.size:
                return
            key: Any = tuple(data.draw(st.integers(0, size - 1)) for size in indices.shape)
        elif how == "basic":
            key = data.draw(basic_keys(indices.shape))
        elif how == "fancy":
            key = data.draw(fancy_keys(indices.shape))
        else:
            key = Ellipsis
        target = indices[key]
        value = _values(data, np.shape(target), self.dtype)
        before = self.storage.copy()
        if not writable:
            with pytest.raises(ValueError, match="expanded"):
                t.set(key, value) if how == "set" else t.__setitem__(key, value)
            self._check_storage(before, text)
            return
        if how == "set":
            t.set(key, value)
        else:
            t[key] = value
        self.storage[target] = value

    @rule(data=st.data(), op=st.sampled_from(["+=", "-=", "*=", "division"]), other_view=st.booleans())
    def in_place(self, data: st.DataObject, op: str, other_view: bool) -> None:
        """`t op= x` with a scalar, or with another view that broadcasts to `t` (read in full first)."""
        OPERATIONS["rules"] += 1
        t, indices, writable, text = self._pick(data)
        operand: Any = _values(data, indices.shape, self.dtype)
        if op == "division":
            op, other_view = DIVISIONS[self.dtype.name], False
            operand = data.draw(st.sampled_from([-3, -2, 2, 3, 7]))
        in_place_op, plain_op = IN_PLACE[op]
        operand_values = operand
        if other_view:
            u, u_indices, _, _ = self._pick(data)
            if _broadcasts_to(u_indices.shape, indices.shape):
                operand, operand_values = u, self._model(u_indices)
        before = self.storage.copy()
        if not writable:
            with pytest.raises(ValueError, match="expanded"):
                in_place_op(t, operand)
            self._check_storage(before, text)
            return
        result = in_place_op(t, operand)
        assert result is t, f"{text}: {op} must return the same view"
        result = plain_op(before[indices.reshape(-1)].reshape(indices.shape), operand_values)
        self.storage[indices.reshape(-1)] = np.broadcast_to(
            np.asarray(result, self.dtype), indices.shape
        ).reshape(-1)

    def _check_storage(self, expected: np.ndarray, text: str) -> None:
        np.testing.assert_array_equal(self.storage, expected, err_msg=text)
        np.testing.assert_array_equal(self.base.numpy().reshape(-1), expected, err_msg=text)

    @precondition(lambda self: hasattr(self, "pool"))
    @invariant()
    def every_view_matches_the_model(self) -> None:
        """After every step, every tensor of the pool holds exactly the model's values."""
        OPERATIONS["checks"] += 1
        for t, indices, _, text in self.pool:
            expected = self._model(indices)
            got = t.numpy()
            assert got.dtype == expected.dtype, text
            np.testing.assert_array_equal(got, expected, err_msg=text)
            if indices.size:
                first = (0,) * indices.ndim
                assert t.get(first) == expected[first], text


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether `shape` broadcasts to `target` without changing it (an in-place operand's rule)."""
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


ViewWriteSequences.TestCase.settings = settings(max_examples=150, stateful_step_count=30)
TestViewWriteSequences = ViewWriteSequences.TestCase


@pytest.mark.parametrize(
    "zero_d",
    [lambda t: t[0, ...], lambda t: t[..., 0], lambda t: t.unbind(0)[0], lambda t: t.T.unbind(0)[0]],
    ids=["t[0, ...]", "t[..., 0]", "unbind(0)[0]", "T.unbind(0)[0]"],
)
def test_a_read_zero_d_view_sees_later_writes_to_its_base(zero_d: Callable[[Any], Any]) -> None:
    """The issue's example: a 0-d view read once, then its base written, then `+=` through the view."""
    t = lt.tensor([10.0, 20.0])
    v = zero_d(t)
    assert v.item() == 10.0
    t[0] = 100
    assert v.item() == 100.0
    v += 1
    assert t.tolist() == [101.0, 20.0]


def test_a_zero_d_view_of_objects_prints_its_current_value() -> None:
    t = lt.tensor(np.array([1, "a"], dtype=object))
    v = t[0, ...]
    assert v.item() == 1
    t[0] = "now"
    assert v.item() == "now"
    assert "now" in str(v)

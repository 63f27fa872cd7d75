"""The functions that make tensors check their arguments in lazytensor's words: a bad count, shape,
offset, spacing, bound or dtype is refused with the exception type numpy raises for it (TypeError for
a kind of argument, ValueError for a value) and a message that names the function, the argument and
the value, never numpy's bare "'float' object cannot be interpreted as an integer", a
ZeroDivisionError or an AttributeError. And the good calls still make what numpy makes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

BIG = 10**20
"""More than any axis numpy can index."""

# (the call as text, the call, the exception type, fragments its message must hold)
REFUSED: list[tuple[str, Callable[[], Any], type[Exception], tuple[str, ...]]] = [
    ("eye(2.5)", lambda: lt.eye(2.5), TypeError, ("eye", "n_rows", "2.5")),
    ("eye(-1)", lambda: lt.eye(-1), ValueError, ("eye", "n_rows", "-1")),
    ("eye(2, 2.5)", lambda: lt.eye(2, 2.5), TypeError, ("eye", "n_cols", "2.5")),
    ("eye(2, -3)", lambda: lt.eye(2, -3), ValueError, ("eye", "n_cols", "-3")),
    ("eye(2, k=1.5)", lambda: lt.eye(2, k=1.5), TypeError, ("eye", "k", "1.5")),
    ("eye('a')", lambda: lt.eye("a"), TypeError, ("eye", "n_rows", "'a'")),
    ("eye(True)", lambda: lt.eye(True), TypeError, ("eye", "n_rows", "True")),
    ("eye(10**20)", lambda: lt.eye(BIG), ValueError, ("eye", "n_rows", "100,000,000,000,000,000,000")),
    ("eye(2, dtype='nope')", lambda: lt.eye(2, dtype="nope"), TypeError, ("eye", "dtype", "'nope'")),
    ("linspace(0, 1, -5)", lambda: lt.linspace(0, 1, -5), ValueError, ("linspace", "num", "-5")),
    ("linspace(0, 1, 2.5)", lambda: lt.linspace(0, 1, 2.5), TypeError, ("linspace", "num", "2.5")),
    ("linspace(0, 1, 10**20)", lambda: lt.linspace(0, 1, BIG), ValueError, ("linspace", "num")),
    ("linspace('a', 1)", lambda: lt.linspace("a", 1), TypeError, ("linspace", "start", "'a'")),
    ("linspace(0, None)", lambda: lt.linspace(0, None), TypeError, ("linspace", "stop", "None")),
    (
        "linspace(0, 1, 3, dtype='nope')",
        lambda: lt.linspace(0, 1, 3, dtype="nope"),
        TypeError,
        ("linspace", "dtype", "'nope'"),
    ),
    ("full(10**20, 0)", lambda: lt.full(BIG, 0), ValueError, ("full", "shape", "100000000000000000000")),
    ("full(-1, 0)", lambda: lt.full(-1, 0), ValueError, ("full", "shape", "-1")),
    ("full(2.5, 0)", lambda: lt.full(2.5, 0), TypeError, ("full", "shape", "2.5")),
    (
        "full(2, 'x', dtype=int)",
        lambda: lt.full(2, "x", dtype=int),
        ValueError,
        ("full", "fill_value", "'x'"),
    ),
    ("full(2, 0, dtype='nope')", lambda: lt.full(2, 0, dtype="nope"), TypeError, ("full", "dtype", "'nope'")),
    (
        "full_like(t, 0, shape=-1)",
        lambda: lt.full_like(lt.zeros(2), 0, shape=-1),
        ValueError,
        ("full_like", "-1"),
    ),
    (
        "full_like(t, 'x')",
        lambda: lt.full_like(lt.zeros(2), "x"),
        ValueError,
        ("full_like", "fill_value", "'x'"),
    ),
    ("empty(-1)", lambda: lt.empty(-1), ValueError, ("empty", "shape", "-1")),
    ("empty(2.5)", lambda: lt.empty(2.5), TypeError, ("empty", "shape", "2.5")),
    ("empty(10**20)", lambda: lt.empty(BIG), ValueError, ("empty", "shape", "100000000000000000000")),
    ("empty(2, dtype='nope')", lambda: lt.empty(2, dtype="nope"), TypeError, ("empty", "dtype", "'nope'")),
    ("zeros(10**20)", lambda: lt.zeros(BIG), ValueError, ("zeros", "shape", "100000000000000000000")),
    ("zeros(2.5)", lambda: lt.zeros(2.5), TypeError, ("zeros", "shape", "2.5")),
    ("zeros(2, dtype='nope')", lambda: lt.zeros(2, dtype="nope"), TypeError, ("zeros", "dtype", "'nope'")),
    ("ones(-1)", lambda: lt.ones(-1), ValueError, ("ones", "shape", "-1")),
    (
        "zeros_like(t, dtype='nope')",
        lambda: lt.zeros_like(lt.zeros(1), dtype="nope"),
        TypeError,
        ("zeros_like", "'nope'"),
    ),
    (
        "meshgrid(x, indexing='yx')",
        lambda: lt.meshgrid(lt.arange(2), indexing="yx"),
        ValueError,
        ("meshgrid", "indexing", "'yx'"),
    ),
    ("tril(x, k=1.5)", lambda: lt.tril(lt.ones(2, 2), k=1.5), TypeError, ("tril", "k", "1.5")),
    ("triu(x, k='a')", lambda: lt.triu(lt.ones(2, 2), k="a"), TypeError, ("triu", "k", "'a'")),
    (
        "from_dlpack(object())",
        lambda: lt.from_dlpack(object()),
        TypeError,
        ("from_dlpack", "'object' has no __dlpack__"),
    ),
    (
        "asarray([1], dtype='nope')",
        lambda: lt.asarray([1], dtype="nope"),
        TypeError,
        ("asarray", "dtype", "'nope'"),
    ),
    ("asarray([1], dtype=3.5)", lambda: lt.asarray([1], dtype=3.5), TypeError, ("asarray", "dtype", "3.5")),
    (
        "asarray(t, dtype='nope')",
        lambda: lt.asarray(lt.zeros(1), dtype="nope"),
        TypeError,
        ("asarray", "dtype"),
    ),
    ("fftfreq(4, d=0)", lambda: lt.fft.fftfreq(4, d=0), ValueError, ("fftfreq", "d", "0")),
    ("fftfreq(4, d='a')", lambda: lt.fft.fftfreq(4, d="a"), TypeError, ("fftfreq", "d", "'a'")),
    ("fftfreq(2.5)", lambda: lt.fft.fftfreq(2.5), TypeError, ("fftfreq", "n", "2.5")),
    ("fftfreq(-1)", lambda: lt.fft.fftfreq(-1), ValueError, ("fftfreq", "n", "-1")),
    ("fftfreq(0)", lambda: lt.fft.fftfreq(0), ValueError, ("fftfreq", "n", "0")),
    (
        "fftfreq(4, dtype='nope')",
        lambda: lt.fft.fftfreq(4, dtype="nope"),
        TypeError,
        ("fftfreq", "dtype", "'nope'"),
    ),
    ("rfftfreq(4, d=0)", lambda: lt.fft.rfftfreq(4, d=0), ValueError, ("rfftfreq", "d", "0")),
    ("rfftfreq(2.5)", lambda: lt.fft.rfftfreq(2.5), TypeError, ("rfftfreq", "n", "2.5")),
    ("rfftfreq(-1)", lambda: lt.fft.rfftfreq(-1), ValueError, ("rfftfreq", "n", "-1")),
    ("arange(10**20)", lambda: lt.arange(BIG), ValueError, ("arange", "100000000000000000000")),
    ("arange(0, 1, nan)", lambda: lt.arange(0, 1, float("nan")), ValueError, ("arange", "step", "nan")),
    ("arange('a')", lambda: lt.arange("a"), TypeError, ("arange", "stop", "'a'")),
    (
        "arange(0, 5, dtype='nope')",
        lambda: lt.arange(0, 5, dtype="nope"),
        TypeError,
        ("arange", "dtype", "'nope'"),
    ),
    ("trandom(-1)", lambda: lt.trandom(-1), ValueError, ("trandom", "shape", "-1")),
    ("randn(2.5)", lambda: lt.randn(2.5), TypeError, ("randn", "shape", "2.5")),
    (
        "tensor([1], dtype='nope')",
        lambda: lt.tensor([1], dtype="nope"),
        TypeError,
        ("tensor", "dtype", "'nope'"),
    ),
]


@pytest.mark.parametrize(("call", "make", "kind", "fragments"), REFUSED, ids=[row[0] for row in REFUSED])
def test_a_bad_argument_is_refused_in_lazytensors_words(
    call: str, make: Callable[[], Any], kind: type[Exception], fragments: tuple[str, ...]
) -> None:
    with pytest.raises(Exception) as caught:
        make()
    assert type(caught.value) is kind, (call, type(caught.value), caught.value)
    message = str(caught.value)
    assert "\n" not in message, call
    for fragment in fragments:
        assert fragment in message, (call, fragment, message)


def test_a_refused_value_is_quoted_short() -> None:
    with pytest.raises(TypeError) as caught:
        lt.eye("x" * 10_000_000)
    assert len(str(caught.value)) < 300


def test_linspace_takes_tensor_bounds_as_numpy_takes_arrays() -> None:
    made = lt.linspace(lt.tensor([0.0, 1.0]), 2, 3)
    np.testing.assert_array_equal(made.numpy(), np.linspace(np.array([0.0, 1.0]), 2, 3))
    np.testing.assert_array_equal(lt.linspace(lt.tensor(1.0), lt.tensor(3.0), 3).numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        (lambda: lt.eye(np.int64(2), k=np.int8(1)), lambda: np.eye(2, k=1)),
        (lambda: lt.eye(0), lambda: np.eye(0)),
        (lambda: lt.linspace(0, 1, 0), lambda: np.linspace(0, 1, 0)),
        (
            lambda: lt.linspace(0, 1, np.int32(3), dtype=np.float32),
            lambda: np.linspace(0, 1, 3, dtype=np.float32),
        ),
        (lambda: lt.full((2, 0), 1.5), lambda: np.full((2, 0), 1.5)),
        (lambda: lt.fft.fftfreq(5, d=0.5), lambda: np.fft.fftfreq(5, 0.5)),
        (lambda: lt.fft.rfftfreq(1, d=-2), lambda: np.fft.rfftfreq(1, -2)),
        (lambda: lt.fft.fftfreq(4, d=float("inf")), lambda: np.fft.fftfreq(4, float("inf"))),
        (lambda: lt.tril(lt.ones(3, 3), k=np.int64(-1)), lambda: np.tril(np.ones((3, 3)), k=-1)),
        (lambda: lt.arange(np.float32(0.5), 3), lambda: np.arange(np.float32(0.5), 3)),
        (lambda: lt.asarray([1, 2], dtype=np.int8), lambda: np.asarray([1, 2], dtype=np.int8)),
    ],
)
def test_good_arguments_make_what_numpy_makes(made: Callable[[], Any], expected: Callable[[], Any]) -> None:
    result, reference = np.asarray(made().numpy()), expected()
    assert result.dtype == reference.dtype
    np.testing.assert_array_equal(result, reference)

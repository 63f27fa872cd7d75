"""The moments behind `t.stats()`: numpy's statistics for every dtype kind (small floats summed in
float64, complex values counted without a warning) and for expanded tensors, whose repeated values
are counted, not read.

Reaches into `lazytensor.printer.streamstats`: the moments are computed at small chunk sizes to take
every path of the pass, and at small pieces (`PIECE`) to take every path of a block's arithmetic
(float64 sums about a shift, computed again about the mean when the shift was far from it; pieces
holding a NaN or an infinity counted apart).
"""

from __future__ import annotations

import warnings
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_stats_onepass import assert_numpy_statistics

import lazytensor as lt
from lazytensor.printer import streamstats
from lazytensor.printer.streamstats import Moments, one_pass

DTYPES = [np.bool_, np.int16, np.uint8, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("chunk", [7, 10**6])
def test_the_moments_of_small_floats_are_summed_in_float64(dtype: Any, chunk: int) -> None:
    values = (np.random.default_rng(0).normal(3.0, 2.0, size=(40, 25)) + 1000.0).astype(dtype)
    assert_numpy_statistics(one_pass(lt.from_numpy(values), chunk).numbers(), values)
    assert_numpy_statistics(Moments.of(values).numbers(), values)


def test_complex_statistics_warn_of_nothing() -> None:
    values = np.array([[1 + 2j, 0j, complex(np.nan, 1)], [complex(np.inf, 0), 3.5 - 1j, -2j]])
    t = lt.from_numpy(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning: a complex value cast to a float somewhere
        numbers = dict(one_pass(t, chunk=2).numbers())
        report = t.stats()
    assert numbers == {"zeros": 1, "nan": 1, "inf": 1}
    assert str(report).splitlines()[1] == "zeros 1 · nan 1 · inf 1"


@st.composite
def expanded(draw: st.DrawFn) -> tuple[np.ndarray, tuple[int, ...]]:
    """Values with some size-1 axes, and a shape they expand to (new leading axes too)."""
    base = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    target = [draw(st.integers(1, 4)) if size == 1 else size for size in base]
    target = draw(st.lists(st.integers(1, 4), max_size=2)) + target
    dtype = draw(st.sampled_from(DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if np.dtype(dtype).kind != "f":
        return rng.integers(0 if dtype is np.uint8 else -5, 6, size=base).astype(dtype), tuple(target)
    values = rng.normal(0.0, 3.0, size=base)
    values.reshape(-1)[rng.random(values.size) < 0.3] = rng.choice([np.nan, np.inf, -np.inf, 0.0])
    return values.astype(dtype), tuple(target)


@settings(max_examples=150, deadline=None)
@given(case=expanded())
def test_stats_of_expanded_tensors_are_numpys_of_the_broadcast_array(case: Any) -> None:
    values, shape = case
    ref = np.broadcast_to(values, shape)
    t = lt.from_numpy(values).expand(*shape)
    assert_numpy_statistics(one_pass(t).numbers(), ref)
    assert_numpy_statistics(one_pass(t, chunk=1).numbers(), ref)


def test_a_huge_expand_of_bools_counts_true_and_false_exactly() -> None:
    t = lt.tensor([True, False, True]).expand(10**7, 10**8, 3)
    assert one_pass(t).numbers() == [("true", 2 * 10**15), ("false", 10**15)]
    assert (t.stats()["true"], t.stats()["false"]) == (str(2 * 10**15), str(10**15))


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_moments_of_no_values_are_empty_of_the_dtypes_kind(dtype: Any) -> None:
    t = lt.from_numpy(np.zeros((3, 0), dtype=dtype))
    assert one_pass(t) == Moments(np.dtype(dtype).kind)
    assert one_pass(t).numbers() == []


PIECE_DTYPES = [np.float16, np.float32, np.float64, np.int16, np.uint8, np.int64]


@st.composite
def pieces(draw: st.DrawFn) -> np.ndarray:
    """Values for a block cut in many pieces: any real dtype, centred anywhere (far from 0 against their
    spread, or not), drifting or not from piece to piece, with zeros, NaNs and infinities or not."""
    dtype = np.dtype(draw(st.sampled_from(PIECE_DTYPES)))
    size = draw(st.integers(1, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    spread = draw(st.sampled_from([1e-3, 1.0, 1e3]))
    centre = draw(st.sampled_from([0.0, 3.0, -1e3, 1e5])) * spread  # 1e5: numpy's own std keeps 1e-11
    drift = draw(st.sampled_from([0.0, 1.0, 1e4])) * spread * np.arange(size)
    values = centre + spread * rng.standard_normal(size) + drift
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(info.min, -(2**40)), min(info.max, 2**40)
        return np.clip(np.round(values), low, high).astype(dtype)
    if draw(st.booleans()):
        picks = rng.random(size) < 0.2
        values[picks] = rng.choice([np.nan, np.inf, -np.inf, 0.0], size=int(picks.sum()))
    with np.errstate(over="ignore"):
        return values.astype(dtype)


@settings(max_examples=300, deadline=None)
@given(values=pieces(), piece=st.integers(1, 9), dot_row=st.integers(1, 4))
def test_moments_computed_piece_by_piece_are_numpys(values: np.ndarray, piece: int, dot_row: int) -> None:
    """Pieces of a few values, their squares summed in rows of a few and a shorter tail."""
    with mock.patch.object(streamstats, "PIECE", piece), mock.patch.object(streamstats, "DOT_ROW", dot_row):
        assert_numpy_statistics(Moments.of(values).numbers(), values)
        assert_numpy_statistics(one_pass(lt.from_numpy(values), chunk=13).numbers(), values)


def test_a_mean_far_from_0_against_the_spread_keeps_its_digits() -> None:
    """1e5 + a spread of 1: about 0, a piece's sum of squares is 1e10 per value and the difference of
    the sums would keep 6 digits of its spread; the first piece is summed again about its mean."""
    values = 1e5 + np.random.default_rng(1).standard_normal(1000)
    with mock.patch.object(streamstats, "PIECE", 999):  # one big piece, summed about 0 first
        numbers = dict(Moments.of(values).numbers())
    assert numbers["std"] == pytest.approx(values.std(), rel=1e-9)
    assert numbers["mean"] == pytest.approx(values.mean(), rel=1e-15)


def test_float64_values_are_not_written_by_their_statistics() -> None:
    values = np.random.default_rng(2).normal(5.0, 1.0, size=500)
    kept = values.copy()
    with mock.patch.object(streamstats, "PIECE", 16):
        Moments.of(values)
    np.testing.assert_array_equal(values, kept)

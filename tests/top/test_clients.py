"""The libraries our users already use, called on tensors as their users call them: scikit-learn with
`array_api_dispatch`, SciPy's array-API paths, xarray over a tensor, einops' `array_api`. Each result is
a tensor equal to what the same call gives on numpy arrays (scikit-learn's own array-API suite runs
in ../shared/clients/run_sklearn.sh)."""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read once, when SciPy is first imported

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

sklearn = pytest.importorskip("sklearn")
scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")
xr = pytest.importorskip("xarray")
einops_api = pytest.importorskip("einops.array_api")

RNG = np.random.default_rng(7)
A = RNG.normal(size=40)
B = RNG.normal(size=40) + 0.4


def _same(result: Any, expected: Any) -> None:
    """`result` is a tensor (or a tuple of them) equal to numpy's `expected`, to rounding."""
    results = tuple(result) if isinstance(result, tuple) else (result,)
    wanted = tuple(expected) if isinstance(expected, tuple) else (expected,)
    for got, want in zip(results, wanted, strict=True):
        assert isinstance(got, lt.AbstractTensor), type(got)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, equal_nan=True)


def test_scipy_sees_the_array_api_switch() -> None:
    from scipy._lib import _array_api_override

    assert _array_api_override.SCIPY_ARRAY_API, "SciPy was imported before SCIPY_ARRAY_API=1 was set"


SCIPY_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "normaltest": lambda x, y: scipy_stats.normaltest(x),
    "skewtest": lambda x, y: scipy_stats.skewtest(x),
    "logsumexp": lambda x, y: scipy_special.logsumexp(x),
    "pearsonr": lambda x, y: scipy_stats.pearsonr(x, y),
    "ttest_ind": lambda x, y: scipy_stats.ttest_ind(x, y),
    "ttest_rel": lambda x, y: scipy_stats.ttest_rel(x, y),
    "ttest_1samp": lambda x, y: scipy_stats.ttest_1samp(x, 0.0),
    "levene": lambda x, y: scipy_stats.levene(x, y),
    "quantile": lambda x, y: scipy_stats.quantile(x, 0.3),
    "variation": lambda x, y: scipy_stats.variation(x),
}


@pytest.mark.parametrize("name", sorted(SCIPY_CALLS))
def test_scipy_returns_tensors_equal_to_its_numpy_results(name: str) -> None:
    call = SCIPY_CALLS[name]
    _same(call(lt.asarray(A), lt.asarray(B)), call(A, B))


def test_scikit_learn_fits_and_predicts_on_tensors() -> None:
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression

    x = RNG.normal(size=(60, 3))
    y = (x @ [1.0, -2.0, 0.5] > 0).astype(np.float64)
    numpy_model = LogisticRegression().fit(x, y)
    with sklearn.config_context(array_api_dispatch=True):
        model = LogisticRegression().fit(lt.asarray(x), lt.asarray(y))
        predicted = model.predict(lt.asarray(x))
        reduced = PCA(n_components=2, svd_solver="full").fit_transform(lt.asarray(x))
    assert isinstance(predicted, lt.AbstractTensor) and isinstance(model.coef_, lt.AbstractTensor)
    np.testing.assert_array_equal(np.asarray(predicted), numpy_model.predict(x))
    np.testing.assert_allclose(np.asarray(model.coef_), numpy_model.coef_, rtol=1e-6)
    _same(reduced, PCA(n_components=2, svd_solver="full").fit_transform(x))


def _data_array(values: Any) -> Any:
    return xr.DataArray(values, dims=("x", "y"), coords={"x": [10, 20, 30], "y": list("abcd")})


XARRAY_CALLS: dict[str, Callable[[Any], Any]] = {
    "where": lambda d: d.where(d > 3),
    "fillna": lambda d: d.fillna(-1.0),
    "reindex": lambda d: d.reindex(x=[10, 15, 30]),
    "align": lambda d: xr.align(d, d.isel(x=slice(0, 2)).assign_coords(x=[10, 40]), join="outer")[1],
    "idxmax": lambda d: d.fillna(0.0).argmax("y"),
    "rolling": lambda d: d.rolling(y=2).mean(),
    "shift": lambda d: d.shift(y=1),
    "pad": lambda d: d.pad(y=1),
    "dot": lambda d: d.dot(d, dim="y"),
    "weighted": lambda d: d.weighted(xr.DataArray([1.0, 2.0, 3.0], dims="x")).mean("x"),
    "differentiate": lambda d: d.differentiate("x"),
    "isin": lambda d: d.isin([1.0, 2.0]),
}


@pytest.mark.parametrize("name", sorted(XARRAY_CALLS))
def test_xarray_over_a_tensor_gives_numpys_results(name: str) -> None:
    values = np.arange(12.0).reshape(3, 4)
    values[1, 2] = np.nan
    call = XARRAY_CALLS[name]
    result, expected = call(_data_array(lt.asarray(values.copy()))), call(_data_array(values))
    assert isinstance(result.data, lt.AbstractTensor), type(result.data)
    np.testing.assert_allclose(
        np.asarray(result.data, dtype=float), expected.values.astype(float), equal_nan=True
    )


def test_xarray_idxmax_labels_as_numpys() -> None:
    values = np.array([[1.0, 5.0, 2.0], [7.0, np.nan, 0.0]])
    coords = {"y": list("abc")}
    result = xr.DataArray(lt.asarray(values), dims=("x", "y"), coords=coords).idxmax("y")
    assert (
        result.values.tolist()
        == xr.DataArray(values, dims=("x", "y"), coords=coords).idxmax("y").values.tolist()
    )


def test_a_data_array_selects_lazily_and_writes_through() -> None:
    t = lt.arange(12.0).reshape(3, 4)
    d = xr.DataArray(t, dims=("x", "y"))
    part = d.isel(x=1)
    assert isinstance(part.data, lt.AbstractTensor) and part.data.base is t.base  # a view, no copy
    part[0] = -1.0  # through xarray's view into the tensor's storage
    assert t[1, 0] == -1.0
    assert "0.0 1.0 2.0" in repr(xr.Dataset({"v": d}))  # the values inline, one line


def test_einops_array_api_rearranges_are_write_through_views() -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    flat = einops_api.rearrange(t, "a b c -> (a c) b")
    np.testing.assert_array_equal(
        np.asarray(flat), np.arange(24.0).reshape(2, 3, 4).transpose(0, 2, 1).reshape(8, 3)
    )
    swapped = einops_api.rearrange(t, "a b c -> c b a")
    assert isinstance(swapped, lt.AbstractTensor) and swapped.base is t.base
    swapped[0, 0, 0] = 100.0
    assert t[0, 0, 0] == 100.0
    _same(einops_api.reduce(t, "a b c -> b", "sum"), np.asarray(t).sum(axis=(0, 2)))

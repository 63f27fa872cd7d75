"""`lt.nn`'s pieces against their PyTorch counterparts, written out in numpy: dropout and its mask,
Glorot initialisation, the mean cross-entropy and its label checks, leaky ReLU and ELU with their
gradients (PyTorch's at the kink: `negative_slope` and `alpha` at 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import shapes

import lazytensor as lt
from lazytensor import nn

FINITE = st.floats(-50.0, 50.0, allow_nan=False)


def _grad(f: Any, values: Any) -> np.ndarray:
    x = lt.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
    f(x).sum().backward()
    assert x.grad is not None
    return x.grad.numpy()


@given(shape=shapes(max_dims=3, max_side=5), p=st.floats(0.0, 0.99), seed=st.integers(0, 2**32 - 1))
def test_dropout_mask_keeps_the_draws_at_least_p_and_scales_them(
    shape: tuple[int, ...], p: float, seed: int
) -> None:
    draws = np.random.default_rng(seed).random(shape, dtype=np.float32)
    expected = np.where(draws >= p, 1.0 / (1.0 - p), 0.0)
    got = nn.dropout_mask(shape, p, seed=seed)
    assert got.dtype == np.float64 and got.shape == shape
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(nn.dropout_mask(shape, p, np.random.default_rng(seed)), expected)


def test_dropout_mask_keeps_a_draw_equal_to_p() -> None:
    draws = np.random.default_rng(7).random(5, dtype=np.float32)
    p = float(draws[2])  # exactly representable: the draw is kept, as `draw >= p` says
    expected = np.where(draws >= p, 1.0 / (1.0 - p), 0.0)
    assert expected[2] != 0.0
    np.testing.assert_array_equal(nn.dropout_mask((5,), p, seed=7), expected)


def test_dropout_mask_takes_its_dtype_and_refuses_p_outside_zero_to_one() -> None:
    mask = nn.dropout_mask((3,), 0.5, seed=0, dtype=np.float32)
    assert mask.dtype == np.float32 and set(mask.tolist()) <= {0.0, 2.0}
    assert nn.dropout_mask((3,), 0.0, seed=0).tolist() == [1.0, 1.0, 1.0]
    for p in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=rf"^dropout probability must be in \[0, 1\), got {p}$"):
            nn.dropout_mask((3,), p)


@given(
    values=hnp.arrays(np.float64, shapes(max_dims=2, max_side=4), elements=FINITE),
    p=st.floats(0.01, 0.9),
    seed=st.integers(0, 1000),
)
def test_dropout_multiplies_by_the_mask(values: np.ndarray, p: float, seed: int) -> None:
    got = nn.dropout(lt.tensor(values), p, seed=seed)
    np.testing.assert_array_equal(got.numpy(), values * nn.dropout_mask(values.shape, p, seed=seed))


def test_dropout_is_the_identity_when_not_training_or_p_is_zero() -> None:
    t = lt.tensor([1.0, 2.0, 3.0])
    assert nn.dropout(t, 0.5, training=False) is t
    assert nn.dropout(t, 0.0) is t
    assert nn.dropout(t, 0.0, training=True, seed=1) is t


def test_dropout_keeps_a_float_dtype_and_gives_integers_float64() -> None:
    half = nn.dropout(lt.ones(8, dtype="float32"), 0.5, seed=0)
    assert half.dtype == np.float32
    np.testing.assert_array_equal(half.numpy(), nn.dropout_mask((8,), 0.5, seed=0, dtype=np.float32))
    whole = nn.dropout(lt.tensor([1, 2, 3, 4]), 0.5, seed=0)
    assert whole.dtype == np.float64
    np.testing.assert_array_equal(whole.numpy(), np.array([1, 2, 3, 4]) * nn.dropout_mask((4,), 0.5, seed=0))


@given(fan_in=st.integers(1, 6), fan_out=st.integers(1, 6), seed=st.integers(0, 1000))
def test_glorot_uniform_draws_in_plus_minus_sqrt_six_over_fans(fan_in: int, fan_out: int, seed: int) -> None:
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    expected = np.random.default_rng(seed).uniform(-limit, limit, size=(fan_in, fan_out))
    w = nn.glorot_uniform(fan_in, fan_out, seed=seed)
    assert w.requires_grad and w.grad_state.node is None and w.shape == (fan_in, fan_out)
    np.testing.assert_array_equal(w.numpy(), expected)
    np.testing.assert_array_equal(
        nn.glorot_uniform(fan_in, fan_out, np.random.default_rng(seed)).numpy(), expected
    )


def _cross_entropy(logits: np.ndarray, labels: np.ndarray) -> float:
    """torch.nn.functional.cross_entropy (mean reduction), by logsumexp."""
    top = logits.max(axis=1, keepdims=True)
    log_probabilities = logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
    return float(-log_probabilities[np.arange(len(labels)), labels].mean())


@st.composite
def _classification(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n, classes = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    logits = draw(hnp.arrays(np.float64, (n, classes), elements=FINITE))
    labels = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, classes - 1)))
    return logits, labels


@given(problem=_classification())
def test_cross_entropy_is_the_mean_negative_log_softmax_of_the_labels(
    problem: tuple[np.ndarray, np.ndarray],
) -> None:
    logits, labels = problem
    assert nn.cross_entropy(lt.tensor(logits), labels).item() == pytest.approx(
        _cross_entropy(logits, labels), rel=1e-12, abs=1e-12
    )
    softmax = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    one_hot = np.eye(logits.shape[1])[labels]
    grad = _grad(lambda t: nn.cross_entropy(t, lt.tensor(labels)), logits)
    np.testing.assert_allclose(grad, (softmax - one_hot) / len(labels), atol=1e-12)


def test_cross_entropy_takes_unsigned_labels() -> None:
    logits = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    labels = np.array([2, 0], dtype=np.uint8)
    assert nn.cross_entropy(lt.tensor(logits), labels).item() == pytest.approx(_cross_entropy(logits, labels))


@pytest.mark.parametrize(
    ("labels", "shape", "error", "message"),
    [
        ([0, 1], (2,), ValueError, r"^cross_entropy takes \(n, classes\) logits, got shape \(2,\)$"),
        ([0], (1, 2, 2), ValueError, r"^cross_entropy takes \(n, classes\) logits, got shape \(1, 2, 2\)$"),
        ([0.0, 1.0], (2, 2), TypeError, r"^cross_entropy labels must be integers, got dtype float64$"),
        ([True, False], (2, 2), TypeError, r"^cross_entropy labels must be integers, got dtype bool$"),
        (
            [0, 1, 1],
            (2, 3),
            ValueError,
            r"^cross_entropy needs 2 labels for logits of shape \(2, 3\), got \(3,\)$",
        ),
        ([[0, 1]], (2, 2), ValueError, r"^cross_entropy needs 2 labels .* got \(1, 2\)$"),
        ([0, 2], (2, 2), IndexError, r"^cross_entropy label 2 at position 1 is out of range for 2 classes$"),
        (
            [-1, 5],
            (2, 2),
            IndexError,
            r"^cross_entropy label -1 at position 0 is out of range for 2 classes$",
        ),
    ],
)
def test_cross_entropy_refuses_bad_labels_naming_them(
    labels: Any, shape: tuple[int, ...], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        nn.cross_entropy(lt.zeros(*shape), labels)


def test_cross_entropy_accepts_an_empty_bool_label_array() -> None:
    assert np.isnan(nn.cross_entropy(lt.zeros(0, 2), np.zeros(0, dtype=bool)).item())


@given(
    values=hnp.arrays(np.float64, shapes(max_dims=2, max_side=4), elements=FINITE), slope=st.floats(0.0, 1.0)
)
def test_leaky_relu_as_pytorch(values: np.ndarray, slope: float) -> None:
    np.testing.assert_array_equal(
        nn.leaky_relu(lt.tensor(values), slope).numpy(), np.where(values > 0, values, values * slope)
    )
    grad = _grad(lambda t: nn.leaky_relu(t, slope), values)
    np.testing.assert_array_equal(grad, np.where(values > 0, 1.0, slope))


def test_leaky_relu_defaults_to_a_slope_of_a_hundredth_and_its_gradient_at_zero_is_the_slope() -> None:
    assert nn.leaky_relu(lt.tensor([-2.0, 0.0, 3.0])).tolist() == [-0.02, 0.0, 3.0]
    assert _grad(lambda t: nn.leaky_relu(t, 0.2), [-2.0, 0.0, 3.0]).tolist() == [0.2, 0.2, 1.0]


@given(
    values=hnp.arrays(np.float64, shapes(max_dims=2, max_side=4), elements=FINITE), alpha=st.floats(0.1, 3.0)
)
def test_elu_as_pytorch(values: np.ndarray, alpha: float) -> None:
    expected = np.where(values > 0, values, alpha * np.expm1(np.minimum(values, 0.0)))
    np.testing.assert_allclose(nn.elu(lt.tensor(values), alpha).numpy(), expected, rtol=1e-12, atol=1e-15)
    grad = _grad(lambda t: nn.elu(t, alpha), values)
    np.testing.assert_allclose(
        grad, np.where(values > 0, 1.0, alpha * np.exp(np.minimum(values, 0.0))), rtol=1e-12
    )


def test_elu_defaults_to_alpha_one_and_its_gradient_at_zero_is_alpha() -> None:
    assert nn.elu(lt.tensor([-1000.0]))[0].item() == -1.0
    assert _grad(lambda t: nn.elu(t, 2.0), [-1.0, 0.0, 1.0]).tolist() == pytest.approx(
        [2 * np.exp(-1.0), 2.0, 1.0]
    )

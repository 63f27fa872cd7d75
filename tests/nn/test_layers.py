"""`lt.nn`'s PyTorch layers against numpy: `Linear`'s forward and gradients, its initialisations,
`Sequential`, `ReLU`, `Dropout` (identity in evaluation mode), `Embedding` (a view whose gradient
reaches the rows looked up), and optimisers training them; against PyTorch's own numbers, stored in
`golden/torch_linear.npz` (the suite does not need PyTorch)."""

from __future__ import annotations

import collections
import importlib.util
import math
from typing import Any

import numpy as np
import pytest
from golden_files import GOLDEN, UPDATE
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import shapes

import lazytensor as lt
from lazytensor import nn

FINITE = st.floats(-10.0, 10.0, allow_nan=False)


@st.composite
def linear_cases(draw: st.DrawFn) -> tuple[int, int, np.ndarray, int, bool]:
    """Sizes, an input `(*batch, in)` (any batch axes, sizes 0 and 1 too), a seed, and whether a bias."""
    fan_in, fan_out = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    batch = draw(shapes(max_dims=2, max_side=3))
    x = draw(hnp.arrays(np.float64, (*batch, fan_in), elements=FINITE))
    return fan_in, fan_out, x, draw(st.integers(0, 2**32 - 1)), draw(st.booleans())


@given(case=linear_cases())
def test_linear_is_x_times_the_weight_transposed_plus_the_bias_with_numpys_gradients(
    case: tuple[int, int, np.ndarray, int, bool],
) -> None:
    fan_in, fan_out, x, seed, bias = case
    layer = nn.Linear(fan_in, fan_out, bias, seed=seed)
    w = layer.weight.numpy()
    assert w.shape == (fan_out, fan_in) and (layer.bias is None) == (not bias)
    b = layer.bias.numpy() if bias else np.zeros(fan_out)
    expected = x @ w.T + b
    xt = lt.tensor(x, requires_grad=True)
    y = layer(xt)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(seed).standard_normal(expected.shape)
    (y * lt.tensor(g)).sum().backward()
    rows = math.prod(x.shape[:-1])
    flat_x, flat_g = x.reshape(rows, fan_in), g.reshape(rows, fan_out)
    assert layer.weight.grad is not None and xt.grad is not None
    np.testing.assert_allclose(layer.weight.grad.numpy(), flat_g.T @ flat_x, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(xt.grad.numpy(), g @ w, rtol=1e-10, atol=1e-10)
    if bias:
        assert layer.bias.grad is not None
        np.testing.assert_allclose(layer.bias.grad.numpy(), flat_g.sum(axis=0), rtol=1e-10, atol=1e-10)


@given(fan_in=st.integers(1, 6), fan_out=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_linear_starts_as_pytorchs_uniform_in_one_over_the_root_of_fan_in(
    fan_in: int, fan_out: int, seed: int
) -> None:
    layer = nn.Linear(fan_in, fan_out, seed=seed)
    bound = 1 / math.sqrt(fan_in)
    rng = np.random.default_rng(seed)  # the weight's draws, then the bias's
    np.testing.assert_array_equal(layer.weight.numpy(), rng.uniform(-bound, bound, (fan_out, fan_in)))
    np.testing.assert_array_equal(layer.bias.numpy(), rng.uniform(-bound, bound, fan_out))
    again = nn.Linear(fan_in, fan_out, seed=np.random.default_rng(seed))
    np.testing.assert_array_equal(again.weight.numpy(), layer.weight.numpy())


@given(fan_in=st.integers(1, 6), fan_out=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_linear_with_glorot_weights_is_glorot_uniform_transposed_and_a_zero_bias(
    fan_in: int, fan_out: int, seed: int
) -> None:
    layer = nn.Linear(fan_in, fan_out, weight_initializer="glorot", bias_initializer="zeros", seed=seed)
    glorot = nn.glorot_uniform(fan_in, fan_out, seed=seed).numpy()
    np.testing.assert_array_equal(layer.weight.numpy(), glorot.T)
    assert layer.bias.tolist() == [0.0] * fan_out and layer.weight.is_contiguous()


def test_linear_keeps_its_dtype_and_refuses_bad_arguments_naming_them() -> None:
    layer = nn.Linear(2, 3, seed=0, dtype="float32")
    assert layer.weight.dtype == layer.bias.dtype == np.float32
    assert layer(lt.ones(2, dtype="float32")).dtype == np.float32
    assert nn.Linear(0, 2, seed=0).bias.tolist() == [0.0, 0.0]  # no inputs: PyTorch's bound is 0
    with pytest.raises(TypeError, match=r"^Linear: parameters are floating, not dtype int64$"):
        nn.Linear(2, 3, dtype="int64")
    with pytest.raises(ValueError, match=r"^Linear: in_features must be non-negative, got -1$"):
        nn.Linear(-1, 3)
    with pytest.raises(TypeError, match=r"^Linear: out_features must be an integer, got 2.5$"):
        nn.Linear(2, 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"weight_initializer must be one of .*, got 'xavier'"):
        nn.Linear(2, 2, weight_initializer="xavier")
    with pytest.raises(ValueError, match=r"bias_initializer must be one of .*, got 'ones'"):
        nn.Linear(2, 2, bias_initializer="ones")
    with pytest.raises(ValueError, match=r"matmul: shapes \(4, 3\) and \(2, 3\) are not aligned"):
        layer(lt.ones(4, 3, dtype="float32"))


# -- Sequential and ReLU ---------------------------------------------------------------------------


def test_sequential_calls_its_modules_in_order_and_indexes_like_a_list() -> None:
    first, second = nn.Linear(3, 4, seed=0), nn.Linear(4, 2, seed=1)
    net = nn.Sequential(first, nn.ReLU(), second)
    x = lt.tensor(np.random.default_rng(0).standard_normal((5, 3)))
    np.testing.assert_array_equal(net(x).numpy(), second(first(x).relu()).numpy())
    assert len(net) == 3 and list(net) == [first, net[1], second] and net[-1] is second
    head = net[:2]
    assert isinstance(head, nn.Sequential) and list(head) == [first, net[1]] and head[0] is first
    assert net.append(nn.ReLU()) is net and len(net) == 4
    with pytest.raises(IndexError, match=r"^index 4 is out of range for a Sequential of 4 modules$"):
        net[4]
    with pytest.raises(TypeError, match=r"^Sequential takes modules, got a function$"):
        nn.Sequential(first, lambda t: t)  # type: ignore[arg-type]


def test_sequential_takes_names_from_a_mapping() -> None:
    net = nn.Sequential(collections.OrderedDict([("hidden", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [name for name, _ in net.named_children()] == ["hidden", "act"]
    assert list(net.state_dict()) == ["hidden.weight", "hidden.bias"]


@given(values=hnp.arrays(np.float64, shapes(max_dims=3), elements=FINITE))
def test_relu_is_numpys_maximum_with_zero(values: np.ndarray) -> None:
    np.testing.assert_array_equal(nn.ReLU()(lt.tensor(values)).numpy(), np.maximum(values, 0.0))


# -- Dropout ---------------------------------------------------------------------------------------


@given(shape=shapes(max_dims=3), p=st.floats(0.0, 0.95), seed=st.integers(0, 2**32 - 1))
def test_dropout_draws_one_mask_per_call_from_its_generator_and_is_the_identity_in_eval(
    shape: tuple[int, ...], p: float, seed: int
) -> None:
    drop = nn.Dropout(p, seed=seed)
    x = lt.ones(shape, dtype="float32")
    draws = np.random.default_rng(seed)
    for _ in range(2):  # two calls, two masks, drawn one after the other
        expected = nn.dropout_mask(shape, p, draws, np.float32)
        np.testing.assert_array_equal(drop(x).numpy(), expected)
    drop.eval()
    assert drop(x) is x
    drop.train()
    np.testing.assert_array_equal(drop(x).numpy(), nn.dropout_mask(shape, p, draws, np.float32))


def test_dropout_refuses_a_probability_outside_zero_to_one() -> None:
    for p in (1.0, -0.5):
        with pytest.raises(ValueError, match=rf"^dropout probability must be in \[0, 1\), got {p}$"):
            nn.Dropout(p)


# -- Embedding -------------------------------------------------------------------------------------


@given(
    num=st.integers(1, 6),
    dim=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
    index_shape=shapes(max_dims=2, max_side=4),
    data=st.data(),
)
def test_an_embedding_is_a_view_of_its_rows_and_its_gradient_adds_up_on_them(
    num: int, dim: int, seed: int, index_shape: tuple[int, ...], data: st.DataObject
) -> None:
    table = nn.Embedding(num, dim, seed=seed)
    np.testing.assert_array_equal(
        table.weight.numpy(), np.random.default_rng(seed).standard_normal((num, dim))
    )
    index = data.draw(hnp.arrays(np.int64, index_shape, elements=st.integers(-num, num - 1)))
    rows = table(lt.tensor(index))
    assert rows.shape == (*index_shape, dim) and rows.base is table.weight
    np.testing.assert_array_equal(rows.numpy(), table.weight.numpy()[index])
    g = np.random.default_rng(seed).standard_normal(rows.shape)
    (rows * lt.tensor(g)).sum().backward()
    expected = np.zeros((num, dim))
    np.add.at(expected, index.reshape(-1) % num, g.reshape(index.size, dim))
    assert table.weight.grad is not None
    np.testing.assert_allclose(table.weight.grad.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_an_embedding_lookup_writes_through_to_the_table() -> None:
    table = nn.Embedding(4, 2, seed=0)
    with lt.no_grad():
        table([1, 3])[...] = 0.0
    assert table.weight.numpy()[[1, 3]].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert table([]).shape == (0, 2)
    with pytest.raises(IndexError, match=r"^Embedding looks rows up by integer indices, got dtype float64$"):
        table([0.0])
    with pytest.raises(IndexError):
        table([4])


# -- training --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda ps: lt.optim.SGD(ps, lr=0.5), lambda ps: lt.optim.Adam(ps, lr=0.05)])
def test_optimisers_train_a_small_network_of_modules(make: Any) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2))
    labels = (x[:, 0] * x[:, 1] > 0).astype(np.int64)  # XOR of the signs: needs the hidden layer
    net = nn.Sequential(nn.Linear(2, 16, seed=rng), nn.ReLU(), nn.Linear(16, 2, seed=rng))
    optimizer = make(net.parameters())
    inputs = lt.tensor(x)
    losses = []
    for _ in range(150):
        optimizer.zero_grad()
        loss = nn.cross_entropy(net(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    with lt.no_grad():
        accuracy = (net.eval()(inputs).argmax(1).numpy() == labels).mean()
    assert accuracy > 0.85


def test_an_embedding_trains_through_its_view() -> None:
    table = nn.Embedding(5, 3, seed=0)
    target = np.random.default_rng(1).standard_normal((2, 3))
    optimizer = lt.optim.SGD(table.parameters(), lr=0.2)
    for _ in range(60):
        optimizer.zero_grad()
        ((table([0, 4]) - lt.tensor(target)) ** 2).sum().backward()
        optimizer.step()
    np.testing.assert_allclose(table.weight.numpy()[[0, 4]], target, atol=1e-3)
    np.testing.assert_array_equal(
        table.weight.numpy()[1:4], np.random.default_rng(0).standard_normal((5, 3))[1:4]
    )


# -- against PyTorch's own numbers ------------------------------------------------------------------

TORCH_LINEAR = GOLDEN / "torch_linear.npz"
"""What PyTorch computed, so the suite compares with it without PyTorch installed (rewritten with
`LAZYTENSOR_UPDATE_GOLDEN=1` where torch is): `torch.nn.Linear(7, 5).double()` after
`torch.manual_seed(0)`, its output on `x`, and the range, mean and std of a fresh
`torch.nn.Linear(400, 300)`'s weight and bias."""


def _torch_linear() -> dict[str, np.ndarray]:
    """The fixture's arrays, computed by PyTorch now."""
    import torch

    torch.manual_seed(0)
    layer = torch.nn.Linear(7, 5).double()
    x = np.random.default_rng(0).standard_normal((3, 4, 7))
    big = torch.nn.Linear(400, 300)
    arrays = {name: value.detach().numpy() for name, value in layer.state_dict().items()}
    arrays |= {"x": x, "out": layer(torch.from_numpy(x)).detach().numpy()}
    for name in ("weight", "bias"):
        values = getattr(big, name).detach().numpy().astype(np.float64)
        arrays[f"big_{name}"] = np.array([np.abs(values).max(), values.mean(), values.std()])
    return arrays


def _torch_golden() -> dict[str, np.ndarray]:
    """The fixture; where PyTorch is installed, first checked against what it computes now."""
    if UPDATE:
        np.savez(TORCH_LINEAR, **_torch_linear())
    with np.load(TORCH_LINEAR, allow_pickle=False) as stored:
        golden = dict(stored)
    if importlib.util.find_spec("torch") is not None:
        live = _torch_linear()
        assert set(live) == set(golden)
        for name, values in golden.items():
            np.testing.assert_allclose(values, live[name], rtol=1e-12, err_msg=name)
    return golden


def test_linear_matches_pytorch_on_the_same_weights_and_shares_its_initial_bounds() -> None:
    golden = _torch_golden()
    ours = nn.Linear(7, 5, seed=0)
    ours.load_state_dict({"weight": golden["weight"], "bias": golden["bias"]})
    np.testing.assert_allclose(ours(lt.tensor(golden["x"])).numpy(), golden["out"], rtol=1e-12)
    big = nn.Linear(400, 300, seed=0)
    for name in ("weight", "bias"):  # uniform in ±1/sqrt(400) = ±0.05, both
        values = getattr(big, name).numpy()
        theirs_top, theirs_mean, theirs_std = golden[f"big_{name}"]
        assert 0.049 < theirs_top <= 0.05 and 0.049 < np.abs(values).max() <= 0.05
        assert abs(theirs_mean) < 0.005 and abs(values.mean()) < 0.005
        assert abs(values.std() - theirs_std) < 0.003 and abs(theirs_std - 0.05 / math.sqrt(3)) < 0.002

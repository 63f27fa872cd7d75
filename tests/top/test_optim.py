"""The optimisers' updates are PyTorch's: `torch.optim.SGD` (momentum, weight decay) and
`torch.optim.Adam` (bias-corrected moments, weight decay added to the gradient).

Each test steps lazytensor's optimiser and a numpy transcription of the update rule in
PyTorch's documentation side by side, over random shapes, options and gradients; a
parameter without a gradient is skipped and keeps its state, as in PyTorch.
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
from lazytensor import optim

Array = np.ndarray[Any, np.dtype[np.float64]]
FINITE = st.floats(-10.0, 10.0, allow_nan=False)
RATE = st.floats(0.0, 2.0) | st.sampled_from([0.0, 1.0])


class TorchSGD:
    """torch.optim.SGD's documented step (dampening 0, no Nesterov)."""

    def __init__(self, lr: float, momentum: float, weight_decay: float) -> None:
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay
        self.buffer: Array | None = None

    def step(self, param: Array, grad: Array) -> Array:
        g = grad + self.weight_decay * param if self.weight_decay != 0 else grad
        if self.momentum != 0:
            self.buffer = g.copy() if self.buffer is None else self.momentum * self.buffer + g
            g = self.buffer
        return param - self.lr * g


class TorchAdam:
    """torch.optim.Adam's documented step; `t` counts this parameter's own steps."""

    def __init__(self, lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.m: Array | None = None
        self.v: Array | None = None
        self.t = 0

    def step(self, param: Array, grad: Array) -> Array:
        beta1, beta2 = self.betas
        self.t += 1
        g = grad + self.weight_decay * param if self.weight_decay != 0 else grad
        m = np.zeros_like(g) if self.m is None else self.m
        v = np.zeros_like(g) if self.v is None else self.v
        self.m = beta1 * m + (1 - beta1) * g
        self.v = beta2 * v + (1 - beta2) * g * g
        m_hat = self.m / (1 - beta1**self.t)
        v_hat = self.v / (1 - beta2**self.t)
        return param - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


def _set_grad(w: lt.StorageTensor, grad: Array) -> None:
    """Give `w` the gradient `grad` through backward, as training does: d/dw sum(w * grad) = grad."""
    w.grad_state.grad = None
    (w * lt.tensor(grad)).sum().backward()


@st.composite
def _problem(draw: st.DrawFn) -> tuple[Array, list[Array | None]]:
    """A start value and 1-4 steps' gradients (None: the parameter got no gradient that step)."""
    shape = draw(shapes(max_dims=3, max_side=3))
    start = draw(hnp.arrays(np.float64, shape, elements=FINITE))
    grads = draw(st.lists(st.none() | hnp.arrays(np.float64, shape, elements=FINITE), min_size=1, max_size=4))
    return start, grads


def _run(opt: Any, reference: Any, start: Array, grads: list[Array | None]) -> None:
    w = opt.groups[0].params[0]
    expected = start.copy()
    for step, grad in enumerate(grads):
        w.grad_state.grad = None
        if grad is not None:
            _set_grad(w, grad)
            expected = reference.step(expected, grad)
        opt.step()
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-12, atol=1e-12, err_msg=f"step {step}")


@given(problem=_problem(), lr=RATE, momentum=RATE, weight_decay=RATE)
def test_sgd_steps_as_pytorch(
    problem: tuple[Array, list[Array | None]], lr: float, momentum: float, weight_decay: float
) -> None:
    start, grads = problem
    w = lt.tensor(start.copy(), requires_grad=True)
    opt = optim.SGD([w], lr=lr, momentum=momentum, weight_decay=weight_decay)
    _run(opt, TorchSGD(lr, momentum, weight_decay), start, grads)


@given(
    problem=_problem(),
    lr=RATE,
    betas=st.tuples(st.floats(0.0, 0.99), st.floats(0.0, 0.999)),
    eps=st.sampled_from([1e-8, 1e-3, 0.5]),
    weight_decay=RATE,
)
def test_adam_steps_as_pytorch(
    problem: tuple[Array, list[Array | None]],
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
) -> None:
    start, grads = problem
    w = lt.tensor(start.copy(), requires_grad=True)
    opt = optim.Adam([w], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
    _run(opt, TorchAdam(lr, betas, eps, weight_decay), start, grads)


def test_adam_defaults_are_pytorchs() -> None:
    w = lt.tensor([0.0, 1.0, -3.0], requires_grad=True)
    opt = optim.Adam([w])
    reference = TorchAdam(lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
    _run(opt, reference, np.array([0.0, 1.0, -3.0]), [np.array([1e-9, 0.0, 2.0])] * 3)


def test_sgd_defaults_take_no_momentum_and_no_decay() -> None:
    w = lt.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.5)
    _run(opt, TorchSGD(0.5, 0.0, 0.0), np.array([1.0, -2.0]), [np.array([1.0, 1.0])] * 3)


def test_adam_counts_steps_per_parameter() -> None:
    # PyTorch's bias correction uses the parameter's own step count: a parameter that first
    # gets a gradient at the optimiser's third step takes a first step (moving by lr exactly)
    a = lt.tensor([1.0], requires_grad=True)
    b = lt.tensor([1.0], requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    for _ in range(3):
        _set_grad(a, np.array([2.0]))
        opt.step()
    _set_grad(b, np.array([3.0]))
    opt.step()
    assert b.numpy() == pytest.approx([0.9], rel=1e-7)


@pytest.mark.parametrize(
    ("cls", "options", "reference"),
    [
        (
            optim.SGD,
            {"lr": 0.5, "momentum": 0.5},
            lambda o: TorchSGD(o["lr"], o["momentum"], o["weight_decay"]),
        ),
        (optim.Adam, {"lr": 0.5}, lambda o: TorchAdam(o["lr"], (0.9, 0.999), 1e-8, o["weight_decay"])),
    ],
)
def test_each_group_steps_with_its_own_options(cls: Any, options: dict[str, Any], reference: Any) -> None:
    a = lt.tensor([1.0, 2.0], requires_grad=True)
    b = lt.tensor([[-1.0], [3.0]], requires_grad=True)
    c = lt.tensor([4.0], requires_grad=True)
    opt = cls([{"params": [a, b], "weight_decay": 0.25}, {"params": c, "lr": 0.125}], **options)
    references = {
        id(a): reference({**options, "weight_decay": 0.25}),
        id(b): reference({**options, "weight_decay": 0.25}),
        id(c): reference({**options, "lr": 0.125, "weight_decay": 0.0}),
    }
    expected = {id(p): p.numpy().copy() for p in (a, b, c)}
    for _ in range(3):
        for p in (a, b, c):
            grad = np.ones(p.shape) * 0.5 + p.numpy()
            _set_grad(p, grad)
            expected[id(p)] = references[id(p)].step(expected[id(p)], grad)
        opt.step()
        for p in (a, b, c):
            np.testing.assert_allclose(p.numpy(), expected[id(p)], rtol=1e-12)


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_zero_grad_forgets_every_gradient(cls: Any) -> None:
    a = lt.tensor([1.0], requires_grad=True)
    b = lt.tensor([2.0], requires_grad=True)
    opt = cls([{"params": [a]}, {"params": [b]}], lr=0.1)
    (a * b).sum().backward()
    assert a.grad is not None and b.grad is not None
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    opt.step()  # nothing to step
    assert a.tolist() == [1.0] and b.tolist() == [2.0]


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_a_parameter_without_a_gradient_is_skipped_and_the_others_step(cls: Any) -> None:
    a = lt.tensor([1.0], requires_grad=True)
    b = lt.tensor([1.0], requires_grad=True)
    c = lt.tensor([1.0], requires_grad=True)
    opt = cls([{"params": [a, b]}, {"params": [c]}], lr=0.5)
    _set_grad(b, np.array([1.0]))
    _set_grad(c, np.array([1.0]))
    opt.step()
    assert a.tolist() == [1.0] and a.version == 0
    assert b.tolist() == pytest.approx([0.5]) and c.tolist() == pytest.approx([0.5])  # both move by lr here


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_without_weight_decay_the_values_stay_out_of_the_gradient(cls: Any) -> None:
    # PyTorch adds `weight_decay * param` only when weight_decay != 0: an infinite entry stays
    # infinite and does not turn its gradient into 0 * inf = NaN
    w = lt.tensor([np.inf, 1.0], requires_grad=True)
    _set_grad(w, np.array([1.0, 1.0]))
    cls([w], lr=0.5).step()
    assert w.numpy()[0] == np.inf and np.isfinite(w.numpy()[1])


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_a_step_writes_through_every_view_of_the_parameter(cls: Any) -> None:
    w = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    view = w[::-1]
    _set_grad(w, np.array([1.0, 1.0, 1.0]))
    before = w.version
    cls([w], lr=0.5).step()
    assert w.version == before + 1
    assert view.tolist() == w.tolist()[::-1] and w.tolist() != [1.0, 2.0, 3.0]


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_a_group_may_hold_a_single_tensor(cls: Any) -> None:
    w = lt.tensor([1.0], requires_grad=True)
    opt = cls([{"params": w}], lr=0.1)
    assert opt.groups[0].params == [w]


def test_a_groups_options_are_the_defaults_overridden_by_its_own() -> None:
    a, b, c = (lt.tensor([1.0], requires_grad=True) for _ in range(3))
    opt = optim.SGD([{"params": [a], "lr": 0.5}, b, {"params": (c,), "momentum": 0.9}], lr=0.1)
    assert [group.params for group in opt.groups] == [[a], [b], [c]]
    assert [group.options for group in opt.groups] == [
        {"lr": 0.5, "momentum": 0.0, "weight_decay": 0.0},
        {"lr": 0.1, "momentum": 0.0, "weight_decay": 0.0},
        {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.0},
    ]
    adam = optim.Adam([{"params": [a], "betas": (0.5, 0.5)}])
    assert adam.groups[0].options == {"lr": 0.01, "betas": (0.5, 0.5), "eps": 1e-8, "weight_decay": 0.0}


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_the_refusal_names_what_was_passed(cls: Any) -> None:
    with pytest.raises(TypeError, match=r"^params must be an iterable .*, got a int$"):
        cls(3, lr=0.1)
    with pytest.raises(ValueError, match=r"got a StorageTensor of shape \(2,\)$"):
        cls([lt.tensor([1.0, 2.0])], lr=0.1)
    with pytest.raises(ValueError, match=r"got a int of shape None$"):
        cls([5], lr=0.1)
    w = lt.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"of shape \(1,\) that is the result of an operation$"):
        cls([w * 2], lr=0.1)
    with pytest.raises(TypeError, match=r"^unknown optimiser options \['nesterov', 'zz'\]$"):
        cls([{"params": [w], "zz": 1, "nesterov": True}], lr=0.1)
    with pytest.raises(ValueError, match=r"^parameter group 1 has no 'params' entry$"):
        cls([{"params": [w]}, {"lr": 0.1}], lr=0.1)
    with pytest.raises(ValueError, match=r"^optimiser got an empty parameter list$"):
        cls([{"params": []}], lr=0.1)


def test_option_errors_name_the_option_and_the_value() -> None:
    w = lt.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"^invalid lr: -1\.0 \(must be finite and >= 0\)$"):
        optim.SGD([w], lr=-1.0)
    with pytest.raises(TypeError, match=r"^momentum must be a real number, got 'a' of type str$"):
        optim.SGD([w], lr=0.1, momentum="a")
    with pytest.raises(ValueError, match=r"^invalid betas\[1\]: 1\.0 \(must be in \[0, 1\)\)$"):
        optim.Adam([w], betas=(0.5, 1.0))
    with pytest.raises(TypeError, match=r"^betas\[0\] must be a real number"):
        optim.Adam([w], betas=("a", 0.5))
    with pytest.raises(TypeError, match=r"^betas must be a pair \(beta1, beta2\), got 0\.5$"):
        optim.Adam([w], betas=0.5)
    optim.Adam([w], betas=[0.0, 0.5], eps=0.0, weight_decay=0.0, lr=0.0)  # the boundaries are in range
    optim.SGD([w], lr=0, momentum=0, weight_decay=0)  # ints are real numbers

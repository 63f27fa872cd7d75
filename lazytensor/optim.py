"""Optimisers that update parameters in place: SGD with momentum, and Adam.

Parameters are leaf storage tensors (`requires_grad=True`). Either pass a list of
them, or a list of groups `{"params": [...], "weight_decay": ...}` to set options
per group, as the reference GCN decays only its first layer's weights.

Construction checks what PyTorch checks, and a little more: a parameter listed twice
(it would take two steps per `step()`) and hyper-parameters that are not finite real
numbers in their range (a negative or NaN learning rate, betas outside [0, 1)) are
refused with an error naming the parameter or option.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from lazytensor.engine.autograd import no_grad
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor

Array = npt.NDArray[np.float64]
Params = Iterable[StorageTensor] | Iterable[Mapping[str, Any]]


@attrs.define
class ParamGroup:
    """Parameters sharing the same options."""

    params: list[StorageTensor]
    options: dict[str, Any]


def _groups(params: Params, defaults: dict[str, Any]) -> list[ParamGroup]:
    """The parameter groups, each with every option; the whole list is checked before any is used."""
    if isinstance(params, AbstractTensor) or not isinstance(params, Iterable):
        raise TypeError(
            "params must be an iterable of tensors or of groups {'params': [...], ...}, "
            f"got a {type(params).__name__}"
        )
    _check_options(defaults)
    groups: list[ParamGroup] = []
    for entry in params:
        if isinstance(entry, Mapping):
            unknown = set(entry) - {"params"} - set(defaults)
            if unknown:
                raise TypeError(f"unknown optimiser options {sorted(unknown)}")
            if "params" not in entry:
                raise ValueError(f"parameter group {len(groups)} has no 'params' entry")
            _check_options(entry, f" of parameter group {len(groups)}")
            members = entry["params"]
            members = [members] if isinstance(members, AbstractTensor) else list(members)
            options = {**defaults, **{k: v for k, v in entry.items() if k != "params"}}
            groups.append(ParamGroup(members, options))
        else:
            groups.append(ParamGroup([entry], dict(defaults)))
    seen: dict[int, int] = {}
    for group in groups:
        for param in group.params:
            _check_param(param)
            if id(param) in seen:
                raise ValueError(
                    f"parameter {len(seen)} (shape {param.shape}) is parameter {seen[id(param)]} "
                    "again: each parameter may appear once (it would be stepped once per appearance)"
                )
            seen[id(param)] = len(seen)
    if not seen:
        raise ValueError("optimiser got an empty parameter list")
    return groups


def _check_param(param: Any) -> None:
    if not isinstance(param, StorageTensor) or not param.requires_grad or param.grad_state.node:
        shape = getattr(param, "shape", None)
        raise ValueError(
            f"optimisers take leaf storage tensors that require grad; got a {type(param).__name__}"
            f" of shape {shape}"
            + (" that is the result of an operation" if getattr(param, "requires_grad", False) else "")
        )


def _real(name: str, value: Any) -> float:
    """`value` as a float, or TypeError naming the option when it is no real number (a bool is none)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    return float(value)


def _at_least_zero(name: str, value: Any) -> None:
    number = _real(name, value)
    if not (math.isfinite(number) and number >= 0.0):
        raise ValueError(f"invalid {name}: {value!r} (must be finite and >= 0)")


def _betas(name: str, value: Any) -> None:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (beta1, beta2), got {value!r}")
    for index, beta in enumerate(value):
        number = _real(f"{name}[{index}]", beta)
        if not 0.0 <= number < 1.0:
            raise ValueError(f"invalid {name}[{index}]: {beta!r} (must be in [0, 1))")


_CHECKS: dict[str, Callable[[str, Any], None]] = {
    "lr": _at_least_zero,
    "momentum": _at_least_zero,
    "weight_decay": _at_least_zero,
    "eps": _at_least_zero,
    "betas": _betas,
}


def _check_options(options: Mapping[str, Any], where: str = "") -> None:
    """Options in range, as PyTorch checks them (NaN and inf refused too); `where` names a group."""
    for name, value in options.items():
        if name != "params":
            _CHECKS[name](name + where, value)


def _gradient(param: StorageTensor, weight_decay: float) -> Array | None:
    if param.grad is None:
        return None
    grad: Array = param.grad.numpy()
    return grad + weight_decay * param.numpy() if weight_decay else grad


@attrs.define
class _Optimizer:
    groups: list[ParamGroup]

    def zero_grad(self) -> None:
        """Forget every parameter's accumulated gradient."""
        for group in self.groups:
            for param in group.params:
                param.grad_state.grad = None


class SGD(_Optimizer):
    """Stochastic gradient descent with optional momentum and weight decay.

    >>> import lazytensor as lt
    >>> w = lt.tensor([1.0], requires_grad=True)
    >>> opt = SGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w.tolist()
    [0.8]
    """

    def __init__(self, params: Params, lr: float, momentum: float = 0.0, weight_decay: float = 0.0) -> None:
        super().__init__(_groups(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay}))
        self._velocity: dict[int, Array] = {}

    def step(self) -> None:
        """Move every parameter against its gradient."""
        with no_grad():
            for group in self.groups:
                lr, momentum, decay = (group.options[k] for k in ("lr", "momentum", "weight_decay"))
                for param in group.params:
                    grad = _gradient(param, decay)
                    if grad is None:
                        continue
                    if momentum:
                        velocity = self._velocity.get(id(param))
                        grad = grad if velocity is None else momentum * velocity + grad
                        self._velocity[id(param)] = grad
                    values = param.numpy()
                    values -= lr * grad
                    param.note_write()


class Adam(_Optimizer):
    """Adam (Kingma & Ba), with weight decay added to the gradient as the reference GCN's L2 loss does.

    The bias correction counts each parameter's own steps, as PyTorch does: a parameter that
    had no gradient at a step did not take it.

    >>> import lazytensor as lt
    >>> w = lt.tensor([1.0], requires_grad=True)
    >>> opt = Adam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> round(w.item(), 6)
    0.9
    """

    def __init__(
        self,
        params: Params,
        lr: float = 0.01,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        super().__init__(_groups(params, defaults))
        self._moments: dict[int, tuple[int, Array, Array]] = {}  # steps taken, first and second moment

    def step(self) -> None:
        """One Adam update of every parameter that has a gradient."""
        with no_grad():
            for group in self.groups:
                for param in group.params:
                    self._update(param, group.options)

    def _update(self, param: StorageTensor, options: dict[str, Any]) -> None:
        grad = _gradient(param, options["weight_decay"])
        if grad is None:
            return
        beta1, beta2 = options["betas"]
        steps, first, second = self._moments.get(id(param), (0, np.zeros_like(grad), np.zeros_like(grad)))
        steps += 1  # the parameter's own count, as PyTorch's: one that had no gradient did not step
        first = beta1 * first + (1 - beta1) * grad
        second = beta2 * second + (1 - beta2) * grad * grad
        self._moments[id(param)] = (steps, first, second)
        corrected_first = first / (1 - beta1**steps)
        corrected_second = second / (1 - beta2**steps)
        values = param.numpy()
        values -= options["lr"] * corrected_first / (np.sqrt(corrected_second) + options["eps"])
        param.note_write()

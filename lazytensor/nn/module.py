"""`Module`, PyTorch's container of parameters and submodules, and `Parameter`, the leaf a module learns.

A module registers what is assigned to its attributes: a `Parameter`, or any leaf storage tensor that
requires grad, becomes a parameter; a `Module` becomes a submodule; anything else (a tensor that needs
no gradient, the result of an operation, a number) stays a plain attribute. So PyTorch's
`self.weight = nn.Parameter(...)` and lazytensor's `self.weight = lt.zeros(3, requires_grad=True)`
both register `weight`. `parameters()`, `state_dict()` and the rest walk what was registered, in the
order it was.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from lazytensor.engine.autograd import no_grad
from lazytensor.ground.positions import Shape
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor

__all__ = ["IncompatibleKeys", "Module", "Parameter", "StateDictError"]


class Parameter(StorageTensor):
    """A leaf tensor that requires grad: what a module learns (PyTorch's `nn.Parameter`).

    Made from a storage tensor it shares that tensor's memory, as PyTorch's does; from anything else
    (a view, a list, a numpy array) it holds a copy, as `lt.tensor` does.

    >>> import lazytensor as lt
    >>> base = lt.zeros(2, 3)
    >>> w = lt.nn.Parameter(base)
    >>> w.requires_grad, w.is_leaf, w.shares_storage(base), isinstance(w, lt.StorageTensor)
    (True, True, True, True)
    """

    def __init__(self, data: Any, requires_grad: bool = True) -> None:
        if isinstance(data, StorageTensor):
            super().__init__(data.buffer, data.shape)
            self.grad_state.version = data.grad_state.version  # one memory, one count of writes
        else:
            values = np.array(data.numpy() if isinstance(data, AbstractTensor) else data, order="C")
            super().__init__(values.reshape(-1), values.shape)
        self.requires_grad_(requires_grad)

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        """`copy.deepcopy`: a parameter again, over a copy of the values (so a copied module learns
        on its own)."""
        return Parameter(self.clone(), self.requires_grad)


def _is_parameter(value: Any) -> bool:
    """Whether assigning `value` to a module's attribute registers it as a parameter: a leaf storage
    tensor that requires grad (a `Parameter` that does not is one still)."""
    if isinstance(value, Parameter):
        return True
    return isinstance(value, StorageTensor) and value.requires_grad and value.grad_state.node is None


class IncompatibleKeys(NamedTuple):
    """What `load_state_dict(strict=False)` found: the names the module has that the state lacks,
    and the names of the state the module does not have."""

    missing_keys: list[str]
    unexpected_keys: list[str]


class StateDictError(RuntimeError, ValueError):
    """A state that does not fit the module: PyTorch's RuntimeError, and numpy's ValueError for shapes
    that do not match."""


class Module:
    """The base of a network's pieces, as PyTorch's `nn.Module`: subclass it, assign parameters and
    submodules in `__init__` (after `super().__init__()`), and write `forward`; calling the module
    calls `forward`.

    >>> import lazytensor as lt
    >>> class Affine(lt.nn.Module):
    ...     def __init__(self) -> None:
    ...         super().__init__()
    ...         self.scale = lt.nn.Parameter(lt.ones(2))
    ...         self.shift = lt.zeros(2, requires_grad=True)   # a leaf that requires grad: registered too
    ...         self.limit = lt.tensor(10.0)                   # no gradient: a plain attribute
    ...     def forward(self, x):
    ...         return (x * self.scale + self.shift).clip(max=self.limit)
    >>> m = Affine()
    >>> [name for name, _ in m.named_parameters()], m(lt.tensor([3.0, 20.0])).tolist()
    (['scale', 'shift'], [3.0, 10.0])
    """

    training: bool
    """Whether the module is in training mode (`train()`, `eval()`): dropout is active only then."""
    _parameters: dict[str, StorageTensor | None]
    _modules: dict[str, Module | None]

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    # -- registration by attribute -----------------------------------------------------------------

    def _registry(self, kind: str, name: str) -> dict[str, Any]:
        registry: dict[str, Any] | None = self.__dict__.get(kind)
        if registry is None:
            raise AttributeError(
                f"cannot assign {name!r} to a {type(self).__name__} before Module.__init__() is called "
                "(call super().__init__() first)"
            )
        return registry

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Module) or _is_parameter(value):
            kind = "_modules" if isinstance(value, Module) else "_parameters"
            registry = self._registry(kind, name)
            self._forget(name)
            registry[name] = value
            return
        for kind, expected in (("_parameters", "a Parameter"), ("_modules", "a Module")):
            registry = self.__dict__.get(kind, {})
            if name in registry:
                if value is not None:
                    raise TypeError(
                        f"cannot assign a {type(value).__name__} as {kind[1:-1]} {name!r} of "
                        f"{type(self).__name__}: {expected}, a leaf that requires grad, or None expected"
                    )
                registry[name] = None
                return
        object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """`name` removed from wherever it was registered or stored, before it is registered anew."""
        for kind in ("_parameters", "_modules"):
            self.__dict__[kind].pop(name, None)
        self.__dict__.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        """A registered parameter or submodule (Python asks here only when the usual lookup fails)."""
        for kind in ("_parameters", "_modules"):
            registry = self.__dict__.get(kind)
            if registry is not None and name in registry:
                return registry[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for kind in ("_parameters", "_modules"):
            if name in self.__dict__.get(kind, {}):
                del self.__dict__[kind][name]
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.__dict__["_parameters"], *self.__dict__["_modules"]})

    def register_parameter(self, name: str, param: StorageTensor | None) -> None:
        """Register `param` (a leaf that requires grad, or None for a parameter left out, as `bias` of
        `Linear(..., bias=False)`) under `name`.

        >>> import lazytensor as lt
        >>> m = lt.nn.Module()
        >>> m.register_parameter("bias", None)
        >>> m.bias is None, list(m.parameters())
        (True, [])
        """
        self._check_name(name)
        if param is not None and not _is_parameter(param):
            raise TypeError(
                f"cannot register a {type(param).__name__} as parameter {name!r}: a Parameter, a leaf "
                "that requires grad, or None expected"
            )
        self._forget(name)
        self._registry("_parameters", name)[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Register `module` (or None) as the submodule `name` (`self.name = module` does the same for a
        name that is an identifier; `Sequential` names its layers "0", "1", ...)."""
        self._check_name(name)
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"cannot add a {type(module).__name__} as submodule {name!r}: a Module expected")
        self._forget(name)
        self._registry("_modules", name)[name] = module

    register_module = add_module

    def _check_name(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"a parameter or submodule name must be a string, got {type(name).__name__}")
        if not name or "." in name:
            raise KeyError(f"a parameter or submodule name is a non-empty string without '.', got {name!r}")

    # -- walking what was registered ---------------------------------------------------------------

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every module below it, each once (a shared one under its first name), with
        its dotted name ("" for this one).

        >>> import lazytensor as lt
        >>> net = lt.nn.Sequential(lt.nn.Linear(2, 2), lt.nn.ReLU())
        >>> [name for name, _ in net.named_modules()]
        ['', '0', '1']
        """
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:  # a loop, not recursion: a module tree may be deep
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            below = [(_dotted(name, child), m) for child, m in module._modules.items() if m is not None]
            stack.extend(reversed(below))

    def modules(self) -> Iterator[Module]:
        """This module and every module below it, each once."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The submodules registered on this module, each once, with their names."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The submodules registered on this module, each once."""
        for _, module in self.named_children():
            yield module

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, StorageTensor]]:
        """Every parameter, each once (a shared one under its first name), with its dotted name
        (`"layers.0.weight"`), in the order it was registered, module by module.

        >>> import lazytensor as lt
        >>> net = lt.nn.Sequential(lt.nn.Linear(3, 2), lt.nn.ReLU(), lt.nn.Linear(2, 1))
        >>> [(name, p.shape) for name, p in net.named_parameters()]
        [('0.weight', (2, 3)), ('0.bias', (2,)), ('2.weight', (1, 2)), ('2.bias', (1,))]
        """
        seen: set[int] = set()
        owners = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for owner, module in owners:
            for name, param in module._parameters.items():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield _dotted(owner, name), param

    def parameters(self, recurse: bool = True) -> Iterator[StorageTensor]:
        """Every parameter, each once, in the order of `named_parameters`: what an optimiser takes
        (`lt.optim.Adam(model.parameters())`)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: `grad` set to None (PyTorch's default), or to zeros in
        place when `set_to_none=False`."""
        for param in self.parameters():
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad.zero_()

    def train(self, mode: bool = True) -> Module:
        """Set training mode (`eval()`: evaluation mode) on this module and every module below it;
        returns this module.

        >>> import lazytensor as lt
        >>> net = lt.nn.Sequential(lt.nn.Dropout(0.5))
        >>> net.eval().training, net[0].training, net.train().training, net[0].training
        (False, False, True, True)
        """
        if not isinstance(mode, bool):
            raise TypeError(f"training mode is True or False, got {mode!r}")
        for _, module in self.named_modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode (`train(False)`): dropout off; returns this module."""
        return self.train(False)

    # -- state -------------------------------------------------------------------------------------

    def _named_state(self) -> list[tuple[str, StorageTensor]]:
        """Every parameter under every name it has (a shared one under each), as PyTorch's state."""
        state: list[tuple[str, StorageTensor]] = []
        stack: list[tuple[str, Module]] = [("", self)]
        while stack:
            owner, module = stack.pop()
            state += [(_dotted(owner, name), p) for name, p in module._parameters.items() if p is not None]
            below = [(_dotted(owner, name), m) for name, m in module._modules.items() if m is not None]
            stack.extend(reversed(below))
        return state

    def state_dict(self) -> collections.OrderedDict[str, StorageTensor]:
        """Every parameter by its dotted name, in registration order: detached tensors over the same
        memory, as PyTorch's (copy them, `{k: v.clone() for ...}`, to keep values that training will
        change).

        >>> import lazytensor as lt
        >>> state = lt.nn.Linear(2, 1, seed=0).state_dict()
        >>> list(state), state["weight"].requires_grad
        (['weight', 'bias'], False)
        """
        return collections.OrderedDict((name, p.detach()) for name, p in self._named_state())

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True) -> IncompatibleKeys:
        """Copy the values of `state_dict` into the parameters of the same names, in place (cast to each
        parameter's dtype). Every name and shape is checked before the first value is copied: a
        missing or unexpected name (when `strict`) or a shape that differs raises `StateDictError`
        (a RuntimeError, as PyTorch's, and a ValueError) listing them all, and nothing is copied.

        >>> import lazytensor as lt
        >>> a, b = lt.nn.Linear(2, 1, seed=0), lt.nn.Linear(2, 1, seed=1)
        >>> b.load_state_dict(a.state_dict())
        IncompatibleKeys(missing_keys=[], unexpected_keys=[])
        >>> b.weight.tolist() == a.weight.tolist()
        True
        """
        params = dict(self._named_state())
        missing = [name for name in params if name not in state_dict]
        unexpected = [name for name in state_dict if name not in params]
        values = {name: np.asarray(value) for name, value in state_dict.items() if name in params}
        errors = []
        if strict and missing:
            errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{name}"' for name in missing) + ".")
        if strict and unexpected:
            listed = ", ".join(f'"{name}"' for name in unexpected)
            errors.append(f"Unexpected key(s) in state_dict: {listed}.")
        errors += [
            _size_mismatch(name, value.shape, params[name].shape)
            for name, value in values.items()
            if value.shape != params[name].shape
        ]
        if errors:
            lines = "".join(f"\n\t{error}" for error in errors)
            raise StateDictError(f"Error(s) in loading state_dict for {type(self).__name__}:{lines}")
        cast = {name: value.astype(params[name].dtype) for name, value in values.items()}  # may raise
        with no_grad():
            for name, value in cast.items():
                params[name].copy_(value)
        return IncompatibleKeys(missing, unexpected)

    # -- calling and printing ----------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """What the module computes: every subclass writes its own."""
        raise NotImplementedError(f"{type(self).__name__} has no forward(): a Module subclass defines it")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def extra_repr(self) -> str:
        """What `repr` shows inside the parentheses, besides the submodules (`in_features=2, ...`)."""
        return ""

    def __repr__(self) -> str:
        """The module tree, as PyTorch prints it.

        >>> import lazytensor as lt
        >>> lt.nn.Sequential(lt.nn.Linear(4, 2), lt.nn.ReLU(), lt.nn.Dropout(0.5))
        Sequential(
          (0): Linear(in_features=4, out_features=2, bias=True)
          (1): ReLU()
          (2): Dropout(p=0.5)
        )
        """
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            below = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {below}")
        if not self._modules:
            return f"{type(self).__name__}({extra})"
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"


def _dotted(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _size_mismatch(name: str, given: Shape, expected: Shape) -> str:
    return (
        f"size mismatch for {name}: copying a param with shape {given} from checkpoint, "
        f"the shape in current model is {expected}."
    )

"""numpy's two dispatch protocols on tensors: `__array_ufunc__` (`array * t`, `np.exp(t)`,
`np.add(t, 1, out=t)`) and `__array_function__` (`np.concatenate(ts)`, `np.transpose(t)`), and the
checks an in-place write makes before it runs. An operation of the table goes through `apply`;
anything else runs on the values, written back through each tensor's layers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import lazytensor.tensors.evaluate as evaluate
from lazytensor.engine import autograd, numpy_routes, optable
from lazytensor.ground import keywords
from lazytensor.tensors.apply import apply, result_of
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor, values_of


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """numpy calling a ufunc on tensors (`array * t`, `np.exp(t)`): the table's entry when it has one,
    else the ufunc on the values with the result wrapped (not differentiable).

    >>> import lazytensor as lt
    >>> w = lt.ones(2, requires_grad=True)
    >>> (np.array([2.0, 3.0]) * w).sum().backward()
    >>> w.grad.tolist(), type(np.exp(lt.zeros(1))).__name__
    ([2.0, 3.0], 'StorageTensor')
    """
    entry = optable.UFUNCS.get(ufunc)
    if entry is not None and method == "__call__" and not kwargs:
        return apply(entry, *inputs)
    outputs = kwargs.get("out", ())
    if method == "at" or any(isinstance(o, AbstractTensor) for o in outputs):
        return _ufunc_in_place(ufunc, method, inputs, kwargs)
    result = getattr(ufunc, method)(*(values_of(x) for x in inputs), **kwargs)
    if isinstance(result, tuple):
        return tuple(result_of(r, ()) for r in result)
    return result_of(result, ())


def refuse_in_place_grad(name: str, *operands: Any) -> None:
    """RuntimeError when an in-place operation would change a tensor the gradient graph depends on,
    or drop an operand's gradient: in-place operations are not differentiable."""
    if not autograd.is_grad_enabled():
        return
    for x in operands:
        if isinstance(x, AbstractTensor) and x.requires_grad:
            raise RuntimeError(
                f"in-place {name} on a tensor of shape {x.shape} that requires grad is not "
                "differentiable: use an out-of-place operation, or lt.no_grad() for an update"
            )


@keywords.user_error  # a refused write's traceback ends at the user's line
def check_in_place(name: str, target: AbstractTensor, *operands: Any) -> None:
    """ValueError if a write through `target` cannot reach storage; RuntimeError if it would write
    into a leaf that requires grad outside `no_grad()`, or change what the gradient graph needs."""
    evaluate.check_writable(target)
    refuse_in_place_grad(name, target, *operands)


def _ufunc_in_place(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A ufunc writing into tensors (`np.add(v, 1, out=v)`, `np.add.at(t, [0, 0], 1)`): numpy runs on
    copies of their values, with all its checks (casting, shapes), and then the copies are written
    through each tensor's layers; nothing is written unless every check passed.

    >>> import lazytensor as lt
    >>> t = lt.zeros(2, 3)
    >>> np.add(t[0], 1, out=t[0]) is not None, t.tolist()
    (True, [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    >>> np.add.at(t[1], [0, 0, 2], 1.0)
    >>> t[1].tolist()
    [2.0, 0.0, 1.0]
    """
    targets = list(kwargs.get("out", ()))
    values = [values_of(x) for x in inputs]
    if method == "at":
        targets, values[0] = [inputs[0]], None
    tensors = [x for x in targets if isinstance(x, AbstractTensor)]
    for target in tensors:
        evaluate.check_writable(target)
    refuse_in_place_grad(f"np.{ufunc.__name__}", *inputs, *targets)
    buffers = [evaluate.read_copy(x) if isinstance(x, AbstractTensor) else x for x in targets]
    if method == "at":
        ufunc.at(buffers[0], *values[1:], **kwargs)
    else:
        getattr(ufunc, method)(*values, **{**kwargs, "out": tuple(buffers)})
    for target, buffer in zip(targets, buffers, strict=True):
        if isinstance(target, AbstractTensor):
            evaluate.write(target, buffer)
    if method == "at":
        return None
    return targets[0] if len(targets) == 1 else tuple(targets)


DOORS = numpy_routes.Doors(
    apply=apply,
    wrap=StorageTensor.from_array,
    is_tensor=lambda x: isinstance(x, AbstractTensor),
    values=values_of,
)
"""What `numpy_routes` needs of the tensors, lent so that it never imports them."""


def array_function(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """numpy calling one of its functions on tensors: the route `numpy_routes` has for it."""
    return numpy_routes.dispatch(DOORS, func, args, kwargs)

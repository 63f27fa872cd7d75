"""The autograd surface of a tensor: `requires_grad`, `grad`, `grad_fn`, `backward`, `detach`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from lazytensor.engine import autograd
from lazytensor.engine.autograd import GradFn
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import AbstractTensor, Buffer, StorageTensor
    from lazytensor.tensors.views import constructors as view_constructors


class Gradients(Surface):
    """What PyTorch's users ask of a tensor about its gradient; the engine is `autograd`.

    Primitive: `base`, whose gradient state a view shares (`_views.restack` rebuilds a view on a
    detached base; `_values_of` reads a seed gradient).
    """

    __slots__ = ()

    if TYPE_CHECKING:
        _views = view_constructors

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor record what `backward` needs (a view: as its base)."""
        return self.base.requires_grad

    @property
    def grad(self) -> StorageTensor | None:
        """The gradient accumulated by `backward` (leaves only: None for views and results)."""
        return None

    def requires_grad_(self, requires_grad: bool = True) -> AbstractTensor:
        """Mark a storage tensor as a leaf whose gradient `backward` accumulates; returns it."""
        raise ValueError(
            f"requires_grad_ applies to storage tensors (leaves); this is a view of shape {self.shape} "
            "whose gradient reaches its base: call it on the base"
        )

    def grad_parents(self) -> tuple[AbstractTensor, ...]:
        """The tensors this one's gradient flows to (the autograd engine's protocol)."""
        return ()

    @property
    def is_leaf(self) -> bool:
        """PyTorch's rule: a tensor that does not require grad, or one that does and was made by the
        user (no operation or view between it and a gradient); `backward` fills `.grad` of leaves.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> w.is_leaf, (w * 2).is_leaf, w[0:1].is_leaf, lt.ones(2).is_leaf
        (True, False, False, True)
        """
        return not self.requires_grad or not self.grad_parents()

    @property
    def grad_fn(self) -> GradFn | None:
        """What made this tensor, for the gradient (PyTorch's `grad_fn`): None for a leaf, else a small
        object naming the operation (or view), with `next_functions` leading to its operands'.

        >>> import lazytensor as lt
        >>> w = lt.ones(2, requires_grad=True)
        >>> y = (w * 2).sum()
        >>> y.grad_fn, y.grad_fn.next_functions[0][0].next_functions
        (<SumBackward0>, ((<AccumulateGrad>, 0), (None, 0)))
        """
        if self.is_leaf:
            return None
        return GradFn(self.backward_name, self.grad_inputs)

    @property
    def backward_name(self) -> str:
        """The name `grad_fn` gives this tensor's step back: a view's layer name (`TransposedBackward0`)."""
        return f"{self.layer_name}Backward0"

    def grad_inputs(self) -> tuple[AbstractTensor | None, ...]:
        """Every operand of the step that made this tensor, None for one that takes no gradient."""
        return self.grad_parents()

    @property
    def retains_grad(self) -> bool:
        """Whether `backward` keeps this non-leaf's gradient in `.grad` (see `retain_grad`)."""
        return False

    def retain_grad(self) -> None:
        """Keep this tensor's gradient in `.grad` when `backward` passes through it (PyTorch's
        `retain_grad`); a leaf keeps its gradient anyway."""
        raise ValueError(
            f"retain_grad applies to storage tensors (leaves and results); this is a view of shape "
            f"{self.shape}: keep the gradient of a result (t * 1) instead"
        )

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """The gradient of each of `grad_parents()`, from this tensor's gradient."""
        return []

    def accumulate_grad(self, grad: Buffer) -> None:
        """Add `grad` into `.grad` (leaves only)."""
        raise TypeError(f"only leaves accumulate a gradient, not a {self.layer_name} of shape {self.shape}")

    def backward(self, gradient: Any = None, retain_graph: bool = False) -> None:
        """Accumulate the gradient of this tensor into every leaf it depends on (`.grad`).

        >>> import lazytensor as lt
        >>> w = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> (w[[0, 0, 2]] * w[[1, 1, 1]]).sum().backward()
        >>> w.grad.tolist()
        [4.0, 5.0, 2.0]
        """
        if not self.requires_grad:
            raise RuntimeError(f"backward of a tensor of shape {self.shape} that does not require grad")
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError(
                    f"backward needs a gradient for a tensor of shape {self.shape}, not a scalar"
                )
            seed = np.ones(self.shape, dtype=float_dtype(self.dtype))
        else:
            seed = np.asarray(self._values_of(gradient))
            if seed.shape != self.shape:
                raise RuntimeError(
                    f"backward: the gradient has shape {seed.shape} but the tensor it is the gradient "
                    f"of has shape {self.shape}"
                )
        autograd.backward(cast("AbstractTensor", self), seed, retain_graph)

    def detach(self) -> AbstractTensor:
        """The same view of the same storage, cut from the gradient graph."""
        return self._views.restack(cast("AbstractTensor", self), self.base, self.base.detach())


def float_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype of a gradient of values of `dtype`: a floating or complex dtype as it is, else float64."""
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)

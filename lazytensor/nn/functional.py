"""The few pieces a small neural network needs beyond the operators: dropout, initialisation, a loss,
two activations, the edge softmax of graph attention, and PyTorch's functions that are methods here
(`softmax`, `log_softmax`, `gather`).

Kept deliberately small, and composed of lazytensor's public operations (so their
gradients are those operations' gradients): the graph networks of examples/gnn.py
are written plainly with these.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.array_api.namespace import operand_tensor
from lazytensor.engine import optable
from lazytensor.ground.keywords import UNSET
from lazytensor.nn.message_passing import Edges, edge_softmax
from lazytensor.tensors.apply import apply
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor

__all__ = [
    "Edges",
    "cross_entropy",
    "dropout",
    "dropout_mask",
    "edge_softmax",
    "elu",
    "gather",
    "glorot_uniform",
    "leaky_relu",
    "log_softmax",
    "softmax",
]

Seed = int | np.random.Generator | None


def generator(seed: Seed) -> np.random.Generator:
    """The generator `seed` names: itself when it is one, else a new one seeded with it (None: fresh
    entropy)."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def checked_probability(p: float) -> float:
    """A dropout probability, in [0, 1) (1 would drop everything and scale by infinity), or the
    ValueError that names it."""
    if not 0 <= p < 1:
        raise ValueError(f"dropout probability must be in [0, 1), got {p}")
    return p


def dropout_mask(
    shape: tuple[int, ...], p: float, seed: Seed = None, dtype: npt.DTypeLike = np.float64
) -> npt.NDArray[Any]:
    """The scaled keep-mask of dropout: `1 / (1 - p)` where `rng.random(shape, dtype=float32) >= p`, else 0.

    One float32 uniform draw per element (a third cheaper than float64), so any code
    that draws the same way from the same generator gets the same mask.

    >>> dropout_mask((4,), 0.5, seed=0).tolist()
    [2.0, 2.0, 2.0, 0.0]
    """
    checked_probability(p)
    keep = generator(seed).random(shape, dtype=np.float32) >= p
    mask: npt.NDArray[Any] = keep.astype(dtype) * np.asarray(1.0 / (1.0 - p), dtype=dtype)
    return mask


def dropout(t: AbstractTensor, p: float, training: bool = True, seed: Seed = None) -> AbstractTensor:
    """Zero each element with probability `p` and scale the rest by `1 / (1 - p)` (when training).

    >>> import lazytensor as lt
    >>> dropout(lt.ones(4), 0.5, seed=0).tolist()
    [2.0, 2.0, 2.0, 0.0]
    >>> dropout(lt.ones(2), 0.5, training=False).tolist()
    [1.0, 1.0]
    """
    if not training or p == 0:
        return t
    dtype = t.dtype if t.dtype.kind == "f" else np.dtype(np.float64)
    return t * dropout_mask(t.shape, p, seed, dtype)


def glorot_uniform(fan_in: int, fan_out: int, seed: Seed = None) -> StorageTensor:
    """A `(fan_in, fan_out)` weight drawn uniformly in ±sqrt(6 / (fan_in + fan_out)), requiring grad.

    >>> w = glorot_uniform(3, 2, seed=0)
    >>> w.shape, w.requires_grad, bool(abs(w.numpy()).max() <= (6 / 5) ** 0.5)
    ((3, 2), True, True)
    """
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    values = generator(seed).uniform(-limit, limit, size=(fan_in, fan_out))
    return StorageTensor.from_array(values).requires_grad_()


def cross_entropy(logits: AbstractTensor, labels: Any) -> StorageTensor:
    """The mean softmax cross-entropy of `(n, classes)` logits against `n` integer labels.

    >>> import lazytensor as lt
    >>> round(cross_entropy(lt.tensor([[0.0, 0.0]]), [1]).item(), 4)
    0.6931
    """
    labels = _checked_labels(labels, logits.shape)
    log_probabilities = logits.log_softmax(1)
    picked: AbstractTensor = log_probabilities[np.arange(len(labels)), labels]
    return -picked.mean()


def _checked_labels(labels: Any, shape: tuple[int, ...]) -> npt.NDArray[np.intp]:
    """Labels as integers in `[0, classes)`, one per row of `(n, classes)` logits, or the error
    that names the first bad one."""
    array = np.asarray(labels.numpy() if isinstance(labels, AbstractTensor) else labels)
    if len(shape) != 2:
        raise ValueError(f"cross_entropy takes (n, classes) logits, got shape {shape}")
    if array.dtype.kind not in "iu" and not (array.dtype.kind == "b" and array.size == 0):
        raise TypeError(f"cross_entropy labels must be integers, got dtype {array.dtype}")
    if array.shape != (shape[0],):
        raise ValueError(
            f"cross_entropy needs {shape[0]} labels for logits of shape {shape}, got {array.shape}"
        )
    bad = np.flatnonzero((array < 0) | (array >= shape[1]))
    if bad.size:
        raise IndexError(
            f"cross_entropy label {array[bad[0]]} at position {bad[0]} is out of range for {shape[1]} classes"
        )
    return array.astype(np.intp)


def leaky_relu(t: AbstractTensor, negative_slope: float = 0.01) -> StorageTensor:
    """`x` where `x > 0`, else `negative_slope * x` (the activation of graph attention's scores).

    >>> import lazytensor as lt
    >>> leaky_relu(lt.tensor([-2.0, 0.0, 3.0]), 0.2).tolist()
    [-0.4, 0.0, 3.0]
    """
    return apply(optable.WHERE, t > 0, t, t * negative_slope)


def elu(t: AbstractTensor, alpha: float = 1.0) -> StorageTensor:
    """`x` where `x > 0`, else `alpha * (exp(x) - 1)`; the exponential only sees `min(x, 0)`, so large
    inputs never overflow.

    >>> import lazytensor as lt
    >>> [round(v, 4) for v in elu(lt.tensor([-1.0, 0.0, 2.0])).tolist()]
    [-0.6321, 0.0, 2.0]
    """
    return apply(optable.WHERE, t > 0, t, (t.clip(hi=0.0).exp() - 1.0) * alpha)


def softmax(x: Any, dim: int = UNSET, *, axis: int = UNSET) -> StorageTensor:
    """`exp(x) / sum(exp(x))` along `dim` (or scipy's `axis`), numerically stable: `torch.softmax`,
    the function of `x.softmax(dim)`.

    >>> import lazytensor as lt
    >>> lt.softmax(lt.tensor([[0.0, 0.0], [0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    return operand_tensor(x).softmax(dim, axis=axis)


def log_softmax(x: Any, dim: int = UNSET, *, axis: int = UNSET) -> StorageTensor:
    """`log(softmax(x))` along `dim` (or `axis`), numerically stable: `torch.log_softmax`, the function
    of `x.log_softmax(dim)`.

    >>> import lazytensor as lt
    >>> [round(v, 4) for v in lt.log_softmax(lt.tensor([0.0, 0.0]), 0).tolist()]
    [-0.6931, -0.6931]
    """
    return operand_tensor(x).log_softmax(dim, axis=axis)


def gather(x: Any, dim: int, index: Any) -> StorageTensor:
    """PyTorch's `torch.gather(x, dim, index)`, the function of `x.gather(dim, index)`: for dim 0,
    `out[i][j] = x[index[i][j]][j]`; differentiable.

    >>> import lazytensor as lt
    >>> lt.gather(lt.tensor([[1, 2], [3, 4]]), 1, [[1, 0], [0, 0]]).tolist()
    [[2, 1], [3, 3]]
    """
    return operand_tensor(x).gather(dim, index)

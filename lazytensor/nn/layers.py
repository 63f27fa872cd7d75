"""PyTorch's basic layers as modules: `Linear`, `Sequential`, `ReLU`, `Dropout`, `Embedding`.

Each takes `seed=` (an int, a numpy `Generator`, or None for fresh entropy) for the random numbers
it draws — its initial weights, and the masks of dropout — and `dtype=` for its parameters (float64,
numpy's default float, unless told). Give one `Generator` to every module of a model to reproduce a
run: each draws from it in the order it is made and called.
"""

from __future__ import annotations

import collections
import operator
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.nn.functional import Seed, checked_probability, dropout, generator, glorot_uniform
from lazytensor.nn.module import Module, Parameter
from lazytensor.tensors.tensor import AbstractTensor

__all__ = ["Dropout", "Embedding", "Linear", "ReLU", "Sequential"]

WEIGHT_INITIALIZERS = ("kaiming_uniform", "glorot")
BIAS_INITIALIZERS = (None, "zeros")


def _size(value: Any, name: str, owner: str) -> int:
    """A layer's size argument: a non-negative int, or the error naming it."""
    try:
        size = operator.index(value)
    except TypeError:
        raise TypeError(f"{owner}: {name} must be an integer, got {value!r}") from None
    if size < 0:
        raise ValueError(f"{owner}: {name} must be non-negative, got {size}")
    return size


def _floating(dtype: npt.DTypeLike, owner: str) -> np.dtype[Any]:
    """A parameter dtype: a floating one (only those take gradients), or the TypeError naming it."""
    chosen = np.dtype(dtype)
    if chosen.kind != "f":
        raise TypeError(f"{owner}: parameters are floating, not dtype {chosen}")
    return chosen


class Linear(Module):
    """`y = x @ weight.T + bias`, PyTorch's `nn.Linear`: `weight` of shape `(out_features, in_features)`
    and `bias` of shape `(out_features,)` (or None when `bias=False`).

    The weights start as PyTorch's: uniform in ±1/sqrt(in_features) (PyTorch's `kaiming_uniform` with
    a = sqrt(5)), and so does the bias. `weight_initializer="glorot"` draws them instead uniformly in
    ±sqrt(6 / (in_features + out_features)) — drawn as an `(in_features, out_features)` matrix, as
    `lt.nn.glorot_uniform` and the graph networks' reference code draw it, and stored transposed — and
    `bias_initializer="zeros"` starts the bias at 0 (PyTorch Geometric's spellings).

    >>> import lazytensor as lt
    >>> layer = lt.nn.Linear(3, 2, seed=0)
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    >>> x = lt.ones(4, 3)
    >>> layer(x).shape, bool(lt.allclose(layer(x), x @ layer.weight.T + layer.bias))
    ((4, 2), True)
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        *,
        weight_initializer: str = "kaiming_uniform",
        bias_initializer: str | None = None,
        seed: Seed = None,
        dtype: npt.DTypeLike = np.float64,
    ) -> None:
        super().__init__()
        self.in_features = _size(in_features, "in_features", "Linear")
        self.out_features = _size(out_features, "out_features", "Linear")
        chosen = _floating(dtype, "Linear")
        if weight_initializer not in WEIGHT_INITIALIZERS:
            raise ValueError(
                f"Linear: weight_initializer must be one of {WEIGHT_INITIALIZERS}, got {weight_initializer!r}"
            )
        if bias_initializer not in BIAS_INITIALIZERS:
            raise ValueError(
                f"Linear: bias_initializer must be one of {BIAS_INITIALIZERS}, got {bias_initializer!r}"
            )
        rng = generator(seed)
        fan_in, fan_out = self.in_features, self.out_features
        bound = 1.0 / np.sqrt(fan_in) if fan_in else 0.0  # PyTorch's bound, for weight and bias alike
        if weight_initializer == "glorot":
            weight = glorot_uniform(fan_in, fan_out, rng).numpy().T
        else:
            weight = rng.uniform(-bound, bound, size=(fan_out, fan_in))
        self.weight = Parameter(weight.astype(chosen))
        if not bias:
            self.register_parameter("bias", None)
        elif bias_initializer == "zeros":
            self.bias = Parameter(np.zeros(fan_out, dtype=chosen))
        else:
            self.bias = Parameter(rng.uniform(-bound, bound, size=fan_out).astype(chosen))

    def forward(self, x: Any) -> AbstractTensor:
        """`x @ weight.T + bias` over the last axis of `x`."""
        y: AbstractTensor = x @ self.weight.T
        return y if self.bias is None else y + self.bias

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
        )


class Sequential(Module):
    """Modules called one after the other, each on the output of the one before (PyTorch's
    `nn.Sequential`); named "0", "1", ..., or by the keys of one mapping given instead.

    >>> import lazytensor as lt
    >>> net = lt.nn.Sequential(lt.nn.Linear(2, 4, seed=0), lt.nn.ReLU(), lt.nn.Linear(4, 1, seed=1))
    >>> len(net), type(net[1]).__name__, net(lt.ones(5, 2)).shape
    (3, 'ReLU', (5, 1))
    """

    def __init__(self, *modules: Module | Mapping[str, Module]) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], Mapping):
            for name, module in modules[0].items():
                self.add_module(name, module)
            return
        for each in modules:
            self.append(each)  # a mapping among several modules is refused there

    def append(self, module: Any) -> Sequential:
        """Add `module` at the end; returns this Sequential."""
        if not isinstance(module, Module):
            raise TypeError(f"Sequential takes modules, got a {type(module).__name__}")
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(m for m in self._modules.values() if m is not None)

    def __getitem__(self, index: int | slice) -> Any:
        """The module at `index` (negative counts from the end), or a Sequential of a slice of them."""
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(collections.OrderedDict((name, m) for name, m in items[index] if m is not None))
        position = operator.index(index)
        if not -len(items) <= position < len(items):
            raise IndexError(f"index {position} is out of range for a Sequential of {len(items)} modules")
        return items[position][1]

    def forward(self, x: Any) -> Any:
        for module in self:
            x = module(x)
        return x


class ReLU(Module):
    """`max(x, 0)` elementwise, as a module (PyTorch's `nn.ReLU`).

    >>> import lazytensor as lt
    >>> lt.nn.ReLU()(lt.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def forward(self, x: AbstractTensor) -> AbstractTensor:
        return x.relu()


class Dropout(Module):
    """In training mode, each element zeroed with probability `p` and the rest scaled by 1/(1 - p);
    in evaluation mode (`eval()`), the identity (PyTorch's `nn.Dropout`). The masks are drawn from the
    generator `seed` names, one per call.

    >>> import lazytensor as lt
    >>> drop = lt.nn.Dropout(0.5, seed=0)
    >>> drop(lt.ones(4)).tolist(), drop.eval()(lt.ones(4)).tolist()
    ([2.0, 2.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0])
    """

    def __init__(self, p: float = 0.5, *, seed: Seed = None) -> None:
        super().__init__()
        self.p = checked_probability(p)
        self.generator = generator(seed)

    def forward(self, x: AbstractTensor) -> AbstractTensor:
        return dropout(x, self.p, training=self.training, seed=self.generator)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Embedding(Module):
    """A table of `num_embeddings` vectors of `embedding_dim`, looked up by index (PyTorch's
    `nn.Embedding`); `weight` starts as draws of the standard normal, as PyTorch's.

    A lookup is indexing, `weight[indices]`: in lazytensor a view of the rows, not a copy, so the
    gradient flows through the view into the rows looked up (repeats adding up).

    >>> import lazytensor as lt
    >>> table = lt.nn.Embedding(10, 3, seed=0)
    >>> rows = table(lt.tensor([[1, 2], [1, 9]]))
    >>> rows.shape, type(rows).__name__, rows.shares_storage(table.weight)
    ((2, 2, 3), 'IndexedTensor', True)
    """

    def __init__(
        self, num_embeddings: int, embedding_dim: int, *, seed: Seed = None, dtype: npt.DTypeLike = np.float64
    ) -> None:
        super().__init__()
        self.num_embeddings = _size(num_embeddings, "num_embeddings", "Embedding")
        self.embedding_dim = _size(embedding_dim, "embedding_dim", "Embedding")
        chosen = _floating(dtype, "Embedding")
        draws = generator(seed).standard_normal((self.num_embeddings, self.embedding_dim))
        self.weight = Parameter(draws.astype(chosen))

    def forward(self, indices: Any) -> AbstractTensor:
        """The rows at `indices` (integers of any shape): a view of shape `indices.shape + (dim,)`."""
        index = np.asarray(indices.numpy() if isinstance(indices, AbstractTensor) else indices)
        if index.size == 0:
            index = index.astype(np.intp)  # `[]` is float64 to numpy: no rows, whatever its dtype
        if index.dtype.kind not in "iu":
            raise IndexError(f"Embedding looks rows up by integer indices, got dtype {index.dtype}")
        rows: AbstractTensor = self.weight[index]
        return rows

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"

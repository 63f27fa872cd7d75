"""A one-element tensor as a number, as numpy's 0-d arrays and PyTorch's 0-d tensors are:
`float(t)`, `int(t)`, `t.__index__`, formatting, rounding, `in`, copying, sizes."""

from __future__ import annotations

import copy
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from lazytensor.engine import optable
from lazytensor.ground.positions import row_major_strides
from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    from lazytensor.tensors.tensor import StorageTensor


class Numbers(Surface):
    """Python's number and container protocols on a tensor, and numpy's `size`, `itemsize`, `nbytes`.

    Primitive: `numpy()`, the protocol's read (a 0-d array brings numpy's own conversions).
    """

    __slots__ = ()

    def _only_element(self, what: str) -> Any:
        if self.numel() != 1:
            raise TypeError(
                f"only tensors of one element can be converted to {what}, not a tensor of shape {self.shape}"
            )
        return self.numpy().reshape(())  # a 0-d array: numpy's own conversions, warnings and errors

    def __float__(self) -> float:
        """`float(t)` for a tensor of one element, as numpy's 0-d arrays.

        >>> import lazytensor as lt, math
        >>> float(lt.tensor([1.0, 3.0]).sum()), math.sqrt(lt.tensor(16))
        (4.0, 4.0)
        """
        return float(self._only_element("a Python float"))

    def __int__(self) -> int:
        """`int(t)` for a tensor of one element (a float is truncated, as `int(1.7)`).

        >>> import lazytensor as lt
        >>> int(lt.tensor([3, 9, 4]).argmax())
        1
        """
        return int(self._only_element("a Python int"))

    def __complex__(self) -> complex:
        """`complex(t)` for a tensor of one element.

        >>> import lazytensor as lt
        >>> complex(lt.tensor([1.5]))
        (1.5+0j)
        """
        return complex(self._only_element("a Python complex"))

    def __index__(self) -> int:
        """A 0-d integer tensor is an index: `['a', 'b'][t.argmax()]`, `range(t)`, `t[u]`.

        >>> import lazytensor as lt
        >>> ["a", "b", "c"][lt.tensor([1, 5, 2]).argmax()]
        'b'
        """
        if self.ndim != 0 or self.dtype.kind not in "iu":
            raise TypeError(
                "only integer scalar tensors can be converted to a scalar index, "
                f"not a tensor of shape {self.shape} and dtype {self.dtype}"
            )
        return operator.index(self.numpy()[()])

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats its value (`f"{t.mean():.2f}"`); any other takes only an empty spec.

        >>> import lazytensor as lt
        >>> f"{lt.tensor([1.0, 2.0]).mean():.2f}", "%.1f" % lt.tensor(2.25)
        ('1.50', '2.2')
        """
        if not spec:  # f"{t}" is str(t): for a 0-d tensor its number, even one numpy cannot format
            return str(self)
        if self.ndim == 0:
            return format(self.numpy()[()], spec)
        raise TypeError(f"unsupported format string {spec!r} passed to a tensor of shape {self.shape}")

    def __round__(self, ndigits: int | None = None) -> Any:
        """`round(t)`: an int for a one-element tensor; `round(t, n)` a number for a 0-d tensor, else
        the tensor rounded elementwise (`t.round(n)`).

        >>> import lazytensor as lt
        >>> round(lt.tensor(2.675)), round(lt.tensor(1.2345), 2), round(lt.tensor([0.12, 0.25]), 1).tolist()
        (3, np.float64(1.23), [0.1, 0.2])
        """
        if ndigits is None:
            return round(self._only_element("a Python int")[()])
        if self.ndim == 0:
            value: Any = self.numpy()[()]
            return round(value, ndigits)
        return self.round(ndigits)

    def __contains__(self, value: Any) -> bool:
        """`value in t`: whether any element equals `value`, as numpy's `(a == value).any()`.

        >>> import lazytensor as lt
        >>> 2.0 in lt.arange(3.0), 5 in lt.arange(3.0)
        (True, False)
        """
        return bool(self._apply(optable.EQ, self, value).numpy().any())

    def __copy__(self) -> StorageTensor:
        """`copy.copy(t)` copies the values, as numpy does (use `t.view()`-style methods to share).

        >>> import copy, lazytensor as lt
        >>> t = lt.zeros(2)
        >>> c = copy.copy(t)
        >>> c[0] = 1.0
        >>> t.tolist(), c.tolist()
        ([0.0, 0.0], [1.0, 0.0])
        """
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> StorageTensor:
        """`copy.deepcopy(t)`: the values copied, object elements deep-copied, as numpy does.

        >>> import copy, lazytensor as lt
        >>> t = lt.tensor([None], dtype=object)
        >>> t[0] = [1, 2]
        >>> copy.deepcopy(t).tolist()[0] is t.tolist()[0]
        False
        """
        return self.fresh_storage(np.array(copy.deepcopy(self.numpy(), memo), order="C", copy=True))

    @property
    def size(self) -> int:
        """The number of elements, as numpy's `a.size` (PyTorch's `numel()`).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3, dtype="float32")
        >>> t.size, t.itemsize, t.nbytes
        (6, 4, 24)
        """
        return self.numel()

    @property
    def itemsize(self) -> int:
        """The bytes of one element.

        >>> import lazytensor as lt
        >>> lt.zeros(3, dtype="int16").itemsize
        2
        """
        return self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """The bytes to step along each axis, as numpy reports them for this view: a stack that fuses
        to a strided layout has its strides (elements × itemsize, 0 along a broadcast axis, negative
        for a reversed one); a stack that does not fuse has none in memory, and reports the strides of
        the C-contiguous copy numpy would make of it (`np.asarray(t).strides`).

        >>> import lazytensor as lt
        >>> t = lt.zeros(3, 4)
        >>> t.strides, t.T.strides, t[::-1, ::2].strides, t.T.reshape(-1).strides
        ((32, 8), (8, 32), (-32, 16), (8,))
        """
        layout = self.layout
        steps = row_major_strides(self.shape) if layout is None else layout.strides
        return tuple(step * self.dtype.itemsize for step in steps)

    @property
    def nbytes(self) -> int:
        """The bytes the elements of this tensor would take in an array of their own (numpy's rule:
        a view counts its own elements, not its storage's).

        >>> import lazytensor as lt
        >>> lt.zeros(4, 5)[::2].nbytes
        80
        """
        return self.numel() * self.dtype.itemsize

"""The array API standard's own methods: the namespace, the device, DLPack export."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Self

from lazytensor.tensors.surface.primitives import Surface

if TYPE_CHECKING:
    pass

_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
"""The revisions of the array API standard whose namespace `lazytensor` serves (2024.12 includes them)."""


class ArrayAPI(Surface):
    """`__array_namespace__`, `device`, `to_device` and DLPack, as the array API standard asks.

    Needs no primitive: DLPack exports `numpy()`, the protocol's read.
    """

    __slots__ = ()

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The array API namespace of tensors: the `lazytensor` module itself.

        >>> import lazytensor as lt
        >>> lt.zeros(2).__array_namespace__() is lt
        True
        """
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"lazytensor implements the array API {_API_VERSIONS}, not {api_version!r}")
        return sys.modules[__name__.partition(".")[0]]

    @property
    def device(self) -> str:
        """Where the values live: always "cpu" (this process's memory, or a file or store read into it)."""
        return "cpu"

    def to_device(self, device: Any, /, *, stream: Any = None) -> Self:
        """This tensor on `device`: itself for "cpu", the one device (ValueError for any other).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2)
        >>> t.to_device(t.device) is t
        True
        """
        if device != "cpu":
            raise ValueError(f"lazytensor has one device, 'cpu'; got {device!r}")
        return self

    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """DLPack export of the values, as numpy exports them: the storage itself when the stack fuses
        to a strided layout (so the consumer shares memory), else a new array.

        >>> import lazytensor as lt, numpy as np
        >>> t = lt.arange(6.0).reshape(2, 3).T
        >>> np.from_dlpack(t).tolist()
        [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
        """
        return self.numpy().__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """DLPack's device of the values: the CPU, (1, 0)."""
        return (1, 0)

"""A storage tensor over a memory-mapped file that checks the file still holds its data before each read.

Reading a page of a map past the end of its file kills the process (SIGBUS), and another
program may truncate the file at any time. So this base keeps no numpy view of the map
between reads: every read first asks the map for its file's size (one `fstat`) and raises
a one-line OSError naming the file when it shrank. What stays racy (a truncation between
that check and the read, arrays handed out before) is in docs/bigger.md.
"""

from __future__ import annotations

import errno
import mmap
from typing import Any

import numpy as np
import numpy.typing as npt

from lazytensor.bases import computed
from lazytensor.bases.zarrstore import shown
from lazytensor.engine.optable import Op
from lazytensor.ground import settings
from lazytensor.ground.layout import Layout
from lazytensor.tensors.tensor import AbstractTensor, Buffer, StorageTensor


def _map_of(array: Buffer) -> mmap.mmap | None:
    """The `mmap.mmap` under a memory-mapped numpy array (its `base` chain), or None."""
    below: Any = array
    while below is not None:
        if isinstance(below, mmap.mmap):
            return below
        below = getattr(below, "base", None)
    return None


class MappedTensor(StorageTensor):
    """A `StorageTensor` over a `numpy.memmap` (read-only, or writing through to its file): each read
    checks the file's size first.

    >>> import tempfile, pathlib, numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npy"
    >>> np.save(path, np.arange(4.0))
    >>> t = MappedTensor.over(np.load(path, mmap_mode="r"))
    >>> t.numpy().tolist(), t.storage_note
    ([0.0, 1.0, 2.0, 3.0], 'memory-mapped')
    """

    keeps_views = False
    file_name: str
    """The file's name, for errors (set by `over`)."""

    @property
    def layer_name(self) -> str:
        return "Storage"  # a storage tensor like any other in layer chains; its header says memory-mapped

    @classmethod
    def over(cls, array: np.memmap[Any, Any], name: str | None = None) -> MappedTensor:
        """The tensor over a C-contiguous memory map of the file `name` (its errors name it), which
        must now hold all its bytes."""
        t = object.__new__(cls)
        t.__dict__.update(
            buffer=array.reshape(-1),
            _shape=array.shape,
            file_name=shown(name or getattr(array, "filename", None) or "the memory-mapped file"),
        )
        MappedTensor._fused_values.prime(t, None)  # a memory map is read afresh: no view kept
        t.check_file()
        return t

    @property
    def read_only_reason(self) -> str | None:
        if self.buffer.flags.writeable:
            return None
        return (
            f"cannot write to {self.file_name}: it is memory-mapped read-only; "
            "lt.load(path, mode='r+') maps it for writing (in the repl: --writable)"
        )

    @property
    def defers_operations(self) -> bool:  # type: ignore[override]
        """Whether the map is big enough (the `mmap_lazy_bytes` option) that its elementwise operations
        are computed tensors, read on request, rather than computed in memory at once."""
        least = settings.current().mmap_lazy_bytes
        return least is not None and self.buffer.nbytes >= least

    def apply_lazily(
        self, entry: Op, operands: tuple[Any, ...], params: dict[str, Any]
    ) -> AbstractTensor | None:
        """An elementwise operation's computed tensor; None for the rest (`apply` runs it in memory)."""
        return computed.computed(entry, operands, params)

    def check_file(self) -> None:
        """Raise OSError (one line, naming the file) when the file ends before the mapped data does."""
        buffer = self.buffer
        mapped = _map_of(buffer)
        if mapped is None or mapped.closed:
            return
        offset = int(getattr(buffer, "offset", 0))
        needed = offset + buffer.nbytes
        size = mapped.size()  # one fstat of the mapped file
        if size >= needed:
            return
        name = self.file_name
        error = OSError(
            f"{name}: the file shrank to {size:,} bytes while memory-mapped (its data needs {needed:,}); "
            "it was truncated or rewritten in place: load it again"
        )
        error.errno = errno.EIO
        raise error

    def read_strided(self, layout: Layout, writeable: bool) -> Buffer:
        self.check_file()
        return super().read_strided(layout, writeable)

    def read_flat(self, indices: npt.NDArray[np.intp]) -> Buffer:
        self.check_file()
        return super().read_flat(indices)

    def read_one(self, index: int) -> Any:
        self.check_file()
        return super().read_one(index)

"""`.npy` files: memory-mapped loading (never unpickling) and saving."""

from __future__ import annotations

import os
import pickle

import numpy as np

from lazytensor.creation import from_numpy
from lazytensor.tensor import AbstractTensor
from lazytensor.views import TransposedTensor

PathLike = str | os.PathLike[str]


def load(path: PathLike, mmap: bool = True) -> AbstractTensor:
    """A tensor over a `.npy` file, memory-mapped read-only by default so only what is read is loaded.

    A Fortran-ordered file comes back as a transposed view of its row-major storage,
    so nothing is copied either. A pickled, truncated or corrupt file is a ValueError.

    >>> import tempfile, pathlib, lazytensor as lt
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npy"
    >>> lt.save(path, lt.arange(6).reshape(2, 3))
    >>> lt.load(path).T.tolist()
    [[0, 3], [1, 4], [2, 5]]
    """
    try:
        array = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (ValueError, EOFError, OSError, pickle.UnpicklingError) as error:
        raise ValueError(f"{os.fspath(path)}: not a readable .npy file ({error})") from None
    if not isinstance(array, np.ndarray):
        raise ValueError(f"{os.fspath(path)}: holds an archive, not one array")
    if array.ndim > 1 and not array.flags.c_contiguous and array.flags.f_contiguous:
        reversed_axes = tuple(range(array.ndim - 1, -1, -1))
        return TransposedTensor(from_numpy(array.T), reversed_axes)
    return from_numpy(array)


def save(path: PathLike, t: AbstractTensor) -> None:
    """Write `t` to a `.npy` file (object tensors cannot be saved: that would need pickle)."""
    if t.dtype.hasobject:
        raise ValueError(f"cannot save a tensor of dtype object to {os.fspath(path)} without pickle")
    np.save(path, np.ascontiguousarray(t.numpy()), allow_pickle=False)

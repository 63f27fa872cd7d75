"""Starting the browser: on a tensor (`t.browse()`) or on a file (`python -m lazytensor browse FILE
[KEY]`), which `lt.open` opens; a store with several arrays lists them to pick one.

The screen needs textual, an optional extra: its absence is one line saying how to install it, and
`import lazytensor` never imports it (the app module is imported when browsing starts).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any

from lazytensor.api.files import HDF5_SUFFIXES, NETCDF_SUFFIXES
from lazytensor.api.files import open as open_tensor
from lazytensor.printer.escapes import printable
from lazytensor.tensors.tensor import AbstractTensor

INSTALL = (
    "browsing needs textual: pip install 'lazytensor[browse]' (in a checkout: pip install -e '.[browse]')"
)
USAGE_ERROR = 2


def textual_installed() -> bool:
    """Whether textual, the browse extra, can be imported."""
    return importlib.util.find_spec("textual") is not None


def _app_module() -> Any:
    """`lazytensor.browse.app`, imported only now: it imports textual, an optional extra."""
    if not textual_installed():
        raise ImportError(INSTALL)
    return importlib.import_module("lazytensor.browse.app")


def browse_tensor(t: AbstractTensor, writable: bool = False, title: str = "t") -> None:
    """Walk `t` in the terminal until `q` (`t.browse()`); an ImportError saying how to install textual
    when it is missing."""
    _app_module().BrowseApp(t, title, writable).run()


def array_names(path: str) -> list[str]:
    """The arrays a store or file holds, by the key `lt.open(path, key)` takes (empty for a `.npy` file,
    a single zarr array or a file that cannot be listed: `lt.open` then says what is wrong)."""
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in HDF5_SUFFIXES:
            h5py = importlib.import_module("h5py")
            found: list[str] = []
            with h5py.File(path, "r") as file:
                file.visititems(
                    lambda name, item: found.append(name) if isinstance(item, h5py.Dataset) else None
                )
            return found
        if suffix in NETCDF_SUFFIXES:
            xarray = importlib.import_module("xarray")
            with xarray.open_dataset(path) as dataset:
                return [str(name) for name in dataset.data_vars]
        if suffix == ".npy" or not os.path.isdir(path):
            return []
        zarr = importlib.import_module("zarr")
        group = zarr.open_group(path, mode="r")
        return sorted(name for name, member in group.members(max_depth=None) if hasattr(member, "shape"))
    except Exception:  # not a group, or not readable: lt.open gives the one-line reason
        return []


def pick_array(path: str, names: list[str]) -> str | None:
    """The array the user picks from `names` on a list screen (None when they quit)."""
    chosen: str | None = _app_module().pick(path, names)
    return chosen


def open_failure(path: str, error: Exception) -> str:
    """The one line that says why `path` could not be opened, naming the file (as `show` says it).

    >>> open_failure("a.zarr", FileNotFoundError(2, "No such file"))
    'a.zarr: no such file'
    >>> print(open_failure("a.h5", KeyError("no dataset x")))
    a.h5: KeyError: 'no dataset x'
    """
    name = printable(path)
    if isinstance(error, FileNotFoundError):
        return f"{name}: no such file"
    message = printable(" ".join(str(error).split()))
    if not isinstance(error, OSError | ValueError):
        message = f"{type(error).__name__}: {message}"
    return message if name in message else f"{name}: {message}"


def browse_file(path: str, key: str | None = None, writable: bool = False) -> int:
    """The command: open `path` (its array `key`) and browse it; 0, or 2 with one line on stderr."""
    if not textual_installed():
        print(f"error: {INSTALL}", file=sys.stderr)
        return USAGE_ERROR
    if key is None:
        names = array_names(path)
        if len(names) > 1:
            key = pick_array(path, names)
            if key is None:
                return 0
    try:
        t = open_tensor(path, key, mode="r+" if writable else "r")
    except Exception as error:  # one line naming the file, never a traceback
        print(f"error: {open_failure(path, error)}", file=sys.stderr)
        return USAGE_ERROR
    title = path if key is None else f"{path} {key}"
    browse_tensor(t, writable, title)
    return 0

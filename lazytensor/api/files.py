"""`.npy` files: memory-mapped loading (never unpickling) and atomic saving.

Loading is one error path for every file that is not a well-formed `.npy` array: only
regular files are opened (a FIFO or a device would hang or stream forever), the header is
read with length limits before numpy's own parser sees it, the parser runs inside one guard,
and the shape it returns is checked against the file's size before any memory is mapped.
Whatever is wrong, the caller gets one `ValueError` (or `FileNotFoundError`,
`IsADirectoryError`, `PermissionError` when that is the truth, `MemoryError` for a shape no
loop could walk) whose one-line message names the file and what is wrong with it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import importlib.util
import io
import math
import os
import re
import shutil
import stat
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO, Literal, TypeVar, cast

import attrs
import numpy as np

from lazytensor.api.creation import from_numpy
from lazytensor.bases import hdf5safe, zarrstore
from lazytensor.bases.arraylike import ArrayBase, Hdf5Backend, XarrayBackend, require
from lazytensor.bases.memmap import MappedTensor
from lazytensor.ground import naming
from lazytensor.tensors.tensor import AbstractTensor
from lazytensor.tensors.views import TransposedTensor

PathLike = str | os.PathLike[str]

MAGIC = b"\x93NUMPY"
MAX_HEADER_BYTES = 10_000  # numpy's own default limit for a header it will parse
MAX_NESTING = 16  # brackets inside a header: a structured dtype nests a few, never more
MAX_SIGN_RUN = 4  # consecutive unary signs: '-1' has one, a crafted header thousands
MAX_NDIM = 32  # what numpy can index and print everywhere
MAX_EMPTY_ELEMENTS = 1 << 24
"""Elements of zero bytes each (`descr` `[]`) a file may hold: its size does not bound their number,
and every loop over them (a copy, a print, a sum) would run for years past this."""
HEADER_LENGTH_BYTES = {(1, 0): 2, (2, 0): 4, (3, 0): 4}
FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


@attrs.frozen
class NpyHeader:
    """What a `.npy` header says, checked: the array's dtype, shape, order and where its data begins."""

    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    fortran_order: bool
    data_offset: int


def _os_error(kind: type[OSError], code: int, message: str) -> OSError:
    """An OSError subclass whose str() is exactly `message` (one line), with its errno set."""
    error = kind(message)
    error.errno = code
    return error


def _open_regular(path: PathLike) -> BinaryIO:
    """Open `path` for reading if it is a regular file; never blocks on a FIFO or reads a device."""
    name = os.fspath(path)
    try:
        before = os.stat(name)
    except FileNotFoundError:
        raise _os_error(FileNotFoundError, errno.ENOENT, f"{name}: no such file") from None
    except PermissionError:
        raise _os_error(PermissionError, errno.EACCES, f"{name}: permission denied") from None
    except OSError as error:  # a symlink loop, a name too long, a path through a file
        raise ValueError(f"{name}: cannot be opened ({error.strerror or error})") from None
    _require_regular(name, before.st_mode)
    try:  # O_NONBLOCK: should the file turn into a FIFO after the stat, open must not wait
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC)
    except FileNotFoundError:
        raise _os_error(FileNotFoundError, errno.ENOENT, f"{name}: no such file") from None
    except PermissionError:
        raise _os_error(PermissionError, errno.EACCES, f"{name}: permission denied") from None
    except OSError as error:
        raise ValueError(f"{name}: cannot be opened ({error.strerror or error})") from None
    try:
        _require_regular(name, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _require_regular(name: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
    if stat.S_ISDIR(mode):
        raise _os_error(IsADirectoryError, errno.EISDIR, f"{name}: is a directory, not a .npy file")
    raise ValueError(f"{name}: is {kind}, not a regular .npy file")


def _what_it_is(start: bytes) -> str:
    """A guess at what a file that is not `.npy` holds, for the error message."""
    if start.startswith(b"PK\x03\x04") or start.startswith(b"PK\x05\x06"):
        return "a zip archive (an .npz file?)"
    if start[:1] == b"\x80" and start[1:2] in {bytes([v]) for v in range(2, 6)}:
        return "a Python pickle (lazytensor never unpickles)"
    if not start:
        return "empty"
    try:
        text = start.decode("utf-8")
    except UnicodeDecodeError:
        return "binary data without the .npy magic string"
    return "text" if text.isprintable() or text.isspace() or "\n" in text else "something else"


def _check_header_text(name: str, text: bytes) -> None:
    """Limits numpy's parser cannot recurse or overflow past: bracket depth and runs of unary signs."""
    depth = 0
    signs = 0
    quote = 0
    escaped = False
    for byte in text:
        if quote:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == quote:
                quote = 0
            continue
        if byte in b"'\"":
            quote = byte
        elif byte in b"([{":
            depth += 1
            if depth > MAX_NESTING:
                raise ValueError(f"{name}: corrupt .npy header (brackets nested deeper than {MAX_NESTING})")
        elif byte in b")]}":
            depth -= 1
        if byte in b"+-~":
            signs += 1
            if signs > MAX_SIGN_RUN:
                raise ValueError(f"{name}: corrupt .npy header (a run of more than {MAX_SIGN_RUN} signs)")
        elif byte not in b" \t\n\r":
            signs = 0


def _read_exactly(file: BinaryIO, count: int) -> bytes:
    data = file.read(count)
    return data if data is not None else b""


def _parse_header_dict(name: str, version: tuple[int, int], raw: bytes) -> tuple[Any, bool, Any]:
    """numpy's header parser on bytes already in memory, inside one guard: (shape, fortran, dtype)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if version == (1, 0):
                return np.lib.format.read_array_header_1_0(io.BytesIO(raw), max_header_size=MAX_HEADER_BYTES)
            if version == (3, 0):
                raw = _as_version_2(raw)
            return np.lib.format.read_array_header_2_0(io.BytesIO(raw), max_header_size=MAX_HEADER_BYTES)
    except Exception as error:  # TokenError, RecursionError, SyntaxError, OverflowError, MemoryError, ...
        first = error.args[0] if error.args and isinstance(error.args[0], str) else str(error)
        detail = " ".join(first.split()) or type(error).__name__
        if len(detail) > 200:
            detail = detail[:200] + "…"
        raise ValueError(f"{name}: corrupt .npy header ({detail})") from None


def _as_version_2(raw: bytes) -> bytes:
    """A format 3.0 header (UTF-8 text) as the 2.0 header (latin-1) that means the same: every other
    character escaped (`'ж'` as `'\\u0436'`), which reads back as the same string."""
    text = raw[4:].decode("utf-8").encode("ascii", "backslashreplace")
    return len(text).to_bytes(4, "little") + text


def _checked_shape(name: str, shape: Any, dtype: np.dtype[Any]) -> tuple[int, ...]:
    if not isinstance(shape, tuple):
        raise ValueError(f"{name}: corrupt .npy header (shape {shape!r} is not a tuple)")
    for entry in shape:
        if type(entry) is not int or entry < 0:
            raise ValueError(f"{name}: corrupt .npy header (shape {shape!r} holds {entry!r}, not a size)")
    if len(shape) + dtype.ndim > MAX_NDIM:
        axes = len(shape) + dtype.ndim
        raise ValueError(f"{name}: the array has {axes} axes; at most {MAX_NDIM} are supported")
    return shape


def read_header(file: BinaryIO, name: str, file_size: int) -> NpyHeader:
    """The checked header of an open `.npy` file; a ValueError naming `name` if anything is wrong."""
    prefix = _read_exactly(file, len(MAGIC) + 2)
    if not prefix.startswith(MAGIC):
        raise ValueError(f"{name}: not a .npy file (it is {_what_it_is(prefix)})")
    if len(prefix) < len(MAGIC) + 2:
        raise ValueError(f"{name}: truncated .npy file (it ends inside the header)")
    version = (prefix[6], prefix[7])
    length_bytes = HEADER_LENGTH_BYTES.get(version)
    if length_bytes is None:
        raise ValueError(f"{name}: unsupported .npy format version {version[0]}.{version[1]}")
    length_field = _read_exactly(file, length_bytes)
    if len(length_field) < length_bytes:
        raise ValueError(f"{name}: truncated .npy file (it ends inside the header)")
    header_length = int.from_bytes(length_field, "little")
    data_offset = len(prefix) + length_bytes + header_length
    if header_length > MAX_HEADER_BYTES:
        raise ValueError(f"{name}: corrupt .npy header ({header_length} bytes; at most {MAX_HEADER_BYTES})")
    if data_offset > file_size:
        raise ValueError(f"{name}: truncated .npy file (it ends inside its {header_length}-byte header)")
    text = _read_exactly(file, header_length)
    _check_header_text(name, text)
    shape, fortran_order, dtype = _parse_header_dict(name, version, length_field + text)
    if not isinstance(dtype, np.dtype):
        raise ValueError(f"{name}: corrupt .npy header (no dtype)")
    if dtype.hasobject:
        raise ValueError(f"{name}: holds Python objects (pickled data); lazytensor never unpickles")
    shape = _checked_shape(name, shape, dtype)
    count = math.prod(shape)
    if dtype.itemsize == 0 and count > MAX_EMPTY_ELEMENTS:
        raise MemoryError(
            f"{name}: its header's shape {shape} of {dtype} holds {count:,} elements of 0 bytes; "
            f"at most {MAX_EMPTY_ELEMENTS:,} are loaded (each costs work, though no data)"
        )
    data_bytes = count * dtype.itemsize
    if data_bytes > file_size - data_offset:
        raise ValueError(
            f"{name}: truncated or corrupt .npy file (its header's shape {shape} of {dtype} needs "
            f"{data_bytes:,} bytes of data; the file holds {file_size - data_offset:,})"
        )
    return NpyHeader(dtype, shape, bool(fortran_order), data_offset)


def _read_array(file: BinaryIO, name: str, header: NpyHeader, mmap: bool) -> np.ndarray[Any, Any]:
    """The data after the header: a read-only memory map, or an array read into memory."""
    order: Literal["C", "F"] = "F" if header.fortran_order else "C"
    count = math.prod(header.shape)
    array: np.ndarray[Any, Any]
    try:
        if mmap and count > 0 and header.dtype.itemsize > 0:
            array = np.memmap(
                cast(Any, file), dtype=header.dtype, mode="r", offset=header.data_offset,
                shape=header.shape, order=order,
            )  # fmt: skip
            return array
        if header.dtype.itemsize == 0:  # no data to read: numpy copying nothing element by element is slow
            return np.empty(header.shape, dtype=header.dtype, order=order)
        file.seek(header.data_offset)
        data = _read_exactly(file, count * header.dtype.itemsize)
        flat = np.frombuffer(data, dtype=header.dtype, count=count).copy()
        array = flat.reshape(header.shape + header.dtype.shape, order=order)
        return array
    except (ValueError, OSError, MemoryError) as error:
        raise ValueError(f"{name}: cannot read the array data ({' '.join(str(error).split())})") from None


def load(path: PathLike, mmap: bool = True, *, names: Any = None) -> AbstractTensor:
    """A tensor over a `.npy` file, memory-mapped read-only by default so only what is read is loaded.

    A Fortran-ordered file comes back as a transposed view of its row-major storage,
    so nothing is copied either. Anything that is not a well-formed `.npy` array (pickled
    objects, truncated or corrupt data, a FIFO, a zip, a text file) is a ValueError with
    one line naming the file; a missing file is a FileNotFoundError, a directory an
    IsADirectoryError.

    >>> import tempfile, pathlib, lazytensor as lt
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npy"
    >>> lt.save(path, lt.arange(6).reshape(2, 3))
    >>> lt.load(path).T.tolist()
    [[0, 3], [1, 4], [2, 5]]

    A `.npy` file keeps no axis names: `names` gives them.

    >>> lt.load(path, names=("row", "col")).names
    ('row', 'col')
    """
    name = os.fspath(path)
    with _open_regular(path) as file:
        file_size = os.fstat(file.fileno()).st_size
        header = read_header(file, name, file_size)
        array = _read_array(file, name, header, mmap)
    fortran = array.ndim > 1 and not array.flags.c_contiguous and array.flags.f_contiguous
    row_major = array.T if fortran else array
    base = MappedTensor.over(row_major, name) if isinstance(row_major, np.memmap) else from_numpy(row_major)
    if fortran:
        naming.name_base(base, None if names is None else tuple(names)[::-1])
        return TransposedTensor(base, tuple(range(array.ndim - 1, -1, -1)))
    naming.name_base(base, names)
    return base


# -- saving -----------------------------------------------------------------------------------------


def _target(path: PathLike) -> str:
    """Where `save` writes: numpy's rule (a name without `.npy` gets it), through symbolic links."""
    name = os.fspath(path)
    if not name.endswith(".npy"):
        name += ".npy"
    return os.path.realpath(name)


SAVE_SUFFIX = ".lt-save"
"""The end of the one temporary name `save` uses per target: a killed save leaves at most that file,
and the next save of the same target reuses it."""
NAME_MAX = 255  # bytes in one file name, where the file system does not say


def temporary_name(base: str, limit: int = NAME_MAX) -> str:
    """The temporary file `save` writes before renaming it to `base` (same folder): recognisable,
    one per target, and within the file system's name `limit` (long names are cut and get a digest).

    >>> temporary_name("t.npy")
    '.t.npy.lt-save'
    >>> long = temporary_name("x" * 251 + ".npy")
    >>> len(long), long.endswith(".lt-save")
    (255, True)
    """
    name = f".{base}{SAVE_SUFFIX}"
    if len(os.fsencode(name)) <= limit:
        return name
    encoded = os.fsencode(base)
    tail = f"~{hashlib.sha256(encoded).hexdigest()[:16]}{SAVE_SUFFIX}"
    return "." + os.fsdecode(encoded[: limit - 1 - len(tail)]) + tail


def _name_limit(directory: str) -> int:
    try:
        return int(os.pathconf(directory, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return NAME_MAX


def _open_temporary(target: str) -> tuple[str, int]:
    """The target's temporary file, opened, locked and emptied: a stale one (a killed save's) is
    reused; another save of the same target still running is a BlockingIOError."""
    directory, base = os.path.split(target)
    path = os.path.join(directory, temporary_name(base, _name_limit(directory)))
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(3):
        try:
            fd = os.open(path, flags, 0o666)
        except PermissionError:
            raise _os_error(PermissionError, errno.EACCES, f"{target}: permission denied") from None
        except OSError as error:
            raise _os_error(
                type(error), error.errno or errno.EIO, f"{target}: cannot be saved ({error.strerror})"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _os_error(
                BlockingIOError, errno.EAGAIN, f"{target}: another save to this file is in progress"
            ) from None
        try:  # the save we waited for may have renamed this very file to the target meanwhile
            current = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            current = None
        if current is not None and os.path.samestat(current, os.fstat(fd)):
            os.ftruncate(fd, 0)
            return path, fd
        os.close(fd)
    raise _os_error(BlockingIOError, errno.EAGAIN, f"{target}: another save to this file is in progress")


class _Sink:
    """What `write_array` writes to: not a file object to numpy, so it never uses `tofile` (whose
    failures say "N requested and M written", with no errno), and every write reaches the fd."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        total = len(view)
        while view:
            view = view[os.write(self.fd, view) :]
        return total


def _write_failure(target: str, error: OSError, size: int) -> OSError:
    """One line naming the target for a failed write; a full disk said in words."""
    if error.errno == errno.ENOSPC:
        return _os_error(
            OSError, errno.ENOSPC, f"{target}: no space left on the device (saving {size:,} bytes)"
        )
    if error.errno == errno.EDQUOT:
        return _os_error(OSError, errno.EDQUOT, f"{target}: disk quota exceeded (saving {size:,} bytes)")
    detail = error.strerror or " ".join(str(error).split())
    return _os_error(type(error), error.errno or errno.EIO, f"{target}: cannot be saved ({detail})")


def save(path: PathLike, t: AbstractTensor) -> None:
    """Write `t` to a `.npy` file atomically: a temporary file beside it, then one rename.

    A failed save leaves the old file as it was, and saving onto the file `t` is memory-mapped
    from works: the map keeps reading the old file while the new one is written. As `np.save`,
    it refuses a file its owner made read-only (PermissionError). The temporary file has one
    name per target (`.NAME.lt-save`), so a save killed midway leaves at most that file, which
    the next save reuses. Object tensors cannot be saved (that would need pickle).

    >>> import tempfile, pathlib, lazytensor as lt
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npy"
    >>> lt.save(path, lt.arange(4))
    >>> lt.save(path, lt.load(path) * 2)
    >>> lt.load(path).tolist()
    [0, 2, 4, 6]

    A path ending in `.zarr` is written as a zarr v3 array instead, whose `dimension_names` are
    the tensor's names (a `.npy` file has nowhere to keep them).

    >>> store = pathlib.Path(tempfile.mkdtemp()) / "t.zarr"
    >>> lt.save(store, lt.zeros(2, 3, names=("trial", "time")))
    >>> lt.open(store).names
    ('trial', 'time')
    """
    if t.dtype.hasobject:
        raise ValueError(f"cannot save a tensor of dtype object to {os.fspath(path)} without pickle")
    if os.fspath(path).endswith(ZARR_SUFFIX):
        _save_zarr(os.path.realpath(os.fspath(path)), t)
        return
    array = t.numpy()  # evaluated first: an error here leaves no file behind
    if not array.flags.c_contiguous:  # (np.ascontiguousarray alone would make a 0-d array (1,))
        array = np.ascontiguousarray(array)
    target = _target(path)
    replaced = os.path.isfile(target)
    if replaced and not os.access(target, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        raise _os_error(PermissionError, errno.EACCES, f"{target}: permission denied (the file is read-only)")
    temporary, fd = _open_temporary(target)
    try:
        try:
            np.lib.format.write_array(cast(Any, _Sink(fd)), array, allow_pickle=False)
            os.fsync(fd)
        except OSError as error:
            raise _write_failure(target, error, array.nbytes) from None
        if replaced:  # keep the permissions of the file being replaced
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    finally:
        os.close(fd)


ZARR_SUFFIX = ".zarr"
"""`save` writes a path ending in this as a zarr v3 array (with the tensor's names)."""


def _save_zarr(target: str, t: AbstractTensor) -> None:
    """Write `t` as a zarr v3 array at `target`: into a temporary store beside it first, which then
    takes the target's place, so a failed save leaves the old store as it was."""
    zarr = require("zarr", "zarr")
    array = t.numpy()  # evaluated first: an error here leaves no store behind
    directory, base = os.path.split(target)
    temporary = os.path.join(directory, temporary_name(base, _name_limit(directory)))
    old = temporary + ".old"
    for leftover in (temporary, old):  # a killed save's
        shutil.rmtree(leftover, ignore_errors=True)
    names = t.names if naming.is_named(t.names) else None
    try:
        store = zarr.create_array(
            temporary, shape=array.shape, dtype=array.dtype, dimension_names=names, zarr_format=3
        )
        store[...] = array
        if os.path.exists(target):
            os.replace(target, old)
        os.replace(temporary, target)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


# -- array-like bases: zarr, dask, h5py -------------------------------------------------------------


def from_array(array: Any, *, names: Any = None) -> AbstractTensor:
    """A tensor over any array-like (a zarr array, a dask array, an h5py dataset, an xarray
    DataArray, a numpy array) that reads nothing until asked: every view stacks on it, reads touch
    only the chunks they need.

    A zarr-backed tensor writes through its views into the store; a dask-backed one is
    read-only and keeps operations lazy until `.numpy()`, `.compute()`, a print or
    `dask.compute(t)`. An xarray DataArray over dask is its dask array; one over a file is read
    lazily through xarray.

    The axes are named by `names`, else by what the array keeps: a DataArray's `dims`, a zarr
    v3 array's `dimension_names`, an HDF5 dataset's dimension labels (or scales).

    >>> import numpy as np, lazytensor as lt
    >>> t = lt.from_array(np.arange(12).reshape(3, 4), names=("row", "col"))
    >>> t.T[::2, 1:].tolist(), t.base.layer_name, t.names
    ([[4, 8], [6, 10]], 'Numpy', ('row', 'col'))
    """
    if XarrayBackend.accepts(array) and array.chunks is not None:
        return named_base(ArrayBase(array.data), array.dims, names)
    if hasattr(array, "data_vars") and not hasattr(array, "shape"):  # an xarray Dataset
        held = ", ".join(str(name) for name in array.data_vars)
        raise TypeError(f"a Dataset holds several arrays ({held}): pass one, lt.from_array(ds[name])")
    if Hdf5Backend.accepts(array):  # the user's own dataset: external storage is theirs to allow
        return named_base(ArrayBase(hdf5safe.check(array, allow_external=True)), None, names)
    return named_base(ArrayBase(zarrstore.guarded(array)), None, names)  # local zarr: through a safe store


def named_base(base: ArrayBase, kept: Any, names: Any) -> ArrayBase:
    """`base` named by `names` when given, else by what its array keeps (or `kept`, the names of
    the array it was unwrapped from)."""
    if names is None:
        found = base.backend.dimension_names(base.array) if kept is None else tuple(kept)
        names = naming.from_format(found, base.shape)
    naming.name_base(base, names)
    return base


OPEN_MODES = ("r", "r+")
"""The modes `open` takes: read-only, or read and write an existing array. Never one that creates
or truncates (zarr's "w", "w-", "a"): opening never writes or destroys."""

HDF5_SUFFIXES = (".h5", ".hdf5", ".he5")
NETCDF_SUFFIXES = (".nc", ".nc4", ".cdf")
NETCDF_ENGINES = ("h5netcdf", "netCDF4")
"""xarray's netCDF backends, in the order tried (h5netcdf comes with the `xarray` extra)."""

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def open(
    path: PathLike,
    key: str | None = None,
    *,
    mode: str = "r+",
    names: Any = None,
    allow_external: bool = False,
) -> AbstractTensor:  # lt.open, as numpy's load
    """A tensor over the array stored at the local `path`, read lazily: a `.npy` file (memory-mapped
    read-only, as `load`), an HDF5 file (`.h5`, `.hdf5`: `key` names the dataset, e.g.
    `"group/data"`), a netCDF file (`.nc`, through xarray: `key` names the variable), else a zarr
    store (v2 or v3; `key` names an array inside a group).

    `mode` is `"r+"` (read and write the existing array: zarr and HDF5) or `"r"` (read-only).
    Opening never creates, truncates or writes: a mode that would (`"w"`, `"w-"`, `"a"`) is
    refused before anything is touched; to make a store, create it with zarr or h5py and pass
    the array to `lt.from_array`. URLs (`s3://`, `memory://`) are refused the same way: open the
    array with zarr or xarray (they speak fsspec) and pass it to `lt.from_array`.

    >>> import tempfile, pathlib, lazytensor as lt
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npy"
    >>> lt.save(path, lt.arange(4))
    >>> lt.open(path).tolist()
    [0, 1, 2, 3]

    The axes are named by `names`, else by what the file keeps (zarr v3 `dimension_names`, HDF5
    dimension labels or scales, netCDF dimensions); a `.npy` file keeps none.

    An HDF5 or netCDF file is opened as carefully as a zarr store (`lazytensor.bases.hdf5safe`):
    only a regular file; no external storage, virtual dataset or external link reading another
    file unless `allow_external=True`; chunks of at most 256 MiB decoded, through filters whose
    output can be bounded; every h5py error one line naming the file and the dataset.
    """
    name = os.fspath(path)
    if _URL.match(name):
        raise ValueError(
            f"{name}: lt.open opens local paths only; open a URL with zarr or xarray "
            f"(zarr.open_array({name!r}, mode='r')) and pass the array to lt.from_array"
        )
    if mode not in OPEN_MODES:
        raise ValueError(
            f"{name}: lt.open never creates or truncates, and mode={mode!r} would; pass mode='r' "
            "(read-only) or mode='r+' (read and write the existing array); to make a new store, "
            "create it with zarr or h5py and pass the array to lt.from_array"
        )
    if name.endswith(".npy"):
        if key is not None:
            raise ValueError(f"{name}: a .npy file holds one array, so there is no {key!r} in it")
        return load(name, names=names)
    if not os.path.exists(name):
        raise FileNotFoundError(errno.ENOENT, "no .npy file, HDF5 or netCDF file or zarr store here", name)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in HDF5_SUFFIXES:
        return named_base(_array_base(name, _hdf5_dataset(name, key, mode, allow_external)), None, names)
    if suffix in NETCDF_SUFFIXES:
        variable = _netcdf_variable(name, key, allow_external)  # its own refusals name the file already
        return _named_error(name, lambda: from_array(variable, names=names))
    return named_base(_array_base(name, _zarr_array(name, key, mode)), None, names)


_T = TypeVar("_T")


def _array_base(name: str, array: Any) -> ArrayBase:
    """A base over the array opened from the file `name`; a refusal of its shape names the file."""
    return _named_error(name, lambda: ArrayBase(array))


def _named_error(name: str, make: Callable[[], _T]) -> _T:
    """`make()`, with the file `name` leading the message of a ValueError it raises (a hostile
    file's shape or names), so that the one line says which file."""
    try:
        return make()
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


def _zarr_array(name: str, key: str | None, mode: str) -> Any:
    """The zarr array (v2 or v3) at `name` (or at `key` inside the group there), opened in `mode`
    through the safe local store."""
    require("zarr", "zarr")
    try:
        return zarrstore.open_array(name, mode, inside=key)
    except zarrstore.StoreError:
        raise
    except Exception as error:  # zarr's own errors vary between versions: one line naming the path
        raise ValueError(
            f"{name}: not a .npy file nor a zarr array ({' '.join(str(error).split())})"
        ) from None


def _hdf5_dataset(name: str, key: str | None, mode: str, allow_external: bool) -> Any:
    """The dataset `key` of the HDF5 file `name` (the file's only dataset when `key` is None), checked
    by `hdf5safe` (a regular file; nothing read from other files unless `allow_external`)."""
    require("h5py", "h5py")
    file = hdf5safe.open_file(name, mode)
    try:
        found = None if key is None else hdf5safe.resolve(name, file, key)
        if found is None or not hasattr(found, "dtype"):
            found = hdf5safe.resolve(
                name, file, _one_name(name, key, hdf5safe.dataset_names(name, file), "dataset")
            )
        return hdf5safe.check(found, allow_external=allow_external, name=name)
    except BaseException:
        file.close()
        raise


def _netcdf_variable(name: str, key: str | None, allow_external: bool = False) -> Any:
    """The variable `key` of the netCDF file `name`, read lazily through xarray."""
    xr = require("xarray", "xarray")
    engines = [engine for engine in NETCDF_ENGINES if importlib.util.find_spec(engine) is not None]
    if not engines:
        raise ImportError(
            f"{name}: reading netCDF needs xarray's h5netcdf (or netCDF4) backend: from a lazytensor "
            "checkout, pip install -e '.[xarray]'"
        )
    if importlib.util.find_spec("h5py") is not None:  # a netCDF-4 file is an HDF5 file: checked as one
        hdf5safe.check_netcdf(name, allow_external)
    else:
        hdf5safe.require_regular(name, "netCDF file")
    try:
        dataset = xr.open_dataset(name, engine=engines[0], cache=False)
    except Exception as error:  # the backend's own errors: one line naming the file
        raise ValueError(f"{name}: not a netCDF file ({' '.join(str(error).split())})") from None
    return dataset[_one_name(name, key, [str(v) for v in dataset.data_vars], "variable")]


def _one_name(name: str, key: str | None, names: list[str], what: str) -> str:
    """`key` if it is one of `names`, or the only one of them when `key` is None."""
    if key is None and len(names) == 1:
        return names[0]
    if key is not None and key.strip("/") in names:
        return key.strip("/")
    listed = ", ".join(names) if names else f"no {what}s"
    if key is None:
        raise ValueError(f"{name} holds {len(names)} {what}s ({listed}): name one, lt.open(path, key)")
    raise KeyError(f"{name} has no {what} {key!r}; it has {listed}")

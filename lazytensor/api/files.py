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
import json
import math
import os
import re
import shutil
import stat
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Literal, TypeVar, cast

import attrs
import numpy as np

from lazytensor.api.creation import from_numpy
from lazytensor.bases import hdf5safe, zarrstore
from lazytensor.bases.arraylike import ArrayBase, Hdf5Backend, XarrayBackend, require
from lazytensor.bases.memmap import MappedTensor
from lazytensor.bases.zarrstore import shown
from lazytensor.ground import coords as coordinates
from lazytensor.ground import naming
from lazytensor.ground.filekinds import file_kind
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


def _open_regular(path: PathLike, writable: bool = False) -> BinaryIO:
    """Open `path` for reading (and writing, when `writable`) if it is a regular file; never blocks on
    a FIFO or reads a device."""
    name = shown(path)
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise _os_error(FileNotFoundError, errno.ENOENT, f"{name}: no such file") from None
    except PermissionError:
        raise _os_error(PermissionError, errno.EACCES, f"{name}: permission denied") from None
    except OSError as error:  # a symlink loop, a name too long, a path through a file
        raise ValueError(f"{name}: cannot be opened ({error.strerror or error})") from None
    _require_regular(name, before.st_mode)
    try:  # O_NONBLOCK: should the file turn into a FIFO after the stat, open must not wait
        access = os.O_RDWR if writable else os.O_RDONLY
        fd = os.open(path, access | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC)
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
    return os.fdopen(fd, "r+b" if writable else "rb")


def _require_regular(name: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = file_kind(mode)
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


def _read_array(
    file: BinaryIO, name: str, header: NpyHeader, mmap: bool, mode: Literal["r", "r+"] = "r"
) -> np.ndarray[Any, Any]:
    """The data after the header: a memory map (read-only, or writing through to the file with
    `mode="r+"`), or an array read into memory."""
    order: Literal["C", "F"] = "F" if header.fortran_order else "C"
    count = math.prod(header.shape)
    array: np.ndarray[Any, Any]
    try:
        if mmap and count > 0 and header.dtype.itemsize > 0:
            array = np.memmap(
                cast(Any, file), dtype=header.dtype, mode=mode, offset=header.data_offset,
                shape=header.shape, order=order,
            )  # fmt: skip
            return array
        if header.dtype.itemsize == 0:  # no data to read: numpy copying nothing element by element is slow
            return np.ndarray(header.shape, dtype=header.dtype, order=order)  # keeps |S0 (np.empty makes |S1)
        file.seek(header.data_offset)
        data = _read_exactly(file, count * header.dtype.itemsize)
        flat = np.frombuffer(data, dtype=header.dtype, count=count).copy()
        array = flat.reshape(header.shape + header.dtype.shape, order=order)
        return array
    except (ValueError, OSError, MemoryError) as error:
        raise ValueError(f"{name}: cannot read the array data ({' '.join(str(error).split())})") from None


def load(path: PathLike, mmap: bool = True, *, names: Any = None, mode: str = "r") -> AbstractTensor:
    """A tensor over a `.npy` file, memory-mapped read-only by default so only what is read is loaded;
    `mode="r+"` maps it for writing, so a write to the tensor or any view of it reaches the file.

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
    >>> t = lt.load(path, mode="r+")
    >>> t[0, 0] = 100
    >>> lt.load(path).tolist()
    [[100, 1, 2], [3, 4, 5]]
    """
    name = shown(path)
    if mode not in ("r", "r+"):
        raise ValueError(
            f"load: mode must be 'r' (read-only) or 'r+' (write through to the file), got {mode!r}"
        )
    if mode == "r+" and not mmap:
        raise ValueError(
            "load: mode='r+' writes through a memory map; with mmap=False writes would not reach the file"
        )
    with _open_regular(path, writable=mode == "r+") as file:
        file_size = os.fstat(file.fileno()).st_size
        header = read_header(file, name, file_size)
        array = _read_array(file, name, header, mmap, "r+" if mode == "r+" else "r")
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

    def open_file() -> int:
        try:
            return os.open(path, flags, 0o666)
        except PermissionError:
            raise _os_error(PermissionError, errno.EACCES, f"{shown(target)}: permission denied") from None
        except OSError as error:
            raise _os_error(
                type(error), error.errno or errno.EIO, f"{shown(target)}: cannot be saved ({error.strerror})"
            ) from None

    fd = _locked_work(path, open_file, f"{shown(target)}: another save to this file is in progress")
    os.ftruncate(fd, 0)
    return path, fd


def _locked_work(path: str, open_work: Callable[[], int | None], busy: str) -> int:
    """A descriptor of the work file (or folder) `path`, opened by `open_work` (None: it vanished, try
    again) and locked (flock): the same file still at `path` once locked, since the save we waited
    for may have renamed or removed it meanwhile. Another save holding the lock is a BlockingIOError
    saying `busy`."""
    for _ in range(3):
        fd = open_work()
        if fd is None:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _os_error(BlockingIOError, errno.EAGAIN, busy) from None
        try:
            current = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            current = None
        if current is not None and os.path.samestat(current, os.fstat(fd)):
            return fd
        os.close(fd)
    raise _os_error(BlockingIOError, errno.EAGAIN, busy)


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
            OSError, errno.ENOSPC, f"{shown(target)}: no space left on the device (saving {size:,} bytes)"
        )
    if error.errno == errno.EDQUOT:
        return _os_error(
            OSError, errno.EDQUOT, f"{shown(target)}: disk quota exceeded (saving {size:,} bytes)"
        )
    detail = error.strerror or " ".join(str(error).split())
    return _os_error(type(error), error.errno or errno.EIO, f"{shown(target)}: cannot be saved ({detail})")


SAVE_MAX_BYTES = 16 << 30
"""The most bytes `save` writes unless asked for more (`max_bytes=`): a result larger than this
(`lt.ones(1).expand(10**10)` is 80 GB) is refused before anything is written."""
BLOCK_BYTES = 16 << 20
"""About how many bytes of the tensor `save` reads at once: it writes block by block, so a result
larger than memory (a lazy expression over a store) can be saved."""


def save(path: PathLike, t: AbstractTensor, *, max_bytes: int | None = None) -> None:
    """Write `t` to a `.npy` file atomically: a temporary file beside it, then one rename.

    A failed save leaves the old file as it was, and saving onto the file `t` is memory-mapped
    from works: the map keeps reading the old file while the new one is written. As `np.save`,
    it refuses a file its owner made read-only (PermissionError); the folder must be writable
    too, for the new file. The temporary file has one name per target (`.NAME.lt-save`): a save
    killed midway leaves at most that file, which the next save reuses; a failed or
    interrupted (Ctrl-C) save leaves nothing. Object tensors cannot be saved (that would need
    pickle).

    `t` is read and written block by block (about `BLOCK_BYTES` at a time), never whole, so a
    result larger than memory can be saved. A result larger than `max_bytes` (by default
    `lazytensor.api.files.SAVE_MAX_BYTES`, 16 GiB) is refused before anything is written:
    pass a larger `max_bytes` to write it. A `.npy` file its device has no room for is refused
    up front too (OSError, ENOSPC); a full disk during a write (zarr compresses: its size is not
    known before) is the same one line.

    >>> import tempfile, pathlib, lazytensor as lt
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npy"
    >>> lt.save(path, lt.arange(4))
    >>> lt.save(path, lt.load(path) * 2)
    >>> lt.load(path).tolist()
    [0, 2, 4, 6]
    >>> lt.save(path, lt.ones(1).expand(10**10))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: .../t.npy: the tensor holds 80,000,000,000 bytes (74.5 GiB), ... max_bytes=80_000_000_000)

    A path ending in `.zarr` is written as a zarr v3 array instead, whose `dimension_names` are
    the tensor's names (a `.npy` file has nowhere to keep them), in blocks of whole chunks.

    >>> store = pathlib.Path(tempfile.mkdtemp()) / "t.zarr"
    >>> lt.save(store, lt.zeros(2, 3, names=("trial", "time")))
    >>> lt.open(store).names
    ('trial', 'time')

    A store is replaced only when it is a zarr array (its metadata and chunk files, nothing
    else; or a `.npy` file): a folder holding other files is an IsADirectoryError, as is a zarr
    group; a symbolic link, or a file of any other kind, is a FileExistsError. Nothing is ever
    written through a link, and nothing `save` did not write is deleted.
    """
    name = os.fspath(path)
    if t.dtype.hasobject:
        raise ValueError(f"cannot save a tensor of dtype object to {shown(name)} without pickle")
    _check_size(shown(name), t, SAVE_MAX_BYTES if max_bytes is None else max_bytes)
    if name.endswith(ZARR_SUFFIX):
        _save_zarr(os.path.abspath(name), t)  # never resolved: a link at the name is not followed
        return
    target = _target(path)
    replaced = _check_npy_target(target)
    _check_space(target, math.prod(t.shape) * t.dtype.itemsize)
    temporary, fd = _open_temporary(target)
    try:
        sink = _Sink(fd)
        with _writing(target, t):
            _write_npy_header(sink, t.shape, t.dtype)
        for region in _c_order_blocks(t.shape, t.dtype.itemsize):
            values = _block(t, region)  # a failed read raises as the tensor raised it
            with _writing(target, t):
                sink.write(_bytes_of(values))
        with _writing(target, t):
            os.fsync(fd)
        if replaced:  # keep the permissions of the file being replaced
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def _writing(target: str, t: AbstractTensor) -> Iterator[None]:
    """A failed write of `t` to `target` as one line naming the target (a full disk said in words)."""
    try:
        yield
    except OSError as error:
        raise _write_failure(target, error, math.prod(t.shape) * t.dtype.itemsize) from None


def _check_size(label: str, t: AbstractTensor, limit: int) -> None:
    """Refuse, before anything is written, a tensor of more than `limit` bytes."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise TypeError(f"save: max_bytes must be a number of bytes (an int >= 0), not {limit!r}")
    size = math.prod(t.shape) * t.dtype.itemsize
    if size <= limit:
        return
    raise ValueError(
        f"{label}: the tensor holds {size:,} bytes ({size / (1 << 30):,.1f} GiB), more than lt.save "
        f"writes unless asked ({limit:,}); to write it, pass lt.save(path, t, max_bytes={size:_})"
    )


def _check_folder(target: str) -> None:
    """PermissionError naming the folder `target` would be saved in when it is not writable (a
    save writes a new file beside the old one, then renames it)."""
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        return  # the open of the temporary file says what is wrong
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        raise _os_error(
            OSError,
            errno.EROFS,
            f"{shown(target)}: cannot be saved (its folder {shown(folder)} is on a read-only file system)",
        )
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise _os_error(
            PermissionError,
            errno.EACCES,
            f"{shown(target)}: permission denied (the folder {shown(folder)} is not writable; lt.save "
            "writes a new file there, then renames it over the old one)",
        )


def _check_space(target: str, size: int) -> None:
    """Refuse, before writing, a `.npy` file of `size` bytes of data that its folder's device has no
    room for (the new file is written while the old one is still there)."""
    try:
        device = os.statvfs(os.path.dirname(target) or ".")
    except OSError:
        return  # the open of the temporary file says what is wrong
    free = device.f_bavail * device.f_frsize
    if size > free:
        raise _os_error(
            OSError,
            errno.ENOSPC,
            f"{shown(target)}: no space left on the device (saving {size:,} bytes; {free:,} are free)",
        )


def _check_npy_target(target: str) -> bool:
    """Whether a `.npy` save replaces a file at `target`; refuses a folder, a file of another kind
    (a FIFO, a device), an unwritable folder and a read-only file, as `np.save` refuses them."""
    _check_folder(target)
    try:
        info = os.stat(target)
    except OSError:
        return False  # nothing there (or nothing reachable): the open of the temporary file says why
    if stat.S_ISDIR(info.st_mode):
        raise _os_error(IsADirectoryError, errno.EISDIR, f"{shown(target)}: is a directory, not a .npy file")
    if not stat.S_ISREG(info.st_mode):
        kind = file_kind(info.st_mode)
        raise _os_error(
            FileExistsError, errno.EEXIST, f"{shown(target)}: is {kind}; lt.save replaces only a regular file"
        )
    if not os.access(target, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        raise _os_error(
            PermissionError, errno.EACCES, f"{shown(target)}: permission denied (the file is read-only)"
        )
    return True


def _write_npy_header(sink: _Sink, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
    """The `.npy` header `np.save` writes for an array of `shape` and `dtype` (C order)."""
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    write = _numpy_header_writer()
    if write is not None:
        write(sink, header, None)
        return
    try:
        np.lib.format.write_array_header_1_0(cast(Any, sink), header)
    except ValueError:  # a header past 64 KiB
        np.lib.format.write_array_header_2_0(cast(Any, sink), header)


def _numpy_header_writer() -> Callable[..., Any] | None:
    """numpy's own header writer, which picks the format version as `np.save` does (1.0, else 2.0,
    else 3.0 for names beyond latin-1); private, so looked up where numpy has kept it."""
    for module in ("numpy.lib._format_impl", "numpy.lib.format"):
        with contextlib.suppress(ImportError):
            write = getattr(importlib.import_module(module), "_write_array_header", None)
            if write is not None:
                return cast(Callable[..., Any], write)
    return None


Region = tuple[int | slice, ...]


def _c_order_blocks(shape: tuple[int, ...], itemsize: int, budget: int | None = None) -> Iterator[Region]:
    """Regions of `shape` of about `budget` bytes whose values, one after another, are the array in C
    order: runs of the last axes whole, cut along one axis.

    >>> list(_c_order_blocks((2, 3), 8, budget=24))
    [(slice(0, 1, None), slice(0, 3, None)), (slice(1, 2, None), slice(0, 3, None))]
    >>> list(_c_order_blocks((2, 6), 8, budget=24))
    [(0, slice(0, 3, None)), (0, slice(3, 6, None)), (1, slice(0, 3, None)), (1, slice(3, 6, None))]
    """
    budget = BLOCK_BYTES if budget is None else budget
    if 0 in shape:
        return
    whole = len(shape)  # the axes from `whole` on are whole in every block
    inner = max(itemsize, 1)
    while whole > 0 and inner * shape[whole - 1] <= budget:
        whole -= 1
        inner *= shape[whole]
    if whole == 0:
        yield tuple(slice(0, n) for n in shape)
        return
    axis = whole - 1
    step = max(1, budget // inner)
    rest = tuple(slice(0, n) for n in shape[whole:])
    for lead in np.ndindex(*shape[:axis]):
        for start in range(0, shape[axis], step):
            yield (*lead, slice(start, min(start + step, shape[axis])), *rest)


def _chunk_blocks(shape: tuple[int, ...], chunks: tuple[int, ...], itemsize: int) -> Iterator[Region]:
    """Regions of `shape` made of whole chunks (cut at the array's end), of about BLOCK_BYTES: the
    chunks grown along the last axes first.

    >>> list(_chunk_blocks((4, 4), (2, 2), 8))
    [(slice(0, 4, None), slice(0, 4, None))]
    """
    if 0 in shape:
        return
    block = list(chunks)
    for axis in range(len(shape) - 1, -1, -1):
        others = math.prod(block) // max(block[axis], 1) * max(itemsize, 1)
        fit = max(1, BLOCK_BYTES // max(others * chunks[axis], 1))
        block[axis] = min(shape[axis], chunks[axis] * fit) if chunks[axis] else shape[axis]
        if block[axis] < shape[axis]:
            break
    for corner in np.ndindex(*(-(-n // b) for n, b in zip(shape, block, strict=True))):
        yield tuple(slice(i * b, min((i + 1) * b, n)) for i, b, n in zip(corner, block, shape, strict=True))


def _bytes_of(values: np.ndarray[Any, Any]) -> Any:
    """The bytes of `values` in C order, without a copy when they are contiguous already."""
    values = np.ascontiguousarray(values)
    return values.reshape(-1).view(np.uint8) if values.dtype.itemsize else b""


def _block(t: AbstractTensor, region: Region) -> np.ndarray[Any, Any]:
    """The values of `t` at `region`, read through a view (a computed tensor computes just them)."""
    values = t[region] if region else t
    if isinstance(values, AbstractTensor):
        return np.asarray(values.numpy())
    return np.asarray(values, dtype=t.dtype)


ZARR_SUFFIX = ".zarr"
"""`save` writes a path ending in this as a zarr v3 array (with the tensor's names)."""
ZARR_METADATA = ("zarr.json", ".zarray", ".zattrs")
ZARR_CHUNK_KEY = re.compile(r"(c|\d+)([./]\d+)*|c")
"""The names of a zarr array's chunk (or shard) files under its folder: v3's `c/0/1` (or `c.0.1`),
v2's `0.1` (or `0/1`)."""
MAX_SCAN_ENTRIES = 1_000_000


def _save_zarr(target: str, t: AbstractTensor) -> None:
    """Write `t` as a zarr v3 array at `target`: into a folder beside it first, which then takes the
    target's place, so a failed save leaves the old store as it was, and the old store is deleted
    only when it is a zarr array (or a `.npy` file)."""
    zarr = require("zarr", "zarr")
    _check_folder(target)
    _replaceable(target)  # refused before anything is written
    work, fd = _claim_work_folder(target)
    try:
        new, old = os.path.join(work, "new"), os.path.join(work, "old")
        names = t.names if naming.is_named(t.names) else None
        with _writing(target, t):
            store = zarr.create_array(new, shape=t.shape, dtype=t.dtype, dimension_names=names, zarr_format=3)
        for region in _chunk_blocks(t.shape, tuple(store.chunks), t.dtype.itemsize):
            values = _block(t, region)  # a failed read raises as the tensor raised it
            with _writing(target, t):
                store[region] = values
        if _replaceable(target):  # (asked again: it may have changed meanwhile)
            os.rename(target, old)
        try:
            os.rename(new, target)
        except BaseException:
            if os.path.lexists(old):
                os.rename(old, target)
            raise
    except BaseException:
        zarrstore.settle()  # zarr's own thread may still be writing chunks of the interrupted write
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(fd)


def _replaceable(target: str) -> bool:
    """Whether there is something at `target` that a zarr save may replace (a zarr array, a `.npy`
    file); False when there is nothing; one line saying what is there and why not otherwise."""
    label = shown(target)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise _os_error(
            FileExistsError,
            errno.EEXIST,
            f"{label}: is a symbolic link (to {shown(os.readlink(target))}); lt.save never writes through "
            "a link: save to the path it points to, or remove the link",
        )
    if stat.S_ISDIR(info.st_mode):
        problem = _not_a_zarr_array(target)
        if problem is None:
            return True
        raise _os_error(
            IsADirectoryError,
            errno.EISDIR,
            f"{label}: is a directory that is not a zarr array ({problem}); lt.save replaces only a zarr "
            "array: remove it or save elsewhere",
        )
    if stat.S_ISREG(info.st_mode) and _starts_with(target, MAGIC):
        return True
    kind = file_kind(info.st_mode, "a file that is not a .npy file")
    raise _os_error(
        FileExistsError,
        errno.EEXIST,
        f"{label}: is {kind}; lt.save replaces only a zarr array or a .npy file: remove it or save elsewhere",
    )


def _starts_with(path: str, prefix: bytes) -> bool:
    try:
        with _open_regular(path) as file:
            return _read_exactly(file, len(prefix)) == prefix
    except (OSError, ValueError):
        return False


def _not_a_zarr_array(folder: str) -> str | None:
    """None when `folder` holds a zarr array and nothing else (its metadata documents and chunk
    files); else what it holds instead, in a few words."""
    kind = _zarr_node(folder)
    if kind != "array":
        return kind
    seen = 0
    stack = [""]
    while stack:
        inside = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(folder, inside)))
        except OSError as error:
            return f"{shown(inside or '.')} cannot be listed ({error.strerror or error})"
        for entry in entries:
            seen += 1
            if seen > MAX_SCAN_ENTRIES:
                return f"more than {MAX_SCAN_ENTRIES:,} files"
            relative = f"{inside}/{entry.name}" if inside else entry.name
            if entry.is_symlink():
                return f"it holds a symbolic link, {shown(relative)}"
            if entry.is_dir(follow_symlinks=False):
                stack.append(relative)
            elif not (
                entry.is_file(follow_symlinks=False)
                and ((not inside and entry.name in ZARR_METADATA) or ZARR_CHUNK_KEY.fullmatch(relative))
            ):
                return f"it holds {shown(relative)}"
    return None


def _zarr_node(folder: str) -> str:
    """ "array" for the folder of a zarr array (v3 or v2), else what it is in a few words."""
    for document, v2_kind in (("zarr.json", None), (".zarray", "array"), (".zgroup", "a zarr group")):
        path = os.path.join(folder, document)
        if not os.path.lexists(path):
            continue
        if v2_kind is not None:
            return v2_kind
        try:
            with _open_regular(path) as file:
                node = json.loads(_read_exactly(file, zarrstore.MAX_METADATA_BYTES)).get("node_type")
        except (OSError, ValueError, AttributeError):
            return "its zarr.json cannot be read"
        return (
            "array"
            if node == "array"
            else "a zarr group"
            if node == "group"
            else "its zarr.json is no array's"
        )
    return "no zarr.json or .zarray in it"


def _claim_work_folder(target: str) -> tuple[str, int]:
    """The folder beside `target` a zarr save writes in (`.NAME.lt-save`), made (or a killed save's
    reused once it is emptied of what that save wrote) and locked; another save of the same target
    still running is a BlockingIOError."""
    directory, base = os.path.split(target)
    work = os.path.join(directory, temporary_name(base, _name_limit(directory)))
    label = shown(target)

    def open_folder() -> int | None:
        with contextlib.suppress(FileExistsError):
            os.mkdir(work)
        try:
            return os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None  # a save that just finished removed it
        except OSError as error:
            if error.errno in (errno.ENOTDIR, errno.ELOOP):
                raise _os_error(
                    FileExistsError,
                    errno.EEXIST,
                    f"{label}: {shown(work)} is in the way (lt.save makes a folder there): remove it",
                ) from None
            raise _os_error(
                type(error), error.errno or errno.EIO, f"{label}: cannot be saved ({error.strerror})"
            ) from None

    fd = _locked_work(work, open_folder, f"{label}: another save to this store is in progress")
    try:
        _empty_work_folder(target, work)
    except BaseException:
        os.close(fd)
        raise
    return work, fd


def _empty_work_folder(target: str, work: str) -> None:
    """Empty a killed save's folder `work`: the old store back at `target` when the save died between
    its two renames, and what it wrote (a partly written zarr array, the replaced store) deleted;
    anything else there is refused, never deleted. An earlier lazytensor wrote its store straight
    into `work` and moved the old one to `work + ".old"`: those go the same way."""
    legacy = work + ".old"
    for moved in (os.path.join(work, "old"), legacy):
        if os.path.lexists(moved) and not os.path.lexists(target) and _ours(moved, "old"):
            os.rename(moved, target)  # the user's store, moved aside by a save killed midway
    if _zarr_node(work) == "array" and _not_a_zarr_array(work) is None:
        leftovers = [entry for entry in os.listdir(work)]  # an earlier lazytensor's store: all ours
    else:
        leftovers = [entry for entry in os.listdir(work) if _ours(os.path.join(work, entry), entry)]
        others = sorted(set(os.listdir(work)) - set(leftovers))
        if others:
            raise _os_error(
                FileExistsError,
                errno.EEXIST,
                f"{shown(target)}: {shown(work)} holds {shown(others[0])}, which lt.save did not write: "
                "remove it",
            )
    for entry in leftovers:
        _remove(os.path.join(work, entry))
    if os.path.lexists(legacy) and _ours(legacy, "old"):
        _remove(legacy)


def _ours(path: str, entry: str) -> bool:
    """Whether `path`, the entry `entry` of a save's folder, is what a save writes there: the new
    store (a zarr array, perhaps partly written or empty) or the old one (a zarr array, a `.npy` file)."""
    if entry not in ("new", "old") or os.path.islink(path):
        return False
    if os.path.isdir(path):
        return not os.listdir(path) or _not_a_zarr_array(path) is None
    return entry == "old" and os.path.isfile(path) and _starts_with(path, MAGIC)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


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
    if XarrayBackend.accepts(array):
        base = (
            named_base(ArrayBase(array.data), array.dims, names)
            if array.chunks is not None
            else named_base(ArrayBase(zarrstore.guarded(array)), None, names)
        )
        return labelled(base, xarray_coords(array))
    if hasattr(array, "data_vars") and not hasattr(array, "shape"):  # an xarray Dataset
        held = ", ".join(str(name) for name in array.data_vars)
        raise TypeError(f"a Dataset holds several arrays ({held}): pass one, lt.from_array(ds[name])")
    if Hdf5Backend.accepts(array):  # the user's own dataset: external storage is theirs to allow
        return named_base(ArrayBase(hdf5safe.check(array, allow_external=True)), None, names)
    return named_base(ArrayBase(zarrstore.guarded(array)), None, names)  # local zarr: through a safe store


def xarray_coords(array: Any) -> dict[str, Any]:
    """A DataArray's 1-D dimension coordinates by dimension name, read whole (each no longer than
    `coords.COORD_LIMIT`; a longer one is left behind)."""
    found: dict[str, Any] = {}
    for dim in array.dims:
        if dim not in array.coords:  # a bare dimension (xarray's `coords.get` would make up a range)
            continue
        coord = array.coords[dim]
        if coord.dims == (dim,) and coord.size <= coordinates.COORD_LIMIT:
            found[str(dim)] = coord.values
    return found


def labelled(base: ArrayBase, found: dict[str, Any]) -> ArrayBase:
    """`base` (named) labelled by the coordinates `found` by axis name, those that fit its axes."""
    if found and base.names_used:
        coordinates.label_base(base, coordinates.from_file(found, base.names, base.shape))
    return base


def _zarr_coords(name: str, key: str | None, base: ArrayBase) -> dict[str, Any]:
    """The coordinate arrays xarray writes beside a variable in a zarr group: the 1-D arrays named as
    the variable's axes, each of its axis' length (no longer than `coords.COORD_LIMIT`)."""
    if not base.names_used or key is None:
        return {}
    parent = key.strip("/").rpartition("/")[0]
    found: dict[str, Any] = {}
    for axis_name, size in zip(base.names, base.shape, strict=True):
        if (
            axis_name is None
            or axis_name == key.strip("/").rpartition("/")[2]
            or size > coordinates.COORD_LIMIT
        ):
            continue
        try:
            array = zarrstore.open_array(name, "r", inside=f"{parent}/{axis_name}" if parent else axis_name)
        except Exception:  # no such array, or not one zarr opens: no coordinate
            continue
        if getattr(array, "shape", None) == (size,):
            found[axis_name] = _decoded(array)
    return found


def _decoded(array: Any) -> Any:
    """A zarr coordinate array's labels, with xarray's CF time encoding decoded when it has one."""
    values = array[...]
    units = dict(getattr(array, "attrs", {})).get("units")
    if isinstance(units, str) and " since " in units:
        xr = require("xarray", "xarray")
        variable = xr.Variable(
            ("t",), values, {"units": units, "calendar": array.attrs.get("calendar", "standard")}
        )
        return xr.conventions.decode_cf_variable("t", variable).values
    return values


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
    output can be bounded (a deflate stream inflating more than 16 MiB past its chunk is refused
    before HDF5 inflates it); every h5py error one line naming the file and the dataset.
    """
    name = os.fspath(path)
    label = shown(name)  # for messages: control characters escaped
    if _URL.match(name):
        raise ValueError(
            f"{label}: lt.open opens local paths only; open a URL with zarr or xarray "
            f"(zarr.open_array({shown(repr(name))}, mode='r')) and pass the array to lt.from_array"
        )
    if mode not in OPEN_MODES:
        raise ValueError(
            f"{label}: lt.open never creates or truncates, and mode={mode!r} would; pass mode='r' "
            "(read-only) or mode='r+' (read and write the existing array); to make a new store, "
            "create it with zarr or h5py and pass the array to lt.from_array"
        )
    if name.endswith(".npy"):
        if key is not None:
            raise ValueError(f"{label}: a .npy file holds one array, so there is no {key!r} in it")
        return load(name, names=names)
    if not os.path.exists(name):
        raise FileNotFoundError(errno.ENOENT, "no .npy file, HDF5 or netCDF file or zarr store here", name)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in HDF5_SUFFIXES:
        return named_base(_array_base(label, _hdf5_dataset(name, key, mode, allow_external)), None, names)
    if suffix in NETCDF_SUFFIXES:
        variable = _netcdf_variable(name, key, allow_external)  # its own refusals name the file already
        return _named_error(label, lambda: from_array(variable, names=names))
    if not os.path.isdir(name):
        raise ValueError(_not_openable(label, suffix))
    base = named_base(_array_base(label, _zarr_array(name, key, mode)), None, names)
    return labelled(base, _zarr_coords(name, key, base))


def _not_openable(label: str, suffix: str) -> str:
    """Why the file `label`, which is not a folder (a zarr store), cannot be opened."""
    if suffix == ".npz":
        return (
            f"{label}: an .npz archive holds several arrays, which lt.open does not read: load one with "
            "numpy (np.load(path)[name]) and pass it to lt.tensor, or save each as .npy"
        )
    return (
        f"{label}: not a .npy (by its name), HDF5 or netCDF file (by its suffix: "
        f"{', '.join(HDF5_SUFFIXES + NETCDF_SUFFIXES)}) nor a zarr store (a folder)"
    )


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
            f"{shown(name)}: not a .npy file nor a zarr array ({shown(' '.join(str(error).split()))})"
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
        checked = hdf5safe.check(found, allow_external=allow_external, name=name)
        return hdf5safe.remember(checked, name, mode, allow_external)  # pickled by these
    except BaseException:
        file.close()
        raise


def _netcdf_variable(name: str, key: str | None, allow_external: bool = False) -> Any:
    """The variable `key` of the netCDF file `name`, read lazily through xarray."""
    xr = require("xarray", "xarray")
    engines = [engine for engine in NETCDF_ENGINES if importlib.util.find_spec(engine) is not None]
    if not engines:
        raise ImportError(
            f"{shown(name)}: reading netCDF needs xarray's h5netcdf (or netCDF4) backend: from a lazytensor "
            "checkout, pip install -e '.[xarray]'"
        )
    opened, fd = hdf5safe.held_open(name)  # xarray opens `opened`: the file checked, never a FIFO since
    try:
        if importlib.util.find_spec("h5py") is not None:  # a netCDF-4 file is an HDF5 file: checked as one
            hdf5safe.check_netcdf(name, allow_external, opened)
        try:
            dataset = xr.open_dataset(opened, engine=engines[0], cache=False)
        except Exception as error:  # the backend's own errors: one line naming the file
            detail = " ".join(str(error).replace(opened, name).split())
            raise ValueError(f"{shown(name)}: not a netCDF file ({shown(detail)})") from None
        chosen = _one_name(name, key, [str(v) for v in dataset.data_vars], "variable")
        variable = dataset[chosen]
    except BaseException:
        os.close(fd)
        raise
    variable.encoding["source"] = name  # what its messages name (xarray knows it as `opened`)
    weakref.finalize(variable, os.close, fd)  # xarray may open `opened` again while it is read
    arguments = (os.path.realpath(name), chosen, allow_external)
    return hdf5safe.remember_variable(variable, _netcdf_variable, arguments)  # pickled by these


def _one_name(name: str, key: str | None, names: list[str], what: str) -> str:
    """`key` if it is one of `names`, or the only one of them when `key` is None."""
    if key is None and len(names) == 1:
        return names[0]
    if key is not None and key.strip("/") in names:
        return key.strip("/")
    listed = shown(", ".join(names)) if names else f"no {what}s"
    name = shown(name)
    if key is None:
        raise ValueError(f"{name} holds {len(names)} {what}s ({listed}): name one, lt.open(path, key)")
    raise KeyError(f"{name} has no {what} {key!r}; it has {listed}")

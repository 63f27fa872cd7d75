"""HDF5 files opened as carefully as zarr stores: one error path for every hostile file.

An HDF5 file may name other files: a dataset with external storage reads raw bytes from any
path (`/etc/passwd`, a FIFO that blocks forever), a virtual dataset maps other files' datasets,
an external link opens another file. `lt.open` refuses all three unless asked
(`allow_external=True`), refuses what is not a regular file before h5py blocks on it, refuses a
chunk that would inflate past `MAX_CHUNK_BYTES` and a filter pipeline it cannot bound, inflates
(bounded, once) a deflate chunk that could inflate past its declared size before HDF5 decodes it, and
turns whatever h5py raises on a read into one line naming the file and the dataset. A strided
read whose chunks' bounding box is far larger than what it reads (HDF5 visits every chunk of
that box, uninterruptibly) is split into requests that each touch only their own chunks.
h5py is optional: it is imported when a file is opened. A file `lt.open` opened pickles as its
resolved path, dataset name and options, and is opened (and checked) again on unpickling.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
import math
import os
import stat
import weakref
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from lazytensor.ground.filekinds import file_kind

MAX_CHUNK_BYTES = 1 << 28
"""A chunk of a dataset holds at most this many bytes decoded (256 MiB): HDF5 decodes a whole chunk
to read one element of it, so a larger one (a few KB on disk can inflate to gigabytes) is refused."""
FILTERS = {1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit", 6: "scaleoffset", 32000: "lzf"}
"""The filters a pipeline may hold, each at most once (two compressors in a row make a bomb of a bomb):
HDF5's own and h5py's lzf. Others (plugins) decode into sizes lazytensor cannot bound."""
COMPRESSORS = {1, 4, 32000}
SCANNED_CHUNKS = 1 << 20
"""A request whose chunks' bounding box spans at most this many chunks is one request (HDF5 walks
them all, some tens of nanoseconds each)."""
SCANS_PER_REQUEST = 1024
"""Past SCANNED_CHUNKS, a request is split when its box spans more than this many chunks for each
request the split makes (one request costs about what HDF5 takes to walk a thousand chunks)."""
INFLATE_SLACK = 16 << 20
"""How many bytes past its declared size a chunk's deflate stream may inflate to; past that, the chunk
is refused before HDF5 decodes it. Only a chunk stored in more than about 16 KB can get there (see
MAX_DEFLATE_RATIO): only such chunks are inflated to check them, so most files pay nothing."""
MAX_DEFLATE_RATIO = 1032
"""The most bytes one stored byte of a deflate stream inflates to (a 258-byte match in two bits): a
chunk stored small enough that even this ratio keeps it within its bound is not inflated to check."""
INFLATE_PIECE = 1 << 20
"""A chunk is inflated to check it in pieces of this many bytes, so checking takes no more memory."""
DEFLATE, FLETCHER32 = 1, 3
MAX_LINK_HOPS = 32
ALLOW = "lt.open(path, key, allow_external=True) reads it if you trust the file"


class Hdf5Error(ValueError):
    """An HDF5 file or dataset lazytensor will not read: the one-line message names the file and dataset."""


def _detail(error: BaseException) -> str:
    """The first line of what h5py said, shortened: never a traceback in a message."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 200 else text[:200] + "…"


def _h5py() -> Any:
    return importlib.import_module("h5py")


# -- the file itself ---------------------------------------------------------------------------------


def require_regular(name: str, what: str = "HDF5 file") -> None:
    """Return if `name` is a regular file; else an error saying what it is, before any library
    opens it (h5py blocks forever on a FIFO opened for reading)."""
    os.close(_regular_fd(name, what))


def _regular_fd(name: str, what: str = "HDF5 file") -> int:
    """A read-only descriptor of `name`, checked (by `fstat`, on the descriptor itself) to be a
    regular file; the caller closes it."""
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except OSError as error:
        raise Hdf5Error(f"{name}: cannot be opened ({error.strerror or error})") from None
    _refuse_irregular(name, mode, what)
    try:  # O_NONBLOCK: should it turn into a FIFO after the stat, this open must not wait
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except OSError as error:
        raise Hdf5Error(f"{name}: cannot be opened ({error.strerror or error})") from None
    try:
        _refuse_irregular(name, os.fstat(fd).st_mode, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refuse_irregular(name: str, mode: int, what: str) -> None:
    if not stat.S_ISREG(mode):
        kind = file_kind(mode)
        raise Hdf5Error(f"{name}: is {kind}, not a regular {what}")


PROC_FDS = "/proc/self/fd"
"""Where Linux names a process's open descriptors: opening `/proc/self/fd/N` opens the very file
descriptor N is open on, whatever its path names by then."""


def held_open(name: str, what: str = "netCDF file") -> tuple[str, int]:
    """A path that opens the very file `name` is now, checked to be a regular file, and the descriptor
    that keeps it so (`/proc/self/fd/N`, or `name` itself elsewhere than Linux): for a library that
    opens files by name (xarray), so a FIFO swapped in at `name` after the check is never opened.
    The caller closes the descriptor once the library no longer opens the path."""
    fd = _regular_fd(name, what)
    return (f"{PROC_FDS}/{fd}" if os.path.isdir(PROC_FDS) else name), fd


def open_file(name: str, mode: str) -> Any:
    """The h5py file at `name`, opened in `mode` once it is known to be a regular file: h5py opens the
    file already checked (through `/proc/self/fd`), so a FIFO swapped in at `name` after the check
    is never opened (elsewhere than Linux, h5py opens `name` again: that race stays open)."""
    fd = _regular_fd(name)
    try:
        opened = f"{PROC_FDS}/{fd}" if os.path.isdir(PROC_FDS) else name
        file = _h5py().File(opened, mode)
    except Exception as error:  # OSError mostly; damaged superblocks raise others
        raise Hdf5Error(f"{name}: not an HDF5 file ({_detail(error)})") from None
    finally:
        os.close(fd)  # HDF5 keeps its own descriptor
    return file


def dataset_names(name: str, file: Any) -> list[str]:
    """The paths of the datasets in `file` (links not followed); damaged metadata is one line."""
    h5py = _h5py()
    found: list[str] = []
    try:
        file.visititems(lambda path, item: found.append(path) if isinstance(item, h5py.Dataset) else None)
    except Exception as error:  # RuntimeError, KeyError, OSError from a damaged object header
        raise Hdf5Error(f"{name}: damaged HDF5 metadata ({_detail(error)})") from None
    return found


def resolve(name: str, file: Any, key: str) -> Any:
    """The object at `key` in `file`, through soft links inside it, never through an external link
    (which would open another file): None when nothing is there."""
    h5py = _h5py()
    parts = [p for p in key.split("/") if p]
    hops = 0
    done: list[str] = []
    while parts:
        part = parts.pop(0)
        path = "/" + "/".join([*done, part])
        try:
            link = file.get(path, getlink=True)
        except Exception as error:
            raise Hdf5Error(f"{name}: damaged HDF5 metadata at {path} ({_detail(error)})") from None
        if link is None:
            return None
        if isinstance(link, h5py.ExternalLink):
            raise Hdf5Error(
                f"{name}: {path} is an external link to {link.path} in {link.filename}; lazytensor "
                "does not follow links out of the file (open that file itself)"
            )
        if isinstance(link, h5py.SoftLink):
            hops += 1
            if hops > MAX_LINK_HOPS:
                raise Hdf5Error(f"{name}: {key} goes through more than {MAX_LINK_HOPS} soft links")
            target = [p for p in str(link.path).split("/") if p]
            done = [] if str(link.path).startswith("/") else done
            parts = target + parts
            continue
        done.append(part)
    try:
        return file["/" + "/".join(done)]
    except Exception as error:
        raise Hdf5Error(f"{name}: damaged HDF5 metadata at {key} ({_detail(error)})") from None


# -- opening a dataset again, for pickle -------------------------------------------------------------

_OPENED: weakref.WeakKeyDictionary[Any, tuple[str, str, bool]] = weakref.WeakKeyDictionary()
"""How `lt.open` opened each dataset: the file's resolved path, the mode and `allow_external`."""


def remember(ds: Any, name: str, mode: str, allow_external: bool) -> Any:
    """`ds`, noted as opened from the file `name` in `mode` (so it pickles by them)."""
    with contextlib.suppress(TypeError):
        _OPENED[ds] = (os.path.realpath(name), mode, allow_external)
    return ds


def reopening(ds: Any) -> tuple[Any, tuple[Any, ...]]:
    """How pickle opens `ds` again: `reopen` with the file's resolved path, the dataset's name, the
    mode and `allow_external` it was opened with (a dataset the user opened with h5py: its file's
    path and mode, external storage allowed as `lt.from_array` allows it). A file that is not on
    disk (h5py's in-memory drivers) is a TypeError.

    >>> import tempfile, os, h5py
    >>> path = os.path.join(tempfile.mkdtemp(), "f.h5")
    >>> with h5py.File(path, "w") as f:
    ...     f["g/x"] = [1, 2, 3]
    >>> opener, arguments = reopening(h5py.File(path, "r")["g/x"])
    >>> opener(*arguments)[...].tolist(), arguments[1:]
    ([1, 2, 3], ('/g/x', 'r', True))
    """
    known = _OPENED.get(ds)
    if known is None:
        with guarded(ds):
            filename, driver, mode = str(ds.file.filename), ds.file.driver, ds.file.mode
        if (
            driver not in ("sec2", "stdio")
            or filename.startswith(PROC_FDS + "/")  # a file open_file opened: its path is not known
            or not os.path.isfile(filename)
        ):
            raise TypeError(
                f"cannot pickle a tensor over the HDF5 dataset {where(ds)}: its file (driver {driver}) "
                "is not one on disk to open again; pickle its values (t.compute())"
            )
        known = (os.path.realpath(filename), "r" if mode == "r" else "r+", True)
    path, mode, allow_external = known
    return reopen, (path, str(ds.name), mode, allow_external)


_VARIABLES: dict[int, tuple[Any, tuple[Any, ...]]] = {}
"""How to open again each xarray variable `lt.open` opened from a netCDF file, by the variable's id
(a DataArray is not hashable): forgotten when the variable is collected."""


def remember_variable(variable: Any, reopen_variable: Any, arguments: tuple[Any, ...]) -> Any:
    """`variable`, noted as opened again by `reopen_variable(*arguments)` (so it pickles by them)."""
    key = id(variable)
    _VARIABLES[key] = (reopen_variable, arguments)
    weakref.finalize(variable, _VARIABLES.pop, key, None)
    return variable


def variable_reopening(variable: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """How pickle opens again a netCDF variable `lt.open` opened (checked again as it opens it), or
    None for any other xarray variable (which pickles as xarray pickles it)."""
    return _VARIABLES.get(id(variable))


def opened_read_only(ds: Any) -> bool:
    """Whether `lt.open` opened `ds` with mode "r" (HDF5 shares one open file between its opens in a
    process, so the file's own mode may say "r+" when another open of it was writable)."""
    with contextlib.suppress(TypeError):
        known = _OPENED.get(ds)
        return known is not None and known[1] == "r"
    return False


def reopen(name: str, key: str, mode: str, allow_external: bool) -> Any:
    """The dataset `key` of the HDF5 file `name`, opened and checked as `lt.open` opens it (a missing
    file is a FileNotFoundError naming it, a missing dataset a KeyError)."""
    file = open_file(name, mode)
    try:
        found = resolve(name, file, key)
        if found is None or not hasattr(found, "dtype"):
            raise KeyError(f"{name} has no dataset {key!r} (any more)")
        return remember(check(found, allow_external=allow_external, name=name), name, mode, allow_external)
    except BaseException:
        file.close()
        raise


# -- what a dataset may be ---------------------------------------------------------------------------

_WHERE: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
"""Each checked dataset's "file:/path", kept to name it after its file is closed."""


def where(ds: Any) -> str:
    """`file:/dataset` for a dataset, even after its file was closed."""
    with contextlib.suppress(TypeError):
        known = _WHERE.get(ds)
        if known is not None:
            return known
    with contextlib.suppress(Exception):
        return f"{ds.file.filename}:{ds.name}"
    return "an HDF5 dataset"


def check(ds: Any, *, allow_external: bool = False, name: str | None = None) -> Any:
    """`ds` if lazytensor reads it safely; else an Hdf5Error naming it and why (external storage,
    a virtual dataset over other files, chunks too large, a filter it cannot bound, a dtype or
    dataspace it cannot read).

    >>> import tempfile, os, h5py
    >>> path = os.path.join(tempfile.mkdtemp(), "f.h5")
    >>> with h5py.File(path, "w") as f:
    ...     _ = f.create_dataset("x", shape=(8,), chunks=(4,), dtype="f4", compression="gzip")
    >>> check(h5py.File(path, "r")["x"]).shape
    (8,)
    """
    h5py = _h5py()
    here = f"{name}:{ds.name}" if name else where(ds)
    with contextlib.suppress(TypeError):
        _WHERE[ds] = here
    if ds.shape is None:
        raise Hdf5Error(f"{here}: holds no data (an empty dataspace, h5py.Empty): nothing to read")
    dtype = ds.dtype
    if dtype.subdtype is not None:
        raise Hdf5Error(
            f"{here}: has a subarray dtype {dtype.subdtype[0]} × {dtype.subdtype[1]}, which lazytensor "
            "does not read; read it with h5py"
        )
    if h5py.check_dtype(ref=dtype) is not None:
        raise Hdf5Error(f"{here}: holds HDF5 object references, which lazytensor does not read")
    plist = ds.id.get_create_plist()
    if not allow_external:
        _refuse_outside(here, ds, plist, name)
    if ds.chunks is not None:
        _check_chunks(here, ds.chunks, dtype)
        _check_filters(here, plist)
        _plan_inflation(ds, plist)
    return ds


def _refuse_outside(here: str, ds: Any, plist: Any, name: str | None) -> None:
    count = plist.get_external_count()
    if count:
        target = os.fsdecode(plist.get_external(0)[0])
        raise Hdf5Error(f"{here}: its data is stored in another file ({target}); {ALLOW}")
    if ds.is_virtual:
        own = os.path.realpath(name or ds.file.filename)  # h5py may know it as /proc/self/fd/N
        for source in ds.virtual_sources():
            if source.file_name != "." and os.path.realpath(source.file_name) != own:
                raise Hdf5Error(
                    f"{here}: is a virtual dataset over {source.file_name}:{source.dset_name}; {ALLOW}"
                )


def _check_chunks(here: str, chunks: tuple[int, ...], dtype: np.dtype[Any]) -> None:
    size = math.prod(chunks) * max(dtype.itemsize, 1)
    if size > MAX_CHUNK_BYTES:
        raise Hdf5Error(
            f"{here}: a chunk {chunks} of {dtype} decodes to {size:,} bytes; lazytensor reads chunks of "
            f"at most {MAX_CHUNK_BYTES:,} (HDF5 decodes a whole chunk to read one element of it)"
        )


def _check_filters(here: str, plist: Any) -> None:
    seen: list[int] = []
    for index in range(plist.get_nfilters()):
        code = int(plist.get_filter(index)[0])
        if code not in FILTERS:
            raise Hdf5Error(
                f"{here}: its chunks pass through filter {code}, which lazytensor cannot bound (it reads "
                f"{', '.join(FILTERS.values())}); read it with h5py if you trust the file"
            )
        if code in seen or (code in COMPRESSORS and COMPRESSORS & set(seen)):
            names = " → ".join(FILTERS[c] for c in [*seen, code])
            raise Hdf5Error(f"{here}: its filter pipeline compresses twice ({names}): a decompression bomb?")
        if DEFLATE in seen and code != FLETCHER32:  # its stored bytes are no deflate stream to bound
            names = " → ".join(FILTERS[c] for c in [*seen, code])
            raise Hdf5Error(
                f"{here}: its filter pipeline ({names}) transforms the deflate stream, whose inflated size "
                "lazytensor then cannot bound; read it with h5py if you trust the file"
            )
        seen.append(code)


# -- chunks inflated (bounded) before HDF5 decodes them -----------------------------------------------


class _Inflation:
    """What a deflate-compressed dataset's chunks may inflate to, and which of its chunks are stored
    large enough to inflate past that and are not checked yet (found on the first read)."""

    def __init__(self, chunks: tuple[int, ...], declared: int, index: int) -> None:
        self.chunks = chunks
        self.declared = declared  # the bytes one chunk holds decoded
        self.bound = declared + INFLATE_SLACK
        self.mask = 1 << index  # the deflate filter's bit in a chunk's filter mask (set: not applied)
        self.unchecked: dict[tuple[int, ...], int] | None = None  # chunk index: its stored size

    def suspects(self, dsid: Any) -> dict[tuple[int, ...], int]:
        """The chunks stored large enough to inflate past the bound, not checked yet: one walk of
        the dataset's chunk index (HDF5's lookup of one chunk by its coordinates walks it too)."""
        if self.unchecked is None:
            found: dict[tuple[int, ...], int] = {}
            smallest = (self.bound - 1024) // MAX_DEFLATE_RATIO

            def note(info: Any) -> None:
                if info.size > smallest and not info.filter_mask & self.mask and info.byte_offset is not None:
                    index = tuple(o // c for o, c in zip(info.chunk_offset, self.chunks, strict=True))
                    found[index] = int(info.size)

            _walk_chunks(dsid, note)
            self.unchecked = found
        return self.unchecked


def _walk_chunks(dsid: Any, visit: Any) -> None:
    """`visit` each stored chunk's info: HDF5's one walk of the chunk index (h5py over HDF5 1.14), else
    chunk by chunk (older HDF5: each lookup walks the index again, slow for many chunks)."""
    if hasattr(dsid, "chunk_iter"):
        dsid.chunk_iter(visit)
        return
    for index in range(dsid.get_num_chunks()):
        visit(dsid.get_chunk_info(index))


_INFLATION: weakref.WeakKeyDictionary[Any, _Inflation] = weakref.WeakKeyDictionary()
"""Each checked deflate dataset's inflation bound and its chunks not checked yet."""


def _plan_inflation(ds: Any, plist: Any) -> None:
    """Remember, for a dataset whose pipeline deflates, what its chunks may inflate to."""
    codes = [int(plist.get_filter(index)[0]) for index in range(plist.get_nfilters())]
    if DEFLATE not in codes:
        return
    declared = math.prod(ds.chunks) * max(ds.dtype.itemsize, 1)
    with contextlib.suppress(TypeError):
        _INFLATION[ds] = _Inflation(tuple(ds.chunks), declared, codes.index(DEFLATE))


def _chunk_grid(shape: tuple[int, ...], chunks: tuple[int, ...], key: Any) -> list[Any] | None:
    """The chunk indices, axis by axis, that a basic or outer `key` (ints, slices, 1-D index arrays) of
    a dataset touches (a range or a set per axis); None (every chunk) for a key of another form."""
    if not isinstance(key, tuple) or len(key) != len(shape):
        return None
    axes: list[Any] = []
    for entry, size, chunk in zip(key, shape, chunks, strict=True):
        if isinstance(entry, slice):
            picked = range(*entry.indices(size))
            if not picked:
                return []
            if abs(picked.step) > chunk:
                axes.append({i // chunk for i in picked})
            else:
                low, high = sorted((picked[0], picked[-1]))
                axes.append(range(low // chunk, high // chunk + 1))
        elif isinstance(entry, int | np.integer) and -size <= int(entry) < size:
            axes.append(range(int(entry) % size // chunk, int(entry) % size // chunk + 1))
        elif isinstance(entry, np.ndarray) and entry.dtype.kind in "iu" and entry.ndim <= 1:
            axes.append({int(i) for i in np.unique(entry % max(size, 1) // chunk)})
        else:
            return None
    return axes


def bound_chunks(ds: Any, key: Any) -> None:
    """Refuse, before HDF5 decodes them, the chunks `key` touches whose deflate stream inflates past
    the chunk's declared size plus `INFLATE_SLACK` (HDF5 inflates a stream whole, however large).
    Only a chunk stored large enough to get past is inflated here, in pieces, up to the bound, once."""
    plan = _INFLATION.get(ds) if ds.chunks is not None else None
    if plan is None:
        return
    dsid = ds.id
    suspects = plan.suspects(dsid)
    if not suspects:
        return
    axes = _chunk_grid(ds.shape, plan.chunks, key)
    if axes is None or math.prod(len(axis) for axis in axes) > len(suspects):
        every = list(suspects)  # (a snapshot: another thread may be checking some)
        touched = [i for i in every if axes is None or all(n in a for n, a in zip(i, axes, strict=True))]
    else:
        touched = [i for i in itertools.product(*axes) if i in suspects]
    for index in touched:
        stored = suspects.get(index)
        if stored is None:  # checked meanwhile
            continue
        offset = tuple(i * c for i, c in zip(index, plan.chunks, strict=True))
        _bound_chunk(ds, dsid, plan, offset, stored)
        suspects.pop(index, None)


def _bound_chunk(ds: Any, dsid: Any, plan: _Inflation, offset: tuple[int, ...], stored: int) -> None:
    if stored > plan.bound + plan.declared // 1000:  # larger than deflate makes of the chunk's bytes
        size = f"is stored in {stored:,} bytes"
    else:
        _, data = dsid.read_direct_chunk(offset)
        if _inflated_size(data, plan.bound) <= plan.bound:
            return
        size = f"inflates to more than {plan.bound:,} bytes"
    raise Hdf5Error(
        f"{where(ds)}: its chunk at {offset} {size}; a chunk holds {plan.declared:,} (a decompression bomb?)"
    )


def _inflated_size(data: bytes, bound: int) -> int:
    """The bytes the deflate (zlib) stream at the start of `data` inflates to, counted in pieces up to
    `bound + 1`; a stream that is not one counts what inflated before the error (HDF5 then says so)."""
    decompressor = zlib.decompressobj()
    total = 0
    rest = data
    while total <= bound:
        try:
            piece = decompressor.decompress(rest, min(INFLATE_PIECE, bound + 1 - total))
        except zlib.error:
            return total
        total += len(piece)
        rest = decompressor.unconsumed_tail
        if decompressor.eof or not piece:
            break
    return total


class VariableBound:
    """`bound_chunks` for a netCDF-4 variable read through xarray: the HDF5 dataset under it, opened
    (read-only, checked) on the first read, when its chunks are deflated. Not pickled: a copy opens
    its own."""

    def __init__(self) -> None:
        self.dataset: Any = None
        self.ready = False

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def check(self, variable: Any, key: Any) -> None:
        """Refuse, before they are decoded, the chunks of `variable` that `key` touches and that
        inflate past their bound (see `bound_chunks`)."""
        if not self.ready:
            self.dataset = _variable_dataset(variable)
            self.ready = True
        if self.dataset is not None:
            bound_chunks(self.dataset, key)


def _variable_dataset(variable: Any) -> Any:
    """The deflated HDF5 dataset an xarray variable read from a netCDF-4 file is, or None."""
    source = variable.encoding.get("source") if hasattr(variable, "encoding") else None
    name = getattr(variable, "name", None)
    if not isinstance(source, str) or not isinstance(name, str) or "/" in name:
        return None
    h5py = _h5py()
    try:
        file = open_file(source, "r")
    except (Hdf5Error, OSError):  # not HDF5 (netCDF-3), or gone: xarray's own read says what it finds
        return None
    found = file.get("/" + name)
    if not isinstance(found, h5py.Dataset) or found.shape != tuple(variable.shape) or found.chunks is None:
        file.close()
        return None
    check(found, allow_external=True, name=source)  # lt.open has refused what it refuses
    if found not in _INFLATION:
        file.close()
        return None
    return found


def check_netcdf(name: str, allow_external: bool = False, opened: str | None = None) -> None:
    """Refuse a netCDF-4 (HDF5) file xarray should not open: any external link in it, or any
    variable lazytensor would refuse as an HDF5 dataset (xarray reads coordinates when it opens
    the file); `allow_external` lets other files be read. A netCDF-3 file (not HDF5) passes: it
    names no other file. `opened` is the path that opens it (`held_open`'s), else `name`."""
    h5py = _h5py()
    if opened is None:
        opened, fd = held_open(name)
    else:
        fd = None
    try:
        if not h5py.is_hdf5(opened):
            return
        try:
            file = h5py.File(opened, "r")
        except Exception as error:
            raise Hdf5Error(f"{name}: not a netCDF file ({_detail(error)})") from None
    finally:
        if fd is not None:
            os.close(fd)
    with file:
        links: list[tuple[str, Any]] = []
        try:
            file.visititems_links(lambda path, link: links.append((path, link)) if _outside(link) else None)
        except Exception as error:
            raise Hdf5Error(f"{name}: damaged HDF5 metadata ({_detail(error)})") from None
        if links and not allow_external:
            path, link = links[0]
            raise Hdf5Error(
                f"{name}: /{path} is an external link to {link.path} in {link.filename}; lazytensor "
                "does not follow links out of the file"
            )
        for path in dataset_names(name, file):
            check(_open_dataset(name, file, path), allow_external=allow_external, name=name)


def _outside(link: Any) -> bool:
    return isinstance(link, _h5py().ExternalLink)


def _open_dataset(name: str, file: Any, path: str) -> Any:
    try:
        return file[path]
    except Exception as error:
        raise Hdf5Error(f"{name}: damaged HDF5 metadata at /{path} ({_detail(error)})") from None


# -- reads and writes --------------------------------------------------------------------------------


@contextlib.contextmanager
def guarded(ds: Any, what: str = "read") -> Iterator[None]:
    """Whatever h5py raises on a read or write of `ds` (a corrupt chunk's OSError without a file
    name, a closed file's RuntimeError) as one line naming the file and dataset."""
    try:
        yield
    except Hdf5Error:
        raise
    except (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError) as error:
        here = where(ds)
        if not ds.id.valid:
            raise Hdf5Error(f"{here}: its HDF5 file was closed; open it again with lt.open") from None
        raise Hdf5Error(f"{here}: cannot be {what} ({_detail(error)})") from None


def split_key(
    shape: tuple[int, ...], chunks: tuple[int, ...] | None, key: tuple[Any, ...]
) -> list[Any] | None:
    """The requests a strided `key` (slices with non-negative bounds, ints) of a dataset is read by, each
    `(request, where in the result)`, when one request would make HDF5 walk far more chunks than it
    reads; None when one request is right. Axes whose step skips whole chunks are read index by index.

    >>> [request for request, _ in split_key((2**40,), (2,), (slice(0, 2**40, 2**39),))]
    [(slice(0, 1, 1),), (slice(549755813888, 549755813889, 1),)]
    >>> split_key((2**40,), (2,), (slice(0, 8, 1),)) is None
    True
    """
    if chunks is None or len(key) != len(shape):
        return None
    box = 1
    requests = 1
    axes: list[list[int] | None] = []
    for entry, size, chunk in zip(key, shape, chunks, strict=True):
        if not isinstance(entry, slice):
            axes.append(None)
            continue
        picked = range(*entry.indices(size))
        if not picked:
            return None
        box *= picked[-1] // chunk - picked[0] // chunk + 1
        skips = picked.step > chunk
        requests *= len(picked) if skips else 1
        axes.append(list(picked) if skips else None)
    if box <= max(SCANNED_CHUNKS, SCANS_PER_REQUEST * requests):
        return None
    plan: list[Any] = []
    split = [(axis, picks) for axis, picks in enumerate(axes) if picks is not None]
    for chosen in itertools.product(*(range(len(picks)) for _, picks in split)):
        request = list(key)
        place: list[slice] = []
        for (axis, picks), i in zip(split, chosen, strict=True):
            request[axis] = slice(picks[i], picks[i] + 1, 1)
        for axis, entry in enumerate(key):
            if isinstance(entry, slice):
                where_split = next((i for (a, _), i in zip(split, chosen, strict=True) if a == axis), None)
                place.append(slice(None) if where_split is None else slice(where_split, where_split + 1))
        plan.append((tuple(request), tuple(place)))
    return plan


def read(ds: Any, key: tuple[Any, ...]) -> Any:
    """`ds[key]`, split by `split_key` when one request would walk too many chunks; errors in one line."""
    with guarded(ds):
        return planned(functools.partial(_bounded_get, ds), ds.shape, ds.chunks, ds.dtype, key)


def _bounded_get(ds: Any, key: Any) -> Any:
    bound_chunks(ds, key)
    return ds[key]


def planned(get: Any, shape: tuple[int, ...], chunks: Any, dtype: Any, key: tuple[Any, ...]) -> Any:
    """`get(key)`, or the requests `split_key` makes of `key` gathered into one array (for an h5py dataset,
    or an xarray variable over one)."""
    plan = split_key(shape, chunks, key) if isinstance(key, tuple) else None
    if plan is None:
        return get(key)
    size = [len(range(*e.indices(n))) for e, n in zip(key, shape, strict=True) if isinstance(e, slice)]
    out = np.empty(tuple(size), dtype=dtype)
    for request, place in plan:
        out[place] = get(request)
    return out


def write(ds: Any, key: tuple[Any, ...], values: Any) -> None:
    """`ds[key] = values`, split as `read` splits; errors in one line."""
    with guarded(ds, "written"):
        plan = split_key(ds.shape, ds.chunks, key) if isinstance(key, tuple) else None
        if plan is None:
            bound_chunks(ds, key)  # a partial chunk is read before it is written
            ds[key] = values
            return
        values = np.asarray(values)
        for request, place in plan:
            bound_chunks(ds, request)
            ds[request] = values[place] if values.ndim else values


@contextlib.contextmanager
def reading_variable(here: str | None) -> Iterator[None]:
    """Whatever xarray or its netCDF backend raises on a read of a variable as one line naming it."""
    try:
        yield
    except Hdf5Error:  # one line naming the file already
        raise
    except (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError) as error:
        raise Hdf5Error(f"{here or 'an xarray variable'}: cannot be read ({_detail(error)})") from None

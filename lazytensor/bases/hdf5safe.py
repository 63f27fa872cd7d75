"""HDF5 files opened as carefully as zarr stores: one error path for every hostile file.

An HDF5 file may name other files: a dataset with external storage reads raw bytes from any
path (`/etc/passwd`, a FIFO that blocks forever), a virtual dataset maps other files' datasets,
an external link opens another file. `lt.open` refuses all three unless asked
(`allow_external=True`), refuses what is not a regular file before h5py blocks on it, refuses a
chunk that would inflate past `MAX_CHUNK_BYTES` and a filter pipeline it cannot bound, and
turns whatever h5py raises on a read into one line naming the file and the dataset. A strided
read whose chunks' bounding box is far larger than what it reads (HDF5 visits every chunk of
that box, uninterruptibly) is split into requests that each touch only their own chunks.
h5py is optional: it is imported when a file is opened.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import math
import os
import stat
import weakref
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
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except OSError as error:
        raise Hdf5Error(f"{name}: cannot be opened ({error.strerror or error})") from None
    _refuse_irregular(name, mode, what)
    try:  # O_NONBLOCK: should it turn into a FIFO after the stat, this open must not wait
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise Hdf5Error(f"{name}: cannot be opened ({error.strerror or error})") from None
    try:
        _refuse_irregular(name, os.fstat(fd).st_mode, what)
    finally:
        os.close(fd)


def _refuse_irregular(name: str, mode: int, what: str) -> None:
    if not stat.S_ISREG(mode):
        kind = file_kind(mode)
        raise Hdf5Error(f"{name}: is {kind}, not a regular {what}")


def open_file(name: str, mode: str) -> Any:
    """The h5py file at `name`, opened in `mode` once it is known to be a regular file."""
    require_regular(name)
    try:
        return _h5py().File(name, mode)
    except Exception as error:  # OSError mostly; damaged superblocks raise others
        raise Hdf5Error(f"{name}: not an HDF5 file ({_detail(error)})") from None


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
        _refuse_outside(here, ds, plist)
    if ds.chunks is not None:
        _check_chunks(here, ds.chunks, dtype)
        _check_filters(here, plist)
    return ds


def _refuse_outside(here: str, ds: Any, plist: Any) -> None:
    count = plist.get_external_count()
    if count:
        target = os.fsdecode(plist.get_external(0)[0])
        raise Hdf5Error(f"{here}: its data is stored in another file ({target}); {ALLOW}")
    if ds.is_virtual:
        own = os.path.realpath(ds.file.filename)
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
        seen.append(code)


def check_netcdf(name: str, allow_external: bool = False) -> None:
    """Refuse a netCDF-4 (HDF5) file xarray should not open: any external link in it, or any
    variable lazytensor would refuse as an HDF5 dataset (xarray reads coordinates when it opens
    the file); `allow_external` lets other files be read. A netCDF-3 file (not HDF5) passes: it
    names no other file."""
    h5py = _h5py()
    require_regular(name, "netCDF file")
    if not h5py.is_hdf5(name):
        return
    try:
        file = h5py.File(name, "r")
    except Exception as error:
        raise Hdf5Error(f"{name}: not a netCDF file ({_detail(error)})") from None
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
        return planned(ds.__getitem__, ds.shape, ds.chunks, ds.dtype, key)


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
            ds[key] = values
            return
        values = np.asarray(values)
        for request, place in plan:
            ds[request] = values[place] if values.ndim else values


@contextlib.contextmanager
def reading_variable(here: str | None) -> Iterator[None]:
    """Whatever xarray or its netCDF backend raises on a read of a variable as one line naming it."""
    try:
        yield
    except (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError) as error:
        raise Hdf5Error(f"{here or 'an xarray variable'}: cannot be read ({_detail(error)})") from None

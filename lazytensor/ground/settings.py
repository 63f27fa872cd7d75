"""lazytensor's options beyond printing: how much a materialisation may read, from what size a
memory-mapped file computes its operations lazily, and whether operations in memory do too. Set as
the print options are (`lt.set_options`, `lt.get_options`, `with lt.options(...)`), in a context
variable, so a thread or a task sets its own.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import attrs

from lazytensor.ground.buffers import bytes_text, physical_memory

UNSET: Any = object()
"""An option not given to `set_options` (None is a value: no limit)."""


def _limit(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{attribute.name} must be a number of bytes (an int >= 0) or None, got {value!r}")


@attrs.frozen
class Options:
    """The options in force.

    >>> Options(materialize_limit=10).materialize_limit
    10
    """

    materialize_limit: int | None = attrs.field(
        default=attrs.Factory(lambda: physical_memory() // 4), validator=_limit
    )
    """Bytes that `t.numpy()`, `np.asarray(t)` and `t.compute()` may read from a tensor that is not in
    memory (a file, a store, a computed tensor); None: no limit. Default: a quarter of this machine's
    memory."""
    mmap_lazy_bytes: int | None = attrs.field(default=1 << 28, validator=_limit)
    """Memory-mapped files of at least this many bytes (default 256 MiB) compute elementwise
    operations lazily, as zarr and HDF5 do; smaller ones compute them in memory at once. None: never."""
    lazy: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))
    """Elementwise operations on tensors in memory give computed tensors too (`with lt.lazy():`),
    evaluated in cache-sized blocks on every core when read; False: computed at once, as numpy."""


OPTION_NAMES = tuple(field.name for field in attrs.fields(Options))

_current: contextvars.ContextVar[Options | None] = contextvars.ContextVar("lazytensor_options", default=None)


def current() -> Options:
    """The options in force (made on first use: the default limit asks the machine its memory)."""
    options = _current.get()
    if options is None:
        options = Options()
        _current.set(options)
    return options


def _evolved(changes: dict[str, Any]) -> Options:
    unknown = sorted(set(changes) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(f"unknown option {', '.join(unknown)}; the options are {', '.join(OPTION_NAMES)}")
    return attrs.evolve(current(), **{name: value for name, value in changes.items() if value is not UNSET})


def set_options(**changes: Any) -> None:
    """Change options from now on (in this context); `lt.get_options()` lists them.

    >>> import lazytensor as lt
    >>> before = lt.get_options()["materialize_limit"]
    >>> lt.set_options(materialize_limit=10**9)
    >>> lt.get_options()["materialize_limit"]
    1000000000
    >>> lt.set_options(materialize_limit=before)
    """
    _current.set(_evolved(changes))


def get_options() -> dict[str, Any]:
    """The options in force, as a dict (a copy: changing it changes nothing).

    >>> import lazytensor as lt
    >>> sorted(lt.get_options())
    ['lazy', 'materialize_limit', 'mmap_lazy_bytes']
    """
    return attrs.asdict(current())


@contextlib.contextmanager
def options(**changes: Any) -> Iterator[Options]:
    """Options in force inside a `with` block only; blocks nest and unwind on errors.

    >>> import lazytensor as lt
    >>> with lt.options(materialize_limit=None):
    ...     lt.get_options()["materialize_limit"] is None
    True
    """
    token = _current.set(_evolved(changes))
    try:
        yield current()
    finally:
        _current.reset(token)


def lazy() -> contextlib.AbstractContextManager[Options]:
    """Inside the block, elementwise operations on tensors in memory give read-only computed tensors,
    as they do on a file: `a * 2 + b - c / 3` holds no temporaries, and reading it (`np.asarray`,
    `.compute()`, a print, a slice) computes what is read in cache-sized blocks on every core. The
    results stay computed after the block; an operand that requires grad computes at once.

    >>> import lazytensor as lt
    >>> a = lt.arange(4.0)
    >>> with lt.lazy():
    ...     r = a * 2 + 1
    >>> r.base.layer_name, r[1:].tolist()
    ('Computed', [3.0, 5.0, 7.0])
    """
    return options(lazy=True)


def lazy_now() -> bool:
    """Whether `lt.lazy()` is in force (cheap: `apply` asks on every operation)."""
    options = _current.get()
    return options is not None and options.lazy


def check_materialize(shape: tuple[int, ...], itemsize: int, what: str) -> None:
    """MemoryError, in one line naming the size and what to do instead, when reading `shape` elements
    of `itemsize` bytes into memory passes the `materialize_limit`.

    >>> with options(materialize_limit=100):
    ...     check_materialize((1000,), 8, "a tensor")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    MemoryError: materialising a tensor of shape (1000,) needs 8 KB, over the materialize_limit ...
    """
    limit = current().materialize_limit
    count = 1
    for size in shape:
        count *= size
    need = count * itemsize
    if limit is None or need <= limit:
        return
    raise MemoryError(
        f"materialising {what} of shape {shape} needs {bytes_text(need)}, over the materialize_limit of "
        f"{bytes_text(limit)}: read a slice of it (t[:100]), reduce it (t.sum(0)), write it with "
        "lt.save(path, t), or raise the limit (lt.set_options(materialize_limit=None))"
    )

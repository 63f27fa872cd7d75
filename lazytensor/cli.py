"""The command line: `python -m lazytensor tour`, `show FILE.npy`, `repl [FILE ...]` and `browse FILE`.

`show` memory-maps the file and prints (a slice of) it, reading only what is shown.
`repl` is an interactive console with `lazytensor as lt` imported and the files opened
as `t` (or `t0`, `t1`, ...), where tensors print in colour (following `NO_COLOR` and
`FORCE_COLOR`) and tuples, lists and dicts of tensors one line per tensor.
Bad input (a missing, corrupt or pickled file, a bad index) is one line on stderr
and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import importlib
import os
import re
import sys
import tempfile
from code import InteractiveConsole
from collections.abc import Sequence
from typing import Any, NoReturn

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

import lazytensor as lt
from lazytensor.browse import browse_file
from lazytensor.printer.escapes import printable
from lazytensor.printer.render import output_console
from lazytensor.printer.summary import container_summary

USAGE_ERROR = 2
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C

SPARSE_SECTION = "Bigger than memory: operations compute only what is read"
"""The tour's section over a 40 GB sparse file: shown only where holes in a file take no disk."""


TOUR: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Views: lazy wrappers, no copies",
        (
            "t = lt.arange(12).reshape(3, 4)",
            "t",
            "t.T  # a TransposedTensor: no copy, one strided layout",
            "t[::-1, 1::2]  # a SlicedTensor",
            "t.T.reshape(2, 6)  # cannot fuse into strides: it gathers",
            "t[[2, 0]]  # a list index is a view too",
        ),
    ),
    (
        "Write-through and shared storage",
        (
            "view = t[[2, 0]]",
            "view[0, 0] = 100  # writes through to t",
            "t",
            "view.shares_storage(t)",
        ),
    ),
    (
        "explain(): the layers, and where one position goes",
        (
            "v = t.T[1:, [2, 0]]",
            "v.explain()",
            "v.explain((0, 1))",
        ),
    ),
    (
        "Operators: any Python callable; results are new tensors",
        (
            "w = lt.arange(6.0).reshape(2, 3)",
            "w.T * 2 + 1  # arithmetic on a view: the result is a new storage tensor",
            "w.sum(1)",
            "w @ w.T",
            "lt.ttransform(w, lambda x: x**2)  # an unknown callable runs per element",
        ),
    ),
    (
        "Printing: every 2-D slice labelled, slices side by side",
        (
            "x = lt.arange(120).reshape(2, 3, 4, 5)",
            "x",
            "x.print((1, None, 2, None))  # dims: None = all of an axis, an int = fixed",
            "big = lt.trandom(3, seed=0).expand(10**6, 10**6, 3)  # 3·10¹² elements",
            "big  # summarised: only the edge items are read",
            "x.print((1, None, None, None), style='separators')  # the seeds' text",
            "x[0, 0].print(heatmap=True)  # background colours on a terminal",
        ),
    ),
    (
        "Named axes: every label says which axis is which",
        (
            "eeg = lt.arange(120).reshape(2, 3, 4, 5)",
            "eeg = eeg.rename('trial', 'channel', 'time', 'freq')  # a view",
            "eeg  # each label: the fixed axes, then the rows ↓ and the columns →",
            "eeg.transpose(1, 3)[:, ::2]  # names follow every view",
            "eeg.print((1, None, 2, None))  # dims: fixed axes keep their place",
            "eeg[1].explain((2, 3, 4))  # the position, named, on its way down",
        ),
    ),
    (
        "Any array as a base: zarr, dask, h5py, numpy (the docs: Bigger than memory)",
        (
            "import numpy as np",
            "a = lt.from_array(np.arange(24).reshape(2, 3, 4))  # reads nothing yet",
            "a.T[::2, 1]  # every view stacks on it and fuses, as on storage",
            "a.T[::2, 1].explain()  # lt.open(path) for zarr",
        ),
    ),
    (
        SPARSE_SECTION,
        (
            "import tempfile, time",
            "folder = tempfile.TemporaryDirectory()  # removed at the end",
            "path = folder.name + '/big.npy'  # 40 GB declared, a few KB on disk:",
            "m = np.lib.format.open_memmap(path, 'w+', 'float32', (100_000, 100_000))",
            "m[0, 0], m[-1, -1] = -1.5, 1000.0  # the rest is a hole in the file",
            "t = lt.load(path)  # memory-mapped: 10¹⁰ elements",
            "start = time.perf_counter()",
            "np.log(abs(t) + 1)  # computed: the print reads only the corners it shows",
            "round(time.perf_counter() - start, 2)  # seconds, the print included",
            "del m, t; folder.cleanup()",
        ),
    ),
)


def _run_step(console: Console, code: str, namespace: dict[str, Any]) -> None:
    """Show `code` as typed at a prompt, run it, and print its value like the REPL would."""
    console.print(Text(">>> " + code, style="bold"))
    try:
        tree = ast.parse(code, mode="eval")  # a trailing comment is Python's to drop, as at a prompt
    except SyntaxError:
        exec(code, namespace)
        return
    value = eval(compile(tree, "<tour>", "eval"), namespace)
    if value is None:
        return
    console.print(value if hasattr(value, "__rich_console__") else Text(repr(value)), crop=False)


TOUR_END = "To walk a file's axes: python -m lazytensor browse FILE (t.browse() in a REPL)"
"""The tour's last line: where to go from a print to exploring a file."""


def sparse_files(folder: str | None = None) -> bool:
    """Whether a file with a 64 MiB hole takes less than 1 MiB of disk in `folder` (the temporary
    folder by default): ext4, xfs, btrfs, tmpfs and APFS do; NTFS by default and FAT do not."""
    with tempfile.TemporaryFile(dir=folder) as probe:
        probe.seek(64 << 20)
        probe.write(b"\0")
        probe.flush()
        blocks = getattr(os.fstat(probe.fileno()), "st_blocks", None)
    return blocks is not None and blocks * 512 < 1 << 20


def tour() -> None:
    """A printed walk through lazytensor: views, write-through, explain, operators, printing styles,
    named axes, other bases, an operation over a 10¹⁰-element memory map (a sparse file in a
    temporary folder, removed after) printed in a fraction of a second, and a last line on browsing."""
    console = output_console(None)  # NO_COLOR: not even the prompts' bold and the rules' dim
    namespace: dict[str, Any] = {"lt": lt}
    for title, steps in TOUR:
        console.print()
        console.print(Rule(Text(title), style="dim"))
        if title == SPARSE_SECTION and not sparse_files():
            console.print(Text("(skipped: this file system writes a file's holes to disk)"))
            continue
        for code in steps:
            console.print()
            _run_step(console, code, namespace)
    if TOUR_END:
        console.print()
        console.print(Text(TOUR_END))


# -- show ---------------------------------------------------------------------------------------


MAX_KEY_CHARS = 100_000  # a key longer than this is not typed by a person
MAX_KEY_ITEMS = 64  # numpy's limit on the axes an index can name
MAX_LIST_DEPTH = 32  # nested lists of ints: numpy's dimension limit
MAX_INT_DIGITS = 30  # beyond any axis length; int() of more digits is not worth doing
MAX_NDIM = 32  # what numpy can print
KEY_HELP = "ints, slices a:b:c, ..., None, True/False, lists of ints"
INT_PATTERN = re.compile(r"[+-]?[0-9]+")
LIST_TOKEN = re.compile(r"\s*(?:(\[)|(\])|(,)|([+-]?[0-9]+)|(True|False))\s*")


def _int(text: str, what: str) -> int:
    """An int written in decimal with an optional sign (never Python's other int syntax)."""
    stripped = text.strip()
    if not INT_PATTERN.fullmatch(stripped):
        raise ValueError(f"{what}, got {stripped!r}")
    if len(stripped.lstrip("+-")) > MAX_INT_DIGITS:
        raise ValueError(f"{stripped[:12]}… has more than {MAX_INT_DIGITS} digits")
    return int(stripped)


def _index_int(text: str, what: str) -> int:
    """An int used as a position: it must fit numpy's 64-bit index type (else it would wrap around)."""
    value = _int(text, what)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"index {value} is out of range (positions are 64-bit integers)")
    return value


def _slice(text: str) -> slice:
    """`a:b`, `a:b:c`, any part empty; each bound an int."""
    parts = text.split(":")
    if len(parts) > 3:
        raise ValueError(f"{text.strip()!r} is not a slice (at most two colons)")
    bounds = [None if not part.strip() else _int(part, "slice bounds must be integers") for part in parts]
    return slice(*bounds) if len(bounds) == 3 else slice(bounds[0], bounds[1])


def _list(text: str) -> list[Any]:
    """A list of ints or bools, nested at most MAX_LIST_DEPTH deep: a loop and a stack, no recursion."""
    stack: list[list[Any]] = []
    result: list[Any] | None = None
    expect_value = True  # after '[' or ',': a value or ']' may follow; after a value: ',' or ']'
    position = 0
    while position < len(text):
        match = LIST_TOKEN.match(text, position)
        if match is None or result is not None:
            raise ValueError(f"{text.strip()!r} is not a list of ints")
        position = match.end()
        opening, closing, comma, number, boolean = match.groups()
        if opening:
            if not expect_value:
                raise ValueError(f"{text.strip()!r} is not a list of ints (a ',' is missing)")
            if len(stack) >= MAX_LIST_DEPTH:
                raise ValueError(f"lists nested deeper than {MAX_LIST_DEPTH}")
            inner: list[Any] = []
            if stack:
                stack[-1].append(inner)
            stack.append(inner)
        elif closing:
            if not stack:
                raise ValueError(f"{text.strip()!r}: unbalanced brackets")
            done = stack.pop()
            if not stack:
                result = done
        elif comma:
            if expect_value or not stack:
                raise ValueError(f"{text.strip()!r} is not a list of ints (a value is missing)")
            expect_value = True
            continue
        else:
            if not expect_value or not stack:
                raise ValueError(f"{text.strip()!r} is not a list of ints (a ',' is missing)")
            entry = boolean == "True" if boolean else _index_int(number, "list entries must be integers")
            stack[-1].append(entry)
        expect_value = bool(opening)
    if result is None:
        raise ValueError(f"{text.strip()!r}: unbalanced brackets")
    return result


def _item(text: str, number: int) -> Any:
    """One comma-separated item of a key: an int, a slice, `...`, None, True/False or a list."""
    item = text.strip()
    if not item:
        raise ValueError(f"item {number} is empty")
    if item == "...":
        return Ellipsis
    if item == "None":
        return None
    if item in ("True", "False"):
        return item == "True"
    if item.startswith("["):
        return _list(item)
    if ":" in item:
        return _slice(item)
    if INT_PATTERN.fullmatch(item):
        return _index_int(item, "an int")
    raise ValueError(f"{item[:40]!r}{'…' if len(item) > 40 else ''} is not an index ({KEY_HELP})")


def _split_items(text: str) -> list[str]:
    """The key's items: split on the commas outside brackets; unbalanced brackets are an error."""
    items: list[str] = []
    depth = 0
    start = 0
    for position, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced brackets (a ']' without its '[')")
        elif char == "," and depth == 0:
            items.append(text[start:position])
            start = position + 1
    if depth != 0:
        raise ValueError("unbalanced brackets (a '[' without its ']')")
    items.append(text[start:])
    return items


def parse_key(text: str) -> Any:
    """A numpy index key from its text, with a small grammar of its own: nothing is evaluated.

    The key is split on its top-level commas and each item parsed on its own: an int with an
    optional sign, a slice `a:b:c` of ints, `...`, `None`, `True`/`False`, or a list of ints
    (nested lists allowed). Anything else, and keys too long to be typed, are a ValueError.

    >>> parse_key("3, :, ::2")
    (3, slice(None, None, None), slice(None, None, 2))
    >>> parse_key("..., [0, -1]")
    (Ellipsis, [0, -1])
    >>> parse_key("-1")
    -1
    """
    if len(text) > MAX_KEY_CHARS:
        raise ValueError(f"the key is {len(text):,} characters long; at most {MAX_KEY_CHARS:,}")
    if not text.strip():
        raise ValueError(f"an empty key ({KEY_HELP})")
    pieces = _split_items(text)
    if pieces[-1].strip() == "" and len(pieces) > 1:  # a trailing comma makes a tuple, as in Python
        pieces.pop()
        trailing_comma = True
    else:
        trailing_comma = False
    if len(pieces) > MAX_KEY_ITEMS:
        raise ValueError(f"{len(pieces)} items; an index has at most {MAX_KEY_ITEMS}")
    items = tuple(_item(piece, number) for number, piece in enumerate(pieces, start=1))
    return items[0] if len(items) == 1 and not trailing_comma else items


def _as_view(t: lt.AbstractTensor, key: Any) -> lt.AbstractTensor:
    """`t[key]`, and a 0-d view rather than a bare element when the key picks one element."""
    items = key if isinstance(key, tuple) else (key,)
    if Ellipsis not in items:
        items = (*items, Ellipsis)
    view = t[items]
    assert isinstance(view, lt.AbstractTensor)
    return view


def _one_line(error: BaseException) -> str:
    """The error's message on one line, its control characters escaped (it may quote a file name)."""
    return printable(" ".join(str(error).split()))


def _open_failure(path: str, error: Exception) -> str:
    r"""The one line that says why `path` could not be opened, naming the file.

    >>> _open_failure("a.npy", FileNotFoundError(2, "No such file"))
    'a.npy: no such file'
    >>> _open_failure("s\x1b.zarr", ZeroDivisionError("division by zero"))
    's\\x1b.zarr: ZeroDivisionError: division by zero'
    """
    name = printable(path)
    if isinstance(error, FileNotFoundError):
        return f"{name}: no such file"
    message = _one_line(error)
    if not isinstance(error, OSError | ValueError):  # not one of ours: say what it was
        message = f"{type(error).__name__}: {message}"
    return message if name in message else f"{name}: {message}"


def _shown_key(index: str) -> str:
    """The key as the error message quotes it: repr (control characters escaped), cut when long."""
    return repr(index) if len(index) <= 60 else repr(index[:60]) + "…"


def _tame_slices(key: Any, longest: int) -> Any:
    """The key with slice bounds and steps clamped to ±(longest + 1): the same selection on every axis.

    An axis of length n <= longest selects the same with a step of any size >= n as with n, and
    with a bound beyond ±(n + 1) as with ±(n + 1); clamping keeps strides small enough for numpy.
    """
    limit = longest + 1

    def tame(item: Any) -> Any:
        if not isinstance(item, slice):
            return item
        start, stop, step = (
            None if bound is None else max(-limit, min(limit, bound))
            for bound in (item.start, item.stop, item.step)
        )
        return slice(start, stop, step)

    return tuple(tame(item) for item in key) if isinstance(key, tuple) else tame(key)


def _index_view(t: lt.AbstractTensor, index: str) -> lt.AbstractTensor:
    """`t[index]` from the key's text; a ValueError (or IndexError, TypeError) when it cannot be shown."""
    view = _as_view(t, _tame_slices(parse_key(index), max(t.shape, default=1)))
    if view.ndim > MAX_NDIM:
        raise ValueError(f"the result would have {view.ndim} axes; at most {MAX_NDIM} can be shown")
    return view


LABELLED_SUFFIXES = (".nc", ".nc4", ".cdf", ".h5", ".hdf5", ".zarr")
"""The files `show` opens read-only with `lt.open` (their names and coordinates printed), not as `.npy`."""


def _shown_file(path: str) -> lt.AbstractTensor:
    """The tensor `show` prints: a netCDF, HDF5 file or zarr store opened read-only (with its axes'
    names and labels), else a `.npy` file memory-mapped."""
    if os.path.splitext(path.rstrip("/"))[1].lower() in LABELLED_SUFFIXES:
        return lt.open(path, mode="r")
    return lt.load(path)


def show(path: str, index: str | None, heatmap: bool, precision: int | None, width: int | None) -> int:
    """Print a `.npy` file (or a netCDF, HDF5 file or zarr store), or the slice `index` of it; 0 on
    success, 2 with a message on bad input."""
    try:
        t = _shown_file(path)
    except Exception as error:  # one line naming the file and what is wrong with it, never a traceback
        print(f"error: {_open_failure(path, error)}", file=sys.stderr)
        return USAGE_ERROR
    view = t
    if index is not None:
        try:
            view = _index_view(t, index)
        except (IndexError, ValueError, TypeError, OverflowError) as error:
            print(f"error: bad index {_shown_key(index)}: {_one_line(error)}", file=sys.stderr)
            return USAGE_ERROR
    title = path if index is None else f"{path}[{index}]"
    console = output_console(width)  # the printer's console: its width, and NO_COLOR drops the bold
    console.print(Text(printable(title), style="bold"))
    try:
        lt.tprint(view, heatmap=heatmap or None, precision=precision, linewidth=width)
    except Exception as error:  # values the printer cannot show: one line naming the file, never a traceback
        print(f"error: {printable(path)}: cannot print it: {error_line(error)}", file=sys.stderr)
        return USAGE_ERROR
    return 0


# -- repl ---------------------------------------------------------------------------------------


def open_tensor(path: str, writable: bool = False) -> lt.AbstractTensor:
    """A `.npy` file memory-mapped, or a zarr store, HDF5 or netCDF file, as `lt.open` opens them:
    read-only, or with `writable` writing through to the file (a `.npy` file mapped for writing)."""
    mode = "r+" if writable else "r"
    if os.fspath(path).endswith(".npy"):
        return lt.load(path, mode=mode)
    return lt.open(path, mode=mode)


def _access_line(writable: bool) -> str:
    """The banner's word on writes: where they go, or how to ask for them."""
    if writable:
        return "writable: a write to a tensor or any view of it reaches the file (.npy files memory-mapped)"
    return "read-only: `repl --writable FILE` writes through to the file"


def repl_names(paths: Sequence[str]) -> list[str]:
    """`t` for one file, `t0`, `t1`, ... for several.

    >>> repl_names(["a.npy"]), repl_names(["a.npy", "b.npy"])
    (['t'], ['t0', 't1'])
    """
    return ["t"] if len(paths) == 1 else [f"t{k}" for k in range(len(paths))]


def repl_display(value: Any, console: Console) -> None:
    """`sys.displayhook` of the repl: tensors and containers of tensors through rich, the rest by `repr`."""
    if value is None:
        return
    builtins._ = None  # type: ignore[attr-defined]
    summary = container_summary(value)
    if summary is not None:
        console.print(summary, crop=False)
    elif hasattr(value, "__rich_console__"):  # tensors, and anything else rich draws
        console.print(value, crop=False)
    else:
        console.file.write(printable(repr(value), keep_newlines=True) + "\n")
    builtins._ = value  # type: ignore[attr-defined]


def error_line(error: BaseException) -> str:
    r"""How the repl shows an error: one line, `Type: message`, control characters escaped.

    >>> error_line(IndexError("index 9 is out of bounds\nfor axis 0"))
    'IndexError: index 9 is out of bounds for axis 0'
    """
    message = _one_line(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class ReplConsole(InteractiveConsole):
    """The repl's console: an error is one line (`sys.last_traceback` keeps the rest, for
    `traceback.print_last()`), and all it writes has its control characters escaped."""

    def write(self, data: str) -> None:
        sys.stderr.write(printable(data, keep_newlines=True))

    def showtraceback(self) -> None:
        error = sys.exception()
        if error is None:
            return
        sys.last_type, sys.last_value, sys.last_traceback = type(error), error, error.__traceback__
        self.write(error_line(error) + "\n")


def _opened(paths: Sequence[str], namespace: dict[str, Any], writable: bool) -> list[str] | str:
    """Open `paths` into `namespace` (as `t` or `t0`, `t1`, ...): the banner's lines, or why not."""
    lines = []
    for name, path in zip(repl_names(paths), paths, strict=True):
        try:
            namespace[name] = open_tensor(path, writable)
            lines.append(f"{name} = {printable(path)}: {namespace[name].summary()}")
        except Exception as error:  # one line naming the file, never a traceback
            return _open_failure(path, error)
    return lines


def repl(paths: Sequence[str], writable: bool = False) -> int:
    """An interactive console with `lt` imported and `paths` opened (read-only, or writing through to
    the files with `writable`); 2 with a message on a bad file."""
    namespace: dict[str, Any] = {"lt": lt, "__name__": "__console__"}
    opened = _opened(paths, namespace, writable)
    if isinstance(opened, str):
        print(f"error: {opened}", file=sys.stderr)
        return USAGE_ERROR
    lines = [
        "lazytensor repl: `lt` is lazytensor; tensors print in colour (NO_COLOR turns it off)",
        *opened,
        *([_access_line(writable)] if paths else []),
        "t.summary(), t.stats(), t.explain(); Ctrl-D to leave",
    ]
    with contextlib.suppress(ImportError):  # line editing and history where the platform has them
        importlib.import_module("readline")
    console = output_console(None)
    previous = sys.displayhook
    sys.displayhook = lambda value: repl_display(value, console)
    try:
        ReplConsole(namespace).interact(banner="\n".join(lines), exitmsg="")
    finally:
        sys.displayhook = previous
    return 0


MAX_PRECISION = 100  # digits after the point: float64 has 17 significant ones
MAX_WIDTH = 100_000  # characters per line


def _bounded_int(text: str, low: int, high: int) -> int:
    """An argparse type: an int in [low, high], else one clear line (never an OverflowError later)."""
    stripped = text.strip()
    if not INT_PATTERN.fullmatch(stripped) or len(stripped) > MAX_INT_DIGITS:
        raise argparse.ArgumentTypeError(f"expected an integer from {low} to {high:,}, got {text[:40]!r}")
    value = int(stripped)
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected an integer from {low} to {high:,}, got {stripped}")
    return value


def _precision(text: str) -> int:
    return _bounded_int(text, 0, MAX_PRECISION)


def _width(text: str) -> int:
    return _bounded_int(text, 1, MAX_WIDTH)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line on stderr and exit status 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"error: {printable(' '.join(message.split()))} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m lazytensor", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tour", help="a printed walk through the library")
    show_parser = commands.add_parser("show", help="print (a slice of) a .npy file, memory-mapped")
    show_parser.add_argument("file", help="a .npy file")
    show_parser.add_argument("--index", help="a numpy index, e.g. '3, :, ::2'")
    show_parser.add_argument("--heatmap", action="store_true", help="colour backgrounds by value")
    show_parser.add_argument(
        "--precision", type=_precision, help=f"digits after the point, at most (0 to {MAX_PRECISION})"
    )
    show_parser.add_argument("--width", type=_width, help=f"characters per line (1 to {MAX_WIDTH:,})")
    repl_parser = commands.add_parser("repl", help="an interactive console: lt imported, files opened as t")
    repl_parser.add_argument("files", nargs="*", help=".npy files, zarr stores, HDF5 or netCDF files")
    repl_parser.add_argument(
        "--writable", action="store_true", help="open the files for writing (.npy memory-mapped read-write)"
    )
    browse_parser = commands.add_parser(
        "browse", help="walk the axes of a file in the terminal (needs textual)"
    )
    browse_parser.add_argument("file", help="a .npy file, zarr store, HDF5 or netCDF file")
    browse_parser.add_argument(
        "key", nargs="?", help="the array inside the store (the dataset, the variable)"
    )
    browse_parser.add_argument(
        "--writable", action="store_true", help="Enter edits a cell, written to the file"
    )
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.command == "tour":
        tour()
        return 0
    if args.command == "repl":
        return repl(args.files, args.writable)
    if args.command == "browse":
        return browse_file(args.file, args.key, args.writable)
    index = args.index
    if isinstance(index, list):  # argparse turns `--index=--` into a list of the strings after '--'
        index = " ".join(index)
    return show(args.file, index, args.heatmap, args.precision, args.width)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except BrokenPipeError:  # `... | head` closed the pipe: stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # Ctrl-C while a file opens or prints: one line, the shell's status for it
        print("interrupted", file=sys.stderr)
        return INTERRUPTED

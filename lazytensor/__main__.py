"""The command line: `python -m lazytensor tour`, `show FILE.npy` and `repl [FILE ...]`.

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
import sys
from code import InteractiveConsole
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

import lazytensor as lt
from lazytensor.printer.render import output_console
from lazytensor.printer.summary import container_summary, is_tensor

USAGE_ERROR = 2

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
)


def _run_step(console: Console, code: str, namespace: dict[str, Any]) -> None:
    """Show `code` as typed at a prompt, run it, and print its value like the REPL would."""
    console.print(Text(">>> " + code, style="bold"))
    statement = code.split("  #")[0]
    try:
        tree = ast.parse(statement, mode="eval")
    except SyntaxError:
        exec(statement, namespace)
        return
    value = eval(compile(tree, "<tour>", "eval"), namespace)
    if value is None:
        return
    console.print(value if hasattr(value, "__rich_console__") else Text(repr(value)))


def tour() -> None:
    """A printed walk through lazytensor: views, write-through, explain, operators, printing styles."""
    console = Console(highlight=False, markup=False, emoji=False)
    namespace: dict[str, Any] = {"lt": lt}
    for title, steps in TOUR:
        console.print()
        console.print(Rule(Text(title), style="dim"))
        for code in steps:
            console.print()
            _run_step(console, code, namespace)


# -- show ---------------------------------------------------------------------------------------


def _int_value(node: ast.expr | None) -> int | None:
    if node is None:
        return None
    value = _key_value(node)
    if not isinstance(value, int):
        raise ValueError(f"slice bounds must be integers, got {ast.unparse(node)}")
    return value


def _key_value(node: ast.expr) -> Any:
    """One piece of an index key, from its syntax tree: ints, slices, `...`, None, lists of ints."""
    if isinstance(node, ast.Tuple):
        return tuple(_key_value(element) for element in node.elts)
    if isinstance(node, ast.Slice):
        return slice(_int_value(node.lower), _int_value(node.upper), _int_value(node.step))
    if isinstance(node, ast.List):
        return [_key_value(element) for element in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _key_value(node.operand)
        if isinstance(operand, int) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, int | bool):
        return node.value
    raise ValueError(f"{ast.unparse(node)!r} is not an index (ints, slices, ..., None, lists of ints)")


def parse_key(text: str) -> Any:
    """A numpy index key from its text, without evaluating any code.

    >>> parse_key("3, :, ::2")
    (3, slice(None, None, None), slice(None, None, 2))
    >>> parse_key("..., [0, -1]")
    (Ellipsis, [0, -1])
    """
    try:
        tree = ast.parse(f"_[{text}]", mode="eval")
    except SyntaxError:
        raise ValueError("not numpy index syntax") from None
    subscript = tree.body
    assert isinstance(subscript, ast.Subscript)
    return _key_value(subscript.slice)


def _as_view(t: lt.AbstractTensor, key: Any) -> lt.AbstractTensor:
    """`t[key]`, and a 0-d view rather than a bare element when the key picks one element."""
    items = key if isinstance(key, tuple) else (key,)
    if Ellipsis not in items:
        items = (*items, Ellipsis)
    view = t[items]
    assert isinstance(view, lt.AbstractTensor)
    return view


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def show(path: str, index: str | None, heatmap: bool, precision: int | None, width: int | None) -> int:
    """Print a `.npy` file, or the slice `index` of it; 0 on success, 2 with a message on bad input."""
    try:
        t = lt.load(path)
    except FileNotFoundError:
        print(f"error: {path}: no such file", file=sys.stderr)
        return USAGE_ERROR
    except (OSError, ValueError) as error:
        print(f"error: {_one_line(error)}", file=sys.stderr)
        return USAGE_ERROR
    view = t
    if index is not None:
        try:
            view = _as_view(t, parse_key(index))
        except (IndexError, ValueError, TypeError) as error:
            print(f"error: bad index {index!r}: {_one_line(error)}", file=sys.stderr)
            return USAGE_ERROR
    title = path if index is None else f"{path}[{index}]"
    console = Console(width=width, height=None if width is None else 25, highlight=False, markup=False)
    console.print(Text(title, style="bold"))
    lt.tprint(view, heatmap=heatmap or None, precision=precision, linewidth=width)
    return 0


# -- repl ---------------------------------------------------------------------------------------


def open_tensor(path: str) -> lt.AbstractTensor:
    """A `.npy` file memory-mapped, or (with a version that has `lt.open`) a zarr store."""
    opener = getattr(lt, "open", None)
    if opener is not None:
        opened: lt.AbstractTensor = opener(path)
        return opened
    if path.rstrip("/").endswith(".zarr") or os.path.isdir(path):
        raise ValueError(f"{path}: opening zarr stores needs lt.open, which this version does not have")
    return lt.load(path)


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
        console.print(summary)
    elif is_tensor(value) or hasattr(value, "__rich_console__"):
        console.print(value)
    else:
        console.file.write(repr(value) + "\n")
    builtins._ = value  # type: ignore[attr-defined]


def repl(paths: Sequence[str]) -> int:
    """An interactive console with `lt` imported and `paths` opened; 2 with a message on a bad file."""
    namespace: dict[str, Any] = {"lt": lt, "__name__": "__console__"}
    lines = ["lazytensor repl: `lt` is lazytensor; tensors print in colour (NO_COLOR turns it off)"]
    for name, path in zip(repl_names(paths), paths, strict=True):
        try:
            namespace[name] = open_tensor(path)
        except FileNotFoundError:
            print(f"error: {path}: no such file", file=sys.stderr)
            return USAGE_ERROR
        except (OSError, ValueError) as error:
            print(f"error: {_one_line(error)}", file=sys.stderr)
            return USAGE_ERROR
        lines.append(f"{name} = {path}: {namespace[name].summary()}")
    lines.append("t.summary(), t.stats(), t.explain(); Ctrl-D to leave")
    with contextlib.suppress(ImportError):  # line editing and history where the platform has them
        importlib.import_module("readline")
    console = output_console(None)
    previous = sys.displayhook
    sys.displayhook = lambda value: repl_display(value, console)
    try:
        InteractiveConsole(namespace).interact(banner="\n".join(lines), exitmsg="")
    finally:
        sys.displayhook = previous
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m lazytensor", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tour", help="a printed walk through the library")
    show_parser = commands.add_parser("show", help="print (a slice of) a .npy file, memory-mapped")
    show_parser.add_argument("file", help="a .npy file")
    show_parser.add_argument("--index", help="a numpy index, e.g. '3, :, ::2'")
    show_parser.add_argument("--heatmap", action="store_true", help="colour backgrounds by value")
    show_parser.add_argument("--precision", type=_non_negative, help="digits after the point, at most")
    show_parser.add_argument("--width", type=_positive, help="characters per line")
    repl_parser = commands.add_parser("repl", help="an interactive console: lt imported, files opened as t")
    repl_parser.add_argument("files", nargs="*", help=".npy files (or zarr stores where lt.open exists)")
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.command == "tour":
        tour()
        return 0
    if args.command == "repl":
        return repl(args.files)
    return show(args.file, args.index, args.heatmap, args.precision, args.width)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except BrokenPipeError:  # `... | head` closed the pipe: stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""The command line run in this process (`main(argv)`), so every branch of `lazytensor.cli` is
checked where a test sees it: the key grammar's every refusal in full, `show`'s output and errors,
the repl's banner, display and error lines, the option bounds, and the exit statuses.

Reaches into `lazytensor.cli`: `main(argv)` runs in this process, so that every branch is checked
where a test sees it, and its helpers are called one by one.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from import_support import refuse_import
from rich.console import Console

import lazytensor as lt
import lazytensor.cli as cli
from lazytensor.cli import main, parse_key


def run(*args: str, stdin: str = "") -> tuple[Any, str, str]:
    """main(args) with `stdin` as its input: (status, stdout, stderr); argparse's exits caught."""
    out, err = io.StringIO(), io.StringIO()
    previous = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status: Any = main(list(args))
            except SystemExit as exit_:
                status = ("exit", exit_.code)
    finally:
        sys.stdin = previous
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def grid(tmp_path: Path) -> Path:
    path = tmp_path / "grid.npy"
    np.save(path, np.arange(6).reshape(2, 3))
    return path


@pytest.fixture
def line(tmp_path: Path) -> Path:
    path = tmp_path / "line.npy"
    np.save(path, np.arange(3.0))
    return path


# -- the key grammar --------------------------------------------------------------------------------


HELP = "ints, slices a:b:c, ..., None, True/False, lists of ints"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1:2:3:4", "'1:2:3:4' is not a slice (at most two colons)"),
        ("a:b", "slice bounds must be integers, got 'a'"),
        ("[1,,2]", "'[1,,2]' is not a list of ints (a value is missing)"),
        ("[,1]", "'[,1]' is not a list of ints (a value is missing)"),
        ("[1 2]", "'[1 2]' is not a list of ints (a ',' is missing)"),
        ("[[1] [2]]", "'[[1] [2]]' is not a list of ints (a ',' is missing)"),
        ("[True][0]", "'[True][0]' is not a list of ints"),
        ("[1, x]", "'[1, x]' is not a list of ints"),
        ("[1.5]", "'[1.5]' is not a list of ints"),
        ("[[1]][", "unbalanced brackets (a '[' without its ']')"),
        ("[1,2", "unbalanced brackets (a '[' without its ']')"),
        ("[1]]", "unbalanced brackets (a ']' without its '[')"),
        ("][", "unbalanced brackets (a ']' without its '[')"),
        ("x" * 50, f"'{'x' * 40}'… is not an index ({HELP})"),
        ("x" * 40, f"'{'x' * 40}' is not an index ({HELP})"),
        ("1.5", f"'1.5' is not an index ({HELP})"),
        ("+", f"'+' is not an index ({HELP})"),
        ("0,,1", "item 2 is empty"),
        (",", "item 1 is empty"),
        (" ", f"an empty key ({HELP})"),
        ("", f"an empty key ({HELP})"),
        ("9" * 31, "999999999999… has more than 30 digits"),
        ("-" + "9" * 31, "-99999999999… has more than 30 digits"),
        ("[" + "9" * 31 + "]", "999999999999… has more than 30 digits"),
        ("1:" + "9" * 31, "999999999999… has more than 30 digits"),
        ("9" * 30, f"index {'9' * 30} is out of range (positions are 64-bit integers)"),
        (str(2**63), f"index {2**63} is out of range (positions are 64-bit integers)"),
        (str(-(2**63) - 1), f"index {-(2**63) - 1} is out of range (positions are 64-bit integers)"),
        (f"[{2**63}]", f"index {2**63} is out of range (positions are 64-bit integers)"),
        ("1," * 65, "65 items; an index has at most 64"),
        ("[" * 33 + "]" * 33, "lists nested deeper than 32"),
        ("1" * 100_001, "the key is 100,001 characters long; at most 100,000"),
    ],
)
def test_every_refusal_of_the_key_grammar_in_full(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_key(text)
    assert str(caught.value) == message


def _nested(depth: int) -> list[Any]:
    inner: list[Any] = []
    for _ in range(depth - 1):
        inner = [inner]
    return inner


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (" 1 : 2 ", slice(1, 2)),
        ("::", slice(None, None, None)),
        ("1:", slice(1, None)),
        (":-1:2", slice(None, -1, 2)),
        ("[1,]", [1]),
        ("[True, -3, +2]", [True, -3, 2]),
        ("[False]", [False]),
        ("[[1],[2]]", [[1], [2]]),
        ("[]", []),
        ("[[]]", [[]]),
        ("[ 1 , [ 2 ] ]", [1, [2]]),
        ("...", Ellipsis),
        ("None", None),
        ("True", True),
        ("False", False),
        ("-0", 0),
        ("+7", 7),
        (str(-(2**63)), -(2**63)),
        (str(2**63 - 1), 2**63 - 1),
        ("9" * 18, int("9" * 18)),
        ("1,", (1,)),
        ("[1], 2", ([1], 2)),
        ("1, [2, 3], ..., None, :", (1, [2, 3], Ellipsis, None, slice(None))),
        ("1," * 64, (1,) * 64),
        ("[" * 32 + "]" * 32, _nested(32)),
        (" 5 ", 5),
    ],
)
def test_keys_parse_to_pythons_own_index(text: str, key: Any) -> None:
    assert parse_key(text) == key
    assert type(parse_key(text)) is type(key)


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=5), st.booleans())
def test_lists_of_ints_parse_as_python_reads_them(values: list[int], nested: bool) -> None:
    text = repr([values]) if nested else repr(values)
    assert parse_key(text) == ([values] if nested else values)


def test_slices_are_tamed_to_the_longest_axis() -> None:
    assert cli._tame_slices((slice(-100, 100, 50), 3, slice(None)), 5) == (slice(-6, 6, 6), 3, slice(None))
    assert cli._tame_slices(slice(None, 10**20, -(10**20)), 5) == slice(None, 6, -6)
    assert cli._tame_slices(slice(-6, 6, 6), 5) == slice(-6, 6, 6)
    assert cli._tame_slices([1], 5) == [1]


# -- show ---------------------------------------------------------------------------------------


def test_show_prints_the_title_and_the_tensor(grid: Path) -> None:
    status, out, err = run("show", str(grid))
    assert status == 0 and err == ""
    assert out.splitlines()[0] == str(grid)
    assert out.endswith("\n0  1  2\n3  4  5\n")


def test_show_an_index_titles_it_and_keeps_a_0_d_view(grid: Path) -> None:
    status, out, _ = run("show", str(grid), "--index", "1")
    assert status == 0 and out.splitlines()[0] == f"{grid}[1]" and out.endswith("\n3  4  5\n")
    status, out, _ = run("show", str(grid), "--index", "1, 1")
    assert status == 0 and out.splitlines() == [f"{grid}[1, 1]", "tensor(4, dtype=int64)"]
    status, out, _ = run("show", str(grid), "--index", "..., 2")
    assert status == 0 and out.splitlines()[0] == f"{grid}[..., 2]" and out.endswith("\n2  5\n")
    status, out, _ = run("show", str(grid), "--index", "::-1, 100000000000000000000:0:-99999999999999999")
    assert status == 0 and out.endswith("\n5\n2\n")


def test_show_s_options_reach_the_printer(grid: Path, tmp_path: Path) -> None:
    status, out, _ = run("show", str(grid), "--width", "20")
    assert status == 0 and max(len(row) for row in out.splitlines()) <= 20
    assert "shape (2, 3) · int64\n6 elements\n" in out
    thirds = tmp_path / "thirds.npy"
    np.save(thirds, np.array([1 / 3, 2 / 3, 1.0]))
    status, out, _ = run("show", str(thirds), "--precision", "2")
    assert status == 0 and out.endswith("\n0.33  0.67  1.\n")
    status, plain, _ = run("show", str(thirds))
    assert status == 0 and plain.endswith("\n0.3333  0.6667  1.\n")
    status, heat, _ = run("show", str(thirds), "--heatmap")
    assert status == 0 and heat == plain  # a pipe shows no colours
    status, out, _ = run("show", str(thirds), "--precision", "0", "--width", "100000")
    assert status == 0 and out.endswith("\n3.e-01  7.e-01  1.e+00\n")  # positional would show 1/3 as 0


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("5", "index 5 is out of bounds for axis 0 with size 2"),
        ("1.5", f"'1.5' is not an index ({HELP})"),
        ("[[0, 1], [0]]", None),
        ("None," * 40, "the result would have 42 axes; at most 32 can be shown"),
        ("None," * 30, None),
    ],
)
def test_a_bad_index_is_one_line_naming_the_key(grid: Path, key: str, message: str | None) -> None:
    status, out, err = run("show", str(grid), "--index", key)
    if message is None and key.startswith("None"):
        assert status == 0, err
        return
    assert status == 2 and out == ""
    shown = repr(key) if len(key) <= 60 else repr(key[:60]) + "…"
    assert err.startswith(f"error: bad index {shown}: ") and err.endswith("\n") and err.count("\n") == 1
    if message is not None:
        assert err == f"error: bad index {shown}: {message}\n"


def test_a_long_bad_key_is_quoted_cut(grid: Path) -> None:
    key = "x" * 70
    status, _, err = run("show", str(grid), "--index", key)
    assert status == 2
    assert err == f"error: bad index {'x' * 60!r}…: {'x' * 40!r}… is not an index ({HELP})\n"
    key = "y" * 60
    assert run("show", str(grid), "--index", key)[2].startswith(f"error: bad index {key!r}: ")


def test_an_index_of_dashes_given_as_a_list_is_joined(grid: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[Any] = []
    monkeypatch.setattr(cli, "show", lambda *args: shown.append(args) or 0)
    namespace = cli._parser().parse_args(["show", str(grid), "--index", "1"])
    namespace.index = ["1", ",", "2"]
    assert cli._run(namespace) == 0
    assert shown == [(str(grid), "1 , 2", False, None, None)]


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (lambda path: None, "no such file"),
        (lambda path: path.write_text("a,b\n"), "not a .npy file (it is text)"),
    ],
)
def test_a_file_that_does_not_load_is_one_line(tmp_path: Path, write: Any, message: str) -> None:
    path = tmp_path / "f\x1b.npy"
    write(path)
    status, out, err = run("show", str(path))
    assert status == 2 and out == ""
    assert err == f"error: {str(path).replace(chr(27), chr(92) + 'x1b')}: {message}\n"


def test_a_tensor_the_printer_cannot_show_is_one_line(grid: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no\nway")

    monkeypatch.setattr(lt, "tprint", fail)
    status, _, err = run("show", str(grid))
    assert status == 2
    assert err == f"error: {grid}: cannot print it: RuntimeError: no way\n"


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (FileNotFoundError(2, "No such file"), "a.npy: no such file"),
        (ValueError("a.npy: corrupt"), "a.npy: corrupt"),
        (ValueError("bad\n  header"), "a.npy: bad header"),
        (OSError("a.npy: gone"), "a.npy: gone"),
        (ZeroDivisionError("division by zero"), "a.npy: ZeroDivisionError: division by zero"),
        (KeyError("a.npy"), "KeyError: 'a.npy'"),
    ],
)
def test_open_failures_name_the_file_once(error: Exception, line: str) -> None:
    assert cli._open_failure("a.npy", error) == line


def test_error_lines_escape_control_characters() -> None:
    assert cli.error_line(ValueError("a\x1b[31m\n b")) == "ValueError: a\\x1b[31m b"
    assert cli.error_line(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert cli._one_line(ValueError("  x \t y  ")) == "x y"


# -- options and usage ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--precision", "101"), "argument --precision: expected an integer from 0 to 100, got 101"),
        (("--precision", "-1"), "argument --precision: expected an integer from 0 to 100, got -1"),
        (("--precision", "1e3"), "argument --precision: expected an integer from 0 to 100, got '1e3'"),
        (
            ("--precision", "9" * 31),
            f"argument --precision: expected an integer from 0 to 100, got '{'9' * 31}'",
        ),
        (("--width", "0"), "argument --width: expected an integer from 1 to 100,000, got 0"),
        (("--width", "100001"), "argument --width: expected an integer from 1 to 100,000, got 100001"),
        (("--width", "x" * 50), f"argument --width: expected an integer from 1 to 100,000, got '{'x' * 40}'"),
    ],
)
def test_option_bounds_are_one_line_usage_errors(grid: Path, args: tuple[str, ...], message: str) -> None:
    status, out, err = run("show", str(grid), *args)
    assert status == ("exit", 2) and out == ""
    assert err == f"error: {message} (see python -m lazytensor show --help)\n"


def test_option_bounds_are_inclusive(grid: Path) -> None:
    for args in (("--precision", "0"), ("--precision", " 100 "), ("--width", "1"), ("--width", "100000")):
        assert run("show", str(grid), *args)[0] == 0
    assert cli._bounded_int(" 7 ", 0, 9) == 7
    assert cli._bounded_int("9" * 30, 0, 10**30) == int("9" * 30)


def test_usage_errors_are_one_line() -> None:
    status, out, err = run("show")
    assert status == ("exit", 2) and out == ""
    assert err == "error: the following arguments are required: file (see python -m lazytensor show --help)\n"
    status, _, err = run("bogus")
    assert status == ("exit", 2)
    assert err == (
        "error: argument command: invalid choice: 'bogus' (choose from 'tour', 'show', 'repl', 'browse') "
        "(see python -m lazytensor --help)\n"
    )
    status, _, err = run()
    assert status == ("exit", 2) and "command" in err


def _help_entries(text: str) -> dict[str, str]:
    """Each entry of an argparse help text, `name: help`, however argparse wrapped it."""
    entries: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("    " * 3) and line.strip():
            name, _, said = line.strip().partition("  ")
            entries[name] = said.strip()
        elif name is not None and line.strip() and not entries[name]:
            entries[name] = line.strip()
        else:
            name = None
    return entries


def test_help_names_the_program_and_its_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    status, out, _ = run("--help")
    assert status == ("exit", 0)
    assert out.startswith("usage: python -m lazytensor")
    assert (
        "The command line: `python -m lazytensor tour`, `show FILE.npy`, `repl [FILE ...]` and `browse FILE`."
        in " ".join(out.split())
    )
    assert {
        name: said for name, said in _help_entries(out).items() if name in ("tour", "show", "repl", "browse")
    } == {
        "tour": "a printed walk through the library",
        "show": "print (a slice of) a .npy file, memory-mapped",
        "repl": "an interactive console: lt imported, files opened as t",
        "browse": "walk the axes of a file in the terminal (needs textual)",
    }
    status, out, _ = run("show", "--help")
    assert _help_entries(out) == {
        "file": "a .npy file",
        "-h, --help": "show this help message and exit",
        "--index INDEX": "a numpy index, e.g. '3, :, ::2'",
        "--heatmap": "colour backgrounds by value",
        "--precision PRECISION": "digits after the point, at most (0 to 100)",
        "--width WIDTH": "characters per line (1 to 100,000)",
    }
    status, out, _ = run("repl", "--help")
    assert _help_entries(out) == {
        "files": ".npy files, zarr stores, HDF5 or netCDF files",
        "-h, --help": "show this help message and exit",
        "--writable": "open the files for writing (.npy memory-mapped read-write)",
    }


# -- exits ------------------------------------------------------------------------------------------


def test_ctrl_c_is_one_line_and_status_130(grid: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lt, "load", interrupt)
    status, out, err = run("show", str(grid))
    assert status == 130 and out == "" and err == "interrupted\n"


def test_a_closed_pipe_ends_quietly(grid: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    class ClosedPipe(Console):
        def print(self, *args: Any, **kwargs: Any) -> None:
            raise BrokenPipeError

    monkeypatch.setattr(cli, "output_console", lambda width: ClosedPipe(width=width))
    with open(tmp_path / "stdout", "w") as stdout, contextlib.redirect_stdout(stdout):
        saved = os.dup(stdout.fileno())
        try:
            assert main(["show", str(grid)]) == 0
            assert os.path.samestat(os.fstat(stdout.fileno()), os.stat(os.devnull))  # the rest goes nowhere
        finally:
            os.dup2(saved, stdout.fileno())
            os.close(saved)


# -- the repl -------------------------------------------------------------------------------------


def test_the_repl_banner_names_each_file(grid: Path, line: Path) -> None:
    status, out, err = run("repl", str(grid))
    assert status == 0
    assert err.splitlines()[:4] == [
        "lazytensor repl: `lt` is lazytensor; tensors print in colour (NO_COLOR turns it off)",
        f"t = {grid}: tensor (2, 3) int64 n=6 x∈[0, 5] μ=2.5 σ=1.708",
        "read-only: `repl --writable FILE` writes through to the file",
        "t.summary(), t.stats(), t.explain(); Ctrl-D to leave",
    ]
    status, out, err = run("repl", str(grid), str(line), stdin="t1.tolist()\n")
    assert status == 0 and out == ">>> [0.0, 1.0, 2.0]\n>>> "
    assert err.splitlines()[1:3] == [
        f"t0 = {grid}: tensor (2, 3) int64 n=6 x∈[0, 5] μ=2.5 σ=1.708",
        f"t1 = {line}: tensor (3,) float64 n=3 x∈[0, 2] μ=1 σ=0.8165",
    ]
    status, out, err = run("repl")
    assert status == 0 and err.splitlines()[1] == "t.summary(), t.stats(), t.explain(); Ctrl-D to leave"


def test_the_repl_writes_to_a_npy_file_only_when_asked(grid: Path) -> None:
    """Read-only by default, and the refusal says how; `--writable` maps the file for writing, and a
    write through a view reaches it; the banner says which."""
    before = np.load(grid)
    status, _, err = run("repl", str(grid), stdin="t[0, 0] = 7\n")
    assert status == 0
    assert (
        f"ValueError: cannot write to {grid}: it is memory-mapped read-only; "
        "lt.load(path, mode='r+') maps it for writing (in the repl: --writable)"
    ) in err.splitlines()
    np.testing.assert_array_equal(np.load(grid), before)
    status, _, err = run("repl", "--writable", str(grid), stdin="t.T[::-1][0, 1] = 70\n")
    assert status == 0, err
    assert err.splitlines()[2].startswith("writable: a write to a tensor or any view of it reaches the file")
    expected = before.copy()
    expected.T[::-1][0, 1] = 70
    np.testing.assert_array_equal(np.load(grid), expected)


def test_the_repl_refuses_a_bad_file_in_one_line(grid: Path, tmp_path: Path) -> None:
    status, out, err = run("repl", str(grid), str(tmp_path / "missing.npy"))
    assert status == 2 and out == ""
    assert err == f"error: {tmp_path / 'missing.npy'}: no such file\n"


def test_a_repl_session_shows_values_and_errors_in_one_line(grid: Path) -> None:
    session = "t.shape\n1/0\nNone\nx = 5\nx\n'a\\x1bb'\n_\n"
    status, out, err = run("repl", str(grid), stdin=session)
    assert status == 0
    assert out == ">>> (2, 3)\n>>> >>> >>> >>> 5\n>>> 'a\\x1bb'\n>>> 'a\\x1bb'\n>>> "
    assert "ZeroDivisionError: division by zero\n" in err and "Traceback" not in err
    assert sys.displayhook is not None and sys.displayhook.__module__ != cli.__name__


def test_the_repl_keeps_the_last_traceback(grid: Path) -> None:
    run("repl", str(grid), stdin="[][1]\n")
    assert sys.last_type is IndexError and sys.last_traceback is not None
    assert isinstance(sys.last_value, IndexError)


SUMMARY = "tensor (3,) int64 n=3 x∈[0, 2] μ=1 σ=0.8165"


def test_repl_display_of_each_kind_of_value() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    previous = getattr(builtins, "_", None)
    try:
        cli.repl_display(None, console)
        assert out.getvalue() == ""
        cli.repl_display(42, console)
        assert out.getvalue() == "42\n" and builtins._ == 42  # type: ignore[attr-defined]
        cli.repl_display("x\ny", console)
        assert out.getvalue() == "42\n'x\\ny'\n"
        out.truncate(0)
        out.seek(0)
        t = lt.arange(3)
        cli.repl_display([t, t], console)
        assert out.getvalue() == f"[{SUMMARY},\n {SUMMARY}]\n"
        out.truncate(0)
        out.seek(0)
        cli.repl_display(t, console)
        assert out.getvalue().endswith("\n0  1  2\n") and builtins._ is t  # type: ignore[attr-defined]
    finally:
        builtins._ = previous  # type: ignore[attr-defined]


def test_repl_display_never_crops_a_tensor_wider_than_the_terminal() -> None:
    out = io.StringIO()
    cli.repl_display(lt.tensor(["x" * 50]), Console(file=out, width=12, color_system=None))
    assert "x" * 50 in out.getvalue()  # the whole line: the terminal scrolls or wraps it


def test_repl_display_keeps_the_line_breaks_of_a_repr() -> None:
    out = io.StringIO()
    array = np.arange(4).reshape(2, 2)
    cli.repl_display(array, Console(file=out, width=80, color_system=None))
    assert out.getvalue() == repr(array) + "\n"  # numpy's two lines, as Python's own prompt shows them


def test_repl_display_clears_underscore_while_it_prints() -> None:
    seen: list[Any] = []

    class Probe:
        def __rich_console__(self, console: Any, options: Any) -> Iterator[str]:
            seen.append(builtins._)  # type: ignore[attr-defined]
            yield "probe"

    builtins._ = "before"  # type: ignore[attr-defined]
    probe = Probe()
    cli.repl_display(probe, Console(file=io.StringIO()))
    assert seen == [None] and builtins._ is probe  # type: ignore[attr-defined]


def test_the_repl_console_escapes_what_it_writes(capsys: pytest.CaptureFixture[str]) -> None:
    console = cli.ReplConsole({})
    console.write("a\x1bb\nc")
    assert capsys.readouterr().err == "a\\x1bb\nc"
    console.showtraceback()  # nothing raised: nothing shown
    assert capsys.readouterr().err == ""


def test_the_repl_opens_a_zarr_store_beside_a_npy_file(grid: Path, tmp_path: Path) -> None:
    zarr = pytest.importorskip("zarr")
    store = tmp_path / "s.zarr"
    zarr.save_array(str(store), np.arange(4.0))
    status, out, err = run("repl", str(grid), str(store), stdin="t1[::-1].tolist()\n")
    assert status == 0 and out == ">>> [3.0, 2.0, 1.0, 0.0]\n>>> "
    assert err.splitlines()[2].startswith(f"t1 = {store}: tensor (4,) float64")


def test_the_repl_namespace_has_lt_and_the_console_s_name(grid: Path) -> None:
    status, out, _ = run("repl", str(grid), stdin="lt.arange(3).tolist()\n__name__\n")
    assert status == 0 and out == ">>> [0, 1, 2]\n>>> '__console__'\n>>> "


def test_leaving_the_repl_says_nothing_more(grid: Path) -> None:
    status, out, err = run("repl", str(grid), stdin="1\n")
    assert status == 0 and out == ">>> 1\n>>> "
    assert err.endswith("Ctrl-D to leave\n\n")  # the banner, the line end of Ctrl-D, no exit message


def test_the_repl_asks_for_line_editing(grid: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = cli.importlib.import_module

    def recording(name: str, *args: Any) -> Any:
        asked.append(name)
        return real(name, *args)

    monkeypatch.setattr(cli.importlib, "import_module", recording)
    assert run("repl", str(grid), stdin="")[0] == 0
    assert asked == ["readline"]


def test_the_repl_names(grid: Path) -> None:
    assert cli.repl_names([]) == []
    assert cli.repl_names(["a"]) == ["t"]
    assert cli.repl_names(["a", "b", "c"]) == ["t0", "t1", "t2"]


def test_the_repl_runs_without_readline(grid: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_import(monkeypatch, "readline")
    assert run("repl", str(grid), stdin="1 + 1\n")[:2] == (0, ">>> 2\n>>> ")


# -- the tour ---------------------------------------------------------------------------------------


def test_the_tour_shows_each_step_and_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        cli, "TOUR", (("A title", ("x = 2  # a comment", "x + 1  # three", "None", "lt.arange(2)")),)
    )
    monkeypatch.setattr(cli, "TOUR_END", "")  # the real tour's last line, on browsing
    status, out, err = run("tour")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "" and "A title" in lines[1] and lines[1].count("─") > 10
    assert lines[2:] == [
        "",
        ">>> x = 2  # a comment",
        "",
        ">>> x + 1  # three",
        "3",
        "",
        ">>> None",
        "",
        ">>> lt.arange(2)",
        *lines[11:],
    ]
    assert lines[-1] == "0  1"


def test_the_whole_tour_runs_in_process() -> None:
    status, out, _ = run("tour")
    assert status == 0
    for title, steps in cli.TOUR:
        assert title in out
        for code in steps:
            assert f">>> {code}" in out
    assert "3,000,000,000,000 elements" in out


def big_store_steps() -> tuple[str, ...]:
    """The tour's section over a 10**10-element memory map."""
    return next(steps for title, steps in cli.TOUR if title.startswith("Bigger than memory"))


def test_the_tour_s_big_store_is_sparse_and_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 40 GB the tour declares take a few KB on disk, and its folder is gone when the tour ends."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where TemporaryDirectory makes its folder
    steps = big_store_steps()
    loaded = next(k for k, code in enumerate(steps) if code.startswith("t = lt.load("))
    namespace: dict[str, Any] = {"lt": lt, "np": np}
    console = Console(file=io.StringIO(), width=80)
    for code in steps[: loaded + 1]:
        cli._run_step(console, code, namespace)
    (store,) = tmp_path.glob("*/big.npy")
    assert store.stat().st_size == 100_000 * 100_000 * 4 + 128  # declared: 40 GB and the header
    assert store.stat().st_blocks * 512 < 1 << 20  # on disk: a few pages
    assert namespace["t"].numel() == 10**10
    for code in steps[loaded + 1 :]:
        cli._run_step(console, code, namespace)
    assert list(tmp_path.iterdir()) == []
    assert "0.9163" in console.file.getvalue()  # type: ignore[attr-defined]


def test_the_whole_tour_leaves_no_folder_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    status, out, _ = run("tour")
    assert status == 0 and "computed" in out
    assert list(tmp_path.iterdir()) == []


def test_where_holes_take_disk_the_tour_skips_its_big_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system without sparse files (NTFS by default, FAT) the tour writes no 40 GB file."""
    assert cli.sparse_files(str(tmp_path))  # this machine's does (the tests run on Linux)
    monkeypatch.setattr(cli, "sparse_files", lambda folder=None: False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    status, out, _ = run("tour")
    assert status == 0 and cli.SPARSE_SECTION in out and "(skipped: this file system" in out
    assert "open_memmap" not in out and list(tmp_path.iterdir()) == []
    assert cli.TOUR_END in out

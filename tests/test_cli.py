"""The command line, run as users run it: `python -m lazytensor ...` in a subprocess."""

from __future__ import annotations

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
    assert element.returncode == 0 and element.stdout.rstrip().endswith(
        "\ntensor () float32 59. Sliced∘Storage"
    )


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
        ("1 +", "not numpy index syntax"),
        ("__import__('os')", "is not an index"),
        ("0:1.5", "is not an index"),
        ("0:[1]", "slice bounds must be integers"),
    ],
)
def test_a_bad_index(npy: pathlib.Path, key: str, fragment: str) -> None:
    _fails_with(run("show", str(npy), "--index", key), "bad index", fragment)


def test_the_tour_walks_through_the_library() -> None:
    result = run("tour")
    assert result.returncode == 0, result.stderr
    for section in ("Views", "Write-through", "explain()", "Operators", "Printing"):
        assert section in result.stdout
    assert ">>> t[[2, 0]]" in result.stdout
    assert "storage index" in result.stdout
    assert "3,000,000,000,000 elements" in result.stdout
    assert "\n---\n" in result.stdout  # the separators style
    trailing = [line for line in result.stdout.split("\n") if line != line.rstrip()]
    assert all(re.fullmatch(r"( *-?\d+\.\d\d )+", line) for line in trailing)  # only the seeds' format


def test_parse_key_builds_numpy_keys() -> None:
    from lazytensor.__main__ import parse_key

    t = lt.arange(24).reshape(2, 3, 4)
    key = parse_key("..., [0, -1], None, 1::-1")
    np.testing.assert_array_equal(t[key].numpy(), np.arange(24).reshape(2, 3, 4)[..., [0, -1], None, 1::-1])

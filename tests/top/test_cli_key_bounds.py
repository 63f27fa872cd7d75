"""The edges of `show --index`, run in this process: the longest key accepted, where a quoted item
or key is cut, and keys on a 0-d file (no axis to take a longest length from).

Reaches into `lazytensor.cli`: the key's length bound is the module's own constant, and `main(argv)`
runs in this process.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

import lazytensor.cli as cli
from lazytensor.cli import MAX_KEY_CHARS, parse_key

HELP = "ints, slices a:b:c, ..., None, True/False, lists of ints"


def run(*args: str) -> tuple[int, str, str]:
    """main(args): (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(args))
    return status, out.getvalue(), err.getvalue()


def test_a_key_of_exactly_the_longest_length_parses() -> None:
    assert parse_key("1" + " " * (MAX_KEY_CHARS - 1)) == 1
    assert parse_key(" " * (MAX_KEY_CHARS - 3) + "1, ") == (1,)
    with pytest.raises(ValueError) as caught:
        parse_key("1" + " " * MAX_KEY_CHARS)
    assert str(caught.value) == "the key is 100,001 characters long; at most 100,000"


@pytest.mark.parametrize(
    ("item", "shown"),
    [
        ("x" * 40, repr("x" * 40)),
        ("x" * 41, repr("x" * 40) + "…"),
        (" " + "y" * 41 + " ", repr("y" * 40) + "…"),
    ],
)
def test_a_bad_item_is_quoted_whole_up_to_40_characters(item: str, shown: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_key(f"0, {item}")
    assert str(caught.value) == f"{shown} is not an index ({HELP})"


@pytest.fixture
def grid(tmp_path: Path) -> Path:
    path = tmp_path / "grid.npy"
    np.save(path, np.arange(6).reshape(2, 3))
    return path


@pytest.mark.parametrize(
    ("key", "shown"),
    [("z" * 60, repr("z" * 60)), ("z" * 61, repr("z" * 60) + "…"), ("z" * 62, repr("z" * 60) + "…")],
)
def test_a_bad_key_is_quoted_whole_up_to_60_characters(grid: Path, key: str, shown: str) -> None:
    status, out, err = run("show", str(grid), "--index", key)
    assert (status, out) == (2, "")
    assert err == f"error: bad index {shown}: {'z' * 40!r}… is not an index ({HELP})\n"


@pytest.fixture
def scalar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)  # a short name: the title fits on one line
    np.save("scalar.npy", np.array(7.5))
    return "scalar.npy"


@pytest.mark.parametrize(
    ("key", "last"),
    [
        ("...", "tensor(7.5, dtype=float64)"),
        ("None", "7.5"),
        ("None, ...", "7.5"),
        ("True", "7.5"),
        ("False", "(no elements)"),
    ],
)
def test_keys_on_a_0_d_file_select_as_numpy_does(scalar: str, key: str, last: str) -> None:
    """A 0-d file has no longest axis to tame slices by; every key numpy takes is shown."""
    status, out, err = run("show", scalar, "--index", key)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{scalar}[{key}]" and lines[-1] == last
    expected = np.load(scalar)[parse_key(key)]
    assert lines[1].startswith("tensor(" if expected.ndim == 0 else f"shape {expected.shape} ")


def test_a_slice_on_a_0_d_file_is_numpy_s_refusal(scalar: str) -> None:
    with pytest.raises(IndexError) as numpy_s:
        np.load(scalar)[None, 5:]
    assert "0-dimensional, but 1 were indexed" in str(numpy_s.value)
    status, out, err = run("show", scalar, "--index", "None, 5:")
    assert (status, out) == (2, "")
    assert err == (
        "error: bad index 'None, 5:': too many indices for tensor: "
        "tensor is 0-dimensional, but 1 were indexed\n"
    )

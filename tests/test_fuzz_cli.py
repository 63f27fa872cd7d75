"""Fuzzing the command line's `--index` door: the result is numpy's selection or one line and exit 2.

`main()` runs in this process for speed (argparse's exits caught); a few keys also run as users
run them, in a subprocess. Nothing in a key is ever evaluated: keys that would call code are
refused, and a marker file such a call would create never appears.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzz_support import assert_one_line, time_limit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lazytensor.__main__ import main, parse_key

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
        assert "tensor () int16" in out
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

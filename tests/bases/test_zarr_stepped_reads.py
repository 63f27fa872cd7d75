"""Reads of a zarr base through a step that skips whole chunks of an axis of very many chunks: one
request per element picked, not zarr's walk over every chunk of the slice's span (a `repr` of
`t.T[[0, -1]]` over a sparse `(2**40, 2**40)` array with 2×2 chunks walked 2**39 chunks, #41)."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import zarr
from hypothesis import given, settings
from hypothesis import strategies as st
from repo_paths import ROOT

import lazytensor as lt


def test_the_first_and_last_columns_of_a_sparse_2_to_the_40_square_print_at_once(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "sparse.zarr"
    z = zarr.create_array(path, shape=(2**40, 2**40), chunks=(2, 2), dtype="f8", fill_value=0)
    z[0, 0], z[-1, -1], z[5, 7], z[-2, 0] = 1.0, 2.0, 3.0, 4.0
    t = lt.open(path)
    picked = t.T[[0, -1]]
    assert picked[:, :3].tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert picked[:, -3:].tolist() == [[0.0, 4.0, 0.0], [0.0, 0.0, 2.0]]
    assert "1.  0.  0.  …  0.  4.  0." in repr(picked)
    assert t[:: 2**39, :: 2**39 - 1].tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert t[5, 1 : 2**40 : 6][:2].tolist() == [0.0, 3.0]


SIZE = 10**6
"""500,000 chunks of two: more than the count past which a step is read element by element."""


@settings(max_examples=30, deadline=None)  # random spans and steps over one sparse store
@given(
    start=st.integers(-SIZE, SIZE),
    stop=st.integers(-SIZE, SIZE) | st.none(),
    step=st.integers(250, SIZE) | st.integers(-SIZE, -250),
    written=st.lists(st.integers(0, SIZE - 1), max_size=20),
)
def test_a_stepped_slice_of_a_zarr_base_with_many_chunks_is_numpys(
    start: int, stop: int | None, step: int, written: list[int]
) -> None:
    z = zarr.create_array({}, shape=(SIZE, 2), chunks=(2, 1), dtype="i8", fill_value=-1)
    expected = np.full((SIZE, 2), -1, dtype=np.int64)
    for position in written:
        z[position] = [position, -position]
        expected[position] = [position, -position]
    t = lt.from_array(z)
    key = slice(start, stop, step)
    np.testing.assert_array_equal(t[key].numpy(), expected[key])
    np.testing.assert_array_equal(t[key, 1].numpy(), expected[key, 1])
    np.testing.assert_array_equal(t.T[:, key].numpy(), expected.T[:, key])


def test_an_expanded_view_of_a_zarr_base_reads_each_repeated_element_once() -> None:
    """numpy's broadcast of the few elements read, not a request for each of 3 * 10**8 positions."""
    z = zarr.create_array({}, shape=(1, 3), chunks=(1, 2), dtype="f8", fill_value=0)
    z[:] = [[1.0, 0.0, 3.0]]
    e = lt.from_array(z).expand(10**8, 3)
    values = e.numpy()
    assert values.shape == (10**8, 3) and values.strides[0] == 0 and not values.flags.writeable
    np.testing.assert_array_equal(values[:: 10**7], np.broadcast_to([1.0, 0.0, 3.0], (10, 3)))
    assert lt.from_array(z).T.expand(2, 3, 5)[1, :, ::2].tolist() == [[1.0] * 3, [0.0] * 3, [3.0] * 3]


def test_a_long_stepped_read_stops_at_ctrl_c(tmp_path: pathlib.Path) -> None:
    """A million picked elements are a million requests from a Python loop: SIGINT raises
    KeyboardInterrupt in the reading process within seconds (zarr's own read walked 2**39 chunks)."""
    path = tmp_path / "sparse.zarr"
    zarr.create_array(path, shape=(2**40, 2**40), chunks=(2, 2), dtype="f8", fill_value=0)
    script = (
        "import signal, sys, lazytensor as lt\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "t = lt.open(sys.argv[1])\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    t[5, :: 2**20].numpy()\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    # the child handles Ctrl-C as at a terminal even when run as a background job (which inherits
    # SIGINT ignored, and Python then installs no handler of its own)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # well into the reads
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
    finally:
        child.kill()
        child.wait()
    assert out.strip() == "interrupted"

"""Operations on expanded views of a shape no memory holds: refused at once, or done in O(base).

`lt.tensor([1., 2., 3.]).expand(10**7, 10**7, 10, 3).nonzero()` walked 3·10**15 positions in one C
loop that Ctrl-C could not stop. `find_nonzero` counts a repeated (stride-0) axis once, refuses at
once with MemoryError naming the size when the indices cannot fit, and builds them in blocks from a
Python loop that Ctrl-C stops. Every other whole-tensor operation on such a view is refused at once
with MemoryError naming the size (numpy's or ours), and reductions already cost what the base costs.

Reaches into `lazytensor.ground.find_nonzero`: its block size is lowered to take every path, and in
a child process to make the search long enough to interrupt.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import ROOT
from strategies import shapes

import lazytensor as lt
from lazytensor.ground import find_nonzero

HUGE = (10**7, 10**7, 10, 3)


def huge() -> Any:
    return lt.tensor([1.0, 2.0, 3.0]).expand(*HUGE)


NONZERO_DOORS = {
    "t.nonzero()": lambda e: e.nonzero(),
    "lt.nonzero(t)": lambda e: lt.nonzero(e),
    "lt.where(t)": lambda e: lt.where(e),
    "np.nonzero(t)": lambda e: np.nonzero(e),
    "np.argwhere(t)": lambda e: np.argwhere(e),
    "np.where(t)": lambda e: np.where(e),
    "t[mask]": lambda e: e[lt.tensor([True, False, True]).expand(*HUGE)],
}


@pytest.mark.parametrize("door", NONZERO_DOORS.values(), ids=NONZERO_DOORS.keys())
def test_the_indices_of_a_huge_expand_are_refused_at_once_naming_the_size(door: Any) -> None:
    with pytest.raises(
        MemoryError, match=r"nonzero\(\) of shape \(10000000, 10000000, 10, 3\): 4 index arrays"
    ):
        door(huge())


def test_counting_and_finding_nothing_cost_what_the_base_costs() -> None:
    assert np.count_nonzero(huge()) == 3 * 10**15
    e = lt.tensor([0.0, 5.0, 0.0]).expand(*HUGE)
    assert np.count_nonzero(e) == 10**15
    assert [i.shape for i in lt.zeros(3).expand(*HUGE).nonzero()] == [(0,)] * 4


WHOLE_TENSOR = {
    "tolist": lambda e: e.tolist(),
    "clone": lambda e: e.clone(),
    "contiguous": lambda e: e.T.contiguous(),
    "astype": lambda e: e.astype(np.int32),
    "argsort": lambda e: e.argsort(),
    "add": lambda e: e + 1,
    "compare": lambda e: e == e,
    "cumsum": lambda e: e.cumsum(0),
    "np.sort": lambda e: np.sort(e, axis=None),
    "np.unique": lambda e: np.unique(e),
    "np.array": lambda e: np.array(e),
    "np.median": lambda e: np.median(e),
}


@pytest.mark.parametrize("operation", WHOLE_TENSOR.values(), ids=WHOLE_TENSOR.keys())
def test_whole_tensor_operations_on_a_huge_expand_are_refused_at_once(operation: Any) -> None:
    with pytest.raises(MemoryError, match=r"\d (PB|PiB)|10000000"):
        operation(huge())


def test_reductions_of_a_huge_expand_cost_the_base() -> None:
    e = huge()
    assert e.max().item() == 3.0 and e.min().item() == 1.0
    assert e.mean().item() == 2.0
    assert e.any().item() and e.all().item()
    assert e.argmax().item() == 2 and e.argmin().item() == 0  # the first extreme, as numpy's (#41)


@st.composite
def broadcast_arrays(draw: st.DrawFn) -> np.ndarray:
    """A small array broadcast to a bigger shape, then maybe transposed or sliced: stride-0 axes
    anywhere, of any size, among real ones."""
    shape = draw(shapes(max_dims=3, max_side=3))
    base = np.array(draw(st.lists(st.integers(0, 2), min_size=math.prod(shape), max_size=math.prod(shape))))
    lead = draw(st.lists(st.integers(0, 4), max_size=2))
    target = (*lead, *(draw(st.sampled_from([1, 2, 4])) if size == 1 else size for size in shape))
    values = np.broadcast_to(base.reshape(shape), target)
    if values.ndim and draw(st.booleans()):
        values = values.transpose(draw(st.permutations(range(values.ndim))))
    if values.ndim and draw(st.booleans()):
        values = values[::-1]
    return values


@given(values=broadcast_arrays(), block=st.sampled_from([1, 2, 3, 5, 8, 1 << 20]))
def test_find_nonzero_is_numpys_nonzero_in_blocks_of_any_size(values: np.ndarray, block: int) -> None:
    saved, find_nonzero.BLOCK = find_nonzero.BLOCK, block
    try:
        assert find_nonzero.count_nonzero(values) == np.count_nonzero(values)
        if values.ndim == 0:
            return
        found = find_nonzero.nonzero(values)
    finally:
        find_nonzero.BLOCK = saved
    expected = np.nonzero(values)
    assert len(found) == len(expected)
    for got, want in zip(found, expected, strict=True):
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, want)


def _child(code: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_the_issue_example_ends_at_once_in_a_fresh_process() -> None:
    """The example of the issue, in its own process under a time limit: a hang fails, not stalls."""
    child = _child(
        "import lazytensor as lt\n"
        "e = lt.tensor([1., 2., 3.]).expand(10**7, 10**7, 10, 3)\n"
        "try:\n    e.nonzero()\nexcept MemoryError as error:\n    print('refused:', error)\n"
    )
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert out.startswith("refused: nonzero() of shape (10000000, 10000000, 10, 3)")


def test_ctrl_c_stops_finding_nonzero_elements_between_blocks() -> None:
    """Long work that fits in memory runs in blocks from a Python loop, so SIGINT ends it."""
    child = _child(
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignores Ctrl-C\n"
        "import lazytensor as lt\n"
        "from lazytensor.ground import find_nonzero\n"
        "find_nonzero.BLOCK = 1  # millions of one-element blocks: long enough to interrupt\n"
        "write = find_nonzero._write_positions\n"
        "def announced(*args):\n"
        "    print('started', flush=True)  # from inside the work, so the signal lands in it\n"
        "    find_nonzero._write_positions = write\n"
        "    return write(*args)\n"
        "find_nonzero._write_positions = announced\n"
        "lt.tensor([1]).expand(2**22, 1).nonzero()\n"
        "print('finished', flush=True)\n"
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "started\n"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert "KeyboardInterrupt" in err and "find_nonzero.py" in err and "finished" not in out


def test_an_expand_beyond_what_numpy_can_view_prints_and_reads_its_elements() -> None:
    """(10**9, 10**9, 3) float64 spans more than 2**63 bytes: numpy cannot even make the broadcast
    view, which used to end every print and read in numpy's raw ValueError."""
    e = lt.tensor([1.0, 2.0, 3.0]).expand(10**9, 10**9, 3)
    assert "[999999999, :, :]" in repr(e)
    assert e[5, 7, 2] == 3.0 and e[[1, 2], 5].tolist() == [[1.0, 2.0, 3.0]] * 2
    assert e.T[::-1][0, :2, 1].tolist() == [3.0, 3.0]
    with pytest.raises(MemoryError, match=r"numpy view of shape \(1000000000, 1000000000, 3\)"):
        e.sum()
    with pytest.raises(MemoryError, match=r"numpy view of shape \(1000000000, 1000000000, 3\)"):
        e.nonzero()


def test_unbind_and_split_into_more_views_than_memory_holds_are_refused_at_once() -> None:
    """A tuple of 2**40 views would be built one Python object at a time for hours: refused first."""
    e = lt.zeros(1).expand(2**40, 3)
    with pytest.raises(MemoryError, match=r"unbind\(0\) of shape \(1099511627776, 3\): a tuple of 1,099,511"):
        e.unbind(0)
    with pytest.raises(MemoryError, match=r"split\(1\) of shape \(1099511627776, 3\)"):
        e.split(1)
    assert [p.shape for p in e.split(2**39)] == [(2**39, 3), (2**39, 3)]
    assert len(e.unbind(1)) == 3


# -- 10^12 rows: whole reads refuse at once, reductions read only the base ----------------------------


ROWS = 10**12


def _rows() -> lt.AbstractTensor:
    return lt.tensor([1.0, 2.0, 3.0]).expand(ROWS, 3)


@pytest.mark.parametrize(
    "make",
    [
        lambda e: e.tolist(),
        lambda e: e.clone(),
        lambda e: e.contiguous(),
        lambda e: e.astype(np.int32),
        lambda e: e.T.reshape(-1).numpy(),
    ],
    ids=["tolist", "clone", "contiguous", "astype", "unfused read"],
)
def test_anything_bigger_than_memory_refuses_at_once_naming_the_size(make: object) -> None:
    with pytest.raises(MemoryError, match=r"3,000,000,000,000 elements\), more than this machine's"):
        make(_rows())  # type: ignore[operator]


def test_reductions_over_expanded_axes_read_only_the_base() -> None:
    e = _rows()
    assert e.sum().item() == 6.0 * ROWS and e.sum(0).tolist() == [ROWS, 2.0 * ROWS, 3.0 * ROWS]
    assert e.mean().item() == 2.0 and e.max().item() == 3.0 and e.min(0).tolist() == [1.0, 2.0, 3.0]
    assert e.var(0).tolist() == [0.0, 0.0, 0.0] and e.std().item() == pytest.approx(np.std([1.0, 2.0, 3.0]))
    above = (lt.tensor([1.0, 2.0, 3.0]) > 2).expand(ROWS, 3)
    assert e.all().item() and above.any(0).tolist() == [False, False, True]
    small = lt.tensor([[1, 2], [3, 4]]).expand(3, 2, 2)
    expected = np.broadcast_to(np.array([[1, 2], [3, 4]]), (3, 2, 2))
    for dim in (None, 0, (0, 2), 1):
        for name in ("sum", "prod", "mean", "max", "min", "var", "std"):
            got = getattr(small, name)(dim=dim, keepdim=True).numpy()
            want = getattr(np, name)(expected, axis=dim, keepdims=True)
            assert got.shape == want.shape and np.allclose(got, want), (name, dim)

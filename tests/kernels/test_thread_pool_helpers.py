"""The helper threads of `lazytensor.kernels.threads`: how many cores the default counts, how many helpers
start (one for every thread but the caller's, daemon threads named "lazytensor"), how many end when
the count drops, that they all work at once, and that a forked child or a finished program is not
held up by them.

Reaches into `lazytensor.kernels.threads`: the helper threads, the core count and the settings are
the module's own.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from repo_paths import ROOT
from thread_support import recorded_blocks

import lazytensor as lt
from lazytensor.kernels import threads


def _helpers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "lazytensor"]


def _until(condition: Callable[[], bool]) -> None:
    """Wait (at most 30 s) for helper threads to end: ending takes them a moment."""
    deadline = time.monotonic() + 30
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.fixture
def no_helpers() -> Iterator[None]:
    """The module's pool with no helper running, and the thread count put back after the test."""
    before = lt.get_num_threads()
    lt.set_num_threads(1)
    _until(lambda: not _helpers())
    try:
        yield
    finally:
        lt.set_num_threads(before)


# -- the default count: the cores this process may run on ---------------------------------------------


def _counters(
    monkeypatch: pytest.MonkeyPatch,
    process: Callable[[], int | None] | None,
    affinity: Callable[[int], set[int]] | None,
    cpus: int | None,
) -> None:
    """os's counters as given (None: the function is absent, as on older Pythons or other systems)."""
    for name, counter in (("process_cpu_count", process), ("sched_getaffinity", affinity)):
        if counter is None:
            monkeypatch.delattr(os, name, raising=False)
        else:
            monkeypatch.setattr(os, name, counter, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)


def test_the_cores_come_from_process_cpu_count_first(monkeypatch: pytest.MonkeyPatch) -> None:
    _counters(monkeypatch, lambda: 7, lambda pid: {0, 1}, 5)
    assert threads._cores() == 7


@pytest.mark.parametrize("unknown", [None, 0])
def test_an_unknown_process_cpu_count_is_one_core(
    monkeypatch: pytest.MonkeyPatch, unknown: int | None
) -> None:
    _counters(monkeypatch, lambda: unknown, lambda pid: {0, 1}, 5)
    assert threads._cores() == 1


def test_without_process_cpu_count_the_cores_are_this_process_affinity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []

    def affinity(pid: int) -> set[int]:
        asked.append(pid)
        return {0, 2, 3}

    _counters(monkeypatch, None, affinity, 5)
    assert threads._cores() == 3
    assert asked == [0]  # pid 0: this process


def test_an_empty_affinity_is_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    _counters(monkeypatch, None, lambda pid: set(), 5)
    assert threads._cores() == 1


def test_without_either_the_cores_are_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    _counters(monkeypatch, None, None, 5)
    assert threads._cores() == 5
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # numpy's "cannot be determined"
    assert threads._cores() == 1


def test_new_settings_start_from_the_modules_sizes_with_no_helper() -> None:
    settings = threads._Settings(5)
    assert settings.threads == 5
    assert settings.min_elements == threads.MIN_ELEMENTS
    assert settings.min_sum == threads.MIN_SUM_ELEMENTS
    assert settings.min_block == threads.MIN_BLOCK_ELEMENTS
    assert settings.blocks_per_thread == threads.BLOCKS_PER_THREAD
    assert settings.helpers == 0


# -- hiring and dismissing --------------------------------------------------------------------------


def test_hire_starts_a_daemon_helper_for_every_thread_but_the_callers() -> None:
    """Daemon threads: a program ends without waiting for helpers that wait for work forever."""
    settings = threads._Settings(4)
    before = set(threading.enumerate())
    settings.hire()
    settings.hire()  # hiring again starts no more
    started = [thread for thread in threading.enumerate() if thread not in before]
    try:
        assert settings.helpers == 3
        assert len(started) == 3
        assert all(thread.daemon and thread.name == "lazytensor" for thread in started)
        ran = threading.Event()
        settings.inbox.put(ran.set)  # they serve this pool's inbox
        assert ran.wait(timeout=30)
    finally:
        settings.threads = 1
        settings.dismiss()
        for thread in started:
            thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in started)


def test_dismiss_ends_the_helpers_beyond_the_new_count() -> None:
    settings = threads._Settings(4)
    before = set(threading.enumerate())
    settings.hire()
    started = [thread for thread in threading.enumerate() if thread not in before]

    def alive() -> int:
        return sum(thread.is_alive() for thread in started)

    try:
        settings.threads = 2
        settings.dismiss()
        _until(lambda: alive() <= 1)
        assert (settings.helpers, alive()) == (1, 1)
        settings.dismiss()  # nothing more to end
        assert settings.helpers == 1
    finally:
        settings.threads = 1
        settings.dismiss()
        _until(lambda: alive() == 0)
    assert (settings.helpers, alive()) == (0, 0)


def test_set_num_threads_starts_helpers_on_first_use_and_ends_them_when_lowered(no_helpers: None) -> None:
    lt.set_num_threads(3)
    assert _helpers() == []  # nothing runs until there is work
    with threads.split_from(2):
        assert (lt.tensor(np.arange(12)) + 1).tolist() == list(range(1, 13))
    assert len(_helpers()) == 2
    lt.set_num_threads(2)
    _until(lambda: len(_helpers()) <= 1)
    assert len(_helpers()) == 1
    lt.set_num_threads(1)
    _until(lambda: not _helpers())
    assert _helpers() == []


def test_work_in_one_block_starts_no_helper(no_helpers: None) -> None:
    """A float64 sum of one row is one block of einsum's row sums: it runs on the caller alone."""
    lt.set_num_threads(3)
    with threads.split_from(2), recorded_blocks() as blocks:
        assert lt.tensor(np.ones((1, 8))).sum(1).tolist() == [8.0]
    assert blocks == [1]
    assert _helpers() == []


@pytest.mark.parametrize("count", [2, 3])
def test_every_thread_runs_a_block_at_once(no_helpers: None, count: int) -> None:
    """`count` blocks that each wait for all the others: they end only if `count` threads run them
    together (the caller and every helper)."""
    lt.set_num_threads(count)
    barrier = threading.Barrier(count, timeout=30)
    names = threads.run_blocks(count, lambda i: (barrier.wait(), threading.current_thread().name)[1])
    assert sorted(names) == sorted([threading.current_thread().name] + ["lazytensor"] * (count - 1))


# -- processes ------------------------------------------------------------------------------------------


def _python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_a_forked_child_starts_its_own_helpers(no_helpers: None) -> None:
    """The parent's helper threads do not exist in a forked child: it counts none and hires its own."""
    lt.set_num_threads(3)
    threads.run_blocks(3, lambda i: i)  # the parent hires two helpers
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then end without running the parent's cleanup
        try:
            squares = threads.run_blocks(3, lambda i: i * i)
            os.write(write, f"{squares} {len(_helpers())} {threads._settings.helpers}".encode())
        finally:
            os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 60)
        printed = os.read(read, 1000).decode() if ready else "the child did not answer"
    finally:
        os.close(read)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert printed == "[0, 1, 4] 2 2"


def test_a_program_that_used_the_helpers_ends() -> None:
    """The helpers wait for work forever: as daemon threads they do not keep the program alive."""
    printed = _python(
        """
        import numpy as np
        import lazytensor as lt
        from lazytensor.kernels import threads
        lt.set_num_threads(2)
        with threads.split_from(2):
            print((lt.tensor(np.arange(6)) * 2).tolist())
        """
    )
    assert printed.strip() == "[0, 2, 4, 6, 8, 10]"

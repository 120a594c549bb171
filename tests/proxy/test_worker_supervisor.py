"""The supervisor of ``pi-sdk serve --workers N`` (``pi_sdk/_serve/workers.py``).

Real forks with tiny ``serve`` functions stand in for the servers: what a worker's exit status
is (its ``serve``'s return, 1 when it raises, with the traceback on stderr), when the parent
replaces a worker and when it gives up (five quick exits in a row; a long-lived worker resets
the count; the clock is a fake), how a stop ends workers that ignore SIGTERM (SIGKILL after the
grace period; the timer is a fake that fires at once), also when the stop comes between a
worker's fork and its listing, and the listening socket's bind errors.

Each run of the supervisor is a fresh single-threaded interpreter, as ``pi-sdk serve`` is
(``tests/_support/supervisor_scenarios.py``): the stop signals are held with a per-thread mask,
which in a pytest-xdist worker (other threads) would not cover the window it guards.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _support.supervisor_scenarios import FiringTimer

from pi_sdk._serve import workers
from pi_sdk._serve.workers import Supervisor, listening_socket

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only (fork)")

SCENARIOS = Path(__file__).resolve().parents[1] / "_support" / "supervisor_scenarios.py"
ROOT = Path(__file__).resolve().parents[2]


class HeldTimer(FiringTimer):
    """A timer that only records (the test fires it)."""

    made: list[HeldTimer] = []

    def start(self) -> None:
        HeldTimer.made.append(self)


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """Every scenario's result, run once, all at once, by a fresh single-threaded interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(SCENARIOS.parent.parent)])}
    done = subprocess.run(
        [sys.executable, str(SCENARIOS)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def sock() -> Iterator[socket.socket]:
    s = listening_socket("127.0.0.1", 0)
    yield s
    s.close()


class Run:
    """One scenario's run of the supervisor alone (``supervisor_scenarios.py``)."""

    def __init__(self, result: dict[str, Any]) -> None:
        self.stderr: str = result["stderr"]
        if result["timed_out"]:
            pytest.fail(f"the supervisor did not end in 30 s (killed)\n{self.stderr}")
        report: dict[str, Any] | None = result["report"]
        assert report is not None, self.stderr
        self.status: int = report["status"]
        self.logs: list[tuple[int, str]] = [(level, m) for level, m in report["logs"]]
        self.timers: list[float] = report["timers"]
        self.sent: list[int] = report["sent"]
        self.workers: list[int] = report["workers"]
        self.handlers_restored: bool = report["handlers_restored"]
        self.socket_closed: bool = report["socket_closed"]

    def messages(self, level: int) -> list[str]:
        return [m for lv, m in self.logs if lv == level]

    def ended(self) -> list[str]:
        return [m.split(" (", 1)[1] for m in self.messages(logging.WARNING)]


def test_workers_that_keep_exiting_at_start_stop_the_server_after_five(runs: dict[str, Any]):
    # each worker sees default signal handlers and an open socket, and exits 3
    run = Run(runs["quick_exits"])
    assert run.status == 1
    assert run.ended() == ["exit status 3); starting another"] * 5
    assert run.messages(logging.ERROR) == ["workers keep ending as they start: stopping the server"]
    assert run.timers == [0.25]  # the stop ran once, with the grace period
    assert run.workers == []
    assert run.socket_closed  # the parent's socket is closed when it returns


def test_a_worker_whose_serve_raises_exits_1_with_its_traceback(runs: dict[str, Any]):
    run = Run(runs["serve_raises"])
    assert run.status == 1
    assert run.ended() == ["exit status 1); starting another"] * 5
    assert run.stderr.count("LookupError: no app in this worker") == 5
    assert run.stderr.count("Traceback (most recent call last)") == 5


def test_a_worker_that_lived_long_resets_the_count_of_quick_exits(runs: dict[str, Any]):
    run = Run(runs["long_lived_resets"])
    assert run.status == 1
    # 4 quick, 1 long (count back to 0), then 5 quick: 10 ends, 10 workers started
    assert run.ended() == ["exit status 0); starting another"] * 10
    started = [m for m in run.messages(logging.INFO) if m.startswith("worker ")]
    assert len(started) == 10 and all(m.endswith(" started (1 of 1)") for m in started)


def test_a_stop_kills_the_workers_that_ignore_sigterm_after_the_grace_period(runs: dict[str, Any]):
    run = Run(runs["stop_kills_sigterm_ignorers"])
    assert run.status == 0  # a stop asked for is a clean exit
    assert run.sent == [signal.SIGTERM, signal.SIGKILL]
    assert run.timers == [0.5]
    assert run.messages(logging.WARNING) == []  # an end while stopping is not a crash
    assert run.handlers_restored  # the parent's handlers put back


def test_a_stop_that_comes_while_a_worker_is_forked_still_reaches_that_worker(runs: dict[str, Any]):
    # The parent is slowed between the fork and listing the worker, so the worker's stop
    # signal lands in that window. It is held until the worker is listed: the stop reaches
    # the worker (SIGTERM, then SIGKILL) and the run ends instead of waiting forever.
    run = Run(runs["stop_in_fork_window"])
    assert run.status == 0
    assert run.sent == [signal.SIGTERM, signal.SIGKILL]
    assert run.timers == [0.5]


def test_stop_signals_every_worker_once_however_often_it_is_asked(
    sock: socket.socket, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(threading, "Timer", HeldTimer)
    HeldTimer.made = []
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(workers, "_signal", lambda pid, sig: sent.append((pid, sig)))
    supervisor = Supervisor(lambda s: 0, sock, count=2, grace_s=7.0)
    supervisor.workers = {101: 0.0, 102: 0.0}
    supervisor._stop(signal.SIGTERM, None)  # pyright: ignore[reportPrivateUsage]
    supervisor._stop(signal.SIGINT, None)  # pyright: ignore[reportPrivateUsage]
    assert sent == [(101, signal.SIGTERM), (102, signal.SIGTERM)]
    assert [(t.interval, t.daemon) for t in HeldTimer.made] == [(7.0, True)]
    del supervisor.workers[101]  # ended in time
    HeldTimer.made[0].function()
    assert sent[2:] == [(102, signal.SIGKILL)]


def test_signal_ignores_a_worker_already_gone():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    workers._signal(pid, signal.SIGTERM)  # pyright: ignore[reportPrivateUsage]


def test_supervision_skips_children_it_did_not_fork_and_ends_without_children(
    runs: dict[str, Any], sock: socket.socket, monkeypatch: pytest.MonkeyPatch
):
    run = Run(runs["skips_strangers"])  # waitpid answers first with a child of someone else's
    assert run.status == 1
    assert run.ended() == ["exit status 4); starting another"] * 5  # the stranger not counted

    def gone(pid: int, options: int) -> tuple[int, int]:
        raise ChildProcessError(errno.ECHILD, "No child processes")

    monkeypatch.setattr(workers.os, "waitpid", gone)
    lost = Supervisor(lambda s: 0, sock, count=1)
    lost.workers = {123: 0.0}  # reaped elsewhere: nothing left to wait for
    assert lost._supervise() == 0  # pyright: ignore[reportPrivateUsage]


def test_describe_names_the_signal_or_the_exit_status():
    describe = workers._describe  # pyright: ignore[reportPrivateUsage]
    assert describe(9) == "killed by SIGKILL"
    assert describe(15) == "killed by SIGTERM"
    assert describe(3 << 8) == "exit status 3"
    assert describe(0) == "exit status 0"


def test_a_busy_port_raises_and_closes_the_socket_it_made(monkeypatch: pytest.MonkeyPatch):
    taken = listening_socket("127.0.0.1", 0)
    made: list[socket.socket] = []
    real = socket.socket

    def recording(*args: Any) -> socket.socket:
        s = real(*args)
        made.append(s)
        return s

    monkeypatch.setattr(workers.socket, "socket", recording)
    try:
        # SO_REUSEADDR does not let a second socket listen where one already does
        with pytest.raises(OSError) as caught:
            listening_socket("127.0.0.1", taken.getsockname()[1])
        assert caught.value.errno == errno.EADDRINUSE
        assert len(made) == 1 and made[0].fileno() == -1
    finally:
        taken.close()

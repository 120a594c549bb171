"""The supervisor of ``pi-sdk serve --workers N`` (``pi_sdk/_serve/workers.py``), in process.

Real forks with tiny ``serve`` functions stand in for the servers: what a worker's exit status
is (its ``serve``'s return, 1 when it raises, with the traceback on stderr), when the parent
replaces a worker and when it gives up (five quick exits in a row; a long-lived worker resets
the count; the clock is a fake), how a stop ends workers that ignore SIGTERM (SIGKILL after the
grace period; the timer is a fake that fires at once), and the listening socket's bind errors.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pi_sdk._serve import workers
from pi_sdk._serve.outcome_log import LOGGER_NAME
from pi_sdk._serve.workers import Supervisor, listening_socket

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only (fork)")


class FiringTimer:
    """Stands in for ``threading.Timer``: records the delay and runs the function at ``start``."""

    started: list[float] = []

    def __init__(self, interval: float, function: Callable[[], None]) -> None:
        self.interval, self.function = interval, function
        self.daemon = False

    def start(self) -> None:
        FiringTimer.started.append(self.interval)
        self.function()


class HeldTimer(FiringTimer):
    """A timer that only records (the test fires it)."""

    made: list[HeldTimer] = []

    def start(self) -> None:
        HeldTimer.made.append(self)


@pytest.fixture
def sock() -> Iterator[socket.socket]:
    s = listening_socket("127.0.0.1", 0)
    yield s
    s.close()


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    return caplog


def _messages(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level]


def _ended(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [m.split(" (", 1)[1] for m in _messages(caplog, logging.WARNING)]


def test_workers_that_keep_exiting_at_start_stop_the_server_after_five(
    sock: socket.socket, logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(threading, "Timer", FiringTimer)
    FiringTimer.started = []

    # the worker sees default signal handlers (not the parent's), and its return is its status
    def serve(s: socket.socket) -> int:
        defaults = all(
            signal.getsignal(n) == signal.SIG_DFL for n in (signal.SIGTERM, signal.SIGINT)
        )
        return 3 if defaults and s.fileno() >= 0 else 9

    supervisor = Supervisor(serve, sock, count=1, grace_s=0.25)
    assert supervisor.run() == 1
    assert _ended(logs) == ["exit status 3); starting another"] * 5
    assert _messages(logs, logging.ERROR) == [
        "workers keep ending as they start: stopping the server"
    ]
    assert FiringTimer.started == [0.25]  # the stop ran once, with the grace period
    assert supervisor.workers == {}
    assert sock.fileno() == -1  # the parent's socket is closed when it returns


def test_a_worker_whose_serve_raises_exits_1_with_its_traceback(
    sock: socket.socket,
    logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
):
    monkeypatch.setattr(threading, "Timer", FiringTimer)

    def serve(s: socket.socket) -> int:
        raise LookupError("no app in this worker")

    assert Supervisor(serve, sock, count=1).run() == 1
    assert _ended(logs) == ["exit status 1); starting another"] * 5
    err = capfd.readouterr().err
    assert err.count("LookupError: no app in this worker") == 5
    assert err.count("Traceback (most recent call last)") == 5


def test_a_worker_that_lived_long_resets_the_count_of_quick_exits(
    sock: socket.socket, logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(threading, "Timer", FiringTimer)
    calls: list[int] = []

    def monotonic() -> float:
        # forks and exit checks alternate: fork, check, fork, check...; the fifth check is late
        calls.append(1)
        return workers.QUICK_EXIT_S if len(calls) == 10 else 0.0

    class Clock:
        pass

    clock = Clock()
    clock.monotonic = monotonic  # type: ignore[attr-defined]
    monkeypatch.setattr(workers, "time", clock)
    assert Supervisor(lambda s: 0, sock, count=1).run() == 1
    # 4 quick, 1 long (count back to 0), then 5 quick: 10 ends, 10 workers started
    assert _ended(logs) == ["exit status 0); starting another"] * 10
    started = [m for m in _messages(logs, logging.INFO) if m.startswith("worker ")]
    assert len(started) == 10 and all(m.endswith(" started (1 of 1)") for m in started)


def test_a_stop_kills_the_workers_that_ignore_sigterm_after_the_grace_period(
    sock: socket.socket, logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(threading, "Timer", FiringTimer)
    FiringTimer.started = []
    sent: list[int] = []
    real_signal = workers._signal  # pyright: ignore[reportPrivateUsage]

    def recording(pid: int, sig: int) -> None:
        sent.append(sig)
        real_signal(pid, sig)

    monkeypatch.setattr(workers, "_signal", recording)

    def serve(s: socket.socket) -> int:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.kill(os.getppid(), signal.SIGTERM)  # the parent is told to stop
        while True:
            signal.pause()

    supervisor = Supervisor(serve, sock, count=1, grace_s=0.5)
    previous = signal.getsignal(signal.SIGTERM)
    assert supervisor.run() == 0  # a stop asked for is a clean exit
    assert sent == [signal.SIGTERM, signal.SIGKILL]
    assert FiringTimer.started == [0.5]
    assert _messages(logs, logging.WARNING) == []  # an end while stopping is not a crash
    assert signal.getsignal(signal.SIGTERM) == previous  # the parent's handlers put back


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
    sock: socket.socket, logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(threading, "Timer", FiringTimer)
    real_waitpid = os.waitpid
    answers: list[Any] = [(999_999_999, 0)]  # a child of someone else's making, first

    def waitpid(pid: int, options: int) -> tuple[int, int]:
        return answers.pop(0) if answers else real_waitpid(pid, options)

    monkeypatch.setattr(workers.os, "waitpid", waitpid)
    supervisor = Supervisor(lambda s: 4, sock, count=1)
    assert supervisor.run() == 1
    assert _ended(logs) == ["exit status 4); starting another"] * 5  # the stranger not counted

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

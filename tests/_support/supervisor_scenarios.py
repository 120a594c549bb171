"""The supervisor of ``pi-sdk serve --workers N`` run alone, as ``pi-sdk serve`` runs it.

``python supervisor_scenarios.py [scenario...]`` (all of them by default) starts in a fresh
interpreter, single-threaded, and forks one process per scenario, all at once: each runs its
:class:`Supervisor` in its main and only thread and reports the run's exit status, the
supervisor's log records, the grace periods its stop timers were given, the signals it sent,
and whether it put the signal handlers back and closed the socket. The reports, each with the
scenario's stderr (its workers' too: a raising ``serve``'s traceback), are printed as one JSON
line (:func:`main`).

Why a process of its own: the supervisor holds the stop signals with a per-thread mask
(``pthread_sigmask``) between forking a worker and listing it. In ``pi-sdk serve`` it is the
only thread, so a stop signal waits for the mask; in a pytest-xdist worker other threads
could take the signal in that window, which is not what ``pi-sdk serve`` does.

The timers are fakes that fire at once (the SIGKILL after the grace period comes without
waiting for it); the clock and ``waitpid`` are fakes where a scenario says so.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_sdk._serve import workers
from pi_sdk._serve.outcome_log import LOGGER_NAME
from pi_sdk._serve.workers import Supervisor, listening_socket

_STOPS = (signal.SIGTERM, signal.SIGINT)
TIMEOUT_S = 30.0
"""A scenario still running after this is killed (a stop that never ends would hang)."""


class FiringTimer:
    """Stands in for ``threading.Timer``: records the delay and runs the function at ``start``."""

    started: list[float] = []

    def __init__(self, interval: float, function: Callable[[], None]) -> None:
        self.interval, self.function = interval, function
        self.daemon = False

    def start(self) -> None:
        FiringTimer.started.append(self.interval)
        self.function()


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.levelno, record.getMessage()))


_sent: list[int] = []


def _recording_signal(pid: int, sig: int) -> None:
    _sent.append(sig)
    _REAL_SIGNAL(pid, sig)


_REAL_SIGNAL = workers._signal  # pyright: ignore[reportPrivateUsage]


def _defaults_and_socket(s: socket.socket) -> int:
    # the worker sees default signal handlers (not the parent's); its return is its status
    defaults = all(signal.getsignal(n) == signal.SIG_DFL for n in _STOPS)
    return 3 if defaults and s.fileno() >= 0 else 9


def _raises(s: socket.socket) -> int:
    raise LookupError("no app in this worker")


def _stops_the_parent_and_ignores_sigterm(s: socket.socket) -> int:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.kill(os.getppid(), signal.SIGTERM)  # the parent is told to stop
    while True:
        signal.pause()


def quick_exits() -> Supervisor:
    """Every worker exits 3 at once: five in a row stop the server."""
    return Supervisor(_defaults_and_socket, listening_socket("127.0.0.1", 0), 1, grace_s=0.25)


def serve_raises() -> Supervisor:
    """Every worker's ``serve`` raises."""
    return Supervisor(_raises, listening_socket("127.0.0.1", 0), 1)


def long_lived_resets() -> Supervisor:
    """Workers exit 0 at once, but the clock says the fifth one lived long."""
    calls: list[int] = []

    def monotonic() -> float:
        # forks and exit checks alternate: fork, check, fork, check...; the fifth check is late
        calls.append(1)
        return workers.QUICK_EXIT_S if len(calls) == 10 else 0.0

    class Clock:
        pass

    clock = Clock()
    clock.monotonic = monotonic  # type: ignore[attr-defined]
    workers.time = clock  # type: ignore[assignment]
    return Supervisor(lambda s: 0, listening_socket("127.0.0.1", 0), 1)


def stop_kills_sigterm_ignorers() -> Supervisor:
    """The worker tells the parent to stop, then ignores SIGTERM."""
    workers._signal = _recording_signal  # pyright: ignore[reportPrivateUsage]
    return Supervisor(
        _stops_the_parent_and_ignores_sigterm, listening_socket("127.0.0.1", 0), 1, grace_s=0.5
    )


def stop_in_fork_window() -> Supervisor:
    """As :func:`stop_kills_sigterm_ignorers`, with the parent slowed between fork and listing.

    The clock reading that lists the worker sleeps 0.3 s in the parent, so the worker's stop
    signal lands in the window between the fork and the listing.
    """
    parent = os.getpid()
    real_monotonic = time.monotonic

    def slow_monotonic() -> float:
        if os.getpid() == parent:
            time.sleep(0.3)
        return real_monotonic()

    workers.time.monotonic = slow_monotonic  # type: ignore[assignment]
    return stop_kills_sigterm_ignorers()


def skips_strangers() -> Supervisor:
    """``waitpid`` first answers with a child the supervisor did not fork; workers exit 4."""
    real_waitpid = os.waitpid
    answers: list[Any] = [(999_999_999, 0)]  # a child of someone else's making, first

    def waitpid(pid: int, options: int) -> tuple[int, int]:
        return answers.pop(0) if answers else real_waitpid(pid, options)

    workers.os.waitpid = waitpid  # type: ignore[assignment]
    return Supervisor(lambda s: 4, listening_socket("127.0.0.1", 0), 1)


SCENARIOS: dict[str, Callable[[], Supervisor]] = {
    f.__name__: f
    for f in (
        quick_exits,
        serve_raises,
        long_lived_resets,
        stop_kills_sigterm_ignorers,
        stop_in_fork_window,
        skips_strangers,
    )
}


def _report(name: str) -> dict[str, Any]:
    """Run one scenario's supervisor in this process's main and only thread."""
    records = _Records()
    log = logging.getLogger(LOGGER_NAME)
    log.addHandler(records)
    log.setLevel(logging.INFO)
    threading.Timer = FiringTimer  # type: ignore[misc, assignment]
    supervisor = SCENARIOS[name]()
    previous = [signal.getsignal(s) for s in _STOPS]
    status = supervisor.run()
    return {
        "status": status,
        "logs": records.lines,
        "timers": FiringTimer.started,
        "sent": _sent,
        "workers": list(supervisor.workers),
        "handlers_restored": [signal.getsignal(s) for s in _STOPS] == previous,
        "socket_closed": supervisor.sock.fileno() == -1,
    }


def _fork_scenario(name: str, folder: Path) -> int:
    """A process of its own for one scenario, in a process group of its own (with its workers)."""
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        os.setpgid(0, 0)
        out = os.open(folder / f"{name}.err", os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        (folder / f"{name}.json").write_text(json.dumps(_report(name)))
        status = 0
    except BaseException:  # noqa: BLE001 - say why on the scenario's stderr
        traceback.print_exc()
    finally:
        os._exit(status)


def main(names: list[str], timeout_s: float = TIMEOUT_S) -> None:
    """Run each scenario in a forked process, all at once; print their results as one JSON line.

    Per scenario: ``report`` (:func:`_report`, or ``None``), ``stderr`` and ``timed_out`` (still
    running after ``timeout_s``: killed with its workers).
    """
    if threading.active_count() != 1:  # what the scenarios stand for: a single thread
        raise SystemExit(f"{threading.active_count()} threads before the runs")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        running = {_fork_scenario(name, folder): name for name in names}
        deadline = time.monotonic() + timeout_s
        while running and time.monotonic() < deadline:
            pid, _ = os.waitpid(-1, os.WNOHANG)
            if pid:
                running.pop(pid, None)
            else:
                time.sleep(0.01)
        for pid in running:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        results: dict[str, Any] = {}
        for name in names:
            report = folder / f"{name}.json"
            results[name] = {
                "report": json.loads(report.read_text()) if report.exists() else None,
                "stderr": (folder / f"{name}.err").read_text(),
                "timed_out": name in running.values(),
            }
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(SCENARIOS))

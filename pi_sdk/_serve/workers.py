"""Several server processes on one port: ``pi-sdk serve --workers N``.

The parent binds the listening socket once, then forks ``N`` workers that each run the whole
server (the same app, policy, limits and keys, built before the fork) on that socket: the
kernel hands each new connection to one of the workers that are waiting in ``accept()``.
The parent only supervises:

* a worker that dies (a crash, an OOM kill) is replaced at once, and logged; one that dies
  within :data:`QUICK_EXIT_S` of its start five times in a row stops the server (exit 1): it
  would only die again;
* SIGTERM or SIGINT (Ctrl-C) stops every worker gracefully (SIGTERM: uvicorn finishes the
  calls in flight), then the parent exits 0; a worker still there after ``grace_s`` is killed.

What the workers must share, they share through a store (the per-key rate limit and usage:
:class:`~pi_sdk._serve.usage_store.UsageStore`); anything else is per worker: the connection
cap and its counts (:class:`~pi_sdk._serve.limits.ServerLimits`) hold in each worker. POSIX
only (``fork``).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pi_sdk._serve.outcome_log import LOGGER_NAME

__all__ = ["QUICK_EXIT_S", "Supervisor", "listening_socket"]

_log = logging.getLogger(LOGGER_NAME)

QUICK_EXIT_S = 5.0
"""A worker that exits sooner than this after its start counts as failing to start."""

_QUICK_EXITS_ALLOWED = 5


def listening_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening, to share with the workers.

    Raises:
        OSError: the address is in use or cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


@dataclass
class Supervisor:
    """Fork ``count`` workers running ``serve(sock)`` and keep them running (module docstring).

    Args:
        serve: Runs one worker's server on the shared socket until it is stopped; returns the
            worker's exit status. Called in the forked child only.
        sock: The listening socket (:func:`listening_socket`).
        count: How many workers.
        grace_s: How long a stopping worker may take before it is killed.
    """

    serve: Callable[[socket.socket], int]
    sock: socket.socket
    count: int
    grace_s: float = 30.0
    workers: dict[int, float] = field(default_factory=dict[int, float])
    """Worker pid: its start time (``time.monotonic``)."""
    _stopping: bool = False
    _quick_exits: int = 0

    def run(self) -> int:
        """Start the workers and supervise them until a stop signal; the exit status."""
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            for _ in range(self.count):
                self._fork()
            return self._supervise()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.sock.close()

    def _fork(self) -> None:
        # A stop signal that came between the fork and the new worker's entry would miss that
        # worker (and the server would wait for it forever): the stop signals are held until
        # the worker is listed, then delivered.
        stops = {signal.SIGTERM, signal.SIGINT}
        held = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            raise
        if pid == 0:  # the worker
            status = 1
            try:
                for sig in stops:
                    signal.signal(sig, signal.SIG_DFL)  # uvicorn installs its own
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                status = self.serve(self.sock)
            except BaseException:  # noqa: BLE001 - say why, then leave without the parent's code
                import traceback

                traceback.print_exc()
            finally:
                os._exit(status)
        try:
            self.workers[pid] = time.monotonic()
            _log.info("worker %d started (%d of %d)", pid, len(self.workers), self.count)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def _supervise(self) -> int:
        status = 0
        while self.workers:
            try:
                pid, code = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            started = self.workers.pop(pid, None)
            if started is None:
                continue
            if self._stopping:
                continue
            _log.warning("worker %d ended (%s); starting another", pid, _describe(code))
            if time.monotonic() - started < QUICK_EXIT_S:
                self._quick_exits += 1
                if self._quick_exits >= _QUICK_EXITS_ALLOWED:
                    _log.error("workers keep ending as they start: stopping the server")
                    status = 1
                    self._stop(signal.SIGTERM, None)
                    continue
            else:
                self._quick_exits = 0
            self._fork()
        return status

    def _stop(self, signum: int, frame: object) -> None:
        """Stop every worker: SIGTERM now, SIGKILL after ``grace_s`` (in a timer thread)."""
        if self._stopping:
            return
        self._stopping = True
        for pid in list(self.workers):
            _signal(pid, signal.SIGTERM)
        import threading

        def kill_late() -> None:
            for pid in list(self.workers):
                _signal(pid, signal.SIGKILL)

        timer = threading.Timer(self.grace_s, kill_late)
        timer.daemon = True
        timer.start()


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _describe(code: int) -> str:
    if os.WIFSIGNALED(code):
        return f"killed by {signal.Signals(os.WTERMSIG(code)).name}"
    return f"exit status {os.waitstatus_to_exitcode(code)}"

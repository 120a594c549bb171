"""The supervisor of ``pi-sdk serve --workers N``, its whole logic run in this process.

``pi_sdk/_serve/workers.py`` sees a scripted system instead of the real one: its ``os``
(``fork`` hands out pids 101, 102, ... or ``0`` for the child's side; ``waitpid`` follows a
script of worker ends and stop signals; ``kill`` and ``_exit`` are recorded), its ``signal``
(the handlers and the signal mask are recorded, a stop signal calls the handler installed)
and its clock. No process is forked. What a user relies on: ``count`` workers, a dead one
replaced (and logged), five quick ends in a row stop the server with status 1 while a long-lived
worker resets that count, SIGTERM and SIGINT stop every worker (status 0, nothing restarted),
the stop signals held between a fork and the worker's listing, the parent's handlers and socket
put back and closed, and the child's side: default handlers, the mask released, ``serve``'s
status as the exit status (1 and a traceback when it raises).

The real forks (a worker's exit status, the stop reaching a worker in the fork window) are in
``test_worker_supervisor.py``.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from pi_sdk._serve import workers
from pi_sdk._serve.outcome_log import LOGGER_NAME
from pi_sdk._serve.workers import QUICK_EXIT_S, Supervisor, listening_socket

TERM, INT, KILL = signal.SIGTERM, signal.SIGINT, signal.SIGKILL
FIRST_PID = 101
OTHER_MASKED = signal.SIGUSR1
"""A signal the parent already holds: the mask a fork puts back is the one it found."""


class ChildExit(BaseException):  # noqa: N818 - stands for ``os._exit``
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Timer:
    """Stands in for ``threading.Timer``: only records (the kill after the grace period)."""

    made: list[Timer] = []

    def __init__(self, interval: float, function: Callable[[], None]) -> None:
        self.interval, self.function, self.daemon, self.started = interval, function, False, False
        Timer.made.append(self)

    def start(self) -> None:
        self.started = True


def ended(elapsed: float, code: int = 0, pid: int | None = None) -> tuple[str, Any]:
    """A script step: worker ``pid`` (the newest by default) ends ``elapsed`` s after its start."""
    return ("end", (pid, code, elapsed))


def stop(sig: int = TERM) -> tuple[str, Any]:
    """A script step: the parent gets ``sig`` (its handler runs) while it waits."""
    return ("signal", sig)


class System:
    """The ``os``, ``signal`` and ``time`` that :mod:`pi_sdk._serve.workers` sees."""

    def __init__(self, script: list[tuple[str, Any]], *, child: bool = False) -> None:
        self.script = list(script)
        self.child = child
        self.supervisor: Supervisor | None = None
        self.events: list[tuple[Any, ...]] = []
        self.kills: list[tuple[int, int]] = []
        self.next_pid = FIRST_PID
        self.now = 1000.0
        self.mask: set[int] = {OTHER_MASKED}
        self.handlers: dict[int, Any] = {TERM: "parent's TERM", INT: "parent's INT"}
        self.fork_error: BaseException | None = None
        self.os = SimpleNamespace(
            fork=self.fork,
            waitpid=self.waitpid,
            kill=self.kill,
            _exit=self.exit,
            WIFSIGNALED=os.WIFSIGNALED,
            WTERMSIG=os.WTERMSIG,
            waitstatus_to_exitcode=os.waitstatus_to_exitcode,
        )
        names = ("SIGTERM", "SIGINT", "SIGKILL", "SIG_BLOCK", "SIG_SETMASK", "SIG_DFL", "Signals")
        self.signal = SimpleNamespace(
            **{name: getattr(signal, name) for name in names},
            signal=self.set_handler,
            pthread_sigmask=self.pthread_sigmask,
        )
        self.time = SimpleNamespace(monotonic=self.monotonic)

    def fork(self) -> int:
        self.events.append(("fork", frozenset(self.mask)))
        if self.fork_error is not None:
            raise self.fork_error
        if self.child:
            return 0
        pid, self.next_pid = self.next_pid, self.next_pid + 1
        return pid

    def waitpid(self, pid: int, options: int) -> tuple[int, int]:
        assert (pid, options) == (-1, 0)  # any child, blocking
        while self.script:
            kind, value = self.script.pop(0)
            if kind == "signal":
                self.handlers[value](value, None)
                continue
            assert self.supervisor is not None
            who, code, elapsed = value
            who = max(self.supervisor.workers) if who is None else who
            self.now = self.supervisor.workers.get(who, self.now) + elapsed
            return who, code
        raise AssertionError("waited for a child after the script's end")

    def kill(self, pid: int, sig: int) -> None:
        self.kills.append((pid, sig))

    def exit(self, status: int) -> None:
        raise ChildExit(status)

    def set_handler(self, sig: int, handler: Any) -> Any:
        self.events.append(("handler", sig, handler))
        previous, self.handlers[sig] = self.handlers[sig], handler
        return previous

    def pthread_sigmask(self, how: int, sigs: set[int]) -> set[int]:
        self.events.append(("mask", how, frozenset(sigs)))
        previous = set(self.mask)
        if how == signal.SIG_BLOCK:
            self.mask |= set(sigs)
        else:
            assert how == signal.SIG_SETMASK
            self.mask = set(sigs)
        return previous

    def monotonic(self) -> float:
        self.events.append(("clock", frozenset(self.mask)))
        return self.now

    def forks(self) -> int:
        return sum(1 for e in self.events if e[0] == "fork")


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.levelno, record.getMessage()))

    def at(self, level: int) -> list[str]:
        return [m for lv, m in self.lines if lv == level]


@pytest.fixture
def records() -> Iterator[Records]:
    log = logging.getLogger(LOGGER_NAME)
    handler, level = Records(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    yield handler
    log.removeHandler(handler)
    log.setLevel(level)


@pytest.fixture
def sock() -> Iterator[socket.socket]:
    s = listening_socket("127.0.0.1", 0)
    yield s
    s.close()


@pytest.fixture
def system(monkeypatch: pytest.MonkeyPatch) -> Callable[..., System]:
    def make(script: list[tuple[str, Any]], *, child: bool = False) -> System:
        fake = System(script, child=child)
        monkeypatch.setattr(workers, "os", fake.os)
        monkeypatch.setattr(workers, "signal", fake.signal)
        monkeypatch.setattr(workers, "time", fake.time)
        monkeypatch.setattr(threading, "Timer", Timer)
        Timer.made = []
        return fake

    return make


def supervise(fake: System, sock: socket.socket, count: int, **options: Any) -> Supervisor:
    supervisor = Supervisor(lambda s: 0, sock, count, **options)
    fake.supervisor = supervisor
    return supervisor


@pytest.mark.parametrize("sig", [TERM, INT])
def test_count_workers_run_a_dead_one_is_replaced_and_a_stop_signal_ends_them_all(
    system: Callable[..., System], sock: socket.socket, records: Records, sig: int
):
    fake = system(
        [
            ended(60.0, code=KILL, pid=102),  # killed (an OOM kill) a minute after its start
            stop(sig),
            ended(0.0, pid=101),
            ended(0.0, pid=103, code=15),  # ends while stopping: no warning, no new worker
            ended(0.0, pid=104),
        ]
    )
    supervisor = supervise(fake, sock, 3)
    assert supervisor.run() == 0  # a stop asked for is a clean exit
    assert fake.forks() == 4
    assert records.at(logging.INFO) == [
        "worker 101 started (1 of 3)",
        "worker 102 started (2 of 3)",
        "worker 103 started (3 of 3)",
        "worker 104 started (3 of 3)",
    ]
    assert records.at(logging.WARNING) == ["worker 102 ended (killed by SIGKILL); starting another"]
    assert records.at(logging.ERROR) == []
    assert fake.kills == [(101, TERM), (103, TERM), (104, TERM)]  # SIGTERM whichever the signal
    assert [(t.interval, t.daemon, t.started) for t in Timer.made] == [(30.0, True, True)]
    assert supervisor.workers == {} and fake.script == []
    # the supervisor's own stop handler for both signals while it runs; the parent's put back
    handlers = [e[1:] for e in fake.events if e[0] == "handler"]
    assert handlers == [
        (TERM, supervisor._stop),  # pyright: ignore[reportPrivateUsage]
        (INT, supervisor._stop),  # pyright: ignore[reportPrivateUsage]
        (TERM, "parent's TERM"),
        (INT, "parent's INT"),
    ]
    assert fake.handlers == {TERM: "parent's TERM", INT: "parent's INT"}
    assert sock.fileno() == -1  # the parent's socket closed when it returns


def test_the_stop_signals_are_held_from_before_a_fork_until_the_worker_is_listed(
    system: Callable[..., System], sock: socket.socket
):
    fake = system([])
    supervisor = supervise(fake, sock, 1)
    supervisor._fork()  # pyright: ignore[reportPrivateUsage]
    stops = frozenset({TERM, INT})
    held = stops | {OTHER_MASKED}
    assert fake.events == [
        ("mask", signal.SIG_BLOCK, stops),
        ("fork", held),
        ("clock", held),  # the worker is listed with its start time, the signals still held
        ("mask", signal.SIG_SETMASK, frozenset({OTHER_MASKED})),  # the mask found, put back
    ]
    assert supervisor.workers == {FIRST_PID: 1000.0}


@pytest.mark.parametrize("error", [OSError(errno.EAGAIN, "no more processes"), KeyboardInterrupt()])
def test_a_fork_that_fails_releases_the_signals_and_the_run_ends_with_its_error(
    system: Callable[..., System], sock: socket.socket, error: BaseException
):
    fake = system([])
    fake.fork_error = error
    supervisor = supervise(fake, sock, 2)
    with pytest.raises(type(error)):
        supervisor.run()
    assert fake.mask == {OTHER_MASKED}
    assert fake.forks() == 1 and supervisor.workers == {}
    assert fake.handlers == {TERM: "parent's TERM", INT: "parent's INT"}
    assert sock.fileno() == -1


def _child(fake: System, sock: socket.socket, serve: Callable[[socket.socket], int]) -> int:
    """The child's side of a fork: ``os._exit``'s status."""
    supervisor = Supervisor(serve, sock, 2)
    stop_handler = supervisor._stop  # pyright: ignore[reportPrivateUsage]
    fake.handlers = {TERM: stop_handler, INT: stop_handler}  # the parent's, inherited
    with pytest.raises(ChildExit) as exited:
        supervisor._fork()  # pyright: ignore[reportPrivateUsage]
    assert supervisor.workers == {}  # a worker lists nothing
    assert fake.kills == []
    return exited.value.status


def test_a_worker_serves_with_default_handlers_and_no_held_signals_and_exits_with_its_status(
    system: Callable[..., System], sock: socket.socket
):
    fake = system([], child=True)
    seen: list[Any] = []

    def serve(s: socket.socket) -> int:
        seen.append((s, dict(fake.handlers), set(fake.mask)))
        return 3

    assert _child(fake, sock, serve) == 3
    # uvicorn installs its own handlers: the worker starts from the defaults, and the
    # stop signals held for the fork are released before it serves
    assert seen == [(sock, {TERM: signal.SIG_DFL, INT: signal.SIG_DFL}, {OTHER_MASKED})]
    order = [e[0] for e in fake.events]
    assert order == ["mask", "fork", "handler", "handler", "mask"]


@pytest.mark.parametrize("error", [LookupError("no app in this worker"), KeyboardInterrupt()])
def test_a_worker_whose_serve_raises_exits_1_with_its_traceback(
    system: Callable[..., System],
    sock: socket.socket,
    capsys: pytest.CaptureFixture[str],
    error: BaseException,
):
    def serve(s: socket.socket) -> int:
        raise error

    assert _child(system([], child=True), sock, serve) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last)")
    assert f"{type(error).__name__}" in err.splitlines()[-1]


QUICK = 4.9
LONG = 5.0  # exactly QUICK_EXIT_S after its start: not a quick exit


def test_a_quick_exit_is_one_within_5_seconds_of_the_start():
    assert QUICK_EXIT_S == LONG  # the rule the table below is written for


@pytest.mark.parametrize(
    ("lives", "stopped"),
    [
        ([QUICK] * 5, True),  # five quick ends in a row: stop
        ([QUICK] * 4, False),
        ([0.0] * 5, True),
        ([QUICK] * 4 + [LONG] + [QUICK] * 4, False),  # a long life resets the count
        ([QUICK] * 4 + [LONG] + [QUICK] * 5, True),
        ([QUICK] * 3 + [LONG * 20] + [QUICK] * 4 + [LONG], False),
    ],
)
def test_quick_ends_in_a_row_stop_the_server_with_status_1(
    system: Callable[..., System],
    sock: socket.socket,
    records: Records,
    lives: list[float],
    stopped: bool,
):
    # two workers: the newest keeps ending; the first (101) lives on until the stop
    script = [ended(life) for life in lives]
    if stopped:  # the supervisor stops the first worker
        script += [ended(0.0, pid=101)]
    else:  # the test stops both
        script += [stop(), ended(0.0), ended(0.0, pid=101)]
    fake = system(script)
    supervisor = supervise(fake, sock, 2, grace_s=2.5)
    assert supervisor.run() == (1 if stopped else 0)
    assert fake.forks() == 2 + len(lives) - stopped  # the end that stops it is not replaced
    assert records.at(logging.WARNING) == [
        f"worker {FIRST_PID + 1 + n} ended (exit status 0); starting another"
        for n in range(len(lives))
    ]
    said = ["workers keep ending as they start: stopping the server"]
    assert records.at(logging.ERROR) == (said if stopped else [])
    newest = FIRST_PID + 1 + len(lives)
    assert fake.kills == ([(101, TERM)] if stopped else [(101, TERM), (newest, TERM)])
    assert [t.interval for t in Timer.made] == [2.5]
    assert supervisor.workers == {} and fake.script == []  # every worker waited for


def test_a_child_it_did_not_fork_is_neither_replaced_nor_counted(
    system: Callable[..., System], sock: socket.socket, records: Records
):
    script = [ended(0.0, pid=999)] * 6 + [stop(), ended(0.0), ended(0.0)]
    fake = system(script)
    supervisor = supervise(fake, sock, 2)
    assert supervisor.run() == 0
    assert fake.forks() == 2
    assert records.at(logging.WARNING) == [] and records.at(logging.ERROR) == []
    assert supervisor.workers == {} and fake.script == []


def test_the_workers_end_state_while_stopping_is_not_a_crash(
    system: Callable[..., System], sock: socket.socket, records: Records
):
    fake = system([stop(INT), ended(0.0, pid=101, code=KILL), stop(TERM), ended(0.0, pid=102)])
    supervisor = supervise(fake, sock, 2)
    assert supervisor.run() == 0
    assert fake.forks() == 2 and records.at(logging.WARNING) == []
    assert fake.kills == [(101, TERM), (102, TERM)]  # the second signal: nothing more sent
    assert len(Timer.made) == 1


def test_the_listening_socket_is_shared_with_the_workers_and_reuses_the_address():
    sock = listening_socket("127.0.0.1", 0)
    try:
        assert sock.family == socket.AF_INET and sock.type == socket.SOCK_STREAM
        assert sock.get_inheritable()
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR) != 0
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_an_ipv6_host_gets_an_ipv6_socket():
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        sock = listening_socket("::1", 0)
    except OSError as exc:  # IPv6 present but ::1 not configured (some containers)
        pytest.skip(f"cannot bind ::1: {exc}")
    try:
        assert sock.family == socket.AF_INET6
        assert sock.getsockname()[0] == "::1"
    finally:
        sock.close()

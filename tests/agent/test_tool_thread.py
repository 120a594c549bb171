"""``run_in_daemon_thread``: a sync tool's own thread, awaited, abandoned when cancelled.

The result and the exception reach the awaiting task; the thread is a daemon named after the
tool and sees the caller's context variables; a cancelled wait leaves the thread behind with a
WARNING and drops its late result, also once the event loop has closed (nothing escapes the
thread). No sleeps: the tool functions wait on events the tests set.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from typing import Any

import pytest

from pi_sdk._agent.tool_thread import run_in_daemon_thread

_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("_VAR", default="unset")


class _NotAnException(BaseException):
    """Raised by a tool function: delivered too, not only ``Exception``."""


def _thread_named(name: str) -> threading.Thread:
    [thread] = [t for t in threading.enumerate() if t.name == name]
    return thread


class _Held:
    """A sync tool function held until :meth:`release`; what escapes its thread is kept."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.escaped: list[Any] = []
        monkeypatch.setattr(threading, "excepthook", self.escaped.append)
        self.entered, self.returned, self._release = (threading.Event() for _ in range(3))

    def __call__(self) -> str:
        self.entered.set()
        self._release.wait(10)
        self.returned.set()
        return "late"

    async def started(self) -> None:
        while not self.entered.is_set():
            await asyncio.sleep(0)

    def release(self, name: str) -> None:
        """Let the function return, and wait for its thread (``pi-sdk tool <name>``) to end."""
        thread = _thread_named(f"pi-sdk tool {name}")
        self._release.set()
        thread.join(10)
        assert self.returned.is_set() and not thread.is_alive()


async def test_the_result_comes_from_a_daemon_thread_named_after_the_tool_with_the_context():
    seen: dict[str, Any] = {}

    def work(a: int, b: int) -> int:
        thread = threading.current_thread()
        seen["name"], seen["daemon"], seen["var"] = thread.name, thread.daemon, _VAR.get()
        seen["main"] = thread is threading.main_thread()
        return a * b

    _VAR.set("caller's value")
    assert await asyncio.wait_for(run_in_daemon_thread("mul", work, a=6, b=7), 10) == 42
    assert seen == {
        "name": "pi-sdk tool mul",
        "daemon": True,
        "var": "caller's value",
        "main": False,
    }


@pytest.mark.parametrize("error", [ValueError("bad input"), _NotAnException("stop")])
async def test_what_the_function_raises_is_raised_to_the_caller(error: BaseException):
    def work() -> None:
        raise error

    with pytest.raises(type(error)) as caught:
        await asyncio.wait_for(run_in_daemon_thread("raiser", work), 10)
    assert caught.value is error


async def test_a_cancelled_wait_leaves_the_thread_behind_and_drops_its_result(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    work = _Held(monkeypatch)
    caplog.set_level(logging.WARNING, logger="pi_sdk._agent.tool_thread")
    task = asyncio.ensure_future(run_in_daemon_thread("stuck", work))
    await work.started()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert "'stuck'" in record.getMessage() and "left behind" in record.getMessage()
    assert _thread_named("pi-sdk tool stuck").is_alive()
    work.release("stuck")
    for _ in range(3):  # the hand-off to the loop runs (and finds nobody waiting)
        await asyncio.sleep(0)
    assert not work.escaped


async def test_a_cancelled_wait_on_a_finished_thread_warns_nothing(
    caplog: pytest.LogCaptureFixture,
):
    done = threading.Event()

    def work() -> str:
        done.set()
        return "quick"

    caplog.set_level(logging.WARNING, logger="pi_sdk._agent.tool_thread")
    task = asyncio.ensure_future(run_in_daemon_thread("quick", work))
    await asyncio.sleep(0)  # the thread started
    done.wait(10)
    for thread in [t for t in threading.enumerate() if t.name == "pi-sdk tool quick"]:
        thread.join(10)
    task.cancel()  # before the hand-off ran: the thread is gone, nothing is left behind
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not caplog.records


def test_a_result_after_the_event_loop_closed_is_dropped_quietly(monkeypatch: pytest.MonkeyPatch):
    work = _Held(monkeypatch)

    async def main() -> None:
        task = asyncio.ensure_future(run_in_daemon_thread("orphan", work))
        await work.started()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    work.release("orphan")  # the hand-off now finds the loop closed
    assert not work.escaped

"""``AbortController`` / ``AbortSignal`` (``pi_sdk/_wire/abort.py``) rule by rule: one abort,
its first reason, callbacks once each (or never, once removed), and ``wait``."""

from __future__ import annotations

import asyncio

from pi_sdk import AbortController


def test_an_abort_happens_once_with_its_first_reason() -> None:
    controller = AbortController()
    signal = controller.signal
    assert (signal.aborted, signal.reason) == (False, None)
    calls: list[str] = []
    signal.add_callback(lambda: calls.append("a"))
    controller.abort("user stopped")
    controller.abort("again")  # idempotent: nothing changes, nothing runs twice
    assert (signal.aborted, signal.reason) == (True, "user stopped")
    assert calls == ["a"]


def test_callbacks_run_in_order_and_a_removed_one_never_runs() -> None:
    controller = AbortController()
    calls: list[str] = []
    controller.signal.add_callback(lambda: calls.append("first"))
    remove = controller.signal.add_callback(lambda: calls.append("removed"))
    controller.signal.add_callback(lambda: calls.append("last"))
    remove()
    remove()  # twice is harmless
    controller.abort()
    assert calls == ["first", "last"]


def test_a_callback_added_after_the_abort_runs_at_once() -> None:
    controller = AbortController()
    controller.abort()
    calls: list[str] = []
    remove = controller.signal.add_callback(lambda: calls.append("late"))
    assert calls == ["late"]
    remove()  # a no-op remover
    assert controller.signal.reason is None  # abort() without a reason


async def test_wait_returns_at_the_abort_and_leaves_no_callback_behind() -> None:
    controller = AbortController()
    signal = controller.signal
    waiter = asyncio.ensure_future(signal.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    controller.abort("stop")
    await asyncio.wait_for(waiter, 1)
    await asyncio.wait_for(signal.wait(), 1)  # already aborted: returns at once

    other = AbortController()
    cancelled = asyncio.ensure_future(other.signal.wait())
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    calls: list[str] = []
    other.signal.add_callback(lambda: calls.append("x"))
    other.abort()
    assert calls == ["x"]  # the cancelled wait's callback was removed, not run

"""The CLI says when an answer is slow to start (issue 31, item 5: no long silent wait).

The listener's clock is a fake scheduler here: each test fires the pending timer itself, so
nothing depends on how busy the machine is.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from pi_sdk._cli.waiting import WaitNotes


class _Clock:
    """``call_later`` that keeps the pending timer for the test to fire."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[..., Any], Any, SimpleNamespace]] = []

    def __call__(self, delay: float, callback: Callable[..., Any], arg: Any) -> SimpleNamespace:
        handle = SimpleNamespace(cancelled=False)
        handle.cancel = lambda: setattr(handle, "cancelled", True)
        self.pending.append((delay, callback, arg, handle))
        return handle

    def live(self) -> list[float]:
        return [delay for delay, _, _, handle in self.pending if not handle.cancelled]

    def fire(self) -> None:
        [(_, callback, arg, handle)] = [p for p in self.pending if not p[3].cancelled]
        handle.cancelled = True  # a fired timer is done
        callback(arg)


def _event(kind: str, role: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(type=kind, message=SimpleNamespace(role=role))


def _notes() -> tuple[WaitNotes, _Clock, list[str]]:
    clock, lines = _Clock(), []
    return WaitNotes(lines.append, lambda: "anthropic/claude-x", call_later=clock), clock, lines


def test_notes_after_10_then_20_then_40_seconds_until_the_answer_starts() -> None:
    notes, clock, lines = _notes()
    notes(_event("agent_start"))
    assert clock.live() == []
    notes(_event("turn_start"))  # the request is about to be sent
    assert clock.live() == [10.0]
    notes(_event("message_end", "user"))  # the prompt itself: still waiting
    clock.fire()
    assert lines == ["anthropic/claude-x: no answer yet after 10 s (Ctrl-C aborts)"]
    assert clock.live() == [10.0]
    clock.fire()
    assert lines[-1] == "anthropic/claude-x: no answer yet after 20 s (Ctrl-C aborts)"
    assert clock.live() == [20.0]
    notes(_event("message_update"))  # the first piece of the answer
    assert clock.live() == []
    assert len(lines) == 2


def test_each_turn_starts_its_own_clock_and_the_ends_stop_it() -> None:
    for end in (_event("message_end", "assistant"), _event("agent_end")):
        notes, clock, lines = _notes()
        notes(_event("turn_start"))
        notes(end)
        assert clock.live() == [], end.type
    notes, clock, lines = _notes()
    notes(_event("turn_start"))
    clock.fire()
    notes(_event("message_end", "assistant"))  # tool calls: the tools run, silently expected
    assert clock.live() == []
    notes(_event("turn_start"))  # the next model call counts from 0 again
    clock.fire()
    assert lines[-1].endswith("after 10 s (Ctrl-C aborts)")


def test_a_new_turn_replaces_the_clock_of_one_still_waiting() -> None:
    notes, clock, lines = _notes()
    notes(_event("turn_start"))
    clock.fire()  # 10 s waited
    notes(_event("turn_start"))  # no sign of the answer, yet a new model call starts
    assert clock.live() == [10.0]  # one clock, from 0 again
    clock.fire()
    assert lines == ["anthropic/claude-x: no answer yet after 10 s (Ctrl-C aborts)"] * 2


def test_the_first_note_comes_after_10_seconds_by_default_on_the_running_loop() -> None:
    import asyncio

    async def run() -> list[float]:
        loop = asyncio.get_running_loop()
        delays: list[float] = []
        real = loop.call_later

        def call_later(delay: float, callback: Any, *args: Any) -> Any:
            delays.append(delay)
            return real(delay, callback, *args)

        loop.call_later = call_later  # type: ignore[method-assign]
        notes = WaitNotes(lambda line: None, lambda: "m")
        notes(_event("turn_start"))
        notes(_event("agent_end"))
        return delays

    assert asyncio.run(run()) == [10.0]

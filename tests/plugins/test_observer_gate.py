"""``gate_observers``: observers are told only what a gate lets through, inside its scope.

The run or call itself is never affected; the gate is a ``ContextVar`` (the tasks a gated block
starts inherit it, code outside never sees it). ``pi-sdk-temporal`` is the user: no observer
while a workflow replays (``tests/temporal/test_temporal_otel.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import pi_sdk
from pi_sdk._plugins.observers import agent_event_observers, notify_agent_event, start_model_call
from pi_sdk.plugins import gate_observers, hookimpl
from pi_sdk.testing import ScriptedProvider


class _Log:
    """What observers saw, and whether each saw it inside the gate's scope."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self.depth = 0

    @contextmanager
    def scope(self) -> Iterator[None]:
        self.entries.append("enter")
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.entries.append("exit")

    def saw(self, what: str) -> None:
        self.entries.append(f"{what}{'(in)' if self.depth else ''}")


def _observers(plugin_manager: Any, log: _Log) -> None:
    class Events:
        @hookimpl
        def on_agent_event(self, event: Any) -> None:
            log.saw(event.type)

    class Calls:
        @hookimpl
        def on_model_call(self, model: Any) -> Any:
            log.saw("call")
            return lambda message: log.saw(f"finish:{message.stop_reason}")

    plugin_manager.register(Events(), name="events")
    plugin_manager.register(Calls(), name="calls")


_MODEL = pi_sdk.Model(id="m", api="a", provider="p")


def _reply(stop_reason: Any) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(api="a", provider="p", model="m", stop_reason=stop_reason)


async def test_a_gate_that_returns_none_skips_every_agent_event_observer(plugin_manager: Any):
    log = _Log()
    _observers(plugin_manager, log)
    event = pi_sdk.agent.AgentStartEvent()
    with gate_observers(lambda: None):
        await notify_agent_event(agent_event_observers(), event, "run-1", _MODEL)
    assert log.entries == []
    await notify_agent_event(agent_event_observers(), event, "run-1", _MODEL)  # gate gone
    assert log.entries == ["agent_start"]


async def test_observers_run_inside_the_scope_the_gate_returns(plugin_manager: Any):
    log = _Log()
    _observers(plugin_manager, log)
    asked: list[str] = []

    def gate() -> Any:
        asked.append("asked")
        return log.scope()

    with gate_observers(gate):
        await notify_agent_event(
            agent_event_observers(), pi_sdk.agent.AgentEndEvent(messages=[]), "r", _MODEL
        )
    assert log.entries == ["enter", "agent_end(in)", "exit"]
    assert asked == ["asked"]  # once per event, not per observer


def test_a_model_call_the_gate_skips_has_no_observer_and_nothing_to_finish(plugin_manager: Any):
    log = _Log()
    _observers(plugin_manager, log)
    context, options = pi_sdk.Context(messages=[]), pi_sdk.StreamOptions()
    with gate_observers(lambda: None):
        assert start_model_call(_MODEL, context, options, None) is None
    assert log.entries == []


def test_a_model_call_the_gate_lets_start_is_finished_even_if_it_closes_later(
    plugin_manager: Any,
):
    log = _Log()
    _observers(plugin_manager, log)
    context, options = pi_sdk.Context(messages=[]), pi_sdk.StreamOptions()
    open_ = [True]
    with gate_observers(lambda: log.scope() if open_[0] else None):
        finish = start_model_call(_MODEL, context, options, None)
        assert finish is not None
        finish(_reply("stop"))
        open_[0] = False
        finish(_reply("length"))  # started: still finished
    assert log.entries == [
        "enter",
        "call(in)",
        "exit",
        "enter",
        "finish:stop(in)",
        "exit",
        "finish:length",
    ]


def test_a_gated_call_without_a_finishing_observer_has_nothing_to_finish(plugin_manager: Any):
    class Quiet:
        @hookimpl
        def on_model_call(self, model: Any) -> None:
            return None

    plugin_manager.register(Quiet(), name="quiet")
    context, options = pi_sdk.Context(messages=[]), pi_sdk.StreamOptions()
    log = _Log()
    with gate_observers(log.scope):
        assert start_model_call(_MODEL, context, options, None) is None
    assert log.entries == ["enter", "exit"]


async def test_an_agent_run_under_a_gate_is_observed_only_while_the_gate_is_open(
    plugin_manager: Any,
):
    """The gate is asked per event: a run observed from the middle (a replay that catches up)."""
    log = _Log()
    _observers(plugin_manager, log)
    provider = ScriptedProvider(["one", "two"])
    agent = pi_sdk.Agent(model=provider.model)
    live = [False]
    with gate_observers(lambda: log.scope() if live[0] else None):
        await agent.prompt("first")
        live[0] = True
        await agent.prompt("second")
    assert [m.text for m in agent.messages if isinstance(m, pi_sdk.AssistantMessage)] == [
        "one",
        "two",
    ]  # the run is whole whatever the gate says
    seen = [e for e in log.entries if e not in ("enter", "exit")]
    assert seen[0] == "agent_start(in)" and seen[-1] == "agent_end(in)"
    assert seen.count("agent_start(in)") == 1 and seen.count("call(in)") == 1
    assert "finish:stop(in)" in seen and all(e.endswith("(in)") for e in seen)
    assert log.entries.count("enter") == log.entries.count("exit") == len(seen)


async def test_the_gate_reaches_tasks_started_inside_its_block_and_nothing_outside(
    plugin_manager: Any,
):
    log = _Log()
    _observers(plugin_manager, log)
    event = pi_sdk.agent.AgentStartEvent()

    async def notify() -> None:
        await notify_agent_event(agent_event_observers(), event, "r", _MODEL)

    with gate_observers(lambda: None):
        inside = asyncio.create_task(notify())
    outside = asyncio.create_task(notify())
    await asyncio.gather(inside, outside)
    assert log.entries == ["agent_start"]  # only the task started outside the block


async def test_an_observer_that_raises_inside_the_scope_still_closes_it(
    plugin_manager: Any, caplog: pytest.LogCaptureFixture
):
    class Broken:
        @hookimpl
        def on_agent_event(self, event: Any) -> None:
            raise RuntimeError("observer bug")

    plugin_manager.register(Broken(), name="broken")
    log = _Log()
    with gate_observers(log.scope):
        await notify_agent_event(
            agent_event_observers(), pi_sdk.agent.AgentStartEvent(), "r", _MODEL
        )
    assert log.entries == ["enter", "exit"]
    assert [r.getMessage() for r in caplog.records] == [
        "observer hook 'on_agent_event' of plugin 'broken' failed; ignored"
    ]

"""The agent's event stream in every state: iterated, as a context manager, broken, dropped.

:class:`pi_sdk._agent.loop.AgentEventStream` (pi-mono ``agentLoop``'s ``EventStream``): one
consumer at a time; ``async with`` returns the stream and stops an unfinished run on leaving;
a run that breaks (a configuration error raised inside it) raises that error from iteration
(after the events it emitted) and from ``result()``; a stream dropped before its run ended
cancels the run. Also the loop's states around one model call that the plain scripted
provider never reaches: a stream that sends no ``start`` event, a ``convert_to_llm`` whose
messages need validating, and the run's coroutine closed while the model is streaming.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, kinds, user  # noqa: F401

import pi_sdk
from pi_sdk import AgentContext, AgentTool, AgentToolResult, agent_loop
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def _hanging(started: asyncio.Event, stopped: list[str]) -> AgentTool:
    async def execute(call_id, args, signal, on_update):
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.append(call_id)
        return AgentToolResult.text("never")

    return AgentTool(name="wait", description="Wait.", parameters={}, execute=execute)


def _waiting_run() -> tuple[Any, asyncio.Event, list[str]]:
    started, stopped = asyncio.Event(), []
    provider = ScriptedProvider([ScriptedReply.tool_call("wait"), "never"])
    stream = agent_loop(
        [user("go")], AgentContext(tools=[_hanging(started, stopped)]), config(provider)
    )
    return stream, started, stopped


async def test_a_stream_has_one_consumer_at_a_time():
    provider = ScriptedProvider(["Hi!"])
    stream = agent_loop([user("hi")], AgentContext(), config(provider))
    first = stream.__aiter__()
    with pytest.raises(RuntimeError) as raised:
        stream.__aiter__()
    assert str(raised.value) == "this agent event stream is already being iterated"
    events = [event async for event in first]
    assert events[-1].type == "agent_end"


async def test_async_with_gives_the_stream_and_a_finished_run_keeps_its_result():
    provider = ScriptedProvider(["Hi!"])
    stream = agent_loop([user("hi")], AgentContext(), config(provider))
    async with stream as events:
        assert events is stream
        seen = [event.type async for event in events]
    assert seen[-1] == "agent_end"
    assert [m.role for m in await stream.result()] == ["user", "assistant"]


async def test_leaving_async_with_early_stops_the_run():
    stream, started, stopped = _waiting_run()
    async with stream:
        await asyncio.wait_for(started.wait(), 5)
    assert stopped == ["call_1"]  # the running tool was cancelled
    with pytest.raises(asyncio.CancelledError):
        await stream.result()


async def test_a_run_that_breaks_raises_its_error_from_iteration_and_result():
    """A bug inside the run (here: no context at all) is raised, never a hang."""
    stream = agent_loop([user("hi")], None, config(ScriptedProvider([])))  # type: ignore[arg-type]
    seen: list[str] = []
    with pytest.raises(AttributeError) as raised:
        async for event in stream:
            seen.append(event.type)
    assert seen == []
    with pytest.raises(AttributeError) as again:
        await stream.result()
    assert again.value is raised.value


async def test_a_stream_dropped_before_its_run_ended_cancels_the_run(caplog):
    """Cancelled, not destroyed while pending: nothing is logged (asyncio would, at ERROR)."""
    caplog.set_level(logging.DEBUG)
    stream, started, stopped = _waiting_run()
    await asyncio.wait_for(started.wait(), 5)
    del stream
    gc.collect()
    for _ in range(20):
        await asyncio.sleep(0)
    gc.collect()
    assert stopped == ["call_1"]
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


# --- one model call: states the scripted provider does not reach -----------------------------


async def test_a_stream_without_a_start_event_is_announced_when_it_ends():
    provider = ScriptedProvider(["Hi!"])

    async def only_the_end(model, context, options) -> AsyncIterator[Any]:
        async for event in provider.stream_fn(model, context, options):
            if event.type in ("done", "error"):
                yield event

    stream = agent_loop([user("hi")], AgentContext(), config(provider), stream_fn=only_the_end)
    events = await collect(stream)
    assert kinds(events, updates=True) == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    start, end = events[4], events[5]
    assert start.message is end.message and end.message.content[0].text == "Hi!"
    assert [m.role for m in await stream.result()] == ["user", "assistant"]


async def test_messages_a_convert_to_llm_hook_gives_as_data_are_validated():
    provider = ScriptedProvider(["Hi!"])

    def convert(messages: list[Any]) -> list[Any]:
        return [{"role": "user", "content": "as data", "timestamp": 5}]

    stream = agent_loop([user("hi")], AgentContext(), config(provider, convert_to_llm=convert))
    await collect(stream)
    (sent,) = provider.calls[0].context.messages
    assert sent == pi_sdk.UserMessage(content="as data", timestamp=5)


@pytest.mark.parametrize("elsewhere", [False, True])
async def test_closing_the_run_while_the_model_streams_exits_cleanly(caplog, elsewhere):
    """Also in another context than the run's (the garbage collector closes a dropped run's
    coroutine wherever it runs): the run's ``current_run_id`` token cannot be reset there, and
    that must not escape the close."""
    from pi_sdk._plugins.observers import current_run_id

    provider = ScriptedProvider([ScriptedReply.until_aborted([pi_sdk.TextContent(text="Hel")])])
    updates = asyncio.Event()
    seen: list[str] = []

    async def sink(event):
        seen.append(event.type)
        if event.type == "message_update":
            updates.set()

    coro = run_agent_loop([user("go")], AgentContext(), config(provider), sink)
    caplog.set_level(logging.INFO, logger="pi_sdk._agent.agent")
    run_context = contextvars.copy_context() if elsewhere else None
    waiting = asyncio.ensure_future(updates.wait())
    while not updates.is_set():
        awaited = coro.send(None) if run_context is None else run_context.run(coro.send, None)
        if awaited is None:
            await asyncio.sleep(0)
        else:
            await asyncio.wait([awaited, waiting], return_when=asyncio.FIRST_COMPLETED)
    if run_context is not None:
        assert run_context[current_run_id] is not None  # the run set its id in its context
    coro.close()  # what the garbage collector does to a dropped task's coroutine
    assert current_run_id.get() is None
    assert "agent_end" not in seen
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert "closed before its end" in caplog.text


def test_a_stream_collected_after_its_event_loop_closed_does_not_raise():
    """``__del__`` cancels an unfinished run; on a closed loop there is nothing left to stop."""
    provider = ScriptedProvider([ScriptedReply.until_aborted([pi_sdk.TextContent(text="Hel")])])
    loop = asyncio.new_event_loop()

    async def start() -> Any:
        stream = agent_loop([user("go")], AgentContext(), config(provider))
        for _ in range(20):  # let the run reach the model call, where it waits
            await asyncio.sleep(0)
        return stream

    try:
        stream = loop.run_until_complete(start())
    finally:
        loop.close()
    task = stream._task
    assert not task.done()
    stream.__del__()  # what collecting it runs: task.cancel() raises on the closed loop
    assert not task.done()
    stream._task = None  # type: ignore[assignment]  # nothing left for the real finalizer

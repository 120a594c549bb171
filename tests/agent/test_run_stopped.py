"""A run stopped from outside is not a failure: no ERROR log, and a closed coroutine exits cleanly.

The defect: a Temporal worker that evicts a workflow from its cache cancels its tasks and drops
the ones left, and Python closes a dropped coroutine (``GeneratorExit`` at its await). The loop
then awaited the cancelled tool tasks while closing ("coroutine ignored GeneratorExit"), caught
that ``RuntimeError`` as a failure and logged "agent run failed" at ERROR.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from _support.agent import config, isolated_plugins, user  # noqa: F401

import pi_sdk
from pi_sdk import AgentContext, AgentTool, AgentToolResult, agent_loop
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk.testing import ScriptedProvider, ScriptedReply

LOGGER = "pi_sdk._agent.agent"


def _hanging_tools(started: asyncio.Event, stopped: list[str]) -> list[AgentTool]:
    async def execute(call_id, args, signal, on_update):
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.append(call_id)
        return AgentToolResult.text("never")

    return [AgentTool(name="wait", description="", parameters={}, execute=execute)]


def _provider() -> ScriptedProvider:
    calls = [pi_sdk.ToolCall(id=f"tool-{n}", name="wait", arguments={}) for n in (1, 2)]
    return ScriptedProvider([ScriptedReply(content=calls), "never"])


async def _drive_until(coro: Any, done: asyncio.Event) -> None:
    """Step ``coro`` by hand (as a task would) until ``done`` is set; leave it suspended."""
    waiting = asyncio.ensure_future(done.wait())
    while not done.is_set():
        awaited = coro.send(None)
        if awaited is None:
            await asyncio.sleep(0)
        else:
            await asyncio.wait([awaited, waiting], return_when=asyncio.FIRST_COMPLETED)


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_closing_a_run_mid_tool_batch_exits_cleanly_without_an_error_log(mode, caplog):
    started, stopped = asyncio.Event(), []
    provider = _provider()
    events: list[str] = []

    async def sink(event):
        events.append(event.type)

    coro = run_agent_loop(
        [user("go")],
        AgentContext(tools=_hanging_tools(started, stopped)),
        config(provider, tool_execution=mode),
        sink,
    )
    caplog.set_level(logging.INFO, logger=LOGGER)
    await _drive_until(coro, started)
    coro.close()  # what the garbage collector does to a dropped task's coroutine
    await asyncio.sleep(0.01)  # the cancelled tool tasks finish
    assert stopped  # the running tool was cancelled, not left running
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert "closed before its end" in caplog.text and "not a failure" in caplog.text
    assert "agent_end" not in events  # the run did not pretend to end


async def test_cancelling_a_run_logs_a_cancellation_not_a_failure(caplog):
    started, stopped = asyncio.Event(), []
    caplog.set_level(logging.INFO, logger=LOGGER)
    stream = agent_loop(
        [user("go")], AgentContext(tools=_hanging_tools(started, stopped)), config(_provider())
    )
    await asyncio.wait_for(started.wait(), 5)
    await stream.aclose()
    assert sorted(stopped) == ["tool-1", "tool-2"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    (record,) = [r for r in caplog.records if "agent run" in r.getMessage()]
    assert record.levelno == logging.INFO and "cancelled" in record.getMessage()


async def test_an_agent_whose_prompt_task_is_cancelled_logs_no_error(caplog):
    started, stopped = asyncio.Event(), []
    provider = _provider()
    agent = pi_sdk.Agent(
        model=provider.model, tools=_hanging_tools(started, stopped), tool_abort_grace_ms=20
    )
    caplog.set_level(logging.INFO, logger=LOGGER)
    task = asyncio.ensure_future(agent.prompt("go"))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not agent.is_running and sorted(stopped) == ["tool-1", "tool-2"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert agent.messages[-1].stop_reason == "aborted"  # the abort wound the run down


async def test_aclose_waits_for_the_awaited_parallel_call_to_finish_its_cleanup():
    # Both calls clean up over several turns of the loop; aclose returns after both (the batch
    # gathers every cancelled call, and each call waits, up to the grace period, for its tool).
    running: set[str] = set()
    both, stopped = asyncio.Event(), []

    async def execute(call_id, args, signal, on_update):
        running.add(call_id)
        if len(running) == 2:
            both.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            for _ in range(5):  # a cleanup that takes a few turns
                await asyncio.sleep(0)
            stopped.append(call_id)
            raise
        return AgentToolResult.text("never")

    tools = [AgentTool(name="wait", description="", parameters={}, execute=execute)]
    stream = agent_loop([user("go")], AgentContext(tools=tools), config(_provider()))
    await asyncio.wait_for(both.wait(), 5)
    await stream.aclose()
    assert sorted(stopped) == ["tool-1", "tool-2"]  # none still cleaning up after aclose


async def test_aclose_waits_no_longer_than_the_grace_for_tools_that_swallow_the_cancel():
    # The wait for a cancelled tool's cleanup is bounded by the abort grace (0 here): aclose
    # returns while both tools still swallow their cancellation, each cancelled exactly once.
    release, both = asyncio.Event(), asyncio.Event()
    cancels: list[str] = []
    running: set[str] = set()

    async def execute(call_id, args, signal, on_update):
        running.add(call_id)
        if len(running) == 2:
            both.set()
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                cancels.append(call_id)  # swallowed: keeps waiting
        return AgentToolResult.text("late")

    tools = [AgentTool(name="wait", description="", parameters={}, execute=execute)]
    stream = agent_loop(
        [user("go")], AgentContext(tools=tools), config(_provider(), tool_abort_grace_ms=0)
    )
    await asyncio.wait_for(both.wait(), 5)
    try:
        await asyncio.wait_for(stream.aclose(), 5)
        assert sorted(cancels) == ["tool-1", "tool-2"]
    finally:
        release.set()  # never leave them waiting: the test's event loop could not close
    for _ in range(3):
        await asyncio.sleep(0)

"""A tool that ignores the abort signal cannot hold the agent (issue 15 item 2).

After ``abort()`` (or cancelling the task awaiting ``prompt()``) a running tool gets
``tool_abort_grace_ms`` to stop; then its task is cancelled, a sync function's thread is left
behind with a warning, the call gets an error result saying so, the run ends ``aborted`` and the
transcript saves and continues on another provider. The tools here sleep 20 s: the bounds
asserted (5 s) only tell "gave up on the tool" from "waited for it".
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import pytest
from _support.agent import isolated_plugins, roles, text_of  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk import AssistantMessage, ToolResultMessage
from pi_sdk._agent.session import dumps_session, loads_session
from pi_sdk.testing import ScriptedProvider, ScriptedReply

GRACE_MS = 200
BOUND_S = 5.0  # far below the tools' 20 s


@pi_sdk.tool
async def stubborn() -> str:
    """Sleep 20 s, never looking at the abort signal."""
    await asyncio.sleep(20)
    return "finished"


@pi_sdk.tool
def stubborn_sync() -> str:
    """Block a thread for 20 s, never looking at the abort signal."""
    time.sleep(20)
    return "finished"


def _agent(tool: pi_sdk.AgentTool) -> tuple[pi_sdk.Agent, ScriptedProvider]:
    provider = ScriptedProvider([ScriptedReply.tool_call(tool.name), "never"])
    agent = pi_sdk.Agent(model=provider.model, tools=[tool], tool_abort_grace_ms=GRACE_MS)
    return agent, provider


async def _started(agent: pi_sdk.Agent) -> None:
    while not agent.state.pending_tool_calls:
        await asyncio.sleep(0.001)


def _check_outcome(agent: pi_sdk.Agent, provider: ScriptedProvider) -> None:
    assert roles(agent.messages) == ["user", "assistant", "toolResult", "assistant"]
    result, last = agent.messages[2], agent.messages[3]
    assert isinstance(result, ToolResultMessage) and result.is_error
    assert "did not stop within 0.2 s after the run was aborted" in text_of(result)
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    assert len(provider.calls) == 1  # no model call after the abort


async def _continue_on_another_provider(messages: list[Any]) -> pi_sdk.Agent:
    other = ScriptedProvider(["Sorry, that tool hung."])
    agent = pi_sdk.Agent(
        model=other.model, messages=loads_session(dumps_session(messages)).messages
    )
    await agent.continue_()  # retries the aborted turn
    sent = other.calls[0].messages
    assert roles(sent) == ["user", "assistant", "toolResult"]
    assert text_of(agent.messages[-1]) == "Sorry, that tool hung."
    return agent


async def test_abort_gives_control_back_within_the_grace_period() -> None:
    agent, provider = _agent(stubborn)
    run = asyncio.create_task(agent.prompt("go"))
    await _started(agent)
    start = time.monotonic()
    agent.abort()
    await asyncio.wait_for(run, BOUND_S)
    assert time.monotonic() - start < BOUND_S
    _check_outcome(agent, provider)
    await _continue_on_another_provider(list(agent.messages))


async def test_cancelling_the_prompt_task_gives_control_back_within_the_grace_period() -> None:
    agent, provider = _agent(stubborn)
    run = asyncio.create_task(agent.prompt("go"))
    await _started(agent)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(run, BOUND_S)
    assert not agent.is_running
    _check_outcome(agent, provider)
    await _continue_on_another_provider(list(agent.messages))


def test_a_sync_tool_is_left_behind_and_asyncio_run_does_not_hang(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcome: dict[str, Any] = {}

    async def main(cancel: bool) -> None:
        agent, provider = _agent(stubborn_sync)
        run = asyncio.create_task(agent.prompt("go"))
        await _started(agent)
        await asyncio.sleep(0.05)  # the thread is sleeping
        if cancel:
            run.cancel()
        else:
            agent.abort()
        await asyncio.gather(run, return_exceptions=True)
        outcome["agent"], outcome["provider"] = agent, provider

    caplog.set_level(logging.WARNING, logger="pi_sdk.agent")
    for cancel in (False, True):
        start = time.monotonic()
        finished = threading.Event()

        def target(cancel: bool = cancel, finished: threading.Event = finished) -> None:
            asyncio.run(main(cancel))  # returns at once: the tool's thread is not joined
            finished.set()

        threading.Thread(target=target, daemon=True).start()
        assert finished.wait(BOUND_S), "asyncio.run did not return"
        assert time.monotonic() - start < BOUND_S
        _check_outcome(outcome["agent"], outcome["provider"])
        asyncio.run(_continue_on_another_provider(list(outcome["agent"].messages)))
    left_behind = [r for r in caplog.records if "left behind" in r.getMessage()]
    assert len(left_behind) == 2 and "stubborn_sync" in left_behind[0].getMessage()


async def test_a_tool_that_honours_the_signal_keeps_its_own_result() -> None:
    @pi_sdk.tool
    async def polite(signal: pi_sdk.AbortSignal) -> str:
        """Stop when aborted."""
        await signal.wait()
        return "stopped cleanly"

    agent, _ = _agent(polite)
    run = asyncio.create_task(agent.prompt("go"))
    await _started(agent)
    agent.abort()
    await asyncio.wait_for(run, BOUND_S)
    result = agent.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert not result.is_error and text_of(result) == "stopped cleanly"


async def test_waiting_on_tools_leaves_no_callback_on_the_signal_or_the_tool() -> None:
    """Each call's wait hooks the run's abort signal and the tool's task; both hooks go when the
    tool ends, so a long run does not collect one per tool call."""
    from pi_sdk._agent.tool_calls import _first_of  # pyright: ignore[reportPrivateUsage]
    from pi_sdk._wire.abort import AbortController

    controller = AbortController()
    signal = controller.signal
    for _ in range(50):
        task = asyncio.ensure_future(asyncio.sleep(0))
        await _first_of(task, signal)
        assert task.done()
        assert signal._callbacks == []  # pyright: ignore[reportPrivateUsage]
    slow = asyncio.ensure_future(asyncio.sleep(20))
    waiting = asyncio.ensure_future(_first_of(slow, signal))
    await asyncio.sleep(0)
    assert len(signal._callbacks) == 1  # pyright: ignore[reportPrivateUsage]
    controller.abort("stop")
    await asyncio.wait_for(waiting, 1)
    assert not slow.done()
    slow.cancel()
    # an outside cancellation of the wait also removes both hooks
    other = AbortController().signal
    slow = asyncio.ensure_future(asyncio.sleep(20))
    waiting = asyncio.ensure_future(_first_of(slow, other))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert other._callbacks == []  # pyright: ignore[reportPrivateUsage]
    slow.cancel()

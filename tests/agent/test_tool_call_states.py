"""States of one tool call that the ordinary runs never reach, each outcome asserted whole.

:mod:`pi_sdk._agent.tool_calls`: a tool that swallows the cancellation after an abort is left
behind after a second grace period (two warnings, the abandoned result), and what it raises
later is retrieved, never logged as lost; an ``execute`` that hands back an awaitable already
done gives its result at once; in ``parallel`` mode an abort during the prepare phase still
gives a call that was settled in preparation (an unknown tool) its own result, and the others
the aborted text.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from _support.agent import config, isolated_plugins, user  # noqa: F401

import pi_sdk
from pi_sdk import AgentContext, AgentTool, AgentToolResult
from pi_sdk._agent import tool_calls
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk._agent.tool_calls import ABORTED_TEXT
from pi_sdk.testing import ScriptedProvider, ScriptedReply

ABANDONED = (
    "Tool stubborn did not stop within 0 s after the run was aborted; it was cancelled (a tool"
    " running in a thread is left behind and its result dropped)."
)


def _text(message: Any) -> str:
    return "".join(getattr(block, "text", "") for block in message.content)


async def _quiet(_event: Any) -> None:
    return None


async def _aborted_run(execute: Any, controller: pi_sdk.AbortController) -> list[Any]:
    """A run whose one call to ``stubborn`` (``execute``) aborts it; grace period 0."""
    tool = AgentTool(name="stubborn", description="d", parameters={}, execute=execute)
    provider = ScriptedProvider([ScriptedReply.tool_call("stubborn"), "never"])
    return await run_agent_loop(
        [user("go")],
        AgentContext(tools=[tool]),
        config(provider, tool_abort_grace_ms=0),
        _quiet,
        signal=controller.signal,
    )


async def test_a_tool_that_swallows_the_cancellation_is_left_behind_and_its_failure_retrieved(
    caplog,
):
    controller = pi_sdk.AbortController()
    release = asyncio.Event()
    cancelled: list[int] = []

    async def execute(call_id, args, signal, on_update):
        controller.abort()
        while True:
            try:
                await release.wait()
                break
            except asyncio.CancelledError:
                cancelled.append(1)  # swallowed: keeps waiting
        raise RuntimeError("failed long after the run gave up")

    caplog.set_level(logging.WARNING)
    try:
        new = await _aborted_run(execute, controller)
        warnings = [r.getMessage() for r in caplog.records]
    finally:
        release.set()  # never leave it waiting: the test's event loop could not close
    result = new[2]
    assert (result.role, result.is_error, _text(result)) == ("toolResult", True, ABANDONED)
    assert new[-1].stop_reason == "aborted"
    assert cancelled == [1, 1]  # cancelled after the grace period, and again when given up
    assert warnings == [
        "tool 'stubborn' ignored the abort for 0 s: cancelling it",
        "tool 'stubborn' did not stop when cancelled: it is left behind",
    ]
    for _ in range(5):
        await asyncio.sleep(0)
    gc.collect()
    assert len(caplog.records) == 2  # its late failure was retrieved, not logged as lost


async def test_a_tool_that_stops_when_cancelled_is_not_left_behind(caplog):
    controller = pi_sdk.AbortController()

    async def execute(call_id, args, signal, on_update):
        controller.abort()
        await asyncio.Event().wait()  # ignores the abort; the cancellation stops it

    caplog.set_level(logging.WARNING)
    new = await _aborted_run(execute, controller)
    assert (new[2].is_error, _text(new[2])) == (True, ABANDONED)
    assert [r.getMessage() for r in caplog.records] == [
        "tool 'stubborn' ignored the abort for 0 s: cancelling it"
    ]


async def test_a_tool_that_answers_the_cancellation_with_a_result_keeps_that_result(caplog):
    controller = pi_sdk.AbortController()

    async def execute(call_id, args, signal, on_update):
        controller.abort()
        try:
            await asyncio.Event().wait()  # ignores the abort
        except asyncio.CancelledError:
            return AgentToolResult.text("stopped early: 3 of 10 files copied")

    caplog.set_level(logging.WARNING)
    new = await _aborted_run(execute, controller)
    assert (new[2].is_error, _text(new[2])) == (False, "stopped early: 3 of 10 files copied")
    assert [r.getMessage() for r in caplog.records] == [
        "tool 'stubborn' ignored the abort for 0 s: cancelling it"
    ]


class ReadyTool(AgentTool):
    """A subclass whose ``execute`` hands back an awaitable that is already done."""

    def execute(self, tool_call_id, args, signal, on_update):  # type: ignore[override]
        done = asyncio.get_running_loop().create_future()
        done.set_result(AgentToolResult.text("ready"))
        return done


async def test_an_execute_that_returns_a_finished_awaitable_gives_its_result_at_once(
    monkeypatch: pytest.MonkeyPatch,
):
    # The duration is the monotonic clock's two readings around execute, in whole ms: a clock
    # that reads 4.2 ms apart (not the machine's, which load moves) gives 4.
    readings = iter([10.0, 10.0042])
    monkeypatch.setattr(tool_calls, "time", SimpleNamespace(monotonic=lambda: next(readings)))
    tool = ReadyTool(name="ready", description="d", parameters={})
    provider = ScriptedProvider([ScriptedReply.tool_call("ready"), "done"])
    new = await run_agent_loop([user("go")], AgentContext(tools=[tool]), config(provider), _quiet)
    result = new[2]
    assert (result.role, result.is_error, _text(result)) == ("toolResult", False, "ready")
    assert result.duration_ms == 4


async def test_an_abort_while_preparing_keeps_a_settled_calls_own_result():
    controller = pi_sdk.AbortController()

    @pi_sdk.tool
    async def ping() -> str:
        """Answer pong."""
        return "pong"

    def before(context: Any, signal: Any) -> None:
        controller.abort()  # while the second call is prepared

    calls = [
        pi_sdk.ToolCall(id="tool-1", name="nope", arguments={}),
        pi_sdk.ToolCall(id="tool-2", name="ping", arguments={}),
        pi_sdk.ToolCall(id="tool-3", name="ping", arguments={}),
    ]
    provider = ScriptedProvider([ScriptedReply(content=calls), "never"])
    new = await run_agent_loop(
        [user("go")],
        AgentContext(tools=[ping]),
        config(provider, tool_execution="parallel", before_tool_call=before),
        _quiet,
        signal=controller.signal,
    )
    results = [m for m in new if m.role == "toolResult"]
    assert [(r.tool_call_id, r.is_error, _text(r)) for r in results] == [
        ("tool-1", True, "Tool nope not found"),
        ("tool-2", True, ABORTED_TEXT),
        ("tool-3", True, ABORTED_TEXT),
    ]

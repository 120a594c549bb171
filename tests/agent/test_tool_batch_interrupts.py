"""A parallel batch interrupted while its calls are being prepared, through ``Agent``.

Independent of ``test_agent_loop.py``'s checks of the same rules (issue 19: each rule had
one test): here the interruption lands while the *second* of three calls is prepared, and
the run goes through the stateful ``Agent``. pi-agent-core: in parallel mode every call is
prepared (validated, ``before_tool_call``) before any executes, so an abort or a skipping
steering message during preparation means no call of the batch executes.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.agent import isolated_plugins, roles, text_of  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk import Agent, AgentToolResult
from pi_sdk.testing import ScriptedProvider, ScriptedReply

CALLS = ("tool-1", "tool-2", "tool-3")


def three_calls() -> ScriptedReply:
    return ScriptedReply(content=[pi_sdk.ToolCall(id=i, name="touch", arguments={}) for i in CALLS])


def agent_with(provider: ScriptedProvider, ran: list[str], **options: Any) -> Agent:
    async def touch(call_id, args, signal, on_update):  # type: ignore[no-untyped-def]
        ran.append(call_id)
        return AgentToolResult.text(f"touched {call_id}")

    tool = pi_sdk.AgentTool(name="touch", execute=touch)
    return Agent(model=provider.model, tools=[tool], tool_execution="parallel", **options)


async def test_an_abort_while_the_second_call_is_prepared_executes_none_of_the_batch() -> None:
    provider = ScriptedProvider([three_calls(), "never sent"])
    ran: list[str] = []

    def before(context, signal):  # type: ignore[no-untyped-def]
        if context.tool_call.id == "tool-2":
            agent.abort()

    agent = agent_with(provider, ran, before_tool_call=before)
    await agent.prompt("touch three")
    results = [m for m in agent.state.messages if m.role == "toolResult"]
    assert ran == []
    assert [r.tool_call_id for r in results] == list(CALLS)
    assert all(r.is_error for r in results)
    assert agent.state.messages[-1].stop_reason == "aborted"
    assert len(provider.calls) == 1


@pytest.mark.parametrize(("steering", "expected_ran"), [("skip", []), ("wait", list(CALLS))])
async def test_a_steer_while_the_second_call_is_prepared(
    steering: str, expected_ran: list[str]
) -> None:
    provider = ScriptedProvider([three_calls(), "changed course"])
    ran: list[str] = []

    def before(context, signal):  # type: ignore[no-untyped-def]
        if context.tool_call.id == "tool-2":
            agent.steer("stop, do something else")

    agent = agent_with(provider, ran, before_tool_call=before, tool_steering=steering)
    await agent.prompt("touch three")
    results = [m for m in agent.state.messages if m.role == "toolResult"]
    assert sorted(ran) == expected_ran
    assert [r.tool_call_id for r in results] == list(CALLS)
    assert [r.is_error for r in results] == [steering == "skip"] * 3
    sent = provider.calls[1].context.messages
    assert roles(sent)[-4:] == ["toolResult", "toolResult", "toolResult", "user"]
    assert text_of(sent[-1]) == "stop, do something else"

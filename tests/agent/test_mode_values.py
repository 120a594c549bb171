"""Mode settings select their behaviour by exact name, as pi-mono's ``===`` (issue 34).

``tool_execution``, ``tool_steering``, ``steering_mode`` and ``follow_up_mode``: each documented
value does what it says where the setting acts (the overlap of a tool batch, the steering poll
during a batch, the queue an Agent takes from). Any other value is refused before it can act
(``tests/agent/test_mode_checks.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, user  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk import AgentContext, AgentToolResult, ToolCall, agent_loop
from pi_sdk.testing import ScriptedProvider, ScriptedReply

NOT_SEQUENTIAL = ["parallel"]
NOT_SKIP = ["wait"]
NOT_ALL = ["one-at-a-time"]


def _two_calls() -> ScriptedReply:
    return ScriptedReply(
        content=[
            ToolCall(id="tool-1", name="a", arguments={}),
            ToolCall(id="tool-2", name="b", arguments={}),
        ]
    )


@pytest.mark.parametrize(
    ("mode", "peak"), [("sequential", 1), *((other, 2) for other in NOT_SEQUENTIAL)]
)
async def test_only_sequential_runs_a_batch_one_call_at_a_time(mode: str, peak: int) -> None:
    running, most = 0, 0

    async def slow(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        nonlocal running, most
        running += 1
        most = max(most, running)
        for _ in range(3):
            await asyncio.sleep(0)
        running -= 1
        return AgentToolResult.text(call_id)

    tools = [pi_sdk.AgentTool(name=n, execute=slow) for n in ("a", "b")]
    provider = ScriptedProvider([_two_calls(), "ok"])
    cfg = config(provider, tool_execution=mode)
    stream = agent_loop([user("x")], AgentContext(tools=tools), cfg)
    await collect(stream)
    assert most == peak
    results = [m for m in await stream.result() if m.role == "toolResult"]
    assert [(r.tool_call_id, r.is_error) for r in results] == [
        ("tool-1", False),
        ("tool-2", False),
    ]


@pytest.mark.parametrize(("mode", "ran"), [("skip", ["tool-1"]), *((o, None) for o in NOT_SKIP)])
async def test_only_skip_polls_steering_during_a_batch(mode: str, ran: list[str] | None) -> None:
    started: list[str] = []

    async def run(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        started.append(call_id)
        return AgentToolResult.text(f"ran {call_id}")

    tools = [pi_sdk.AgentTool(name=n, execute=run) for n in ("a", "b")]
    polls = 0

    def steering() -> list[pi_sdk.UserMessage]:
        nonlocal polls
        polls += 1
        return [user("change course")] if polls == 2 else []  # the first poll: the run's start

    provider = ScriptedProvider([_two_calls(), "changed"])
    cfg = config(
        provider,
        tool_execution="sequential",
        tool_steering=mode,
        get_steering_messages=steering,
    )
    stream = agent_loop([user("x")], AgentContext(tools=tools), cfg)
    await collect(stream)
    results = [m for m in await stream.result() if m.role == "toolResult"]
    if ran is None:  # "wait": the whole batch runs, steering goes in after it
        assert started == ["tool-1", "tool-2"]
        assert [r.is_error for r in results] == [False, False]
    else:
        assert started == ran
        assert [r.is_error for r in results] == [False, True]  # the second was skipped
    sent = provider.calls[1].context.messages
    assert [m.role for m in sent][-1] == "user"


@pytest.mark.parametrize(("mode", "takes_all"), [("all", True), *((o, False) for o in NOT_ALL)])
async def test_only_all_takes_every_queued_message_at_once(mode: str, takes_all: bool) -> None:
    provider = ScriptedProvider(["one", "two", "three"])
    agent = pi_sdk.Agent(
        model=provider.model,
        steering_mode=mode,  # pyright: ignore[reportArgumentType]
        follow_up_mode=mode,  # pyright: ignore[reportArgumentType]
    )
    first, second = user("first"), user("second")
    agent.steer(first)
    agent.steer(second)
    assert agent.peek_queued_messages() == ([first, second] if takes_all else [first])
    agent.clear_steering_queue()
    agent.follow_up(first)
    agent.follow_up(second)
    assert agent.peek_queued_messages() == ([first, second] if takes_all else [first])
    await agent.prompt("go")
    # The prompt's turn, then the follow-ups: both in one turn, or one turn each.
    assert [len(call.context.messages) for call in provider.calls] == (
        [1, 4] if takes_all else [1, 3, 5]
    )

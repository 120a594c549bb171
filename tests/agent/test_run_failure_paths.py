"""What the Agent and the loop leave behind when a run fails, is aborted or is closed (issue 34).

Each value set on a failure path (the Agent's net around the loop, the loop's ``fail``, the
event stream's ending) is read where a user reads it: by a listener at ``agent_end``, in
``agent.state`` afterwards, in the events and the result of the stream.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, user  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk import Agent
from pi_sdk.testing import ScriptedProvider


def _state_seen(agent: Agent) -> dict[str, Any]:
    state = agent.state
    return {
        "is_streaming": state.is_streaming,
        "stream_message": state.stream_message,
        "pending_tool_calls": state.pending_tool_calls,
        "error": state.error,
        "last": (state.messages[-1].stop_reason, state.messages[-1].error_message),
    }


@pytest.mark.parametrize("aborted", [False, True], ids=["failed", "aborted-then-failed"])
async def test_a_failure_outside_the_loop_ends_the_run_as_an_agent_end_listener_sees_it(
    monkeypatch: pytest.MonkeyPatch, aborted: bool
) -> None:
    import pi_sdk._agent.loop as loop_module

    agent = Agent(model=ScriptedProvider(["unused"]).model)

    async def explode(*args: Any, **kwargs: Any) -> Any:
        if aborted:
            agent.abort()
        raise RuntimeError("internal")

    monkeypatch.setattr(loop_module, "run_agent_loop", explode)
    seen: list[dict[str, Any]] = []
    agent.subscribe(lambda event: seen.append(_state_seen(agent)))
    new = await agent.prompt("hi")
    reason = "aborted" if aborted else "error"
    expected = {
        "is_streaming": False,
        "stream_message": None,
        "pending_tool_calls": frozenset(),
        "error": "internal",
        "last": (reason, "internal"),
    }
    assert seen == [expected]  # pi-mono: streaming is over when agent_end is delivered
    assert _state_seen(agent) == expected
    assert [(m.role, m.stop_reason) for m in new] == [("assistant", reason)]
    assert not agent.is_running


def _echo() -> pi_sdk.AgentTool:
    async def run(call_id: str, args: Any, signal: Any, on_update: Any) -> pi_sdk.AgentToolResult:
        return pi_sdk.AgentToolResult.text("echoed")

    return pi_sdk.AgentTool(name="echo", parameters={"type": "object"}, execute=run)


def _trace(events: list[Any]) -> list[tuple[Any, ...]]:
    """Each event but ``message_update``: the message it carries (role, stop reason, error),
    the ids of its tool results."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        if event.type == "message_update":
            continue
        message = getattr(event, "message", None)
        carried = (
            (
                message.role,
                getattr(message, "stop_reason", None),
                getattr(message, "error_message", None),
            )
            if message is not None
            else None
        )
        results = [r.tool_call_id for r in getattr(event, "tool_results", None) or []]
        out.append((event.type, carried, results))
    return out


def _broken(times: int) -> Any:
    """A message source (or hook) that answers ``[]`` ``times`` times, then raises."""
    calls = iter(range(times + 1))

    def source(*args: Any) -> list[Any]:
        if next(calls) == times:
            raise RuntimeError("hook broke")
        return []

    return source


TOOL_REPLY = ("assistant", "toolUse", None)
TEXT_REPLY = ("assistant", "stop", None)
FAILED = ("assistant", "error", "hook broke")
PROMPT = [("message_start", ("user", None, None), []), ("message_end", ("user", None, None), [])]
TOOL_RUN = [
    ("tool_execution_start", None, []),
    ("tool_execution_end", None, []),
    ("message_start", ("toolResult", None, None), []),
    ("message_end", ("toolResult", None, None), []),
]


def _reply(reply: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return [("message_start", reply, []), ("message_end", reply, [])]


ERROR_TURN = [*_reply(FAILED), ("turn_end", FAILED, []), ("agent_end", None, [])]
CLOSED_TOOL_TURN = [*_reply(TOOL_REPLY), *TOOL_RUN, ("turn_end", TOOL_REPLY, ["c1"])]
CLOSED_TEXT_TURN = [*_reply(TEXT_REPLY), ("turn_end", TEXT_REPLY, [])]
NEW_TURN = [("turn_start", None, [])]


@pytest.mark.parametrize(
    ("tools", "broken", "middle"),
    [
        # The turn is open and has its reply: the failure closes it with its results first.
        (True, ("finish_turn", 0), [*CLOSED_TOOL_TURN, *NEW_TURN]),
        (False, ("finish_turn", 0), [*CLOSED_TEXT_TURN, *NEW_TURN]),
        # The turn is open and has no reply yet: the error message is its reply.
        (False, ("get_steering_messages", 0), []),
        (False, ("transform_context", 0), []),
        # The turn was closed: a new one holds the error message.
        (False, ("get_follow_up_messages", 0), [*CLOSED_TEXT_TURN, *NEW_TURN]),
        (True, ("get_steering_messages", 1), [*CLOSED_TOOL_TURN, *NEW_TURN]),
        (True, ("prepare_next_turn", 0), [*CLOSED_TOOL_TURN, *NEW_TURN]),
    ],
    ids=[
        "finish-turn-after-tools",
        "finish-turn-after-text",
        "steering-before-the-first-request",
        "transform-context",
        "follow-up-after-the-turn",
        "steering-after-the-turn",
        "prepare-next-turn",
    ],
)
async def test_a_run_that_fails_between_its_steps_closes_the_open_turn_once(
    tools: bool, broken: tuple[str, int], middle: list[tuple[Any, ...]]
) -> None:
    first = (
        pi_sdk.testing.ScriptedReply(content=[pi_sdk.ToolCall(id="c1", name="echo", arguments={})])
        if tools
        else "hello"
    )
    provider = ScriptedProvider([first, "never"])
    hook, answers = broken
    cfg = config(provider, **{hook: _broken(answers)})
    context = pi_sdk.AgentContext(tools=[_echo()])
    events = await collect(
        pi_sdk.agent_loop([user("x")], context, cfg, stream_fn=provider.stream_fn)
    )
    start = [("agent_start", None, []), ("turn_start", None, []), *PROMPT]
    assert _trace(events) == [*start, *middle, *ERROR_TURN]
    replies = [TOOL_REPLY if tools else TEXT_REPLY] if middle else []
    results = [("toolResult", None)] if middle and tools else []
    assert [(m.role, getattr(m, "stop_reason", None)) for m in events[-1].messages] == [
        ("user", None),
        *[r[:2] for r in replies],
        *results,
        ("assistant", "error"),
    ]
    assert len(provider.calls) == (1 if middle else 0)

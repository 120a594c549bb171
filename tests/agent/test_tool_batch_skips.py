"""A tool batch blocked or cut short (pi_sdk/_agent/tool_calls.py), driven directly.

A blocked call: its error result says why (or the default text), with ``details``
``{"blocked": true}`` and no ``duration_ms``; the call that ran has one.

A steering message (with ``tool_steering="skip"``) or an abort during the batch: a call answered
at once (an unknown tool) keeps its own error; a call prepared but not run, and every call not
yet reached, gets the skip text; every call has exactly one ``tool_execution_start``. In
parallel mode steering is polled after each preparation and once more after the batch.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.agent import user

import pi_sdk
from pi_sdk import AgentContext, AgentToolResult, ToolCall
from pi_sdk._agent.tool_calls import ABORTED_TEXT, SKIPPED_TEXT, execute_tool_calls
from pi_sdk._wire.abort import AbortController
from pi_sdk._wire.loop_config import AgentLoopConfig
from pi_sdk.testing import ScriptedProvider

NOT_FOUND = "Tool missing not found"


def _message(*names: str) -> pi_sdk.AssistantMessage:
    calls = [ToolCall(id=f"call-{i}", name=n, arguments={}) for i, n in enumerate(names)]
    return pi_sdk.AssistantMessage(
        content=calls, api="x", provider="x", model="x", stop_reason="toolUse"
    )


async def _run(
    mode: str, names: tuple[str, ...], steer_at: int | None, abort_at: int | None = None
) -> tuple[Any, list[str], list[str], int]:
    """Run the batch: steering comes at poll ``steer_at``, the abort in preparation ``abort_at``."""
    ran: list[str] = []
    events: list[Any] = []
    controller = AbortController()
    polls = prepared = 0

    async def execute(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        ran.append(call_id)
        return AgentToolResult.text(f"ran {call_id}")

    def before(ctx: Any, signal: Any) -> None:
        nonlocal prepared
        prepared += 1
        if prepared == abort_at:
            controller.abort()

    async def steering() -> list[Any]:
        nonlocal polls
        polls += 1
        return [user("change course")] if polls == steer_at else []

    async def emit(event: Any) -> None:
        events.append(event)

    tools = [pi_sdk.AgentTool(name=n, execute=execute) for n in ("a", "b")]
    config = AgentLoopConfig(
        model=ScriptedProvider([]).model, tool_execution=mode, before_tool_call=before
    )  # type: ignore[arg-type]
    outcome = await execute_tool_calls(
        AgentContext(tools=tools), _message(*names), config, controller.signal, emit, steering
    )
    starts = [e.tool_call_id for e in events if e.type == "tool_execution_start"]
    assert starts == [f"call-{i}" for i in range(len(names))]  # one start per call
    texts = [r.content[0].text for r in outcome.tool_results]
    assert [r.is_error for r in outcome.tool_results] == [not t.startswith("ran") for t in texts]
    return outcome, texts, ran, polls


@pytest.mark.parametrize(
    ("steer_at", "texts", "ran", "polls"),
    [
        (1, [NOT_FOUND, SKIPPED_TEXT, SKIPPED_TEXT], [], 1),
        (2, [NOT_FOUND, SKIPPED_TEXT, SKIPPED_TEXT], [], 2),
        (3, [NOT_FOUND, SKIPPED_TEXT, SKIPPED_TEXT], [], 3),
        (4, [NOT_FOUND, "ran call-1", "ran call-2"], ["call-1", "call-2"], 4),  # after the batch
    ],
)
async def test_parallel_steering_skips_what_has_not_run_and_keeps_immediate_errors(
    steer_at: int, texts: list[str], ran: list[str], polls: int
):
    outcome, got, got_ran, got_polls = await _run("parallel", ("missing", "a", "b"), steer_at)
    assert (got, got_ran, got_polls) == (texts, ran, polls)
    assert [text for m in outcome.steering_messages for text in [m.content[0].text]] == [
        "change course"
    ]


async def test_a_parallel_batch_without_steering_has_none():
    outcome, texts, ran, polls = await _run("parallel", ("a", "b"), None)
    assert (texts, ran, polls, outcome.steering_messages) == (
        ["ran call-0", "ran call-1"],
        ["call-0", "call-1"],
        3,
        None,
    )
    assert outcome.terminate is False


@pytest.mark.parametrize(
    ("steer_at", "texts", "ran"),
    [
        (1, [NOT_FOUND, SKIPPED_TEXT, SKIPPED_TEXT], []),
        (2, [NOT_FOUND, "ran call-1", SKIPPED_TEXT], ["call-1"]),
        (3, [NOT_FOUND, "ran call-1", "ran call-2"], ["call-1", "call-2"]),
    ],
)
async def test_sequential_steering_skips_the_calls_after_the_one_just_done(
    steer_at: int, texts: list[str], ran: list[str]
):
    outcome, got, got_ran, polls = await _run("sequential", ("missing", "a", "b"), steer_at)
    assert (got, got_ran, polls) == (texts, ran, steer_at)
    assert outcome.steering_messages is not None and len(outcome.steering_messages) == 1


@pytest.mark.parametrize(
    ("mode", "texts", "ran"),
    [
        ("parallel", [NOT_FOUND, ABORTED_TEXT, ABORTED_TEXT], []),
        ("sequential", [NOT_FOUND, ABORTED_TEXT, ABORTED_TEXT], []),
    ],
)
async def test_an_abort_in_a_before_hook_skips_the_call_and_the_rest(
    mode: str, texts: list[str], ran: list[str]
):
    outcome, got, got_ran, _ = await _run(mode, ("missing", "a", "b"), None, abort_at=1)
    assert (got, got_ran) == (texts, ran)
    assert outcome.steering_messages is None


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
@pytest.mark.parametrize(
    ("reason", "text"), [(None, "Tool execution was blocked"), ("", "Tool execution was blocked"),
                         ("policy says no", "policy says no")],
)  # fmt: skip
async def test_a_blocked_call_is_marked_blocked_and_has_no_duration(
    mode: str, reason: str | None, text: str
):
    ran: list[str] = []
    results: list[pi_sdk.ToolResultMessage] = []

    async def execute(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        ran.append(call_id)
        return AgentToolResult.text("ran")

    def before(ctx: Any, signal: Any) -> pi_sdk.BeforeToolCallResult | None:
        if ctx.tool_call.name == "a":
            return pi_sdk.BeforeToolCallResult(block=True, reason=reason)
        return None

    async def emit(event: Any) -> None:
        pass

    tools = [pi_sdk.AgentTool(name=n, execute=execute) for n in ("a", "b")]
    config = AgentLoopConfig(
        model=ScriptedProvider([]).model, tool_execution=mode, before_tool_call=before
    )  # type: ignore[arg-type]
    outcome = await execute_tool_calls(
        AgentContext(tools=tools),
        _message("a", "b"),
        config,
        AbortController().signal,
        emit,
        on_result=results.append,
    )
    blocked, run = outcome.tool_results
    assert results == outcome.tool_results
    assert (blocked.is_error, blocked.duration_ms) == (True, None)
    assert blocked.details == {"blocked": True}
    assert blocked.content[0].text == text  # type: ignore[union-attr]
    assert (run.is_error, run.details, ran) == (False, None, ["call-1"])
    assert isinstance(run.duration_ms, int) and run.duration_ms >= 0
    assert outcome.terminate is False

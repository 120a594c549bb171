"""Every way a tool call can fail inside the loop gives that call an error result; the run goes on.

pi-agent-core 1.6 (``dist/agent-loop.js``: ``prepareToolCall``, ``executePreparedToolCall``,
``finalizeExecutedToolCall``): argument preparation, validation, ``beforeToolCall``, the tool and
``afterToolCall`` raising each become the call's error result with the exception's text.
``durationMs`` is measured around
``execute`` on a monotonic clock and kept when ``afterToolCall`` raises.
"""

from __future__ import annotations

import asyncio
import types

import pytest
from _support.agent import collect, config, isolated_plugins, roles, text_of, user  # noqa: F401

import pi_sdk
from pi_sdk import AgentContext, AgentTool, AgentToolResult, agent_loop
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk.plugins import hookimpl
from pi_sdk.testing import ScriptedProvider, ScriptedReply

CALLS = [
    pi_sdk.ToolCall(id="tool-1", name="ping", arguments={}),
    pi_sdk.ToolCall(id="tool-2", name="ping", arguments={}),
]


@pi_sdk.tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


async def _run(tools, *, mode="parallel", **options):
    reply = ScriptedReply(content=list(CALLS))
    provider = ScriptedProvider([reply, "done"])
    loop_config = config(provider, tool_execution=mode, **options)
    stream = agent_loop([user("go")], AgentContext(tools=tools), loop_config)
    events = await collect(stream)
    return provider, events, await stream.result()


def _results(new):
    return [m for m in new if m.role == "toolResult"]


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_a_raising_after_tool_call_is_the_calls_error_result_and_the_run_goes_on(mode):
    def after(ctx, signal):
        if ctx.tool_call.id == "tool-2":
            raise RuntimeError("audit store down")

    provider, events, new = await _run([ping], mode=mode, after_tool_call=after)
    assert roles(new) == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    first, second = _results(new)
    assert not first.is_error and text_of(first) == "pong"
    assert second.is_error and text_of(second) == "audit store down"
    assert isinstance(second.duration_ms, int)  # the tool ran: its time is kept
    assert new[-1].stop_reason == "stop" and len(provider.calls) == 2
    # The model is told: the second request carries the error result.
    sent = provider.calls[1].context.messages[-1]
    assert sent.role == "toolResult" and sent.is_error and text_of(sent) == "audit store down"
    ends = [e for e in events if e.type == "tool_execution_end"]
    assert [e.is_error for e in ends] == [False, True]


async def test_after_tool_call_plugins_that_raise_or_answer_wrongly_give_error_results(
    isolated_plugins,  # noqa: F811
):
    def broken(context):
        if context.tool_call.id == "tool-1":
            raise ValueError("disk full")
        return "yes"  # not an AfterToolCallResult

    isolated_plugins.register(types.SimpleNamespace(after_tool_call=hookimpl(broken)), "odd")
    _, _, new = await _run([ping])
    first, second = _results(new)
    assert first.is_error and text_of(first) == "disk full"
    assert second.is_error and "after_tool_call of plugin 'odd' returned str" in text_of(second)
    assert new[-1].stop_reason == "stop"


def _tool(execute=None, **fields):
    async def run(call_id, args, signal, on_update):
        return AgentToolResult.text("pong")

    return AgentTool(name="ping", description="", parameters={}, execute=execute or run, **fields)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("tool raises", "quota exceeded"),
        ("tool answers no result", "ping"),
        ("prepare_arguments raises", "cannot prepare"),
        ("before_tool_call raises", "policy store down"),
    ],
)
async def test_every_raise_point_before_and_in_the_tool_is_an_error_result(kind, expected):
    async def raising(call_id, args, signal, on_update):
        raise RuntimeError("quota exceeded")

    async def wrong(call_id, args, signal, on_update):
        return object()

    def prepare(arguments):
        raise ValueError("cannot prepare")

    def before(context, signal):
        raise RuntimeError("policy store down")

    tool, options = _tool(), {}
    if kind == "tool raises":
        tool = _tool(raising)
    elif kind == "tool answers no result":
        tool = _tool(wrong)
    elif kind == "prepare_arguments raises":
        tool = _tool(prepare_arguments=prepare)
    else:
        options["before_tool_call"] = before
    provider, _, new = await _run([tool], **options)
    results = _results(new)
    assert [r.is_error for r in results] == [True, True]
    assert all(expected in text_of(r) for r in results), [text_of(r) for r in results]
    assert new[-1].stop_reason == "stop" and len(provider.calls) == 2
    ran = kind.startswith("tool")
    assert all((r.duration_ms is not None) == ran for r in results)


async def test_duration_is_the_time_execute_took_on_the_monotonic_clock():
    async def slow(call_id, args, signal, on_update):
        await asyncio.sleep(0.12 if call_id == "tool-1" else 0)
        return AgentToolResult.text("pong")

    _, events, new = await _run([_tool(slow)])
    first, second = _results(new)
    assert first.duration_ms >= 110 and second.duration_ms < first.duration_ms
    ends = {e.tool_call_id: e for e in events if e.type == "tool_execution_end"}
    assert ends["tool-1"].duration_ms == first.duration_ms
    wire = pi_sdk.agent_event_to_dict(ends["tool-1"])
    assert wire["durationMs"] == first.duration_ms and "duration_ms" not in wire
    assert first.model_dump(by_alias=True)["durationMs"] == first.duration_ms


async def test_the_duration_ends_when_execute_returns_not_after_its_updates_are_delivered():
    async def chatty(call_id, args, signal, on_update):
        on_update(AgentToolResult.text("working"))
        return AgentToolResult.text("pong")

    async def slow_sink(event):
        if event.type == "tool_execution_update":
            await asyncio.sleep(0.15)

    provider = ScriptedProvider([ScriptedReply(content=[CALLS[0]]), "done"])
    loop_config = config(provider)
    new = await run_agent_loop(
        [user("go")], AgentContext(tools=[_tool(chatty)]), loop_config, slow_sink
    )
    (result,) = _results(new)
    assert result.duration_ms is not None and result.duration_ms < 100


async def test_a_sync_execute_is_an_error_result_that_says_to_wrap_it_as_a_function_tool():
    """``AgentTool(execute=...)`` awaits what execute returns: a sync one is told how to fix it."""

    def sync_execute(*_: object) -> AgentToolResult:
        return AgentToolResult.text("sync")

    tool = AgentTool(name="ping", description="d", execute=sync_execute)  # pyright: ignore[reportArgumentType]
    provider = ScriptedProvider([ScriptedReply.tool_call("ping", {}), "done"])
    agent = pi_sdk.Agent(model=provider.model, tools=[tool])
    await agent.prompt("go")
    [result] = [m for m in agent.messages if isinstance(m, pi_sdk.ToolResultMessage)]
    assert result.is_error
    assert result.text == (
        "tool 'ping': execute returned AgentToolResult, not an awaitable: give AgentTool an"
        " async execute, or make the function a tool with @pi_sdk.tool (a sync function then"
        " runs in a worker thread)"
    )

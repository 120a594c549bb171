"""pi-agent-core 0.73.1 parity (issue 11 item 6): per-tool ``execution_mode``, a tool's
``prepare_arguments``, ``should_stop_after_turn``, and the steering rule (the batch runs whole;
``tool_steering="skip"`` keeps the older rule, tested in test_agent_loop.py / test_agent.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, roles, text_of, user  # noqa: F401
from _support.strings import built

import pi_sdk
from pi_sdk import AgentContext, AgentToolResult, ToolCall, agent_loop
from pi_sdk.agent import ShouldStopAfterTurnContext
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def calls(*names: str) -> ScriptedReply:
    return ScriptedReply(
        content=[ToolCall(id=f"tool-{i}", name=n, arguments={}) for i, n in enumerate(names, 1)]
    )


class Probe:
    """Tools that record when they start and end, and how many run at once."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.running = 0
        self.most = 0

    def tool(self, name: str, **options: Any) -> pi_sdk.AgentTool:
        async def run(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
            self.running += 1
            self.most = max(self.most, self.running)
            self.log.append(f"start {call_id}")
            await asyncio.sleep(0.01)
            self.log.append(f"end {call_id}")
            self.running -= 1
            return AgentToolResult.text(f"ran {call_id}")

        return pi_sdk.AgentTool(name=name, execute=run, **options)


# --- the steering rule ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_by_default_a_steering_message_waits_for_the_whole_batch(mode: str) -> None:
    probe = Probe()
    polls = 0

    def steering() -> list[Any]:
        nonlocal polls
        polls += 1
        return [user("stop, do something else")] if polls == 2 else []

    provider = ScriptedProvider([calls("a", "b"), "changed course"])
    tools = [probe.tool("a"), probe.tool("b")]
    cfg = config(provider, tool_execution=mode, get_steering_messages=steering)
    stream = agent_loop([user("x")], AgentContext(tools=tools), cfg)
    await collect(stream)
    results = [m for m in await stream.result() if m.role == "toolResult"]
    assert [r.is_error for r in results] == [False, False]
    assert sorted(e for e in probe.log if e.startswith("end")) == ["end tool-1", "end tool-2"]
    sent = provider.calls[1].context.messages
    assert roles(sent) == ["user", "assistant", "toolResult", "toolResult", "user"]
    assert text_of(sent[-1]) == "stop, do something else"


async def test_agent_steer_during_a_sequential_batch_waits_by_default() -> None:
    probe = Probe()
    provider = ScriptedProvider([calls("a", "b"), "ok"])
    agent = pi_sdk.Agent(
        model=provider.model, tools=[probe.tool("a"), probe.tool("b")], tool_execution="sequential"
    )
    agent.subscribe(
        lambda e: (
            agent.steer("stop")
            if e.type == "tool_execution_end" and e.tool_call_id == "tool-1"
            else None
        )
    )
    await agent.prompt("go")
    assert probe.log == ["start tool-1", "end tool-1", "start tool-2", "end tool-2"]
    assert text_of(provider.calls[1].context.messages[-1]) == "stop"


# --- execution_mode ------------------------------------------------------------------------


async def test_a_sequential_tool_makes_its_parallel_batch_sequential() -> None:
    probe = Probe()
    tools = [probe.tool("a"), probe.tool("b", execution_mode=built("sequential")), probe.tool("c")]
    provider = ScriptedProvider([calls("a", "b", "c"), "done"])
    stream = agent_loop([user("x")], AgentContext(tools=tools), config(provider))
    await collect(stream)
    assert probe.most == 1
    assert probe.log == [f"{s} tool-{i}" for i in (1, 2, 3) for s in ("start", "end")]


async def test_without_a_sequential_tool_the_batch_stays_parallel() -> None:
    probe = Probe()
    tools = [probe.tool("a", execution_mode="parallel"), probe.tool("c")]
    provider = ScriptedProvider([calls("a", "c"), "done"])
    await collect(agent_loop([user("x")], AgentContext(tools=tools), config(provider)))
    assert probe.most == 2


# --- prepare_arguments ---------------------------------------------------------------------


def _add_tool(seen: list[Any], prepare: Any) -> pi_sdk.AgentTool:
    async def add(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        seen.append(args)
        return AgentToolResult.text(str(args["a"] + args["b"]))

    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    return pi_sdk.AgentTool(name="add", parameters=schema, execute=add, prepare_arguments=prepare)


async def test_prepare_arguments_repairs_before_validation() -> None:
    seen: list[Any] = []
    prepared: list[dict[str, Any]] = []

    def rename(arguments: dict[str, Any]) -> dict[str, Any]:
        prepared.append(dict(arguments))
        out = dict(arguments)
        if "x" in out:
            out["a"] = out.pop("x")
        return out

    provider = ScriptedProvider([ScriptedReply.tool_call("add", {"x": "2", "b": 3}), "5"])
    stream = agent_loop(
        [user("add")], AgentContext(tools=[_add_tool(seen, rename)]), config(provider)
    )
    await collect(stream)
    assert prepared == [{"x": "2", "b": 3}]
    assert seen == [{"a": 2, "b": 3}]  # repaired, then coerced by validation
    (result,) = [m for m in await stream.result() if m.role == "toolResult"]
    assert not result.is_error and text_of(result) == "5"


async def test_a_raising_prepare_arguments_is_the_error_result_and_bad_json_never_reaches_it() -> (
    None
):
    seen: list[Any] = []
    prepared: list[Any] = []

    def broken(arguments: dict[str, Any]) -> dict[str, Any]:
        prepared.append(arguments)
        raise ValueError("cannot repair")

    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call("add", {"a": 1}),
            ScriptedReply(content=[ToolCall(id="c", name="add", invalid_arguments='{"a": 1')]),
            "gave up",
        ]
    )
    stream = agent_loop(
        [user("add")], AgentContext(tools=[_add_tool(seen, broken)]), config(provider)
    )
    await collect(stream)
    first, second = [m for m in await stream.result() if m.role == "toolResult"]
    assert first.is_error and text_of(first) == "cannot repair"
    assert second.is_error and text_of(second).startswith("arguments were not valid JSON")
    assert len(prepared) == 1 and seen == []


async def test_prepare_arguments_can_be_overridden_in_a_subclass() -> None:
    class Lenient(pi_sdk.AgentTool):
        def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
            return {"a": 1, "b": 1, **arguments}

    seen: list[Any] = []
    tool = _add_tool(seen, None)
    lenient = Lenient(name="add", parameters=tool.parameters, execute=tool.execute)
    provider = ScriptedProvider([ScriptedReply.tool_call("add", {"b": 4}), "5"])
    await collect(agent_loop([user("add")], AgentContext(tools=[lenient]), config(provider)))
    assert seen == [{"a": 1, "b": 4}]


# --- should_stop_after_turn ------------------------------------------------------------------


async def test_should_stop_after_turn_ends_the_run_after_that_turn() -> None:
    probe = Probe()
    seen: list[ShouldStopAfterTurnContext] = []

    async def stop(context: ShouldStopAfterTurnContext) -> bool:
        seen.append(context)
        return True

    provider = ScriptedProvider([calls("a"), "never sent"])
    cfg = config(provider, should_stop_after_turn=stop)
    stream = agent_loop([user("x")], AgentContext(tools=[probe.tool("a")]), cfg)
    events = await collect(stream)
    assert [e.type for e in events][-2:] == ["turn_end", "agent_end"]
    assert len(provider.calls) == 1 and provider.remaining == 1
    (context,) = seen
    assert context.message.tool_calls[0].id == "tool-1"
    assert [r.tool_call_id for r in context.tool_results] == ["tool-1"]
    assert roles(context.new_messages) == ["user", "assistant", "toolResult"]
    assert context.context.messages[-1] is context.tool_results[0]


async def test_should_stop_after_turn_on_the_agent_then_continue() -> None:
    provider = ScriptedProvider([calls("a"), "after compaction", "the follow-up"])
    probe = Probe()
    turns: list[int] = []

    def stop_once(context: ShouldStopAfterTurnContext) -> bool:
        turns.append(len(context.new_messages))
        return len(turns) == 1

    agent = pi_sdk.Agent(
        model=provider.model, tools=[probe.tool("a")], should_stop_after_turn=stop_once
    )
    await agent.prompt("go")
    assert roles(agent.messages) == ["user", "assistant", "toolResult"]
    agent.follow_up("queued")  # stays queued through a stop
    assert agent.has_queued_messages()
    await agent.continue_()
    assert roles(agent.messages)[3:] == ["assistant", "user", "assistant"]
    assert [text_of(m) for m in agent.messages[3:]] == [
        "after compaction",
        "queued",
        "the follow-up",
    ]


async def test_a_raising_should_stop_after_turn_ends_the_run_with_an_error() -> None:
    def broken(context: ShouldStopAfterTurnContext) -> bool:
        raise RuntimeError("hook broke")

    provider = ScriptedProvider(["hi"])
    stream = agent_loop(
        [user("x")], AgentContext(), config(provider, should_stop_after_turn=broken)
    )
    events = await collect(stream)
    assert events[-1].type == "agent_end"
    last = (await stream.result())[-1]
    assert last.role == "assistant" and last.stop_reason == "error"
    assert "hook broke" in (last.error_message or "")

"""The stateless agent loop (pi-spec §8.2–8.5), offline on the scripted provider."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from typing import Any, Literal

import pytest
from _support.agent import collect, config, isolated_plugins, kinds, roles, text_of, user  # noqa: F401
from _support.strings import built
from pydantic import BaseModel, Field

import pi_sdk
from pi_sdk import (
    AfterToolCallResult,
    AgentContext,
    AgentToolResult,
    BeforeToolCallResult,
    agent_loop,
    agent_loop_continue,
)
from pi_sdk._agent.tool_calls import ABORTED_TEXT, SKIPPED_TEXT
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.testing import ScriptedProvider, ScriptedReply


class Note(BaseModel):
    role: Literal["note"] = "note"
    text: str


@pi_sdk.tool
async def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@pi_sdk.tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


def two_calls(first: str = "a", second: str = "b", **options: Any) -> ScriptedReply:
    return ScriptedReply(
        content=[
            pi_sdk.ToolCall(id="tool-1", name=first, arguments={}),
            pi_sdk.ToolCall(id="tool-2", name=second, arguments={}),
        ],
        **options,
    )


# --- plain runs ------------------------------------------------------------------------------


async def test_plain_reply_event_sequence_and_result():
    provider = ScriptedProvider(["Hello!"])
    context = AgentContext(system_prompt="Be kind.")
    stream = agent_loop([user("hi")], context, config(provider))
    events = await collect(stream)
    assert kinds(events) == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    assert "message_update" in kinds(events, updates=True)
    new = await stream.result()
    assert roles(new) == ["user", "assistant"]
    assert text_of(new[1]) == "Hello!"
    assert events[-1].messages == new
    assert events[-2].message is new[1] and events[-2].tool_results == []
    assert context.messages == []  # the caller's context is not mutated
    seen = provider.calls[0].context
    assert seen.system_prompt == "Be kind." and seen.tools is None
    assert [text_of(m) for m in seen.messages] == ["hi"]  # each prompt sent once


async def test_message_update_carries_the_assistant_event_and_live_message():
    provider = ScriptedProvider([ScriptedReply.text("abcdef", chunk_size=2)])
    events = await collect(agent_loop([user("x")], AgentContext(), config(provider)))
    updates = [e for e in events if e.type == "message_update"]
    deltas = [
        u.assistant_message_event.delta
        for u in updates
        if u.assistant_message_event.type == "text_delta"
    ]
    assert deltas == ["ab", "cd", "ef"]
    start = next(e for e in events if e.type == "message_start" and e.message.role == "assistant")
    assert all(u.message is start.message for u in updates)


async def test_custom_message_is_filtered_or_converted_only_by_convert_to_llm():
    provider = ScriptedProvider(["one", "two"])
    context = AgentContext(messages=[user("before"), Note(text="remember milk")])
    await collect(agent_loop([user("q1")], context, config(provider)))
    assert roles(provider.calls[0].context.messages) == ["user", "user"]  # default: dropped

    def convert(messages):
        out = []
        for m in messages:
            if isinstance(m, Note):
                out.append(user(f"[note] {m.text}"))
            elif m.role in ("user", "assistant", "toolResult"):
                out.append(m)
        return out

    stream = agent_loop([user("q2")], context, config(provider, convert_to_llm=convert))
    await collect(stream)
    sent = [text_of(m) for m in provider.calls[1].context.messages]
    assert sent == ["before", "[note] remember milk", "q2"]
    assert isinstance((await stream.result())[0], pi_sdk.UserMessage)


async def test_registered_message_type_is_converted_by_the_default():
    pi_sdk.register_message_type(Note, lambda n: [user(f"note: {n.text}")])
    try:
        provider = ScriptedProvider(["ok"])
        context = AgentContext(messages=[Note(text="x")])
        await collect(agent_loop([user("q")], context, config(provider)))
        assert [text_of(m) for m in provider.calls[0].context.messages] == ["note: x", "q"]
    finally:
        pi_sdk.unregister_message_type(Note)


async def test_transform_context_prunes_for_the_call_only():
    provider = ScriptedProvider(["answer"])
    history = [user(f"old {i}") for i in range(5)]
    seen_signal = []

    async def keep_last_two(messages, signal):
        seen_signal.append(signal)
        return messages[-2:]

    stream = agent_loop(
        [user("new")],
        AgentContext(messages=history),
        config(provider, transform_context=keep_last_two),
    )
    await collect(stream)
    assert [text_of(m) for m in provider.calls[0].context.messages] == ["old 4", "new"]
    assert isinstance(seen_signal[0], pi_sdk.AbortSignal)
    assert roles(await stream.result()) == ["user", "assistant"]


async def test_get_api_key_is_asked_before_every_call_and_wins_over_config():
    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "t"}), "done"])
    keys = iter(["k1", "k2"])
    asked = []

    def get_key(provider_name):
        asked.append(provider_name)
        return next(keys)

    cfg = config(provider, get_api_key=get_key, api_key="fallback", temperature=0.5)
    await collect(agent_loop([user("x")], AgentContext(tools=[echo]), cfg))
    assert asked == ["scripted", "scripted"]
    assert [c.options.api_key for c in provider.calls] == ["k1", "k2"]
    assert provider.calls[0].options.temperature == 0.5  # stream options are forwarded


# --- tools -----------------------------------------------------------------------------------


async def test_one_tool_round_trip():
    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "hi"}, id="c1"), "Done."])
    stream = agent_loop([user("say hi")], AgentContext(tools=[echo]), config(provider))
    events = await collect(stream)
    assert kinds(events) == [
        "agent_start", "turn_start", "message_start", "message_end",      # prompt
        "message_start", "message_end",                                  # assistant (tool call)
        "tool_execution_start", "tool_execution_end",
        "message_start", "message_end",                                  # tool result
        "turn_end", "turn_start",
        "message_start", "message_end", "turn_end", "agent_end",
    ]  # fmt: skip
    start = next(e for e in events if e.type == "tool_execution_start")
    assert (start.tool_call_id, start.tool_name, start.args) == ("c1", "echo", {"text": "hi"})
    end = next(e for e in events if e.type == "tool_execution_end")
    assert not end.is_error and end.result.content[0].text == "echo: hi"
    turn_end = next(e for e in events if e.type == "turn_end")
    assert [r.tool_call_id for r in turn_end.tool_results] == ["c1"]
    assert roles(await stream.result()) == ["user", "assistant", "toolResult", "assistant"]
    second = provider.calls[1].context
    assert roles(second.messages) == ["user", "assistant", "toolResult"]
    assert second.tools[0].name == "echo" and "text" in second.tools[0].parameters["properties"]


async def test_arguments_are_coerced_before_the_tool_runs():
    received = []

    @pi_sdk.tool
    def add(a: int, b: int) -> int:
        received.append((a, b))
        return a + b

    provider = ScriptedProvider([ScriptedReply.tool_call("add", {"a": "2", "b": 3}), "5"])
    stream = agent_loop([user("2+3")], AgentContext(tools=[add]), config(provider))
    events = await collect(stream)
    assert received == [(2, 3)]
    start = next(e for e in events if e.type == "tool_execution_start")
    assert start.args == {"a": "2", "b": 3}  # the raw arguments, as pi-mono reports them
    assert (await stream.result())[2].content[0].text == "5"


async def test_invalid_arguments_and_unknown_tools_become_error_results():
    ran = []

    @pi_sdk.tool
    def add(a: int, b: int) -> int:
        ran.append(1)
        return a + b

    reply = ScriptedReply(
        content=[
            pi_sdk.ToolCall(id="c1", name="add", arguments={"a": "two"}),
            pi_sdk.ToolCall(id="c2", name="nope", arguments={}),
        ]
    )
    provider = ScriptedProvider([reply, "sorry"])
    stream = agent_loop([user("x")], AgentContext(tools=[add]), config(provider))
    await collect(stream)
    results = [m for m in await stream.result() if m.role == "toolResult"]
    assert ran == []
    assert [r.is_error for r in results] == [True, True]
    assert results[0].content[0].text == (
        'Validation failed for tool "add":\n'
        "  - a: must be integer\n"
        "  - b: must have required property 'b'\n"
        "\n"
        "Received arguments:\n"
        '{\n  "a": "two"\n}'
    )
    assert results[1].content[0].text == "Tool nope not found"
    assert results[0].details == {}
    # The model reads the errors on the next call.
    assert [m.role for m in provider.calls[1].messages][-2:] == ["toolResult", "toolResult"]


async def test_a_tool_that_raises_becomes_an_error_result():
    @pi_sdk.tool
    async def explode() -> str:
        raise ValueError("disk full")

    provider = ScriptedProvider([ScriptedReply.tool_call("explode"), "handled"])
    stream = agent_loop([user("x")], AgentContext(tools=[explode]), config(provider))
    events = await collect(stream)
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.is_error and end.result.content[0].text == "disk full"
    assert roles(await stream.result())[-1] == "assistant"


async def test_parallel_tools_overlap_and_results_keep_source_order():
    second_started = asyncio.Event()
    finished: list[str] = []

    async def first(call_id, args, signal, on_update):
        # Waits for the second tool to be running: only possible if they overlap.
        await asyncio.wait_for(second_started.wait(), timeout=5)
        await asyncio.sleep(0)
        finished.append("tool-1")
        return AgentToolResult.text("one")

    async def second(call_id, args, signal, on_update):
        second_started.set()
        finished.append("tool-2")
        return AgentToolResult.text("two")

    tools = [pi_sdk.AgentTool(name="a", execute=first), pi_sdk.AgentTool(name="b", execute=second)]
    provider = ScriptedProvider([two_calls(), "ok"])
    stream = agent_loop([user("x")], AgentContext(tools=tools), config(provider))
    events = await collect(stream)
    assert finished == ["tool-2", "tool-1"]  # the second finished first
    ends = [e.tool_call_id for e in events if e.type == "tool_execution_end"]
    assert ends == ["tool-1", "tool-2"]
    results = [m for m in await stream.result() if m.role == "toolResult"]
    assert [r.tool_call_id for r in results] == ["tool-1", "tool-2"]
    assert [r.content[0].text for r in results] == ["one", "two"]


async def test_sequential_tools_never_overlap():
    running, peak = 0, 0

    async def slow(call_id, args, signal, on_update):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(3):
            await asyncio.sleep(0)
        running -= 1
        return AgentToolResult.text(call_id)

    tools = [pi_sdk.AgentTool(name=n, execute=slow) for n in ("a", "b")]
    provider = ScriptedProvider([two_calls(), "ok"])
    cfg = config(provider, tool_execution=built("sequential"))
    stream = agent_loop([user("x")], AgentContext(tools=tools), cfg)
    await collect(stream)
    assert peak == 1
    assert [m.tool_call_id for m in await stream.result() if m.role == "toolResult"] == [
        "tool-1",
        "tool-2",
    ]


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
@pytest.mark.parametrize("order", [("b", "missing"), ("missing", "b")])
async def test_immediate_errors_keep_source_order(mode, order):
    # pi-mono (parallel) emits the "not found" result first whatever its position.
    tools = [pi_sdk.AgentTool(name="b", execute=lambda *a: _result("ran b"))]
    provider = ScriptedProvider([two_calls(*order), "ok"])
    stream = agent_loop(
        [user("x")], AgentContext(tools=tools), config(provider, tool_execution=mode)
    )
    events = await collect(stream)
    results = [m for m in await stream.result() if m.role == "toolResult"]
    assert [r.tool_call_id for r in results] == ["tool-1", "tool-2"]
    assert [r.is_error for r in results] == [name == "missing" for name in order]
    ends = [e.tool_call_id for e in events if e.type == "tool_execution_end"]
    assert ends == ["tool-1", "tool-2"]


async def _result(text: str) -> AgentToolResult:
    return AgentToolResult.text(text)


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_steering_after_the_first_tool_skips_the_second(mode):
    # tool_steering="skip" (pre-0.73 pi-agent-core); the default waits: test_agent_core_parity.py
    ran: list[str] = []

    async def run(call_id, args, signal, on_update):
        ran.append(call_id)
        return AgentToolResult.text(f"ran {call_id}")

    tools = [pi_sdk.AgentTool(name=n, execute=run) for n in ("a", "b")]
    polls = 0

    def steering():
        nonlocal polls
        polls += 1
        return [user("stop, do something else")] if polls == 2 else []  # 1st poll: run start

    provider = ScriptedProvider([two_calls(), "changed course"])
    cfg = config(
        provider,
        tool_execution=built(mode),
        tool_steering=built("skip"),
        get_steering_messages=steering,
    )
    stream = agent_loop([user("x")], AgentContext(tools=tools), cfg)
    events = await collect(stream)
    results = [m for m in await stream.result() if m.role == "toolResult"]
    second = results[1]
    assert second.tool_call_id == "tool-2" and second.is_error
    assert second.content[0].text == SKIPPED_TEXT == "Skipped due to queued user message."
    if mode == "sequential":
        assert ran == ["tool-1"] and not results[0].is_error
    else:  # steering arrived after the first preparation: nothing ran (pi-mono)
        assert ran == [] and results[0].content[0].text == SKIPPED_TEXT
    starts = [e.tool_call_id for e in events if e.type == "tool_execution_start"]
    assert starts == ["tool-1", "tool-2"]  # one start per call, skipped or not
    # The steering message goes in before the next model call.
    sent = provider.calls[1].context.messages
    assert roles(sent) == ["user", "assistant", "toolResult", "toolResult", "user"]
    assert text_of(sent[-1]) == "stop, do something else"


async def test_follow_up_is_consumed_only_when_the_agent_would_stop():
    log: list[str] = []
    queue = [user("and one more thing")]

    def follow_up():
        log.append(f"follow-up poll after {len(provider.calls)} calls")
        return [queue.pop()] if queue else []

    provider = ScriptedProvider(
        [ScriptedReply.tool_call("echo", {"text": "t"}), "first answer", "second answer"]
    )
    cfg = config(provider, get_follow_up_messages=follow_up)
    stream = agent_loop([user("x")], AgentContext(tools=[echo]), cfg)
    await collect(stream)
    # Not polled after the tool turn (call 1), only after the answers (calls 2 and 3).
    assert log == ["follow-up poll after 2 calls", "follow-up poll after 3 calls"]
    new = await stream.result()
    assert roles(new) == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]
    assert text_of(provider.calls[2].context.messages[-1]) == "and one more thing"


async def test_terminate_when_every_tool_of_the_batch_asks():
    async def final(call_id, args, signal, on_update):
        return AgentToolResult(content=[pi_sdk.TextContent(text="bye")], terminate=True)

    async def normal(call_id, args, signal, on_update):
        return AgentToolResult.text("ok")

    tools = [pi_sdk.AgentTool(name="a", execute=final), pi_sdk.AgentTool(name="b", execute=normal)]
    provider = ScriptedProvider([two_calls("a", "a")])
    stream = agent_loop([user("x")], AgentContext(tools=tools), config(provider))
    await collect(stream)
    assert len(provider.calls) == 1  # no model call for the results
    assert roles(await stream.result()) == ["user", "assistant", "toolResult", "toolResult"]

    provider = ScriptedProvider([two_calls("a", "b"), "continued"])
    stream = agent_loop([user("x")], AgentContext(tools=tools), config(provider))
    await collect(stream)
    assert len(provider.calls) == 2  # one tool did not ask: the loop goes on


async def test_tool_execution_updates_are_ordered_and_precede_the_end():
    async def progress(call_id, args, signal, on_update):
        for i in range(3):
            on_update(AgentToolResult.text(f"{i}/3"))
        return AgentToolResult.text("done")

    def threaded(on_update):  # a sync tool runs in a worker thread
        assert threading.current_thread() is not threading.main_thread()
        on_update(AgentToolResult.text("from a thread"))
        return "thread done"

    tools = [pi_sdk.AgentTool(name="a", execute=progress), pi_sdk.tool(threaded, name="b")]
    provider = ScriptedProvider([two_calls(), "ok"])
    events = await collect(agent_loop([user("x")], AgentContext(tools=tools), config(provider)))
    trail = [
        (
            e.type,
            e.tool_call_id,
            e.partial_result.content[0].text if e.type.endswith("update") else "",
        )
        for e in events
        if e.type.startswith("tool_execution")
    ]
    a = [t for t in trail if t[1] == "tool-1"]
    assert a == [
        ("tool_execution_start", "tool-1", ""),
        ("tool_execution_update", "tool-1", "0/3"),
        ("tool_execution_update", "tool-1", "1/3"),
        ("tool_execution_update", "tool-1", "2/3"),
        ("tool_execution_end", "tool-1", ""),
    ]
    b = [t for t in trail if t[1] == "tool-2"]
    assert b[1] == ("tool_execution_update", "tool-2", "from a thread")
    assert b[-1][0] == "tool_execution_end"
    update = next(e for e in events if e.type == "tool_execution_update")
    assert update.tool_name == "a" and update.args == {}


# --- hooks -----------------------------------------------------------------------------------


async def test_before_tool_call_blocks_with_a_reason_and_sees_validated_args():
    seen = []

    def before(ctx, signal):
        seen.append((ctx.tool_call.id, ctx.args.text, ctx.assistant_message.stop_reason))
        return BeforeToolCallResult(block=True, reason="not allowed here")

    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": 5}, id="c"), "ok"])
    stream = agent_loop(
        [user("x")], AgentContext(tools=[echo]), config(provider, before_tool_call=before)
    )
    await collect(stream)
    result = (await stream.result())[2]
    assert seen == [("c", "5", "toolUse")]
    assert result.is_error and result.content[0].text == "not allowed here"


async def test_before_tool_call_default_reason_and_raising_hook():
    calls = iter([BeforeToolCallResult(block=True), RuntimeError("policy crashed")])

    async def before(ctx, signal):
        item = next(calls)
        if isinstance(item, Exception):
            raise item
        return item

    provider = ScriptedProvider([two_calls("ping", "ping"), "ok"])
    stream = agent_loop(
        [user("x")], AgentContext(tools=[ping]), config(provider, before_tool_call=before)
    )
    await collect(stream)
    texts = [m.content[0].text for m in await stream.result() if m.role == "toolResult"]
    assert texts == ["Tool execution was blocked", "policy crashed"]


async def test_after_tool_call_replaces_fields_that_are_set():
    async def after(ctx, signal):
        assert ctx.result.content[0].text == "echo: x" and ctx.is_error is False
        return AfterToolCallResult(content=[pi_sdk.TextContent(text="[redacted]")], is_error=True)

    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "x"}), "ok"])
    stream = agent_loop(
        [user("x")], AgentContext(tools=[echo]), config(provider, after_tool_call=after)
    )
    events = await collect(stream)
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.is_error and end.result.content[0].text == "[redacted]"
    result = (await stream.result())[2]
    assert result.is_error and result.content[0].text == "[redacted]"


async def test_plugin_hooks_run_after_the_callables(isolated_plugins):  # noqa: F811
    order = []

    class Policy:
        @pi_sdk.hookimpl
        def before_tool_call(self, context):
            order.append("plugin-before")

        @pi_sdk.hookimpl
        async def after_tool_call(self, context):
            order.append(f"plugin-after saw {context.result.content[0].text}")
            return AfterToolCallResult(details={"audited": True})

    isolated_plugins.register(Policy(), name="policy")

    def before(ctx, signal):
        order.append("callable-before")

    def after(ctx, signal):
        order.append("callable-after")
        return AfterToolCallResult(content=[pi_sdk.TextContent(text="changed")])

    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "x"}), "ok"])
    cfg = config(provider, before_tool_call=before, after_tool_call=after)
    stream = agent_loop([user("x")], AgentContext(tools=[echo]), cfg)
    await collect(stream)
    assert order == [
        "callable-before",
        "plugin-before",
        "callable-after",
        "plugin-after saw changed",
    ]
    result = (await stream.result())[2]
    assert result.content[0].text == "changed" and result.details == {"audited": True}


# --- failures end the stream instead of hanging -----------------------------------------------


async def test_raising_convert_to_llm_ends_the_stream_with_an_error_message():
    def convert(messages):
        raise ValueError("cannot convert")

    provider = ScriptedProvider(["never"])
    stream = agent_loop([user("x")], AgentContext(), config(provider, convert_to_llm=convert))
    events = await collect(stream)
    assert kinds(events) == [
        "agent_start", "turn_start", "message_start", "message_end",
        "message_start", "message_end", "turn_end", "agent_end",
    ]  # fmt: skip
    new = await stream.result()
    assert roles(new) == ["user", "assistant"]
    assert new[1].stop_reason == "error" and new[1].error_message == "cannot convert"
    assert provider.calls == []


async def test_raising_transform_context_and_stream_fn_end_the_stream():
    async def transform(messages, signal):
        raise RuntimeError("pruner broke")

    provider = ScriptedProvider(["never"])
    stream = agent_loop([user("x")], AgentContext(), config(provider, transform_context=transform))
    await collect(stream)
    assert (await stream.result())[-1].error_message == "pruner broke"

    def no_key(model, context, options):
        raise pi_sdk.ConfigurationError("No API key for provider: scripted")

    stream = agent_loop([user("x")], AgentContext(), config(provider), stream_fn=no_key)
    await collect(stream)
    assert (await stream.result())[-1].error_message == "No API key for provider: scripted"


async def test_stream_failing_mid_message_finalizes_the_partial():
    async def broken(model, context, options):
        inner = ScriptedProvider([ScriptedReply.text("partial text")]).stream_fn(
            model, context, options
        )

        class Half:
            def __aiter__(self):
                return self.gen()

            async def gen(self):
                async for event in inner:
                    yield event
                    if event.type == "text_end":
                        raise ConnectionError("socket closed")

        return Half()

    provider = ScriptedProvider([])
    stream = agent_loop([user("x")], AgentContext(), config(provider), stream_fn=broken)
    events = await collect(stream)
    new = await stream.result()
    assert new[-1].role == "assistant" and new[-1].stop_reason == "error"
    assert new[-1].text == "partial text" and new[-1].error_message == "socket closed"
    assert kinds(events)[-3:] == ["message_end", "turn_end", "agent_end"]
    assert kinds(events).count("message_start") == 2  # the prompt and the partial, no new message


async def test_stream_without_terminal_event_is_an_error_not_a_hang():
    async def truncated(model, context, options):
        class NoEnd:
            def __aiter__(self):
                return self.gen()

            async def gen(self):
                yield pi_sdk.StartEvent(partial=new_assistant_message(model))

        return NoEnd()

    stream = agent_loop(
        [user("x")], AgentContext(), config(ScriptedProvider([])), stream_fn=truncated
    )
    await collect(stream)
    assert "without a done or error event" in (await stream.result())[-1].error_message


# --- continue and abort ----------------------------------------------------------------------


async def test_agent_loop_continue_validation_errors():
    provider = ScriptedProvider(["x"])
    with pytest.raises(pi_sdk.ConfigurationError, match="no messages in context"):
        agent_loop_continue(AgentContext(), config(provider))
    done = pi_sdk.AssistantMessage(api="scripted", provider="scripted", model="m")
    with pytest.raises(
        pi_sdk.ConfigurationError, match="Cannot continue from message role: assistant"
    ):
        agent_loop_continue(AgentContext(messages=[user("q"), done]), config(provider))


async def test_agent_loop_continue_from_tool_result_and_from_an_errored_tail():
    provider = ScriptedProvider(["answered", "retried"])
    call = pi_sdk.AssistantMessage(
        api="scripted", provider="scripted", model="m", stop_reason="toolUse",
        content=[pi_sdk.ToolCall(id="c", name="echo", arguments={})],
    )  # fmt: skip
    tool_result = pi_sdk.ToolResultMessage(tool_call_id="c", tool_name="echo", content=[])
    history = [user("q"), call, tool_result]
    stream = agent_loop_continue(AgentContext(messages=history), config(provider))
    events = await collect(stream)
    assert kinds(events)[:2] == ["agent_start", "turn_start"]
    assert roles(await stream.result()) == ["assistant"]
    assert len(history) == 3  # not mutated

    failed = pi_sdk.AssistantMessage(
        api="scripted",
        provider="scripted",
        model=provider.model.id,
        stop_reason="error",
        error_message="x",
    )
    stream = agent_loop_continue(AgentContext(messages=[user("q"), failed]), config(provider))
    await collect(stream)
    assert text_of((await stream.result())[0]) == "retried"
    assert roles(provider.calls[1].messages) == ["user"]  # the failed turn is not sent


async def test_abort_mid_stream_keeps_the_partial_and_ends():
    controller = pi_sdk.AbortController()
    provider = ScriptedProvider([ScriptedReply.until_aborted([pi_sdk.TextContent(text="half")])])
    stream = agent_loop([user("x")], AgentContext(), config(provider), signal=controller.signal)
    events = []
    async for event in stream:
        events.append(event)
        if event.type == "message_update" and event.assistant_message_event.type == "text_end":
            controller.abort()
    last = (await stream.result())[-1]
    assert last.stop_reason == "aborted" and last.text == "half"
    assert kinds(events)[-2:] == ["turn_end", "agent_end"]


async def test_abort_during_tools_ends_with_an_aborted_message_without_another_call():
    controller = pi_sdk.AbortController()

    async def wait_for_abort(call_id, args, signal, on_update):
        controller.abort()
        await signal.wait()
        raise RuntimeError("interrupted")

    tools = [pi_sdk.AgentTool(name="a", execute=wait_for_abort)]
    provider = ScriptedProvider([ScriptedReply.tool_call("a"), "never"])
    stream = agent_loop(
        [user("x")], AgentContext(tools=tools), config(provider), signal=controller.signal
    )
    await collect(stream)
    new = await stream.result()
    assert roles(new) == ["user", "assistant", "toolResult", "assistant"]
    assert new[2].is_error and new[2].content[0].text == "interrupted"
    assert new[3].stop_reason == "aborted"
    assert len(provider.calls) == 1


@pytest.mark.parametrize(
    ("mode", "abort_in", "expected_ran"),
    [
        ("sequential", "tool", ["tool-1"]),
        ("sequential", "before_tool_call", []),
        ("parallel", "before_tool_call", []),
        ("parallel", "tool", ["tool-1", "tool-2"]),  # both were already executing
    ],
)
async def test_no_tool_call_starts_after_an_abort(mode, abort_in, expected_ran):
    # QA: after the user pressed stop, sequential execution still ran the next (side-effecting)
    # tool. A call not yet executing is skipped with an error result; in parallel mode an abort
    # during the prepare phase (before_tool_call) means nothing is executed.
    controller = pi_sdk.AbortController()
    ran: list[str] = []

    async def run(call_id, args, signal, on_update):
        ran.append(call_id)
        if abort_in == "tool":
            controller.abort()
        await asyncio.sleep(0)
        return AgentToolResult.text(f"ran {call_id}")

    def before(context, signal):
        if abort_in == "before_tool_call":
            controller.abort()

    tools = [pi_sdk.AgentTool(name=n, execute=run) for n in ("a", "b")]
    provider = ScriptedProvider([two_calls(), "never"])
    cfg = config(provider, tool_execution=mode, before_tool_call=before)
    stream = agent_loop([user("x")], AgentContext(tools=tools), cfg, signal=controller.signal)
    events = await collect(stream)
    new = await stream.result()
    assert ran == expected_ran
    results = [m for m in new if m.role == "toolResult"]
    assert [r.tool_call_id for r in results] == ["tool-1", "tool-2"]
    for result in results:
        if result.tool_call_id in ran:
            assert not result.is_error and text_of(result) == f"ran {result.tool_call_id}"
        else:
            assert result.is_error and text_of(result) == ABORTED_TEXT
    assert ABORTED_TEXT == "Skipped because the run was aborted."
    starts = [e.tool_call_id for e in events if e.type == "tool_execution_start"]
    ends = [e.tool_call_id for e in events if e.type == "tool_execution_end"]
    assert starts == ends == ["tool-1", "tool-2"]  # one start and one end per call
    assert new[-1].stop_reason == "aborted" and len(provider.calls) == 1


async def test_event_stream_aclose_stops_the_run():
    provider = ScriptedProvider([ScriptedReply.until_aborted()])
    stream = agent_loop([user("x")], AgentContext(), config(provider))
    async for event in stream:
        if event.type == "message_start" and event.message.role == "assistant":
            break
    await stream.aclose()
    with pytest.raises(asyncio.CancelledError):
        await stream.result()


@pytest.mark.parametrize("when", ["before its first step", "mid-run", "after the end"])
async def test_event_stream_aclose_returns_quietly_and_ends_result_and_iteration(when):
    reply = "done" if when == "after the end" else ScriptedReply.until_aborted()
    stream = agent_loop([user("x")], AgentContext(), config(ScriptedProvider([reply])))
    if when == "mid-run":
        async for event in stream:
            if event.type == "message_start" and event.message.role == "assistant":
                break
    elif when == "after the end":
        await stream.result()
    assert await stream.aclose() is None  # the cancelled run's CancelledError is not raised
    assert await stream.aclose() is None  # closing twice is harmless
    if when == "after the end":
        assert [m.role for m in await stream.result()] == ["user", "assistant"]
        return
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(stream.result(), 5)  # ended, not left pending forever
    if when == "before its first step":  # (mid-run: the one iteration allowed was used)
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(collect(stream), 5)


async def test_event_stream_async_with_closes_a_run_not_yet_started():
    async with agent_loop([user("x")], AgentContext(), config(ScriptedProvider(["x"]))) as stream:
        pass
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(stream.result(), 5)


async def test_agent_event_to_dict_uses_pi_mono_names():
    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "x"}, id="c1"), "ok"])
    events = await collect(agent_loop([user("x")], AgentContext(tools=[echo]), config(provider)))
    as_dicts = {}
    for event in events:  # the first event of each type
        as_dicts.setdefault(event.type, pi_sdk.agent_event_to_dict(event))
    assert as_dicts["agent_start"] == {"type": "agent_start"}
    assert as_dicts["tool_execution_start"] == {
        "type": "tool_execution_start",
        "toolCallId": "c1",
        "toolName": "echo",
        "args": {"text": "x"},
    }
    end = as_dicts["tool_execution_end"]
    assert end["isError"] is False
    assert end["result"] == {"content": [{"type": "text", "text": "echo: x"}], "details": None}
    assert as_dicts["turn_end"]["toolResults"][0]["role"] == "toolResult"
    update = as_dicts["message_update"]
    assert update["assistantMessageEvent"]["type"] == "toolcall_start"
    assert update["assistantMessageEvent"]["contentIndex"] == 0
    assert update["message"]["role"] == "assistant"
    assert (
        "partial"
        not in pi_sdk.agent_event_to_dict(
            next(e for e in events if e.type == "message_update"), include_partial=False
        )["assistantMessageEvent"]
    )
    assert as_dicts["agent_end"]["messages"][0] == {
        "role": "user",
        "content": [{"type": "text", "text": "x"}],
        "timestamp": events[-1].messages[0].timestamp,
    }


class _Weather(BaseModel):
    """Tool details whose JSON names differ from the Python ones, as on pi's wire."""

    model_config = {"populate_by_name": True}
    feels_like: float = Field(alias="feelsLike")


@pi_sdk.tool
async def weather() -> AgentToolResult:
    """Report the weather with typed details."""
    return AgentToolResult.text("mild", details={"now": _Weather(feels_like=18.5)})


async def test_tool_details_in_event_dicts_use_the_models_json_names():
    provider = ScriptedProvider([ScriptedReply.tool_call("weather", {}, id="w1"), "ok"])
    events = await collect(agent_loop([user("x")], AgentContext(tools=[weather]), config(provider)))
    end = next(e for e in events if e.type == "tool_execution_end")
    result = pi_sdk.agent_event_to_dict(end)["result"]
    assert result["details"] == {"now": {"feelsLike": 18.5}}


async def test_events_whose_type_is_built_at_run_time_are_read_as_any_other() -> None:
    # A stream function that decodes events (from another process, from JSON) hands the loop
    # type names equal to the literals but not the same objects; the run must not notice.
    provider = ScriptedProvider(["hello there"])

    async def decoded(model: Any, context: Any, options: Any) -> Any:
        async for event in pi_sdk.stream(provider.model, context, options):
            yield dataclasses.replace(event, type=built(event.type))

    plain = await collect(agent_loop([user("hi")], AgentContext(), config(provider)))
    provider = ScriptedProvider(["hello there"])
    stream = agent_loop([user("hi")], AgentContext(), config(provider), stream_fn=decoded)
    events = await collect(stream)
    assert kinds(events) == kinds(plain)
    assert "message_update" in kinds(events, updates=True)
    new = await stream.result()
    assert roles(new) == ["user", "assistant"]
    reply = new[1]
    assert (reply.stop_reason, reply.error_message, text_of(reply)) == ("stop", None, "hello there")


@pytest.mark.parametrize("failure", ["error", "aborted"])
async def test_a_failed_reply_whose_event_type_is_built_at_run_time_ends_the_run(
    failure: str,
) -> None:
    reply = ScriptedReply.text("partial", error="boom")
    provider = ScriptedProvider([reply, "never"])

    async def decoded(model: Any, context: Any, options: Any) -> Any:
        async for event in pi_sdk.stream(provider.model, context, options):
            if event.type == "error":
                event.error.stop_reason = failure  # pyright: ignore[reportAttributeAccessIssue]
                event = dataclasses.replace(event, reason=failure)
            yield dataclasses.replace(event, type=built(event.type))

    stream = agent_loop([user("hi")], AgentContext(), config(provider), stream_fn=decoded)
    events = await collect(stream)
    assert kinds(events)[-3:] == ["message_end", "turn_end", "agent_end"]
    new = await stream.result()
    assert [(m.role, m.stop_reason) for m in new[1:]] == [("assistant", failure)]  # type: ignore[union-attr]
    assert new[1].error_message == "boom" and len(provider.calls) == 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("raw", "first", "calls"),
    [
        ("pause_turn", "searching", 2),  # paused: the history goes back as it is
        (built("pause_turn"), "searching", 2),  # as a vendor's decoded reply names it
        ("end_turn", "searching", 1),
        (None, "searching", 1),
        ("pause_turn", two_calls("ping", "ping"), 2),  # the tool results need a request anyway
    ],
    ids=["paused", "paused-decoded", "ended", "no-raw-reason", "paused-with-calls"],
)
async def test_a_paused_reply_is_sent_back_as_it_is_for_the_model_to_go_on(
    raw: str | None, first: Any, calls: int
) -> None:
    # Anthropic's pause_turn: a long server-tool turn stopped early; the same history sent
    # again lets the vendor continue it. Only the raw reason tells it from an ordinary answer.
    provider = ScriptedProvider([first, "the rest", "never"])

    async def vendor(model: Any, context: Any, options: Any) -> Any:
        async for event in pi_sdk.stream(provider.model, context, options):
            if event.type == "done" and len(provider.calls) == 1:
                event.message.raw_stop_reason = raw
            yield event

    context = AgentContext(tools=[ping])
    stream = agent_loop([user("look it up")], context, config(provider), stream_fn=vendor)
    events = await collect(stream)
    assert len(provider.calls) == calls
    assert kinds(events).count("turn_start") == calls
    new = await stream.result()
    if calls == 2 and isinstance(first, str):
        assert roles(new) == ["user", "assistant", "assistant"]
        assert provider.calls[1].context.messages == new[:2]  # nothing added in between
        assert [text_of(m) for m in new[1:]] == ["searching", "the rest"]
    elif calls == 1:
        assert roles(new) == ["user", "assistant"] and new[1].raw_stop_reason == raw

"""The scripted provider: real event streams from a script, recorded calls."""

from __future__ import annotations

import asyncio
import json

import pytest
from _support.agent import isolated_plugins, user  # noqa: F401 - autouse fixture
from _support.conformance import collect_aborting

import pi_sdk
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.plugins import PluginManager, use_plugin_manager
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def ctx(*texts: str) -> pi_sdk.Context:
    return pi_sdk.Context(messages=[user(t) for t in texts])


async def events_of(stream: pi_sdk.AssistantMessageEventStream) -> list[AssistantMessageEvent]:
    return [e async for e in stream]


async def test_text_reply_streams_deltas_of_chunk_size_through_the_registry():
    provider = ScriptedProvider([ScriptedReply.text("Hello, world!", chunk_size=5)])
    stream = pi_sdk.stream(provider.model, ctx("hi"))  # through the registered "scripted" API
    events = await events_of(stream)
    assert [e.type for e in events] == [
        "start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done",
    ]  # fmt: skip
    deltas = [e.delta for e in events if e.type == "text_delta"]
    assert deltas == ["Hello", ", wor", "ld!"]
    message = await stream.result()
    assert message.text == "Hello, world!"
    assert message.stop_reason == "stop"
    assert (message.api, message.provider, message.model) == (
        "scripted",
        "scripted",
        provider.model.id,
    )


async def test_plain_string_is_a_text_reply_and_usage_is_reported():
    usage = pi_sdk.Usage(input=12, output=3, total_tokens=15)
    provider = ScriptedProvider(["short", ScriptedReply.text("x", usage=usage)])
    first = await pi_sdk.complete(provider.model, ctx("a"))
    second = await pi_sdk.complete(provider.model, ctx("b"))
    assert first.text == "short"
    assert second.usage.input == 12 and second.usage.total_tokens == 15
    assert second.usage is not usage  # copied: a replay cannot mutate the script


async def test_a_reply_usage_is_the_scripts_own_copy_down_to_its_cost():
    # A caller that prices or adds to a reply's usage (cost in USD) must not change the
    # script: the next call replaying the same reply reports the script's figures again.
    cost = pi_sdk.Cost(input=0.5, output=0.25, total=0.75)
    usage = pi_sdk.Usage(input=12, output=3, total_tokens=15, cost=cost)
    reply = ScriptedReply.text("x", usage=usage)
    provider = ScriptedProvider([reply, reply])
    first = await pi_sdk.complete(provider.model, ctx("a"))
    first.usage.input += 100
    first.usage.cost.total += 9.0
    first.usage.cost.input = 0.0
    second = await pi_sdk.complete(provider.model, ctx("b"))
    assert usage == pi_sdk.Usage(input=12, output=3, total_tokens=15, cost=cost)
    assert (second.usage.input, second.usage.cost.total, second.usage.cost.input) == (12, 0.75, 0.5)


async def test_thinking_text_and_tool_call_with_arguments_in_fragments():
    arguments = {"city": "Paris", "days": 3, "tags": ["a", "b"]}
    reply = ScriptedReply(
        content=[
            pi_sdk.ThinkingContent(thinking="Let me check.", thinking_signature="sig"),
            pi_sdk.TextContent(text="Checking"),
            pi_sdk.ToolCall(id="", name="forecast", arguments=arguments),
        ],
        chunk_size=4,
    )
    provider = ScriptedProvider([reply])
    stream = provider.stream_fn(provider.model, ctx("weather?"))
    events = await events_of(stream)
    kinds = [e.type for e in events]
    assert kinds[:2] == ["start", "thinking_start"]
    assert kinds.index("thinking_end") < kinds.index("text_start") < kinds.index("toolcall_start")
    fragments = [e.delta for e in events if e.type == "toolcall_delta"]
    assert len(fragments) > 3
    assert json.loads("".join(fragments)) == arguments
    # The block's arguments are a dict at every step, growing toward the final value.
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call.arguments == arguments
    assert end.tool_call.id == "call_1"
    message = await stream.result()
    assert message.stop_reason == "toolUse"
    assert message.content[0].thinking_signature == "sig"
    assert [type(b).__name__ for b in message.content] == [
        "ThinkingContent",
        "TextContent",
        "ToolCall",
    ]


async def test_partial_tool_arguments_are_visible_during_streaming():
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("t", {"text": "abcdefghij"}, chunk_size=6)]
    )
    seen: list[dict] = []
    async for event in provider.stream_fn(provider.model, ctx("x")):
        if event.type == "toolcall_delta":
            seen.append(dict(event.partial.content[0].arguments))
    assert seen[0] == {}  # '{"text' : key not complete yet
    assert seen[-1] == {"text": "abcdefghij"}
    assert any(0 < len(s.get("text", "")) < 10 for s in seen)  # a partial string was shown


async def test_failure_keeps_partial_content_and_reports_the_message():
    reply = ScriptedReply.failure("rate limited", content=[pi_sdk.TextContent(text="partial")])
    provider = ScriptedProvider([reply])
    stream = provider.stream_fn(provider.model, ctx("x"))
    events = await events_of(stream)
    assert events[-1].type == "error"
    message = await stream.result()
    assert message.stop_reason == "error"
    assert message.error_message == "rate limited"
    assert message.text == "partial"


async def test_until_aborted_waits_for_the_signal_and_keeps_the_partial():
    controller = pi_sdk.AbortController()
    reply = ScriptedReply.until_aborted([pi_sdk.TextContent(text="thinking so far")])
    provider = ScriptedProvider([reply])
    stream = provider.stream_fn(
        provider.model, ctx("x"), pi_sdk.StreamOptions(signal=controller.signal)
    )
    events, message = await collect_aborting(stream, controller, "text_end")
    assert events[-1].type == "error"
    assert message.stop_reason == "aborted"
    assert message.text == "thinking so far"


async def test_delays_are_abortable():
    controller = pi_sdk.AbortController()
    provider = ScriptedProvider([ScriptedReply.text("slow", delay_ms=60_000)])
    stream = provider.stream_fn(
        provider.model, ctx("x"), pi_sdk.StreamOptions(signal=controller.signal)
    )
    asyncio.get_running_loop().call_soon(controller.abort)
    message = await asyncio.wait_for(stream.result(), timeout=10)
    assert message.stop_reason == "aborted"


async def test_calls_are_recorded_as_deep_copies_with_options():
    provider = ScriptedProvider(["one", "two"])
    context = ctx("first")
    await pi_sdk.complete(provider.model, context, pi_sdk.StreamOptions(temperature=0.25))
    context.messages.append(user("second"))
    await pi_sdk.complete(provider.model, context)
    assert len(provider.calls) == 2
    assert [m.content[0].text for m in provider.calls[0].context.messages] == ["first"]
    assert len(provider.calls[1].context.messages) == 2
    assert provider.calls[0].options.temperature == 0.25
    assert provider.remaining == 0


async def test_call_messages_are_what_the_model_saw_errored_turns_dropped():
    provider = ScriptedProvider([ScriptedReply.failure("boom"), "ok"])
    context = ctx("question")
    failed = await pi_sdk.complete(provider.model, context)
    context.messages.append(failed)
    await pi_sdk.complete(provider.model, context)
    assert [m.role for m in provider.calls[1].context.messages] == ["user", "assistant"]
    assert [m.role for m in provider.calls[1].messages] == ["user"]


async def test_exhausted_script_is_an_error_message_naming_the_call():
    provider = ScriptedProvider(["only"])
    await pi_sdk.complete(provider.model, ctx("a"))
    message = await pi_sdk.complete(provider.model, ctx("b"))
    assert message.stop_reason == "error"
    assert "no reply left for call 2" in (message.error_message or "")


async def test_every_call_past_the_script_counts_only_the_replies_that_were_scripted():
    provider = ScriptedProvider(["only"])
    await pi_sdk.complete(provider.model, ctx("a"))
    await pi_sdk.complete(provider.model, ctx("b"))
    message = await pi_sdk.complete(provider.model, ctx("c"))
    assert "no reply left for call 3 (1 were scripted)" in (message.error_message or "")


async def test_callable_steps_see_the_call():
    provider = ScriptedProvider(
        [lambda call: f"you said {call.context.messages[-1].content[0].text}"]
    )
    provider.add(lambda call: ScriptedReply.text(str(len(call.context.messages))))
    assert (await pi_sdk.complete(provider.model, ctx("ping"))).text == "you said ping"
    assert (await pi_sdk.complete(provider.model, ctx("a", "b", "c"))).text == "3"


async def test_two_providers_route_by_model_id():
    first, second = ScriptedProvider(["from first"]), ScriptedProvider(["from second"])
    assert first.model.id != second.model.id
    assert (await pi_sdk.complete(second.model, ctx("x"))).text == "from second"
    assert (await pi_sdk.complete(first.model, ctx("x"))).text == "from first"
    assert pi_sdk.get_api_provider("scripted").source_id == "pi_sdk._testing.scripted"


async def test_model_rebuilt_from_json_routes_while_its_provider_lives():
    provider = ScriptedProvider(["routed"])
    model = pi_sdk.Model.model_validate_json(provider.model.model_dump_json())
    assert (await pi_sdk.complete(model, ctx("x"))).text == "routed"


async def test_register_again_after_the_registries_were_reset():
    provider = ScriptedProvider(["a", "b"])
    with use_plugin_manager(PluginManager()):  # resets the registries
        with pytest.raises(pi_sdk.ProviderNotFoundError):
            pi_sdk.stream(provider.model, ctx("x"))
        assert (await provider.stream_fn(provider.model, ctx("x")).result()).text == "a"
        provider.register()
        assert (await pi_sdk.complete(provider.model, ctx("x"))).text == "b"


async def test_stop_reason_override_and_explicit_tool_call_ids():
    reply = ScriptedReply.tool_call("t", {}, id="toolu_9", text="calling", stop_reason="length")
    provider = ScriptedProvider([reply])
    message = await pi_sdk.complete(provider.model, ctx("x"))
    assert message.stop_reason == "length"
    assert message.tool_calls[0].id == "toolu_9"
    assert message.text == "calling"


@pytest.mark.parametrize("chunk_size", [0, 1, 100])
async def test_chunk_size_extremes_give_the_same_final_message(chunk_size):
    reply = ScriptedReply(
        content=[
            pi_sdk.TextContent(text="abc"),
            pi_sdk.ToolCall(id="c", name="t", arguments={"k": "v"}),
        ],
        chunk_size=chunk_size,
    )
    message = await pi_sdk.complete(ScriptedProvider([reply]).model, ctx("x"))
    assert message.text == "abc"
    assert message.tool_calls[0].arguments == {"k": "v"}


@pytest.mark.parametrize(
    ("with_tool_call", "given", "expected"),
    [
        (False, None, "stop"),
        (True, None, "toolUse"),
        (True, "stop", "stop"),  # kept as given, even with a tool call
        (False, "length", "length"),
        (True, "length", "length"),
        (False, "toolUse", "toolUse"),
    ],
)
async def test_a_stop_reason_given_is_kept_and_the_default_follows_the_tool_calls(
    with_tool_call: bool, given: str | None, expected: str
):
    content: list[pi_sdk.TextContent | pi_sdk.ToolCall] = [pi_sdk.TextContent(text="x")]
    if with_tool_call:
        content.append(pi_sdk.ToolCall(id="c", name="t", arguments={}))
    reply = ScriptedReply(content=content, stop_reason=given)  # type: ignore[arg-type]
    message = await pi_sdk.complete(ScriptedProvider([reply]).model, ctx("x"))
    assert message.stop_reason == expected


@pytest.mark.parametrize(
    ("text", "chunk_size", "deltas"),
    [
        ("abcd", 0, ["abcd"]),  # 0: the block in one delta
        ("abcd", -1, ["abcd"]),
        ("abcd", 4, ["abcd"]),
        ("abcd", 3, ["abc", "d"]),
        ("abcd", 2, ["ab", "cd"]),
        ("abcd", 1, ["a", "b", "c", "d"]),
        ("", 0, []),  # an empty block has no delta
        ("", 3, []),
    ],
)
async def test_text_and_tool_arguments_are_cut_into_chunk_size_deltas(
    text: str, chunk_size: int, deltas: list[str]
):
    reply = ScriptedReply(
        content=[
            pi_sdk.TextContent(text=text),
            pi_sdk.ToolCall(id="c", name="t", arguments={}, invalid_arguments=text),
        ],
        chunk_size=chunk_size,
    )
    provider = ScriptedProvider([reply])
    events = await events_of(provider.stream_fn(provider.model, ctx()))
    assert [e.delta for e in events if e.type == "text_delta"] == deltas
    assert [e.delta for e in events if e.type == "toolcall_delta"] == deltas


async def test_every_signature_and_flag_of_a_template_block_reaches_the_message():
    reply = ScriptedReply(
        content=[
            pi_sdk.ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
            pi_sdk.TextContent(text="Hi", text_signature="text-sig"),
            pi_sdk.ToolCall(id="c1", name="t", arguments={"a": 1}, thought_signature="th-sig"),
        ],
    )
    provider = ScriptedProvider([reply])
    message = await provider.stream_fn(provider.model, ctx("x")).result()
    thinking, text, call = message.content
    assert isinstance(thinking, pi_sdk.ThinkingContent)
    assert (thinking.redacted, thinking.thinking_signature) == (True, "opaque")
    assert isinstance(text, pi_sdk.TextContent) and text.text_signature == "text-sig"
    assert isinstance(call, pi_sdk.ToolCall) and call.thought_signature == "th-sig"


async def test_tool_arguments_stream_as_utf8_json_text_not_ascii_escapes():
    arguments = {"city": "Zürich", "note": "東京"}
    provider = ScriptedProvider([ScriptedReply.tool_call("t", arguments, chunk_size=0)])
    events = await events_of(provider.stream_fn(provider.model, ctx("x")))
    [delta] = [e.delta for e in events if e.type == "toolcall_delta"]
    assert delta == '{"city": "Zürich", "note": "東京"}'


@pytest.mark.parametrize(
    ("kwargs", "provider_name", "reasoning"),
    [
        ({}, "scripted", False),
        ({"provider": "acme", "reasoning": True}, "acme", True),
    ],
)
def test_the_model_carries_the_api_and_the_given_provider_and_reasoning(
    kwargs: dict, provider_name: str, reasoning: bool
):
    model = ScriptedProvider(**kwargs).model
    assert (model.api, model.provider, model.reasoning) == ("scripted", provider_name, reasoning)
    assert model.input == ["text", "image"]

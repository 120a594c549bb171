"""``stream_proxy`` against a scripted proxy: the request it sends and how it reads the events."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.loopback import LoopbackServer, Step, json_step, sse_step
from _support.proxy import USAGE, played, prompt

import pi_sdk
from pi_sdk.agent import proxy_event_to_dict, stream_proxy
from pi_sdk.provider import MessageBuilder

MODEL = pi_sdk.Model(id="m-1", api="anthropic-messages", provider="anthropic", base_url="http://x")
TEXT_REPLY = [
    {"type": "start"},
    {"type": "text_start", "contentIndex": 0},
    {"type": "text_delta", "contentIndex": 0, "delta": "Hel"},
    {"type": "text_delta", "contentIndex": 0, "delta": "lo"},
    {"type": "text_end", "contentIndex": 0, "contentSignature": "text-sig"},
    {"type": "done", "reason": "stop", "usage": USAGE},
]


async def _through(steps: list[Step], **options: Any) -> tuple[LoopbackServer, Any, list[Any]]:
    def call(url: str) -> Any:
        options_ = pi_sdk.StreamOptions(**options)
        return stream_proxy(
            MODEL, prompt("question"), options_, proxy_url=url + "/", auth_token="tok-12345678"
        )

    return await played(steps, call)


async def test_the_request_is_pis_shape_with_only_the_serializable_options():
    proxy, message, _ = await _through(
        [sse_step(TEXT_REPLY)],
        temperature=0.2,
        max_tokens=99,
        reasoning="high",
        session_id="s-1",
        headers={"x-extra": "1"},
        api_key="never-sent",
        max_retries=0,
    )
    method, target, body = proxy.requests[0]
    assert (method, target) == ("POST", "/api/stream")
    assert proxy.headers[0]["authorization"] == "Bearer tok-12345678"
    assert proxy.headers[0]["content-type"] == "application/json"
    sent = json.loads(body)
    assert sent["model"] == MODEL.model_dump(mode="json")
    assert sent["context"]["messages"][0]["content"] == "question"
    assert sent["options"] == {
        "temperature": 0.2,
        "maxTokens": 99,
        "reasoning": "high",
        "sessionId": "s-1",
        "headers": {"x-extra": "1"},
        "maxRetryDelayMs": 60000,
    }
    assert b"never-sent" not in body
    assert message.text == "Hello"


async def test_the_message_is_rebuilt_with_the_servers_usage_and_signatures():
    _, message, seen = await _through([sse_step(TEXT_REPLY)])
    assert [event.type for event in seen] == [
        "start", "text_start", "text_delta", "text_delta", "text_end", "done",
    ]  # fmt: skip
    assert seen[2].partial is message  # every event carries the one message being rebuilt
    assert message.content == [pi_sdk.TextContent(text="Hello", text_signature="text-sig")]
    assert message.usage.model_dump(mode="json", by_alias=True) == USAGE
    assert (message.api, message.provider, message.model) == (MODEL.api, "anthropic", "m-1")


async def test_an_error_event_ends_the_call_with_the_servers_text_and_partial_content():
    events = [
        *TEXT_REPLY[:3],
        {"type": "error", "reason": "error", "errorMessage": "overloaded", "usage": USAGE},
    ]
    _, message, seen = await _through([sse_step(events)])
    assert seen[-1].type == "error"
    assert (message.stop_reason, message.error_message, message.text) == (
        "error",
        "overloaded",
        "Hel",
    )
    assert message.usage.output == 4


async def test_unknown_event_types_are_skipped_as_pi_skips_them():
    events = [TEXT_REPLY[0], {"type": "server_note", "text": "hi"}, *TEXT_REPLY[1:]]
    _, message, _ = await _through([sse_step(events)])
    assert message.stop_reason == "stop" and message.text == "Hello"


@pytest.mark.parametrize(
    ("events", "error"),
    [
        (
            [{"type": "start"}, {"type": "text_delta", "contentIndex": 0, "delta": "x"}],
            "malformed stream",
        ),
        (TEXT_REPLY[:4], "the proxy stream ended before its done or error event"),
        (
            [{"type": "text_start", "contentIndex": "zero"}],
            "'text_start' needs 'contentIndex' of type int",
        ),
        ([{"type": "done", "reason": "finished", "usage": USAGE}], "done with reason 'finished'"),
    ],
)
async def test_a_broken_proxy_stream_is_an_error_naming_the_problem(events: list[Any], error: str):
    _, message, _ = await _through([sse_step(events)], max_retries=0)
    assert message.stop_reason == "error"
    assert error in (message.error_message or "")


async def test_a_server_error_before_any_content_is_retried():
    failing = json_step(503, {"error": "warming up"})
    proxy, message, _ = await _through([failing, sse_step(TEXT_REPLY)], max_retries=1)
    assert len(proxy.requests) == 2
    assert message.text == "Hello"


async def test_a_refusal_keeps_pis_text_and_leaves_the_token_out():
    _, message, _ = await _through([json_step(403, {"error": "no tok-12345678 for you"})])
    assert message.error_message == "Proxy error: no [REDACTED] for you"
    _, message, _ = await _through([json_step(404, b"<html>nope</html>")])
    assert message.error_message == "Proxy error: 404 Not Found"


def test_our_events_encode_to_pis_proxy_shape_without_partial():
    """pi-agent-core 1.6's shape: toolcall_end carries the call, done the vendor's level."""
    builder = MessageBuilder(MODEL)
    events = [builder.start()]
    events += builder.open_thinking("t", "hmm", signature="th-sig")
    events += builder.end_thinking("t")
    events += builder.open_tool_call("c", id="call_1", name="lookup", arguments='{"q": 1}')
    events += builder.end_tool_call("c")
    builder.set_usage(input=3, output=2)
    builder.message.provider_thinking_level = "high"
    events += builder.done("toolUse")
    wire = [proxy_event_to_dict(event) for event in events]
    usage = builder.message.usage.model_dump(mode="json", by_alias=True)
    assert wire == [
        {"type": "start"},
        {"type": "thinking_start", "contentIndex": 0},
        {"type": "thinking_delta", "contentIndex": 0, "delta": "hmm"},
        {"type": "thinking_end", "contentIndex": 0, "contentSignature": "th-sig"},
        {"type": "toolcall_start", "contentIndex": 1, "id": "call_1", "toolName": "lookup"},
        {"type": "toolcall_delta", "contentIndex": 1, "delta": '{"q": 1}'},
        {
            "type": "toolcall_end",
            "contentIndex": 1,
            "toolCall": {
                "type": "toolCall",
                "id": "call_1",
                "name": "lookup",
                "arguments": {"q": 1},
            },
        },
        {"type": "done", "reason": "toolUse", "usage": usage, "providerThinkingLevel": "high"},
    ]


async def test_a_pi_16_proxy_stream_gives_the_whole_call_and_the_vendors_level():
    """pi-agent-core 1.6: ``toolcall_end`` carries the call, ``done`` the provider's level."""
    call = {
        "type": "toolCall",
        "id": "call_9",
        "name": "lookup",
        "arguments": {"q": 2},
        "thoughtSignature": "gemini-sig",
    }
    events = [
        {"type": "start"},
        {"type": "toolcall_start", "contentIndex": 0, "id": "call_9", "toolName": "lookup"},
        {"type": "toolcall_delta", "contentIndex": 0, "delta": '{"q": 2}'},
        {"type": "toolcall_end", "contentIndex": 0, "toolCall": call},
        {"type": "done", "reason": "toolUse", "usage": USAGE, "providerThinkingLevel": "medium"},
    ]
    _, message, _ = await _through([sse_step(events)])
    assert message.stop_reason == "toolUse", message.error_message
    [got] = message.tool_calls
    assert got.model_dump(mode="json", by_alias=True, exclude_none=True) == call
    assert message.provider_thinking_level == "medium"


def test_whole_blocks_go_over_the_proxy_and_come_back_as_they_were():
    """pi-sdk's whole-block events (server tools, an image the model made) survive the proxy."""
    from pi_sdk import ImageContent, ServerToolCall
    from pi_sdk._serve.decoder import EventDecoder

    builder = MessageBuilder(MODEL)
    events = [builder.start()]
    call = ServerToolCall(id="ig_1", name="image_generation", arguments={}, raw={"id": "ig_1"})
    image = ImageContent(data="aGk=", mime_type="image/png", thought_signature="c2ln")
    events += builder.server_block(call) + builder.server_block(image)
    events += builder.done("stop")
    wire = [proxy_event_to_dict(event) for event in events]
    assert wire[2] == {
        "type": "image",
        "contentIndex": 1,
        "image": {
            "type": "image",
            "data": "aGk=",
            "mimeType": "image/png",
            "thoughtSignature": "c2ln",
        },
    }
    client = MessageBuilder(MODEL)
    decoder = EventDecoder(client)
    rebuilt = [event for data in wire for event in decoder.feed(data)]
    assert [e.type for e in rebuilt] == ["servertool_call", "image", "done"]
    assert client.message.content == [call, image]
    bad = EventDecoder(MessageBuilder(MODEL))
    with pytest.raises(pi_sdk.provider.ProviderError, match="bad image"):
        bad.feed({"type": "image", "contentIndex": 0, "image": {"type": "image"}})


def test_the_request_body_is_pi_s_camel_case_json_without_empty_fields():
    from pi_sdk._serve.client import proxy_request_body

    model = pi_sdk.Model(
        id="m-1", api="anthropic-messages", provider="anthropic", base_url="http://x",
        context_window=1000, max_tokens=100,
    )  # fmt: skip
    result = pi_sdk.ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=[pi_sdk.TextContent(text="ok")], timestamp=3
    )
    context = pi_sdk.Context(system_prompt="Be brief.", messages=[result])
    body = proxy_request_body(model, context, pi_sdk.StreamOptions(max_tokens=5))
    assert body["model"]["baseUrl"] == "http://x" and body["model"]["contextWindow"] == 1000
    assert body["context"]["systemPrompt"] == "Be brief."
    sent = body["context"]["messages"][0]
    assert (sent["toolCallId"], sent["toolName"], sent["isError"]) == ("c1", "read", False)
    assert "tool_call_id" not in sent and "details" not in sent  # pi's names, no nulls
    assert body["options"] == {"maxTokens": 5, "maxRetryDelayMs": 60000}

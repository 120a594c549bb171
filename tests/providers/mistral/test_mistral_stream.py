"""The mistral-conversations adapter on hand-made bodies, through the real ``mistralai`` client.

Bodies are served by ``ChunkedTransport`` (small chunks, counted closes) via a ``Mistral``
client handed over in ``StreamOptions.client``; nothing leaves the process.
"""

from __future__ import annotations

import json
import random
from typing import Any

import httpx2
import pytest
from _support.conformance import (
    CLIENT_FACTORIES,
    ChunkedTransport,
    Reply,
    assert_valid_event_sequence,
    collect,
    collect_aborting,
)

import pi_sdk
from pi_sdk import (
    Context,
    Model,
    ModelCost,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)

BASE = "https://api.mistral.test"
MODEL = Model(
    id="magistral-test",
    reasoning=True,
    cost=ModelCost(input=2.0, output=5.0, cache_read=0.2),
    api="mistral-conversations",
    provider="mistral",
    base_url=BASE,
)
CTX = Context(messages=[UserMessage(content="hi")])
SSE = {"content-type": "text/event-stream; charset=utf-8"}
JSON = {"content-type": "application/json"}


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "magistral-test-2509",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def thought(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


def usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def sse(*chunks: dict[str, Any], done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


THINKING_AND_TOOL = sse(
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": [thought("Let me ")]}, p="abcdef"),
    chunk({"content": [thought("think é.")]}),
    chunk({"content": [{"type": "text", "text": "Calling"}]}),
    chunk({"content": " now."}, p="xy"),
    chunk(
        {
            "tool_calls": [
                {"id": "AbC123xYz", "function": {"name": "lookup", "arguments": '{"q": "é"}'}}
            ]
        },
        "tool_calls",
        usage=usage(30, 12, cached=20),
    ),
)


async def run(
    replies: list[Reply], *, model: Model = MODEL, chunk_size: int = 9, **options: Any
) -> tuple[list[Any], pi_sdk.AssistantMessage, ChunkedTransport]:
    transport = ChunkedTransport(replies, chunk_size=chunk_size)
    client = CLIENT_FACTORIES["mistral-conversations"](transport, model.base_url)
    try:
        opts = StreamOptions(client=client, max_retries=options.pop("max_retries", 0), **options)
        events, message = await collect(pi_sdk.stream(model, CTX, opts))
    finally:
        await client.close()
    return events, message, transport


def ok(body: bytes, headers: dict[str, str] = SSE) -> Reply:
    return Reply(status=200, body=body, headers=headers)


async def test_thinking_text_and_a_whole_tool_call():
    events, message, transport = await run([ok(THINKING_AND_TOOL)])
    assert_valid_event_sequence(events)
    assert message.stop_reason == "toolUse"
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me think é."
    assert thinking.thinking_signature is None
    assert isinstance(text, TextContent) and text.text == "Calling now."
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == ("AbC123xYz", "lookup", {"q": "é"})
    usage_ = message.usage
    assert (usage_.input, usage_.output, usage_.cache_read, usage_.total_tokens) == (10, 12, 20, 42)
    assert usage_.cost.total == pytest.approx((10 * 2.0 + 12 * 5.0 + 20 * 0.2) / 1e6)
    assert [e.type for e in events].count("thinking_delta") == 2
    assert transport.closed == 1
    sent = json.loads(transport.requests[0].content)
    assert sent["model"] == "magistral-test" and sent["stream"] is True


async def test_fragmented_tool_calls_by_index_and_object_arguments():
    body = sse(
        chunk({"tool_calls": [{"id": "aaaaaaaa1", "index": 0, "function": {"name": "f"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]}),
        chunk({"tool_calls": [{"id": "bbbbbbbb2", "index": 0, "function": {"name": "g"}}]}),
        chunk({"tool_calls": [{"id": "null", "function": {"name": "h", "arguments": {"x": [1]}}}]}),
        chunk({"content": ""}, "stop"),
    )
    events, message, _ = await run([ok(body)])
    assert_valid_event_sequence(events)
    assert message.stop_reason == "toolUse"  # a clean stop with tool calls
    assert [(c.id, c.name, c.arguments) for c in message.content if isinstance(c, ToolCall)] == [
        ("aaaaaaaa1", "f", {"a": 1}),
        ("bbbbbbbb2", "g", {}),
        ("toolcall0", "h", {"x": [1]}),  # pi-mono's derived id for an id-less call
    ]


@pytest.mark.parametrize(
    ("reason", "stop", "needle"),
    [
        ("error", "error", "finish_reason 'error'"),
        ("surprise", "error", "surprise"),
        ("length", "length", None),
        ("model_length", "length", None),
    ],
)
async def test_finish_reasons(reason: str, stop: str, needle: str | None):
    body = sse(chunk({"content": "partial"}), chunk({"content": ""}, reason))
    events, message, _ = await run([ok(body)])
    assert_valid_event_sequence(events)
    assert message.stop_reason == stop
    assert message.content == [TextContent(text="partial")]
    if needle is not None:
        assert needle in (message.error_message or "")


async def test_stream_without_done_is_an_error_with_content_kept():
    body = sse(chunk({"content": "half"}), chunk({"content": ""}, "stop"), done=False)
    events, message, _ = await run([ok(body)])
    assert [e.type for e in events].count("error") == 1
    assert message.stop_reason == "error" and "[DONE]" in (message.error_message or "")
    assert message.content == [TextContent(text="half")]


async def test_in_stream_error_object_keeps_partial_content():
    error = {"object": "error", "message": "overloaded", "type": "service_unavailable"}
    body = sse(chunk({"content": "so far"}), error)
    events, message, _ = await run([ok(body)])
    assert_valid_event_sequence(events)
    assert message.stop_reason == "error"
    assert "overloaded" in (message.error_message or "")
    assert message.content == [TextContent(text="so far")]


def _offsets(body: bytes) -> list[int]:
    rng = random.Random(7)
    picks = {1, len(body) - 1, *(rng.randrange(len(body)) for _ in range(25))}
    picks.update(i for i in range(len(body)) if body.startswith(b"\n\ndata: ", i))
    return sorted(picks)


async def test_truncated_stream_ends_in_one_error_with_partial_content():
    _, full, _ = await run([ok(THINKING_AND_TOOL)])
    for offset in _offsets(THINKING_AND_TOOL):
        where = f"cut at {offset}/{len(THINKING_AND_TOOL)}"
        cut = THINKING_AND_TOOL[:offset]
        events, message, transport = await run([ok(cut)], chunk_size=7)
        if cut.endswith(b"data: [DONE]\n") or offset >= THINKING_AND_TOOL.index(
            b"\n\ndata: [DONE]"
        ):
            # Only [DONE] (or the blank line after it) is missing: the last chunk brought the
            # finish reason and the usage, so the reply is complete (issue 12).
            assert message.content == full.content and events[-1].type == "done", where
            assert message.usage == full.usage, where
            continue
        assert [e.type for e in events].count("error") == 1, where
        assert events[-1].type == "error" and message.stop_reason == "error", where
        assert_valid_event_sequence(events)
        assert transport.closed == 1, where
        assert len(message.content) <= len(full.content), where
        for got, want in zip(message.content, full.content, strict=False):
            assert type(got) is type(want), where
            if isinstance(got, TextContent):
                assert isinstance(want, TextContent) and want.text.startswith(got.text), where
            elif isinstance(got, ThinkingContent):
                assert isinstance(want, ThinkingContent), where
                assert want.thinking.startswith(got.thinking), where


def document(**fields: Any) -> bytes:
    message = {
        "role": "assistant",
        "content": [thought("Let me think é."), {"type": "text", "text": "Calling now."}],
        "tool_calls": [
            {"id": "AbC123xYz", "function": {"name": "lookup", "arguments": '{"q": "é"}'}}
        ],
    }
    answer = {
        "id": "c1",
        "object": "chat.completion",
        "model": "magistral-test-2509",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": usage(30, 12, cached=20),
        **fields,
    }
    return json.dumps(answer).encode()


async def test_whole_json_answer_gives_the_same_message_as_its_stream():
    _, streamed, _ = await run([ok(THINKING_AND_TOOL)])
    events, whole, _ = await run([ok(document(), JSON)])
    assert_valid_event_sequence(events)
    assert whole.content == streamed.content
    assert (whole.stop_reason, whole.usage) == (streamed.stop_reason, streamed.usage)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b'{"object": "error", "message": "bad key", "type": "auth"}', "bad key"),
        (b'{"unexpected": true}', "not a chat completion"),
        (b'{"choices": [', "malformed JSON"),
    ],
)
async def test_bad_json_answers_are_clear_errors(body: bytes, needle: str):
    events, message, _ = await run([ok(body, JSON)])
    assert events[-1].type == "error"
    assert needle in (message.error_message or "")


@pytest.mark.parametrize(
    ("status", "body", "needles"),
    [
        (
            401,
            b'{"object":"error","message":"Unauthorized","type":"invalid_api_key","code":"1"}',
            ["401", "invalid_api_key", "Unauthorized"],
        ),
        (
            422,
            b'{"detail":[{"loc":["body","model"],"msg":"Field required","type":"missing"}]}',
            ["422", "Field required"],
        ),
        (502, b"<html><body>Bad gateway</body></html>", ["502", "Bad gateway"]),
    ],
)
async def test_http_errors_keep_status_and_vendor_message(
    status: int, body: bytes, needles: list[str]
):
    reply = Reply(status=status, body=body, headers=JSON if body.startswith(b"{") else {})
    events, message, transport = await run([reply])
    assert [e.type for e in events] == ["start", "error"]
    assert message.content == []
    for needle in needles:
        assert needle in (message.error_message or "")
    assert "test-key" not in (message.error_message or "")
    assert transport.closed == 1


async def test_rate_limit_is_retried_then_succeeds():
    limited = Reply(
        status=429,
        body=b'{"object":"error","message":"Requests rate limit exceeded","type":"rate_limited"}',
        headers={**JSON, "retry-after": "0"},
    )
    events, message, transport = await run(
        [limited, ok(sse(chunk({"content": "ok"}, "stop")))], max_retries=1
    )
    assert message.stop_reason == "stop" and message.content == [TextContent(text="ok")]
    assert len(transport.requests) == 2


async def test_request_headers_auth_and_affinity():
    _, _, transport = await run(
        [ok(sse(chunk({"content": "ok"}, "stop")))],
        session_id="session-1",
        headers={"x-extra": "1"},
    )
    request = transport.requests[0]
    assert request.url.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["x-affinity"] == "session-1"
    assert request.headers["x-extra"] == "1"


async def test_connection_error_is_a_retryable_error():
    class Refusing(httpx2.AsyncBaseTransport):
        calls = 0

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            Refusing.calls += 1
            raise httpx2.ConnectError("connection refused", request=request)

    from mistralai.client import Mistral

    client = Mistral(
        api_key="test-key", server_url=BASE, async_client=httpx2.AsyncClient(transport=Refusing())
    )
    options = StreamOptions(client=client, max_retries=1, max_retry_delay_ms=1)
    message = await pi_sdk.complete(MODEL, CTX, options)
    assert message.stop_reason == "error"
    assert "connect" in (message.error_message or "").lower()
    assert Refusing.calls == 2  # retried once


async def test_missing_api_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    message = await pi_sdk.complete(MODEL, CTX, StreamOptions(max_retries=0))
    assert message.stop_reason == "error"
    assert "MISTRAL_API_KEY" in (message.error_message or "")


async def test_a_consumer_that_stops_early_closes_the_response():
    body = sse(*(chunk({"content": f"w{i} "}) for i in range(300)), chunk({}, "stop"))
    transport = ChunkedTransport([ok(body)], chunk_size=64)
    client = CLIENT_FACTORIES["mistral-conversations"](transport, BASE)
    try:
        stream = pi_sdk.stream(MODEL, CTX, StreamOptions(client=client, max_retries=0))
        async with stream as events:
            async for event in events:
                if event.type == "text_delta":
                    break
        message = await stream.result()
    finally:
        await client.close()
    assert transport.closed == 1 and transport.bytes_served < len(body)
    assert message.stop_reason == "aborted" and message.text.startswith("w0")


async def test_abort_while_the_server_stalls_keeps_partial_content():
    body = sse(chunk({"content": "Hello "}), chunk({"content": "there"}), chunk({}, "stop"))
    stall = body.index(b"there") - 20  # the second chunk never arrives whole
    transport = ChunkedTransport([Reply(200, body, SSE, stall_after=stall)], chunk_size=11)
    client = CLIENT_FACTORIES["mistral-conversations"](transport, BASE)
    controller = pi_sdk.AbortController()
    try:
        opts = StreamOptions(client=client, max_retries=0, signal=controller.signal)
        stream = pi_sdk.stream(MODEL, CTX, opts)
        events, message = await collect_aborting(stream, controller, "text_delta")
    finally:
        await client.close()
    assert_valid_event_sequence(events)
    assert message.stop_reason == "aborted" and message.text == "Hello "
    assert transport.closed == 1


async def test_two_whole_calls_without_index_or_id_stay_two_calls():
    """Each id-less, index-less call arrives whole: the second is a call of its own."""
    body = sse(
        chunk({"tool_calls": [{"function": {"name": "f", "arguments": '{"a": 1}'}}]}),
        chunk({"tool_calls": [{"id": "null", "function": {"name": "g", "arguments": {"b": 2}}}]}),
        chunk({"content": ""}, "tool_calls"),
    )
    events, message, _ = await run([ok(body)])
    assert_valid_event_sequence(events)
    calls = [c for c in message.content if isinstance(c, ToolCall)]
    assert [(c.name, c.arguments) for c in calls] == [("f", {"a": 1}), ("g", {"b": 2})]


async def test_signatures_are_tied_to_the_url_the_client_calls():
    """A caller's client decides the server: the reply's origin is its URL, not the model's."""
    transport = ChunkedTransport([ok(THINKING_AND_TOOL)])
    client = CLIENT_FACTORIES["mistral-conversations"](transport, BASE)
    elsewhere = MODEL.model_copy(update={"base_url": "https://elsewhere.test"})
    try:
        _, message = await collect(pi_sdk.stream(elsewhere, CTX, StreamOptions(client=client)))
    finally:
        await client.close()
    assert transport.requests[0].url.host == "api.mistral.test"
    assert message.signature_origin == f"mistral-conversations@{BASE}"


@pytest.mark.parametrize("status", [399, 400])
async def test_status_400_is_the_first_error_and_399_is_read_as_the_stream(status: int):
    if status < 400:
        reply = Reply(status=status, body=sse(chunk({"content": "ok"}, "stop")), headers=SSE)
    else:
        body = b'{"object":"error","message":"Bad input","type":"invalid_request_error"}'
        reply = Reply(status=status, body=body, headers=JSON)
    events, message, transport = await run([reply])
    if status < 400:
        assert (message.stop_reason, message.error_message) == ("stop", None)
        assert message.content == [TextContent(text="ok")]
    else:
        assert [e.type for e in events] == ["start", "error"]
        assert message.content == []
        assert message.error_message == "400 Bad Request: invalid_request_error: Bad input"
    assert transport.closed == 1

"""The anthropic-messages adapter on hand-made streams, through the real SDK client.

Bodies are served by ``conformance_check.ChunkedTransport`` (small chunks, counted closes) via
an ``AsyncAnthropic`` handed over in ``StreamOptions.client``; nothing leaves the process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest
from _support import conformance
from _support.conformance import ChunkedTransport, Reply, assert_valid_event_sequence, collect

import pi_sdk
from pi_sdk import Context, StreamOptions, ThinkingContent, UserMessage

BASE = "https://api.anthropic.test"
MODEL = pi_sdk.Model(
    id="claude-test-1",
    api="anthropic-messages",
    provider="anthropic",
    base_url=BASE,
    reasoning=True,
    input=["text", "image"],
)
CTX = Context(messages=[UserMessage(content="hi")])
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}
JSON_HEADERS = {"content-type": "application/json"}


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events
    ).encode()


def start(input_tokens: int = 10, **usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test-1-20990101",
            "content": [],
            "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
        },
    }


def block(index: int, **content: Any) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content}


def delta(index: int, **payload: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": payload}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def end(reason: str | None, **usage: Any) -> list[dict[str, Any]]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": usage},
        {"type": "message_stop"},
    ]


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    """A text block streamed as ``pieces``."""
    chunks = [delta(index, type="text_delta", text=p) for p in pieces]
    return [block(index, type="text", text=""), *chunks, stop(index)]


def thinking_block(
    index: int, *pieces: str, signature: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """A thinking block streamed as ``pieces``, then its signature in ``signature`` parts."""
    chunks = [delta(index, type="thinking_delta", thinking=p) for p in pieces]
    chunks += [delta(index, type="signature_delta", signature=s) for s in signature]
    return [block(index, type="thinking", thinking="", signature=""), *chunks, stop(index)]


def redacted_block(index: int, data: str) -> list[dict[str, Any]]:
    return [block(index, type="redacted_thinking", data=data), stop(index)]


def tool_block(
    index: int, call_id: str, name: str, *arguments: str, kind: str = "tool_use", **start: Any
) -> list[dict[str, Any]]:
    """A ``tool_use`` (or ``kind``) block whose input JSON streams as ``arguments``."""
    content = {"type": kind, "id": call_id, "name": name, "input": {}, **start}
    chunks = [delta(index, type="input_json_delta", partial_json=p) for p in arguments]
    return [block(index, **content), *chunks, stop(index)]


def text_reply(*pieces: str, reason: str = "end_turn") -> bytes:
    return sse(start(), *text_block(0, *pieces), *end(reason, output_tokens=5))


def client_for(transport: ChunkedTransport) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key="test-key",
        base_url=BASE,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )


async def run(
    replies: list[Reply],
    *,
    model: pi_sdk.Model = MODEL,
    context: Context = CTX,
    watch: Callable[[Any], None] | None = None,
    **options: Any,
) -> tuple[list[Any], pi_sdk.AssistantMessage, ChunkedTransport]:
    """Serve ``replies`` to one call; ``watch(event)`` sees each event as it arrives."""
    transport = ChunkedTransport(replies, chunk_size=options.pop("chunk_size", 9))
    client = client_for(transport)
    events: list[Any] = []
    try:
        opts = StreamOptions(client=client, max_retries=options.pop("max_retries", 0), **options)
        stream = pi_sdk.stream(model, context, opts)
        async for event in stream:
            events.append(event)
            if watch is not None:
                watch(event)
        message = await stream.result()
    finally:
        await client.close()
    assert_valid_event_sequence(events)
    return events, message, transport


def ok(body: bytes, **kw: Any) -> Reply:
    return Reply(status=200, body=body, headers=SSE_HEADERS, **kw)


def http_error(status: int, kind: str, message: str, **headers: str) -> Reply:
    body = json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    return Reply(status=status, body=body, headers={**JSON_HEADERS, **headers})


# --- content ----------------------------------------------------------------------------------


async def test_text_usage_and_cost_from_model_prices():
    model = MODEL.model_copy(
        update={"cost": pi_sdk.ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75)}
    )
    body = sse(
        start(100, cache_read_input_tokens=1000, cache_creation_input_tokens=200),
        *text_block(0, "Héllo ", "wörld ☂️"),
        # A proxy sending nulls must not erase message_start's numbers.
        *end("end_turn", input_tokens=None, cache_read_input_tokens=None, output_tokens=42),
    )
    events, message, _ = await run([ok(body)], model=model)
    assert message.stop_reason == "stop" and message.text == "Héllo wörld ☂️"
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.cache_write) == (100, 42, 1000, 200)
    assert u.total_tokens == 1342
    assert u.cost.input == pytest.approx(100 * 3 / 1e6)
    assert u.cost.output == pytest.approx(42 * 15 / 1e6)
    assert u.cost.cache_read == pytest.approx(1000 * 0.3 / 1e6)
    assert u.cost.cache_write == pytest.approx(200 * 3.75 / 1e6)
    assert u.cost.total == pytest.approx(
        u.cost.input + u.cost.output + u.cost.cache_read + u.cost.cache_write
    )
    assert message.model == "claude-test-1"  # the requested id (pi-mono), not the vendor's


async def test_thinking_signature_redacted_and_tool_call():
    body = sse(
        start(),
        *thinking_block(0, "Let me ", "think.", signature=("c2ln", "bmF0dXJl")),
        *redacted_block(1, "opaque-blob"),
        *tool_block(2, "toolu_1", "lookup", '{"q": "pa', 'ris", "n": 3', "}"),
        *end("tool_use", output_tokens=30),
    )
    seen: list[dict[str, Any]] = []

    def watch(event: Any) -> None:
        if event.type == "toolcall_delta":
            arguments = event.partial.content[event.content_index].arguments
            assert isinstance(arguments, dict)
            seen.append(json.loads(json.dumps(arguments)))

    _, message, _ = await run([ok(body)], watch=watch)
    thinking, redacted, call = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me think."
    assert thinking.thinking_signature == "c2lnbmF0dXJl" and not thinking.redacted
    assert isinstance(redacted, ThinkingContent) and redacted.redacted
    assert (
        redacted.thinking == "[Reasoning redacted]" and redacted.thinking_signature == "opaque-blob"
    )
    assert isinstance(call, pi_sdk.ToolCall) and call.arguments == {"q": "paris", "n": 3}
    assert message.stop_reason == "toolUse"
    # The arguments are a dict at every delta, growing as fragments arrive.
    assert seen == [{"q": "pa"}, {"q": "paris"}, {"q": "paris", "n": 3}]
    # Round trip keeps the opaque signatures.
    again = pi_sdk.AssistantMessage.model_validate_json(message.model_dump_json())
    assert again == message


async def test_server_tool_blocks_are_kept_whole_and_unknown_events_ignored():
    body = sse(
        start(),
        *tool_block(
            0, "srvtoolu_1", "web_search", '{"query": ', '"weather"}', kind="server_tool_use"
        ),
        block(1, type="web_search_tool_result", tool_use_id="srvtoolu_1", content=[]),
        stop(1),
        {"type": "brand_new_event", "foo": 1},
        block(2, type="text", text=""),
        delta(2, type="text_delta", text="Sunny"),
        delta(2, type="citations_delta", citation={"type": "web_search_result_location"}),
        stop(2),
        block(3, type="brand_new_block", x=1),
        stop(3),
        *end("end_turn", output_tokens=3),
    )
    events, message, _ = await run([ok(body)])
    kinds = [type(b) for b in message.content]
    assert kinds == [pi_sdk.ServerToolCall, pi_sdk.ServerToolResult, pi_sdk.TextContent]
    call, result, _ = message.content
    assert isinstance(call, pi_sdk.ServerToolCall) and call.arguments == {"query": "weather"}
    assert call.raw == {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "weather"},
    }
    assert isinstance(result, pi_sdk.ServerToolResult)
    assert (result.tool_call_id, result.kind, result.content) == (
        "srvtoolu_1",
        "web_search_tool_result",
        [],
    )
    assert message.text == "Sunny" and message.stop_reason == "stop"
    assert [e.type for e in events[1:3]] == ["servertool_call", "servertool_result"]
    assert [e.content_index for e in events if e.type == "text_start"] == [2]


async def test_a_server_call_with_broken_input_is_an_error_that_keeps_the_content():
    body = sse(
        start(),
        *text_block(0, "Let me search."),
        *tool_block(1, "srvtoolu_1", "web_search", '{"query": ', kind="server_tool_use"),
        *end("end_turn", output_tokens=3),
    )
    events, message, _ = await run([ok(body)])
    assert events[-1].type == "error" and message.stop_reason == "error"
    assert "srvtoolu_1" in (message.error_message or "")
    assert message.text == "Let me search."


async def test_a_failed_server_tool_carries_its_error_code():
    failure = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
    body = sse(
        start(),
        block(0, type="web_search_tool_result", tool_use_id="srvtoolu_9", content=failure),
        stop(0),
        *end("end_turn", output_tokens=3),
    )
    _, message, _ = await run([ok(body)])
    (result,) = message.content
    assert isinstance(result, pi_sdk.ServerToolResult) and result.error == "max_uses_exceeded"


async def test_tool_use_input_without_deltas_is_kept():
    body = sse(
        start(),
        *tool_block(0, "toolu_2", "now", input={"tz": "UTC"}),
        *end("tool_use", output_tokens=3),
    )
    _, message, _ = await run([ok(body)])
    assert message.tool_calls[0].arguments == {"tz": "UTC"}


async def test_max_tokens_cut_tool_arguments_keep_best_partial():
    body = sse(
        start(),
        *tool_block(0, "toolu_3", "write", '{"path": "a.py", "content": "print('),
        *end("max_tokens", output_tokens=8),
    )
    events, message, _ = await run([ok(body)])
    assert message.stop_reason == "length"
    assert message.tool_calls[0].arguments == {"path": "a.py", "content": "print("}


async def test_large_tool_arguments_stream_in_16_byte_fragments():
    payload = json.dumps({"rows": [{"i": i, "text": "x" * 40} for i in range(400)]})
    pieces = [payload[i : i + 16] for i in range(0, len(payload), 16)]
    body = sse(
        start(),
        *tool_block(0, "toolu_4", "store", *pieces),
        *end("tool_use", output_tokens=9000),
    )
    sizes: list[int] = []

    def watch(event: Any) -> None:
        if event.type == "toolcall_delta":
            arguments = event.partial.content[0].arguments
            assert isinstance(arguments, dict)
            sizes.append(len(arguments.get("rows", [])))

    _, message, _ = await run([ok(body)], chunk_size=4096, watch=watch)
    assert message.tool_calls[0].arguments == json.loads(payload)
    assert sizes == sorted(sizes) and sizes[-1] == 400 and sizes[len(sizes) // 2] > 100


# --- stop reasons and errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "needle"),
    [
        ("refusal", "refused"),
        ("sensitive", "stop_reason: sensitive"),
        ("model_context_window_exceeded", "Unhandled stop reason: model_context_window_exceeded"),
    ],
)
async def test_error_stop_reasons_keep_text(reason: str, needle: str):
    _, message, _ = await run([ok(text_reply("Partial ", "answer", reason=reason))])
    assert message.stop_reason == "error"
    assert needle in (message.error_message or "")
    assert message.text == "Partial answer"


async def test_refusal_details_are_in_the_error_text():
    body = text_reply("I can").split(b"event: message_delta")[0] + sse(
        {
            "type": "message_delta",
            "delta": {
                "stop_reason": "refusal",
                "stop_details": {"type": "refusal", "category": "cyber", "explanation": "Nope."},
            },
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    )
    _, message, _ = await run([ok(body)])
    assert message.stop_reason == "error" and message.text == "I can"
    assert message.error_message == (
        "The model refused to respond (stop_reason: refusal): cyber; Nope."
    )
    assert message.usage.output == 2


async def test_in_stream_error_event_keeps_partial_content():
    body = text_reply("Half").split(b"event: content_block_stop")[0] + sse(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    events, message, transport = await run([ok(body)])
    assert message.stop_reason == "error"
    assert message.error_message == "overloaded_error: Overloaded"
    assert message.text == "Half" and message.usage.input == 10
    assert transport.closed == 1


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "invalid_request_error"), (401, "authentication_error"), (404, "not_found_error"),
     (429, "rate_limit_error"), (500, "api_error"), (529, "overloaded_error")],
)  # fmt: skip
async def test_http_error_keeps_status_and_vendor_message(status: int, kind: str):
    _, message, transport = await run([http_error(status, kind, f"vendor says {status}")])
    assert message.stop_reason == "error"
    phrase = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found"}.get(status)
    phrase = phrase or {429: "Too Many Requests", 500: "Internal Server Error"}.get(status)
    head = f"{status} {phrase}" if phrase else str(status)  # 529 has no standard phrase
    assert message.error_message == f"{head}: {kind}: vendor says {status}"
    assert "test-key" not in message.error_message
    assert len(transport.requests) == 1


async def test_retryable_http_error_is_retried_then_succeeds():
    replies = [http_error(529, "overloaded_error", "Overloaded"), ok(text_reply("fine"))]
    _, message, transport = await run(replies, max_retries=2, max_retry_delay_ms=1)
    assert message.stop_reason == "stop" and message.text == "fine"
    assert len(transport.requests) == 2


async def test_server_can_forbid_a_retry():
    replies = [http_error(429, "rate_limit_error", "slow down", **{"x-should-retry": "false"})]
    _, message, transport = await run(replies, max_retries=3, max_retry_delay_ms=1)
    assert message.stop_reason == "error" and len(transport.requests) == 1


async def test_connection_error_is_retryable_and_reported():
    class Failing(ChunkedTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            self.requests.append(request)
            if len(self.requests) == 1:
                raise httpx2.ConnectError("connection refused")
            return await super().handle_async_request(request)

    transport = Failing([ok(text_reply("after retry"))])
    client = client_for(transport)
    try:
        opts = StreamOptions(client=client, max_retries=1, max_retry_delay_ms=1)
        _, message = await collect(pi_sdk.stream(MODEL, CTX, opts))
        transport.requests.clear()
        _, failed = await collect(
            pi_sdk.stream(MODEL, CTX, StreamOptions(client=client, max_retries=0))
        )
    finally:
        await client.close()
    assert message.text == "after retry"
    assert failed.stop_reason == "error" and "connection refused" in (failed.error_message or "")


# The shape of the anthropic SDK's recorded max_tokens body: its last event has no blank line.
RECORDED_MAX_TOKENS = (
    b"event: message_start\n"
    b'data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant",'
    b'"model":"claude-3-opus-20240229","content":[],"stop_reason":null,"stop_sequence":null,'
    b'"usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
    b"event: content_block_start\n"
    b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    b"event: ping\n"
    b'data: {"type": "ping"}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}'
    b"\n\n"
    b"event: content_block_stop\n"
    b'data: {"type":"content_block_stop","index":0}\n\n'
    b"event: message_delta\n"
    b'data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},'
    b'"usage":{"output_tokens":1}}\n\n'
    b"event: message_stop\n"
    b'data: {"type":"message_stop"}'
)


@pytest.mark.parametrize(
    "body",
    [
        RECORDED_MAX_TOKENS,  # as recorded: no blank line after message_stop
        RECORDED_MAX_TOKENS[:-5],  # message_stop's data cut
        RECORDED_MAX_TOKENS.split(b"event: message_stop")[0],  # message_stop missing
        RECORDED_MAX_TOKENS.split(b"event: message_stop")[0].rstrip(b"\n"),
    ],
    ids=["recorded", "stop-cut", "stop-missing", "stop-missing-no-blank-line"],
)
async def test_reply_whose_stop_reason_and_usage_arrived_is_complete(body: bytes):
    """Issue 12: message_delta carried stop_reason and usage; the reply is complete."""
    events, message, transport = await run([ok(body)])
    assert message.stop_reason == "length" and message.error_message is None
    assert message.text == "Hello"
    assert (message.usage.input, message.usage.output) == (10, 1)
    assert events[-1].type == "done" and transport.closed == 1


async def test_stream_cut_before_its_stop_reason_is_an_error():
    body = text_reply("cut").split(b"event: message_delta")[0]
    _, message, _ = await run([ok(body)])
    assert message.stop_reason == "error" and "message_stop" in (message.error_message or "")
    assert message.text == "cut"


async def test_missing_api_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    message = await pi_sdk.complete(MODEL, CTX, StreamOptions(max_retries=0))
    assert message.stop_reason == "error"
    assert "ANTHROPIC_API_KEY" in (message.error_message or "")


# --- lifecycle --------------------------------------------------------------------------------


async def test_leaving_early_closes_the_http_response():
    body = text_reply(*[f"word{i} " for i in range(200)])
    for how in ("async_with", "aclose"):
        transport = ChunkedTransport([ok(body)], chunk_size=32)
        client = client_for(transport)
        try:
            stream = pi_sdk.stream(MODEL, CTX, StreamOptions(client=client, max_retries=0))
            if how == "async_with":
                async with stream as events:
                    async for event in events:
                        if event.type == "text_delta":
                            break
            else:
                async for event in stream:
                    if event.type == "text_delta":
                        break
                await stream.aclose()
            message = await stream.result()
        finally:
            await client.close()
        assert transport.closed == 1, how
        assert transport.bytes_served < len(body), how
        assert message.stop_reason == "aborted" and message.text.startswith("word0"), how


async def test_abort_mid_stream_keeps_partial_content():
    body = text_reply("Hello ", "there ", "and ", "more")
    stall_at = body.index(b"event: content_block_delta", body.index(b"there"))
    transport = ChunkedTransport([ok(body, stall_after=stall_at)], chunk_size=11)
    client = client_for(transport)
    controller = pi_sdk.AbortController()
    try:
        opts = StreamOptions(client=client, max_retries=0, signal=controller.signal)
        stream = pi_sdk.stream(MODEL, CTX, opts)
        events = []
        async for event in stream:
            events.append(event)
            if event.type == "text_delta" and event.delta == "there ":
                asyncio.get_running_loop().call_later(0.01, controller.abort)
        message = await stream.result()
    finally:
        await client.close()
    assert_valid_event_sequence(events)
    assert message.stop_reason == "aborted"
    assert message.text == "Hello there " and message.usage.input == 10
    assert transport.closed == 1


async def test_rate_limit_cassette_retried_within_one_call():
    root = conformance.conformance_dir()
    if root is None:
        pytest.skip("conformance folder absent")
    case = next(
        c
        for c in conformance.load_cases(root, "anthropic-messages")
        if c.name.startswith("rate_limit")
    )
    final = next(
        c
        for c in conformance.load_cases(root, "anthropic-messages")
        if c.name == case.name and c.index == 2
    )
    opts = StreamOptions(api_key="dummy", max_retries=2, max_retry_delay_ms=1)
    run_ = await conformance.run_interaction(case, options=opts)
    assert run_.played == 3  # both 429s and the success, in one call
    assert run_.message.stop_reason == "stop"
    assert run_.message.text == final.expect["text"]


# --- the request on the wire ------------------------------------------------------------------


async def test_request_on_the_wire(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    context = Context(
        system_prompt="Be brief.",
        messages=[UserMessage(content="weather?")],
        tools=[pi_sdk.Tool(name="get_weather", parameters={"type": "object", "properties": {}})],
    )
    _, message, transport = await run(
        [ok(text_reply("ok"))], context=context, reasoning="low", headers={"x-trace": "t1"}
    )
    request = transport.requests[0]
    assert request.url.path == "/v1/messages"
    body = json.loads(request.content)
    assert body["stream"] is True and body["model"] == "claude-test-1"
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048, "display": "summarized"}
    assert body["system"][0]["text"] == "Be brief."
    assert request.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert body["tools"][0]["eager_input_streaming"] is True
    assert request.headers["x-trace"] == "t1"
    assert request.headers["x-stainless-retry-count"] == "0"
    assert message.text == "ok"


async def test_oauth_tool_names_map_back_to_the_callers_tools():
    body = sse(
        start(),
        *tool_block(0, "toolu_5", "Read", '{"path": "x"}'),
        *end("tool_use", output_tokens=4),
    )
    transport = ChunkedTransport([ok(body)])
    client = anthropic.AsyncAnthropic(
        auth_token="sk-ant-oat01-test", base_url=BASE, max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )  # fmt: skip
    context = Context(messages=[UserMessage(content="read x")], tools=[pi_sdk.Tool(name="read")])
    try:
        opts = StreamOptions(client=client, api_key="sk-ant-oat01-test", max_retries=0)
        _, message = await collect(pi_sdk.stream(MODEL, context, opts))
    finally:
        await client.close()
    assert message.tool_calls[0].name == "read"
    sent = json.loads(transport.requests[0].content)
    assert sent["tools"][0]["name"] == "Read"
    assert sent["system"][0]["text"].startswith("You are Claude Code")
    assert "oauth-2025-04-20" in transport.requests[0].headers["anthropic-beta"]


async def test_non_json_error_body_is_kept_short():
    page = b"<html><body>" + b"Bad gateway " * 500 + b"</body></html>"
    reply = Reply(status=502, body=page, headers={"content-type": "text/html"})
    _, message, _ = await run([reply])
    assert message.stop_reason == "error"
    text = message.error_message or ""
    assert text.startswith("502 Bad Gateway: Bad gateway Bad gateway")
    assert "<" not in text and "  " not in text and len(text) <= 320


# --- a whole JSON message instead of a stream -------------------------------------------------


def _document(**fields: Any) -> Reply:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1-20990101",
        "stop_sequence": None,
        **fields,
    }
    return Reply(status=200, body=json.dumps(message).encode(), headers=JSON_HEADERS)


def _comparable(message: pi_sdk.AssistantMessage) -> dict[str, Any]:
    data = message.model_dump(mode="json")
    del data["timestamp"]
    data.pop("durationMs", None)  # a monotonic time (pi-ai 1.6): differs between two calls
    return data


async def test_json_message_gives_the_same_message_and_events_as_its_stream():
    usage = {"input_tokens": 10, "output_tokens": 30, "cache_read_input_tokens": 4,
             "cache_creation_input_tokens": 2}  # fmt: skip
    streamed = sse(
        start(cache_read_input_tokens=4, cache_creation_input_tokens=2),
        *thinking_block(0, "Let me think.", signature=("c2lnbmF0dXJl",)),
        *redacted_block(1, "opaque-blob"),
        *tool_block(2, "srvtoolu_1", "web_search", '{"query": "x"}', kind="server_tool_use"),
        *text_block(3, "Héllo ☂"),
        *tool_block(4, "toolu_1", "lookup", '{"q": "paris", "n": 3}'),
        *end("tool_use", output_tokens=30),
    )
    document = _document(
        content=[
            {"type": "thinking", "thinking": "Let me think.", "signature": "c2lnbmF0dXJl"},
            {"type": "redacted_thinking", "data": "opaque-blob"},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "x"},
            },
            {"type": "text", "text": "Héllo ☂", "citations": None},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "lookup",
                "input": {"q": "paris", "n": 3},
            },
        ],  # fmt: skip
        stop_reason="tool_use",
        usage=usage,
    )
    stream_events, from_stream, _ = await run([ok(streamed)])
    json_events, from_json, _ = await run([document], chunk_size=5)
    assert _comparable(from_json) == _comparable(from_stream)
    assert [e.type for e in json_events] == [e.type for e in stream_events]
    assert from_json.stop_reason == "toolUse" and from_json.usage.cache_write == 2
    assert [type(b).__name__ for b in from_json.content] == [
        "ThinkingContent", "ThinkingContent", "ServerToolCall", "TextContent", "ToolCall",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "stop_reason", "needle"),
    [("end_turn", "stop", None), ("max_tokens", "length", None),
     ("refusal", "error", "refused"), ("something_new", "error", "something_new")],
)  # fmt: skip
async def test_json_message_stop_reasons(reason: str, stop_reason: str, needle: str | None):
    document = _document(
        content=[{"type": "text", "text": "partial"}],
        stop_reason=reason,
        usage={"input_tokens": 3, "output_tokens": 2},
    )
    _, message, _ = await run([document])
    assert message.stop_reason == stop_reason and message.text == "partial"
    assert message.usage.total_tokens == 5
    if needle is not None:
        assert needle in (message.error_message or "")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b'{"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}',
         "overloaded_error: busy"),
        (b'{"type": "message", "content": [{"type": "text", "te', "malformed JSON response"),
        (b'{"type": "completion", "completion": "hi"}', "not a message"),
        (b"[]", "not a message"),
    ],
)  # fmt: skip
async def test_bad_or_error_json_answer_is_a_clear_error(body: bytes, needle: str):
    events, message, transport = await run([Reply(200, body, JSON_HEADERS)])
    assert [e.type for e in events] == ["start", "error"]
    assert needle in (message.error_message or "") and transport.closed == 1

"""The bedrock-converse-stream adapter on hand-made and recorded bodies, through its real client.

Bodies are served by ``_support.conformance.ChunkedTransport`` (small chunks, counted closes)
through a ``BedrockClient`` handed over in ``StreamOptions.client``; nothing leaves the process.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from _support.conformance import (
    ChunkedTransport,
    Reply,
    assert_valid_event_sequence,
    collect,
    conformance_dir,
    load_cases,
    recorded_reply,
    run_interaction,
)
from pi_sdk_bedrock._client import _status_error, region_of_endpoint, resolve_region
from pi_sdk_bedrock.converse import BedrockClient, recognize_request
from pi_sdk_bedrock.converse._exceptions import exception_error
from test_bedrock_frames import frame

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, TextContent, ThinkingContent

BASE = "https://bedrock-runtime.us-west-2.amazonaws.com"
MODEL = Model(
    id="us.anthropic.claude-sonnet-4-20250514-v1:0",
    name="Claude Sonnet 4",
    reasoning=True,
    api="bedrock-converse-stream",
    provider="amazon-bedrock",
    base_url=BASE,
)
CTX = Context(messages=[pi_sdk.UserMessage(content="hi")])
STREAM_HEADERS = {"content-type": "application/vnd.amazon.eventstream"}


def delta(index: int, **fields: Any) -> bytes:
    return frame("contentBlockDelta", {"contentBlockIndex": index, "delta": fields})


def end(reason: str = "end_turn", **usage: int) -> bytes:
    totals = {"inputTokens": 3, "outputTokens": 4, **usage}
    return frame("messageStop", {"stopReason": reason}) + frame("metadata", {"usage": totals})


START = frame("messageStart", {"role": "assistant"})


async def run(
    body: bytes,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    replies: list[Reply] | None = None,
    model: Model = MODEL,
    **options: Any,
) -> tuple[list[Any], pi_sdk.AssistantMessage, ChunkedTransport]:
    reply = Reply(status=status, body=body, headers=headers or STREAM_HEADERS)
    transport = ChunkedTransport(replies or [reply], chunk_size=11)
    client = BedrockClient(
        httpx2.AsyncClient(transport=transport),
        region="us-west-2",
        endpoint=BASE,
        token=options.pop("token", "test-key"),
        credentials=options.pop("credentials", None),
    )
    try:
        opts = StreamOptions(max_retries=options.pop("max_retries", 0), client=client, **options)
        events, message = await collect(pi_sdk.stream(model, CTX, opts))
    finally:
        await client.close()
    assert_valid_event_sequence(events)
    return events, message, transport


async def test_text_tool_call_and_cache_usage():
    body = START + delta(0, text="Let me ") + delta(0, text="check.")
    body += frame("contentBlockStop", {"contentBlockIndex": 0})
    start = {"toolUse": {"toolUseId": "tooluse_1", "name": "weather"}}
    body += frame("contentBlockStart", {"contentBlockIndex": 1, "start": start})
    body += delta(1, toolUse={"input": '{"city": "Par'}) + delta(1, toolUse={"input": 'is"}'})
    body += frame("contentBlockStop", {"contentBlockIndex": 1})
    body += end("tool_use", cacheReadInputTokens=100, cacheWriteInputTokens=7)
    events, message, transport = await run(body)
    assert message.stop_reason == "toolUse"
    assert message.content[0] == TextContent(text="Let me check.")
    call = message.content[1]
    assert isinstance(call, pi_sdk.ToolCall)
    assert (call.id, call.name, call.arguments) == ("tooluse_1", "weather", {"city": "Paris"})
    assert [e.type for e in events].count("toolcall_delta") == 2
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (3, 4, 100, 7)
    assert usage.total_tokens == 114
    request = transport.requests[0]
    raw_path = request.url.raw_path.decode()
    assert raw_path == "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
    assert request.headers["authorization"] == "Bearer test-key"
    assert transport.closed == 1


async def test_reasoning_signature_and_redacted_reasoning():
    body = START + delta(0, reasoningContent={"text": "Think"})
    body += delta(0, reasoningContent={"text": "ing."}) + delta(
        0, reasoningContent={"signature": "c2ln"}
    )
    body += frame("contentBlockStop", {"contentBlockIndex": 0})
    body += delta(1, reasoningContent={"redactedContent": "b3BhcXVl"})
    body += frame("contentBlockStop", {"contentBlockIndex": 1})
    body += delta(2, text="Hi") + end()
    _, message, _ = await run(body)
    thinking, redacted, text = message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(redacted, ThinkingContent)
    assert (thinking.thinking, thinking.thinking_signature, thinking.redacted) == (
        "Thinking.",
        "c2ln",
        None,
    )
    assert redacted.redacted and redacted.thinking_signature == "b3BhcXVl"
    assert text == TextContent(text="Hi")
    assert message.stop_reason == "stop"


async def test_server_side_blocks_are_server_tool_blocks():
    server = {
        "toolUse": {"toolUseId": "s1", "name": "nova_code_interpreter", "type": "server_tool_use"}
    }
    body = START + frame("contentBlockStart", {"contentBlockIndex": 0, "start": server})
    body += delta(0, toolUse={"input": '{"code": "1+1"}'})
    body += frame("contentBlockStop", {"contentBlockIndex": 0})
    body += frame(
        "contentBlockStart", {"contentBlockIndex": 1, "start": {"toolResult": {"toolUseId": "s1"}}}
    )
    body += delta(1, toolResult=[{"text": "2"}]) + frame(
        "contentBlockStop", {"contentBlockIndex": 1}
    )
    body += delta(2, text="2") + end()
    _, message, _ = await run(body)
    call, result, text = message.content
    assert isinstance(call, pi_sdk.ServerToolCall) and call.arguments == {"code": "1+1"}
    assert isinstance(result, pi_sdk.ServerToolResult) and result.tool_call_id == "s1"
    assert result.content == [{"text": "2"}]  # the streamed result pieces, in order
    assert result.raw == {"toolResult": {"toolUseId": "s1", "content": [{"text": "2"}]}}
    assert text == TextContent(text="2")
    assert message.stop_reason == "stop"  # a server call is not a tool call


@pytest.mark.parametrize(
    ("name", "retryable"),
    [
        ("throttlingException", True),
        ("modelStreamErrorException", True),
        ("serviceUnavailableException", True),
        ("internalServerException", True),
        ("validationException", False),
    ],
)
async def test_exception_frames_end_in_an_error_with_content_kept(name: str, retryable: bool):
    payload = {"message": "Too many tokens, please wait."}
    body = START + delta(0, text="Partial") + frame(name, payload, message_type="exception")
    events, message, transport = await run(body)
    assert [e.type for e in events].count("error") == 1
    assert message.stop_reason == "error"
    assert message.error_message == f"{name}: Too many tokens, please wait."
    assert message.content == [TextContent(text="Partial")]
    assert exception_error(name, json.dumps(payload).encode()).retryable is retryable
    assert transport.closed == 1


TRANSIENT = (
    "throttlingException",
    "modelStreamErrorException",
    "serviceUnavailableException",
    "internalServerException",
)


@pytest.mark.parametrize("name", TRANSIENT)
@pytest.mark.parametrize("opening", [START, b""], ids=["after-messageStart", "first-frame"])
async def test_a_transient_exception_frame_before_any_content_is_retried(name: str, opening: bytes):
    failed = opening + frame(name, {"message": "Too many requests"}, message_type="exception")
    ok = START + delta(0, text="ok") + end()
    replies = [Reply(status=200, body=body, headers=STREAM_HEADERS) for body in (failed, ok)]
    events, message, transport = await run(
        b"", replies=replies, max_retries=1, max_retry_delay_ms=1
    )
    assert (message.stop_reason, message.content) == ("stop", [TextContent(text="ok")])
    assert [e.type for e in events].count("start") == 1 and len(transport.requests) == 2
    assert transport.closed == 2


async def test_an_exception_frame_after_content_or_a_validation_one_is_not_retried():
    after_content = (
        START
        + delta(0, text="Par")
        + frame("throttlingException", {"message": "slow"}, message_type="exception")
    )
    invalid = START + frame("validationException", {"message": "bad"}, message_type="exception")
    for body, content in ((after_content, [TextContent(text="Par")]), (invalid, [])):
        _, message, transport = await run(body, max_retries=2, max_retry_delay_ms=1)
        assert message.stop_reason == "error" and message.content == content
        assert len(transport.requests) == 1


def test_model_stream_error_names_the_models_status():
    payload = {"message": "boom", "originalStatusCode": 500, "originalMessage": "upstream"}
    error = exception_error("modelStreamErrorException", json.dumps(payload).encode())
    assert str(error) == (
        "modelStreamErrorException: boom (originalStatusCode=500, originalMessage=upstream)"
    )


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("guardrail_intervened", "guardrail"),
        ("content_filtered", "content filter"),
        ("something_new", "Unhandled stop reason: something_new"),
    ],
)
async def test_error_stop_reasons_keep_the_text_and_say_why(reason: str, words: str):
    _, message, _ = await run(START + delta(0, text="I can") + end(reason))
    assert message.stop_reason == "error"
    assert words in (message.error_message or "")
    assert message.content == [TextContent(text="I can")]
    assert message.usage.output == 4


@pytest.mark.parametrize(
    ("reason", "stop"),
    {
        "max_tokens": "length",
        "model_context_window_exceeded": "length",
        "stop_sequence": "stop",
    }.items(),
)
async def test_stop_reasons(reason: str, stop: str):
    _, message, _ = await run(START + delta(0, text="x") + end(reason))
    assert message.stop_reason == stop


async def test_a_stream_without_metadata_is_incomplete():
    body = START + delta(0, text="All") + frame("messageStop", {"stopReason": "end_turn"})
    events, message, _ = await run(body)
    assert events[-1].type == "error"
    assert "before its metadata event" in (message.error_message or "")
    assert message.content == [TextContent(text="All")]


@pytest.mark.parametrize(
    ("payload", "why"),
    [(b"{not json", "Expecting property name"), (b"[1, 2]", "payload is not an object")],
)
async def test_a_payload_that_is_not_a_json_object_is_named(payload: bytes, why: str):
    _, message, _ = await run(START + delta(0, text="a") + frame("contentBlockDelta", payload))
    assert message.stop_reason == "error" and why in (message.error_message or "")
    assert message.content == [TextContent(text="a")]
    if payload.startswith(b"{"):
        assert "malformed stream event #3 ('contentBlockDelta')" in (message.error_message or "")


async def test_whitespace_around_a_payload_is_accepted():
    body = START + frame(
        "contentBlockDelta", b' {"contentBlockIndex": 0, "delta": {"text": "x"}}\n'
    )
    _, message, _ = await run(body + end())
    assert message.content == [TextContent(text="x")]


async def test_delta_for_a_tool_call_never_started_is_an_error():
    _, message, _ = await run(START + delta(3, toolUse={"input": "{}"}) + end())
    assert message.stop_reason == "error"
    assert "block 3, which is not open" in (message.error_message or "")


async def test_http_error_names_the_aws_error_type_and_is_retried():
    error = Reply(
        status=429,
        body=b'{"message":"Too many requests, please wait before trying again."}',
        headers={
            "content-type": "application/json",
            "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
            "retry-after": "0",
        },
    )
    ok = Reply(status=200, body=START + delta(0, text="ok") + end(), headers=STREAM_HEADERS)
    _, message, transport = await run(b"", replies=[error, ok], max_retries=1)
    assert message.content == [TextContent(text="ok")] and len(transport.requests) == 2
    _, failed, _ = await run(b"", replies=[error])
    assert failed.error_message == (
        "429 Too Many Requests: ThrottlingException: Too many requests, please wait before"
        " trying again."
    )


def test_status_errors_retry_what_aws_calls_transient():
    body = b'{"message": "model stream failed"}'
    stream_error = _status_error(
        424, "Failed Dependency", {"x-amzn-errortype": "ModelStreamErrorException"}, body
    )
    assert stream_error.retryable and stream_error.status == 424
    typed = _status_error(
        400, "Bad Request", {}, b'{"__type": "a.b#ValidationException", "message": "no"}'
    )
    assert str(typed) == "400 Bad Request: ValidationException: no" and not typed.retryable
    html = _status_error(502, "Bad Gateway", {}, b"<html><b>proxy down</b></html>")
    assert str(html) == "502 Bad Gateway: proxy down" and html.retryable


def _expected_signature(request: httpx2.Request, secret: str) -> str:
    """SigV4 computed from the AWS spec (canonical request, string to sign, key chain)."""
    auth = request.headers["authorization"]
    fields = dict(part.strip().split("=", 1) for part in auth.split(" ", 1)[1].split(","))
    _, day, region, service, _ = fields["Credential"].split("/")
    signed = fields["SignedHeaders"].split(";")
    path = "/".join(quote(segment, safe="") for segment in request.url.raw_path.decode().split("/"))
    canonical = "\n".join(
        [
            "POST",
            path,
            "",
            *(f"{name}:{request.headers[name].strip()}" for name in signed),
            "",
            fields["SignedHeaders"],
            hashlib.sha256(request.content).hexdigest(),
        ]
    )
    stamp = request.headers["x-amz-date"]
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = ("AWS4" + secret).encode()
    for part in (day, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


async def test_sigv4_signing_with_botocore_credentials():
    from botocore.credentials import Credentials

    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "tok")
    body = START + delta(0, text="signed") + end()
    _, message, transport = await run(body, token=None, credentials=credentials)
    assert message.content == [TextContent(text="signed")]
    request = transport.requests[0]
    auth = request.headers["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/us-west-2/bedrock/aws4_request" in auth
    assert request.headers["x-amz-security-token"] == "tok"
    signature = auth.rsplit("Signature=", 1)[1]
    assert signature == _expected_signature(request, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    assert "wJalr" not in repr(transport.requests) and "tok" not in repr(
        BedrockClient(None, credentials=credentials)
    )


def test_region_order(monkeypatch: pytest.MonkeyPatch):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    eu = MODEL.model_copy(update={"base_url": "https://bedrock-runtime.eu-central-1.amazonaws.com"})
    assert region_of_endpoint(eu.base_url) == "eu-central-1"
    assert region_of_endpoint("https://vpce-1.bedrock-runtime.example.com") is None
    assert resolve_region(eu, StreamOptions()) == "eu-central-1"
    assert resolve_region(MODEL.model_copy(update={"base_url": ""}), StreamOptions()) == "us-east-1"
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-south-1")
    assert resolve_region(eu, StreamOptions()) == "ap-south-1"
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    assert resolve_region(eu, StreamOptions()) == "us-west-2"
    options = StreamOptions(provider_options={"region": "sa-east-1"})
    assert resolve_region(eu, options) == "sa-east-1"


def test_recognize_request():
    uri = (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-micro-v1%3A0/converse"
    )
    model = recognize_request("POST", uri, None)
    assert model is not None
    assert (model.id, model.provider, model.base_url) == (
        "us.amazon.nova-micro-v1:0",
        "amazon-bedrock",
        "https://bedrock-runtime.us-east-1.amazonaws.com",
    )
    assert (model.compat or {}).get("stream") is False
    assert model.cost.input > 0  # priced as the catalog's amazon.nova-micro-v1:0
    streamed = recognize_request("POST", uri + "-stream", None)
    assert streamed is not None and (streamed.compat or {}).get("stream") is not False
    assert recognize_request("GET", uri, None) is None
    assert recognize_request("POST", "https://x/v1/messages", None) is None


# --- recorded streams cut at sampled offsets, and a corrupted frame ---------------------------

ROOT = conformance_dir()
STREAMS = [
    c
    for c in (load_cases(ROOT, "bedrock-converse-stream") if ROOT else [])
    if c.stream and c.status == 200
]


def _frame_ends(body: bytes) -> list[int]:
    ends, pos = [], 0
    while pos < len(body):
        pos += int.from_bytes(body[pos : pos + 4], "big")
        ends.append(pos)
    return ends


def _prefix_of(got: Any, want: Any) -> bool:
    if isinstance(got, TextContent):
        return want.text.startswith(got.text)
    if isinstance(got, ThinkingContent):
        return want.thinking.startswith(got.thinking)
    return (got.id, got.name) == (want.id, want.name)


@pytest.mark.parametrize("case", STREAMS, ids=[c.id for c in STREAMS])
async def test_recorded_stream_cut_inside_and_between_frames(case):
    reply = recorded_reply(case)
    body = reply.body
    full = (await run_interaction(case)).message
    model = MODEL.model_copy(update={"id": full.model})
    ends = _frame_ends(body)
    rng = random.Random(len(body))
    between = rng.sample(ends[:-1], min(4, len(ends) - 1))  # whole frames only
    inside = [rng.randrange(a + 1, b) for a, b in zip([0, *ends], ends, strict=False)][
        :: max(1, len(ends) // 5)
    ]
    for offset in sorted({0, *between, *inside}):
        events, message, transport = await run(body[:offset], headers=reply.headers, model=model)
        where = f"{case.id} cut at {offset}/{len(body)}"
        assert [e.type for e in events].count("error") == 1 and events[-1].type == "error", where
        assert message.stop_reason == "error" and message.error_message, where
        assert transport.closed == 1, where
        assert len(message.content) <= len(full.content), where
        assert all(_prefix_of(g, w) for g, w in zip(message.content, full.content, strict=False)), (
            where
        )
        cause = message.error_message or ""
        assert ("middle of event-stream frame" in cause) == (offset not in ends and offset > 0), (
            where
        )
    # A frame with a bad checksum in the middle of the stream: an error, content so far kept.
    middle = ends[len(ends) // 2 - 1]
    corrupted = bytearray(body)
    corrupted[middle + 20] ^= 0xFF
    events, message, _ = await run(bytes(corrupted), headers=reply.headers, model=model)
    assert events[-1].type == "error" and [e.type for e in events].count("error") == 1
    assert "checksum mismatch" in (message.error_message or "")
    assert all(_prefix_of(g, w) for g, w in zip(message.content, full.content, strict=False))


@pytest.mark.parametrize("kind", ["messageStart", "contentBlockStop", "citationsDelta"])
async def test_only_a_content_block_delta_adds_text(kind: str):
    """A ``delta.text`` in another event (or in an event type AWS adds later) is not text."""
    stray = {"contentBlockIndex": 0, "delta": {"text": " stray"}}
    body = START + delta(0, text="kept") + frame(kind, stray)
    if kind != "contentBlockStop":
        body += frame("contentBlockStop", {"contentBlockIndex": 0})
    _, message, _ = await run(body + end())
    assert message.content == [TextContent(text="kept")]


async def test_usage_without_cache_fields_counts_no_cache_tokens():
    body = START + delta(0, text="hi") + frame("contentBlockStop", {"contentBlockIndex": 0})
    _, message, _ = await run(body + end())
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (3, 4, 0, 0)
    assert usage.total_tokens == 7


async def test_text_deltas_reach_the_block_their_index_names():
    # The text hot path appends to the open text block only: a stopped index opens a new
    # block, another index its own, and reasoning on the text index is still an error.
    stop0 = frame("contentBlockStop", {"contentBlockIndex": 0})
    body = START + delta(0, text="a") + delta(0, text="") + delta(0, text="b") + stop0
    body += delta(0, text="c") + delta(1, text="d") + delta(0, text="e") + end()
    events, message, _ = await run(body)
    assert [b.text for b in message.content if isinstance(b, TextContent)] == ["ab", "ce", "d"]
    deltas = [(e.content_index, e.delta) for e in events if e.type == "text_delta"]
    assert deltas == [(0, "a"), (0, "b"), (1, "c"), (2, "d"), (1, "e")]
    body = START + delta(0, text="a") + delta(0, reasoningContent={"text": "t"}) + end()
    _, message, _ = await run(body)
    assert message.stop_reason == "error" and "a text block" in (message.error_message or "")


async def test_each_model_is_called_at_its_own_path_though_urls_are_parsed_once():
    # The request URL is parsed once per text and reused: a second model, and the first one
    # again, still go to their own paths.
    body = START + delta(0, text="ok") + frame("contentBlockStop", {"contentBlockIndex": 0})
    body += end()
    other = MODEL.model_copy(update={"id": "arn:aws:bedrock:us-west-2:1:inference-profile/x"})
    paths: list[str] = []
    for model in (MODEL, other, MODEL):
        _, message, transport = await run(body, model=model)
        assert message.text == "ok"
        paths.append(transport.requests[0].url.raw_path.decode())
    first = "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
    second = "/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A1%3Ainference-profile%2Fx/converse-stream"
    assert paths == [first, second, first]


@pytest.mark.parametrize(
    ("status", "stop", "error"),
    [
        (399, "stop", None),
        (400, "error", "400 Bad Request: ValidationException: no"),
    ],
)
async def test_status_400_is_the_first_error_and_399_is_read_as_the_stream(
    status: int, stop: str, error: str | None
):
    if status < 400:
        body, headers = START + delta(0, text="ok") + end(), STREAM_HEADERS
    else:
        body = b'{"__type": "a.b#ValidationException", "message": "no"}'
        headers = {"content-type": "application/json"}
    _, message, transport = await run(body, status=status, headers=headers)
    assert (message.stop_reason, message.error_message) == (stop, error)
    assert message.content == ([TextContent(text="ok")] if error is None else [])
    assert transport.closed == 1

"""Google stream normalization end to end, through a google-genai client on a chunking transport.

The transport serves recorded or hand-written bodies in small chunks (vcrpy hands a body over
whole), so these tests cover chunk boundaries, truncation, HTTP errors and retries.
"""

from __future__ import annotations

import functools
import json
import os
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from _support.conformance import collect_aborting
from google import genai
from google.genai import types
from pi_sdk_google._shared_request import SYNTHETIC_ID_PREFIX

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    UserMessage,
)

CONFORMANCE = Path(
    os.environ.get(
        "PI_SDK_CONFORMANCE_DIR", Path(__file__).resolve().parents[4] / "shared" / "conformance"
    )
)


class _Chunks(httpx2.AsyncByteStream):
    def __init__(self, body: bytes, size: int) -> None:
        self.body, self.size = body, size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self.body), self.size):
            yield self.body[i : i + self.size]


class ChunkedTransport(httpx2.AsyncBaseTransport):
    """Answers each request with the next ``(status, body, headers)``, ``size`` bytes at a time."""

    def __init__(self, *responses: tuple[int, bytes, dict[str, str]], size: int = 7) -> None:
        self.responses = list(responses)
        self.size = size
        self.requests: list[httpx2.Request] = []
        self.clients: dict[bool, genai.Client] = {}

    def client(self, *, vertex: bool) -> genai.Client:
        """One google-genai client per transport (building one costs tens of milliseconds)."""
        if vertex not in self.clients:
            self.clients[vertex] = client_for(self, vertex=vertex)
        return self.clients[vertex]

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        status, body, headers = self.responses.pop(0)
        return httpx2.Response(status, headers=headers, stream=_Chunks(body, self.size))


@functools.cache
def _tls() -> tuple[ssl.SSLContext, httpx2.Client]:
    """Never used for requests; given, the SDK skips building TLS contexts per client. Built at
    first use, not at collection (which every xdist worker does): a TLS context is costly."""
    context = httpx2.create_ssl_context()
    return context, httpx2.Client(verify=context)


def client_for(transport: ChunkedTransport, *, vertex: bool = False) -> genai.Client:
    options = types.HttpOptions(
        httpx_async_client=httpx2.AsyncClient(transport=transport),
        httpx_client=_tls()[1],
        async_client_args={"ssl": _tls()[0]},
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    if vertex:
        return genai.Client(vertexai=True, api_key="test-key", http_options=options)
    return genai.Client(api_key="test-key", http_options=options)


def sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


SSE_HEADERS = {"content-type": "text/event-stream"}


def ok(*chunks: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
    return (200, sse(*chunks), SSE_HEADERS)


VERTEX_BASE = "https://europe-west4-aiplatform.googleapis.com/v1/projects/p1/locations/europe-west4"


def model(model_id: str = "gemini-2.5-flash", *, vertex: bool = False) -> Model:
    """A Gemini model on the Gemini API (priced) or on Vertex AI (unpriced)."""
    if vertex:
        api = provider = "google-vertex"
        base_url, cost = VERTEX_BASE, pi_sdk.ModelCost()
    else:
        api, provider = "google-generative-ai", "google"
        base_url = "https://generativelanguage.googleapis.com/v1beta"
        cost = pi_sdk.ModelCost(input=1.0, output=2.0, cache_read=0.5)
    return Model(
        id=model_id,
        api=api,
        provider=provider,
        base_url=base_url,
        reasoning=True,
        input=["text", "image"],
        cost=cost,
    )


CONTEXT = Context(messages=[UserMessage(content="hi")])


async def run(
    transport: ChunkedTransport, target: Model | None = None, **options: Any
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    target = target or model()
    vertex = target.api == "google-vertex"
    opts = StreamOptions(client=transport.client(vertex=vertex), **options)
    stream = pi_sdk.stream(target, CONTEXT, opts)
    events = [e async for e in stream]
    return events, await stream.result()


def candidate(
    *parts: dict[str, Any],
    finish: str | None = None,
    finish_message: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    if finish_message:
        cand["finishMessage"] = finish_message
    return {"candidates": [cand], **extra}


def check_protocol(events: list[AssistantMessageEvent]) -> None:
    assert events[0].type == "start"
    assert events[-1].type in ("done", "error")
    assert sum(e.type in ("done", "error") for e in events) == 1
    open_blocks: dict[int, str] = {}
    for e in events[1:-1]:
        kind, _, step = e.type.rpartition("_")
        index = e.content_index  # type: ignore[union-attr]
        if kind == "servertool":  # a whole block: no start or end
            assert index not in open_blocks
            continue
        if step == "start":
            assert index not in open_blocks
            open_blocks[index] = kind
        else:
            assert open_blocks.get(index) == kind
            if step == "end":
                del open_blocks[index]


# --- recorded streams, chunked and truncated ----------------------------------------------------


def recorded_stream(name: str, index: int = 0) -> tuple[str, bytes]:
    path = CONFORMANCE / "google-generative-ai" / f"{name}.yaml"
    if not path.exists():
        pytest.skip(f"conformance cassettes not found at {CONFORMANCE}")
    interaction = yaml.safe_load(path.read_text())["interactions"][index]
    model_id = interaction["request"]["uri"].split("/models/")[1].split(":")[0]
    return model_id, interaction["response"]["body"]["string"].encode()


@pytest.mark.parametrize("size", [3, 64, 4096])
async def test_recorded_thinking_stream_in_any_chunking(size: int) -> None:
    model_id, body = recorded_stream("thinking_stream")
    events, message = await run(
        ChunkedTransport((200, body, SSE_HEADERS), size=size), model(model_id)
    )
    check_protocol(events)
    assert message.stop_reason == "stop"
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert message.content[0].thinking.startswith("**Clarifying User Goals**")  # type: ignore[union-attr]
    assert message.content[0].thinking_signature is None  # type: ignore[union-attr]
    assert message.content[1].text_signature  # type: ignore[union-attr]
    assert message.text.endswith("Always assume a driver might not see you.")
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (
        34,
        1256,
        1290,
    )


async def test_tool_call_stream_against_recording() -> None:
    model_id, body = recorded_stream("function_call_stream_then_result")
    events, message = await run(ChunkedTransport((200, body, SSE_HEADERS), size=5), model(model_id))
    check_protocol(events)
    assert [e.type for e in events] == [
        "start",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert events[2].delta == '{"country": "France"}'  # type: ignore[union-attr]
    assert message.stop_reason == "toolUse"
    assert message.tool_calls[0].name == "get_capital"
    assert message.tool_calls[0].arguments == {"country": "France"}


# --- normalization rules ----------------------------------------------------------------------


async def test_parallel_id_less_calls_get_distinct_ids_in_order() -> None:
    transport = ChunkedTransport(
        ok(
            candidate(
                {"functionCall": {"name": "topic"}, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "topic", "args": {"n": 2}}},
                {"functionCall": {"name": "topic", "args": None}},
                finish="STOP",
            )
        )
    )
    events, message = await run(transport)
    check_protocol(events)
    calls = message.tool_calls
    assert [c.arguments for c in calls] == [{}, {"n": 2}, {}]
    assert len({c.id for c in calls}) == 3
    assert all(c.id.startswith(SYNTHETIC_ID_PREFIX) for c in calls)
    assert [c.thought_signature for c in calls] == ["c2ln", None, None]
    deltas = [e.delta for e in events if e.type == "toolcall_delta"]  # type: ignore[union-attr]
    assert deltas == ["{}", '{"n": 2}', "{}"]
    assert message.stop_reason == "toolUse"


async def test_vendor_ids_are_kept_and_a_repeated_one_is_replaced() -> None:
    transport = ChunkedTransport(
        ok(
            candidate(
                {"functionCall": {"id": "fc1", "name": "a", "args": {}}},
                {"functionCall": {"id": "fc1", "name": "b", "args": {}}},
                finish="STOP",
            )
        )
    )
    _, message = await run(transport)
    first, second = message.tool_calls
    assert first.id == "fc1"
    assert second.id != "fc1" and second.id.startswith(SYNTHETIC_ID_PREFIX)


async def test_text_thinking_and_calls_alternate_as_separate_blocks() -> None:
    transport = ChunkedTransport(
        ok(
            candidate({"text": "Let me ", "thought": True}),
            candidate({"text": "think.", "thought": True, "thoughtSignature": "AAAA"}),
            candidate({"text": "Answer"}, {"text": " part", "thoughtSignature": "BBBB"}),
            candidate({"functionCall": {"name": "f", "args": {"x": 1}}}, {"text": "after"}),
            candidate({"text": "", "thoughtSignature": "CCCC"}, finish="STOP"),
        ),
        size=3,
    )
    events, message = await run(transport)
    check_protocol(events)
    kinds = [b.type for b in message.content]
    assert kinds == ["thinking", "text", "toolCall", "text"]
    thinking, text, _, tail = message.content
    assert thinking.thinking == "Let me think." and thinking.thinking_signature == "AAAA"  # type: ignore[union-attr]
    assert text.text == "Answer part" and text.text_signature == "BBBB"  # type: ignore[union-attr]
    assert tail.text == "after" and tail.text_signature == "CCCC"  # type: ignore[union-attr]
    assert not any(e.type.endswith("_delta") and e.delta == "" for e in events)  # type: ignore[union-attr]


async def test_usage_is_cumulative_and_excludes_cached_tokens() -> None:
    transport = ChunkedTransport(
        ok(
            candidate(
                {"text": "a"}, usageMetadata={"promptTokenCount": 100, "totalTokenCount": 100}
            ),
            candidate(
                {"text": "b"},
                finish="STOP",
                usageMetadata={
                    "promptTokenCount": 100,
                    "cachedContentTokenCount": 60,
                    "toolUsePromptTokenCount": 5,
                    "candidatesTokenCount": 7,
                    "thoughtsTokenCount": 11,
                    "totalTokenCount": 123,
                },
            ),
            {"usageMetadata": {"trafficType": "ON_DEMAND"}},
        )
    )
    _, message = await run(transport)
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (45, 18, 60, 0)
    assert usage.total_tokens == 45 + 18 + 60
    assert usage.cost.input == pytest.approx(45 / 1e6)
    assert usage.cost.output == pytest.approx(2 * 18 / 1e6)
    assert usage.cost.cache_read == pytest.approx(0.5 * 60 / 1e6)


@pytest.mark.parametrize(
    ("finish", "stop_reason", "message_part"),
    [
        ("STOP", "toolUse", None),
        ("MAX_TOKENS", "length", None),
        ("MALFORMED_FUNCTION_CALL", "error", "MALFORMED_FUNCTION_CALL"),
        ("SAFETY", "error", "safety"),
    ],
)
async def test_finish_reason_with_a_tool_call(
    finish: str, stop_reason: str, message_part: str | None
) -> None:
    transport = ChunkedTransport(
        ok(
            candidate(
                {"functionCall": {"name": "f", "args": {}}}, finish=finish, finish_message="bad"
            )
        )
    )
    events, message = await run(transport)
    check_protocol(events)
    assert message.stop_reason == stop_reason
    assert message.tool_calls, "content is kept either way"
    if message_part is None:
        assert message.error_message is None
    else:
        assert message_part in (message.error_message or "")
        assert "(bad)" in (message.error_message or "")


async def test_recitation_keeps_streamed_text() -> None:
    transport = ChunkedTransport(
        ok(candidate({"text": "Once upon"}), candidate({"text": " a time"}, finish="RECITATION"))
    )
    _, message = await run(transport)
    assert message.stop_reason == "error"
    assert message.text == "Once upon a time"
    assert "RECITATION" in (message.error_message or "")


async def test_blocked_prompt_is_an_error_naming_the_reason() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "Nope."},
        "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
        "modelVersion": "gemini-2.5-flash",
    }
    events, message = await run(ChunkedTransport(ok(blocked)))
    check_protocol(events)
    assert message.stop_reason == "error"
    assert "SAFETY" in (message.error_message or "") and "Nope." in (message.error_message or "")
    assert message.usage.input == 9


async def test_in_stream_error_object_keeps_partial_text() -> None:
    transport = ChunkedTransport(
        ok(
            candidate({"text": "Hello"}, usageMetadata={"promptTokenCount": 10}),
            {
                "error": {
                    "code": 503,
                    "message": "The model is overloaded.",
                    "status": "UNAVAILABLE",
                }
            },
        )
    )
    events, message = await run(transport)
    check_protocol(events)
    assert message.stop_reason == "error" and message.text == "Hello"
    assert "503 UNAVAILABLE: The model is overloaded." in (message.error_message or "")
    assert message.usage.input == 10 and message.usage.cost.input == pytest.approx(10 / 1e6)


async def test_other_candidates_are_ignored() -> None:
    chunk = {
        "candidates": [
            {"index": 1, "content": {"parts": [{"text": "other"}]}},
            {"index": 0, "content": {"parts": [{"text": "first"}]}, "finishReason": "STOP"},
        ]
    }
    _, message = await run(ChunkedTransport(ok(chunk)))
    assert message.text == "first"


# --- HTTP errors, retries and the request sent ------------------------------------------------


def http_error(
    status: int, message: str, label: str, **headers: str
) -> tuple[int, bytes, dict[str, str]]:
    body = json.dumps({"error": {"code": status, "message": message, "status": label}}).encode()
    return (status, body, {"content-type": "application/json", **headers})


async def test_http_error_carries_vendor_message_and_is_not_retried_when_permanent() -> None:
    transport = ChunkedTransport(
        http_error(400, "Invalid value at temperature", "INVALID_ARGUMENT")
    )
    events, message = await run(transport, max_retries=3)
    assert [e.type for e in events] == ["start", "error"]
    assert (
        message.error_message == "400 Bad Request: INVALID_ARGUMENT: Invalid value at temperature"
    )
    assert len(transport.requests) == 1


async def test_rate_limit_is_retried_by_pi_sdk_after_retry_after() -> None:
    transport = ChunkedTransport(
        http_error(429, "Resource exhausted", "RESOURCE_EXHAUSTED", **{"retry-after": "0"}),
        ok(candidate({"text": "ok"}, finish="STOP")),
    )
    _, message = await run(transport, max_retries=2, max_retry_delay_ms=1)
    assert message.stop_reason == "stop" and message.text == "ok"
    assert len(transport.requests) == 2, "one pi-sdk retry, no SDK retries"


async def test_retryable_error_reports_retry_delay_from_error_details() -> None:
    from google.genai import errors
    from pi_sdk_google._client import error_from_api

    details = {
        "error": {
            "code": 429,
            "message": "Quota exceeded",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}],
        }
    }
    error = error_from_api(errors.ClientError(429, details))
    assert error.retryable and error.status == 429 and error.retry_after_ms == 37_000
    server = error_from_api(errors.ServerError(500, {"error": {"message": "x"}}))
    assert server.retryable and server.retry_after_ms is None


async def test_request_path_body_and_headers() -> None:
    transport = ChunkedTransport(ok(candidate({"text": "ok"}, finish="STOP")))
    await run(transport, headers={"x-trace": "1"}, temperature=0.5)
    request = transport.requests[0]
    assert request.url.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert request.url.params["alt"] == "sse"
    assert request.headers["x-goog-api-key"] == "test-key"
    assert request.headers["x-trace"] == "1"
    body = json.loads(request.content)
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["generationConfig"]["temperature"] == 0.5


@pytest.mark.parametrize(
    ("version", "url"),
    [
        ("v1alpha", "https://proxy.example/gemini/v1alpha/models/gemini-2.5-flash"),
        ("", "https://proxy.example/gemini/models/gemini-2.5-flash"),  # version in the base
    ],
)
async def test_a_model_without_base_url_goes_where_the_callers_client_points(
    version: str, url: str
) -> None:
    transport = ChunkedTransport(ok(candidate({"text": "ok"}, finish="STOP")))
    options = types.HttpOptions(
        base_url="https://proxy.example/gemini/",
        api_version=version,
        httpx_async_client=httpx2.AsyncClient(transport=transport),
        httpx_client=_tls()[1],
        async_client_args={"ssl": _tls()[0]},
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    transport.clients[False] = genai.Client(api_key="test-key", http_options=options)
    _, message = await run(transport, model().model_copy(update={"base_url": ""}))
    assert message.text == "ok", message.error_message
    sent = transport.requests[0].url
    assert f"{sent.scheme}://{sent.host}{sent.path}" == f"{url}:streamGenerateContent"


async def test_on_payload_sees_and_can_replace_the_body() -> None:
    seen: list[dict[str, Any]] = []

    def hook(payload: dict[str, Any], _: Model) -> dict[str, Any]:
        seen.append(payload)
        return {**payload, "safetySettings": [{"category": "X", "threshold": "BLOCK_NONE"}]}

    transport = ChunkedTransport(ok(candidate({"text": "ok"}, finish="STOP")))
    await run(transport, on_payload=hook)
    assert seen and "contents" in seen[0]
    assert json.loads(transport.requests[0].content)["safetySettings"][0]["category"] == "X"


async def test_vertex_uses_the_recorded_resource_path() -> None:
    transport = ChunkedTransport(ok(candidate({"text": "ok"}, finish="STOP")))
    _, message = await run(transport, model("gemini-2.5-pro", vertex=True))
    assert message.text == "ok" and message.api == "google-vertex"
    assert transport.requests[0].url.path == (
        "/v1/projects/p1/locations/europe-west4/publishers/google/models/"
        "gemini-2.5-pro:streamGenerateContent"
    )


async def test_missing_api_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    target = model()
    stream = pi_sdk.stream(target, CONTEXT, StreamOptions())
    message = await stream.result()
    assert message.stop_reason == "error"
    assert "GEMINI_API_KEY" in (message.error_message or "")


async def test_leaving_early_keeps_usage_and_cost() -> None:
    first = candidate(
        {"text": "one"}, usageMetadata={"promptTokenCount": 10, "candidatesTokenCount": 1}
    )
    transport = ChunkedTransport(ok(first, candidate({"text": " two"}, finish="STOP")))
    target = model()
    options = StreamOptions(client=transport.client(vertex=False))
    stream = pi_sdk.stream(target, CONTEXT, options)
    async for event in stream:
        if event.type == "text_delta":
            break
    await stream.aclose()
    message = await stream.result()
    assert message.stop_reason == "aborted" and message.text == "one"
    assert message.usage.output == 1 and message.usage.cost.total > 0


async def test_unknown_provider_option_is_a_configuration_error() -> None:
    transport = ChunkedTransport(ok(candidate({"text": "ok"}, finish="STOP")))
    _, message = await run(transport, provider_options={"toolchoice": "any"})
    assert message.stop_reason == "error"
    assert "toolchoice" in (message.error_message or "") and "tool_choice" in (
        message.error_message or ""
    )
    assert transport.requests == [], "nothing is sent"
    vertex_transport = ChunkedTransport(ok(candidate({"text": "ok"}, finish="STOP")))
    _, fine = await run(
        vertex_transport, model(vertex=True), provider_options={"location": "europe-west4"}
    )
    assert fine.stop_reason == "stop"


async def test_signature_only_part_joins_the_open_block_a_code_part_keeps_its_own() -> None:
    transport = ChunkedTransport(
        ok(
            candidate({"text": "Hi"}),
            candidate({"thoughtSignature": "QUJD"}),
            candidate({"executableCode": {"code": "1"}, "thoughtSignature": "REVG"}, finish="STOP"),
        )
    )
    events, message = await run(transport)
    check_protocol(events)
    assert message.text == "Hi"
    assert message.content[0].text_signature == "QUJD"  # type: ignore[union-attr]
    code = message.content[1]
    assert isinstance(code, pi_sdk.ServerToolCall) and code.arguments == {"code": "1"}
    assert code.raw == {"executableCode": {"code": "1"}, "thoughtSignature": "REVG"}


async def test_abort_mid_stream_keeps_text_and_closes_the_response() -> None:
    from _support.conformance import ChunkedTransport as StallingTransport
    from _support.conformance import Reply

    body = sse(candidate({"text": "Hello"}), candidate({"text": " world"}, finish="STOP"))
    stalled = StallingTransport([Reply(200, body, SSE_HEADERS, stall_after=len(body) // 2)])
    client = client_for(stalled)  # type: ignore[arg-type]
    controller = pi_sdk.AbortController()
    options = StreamOptions(client=client, signal=controller.signal)
    target = model()
    stream = pi_sdk.stream(target, CONTEXT, options)
    events, message = await collect_aborting(stream, controller, "text_delta")
    check_protocol(events)
    assert message.stop_reason == "aborted" and message.text == "Hello"
    assert stalled.closed == 1


# --- a whole JSON document instead of a stream ------------------------------------------------

JSON_HEADERS = {"content-type": "application/json; charset=UTF-8"}


def _comparable(message: AssistantMessage) -> dict[str, Any]:
    data = message.model_dump(mode="json")
    del data["timestamp"]
    data.pop("durationMs", None)  # a monotonic time (pi-ai 1.6): differs between two calls
    return data


async def test_json_array_answer_matches_the_same_chunks_streamed() -> None:
    usage = {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 2}
    chunks = [
        candidate({"text": "Plan", "thought": True, "thoughtSignature": "c2ln"}),
        candidate({"text": "Héllo "}, responseId="r1"),
        candidate(
            {"text": "there"},
            {"functionCall": {"name": "lookup", "args": {"q": "x"}}},
            finish="STOP",
            usageMetadata=usage,
        ),
    ]
    streamed_events, streamed = await run(ChunkedTransport(ok(*chunks)))
    whole = (200, json.dumps(chunks).encode(), JSON_HEADERS)
    json_events, from_json = await run(ChunkedTransport(whole, size=11))
    check_protocol(json_events)
    assert _comparable(from_json) == _comparable(streamed)
    assert [e.type for e in json_events] == [e.type for e in streamed_events]
    assert from_json.stop_reason == "toolUse" and from_json.usage.output == 6


async def test_json_object_answer_without_finish_reason_is_a_complete_reply() -> None:
    document = candidate({"text": "ok"}, usageMetadata={"promptTokenCount": 1})
    events, message = await run(
        ChunkedTransport((200, json.dumps(document).encode(), JSON_HEADERS))
    )
    check_protocol(events)
    assert message.stop_reason == "stop" and message.text == "ok"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b'{"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}',
         "503 UNAVAILABLE: busy"),
        (b'{"candidates": [', "malformed JSON response"),
        (b'"hello"', "unexpected JSON response"),
        (b'[{"candidates": []}, 3]', "unexpected JSON response"),
    ],
)  # fmt: skip
async def test_bad_or_error_json_answer_is_a_clear_error(body: bytes, needle: str) -> None:
    events, message = await run(ChunkedTransport((200, body, JSON_HEADERS)))
    assert [e.type for e in events] == ["start", "error"]
    assert needle in (message.error_message or ""), message.error_message


async def test_a_non_json_error_page_from_an_aiohttp_client_names_its_reason() -> None:
    """aiohttp responses have no ``reason_phrase``: the SDK's ``status`` field gives the reason."""
    from google.genai import errors
    from pi_sdk_google._client import error_from_api

    page = {"message": "<html>upstream down</html>", "status": "Backend Overloaded"}
    error = error_from_api(errors.ServerError(503, page))
    assert str(error) == "503 Backend Overloaded: upstream down"
    assert error.status == 503 and error.retryable


async def test_a_json_error_in_another_shape_is_shown_as_it_came() -> None:
    """Not Google's ``{"error": {...}}`` and not the SDK's text wrapper: the document itself."""
    from google.genai import errors
    from pi_sdk_google._client import error_from_api

    error = error_from_api(errors.ClientError(400, {"detail": "bad thing", "code": 7}))
    assert str(error) == '400 Bad Request: {"detail": "bad thing", "code": 7}'
    assert error.status == 400 and not error.retryable

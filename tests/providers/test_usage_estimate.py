"""Issue 12 defect 3: an aborted or cut reply gets a usage, the vendor's or an estimate.

Chat Completions reports usage only in its last chunk: a stream cut or aborted before it showed
0 tokens and $0. The estimate is ~4 characters a token of the request (input) and of what
streamed (output), marked ``usageEstimated`` with a ``usage_estimated`` diagnostic.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from _support import openai_fakes as fakes
from _support.conformance import ChunkedTransport, Reply

import pi_sdk
from pi_sdk import AbortController, Context, Model, StreamOptions, UserMessage
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._stream.usage_estimate import context_chars, estimate_missing_usage

MODEL = Model.model_validate(
    {
        "id": "gpt-4o-mini",
        "api": "openai-completions",
        "provider": "openai",
        "base_url": fakes.BASE,
        "cost": {"input": 0.15, "output": 0.6},
    }
)
PROMPT = "x" * 400  # 100 tokens by the estimate
CTX = Context(messages=[UserMessage(content=PROMPT)])


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> str:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "model": "gpt-4o-mini-2024"}
    return "data: " + json.dumps({**body, "choices": choices, **extra}) + "\n\n"


STREAMED = "y" * 80  # 20 tokens by the estimate
PARTIAL = (chunk({"role": "assistant", "content": ""}) + chunk({"content": STREAMED})).encode()


def assert_estimated(message: pi_sdk.AssistantMessage, reason: str) -> None:
    usage = message.usage
    assert message.usage_estimated is True
    assert (usage.input, usage.output, usage.total_tokens) == (100, 20, 120)
    assert usage.cost.total == pytest.approx((100 * 0.15 + 20 * 0.6) / 1e6)
    assert message.diagnostics is not None
    diagnostic = message.diagnostics[-1]
    assert diagnostic.type == "usage_estimated"
    assert diagnostic.details == {"reason": reason, "input": 100, "output": 20}
    dumped = message.model_dump(mode="json")
    assert (
        dumped["usageEstimated"] is True and dumped["diagnostics"][0]["type"] == "usage_estimated"
    )


async def test_cut_chat_stream_gets_an_estimated_usage():
    _, message, _ = await fakes.run(MODEL, PARTIAL, context=CTX)
    assert message.stop_reason == "error" and message.text == STREAMED
    assert_estimated(message, "cut")


async def test_chat_stream_cut_in_the_middle_of_an_event_gets_an_estimated_usage():
    _, message, _ = await fakes.run(MODEL, PARTIAL + b'data: {"id": "chatc', context=CTX)
    assert message.stop_reason == "error" and "cut in the middle" in (message.error_message or "")
    assert_estimated(message, "cut")


async def test_aborted_chat_stream_gets_an_estimated_usage():
    controller = AbortController()
    body = PARTIAL + chunk({"content": "z" * 10_000}).encode() * 50
    transport = ChunkedTransport([Reply(200, body, fakes.SSE)], chunk_size=64)
    client = fakes.client_on(transport)
    try:
        opts = StreamOptions(client=client, max_retries=0, signal=controller.signal)
        stream = pi_sdk.stream(MODEL, CTX, opts)
        async for event in stream:
            if event.type == "text_delta" and event.partial.text == STREAMED:
                controller.abort()
        message = await stream.result()
    finally:
        await client.close()
    assert message.stop_reason == "aborted" and message.text == STREAMED
    assert_estimated(message, "aborted")


async def test_consumer_leaving_early_gets_an_estimated_usage():
    transport = ChunkedTransport([Reply(200, PARTIAL * 1, fakes.SSE)], chunk_size=8)
    client = fakes.client_on(transport)
    try:
        stream = pi_sdk.stream(MODEL, CTX, StreamOptions(client=client, max_retries=0))
        async with stream as events:
            async for event in events:
                if event.type == "text_delta" and event.partial.text == STREAMED:
                    break
        message = await stream.result()
    finally:
        await client.close()
    assert message.stop_reason == "aborted"
    assert_estimated(message, "aborted")


async def test_vendor_usage_is_kept_not_estimated():
    body = PARTIAL + chunk(usage={"prompt_tokens": 7, "completion_tokens": 3}).encode()
    _, message, _ = await fakes.run(MODEL, body, context=CTX)  # no finish_reason, no [DONE]
    assert message.stop_reason == "error"
    assert (message.usage.input, message.usage.output) == (7, 3)
    assert message.usage_estimated is None and message.diagnostics is None


async def test_http_errors_and_vendor_error_events_are_not_estimated():
    http = Reply(401, b'{"error": {"message": "bad key"}}', {"content-type": "application/json"})
    _, refused, _ = await fakes.run(MODEL, [http], context=CTX)
    in_stream = PARTIAL + b'data: {"error": {"message": "upstream died"}}\n\n'
    _, failed, _ = await fakes.run(MODEL, in_stream, context=CTX)
    for message in (refused, failed):
        assert message.stop_reason == "error"
        assert message.usage.total_tokens == 0 and message.usage_estimated is None


def test_estimate_counts_the_request_and_keeps_reported_counts():
    tool = pi_sdk.Tool(name="t", description="d" * 10, parameters={"type": "object"})
    ctx = Context(system_prompt="s" * 8, messages=[UserMessage(content="u" * 8)], tools=[tool])
    chars = 8 + 8 + 1 + 10 + len(json.dumps({"type": "object"}))
    assert context_chars(ctx) == chars
    message = new_assistant_message(MODEL)
    message.usage.input = 50  # reported by the vendor (Anthropic's message_start)
    message.content.append(pi_sdk.TextContent(text="abcdefghi"))
    estimate_missing_usage(message, MODEL, ctx, reason="cut")
    assert (message.usage.input, message.usage.output) == (50, math.ceil(9 / 4))
    assert message.diagnostics is not None
    assert message.diagnostics[0].details == {"reason": "cut", "output": 3}

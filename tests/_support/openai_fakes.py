"""Test helpers for the OpenAI adapters: a real ``AsyncOpenAI`` on a fake transport."""

from __future__ import annotations

from typing import Any

import httpx2
from openai import AsyncOpenAI

import pi_sdk
from _support.conformance import ChunkedTransport, Reply, assert_valid_event_sequence, collect
from pi_sdk import AssistantMessage, Context, Model, StreamOptions, UserMessage

BASE = "https://api.example.test/v1"
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}


def client_on(transport: ChunkedTransport) -> AsyncOpenAI:
    """An SDK client whose requests go to ``transport`` (SDK retries off)."""
    return AsyncOpenAI(
        api_key="test-key",
        base_url=BASE,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )


async def run(
    model: Model, body: bytes | list[Reply], *, chunk_size: int = 5, **options: Any
) -> tuple[list[Any], AssistantMessage, ChunkedTransport]:
    """Stream one call whose response is ``body`` (SSE) or the given replies, in small chunks.

    Checks pi-spec §2's event invariants and returns (events, final message, transport).
    """
    replies = body if isinstance(body, list) else [Reply(200, body, SSE)]
    transport = ChunkedTransport(replies, chunk_size=chunk_size)
    client = client_on(transport)
    context = options.pop("context", None) or Context(messages=[UserMessage(content="hi")])
    try:
        opts = StreamOptions(client=client, max_retries=0, **options)
        events, message = await collect(pi_sdk.stream(model, context, opts))
    finally:
        await client.close()
    assert_valid_event_sequence(events)
    return events, message, transport

"""Benchmark the mistral-conversations adapter against the mistralai SDK on the same bytes.

A long magistral-style reply (thinking chunks, then text deltas, a tool call, every chunk with
Mistral's random ``p`` padding, usage on the last chunk, ``[DONE]``), one SSE event per
transport chunk, served from memory. Printed, in one run: CPU per chunk of

* the floor: the SDK's request + raw response, ``iter_sse`` + ``json.loads`` only;
* pi-sdk's adapter: ``pi_sdk.stream`` to the final message (normalized events, live message);
* the SDK's own stream iteration: ``client.chat.stream_async(...)``, one typed
  ``CompletionEvent`` per chunk, nothing accumulated;

and the ratio adapter / SDK (target: at most 0.5).

Run: ``uv run python benchmarks/bench_stream_mistral.py``. CPU time (``time.process_time``),
best of several rounds, client built outside the timed part. No network.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from _memory_transport import DONE, MemoryTransport, sse_data
from mistralai.client import Mistral

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

SERVER = "https://api.mistral.bench"
MODEL = Model(
    id="magistral-bench",
    reasoning=True,
    api="mistral-conversations",
    provider="mistral",
    base_url=SERVER,
)
PROMPT = Context(messages=[UserMessage(content="bench")])
SDK_MESSAGES: list[Any] = [{"role": "user", "content": "bench"}]
Runner = Callable[[Any], Awaitable[int]]


def long_reply(thinking: int = 600, text: int = 2400) -> list[bytes]:
    """The reply's SSE events, one bytes object each."""
    rng = random.Random(13)
    padding = "abcdefghijklmnopqrstuvwxyz0123456789"

    def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        data = {
            "id": "bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "magistral-bench",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
            "p": padding[: rng.randrange(1, len(padding))],
        }
        return sse_data(data)

    chunks = [event({"role": "assistant", "content": ""})]
    chunks += [
        event({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": f"t{i} "}]}]})
        for i in range(thinking)
    ]
    chunks += [event({"content": f"word{i} é "}) for i in range(text)]
    call = {"id": "AbC123xYz", "function": {"name": "save", "arguments": '{"ok": true}'}}
    chunks.append(event({"tool_calls": [call]}))
    usage = {"prompt_tokens": 900, "completion_tokens": 3100, "total_tokens": 4000}
    chunks.append(event({"content": ""}, "tool_calls", usage=usage))
    chunks.append(DONE)
    return chunks


def make_client(chunks: list[bytes]) -> Any:
    return Mistral(
        api_key="bench",
        server_url=SERVER,
        async_client=httpx2.AsyncClient(transport=MemoryTransport(chunks)),
    )


async def adapter(client: Any) -> int:
    stream = pi_sdk.stream(MODEL, PROMPT, StreamOptions(client=client, max_retries=0))
    events = 0
    async for _ in stream:
        events += 1
    final = await stream.result()
    assert final.stop_reason == "toolUse", final.error_message
    return events


async def sdk_iteration(client: Any) -> int:
    stream = await client.chat.stream_async(model="magistral-bench", messages=SDK_MESSAGES)
    seen = 0
    async with stream:
        async for _ in stream:
            seen += 1
    return seen


async def floor(client: Any) -> int:
    from pi_sdk_mistral._client import open_chat

    response = await open_chat(client, {"model": "magistral-bench", "messages": SDK_MESSAGES}, {})
    parsed = 0
    async for sse in pi_sdk.provider.iter_sse(response.aiter_bytes()):
        if sse.data != "[DONE]":
            json.loads(sse.data)
        parsed += 1
    await response.aclose()
    return parsed


async def best_cpu(runner: Runner, chunks: list[bytes], rounds: int = 7) -> float:
    """Lowest CPU seconds of one ``runner`` call over ``rounds`` fresh clients."""
    timings: list[float] = []
    for _ in range(rounds):
        client = make_client(chunks)
        await runner(client)  # warm-up: connection pool, lazy imports
        gc.collect()
        began = time.process_time()
        await runner(client)
        timings.append(time.process_time() - began)
        await client.sdk_configuration.async_client.aclose()
    return min(timings)


async def main() -> None:
    chunks = long_reply()
    count = len(chunks)
    kilobytes = sum(len(c) for c in chunks) / 1024
    print(f"CPU per streamed chunk: {count} SSE events, {kilobytes:.0f} KB, one chunk each")
    per_chunk: dict[str, float] = {}
    contenders: list[tuple[str, Runner]] = [
        ("floor: SDK request + iter_sse + json.loads", floor),
        ("pi-sdk adapter (events + live message)", adapter),
        ("mistralai SDK chat.stream_async() iteration", sdk_iteration),
    ]
    for label, runner in contenders:
        per_chunk[label] = await best_cpu(runner, chunks) / count * 1e6
        print(f"   {label:46s} {per_chunk[label]:7.1f} µs/chunk")
    ratio = per_chunk[contenders[1][0]] / per_chunk[contenders[2][0]]
    print(f"   ratio adapter / SDK iteration: {ratio:.2f} (target <= 0.5)")


if __name__ == "__main__":
    asyncio.run(main())

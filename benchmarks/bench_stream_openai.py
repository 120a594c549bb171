"""openai-completions adapter: CPU per streamed chunk against the openai SDK's typed stream.

Every path reads the same Chat Completions SSE body (chunks shaped like OpenAI's: id, object,
created, model, system_fingerprint, one choice with delta/logprobs/finish_reason, a final usage
chunk) from an in-memory httpx2 transport, through one ``AsyncOpenAI`` client, in the same run:

* ``floor``: transport + ``pi_sdk.provider.iter_sse`` + ``json.loads``, nothing else;
* ``pi-sdk adapter``: ``pi_sdk.stream`` end to end (request building, raw bytes, normalized
  events, the live message, usage and cost);
* ``openai SDK create(stream=True)``: iterating the SDK's ``AsyncStream`` of typed
  ``ChatCompletionChunk`` objects (the baseline: the consumer still has to assemble them);
* ``openai SDK stream() helper``: ``client.chat.completions.stream(...)``, the SDK's own
  accumulating helper, the closest equivalent of what the adapter does.

Two bodies: 2000 text chunks, and one tool call whose arguments arrive in 2000 fragments.
CPU time (``time.process_time``), best of 5 per path. A third part checks that the cost per
chunk stays flat as the reply grows (20k vs 200k text chunks through the decoder: a linear
adapter takes ~10x the time, one that copies the text per delta ~100x). Run:
``uv run python benchmarks/bench_stream_openai.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from _memory_transport import MemoryTransport, split
from openai import AsyncOpenAI

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

CHUNKS = 2000
REPEAT = 5
MODEL = Model(
    id="gpt-4o-mini",
    api="openai-completions",
    provider="openai",
    base_url="https://api.openai.com/v1",
    cost={"input": 0.15, "output": 0.6},  # pyright: ignore[reportArgumentType]
)
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {"name": "write", "parameters": {"type": "object", "properties": {}}},
    }
]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1731368641,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_9b78b61c52",
        "usage": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def _body(chunks: list[dict[str, Any]]) -> bytes:
    usage = {
        **_chunk({}),
        "choices": [],
        "usage": {"prompt_tokens": 20, "completion_tokens": CHUNKS, "total_tokens": CHUNKS + 20},
    }
    events = [*chunks, usage]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in events) + (
        b"data: [DONE]\n\n"
    )


def text_body() -> bytes:
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": f" word{i}"}) for i in range(CHUNKS)]
    chunks.append(_chunk({}, "stop"))
    return _body(chunks)


def tool_body() -> bytes:
    first = {"index": 0, "id": "call_bench", "type": "function"}
    chunks = [_chunk({"tool_calls": [{**first, "function": {"name": "write", "arguments": ""}}]})]
    chunks.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"text": "'}}]}))
    piece = {"index": 0, "function": {"arguments": "lorem ips "}}
    chunks += [_chunk({"tool_calls": [piece]}) for _ in range(CHUNKS)]
    chunks.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
    chunks.append(_chunk({}, "tool_calls"))
    return _body(chunks)


def make_client(data: bytes) -> AsyncOpenAI:
    return AsyncOpenAI(
        api_key="bench-key",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=MemoryTransport(split(data))),
    )


async def floor(client: AsyncOpenAI, tools: bool) -> None:
    del tools
    async with httpx2.AsyncClient(transport=client._client._transport) as http:  # pyright: ignore[reportPrivateUsage]
        async with http.stream("POST", "https://api.openai.com/v1/chat/completions") as response:
            async for sse in pi_sdk.provider.iter_sse(response.aiter_bytes()):
                if sse.data != "[DONE]":
                    json.loads(sse.data)


async def adapter(client: AsyncOpenAI, tools: bool) -> None:
    context = Context(messages=[UserMessage(content="hi")])
    if tools:
        context.tools = [pi_sdk.Tool(name="write")]
    message = await pi_sdk.stream(MODEL, context, StreamOptions(client=client)).result()
    assert message.stop_reason == ("toolUse" if tools else "stop"), message.error_message


async def sdk_create(client: AsyncOpenAI, tools: bool) -> None:
    stream = await client.chat.completions.create(
        model=MODEL.id,
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        **({"tools": TOOLS} if tools else {}),  # pyright: ignore[reportArgumentType]
    )
    async for _ in stream:
        pass


async def sdk_helper(client: AsyncOpenAI, tools: bool) -> None:
    async with client.chat.completions.stream(
        model=MODEL.id,
        messages=[{"role": "user", "content": "hi"}],
        **({"tools": TOOLS} if tools else {}),  # pyright: ignore[reportArgumentType]
    ) as stream:
        async for _ in stream:
            pass


Path = Callable[[AsyncOpenAI, bool], Awaitable[None]]
PATHS: list[tuple[str, Path]] = [
    ("floor: transport + iter_sse + json.loads", floor),
    ("pi-sdk adapter (normalized events + message)", adapter),
    ("openai SDK create(stream=True), typed chunks", sdk_create),
    ("openai SDK stream() helper (accumulating)", sdk_helper),
]


async def cpu(run: Path, client: AsyncOpenAI, tools: bool) -> float:
    best = float("inf")
    for _ in range(REPEAT):
        start = time.process_time()
        await run(client, tools)
        best = min(best, time.process_time() - start)
    return best


async def measure(title: str, data: bytes, tools: bool) -> None:
    client = make_client(data)
    events = data.count(b"\n\ndata: ") + 1
    for _, run in PATHS:  # warm up
        await run(client, tools)
    results = {name: await cpu(run, client, tools) for name, run in PATHS}
    print(f"{title} ({events} SSE events, {len(data) // 1024} KB), best of {REPEAT}, CPU time")
    for name, seconds in results.items():
        print(f"   {name:46} {seconds / events * 1e6:6.1f} µs/chunk")
    ours = results[PATHS[1][0]]
    print(f"   ratio adapter / SDK create(stream=True): {ours / results[PATHS[2][0]]:.2f}")
    print(f"   ratio adapter / SDK stream() helper:     {ours / results[PATHS[3][0]]:.2f}")
    await client.close()


def growth() -> None:
    from pi_sdk_openai.completions import Decoder as CompletionsDecoder

    from pi_sdk.provider import MessageBuilder

    def decode(chunks: int) -> float:
        decoder = CompletionsDecoder(MessageBuilder(MODEL))
        data = [_chunk({"content": f"w{i} "}) for i in range(chunks)]
        start = time.process_time()
        for chunk in data:
            decoder.feed(chunk)
        return time.process_time() - start

    small, large = decode(20_000), decode(200_000)
    print("3. long replies through the decoder (text grows to ~1.4 MB)")
    print(f"    20k chunks: {small * 1e3:7.1f} ms   200k chunks: {large * 1e3:7.1f} ms")
    print(f"   time(200k) / time(20k) = {large / small:.1f} (linear ≈ 10, quadratic ≈ 100)")


async def main() -> None:
    await measure("1. text", text_body(), tools=False)
    await measure("2. tool-call arguments", tool_body(), tools=True)
    growth()


if __name__ == "__main__":
    asyncio.run(main())

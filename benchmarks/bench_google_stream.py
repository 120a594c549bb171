"""Google adapter: cost of reading a Gemini stream, pi-sdk's raw path against the SDK's paths.

All paths read the same SSE body from an in-memory httpx2 transport through one
``google.genai.Client`` (no network). Measured, in the same run:

* ``sdk typed``: ``client.aio.models.generate_content_stream(...)``, the SDK's public streaming
  call, which builds a ``GenerateContentResponse`` pydantic object per chunk (the baseline; the
  consumer still has to turn those into pi-sdk events);
* ``sdk dicts``: ``client._api_client.async_request_streamed(...)``, the SDK's untyped path: it
  parses each chunk, re-serializes it to a JSON string, and we parse it again;
* ``pi-sdk``: the adapter as shipped (``pi_sdk.stream``): raw bytes -> ``iter_sse`` ->
  ``json.loads`` -> pi-sdk events, including request building and event emission.

Prints microseconds per chunk and the ratio to the baseline. Run:
``uv run python benchmarks/bench_google_stream.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from _memory_transport import MemoryTransport, split
from google import genai
from google.genai import types

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

CHUNKS = 2000
REPEAT = 5


def body(chunks: int) -> bytes:
    lines = []
    for i in range(chunks):
        chunk: dict[str, Any] = {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": f"word{i} "}]}, "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": i + 1},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "bench",
        }
        if i == chunks - 1:
            chunk["candidates"][0]["finishReason"] = "STOP"
        lines.append(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
    return b"".join(lines)


def make_client(data: bytes) -> genai.Client:
    options = types.HttpOptions(
        httpx_async_client=httpx2.AsyncClient(transport=MemoryTransport(split(data))),
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return genai.Client(api_key="bench-key", http_options=options)


MODEL = Model(
    id="gemini-2.5-flash",
    api="google-generative-ai",
    provider="google",
    base_url="https://generativelanguage.googleapis.com/v1beta",
)


async def sdk_typed(client: genai.Client) -> int:
    count = 0
    stream = await client.aio.models.generate_content_stream(model=MODEL.id, contents="hi")
    async for response in stream:
        count += len(response.text or "")
    return count


async def sdk_dicts(client: genai.Client) -> int:
    count = 0
    api = client._api_client  # pyright: ignore[reportPrivateUsage]
    request = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    path = f"models/{MODEL.id}:streamGenerateContent?alt=sse"
    stream = await api.async_request_streamed("post", path, request)
    async for response in stream:
        chunk = json.loads(response.body)
        count += len(chunk["candidates"][0]["content"]["parts"][0]["text"])
    return count


async def pi_sdk_path(client: genai.Client) -> int:
    options = StreamOptions(client=client, max_retries=0)
    context = Context(messages=[UserMessage(content="hi")])
    message = await pi_sdk.stream(MODEL, context, options).result()
    assert message.stop_reason == "stop", message.error_message
    return len(message.text)


async def best_of(run: Callable[[genai.Client], Awaitable[int]], client: genai.Client) -> float:
    times: list[float] = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        await run(client)
        times.append(time.perf_counter() - start)
    return min(times)


async def main() -> None:
    data = body(CHUNKS)
    client = make_client(data)
    for warm in (sdk_typed, sdk_dicts, pi_sdk_path):
        await warm(client)
    baseline = await best_of(sdk_typed, client)
    print(f"{CHUNKS} chunks, best of {REPEAT}")
    for name, run in (("sdk typed", sdk_typed), ("sdk dicts", sdk_dicts), ("pi-sdk", pi_sdk_path)):
        seconds = baseline if run is sdk_typed else await best_of(run, client)
        per_chunk = seconds / CHUNKS * 1e6
        print(f"{name:10} {per_chunk:8.1f} us/chunk   {seconds / baseline:5.2f}x baseline")


if __name__ == "__main__":
    asyncio.run(main())

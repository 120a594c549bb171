"""Benchmark the bedrock-converse-stream adapter against botocore on the same event-stream bytes.

CPU per streamed chunk (one event-stream frame = one chunk) of a long ConverseStream reply
(reasoning + signature, a long text, a streamed tool call): pi-sdk's adapter (raw bytes -> our
frame reader -> ``json.loads`` -> normalized events with a live message, request signed with
SigV4 by botocore) versus the AWS SDK's own iteration of the same body,
``client.converse_stream(...)["stream"]`` (botocore's ``EventStreamBuffer`` + the service
model's event parser, one dict per event; what boto3 does, and what aiobotocore runs too).
Same body, same run; the floor (our frame reader + ``json.loads`` only) is printed too.

botocore's HTTP layer is replaced by a ``before-send`` handler that returns the body from
memory; pi-sdk gets it from an in-memory httpx2 transport. No network.

Run: ``uv run python benchmarks/bench_stream_bedrock.py``. Numbers are CPU time
(``time.process_time``), best of several rounds.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Iterator
from typing import Any

import botocore.session
import httpx2
from _eventstream import frame
from _memory_transport import MemoryTransport
from botocore.awsrequest import AWSResponse
from botocore.credentials import Credentials
from pi_sdk_bedrock.converse import BedrockClient
from pi_sdk_bedrock.converse._frames import FrameReader

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

REGION = "us-east-1"
# The catalog's model, its endpoint kept: the adapter's request is the real one.
MODEL = pi_sdk.get_model("amazon-bedrock", "us.anthropic.claude-sonnet-4-20250514-v1:0")
CTX = Context(messages=[UserMessage(content="bench")])
CREDENTIALS = ("AKIDBENCH", "bench-secret")


# --- the body ---------------------------------------------------------------------------------


def _delta(index: int, **delta: Any) -> bytes:
    # ``p`` is the random-length padding Bedrock adds to every event.
    return frame("contentBlockDelta", {"contentBlockIndex": index, "delta": delta, "p": "abcdef"})


def long_body(thinking: int = 500, text: int = 3000, tool: int = 200) -> list[bytes]:
    """A long reply, one chunk per frame: reasoning + signature, text, a streamed tool call."""
    frames = [frame("messageStart", {"role": "assistant"})]
    frames += [
        _delta(0, reasoningContent={"text": f"step {i}, considering "}) for i in range(thinking)
    ]
    frames += [_delta(0, reasoningContent={"signature": "c2ln" * 100})]
    frames += [frame("contentBlockStop", {"contentBlockIndex": 0})]
    frames += [_delta(1, text=f"word{i} é ") for i in range(text)]
    frames += [frame("contentBlockStop", {"contentBlockIndex": 1})]
    start = {"toolUse": {"toolUseId": "tooluse_bench", "name": "save"}}
    frames += [frame("contentBlockStart", {"contentBlockIndex": 2, "start": start})]
    args = json.dumps({"items": [{"id": i, "label": f"item {i}"} for i in range(tool)]})
    frames += [_delta(2, toolUse={"input": args[i : i + 16]}) for i in range(0, len(args), 16)]
    frames += [
        frame("contentBlockStop", {"contentBlockIndex": 2}),
        frame("messageStop", {"stopReason": "tool_use"}),
        frame("metadata", {"usage": {"inputTokens": 1000, "outputTokens": 4000}, "metrics": {}}),
    ]
    return frames


# --- the contenders ---------------------------------------------------------------------------


async def run_adapter(chunks: list[bytes]) -> float:
    http = httpx2.AsyncClient(transport=MemoryTransport(chunks))
    client = BedrockClient(
        http, region=REGION, endpoint=MODEL.base_url, credentials=Credentials(*CREDENTIALS)
    )
    options = StreamOptions(client=client, max_retries=0)

    async def once() -> None:
        stream = pi_sdk.stream(MODEL, CTX, options)
        async for _ in stream:
            pass
        message = await stream.result()
        assert message.stop_reason == "toolUse", message.error_message

    await once()  # warm: imports, the client's connection machinery
    gc.collect()
    start = time.process_time()
    await once()
    seconds = time.process_time() - start
    await client.close()
    return seconds


class _Raw:
    """What botocore reads an event stream from (urllib3's response: ``stream()``)."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[bytes]:
        yield from self._chunks

    def read(self, *args: Any, **kwargs: Any) -> bytes:
        return b"".join(self._chunks)

    def close(self) -> None:
        pass

    def release_conn(self) -> None:
        pass


def _botocore_client(chunks: list[bytes]) -> Any:
    session = botocore.session.Session()
    client = session.create_client(
        "bedrock-runtime",
        region_name=REGION,
        aws_access_key_id=CREDENTIALS[0],
        aws_secret_access_key=CREDENTIALS[1],
    )
    headers = {"content-type": "application/vnd.amazon.eventstream"}

    def send(request: Any, **kwargs: Any) -> AWSResponse:
        return AWSResponse(request.url, 200, headers, _Raw(chunks))

    client.meta.events.register("before-send.bedrock-runtime.ConverseStream", send)
    return client


def run_sdk(chunks: list[bytes]) -> float:
    client = _botocore_client(chunks)
    request = {"modelId": MODEL.id, "messages": [{"role": "user", "content": [{"text": "bench"}]}]}

    def once() -> int:
        count = 0
        for _ in client.converse_stream(**request)["stream"]:
            count += 1
        assert count == len(chunks), count
        return count

    once()
    gc.collect()
    start = time.process_time()
    once()
    return time.process_time() - start


def run_floor(chunks: list[bytes]) -> float:
    start = time.process_time()
    reader = FrameReader()
    loads = json.loads
    for chunk in chunks:
        for _, _, payload, _ in reader.feed(chunk):
            loads(payload)
    return time.process_time() - start


def _once(fn: Any, chunks: list[bytes]) -> float:
    value = fn(chunks)
    return asyncio.run(value) if asyncio.iscoroutine(value) else value


def main() -> None:
    chunks = long_body()
    n = len(chunks)
    size_kb = sum(map(len, chunks)) / 1024
    print(f"CPU per streamed chunk ({n} event-stream frames, {size_kb:.0f} KB, one chunk each)")
    contenders = {
        "floor: our frame reader + json.loads": run_floor,
        "pi-sdk adapter (normalized events + live message)": run_adapter,
        "AWS SDK: botocore converse_stream() iteration": run_sdk,
    }
    # Rounds alternate between the contenders, so a busy moment of the machine hits each alike.
    results = dict.fromkeys(contenders, float("inf"))
    for _ in range(9):
        for name, fn in contenders.items():
            results[name] = min(results[name], _once(fn, chunks))
    for name, seconds in results.items():
        print(f"   {name:52s} {seconds / n * 1e6:7.1f} µs/chunk")
    ours = results["pi-sdk adapter (normalized events + live message)"]
    sdk = results["AWS SDK: botocore converse_stream() iteration"]
    print(f"   ratio adapter / AWS SDK iteration: {ours / sdk:.2f} (target <= 0.5)")


if __name__ == "__main__":
    main()

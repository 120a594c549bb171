"""Benchmark the anthropic-messages adapter against the anthropic SDK on the same bytes.

1. CPU per streamed chunk (one SSE event = one chunk): pi-sdk's adapter (raw bytes ->
   ``iter_sse`` -> ``json.loads`` -> normalized events with a live message) versus the SDK's own
   typed iteration of the same body, ``messages.create(stream=True)`` (one pydantic object per
   event) and ``messages.stream()`` (typed events plus an accumulated snapshot). Same in-memory
   transport, same body, same run; the floor (transport + ``iter_sse`` + ``json.loads`` only)
   is printed too.
2. Tool arguments: a 200 KB JSON object streamed in 16-byte ``input_json_delta`` events through
   the whole adapter, against 20 KB; the ratio of times is ~10 for linear parsing, ~100 for
   quadratic re-parsing (what pi-mono does).
3. Long text: µs per ``text_delta`` through the whole adapter for a reply of 50 KB and of
   500 KB (equal for linear appending, ~10x for copying the text per delta), and the same two
   sizes for ``TextContent.append`` against ``block.text += piece`` alone (the baseline).

Run: ``uv run python benchmarks/bench_stream_anthropic.py``. Numbers are CPU time
(``time.process_time``), best of several rounds. No network.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import httpx2
from _memory_transport import MemoryTransport

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

BASE = "https://api.anthropic.bench"
MODEL = Model(
    id="claude-bench", api="anthropic-messages", provider="anthropic", base_url=BASE, reasoning=True
)
CTX = Context(messages=[UserMessage(content="bench")])
REQUEST = {
    "model": "claude-bench",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "bench"}],
}


# --- bodies -----------------------------------------------------------------------------------


def _event(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _start() -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_bench",
            "type": "message",
            "role": "assistant",
            "model": "claude-bench",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 1000,
                "output_tokens": 1,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            },
        },
    }


def _delta(index: int, **delta: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _tool_block(index: int, call_id: str, name: str, args: str) -> list[dict[str, Any]]:
    """A ``tool_use`` block at ``index``: start, ``args`` in 16-byte ``input_json_delta``s, stop."""
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        *(
            _delta(index, type="input_json_delta", partial_json=args[i : i + 16])
            for i in range(0, len(args), 16)
        ),
        {"type": "content_block_stop", "index": index},
    ]


def _end(delta: dict[str, Any], *, output_tokens: int) -> list[dict[str, Any]]:
    """``message_delta`` (stop reason, output tokens) then ``message_stop``."""
    usage = {"output_tokens": output_tokens}
    return [{"type": "message_delta", "delta": delta, "usage": usage}, {"type": "message_stop"}]


def mixed_body(thinking: int = 300, text: int = 1500, tool: int = 200) -> list[bytes]:
    """A realistic reply: thinking + signature, a long text, a tool call; one chunk per event."""
    events = [
        _start(),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
    ]
    events += [
        _delta(0, type="thinking_delta", thinking=f"step {i}, considering ")
        for i in range(thinking)
    ]
    events += [
        _delta(0, type="signature_delta", signature="c2ln" * 100),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    ]
    events += [_delta(1, type="text_delta", text=f"word{i} é ") for i in range(text)]
    events.append({"type": "content_block_stop", "index": 1})
    args = json.dumps({"items": [{"id": i, "label": f"item {i}"} for i in range(tool)]})
    events += _tool_block(2, "toolu_bench", "save", args)
    events += _end({"stop_reason": "tool_use", "stop_sequence": None}, output_tokens=4000)
    return [_event(e) for e in events]


def tool_body(size: int) -> list[bytes]:
    """One tool call whose arguments are a JSON object of ~``size`` bytes, in 16-byte deltas."""
    row = {"name": "x" * 30, "value": 12345, "tags": ["a", "b"]}
    count = max(1, size // len(json.dumps(row)))
    args = json.dumps({"rows": [dict(row, i=i) for i in range(count)]})
    events = [_start(), *_tool_block(0, "toolu_big", "store", args)]
    events += _end({"stop_reason": "tool_use"}, output_tokens=1)
    return [_event(e) for e in events]


def text_body(size: int, piece: str = "word é ") -> list[bytes]:
    """One text block of ~``size`` bytes of text, one ``text_delta`` per 8-byte piece."""
    count = max(1, size // len(piece.encode()))
    events = [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [_delta(0, type="text_delta", text=piece) for _ in range(count)]
    events += [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    return [_event(e) for e in events]


# --- transport --------------------------------------------------------------------------------


def client_for(chunks: list[bytes]) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key="bench",
        base_url=BASE,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=MemoryTransport(chunks)),
    )


# --- the contenders ---------------------------------------------------------------------------


async def run_adapter(client: anthropic.AsyncAnthropic, expect: str = "toolUse") -> int:
    stream = pi_sdk.stream(MODEL, CTX, StreamOptions(client=client, max_retries=0))
    count = 0
    async for _ in stream:
        count += 1
    message = await stream.result()
    assert message.stop_reason == expect, message.error_message
    return count


async def run_adapter_text(client: anthropic.AsyncAnthropic) -> int:
    return await run_adapter(client, expect="stop")


def append_cost(size: int, deltas: int = 5_000) -> tuple[float, float]:
    """µs per 8-byte append onto ``size`` bytes of text: ``append`` and ``+=``."""
    results: list[float] = []
    for use_append in (True, False):
        block = pi_sdk.TextContent(text="x" * size)
        start = time.process_time()
        if use_append:
            for _ in range(deltas):
                block.append("word é ")
        else:
            for _ in range(deltas):
                block.text += "word é "
        results.append((time.process_time() - start) / deltas * 1e6)
    return results[0], results[1]


async def run_sdk_raw(client: anthropic.AsyncAnthropic) -> int:
    count = 0
    stream = await client.messages.create(**REQUEST, stream=True)  # type: ignore[arg-type]
    async for _ in stream:
        count += 1
    return count


async def run_sdk_helper(client: anthropic.AsyncAnthropic) -> int:
    count = 0
    async with client.messages.stream(**REQUEST) as stream:  # type: ignore[arg-type]
        async for _ in stream:
            count += 1
        await stream.get_final_message()
    return count


async def run_floor(client: anthropic.AsyncAnthropic) -> int:
    response = await client.post(
        "/v1/messages",
        cast_to=httpx2.Response,
        body=REQUEST,
        stream=True,
        stream_cls=anthropic.AsyncStream[Any],
    )
    count = 0
    async for sse in pi_sdk.provider.iter_sse(response.aiter_bytes()):
        json.loads(sse.data)
        count += 1
    await response.aclose()
    return count


async def cpu_time(
    fn: Callable[[anthropic.AsyncAnthropic], Awaitable[int]], chunks: list[bytes], rounds: int = 7
) -> float:
    """Best CPU seconds of ``rounds`` runs (client built outside the timed part)."""
    best = float("inf")
    for _ in range(rounds):
        client = client_for(chunks)
        await fn(client)  # warm the client's connection machinery
        gc.collect()
        start = time.process_time()
        await fn(client)
        best = min(best, time.process_time() - start)
        await client.close()
    return best


async def main() -> None:
    chunks = mixed_body()
    n = len(chunks)
    size_kb = sum(map(len, chunks)) / 1024
    print(f"1. CPU per streamed chunk ({n} SSE events, {size_kb:.0f} KB, one chunk each)")
    results = {}
    for name, fn in (
        ("floor: transport + iter_sse + json.loads", run_floor),
        ("pi-sdk adapter (normalized events + live message)", run_adapter),
        ("anthropic SDK messages.create(stream=True)", run_sdk_raw),
        ("anthropic SDK messages.stream() helper", run_sdk_helper),
    ):
        seconds = await cpu_time(fn, chunks)
        results[name] = seconds
        print(f"   {name:52s} {seconds / n * 1e6:7.1f} µs/chunk")
    ours = results["pi-sdk adapter (normalized events + live message)"]
    raw = results["anthropic SDK messages.create(stream=True)"]
    helper = results["anthropic SDK messages.stream() helper"]
    print(f"   ratio adapter / SDK create(stream=True): {ours / raw:.2f}")
    print(f"   ratio adapter / SDK stream() helper:     {ours / helper:.2f}")

    print("2. Tool arguments in 16-byte input_json_delta events, through the whole adapter")
    times = {}
    for size in (20_000, 200_000):
        body = tool_body(size)
        times[size] = await cpu_time(run_adapter, body, rounds=5)
        print(f"   {size // 1000:4d} KB: {len(body) - 5:6d} deltas, {times[size] * 1000:8.1f} ms")
    ratio = times[200_000] / times[20_000]
    print(f"   time(200 KB) / time(20 KB) = {ratio:.1f} (linear ≈ 10, quadratic ≈ 100)")

    print("3. Long text, one 8-byte text_delta per event, through the whole adapter")
    per_delta = {}
    for size in (50_000, 500_000):
        body = text_body(size)
        deltas = len(body) - 5
        seconds = await cpu_time(run_adapter_text, body, rounds=3)
        per_delta[size] = seconds / deltas * 1e6
        print(f"   {size // 1000:4d} KB: {deltas:6d} deltas, {per_delta[size]:6.2f} µs/delta")
    ratio = per_delta[500_000] / per_delta[50_000]
    print(f"   µs/delta(500 KB) / µs/delta(50 KB) = {ratio:.2f} (linear ≈ 1, copying ≈ 10)")
    for size in (50_000, 500_000):
        ours, copying = append_cost(size)
        print(
            f"   onto {size // 1000:3d} KB: TextContent.append {ours:6.2f} µs/delta,"
            f" block.text += {copying:6.2f} µs/delta (baseline)"
        )


if __name__ == "__main__":
    asyncio.run(main())

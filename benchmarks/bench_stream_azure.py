"""Benchmark the Azure OpenAI adapters against the openai SDK's ``AsyncAzureOpenAI`` streams.

Two long replies, shaped as an Azure OpenAI deployment sends them, each served from memory (one
SSE event per transport chunk) to one ``openai.AsyncAzureOpenAI`` client on a deployment
endpoint (``.../openai/deployments/<d>``, ``api-version`` in the query):

1. **Responses** (``azure-openai-responses``): a reasoning summary streamed in 500 deltas, an
   encrypted reasoning item, 3000 ``output_text`` deltas, a function call whose arguments come
   in 200 fragments; every delta carries the ``obfuscation`` padding field, the final
   ``response.completed`` Azure's ``content_filters``;
2. **Chat Completions** (provider ``azure-openai``): Azure's first chunk (empty ``model``, no
   choices, ``prompt_filter_results``), 3000 content deltas each with a
   ``content_filter_results`` object (the four category verdicts on every 20th), a final
   usage chunk, ``[DONE]``.

Printed per reply, in one run: CPU per chunk of the floor (transport + ``iter_sse`` +
``json.loads``), pi-sdk's adapter (``pi_sdk.stream`` to the final message: request, normalized
events, the live message, usage and cost), the SDK's own iteration
(``client.responses.create(stream=True)`` / ``client.chat.completions.create(stream=True)``:
one typed event per chunk, nothing accumulated) and the SDK's accumulating helper
(``client.responses.stream()`` / ``client.chat.completions.stream()``), and the ratio adapter /
SDK iteration (target: at most 0.5).

Run: ``uv run python benchmarks/bench_stream_azure.py``. CPU time (``time.process_time``), best
of several rounds alternating between the contenders; the client is built outside the timed
part. No network.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from _memory_transport import DONE, MemoryTransport, sse_data
from openai import AsyncAzureOpenAI

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

DEPLOYMENT_URL = "https://bench-eastus2.openai.azure.com/openai/deployments/gpt5-bench"
API_VERSION = "2025-04-01-preview"
RESPONSES_MODEL = Model(
    id="gpt-5",
    api="azure-openai-responses",
    provider="azure-openai-responses",
    base_url=DEPLOYMENT_URL,
    reasoning=True,
    cost={"input": 1.25, "output": 10.0},  # pyright: ignore[reportArgumentType]
)
CHAT_MODEL = Model(
    id="gpt-4o",
    api="openai-completions",
    provider="azure-openai",
    base_url=DEPLOYMENT_URL,
    cost={"input": 2.5, "output": 10.0},  # pyright: ignore[reportArgumentType]
)
TOOL = pi_sdk.Tool(name="save", parameters={"type": "object", "properties": {}})
SDK_TOOL: Any = {"type": "function", "name": "save", "parameters": {"type": "object"}}
SDK_INPUT: Any = [{"role": "user", "content": "bench"}]
_SAFE = {"filtered": False, "severity": "safe"}
FILTERS = {"hate": _SAFE, "self_harm": _SAFE, "sexual": _SAFE, "violence": _SAFE}


def _sse(events: list[dict[str, Any]], *, done: bool) -> list[bytes]:
    chunks = [sse_data(e) for e in events]
    return [*chunks, DONE] if done else chunks


def responses_reply(summary: int = 500, text: int = 3000, arguments: int = 200) -> list[bytes]:
    """The Responses reply's SSE events (``event:`` lines left out, as the SDK ignores them)."""
    seq = iter(range(1_000_000))
    pad = "a1B2c3D4e5"

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "sequence_number": next(seq), **fields}

    def response(status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
        return {
            "id": "resp_bench",
            "object": "response",
            "created_at": 1,
            "status": status,
            "model": "gpt-5-2025-08-07",
            "output": output,
            **extra,
        }

    rs = {"id": "rs_bench", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAAB" * 80}
    message = {"id": "msg_bench", "type": "message", "role": "assistant", "status": "completed"}
    call = {"id": "fc_bench", "type": "function_call", "call_id": "call_bench", "name": "save"}
    at_rs = {"item_id": "rs_bench", "output_index": 0, "summary_index": 0}
    at_msg = {"item_id": "msg_bench", "output_index": 1, "content_index": 0}
    events = [
        event("response.created", response=response("in_progress", [])),
        event("response.output_item.added", output_index=0, item=rs),
        event("response.reasoning_summary_part.added", **at_rs, part={"type": "summary_text"}),
    ]
    events += [
        event("response.reasoning_summary_text.delta", **at_rs, delta=f"s{i} ", obfuscation=pad)
        for i in range(summary)
    ]
    events.append(event("response.output_item.done", output_index=0, item=rs))
    events.append(
        event("response.output_item.added", output_index=1, item={**message, "content": []})
    )
    part = {"type": "output_text", "text": "", "annotations": []}
    events.append(event("response.content_part.added", **at_msg, part=part))
    events += [
        event("response.output_text.delta", **at_msg, delta=f"word{i} é ", obfuscation=pad)
        for i in range(text)
    ]
    events.append(
        event("response.output_item.done", output_index=1, item={**message, "content": [part]})
    )
    events.append(
        event("response.output_item.added", output_index=2, item={**call, "arguments": ""})
    )
    events += [
        event(
            "response.function_call_arguments.delta",
            item_id="fc_bench",
            output_index=2,
            delta='{"a": 1' if i == 0 else (', "k": 2' if i < arguments - 1 else "}"),
            obfuscation=pad,
        )
        for i in range(arguments)
    ]
    events.append(event("response.output_item.done", output_index=2, item=call))
    usage = {
        "input_tokens": 900,
        "input_tokens_details": {"cached_tokens": 512},
        "output_tokens": 3700,
        "output_tokens_details": {"reasoning_tokens": 500},
        "total_tokens": 4600,
    }
    filters = [
        {"blocked": False, "source_type": s, "content_filter_results": FILTERS}
        for s in ("prompt", "completion")
    ]
    final = response("completed", [rs, message, call], usage=usage, content_filters=filters)
    events.append(event("response.completed", response=final))
    return _sse(events, done=False)


def chat_reply(text: int = 3000) -> list[bytes]:
    """The Chat Completions reply's SSE events, as an Azure deployment streams them."""

    def chunk(delta: dict[str, Any], index: int, finish: str | None = None) -> dict[str, Any]:
        verdicts = FILTERS if index % 20 == 0 else {}
        choice = {
            "content_filter_results": verdicts,
            "delta": delta,
            "finish_reason": finish,
            "index": 0,
            "logprobs": None,
        }
        return {
            "choices": [choice],
            "created": 1,
            "id": "chatcmpl-bench",
            "model": "gpt-4o-2024-11-20",
            "object": "chat.completion.chunk",
            "system_fingerprint": "fp_bench",
        }

    first = {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": FILTERS}],
    }
    events = [first, chunk({"role": "assistant", "content": ""}, 0)]
    events += [chunk({"content": f" word{i} é"}, i) for i in range(1, text + 1)]
    events.append(chunk({}, text + 1, "stop"))
    usage = {"prompt_tokens": 20, "completion_tokens": text, "total_tokens": text + 20}
    events.append({**chunk({}, 1), "choices": [], "usage": usage})
    return _sse(events, done=True)


def make_client(chunks: list[bytes]) -> AsyncAzureOpenAI:
    return AsyncAzureOpenAI(
        base_url=DEPLOYMENT_URL,
        api_version=API_VERSION,
        api_key="bench-key",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=MemoryTransport(chunks)),
    )


Runner = Callable[[AsyncAzureOpenAI, bool], Awaitable[None]]
"""One contender: ``(client, responses)``; ``responses`` False means Chat Completions."""


async def floor(client: AsyncAzureOpenAI, responses: bool) -> None:
    transport = client._client._transport
    path = "/responses" if responses else "/chat/completions"
    async with (
        httpx2.AsyncClient(transport=transport) as http,
        http.stream("POST", f"{DEPLOYMENT_URL}{path}?api-version={API_VERSION}") as response,
    ):
        async for sse in pi_sdk.provider.iter_sse(response.aiter_bytes()):
            if sse.data != "[DONE]":
                json.loads(sse.data)


async def adapter(client: AsyncAzureOpenAI, responses: bool) -> None:
    model = RESPONSES_MODEL if responses else CHAT_MODEL
    context = Context(messages=[UserMessage(content="bench")], tools=[TOOL])
    options = StreamOptions(client=client, max_retries=0)
    message = await pi_sdk.stream(model, context, options).result()
    expected = "toolUse" if responses else "stop"
    assert message.stop_reason == expected, message.error_message


async def sdk_iteration(client: AsyncAzureOpenAI, responses: bool) -> None:
    if responses:
        stream: Any = await client.responses.create(
            model="gpt5-bench", input=SDK_INPUT, tools=[SDK_TOOL], stream=True
        )
    else:
        stream = await client.chat.completions.create(
            model="gpt5-bench", messages=SDK_INPUT, stream=True
        )
    async for _ in stream:
        pass


async def sdk_helper(client: AsyncAzureOpenAI, responses: bool) -> None:
    if responses:
        manager: Any = client.responses.stream(
            model="gpt5-bench", input=SDK_INPUT, tools=[SDK_TOOL]
        )
    else:
        manager = client.chat.completions.stream(model="gpt5-bench", messages=SDK_INPUT)
    async with manager as stream:
        async for _ in stream:
            pass


CONTENDERS: list[tuple[str, Runner]] = [
    ("floor: transport + iter_sse + json.loads", floor),
    ("pi-sdk adapter (normalized events + message)", adapter),
    ("openai SDK AsyncAzureOpenAI create(stream=True)", sdk_iteration),
    ("openai SDK AsyncAzureOpenAI stream() helper", sdk_helper),
]


async def measure(title: str, chunks: list[bytes], responses: bool, rounds: int = 7) -> None:
    count = len(chunks)
    kilobytes = sum(map(len, chunks)) / 1024
    print(f"{title} ({count} SSE events, {kilobytes:.0f} KB, one chunk each), CPU time")
    client = make_client(chunks)
    for _, run in CONTENDERS:
        await run(client, responses)  # warm-up: imports, the connection pool, SDK caches
    # Rounds alternate between the contenders, so a busy moment of the machine hits each alike.
    best = dict.fromkeys((name for name, _ in CONTENDERS), float("inf"))
    for _ in range(rounds):
        for name, run in CONTENDERS:
            gc.collect()
            began = time.process_time()
            await run(client, responses)
            best[name] = min(best[name], time.process_time() - began)
    await client.close()
    for name, seconds in best.items():
        print(f"   {name:50s} {seconds / count * 1e6:7.1f} µs/chunk")
    ours = best[CONTENDERS[1][0]]
    print(f"   ratio adapter / SDK create(stream=True): {ours / best[CONTENDERS[2][0]]:.2f}"
          " (target <= 0.5)")  # fmt: skip
    print(f"   ratio adapter / SDK stream() helper:     {ours / best[CONTENDERS[3][0]]:.2f}")


async def main() -> None:
    await measure("1. Azure Responses", responses_reply(), responses=True)
    await measure("2. Azure Chat Completions", chat_reply(), responses=False)


if __name__ == "__main__":
    asyncio.run(main())

"""The memory of an idle Agent's 20-message transcript (issue 16, item 3), measured.

Shared by ``bench_memory.py`` (which prints it) and ``run.py`` (its memory section and target
line). The transcript: 20 messages in pi-mono's JSON (a user prompt, nine assistant turns each
with a text block and a tool call plus a vendor usage and cost, their nine tool results, a final
answer). How memory is measured: ``tracemalloc``, the bytes still allocated (after
``gc.collect()``) once the structure is built from the already-parsed JSON text, the JSON parse
included (so strings count once in every variant). Variants, in one run:

- ``pi-sdk Agent``: ``Agent(messages=[agent_message_from_dict(d) for d in json.loads(text)])``,
  the Agent itself included (the issue's "idle Agent holding 20 messages");
- ``pi-sdk, not lean``: the same with the instance sharing of ``pi_sdk._wire.lean`` switched off
  (what every wire object cost before: its own fields set and extras dict);
- ``plain dicts``: ``json.loads(text)``;
- ``pydantic-ai``: the same conversation as pydantic-ai messages
  (``ModelMessagesTypeAdapter``), when ``pydantic-ai-slim`` is installed (the ``bench``
  dependency group), from its own JSON.

Allocation sizes are deterministic for a given Python, so one sample per variant is enough.
"""

from __future__ import annotations

import gc
import importlib
import json
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from _ratios import print_ratios

import pi_sdk
from pi_sdk._agent.messages import agent_message_from_dict

CITIES = ("Paris", "Rome", "Oslo", "Lisbon", "Vienna", "Prague", "Dublin", "Madrid", "Bern")


def _usage(input: int, output: int) -> dict[str, Any]:
    cost_in, cost_out = input * 3e-6, output * 15e-6
    cost = {"input": cost_in, "output": cost_out, "cacheRead": 0.0, "cacheWrite": 0.0}
    cost["total"] = cost_in + cost_out
    return {
        "input": input,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": input + output,
        "cost": cost,
    }


def _assistant(content: list[dict[str, Any]], turn: int, stop: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "responseId": f"msg_01XYZ{turn:06d}",
        "usage": _usage(1200 + 60 * turn, 40 + turn),
        "stopReason": stop,
        "timestamp": 1764640001000 + 1000 * turn,
    }


def transcript() -> list[dict[str, Any]]:
    """The 20 messages, pi-mono JSON."""
    prompt = "What is the weather this week in " + ", ".join(CITIES) + "?"
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": prompt, "timestamp": 1764640000000}
    ]
    for turn, city in enumerate(CITIES):
        call_id = f"toolu_01ABCDEF{turn:04d}"
        arguments = {"city": city, "days": 7}
        call = {"type": "toolCall", "id": call_id, "name": "get_weather", "arguments": arguments}
        content = [{"type": "text", "text": f"Checking {city}."}, call]
        messages.append(_assistant(content, turn, "toolUse"))
        result = [{"type": "text", "text": f"{city}: sunny, 21 degrees, light breeze"}]
        messages.append(
            {
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": "get_weather",
                "content": result,
                "isError": False,
                "timestamp": 1764640001500 + 1000 * turn,
            }
        )
    final = [{"type": "text", "text": "Sunny all week in all nine cities."}]
    messages.append(_assistant(final, len(CITIES), "stop"))
    return messages


def pydantic_ai_json(messages: list[dict[str, Any]]) -> bytes | None:
    """The same conversation as pydantic-ai's JSON, or ``None`` without pydantic-ai."""
    try:
        from pydantic_ai import messages as pai
        from pydantic_ai.usage import RequestUsage
    except ImportError:
        return None
    out: list[Any] = []
    for message in messages:
        if message["role"] == "user":
            out.append(pai.ModelRequest(parts=[pai.UserPromptPart(content=message["content"])]))
        elif message["role"] == "toolResult":
            part = pai.ToolReturnPart(
                tool_name=message["toolName"],
                content=message["content"][0]["text"],
                tool_call_id=message["toolCallId"],
            )
            out.append(pai.ModelRequest(parts=[part]))
        else:
            parts: list[Any] = []
            for block in message["content"]:
                if block["type"] == "text":
                    parts.append(pai.TextPart(content=block["text"]))
                else:
                    call = pai.ToolCallPart(block["name"], block["arguments"], block["id"])
                    parts.append(call)
            usage = message["usage"]
            out.append(
                pai.ModelResponse(
                    parts=parts,
                    usage=RequestUsage(input_tokens=usage["input"], output_tokens=usage["output"]),
                    model_name=message["model"],
                    provider_name=message["provider"],
                    provider_response_id=message["responseId"],
                )
            )
    return pai.ModelMessagesTypeAdapter.dump_json(out)


def allocated(build: Callable[[], object]) -> tuple[object, int]:
    """What ``build()`` leaves allocated, in bytes (tracemalloc, after a collection)."""
    build()  # warm-up: caches, lazily built validators
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    built = build()
    gc.collect()
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return built, size


@dataclass(frozen=True)
class Memory:
    """Bytes per variant (``pydantic-ai`` only when installed) and the transcript's JSON size."""

    sizes: dict[str, int]
    json_bytes: int


def measure() -> Memory:
    """Measure every variant; raises ``RuntimeError`` if the Agent's messages do not dump back
    to the very JSON they were built from (the wire must not change)."""
    messages = transcript()
    text = json.dumps(messages)

    def agent() -> pi_sdk.Agent:
        return pi_sdk.Agent(messages=[agent_message_from_dict(d) for d in json.loads(text)])

    built, lean = allocated(agent)
    assert isinstance(built, pi_sdk.Agent)
    dumped = [m.model_dump(mode="json") for m in built.state.messages]  # type: ignore[union-attr]
    if json.dumps(dumped) != text:
        raise RuntimeError("the transcript does not round-trip to the same JSON")
    sizes = {"pi-sdk Agent": lean}
    wire_types: Any = importlib.import_module("pi_sdk._wire.wire_model")  # the lean step, off
    compact = wire_types.compact
    wire_types.compact = lambda model: None
    try:
        sizes["pi-sdk, not lean"] = allocated(agent)[1]
    finally:
        wire_types.compact = compact
    sizes["plain dicts"] = allocated(lambda: json.loads(text))[1]
    peer = pydantic_ai_json(messages)
    if peer is not None:
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        adapter = ModelMessagesTypeAdapter
        sizes["pydantic-ai"] = allocated(lambda: adapter.validate_python(json.loads(peer)))[1]
    return Memory(sizes, len(text))


def print_memory(memory: Memory) -> None:
    """Print KiB per variant and the ratio to plain dicts."""
    title = (
        "memory of a 20-message transcript"
        f" (tracemalloc, JSON parse included, {memory.json_bytes} B of JSON)"
    )
    print_ratios(title, memory.sizes, "plain dicts", lambda size: f"{size / 1024:6.1f} KiB")
    if "pydantic-ai" not in memory.sizes:
        print("  pydantic-ai       absent (install the bench dependency group)")

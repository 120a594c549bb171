"""Write pi_sdk/_cli/anthropic_demo.yaml, the cassette `pi-sdk demo` replays.

The two interactions are the project's own: a weather question answered with extended thinking
(streamed thinking, a signature, then a streamed `get_weather` tool call), and the follow-up
turn carrying the tool result. Requests are what `pi_sdk_anthropic.messages.build_request` sends
for that conversation; responses are written in the Anthropic Messages streaming wire format (event
names, field names and ordering as documented at
https://docs.anthropic.com/en/docs/build-with-claude/streaming), with token counts chosen to be
plausible. No credentials: the request headers carry none, and the signature is a deterministic
stand-in (base64 of hashed bytes), not a real one.

Run: `uv run python scripts/make_demo_cassette.py`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pi_sdk_anthropic.messages import build_headers, build_request

from pi_sdk import (
    AssistantMessage,
    Context,
    StreamOptions,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    get_model,
)

OUT = Path(__file__).resolve().parent.parent / "pi_sdk" / "_cli" / "anthropic_demo.yaml"
MODEL_ID = "claude-sonnet-4-5-20250929"
BASE = "https://api.anthropic.com"
SECRET_LIKE = re.compile(r"sk-|AIza|Bearer", re.IGNORECASE)

THINKING = [
    "The user wants the weather in Paris and whether to bring an umbrella.",
    " I have a get_weather tool that takes a city and a unit.",
    " Paris uses Celsius, so I'll ask for celsius",
    " and then decide about the umbrella from the forecast.",
]
TEXT_1 = ["I'll check the current ", "weather in Paris for you."]
TOOL_ARGS = ['{"city"', ': "Par', 'is", "un', 'it": "cel', 'sius"}']
TEXT_2 = [
    "It's 14 °C in Paris right now",
    " with light rain, and showers are",
    " expected to continue through the afternoon (80 % chance).",
    "\n\nYes — take an umbrella ☂️",
    " and a light jacket.",
]


def _signature(seed: str) -> str:
    blob = b"".join(hashlib.sha256(f"{seed}:{i}".encode()).digest() for i in range(8))
    return base64.b64encode(blob).decode()


def _sse(events: list[tuple[str, dict[str, Any]]]) -> str:
    return "".join(
        f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"
        for name, data in events
    )


def _message_start(msg_id: str, input_tokens: int, cache_read: int) -> tuple[str, dict[str, Any]]:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "model": MODEL_ID,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": cache_read,
                    "output_tokens": 1,
                },
            },
        },
    )


def _block(index: int, block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_start", {
        "type": "content_block_start",
        "index": index,
        "content_block": block,
    }


def _delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> tuple[str, dict[str, Any]]:
    return "content_block_stop", {"type": "content_block_stop", "index": index}


def _end(reason: str, usage: dict[str, int]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
                "usage": usage,
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def first_response(signature: str) -> str:
    events = [_message_start("msg_demo01WeatherParisThinking", 486, 0)]
    events.append(_block(0, {"type": "thinking", "thinking": "", "signature": ""}))
    events.append(("ping", {"type": "ping"}))
    events += [_delta(0, {"type": "thinking_delta", "thinking": t}) for t in THINKING]
    events.append(_delta(0, {"type": "signature_delta", "signature": signature}))
    events.append(_stop(0))
    events.append(_block(1, {"type": "text", "text": ""}))
    events += [_delta(1, {"type": "text_delta", "text": t}) for t in TEXT_1]
    events.append(_stop(1))
    events.append(
        _block(
            2,
            {
                "type": "tool_use",
                "id": "toolu_demo01GetWeatherParis",
                "name": "get_weather",
                "input": {},
            },
        )
    )
    events.append(_delta(2, {"type": "input_json_delta", "partial_json": ""}))
    events += [_delta(2, {"type": "input_json_delta", "partial_json": p}) for p in TOOL_ARGS]
    events.append(_stop(2))
    events += _end("tool_use", {"output_tokens": 131})
    return _sse(events)


def second_response() -> str:
    events = [_message_start("msg_demo02WeatherParisAnswer", 62, 612)]
    events.append(_block(0, {"type": "text", "text": ""}))
    events += [_delta(0, {"type": "text_delta", "text": t}) for t in TEXT_2]
    events.append(_stop(0))
    events += _end(
        "end_turn", {"input_tokens": 62, "cache_read_input_tokens": 612, "output_tokens": 48}
    )
    return _sse(events)


def conversation(signature: str) -> tuple[Context, Context]:
    tool = Tool(
        name="get_weather",
        description="Current weather and today's forecast for a city.",
        parameters={
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    )
    system = "You are a concise assistant. Use tools for live data."
    question = UserMessage(
        content="What's the weather in Paris right now? Should I bring an umbrella?",
        timestamp=1767225600000,
    )
    first = Context(system_prompt=system, messages=[question], tools=[tool])
    reply = AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model=MODEL_ID,
        content=[
            ThinkingContent(thinking="".join(THINKING), thinking_signature=signature),
            TextContent(text="".join(TEXT_1)),
            ToolCall(
                id="toolu_demo01GetWeatherParis",
                name="get_weather",
                arguments={"city": "Paris", "unit": "celsius"},
            ),
        ],
        stop_reason="toolUse",
        timestamp=1767225601000,
    )
    result = ToolResultMessage(
        tool_call_id="toolu_demo01GetWeatherParis",
        tool_name="get_weather",
        content=[
            TextContent(
                text='{"city": "Paris", "temperature_c": 14, "conditions": "light rain", '
                '"forecast": "showers through the afternoon", "precipitation_chance": 0.8}'
            )
        ],
        timestamp=1767225602000,
    )
    second = Context(system_prompt=system, messages=[question, reply, result], tools=[tool])
    return first, second


def interaction(context: Context, body: str, request_id: str) -> dict[str, Any]:
    model = get_model("anthropic", MODEL_ID)
    options = StreamOptions(reasoning="medium")
    payload = build_request(model, context, options)
    headers = {
        "accept": "application/json",
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        **build_headers(model, options, None),
    }
    return {
        "request": {
            "body": json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
            "headers": {k: [v] for k, v in sorted(headers.items())},
            "method": "POST",
            "uri": f"{BASE}/v1/messages",
        },
        "response": {
            "body": {"string": body},
            "headers": {
                "content-type": ["text/event-stream; charset=utf-8"],
                "cache-control": ["no-cache"],
                "request-id": [request_id],
            },
            "status": {"code": 200, "message": "OK"},
        },
    }


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def main() -> None:
    signature = _signature("pi-sdk demo thinking signature")
    assert not SECRET_LIKE.search(signature), "pick another seed"
    first, second = conversation(signature)
    cassette = {
        "interactions": [
            interaction(first, first_response(signature), "req_demo01"),
            interaction(second, second_response(), "req_demo02"),
        ],
        "version": 1,
    }
    text = yaml.dump(cassette, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    header = "# pi-sdk demo cassette, generated by scripts/make_demo_cassette.py; no credentials.\n"
    OUT.write_text(header + text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text)} bytes)")


if __name__ == "__main__":
    main()

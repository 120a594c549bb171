"""Typed answers (``StreamOptions(output=...)``) on every wire API: the request, the reply.

Request shape: each API's native mechanism (Chat Completions ``response_format``, Responses
``text.format``, Gemini ``responseJsonSchema``, Anthropic ``output_config.format``, Bedrock
``outputConfig.textFormat``, Mistral ``response_format``) or the forced ``final_answer`` tool.
Replies: built in each vendor's own streaming format (:mod:`_support.wire`) and served over
loopback HTTP through the real adapters; the parsed object lands on ``message.output``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from _support.loopback import LoopbackServer, sse_step
from _support.wire import WIRES, Call, Calls, Text, Tokens, Wire
from pi_sdk_anthropic.messages._request import build_request as anthropic_body
from pi_sdk_bedrock.converse._request import build_request as bedrock_body
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_mistral.conversations._request import build_request as mistral_body
from pi_sdk_openai.completions._request import build_payload as chat_body
from pi_sdk_openai.responses._request import build_payload as responses_body
from pydantic import BaseModel

import pi_sdk
from pi_sdk import ConfigurationError, Context, Model, StreamOptions, Tool, UserMessage
from pi_sdk.options import Output


class Weather(BaseModel):
    """The weather in one city."""

    city: str
    celsius: float


SCHEMA = Weather.model_json_schema()
STRICT = {**SCHEMA, "additionalProperties": False}
CTX = Context(messages=[UserMessage(content="Weather in Paris?")])
KEY = "typed-key-123"


def model(api: str, provider: str, model_id: str, **extra: Any) -> Model:
    return Model(
        id=model_id, api=api, provider=provider, base_url="https://vendor.test/v1", **extra
    )


Body = Callable[..., dict[str, Any]]
APIS: dict[str, tuple[Body, str, str]] = {
    "anthropic-messages": (anthropic_body, "anthropic", "claude-sonnet-4-5"),
    "openai-completions": (chat_body, "openai", "gpt-4o"),
    "openai-responses": (responses_body, "openai", "gpt-4o"),
    "google-generative-ai": (google_body, "google", "gemini-2.5-flash"),
    "bedrock-converse-stream": (bedrock_body, "amazon-bedrock", "anthropic.claude-x"),
    "mistral-conversations": (mistral_body, "mistral", "mistral-large-latest"),
}


def body(api: str, output: Any, *, model_id: str | None = None, **options: Any) -> dict[str, Any]:
    build, provider, default_id = APIS[api]
    return build(
        model(api, provider, model_id or default_id), CTX, StreamOptions(output=output, **options)
    )


def test_chat_completions_sends_a_strict_json_schema_response_format() -> None:
    assert body("openai-completions", Weather)["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "Weather",
            "description": "The weather in one city.",
            "schema": STRICT,
            "strict": True,
        },
    }


def test_responses_sends_text_format() -> None:
    sent = body("openai-responses", Weather)
    assert sent["text"] == {
        "format": {
            "type": "json_schema",
            "name": "Weather",
            "description": "The weather in one city.",
            "schema": STRICT,
            "strict": True,
        }
    }
    assert "tools" not in sent


def test_gemini_sends_response_json_schema() -> None:
    generation = body("google-generative-ai", Weather)["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert generation["responseJsonSchema"] == SCHEMA


def test_anthropic_structured_outputs_on_a_model_that_has_them() -> None:
    sent = body("anthropic-messages", Weather)
    assert sent["output_config"]["format"] == {"type": "json_schema", "schema": STRICT}
    assert "tools" not in sent and "tool_choice" not in sent


def test_anthropic_forces_the_answer_tool_on_an_older_model() -> None:
    sent = body("anthropic-messages", Weather, model_id="claude-3-5-haiku-latest")
    assert "output_config" not in sent
    assert sent["tool_choice"] == {"type": "tool", "name": "final_answer"}
    (tool,) = sent["tools"]
    assert tool["name"] == "final_answer"
    schema = tool["input_schema"]  # Anthropic's tool converter keeps type/properties/required
    assert schema["properties"] == SCHEMA["properties"] and schema["required"] == [
        "city",
        "celsius",
    ]


def test_anthropic_with_thinking_offers_the_tool_without_forcing_it() -> None:
    thinker = model("anthropic-messages", "anthropic", "claude-3-7-sonnet-latest", reasoning=True)
    sent = anthropic_body(thinker, CTX, StreamOptions(output=Weather, reasoning="low"))
    assert sent["thinking"]["type"] == "enabled"
    # Anthropic answers 400 to a forced tool while thinking is on.
    assert sent["tool_choice"] == {"type": "auto"}


@pytest.mark.parametrize(
    ("model_id", "native"),
    [
        ("claude-opus-4-1-20250805", True),
        ("claude-haiku-4-5", True),
        ("claude-sonnet-4-6", True),
        ("claude-sonnet-4-20250514", False),
        ("claude-3-5-sonnet-20241022", False),
    ],
)
def test_which_anthropic_models_get_the_native_mechanism(model_id: str, native: bool) -> None:
    assert ("output_config" in body("anthropic-messages", Weather, model_id=model_id)) is native


def test_bedrock_sends_output_config_with_the_schema_as_a_string() -> None:
    fmt = body("bedrock-converse-stream", Weather)["outputConfig"]["textFormat"]
    assert fmt["type"] == "json_schema"
    definition = fmt["structure"]["jsonSchema"]
    assert definition["name"] == "Weather"
    assert json.loads(definition["schema"]) == STRICT


def test_mistral_sends_a_json_schema_response_format() -> None:
    fmt = body("mistral-conversations", Weather)["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"] == STRICT and fmt["json_schema"]["strict"] is True


# where each API says which tool is forced
FORCED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "anthropic-messages": lambda b: b["tool_choice"],
    "openai-completions": lambda b: b["tool_choice"],
    "openai-responses": lambda b: b["tool_choice"],
    "google-generative-ai": lambda b: b["toolConfig"],
    "bedrock-converse-stream": lambda b: b["toolConfig"]["toolChoice"],
    "mistral-conversations": lambda b: b["tool_choice"],
}
FORCED_VALUE = {
    "anthropic-messages": {"type": "tool", "name": "final_answer"},
    "openai-completions": {"type": "function", "function": {"name": "final_answer"}},
    "openai-responses": {"type": "function", "name": "final_answer"},
    "google-generative-ai": {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["final_answer"]}
    },
    "bedrock-converse-stream": {"tool": {"name": "final_answer"}},
    "mistral-conversations": {"type": "function", "function": {"name": "final_answer"}},
}


@pytest.mark.parametrize("api", sorted(APIS))
def test_mode_tool_forces_the_answer_tool_on_every_api(api: str) -> None:
    sent = body(api, Output(Weather, mode="tool"))
    assert FORCED[api](sent) == FORCED_VALUE[api]
    for native in ("response_format", "text", "output_config", "outputConfig"):
        assert native not in sent
    assert "responseJsonSchema" not in sent.get("generationConfig", {})
    assert "final_answer" in json.dumps(sent.get("tools") or sent["toolConfig"]["tools"])


@pytest.mark.parametrize("api", sorted(APIS))
def test_no_output_sends_nothing_new(api: str) -> None:
    sent = json.dumps(body(api, None))
    for key in ("response_format", "output_config", "outputConfig", "responseJsonSchema"):
        assert key not in sent
    assert "final_answer" not in sent


def test_an_optional_field_makes_the_schema_not_strict() -> None:
    class Maybe(BaseModel):
        city: str
        note: str | None = None

    spec = body("openai-completions", Maybe)["response_format"]["json_schema"]
    assert spec["strict"] is False
    assert spec["schema"] == Maybe.model_json_schema()


def test_a_forced_tool_needs_an_object_schema() -> None:
    with pytest.raises(ConfigurationError, match="object schema"):
        body("openai-completions", Output(list[int], mode="tool"))


def test_a_user_tool_stays_next_to_the_answer_tool() -> None:
    ctx = CTX.model_copy(update={"tools": [Tool(name="lookup", parameters={"type": "object"})]})
    build, provider, _ = APIS["openai-completions"]
    sent = build(
        model("openai-completions", provider, "gpt-4o"),
        ctx,
        StreamOptions(output=Output(Weather, mode="tool")),
    )
    assert [t["function"]["name"] for t in sent["tools"]] == ["lookup", "final_answer"]


# --- replies in each vendor's format, through the real adapters ------------------------------

ANSWER = '{"city": "Paris", "celsius": 21.5}'


async def served(wire: Wire, blocks: list[Any], output: Any) -> tuple[Any, list[Any]]:
    events_body, terminal = wire.events(blocks, Tokens())
    async with LoopbackServer([sse_step(events_body + terminal)]) as server:
        options = StreamOptions(api_key=KEY, max_retries=0, output=output)
        stream = pi_sdk.stream(wire.model(server.url), CTX, options)
        events = [event async for event in stream]
        message = await asyncio.wait_for(stream.result(), 30)
        requests = list(server.requests)
    assert events[-1].type == "done"
    return message, requests


@pytest.mark.parametrize("wire", WIRES, ids=[w.api for w in WIRES])
async def test_a_json_text_reply_is_parsed_on_every_wire(wire: Wire) -> None:
    message, requests = await served(wire, [Text((ANSWER[:10], ANSWER[10:]))], Weather)
    assert message.stop_reason == "stop"
    assert message.output is not None and message.output.ok
    assert message.output.value == Weather(city="Paris", celsius=21.5)
    assert message.output.raw == ANSWER
    sent = requests[0][2].decode()
    assert any(key in sent for key in ("response_format", "output_config", "outputConfig",
                                       "responseJsonSchema", '"text"'))  # fmt: skip


@pytest.mark.parametrize("wire", WIRES, ids=[w.api for w in WIRES])
async def test_a_forced_tool_reply_becomes_the_answer_on_every_wire(wire: Wire) -> None:
    call = Call("call_1", "final_answer", ('{"city": "Rome", ', '"celsius": 30}'))
    message, requests = await served(wire, [Calls((call,))], Output(Weather, mode="tool"))
    assert message.stop_reason == "stop"  # not toolUse: nothing for an agent to run
    assert message.tool_calls == []
    assert json.loads(message.text) == {"city": "Rome", "celsius": 30}
    assert message.output is not None and message.output.value == Weather(city="Rome", celsius=30)
    assert "final_answer" in requests[0][2].decode()


@pytest.mark.parametrize("wire", WIRES, ids=[w.api for w in WIRES])
async def test_an_invalid_reply_is_data_with_the_raw_text_on_every_wire(wire: Wire) -> None:
    message, _ = await served(wire, [Text(('{"city": 3}',))], Weather)
    assert message.stop_reason == "stop"
    output = message.output
    assert output is not None and not output.ok and output.value is None
    assert output.raw == '{"city": 3}'
    assert output.error is not None and "/city" in output.error and "/celsius" in output.error

"""Strict and grammar tools on the Responses API (issue 29 item 4).

Shapes: OpenAI "Function calling" (``{"type": "function", name, description, parameters,
strict}``; strict mode needs every property required and ``additionalProperties: false``) and
"Custom tools" (``{"type": "custom", name, description, "format": {"type": "grammar", "syntax":
"lark" | "regex", "definition"}}``; the call is a ``custom_tool_call`` item whose ``input`` is
free text, streamed as ``response.custom_tool_call_input.delta`` / ``.done``, answered with a
``custom_tool_call_output`` item). pi-ai 1.6 maps the text to the tool's one required string
argument and back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support import schemas
from _support.conformance import Reply
from _support.models import model_maker
from _support.openai_fakes import BASE, JSON, run
from pi_sdk_openai.responses import build_payload

import pi_sdk
from pi_sdk import ConfigurationError, Context, StreamOptions, Tool, UserMessage

REASONING_ITEM = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Plan"}],
    "encrypted_content": "gAAAA-opaque",
}


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def completed() -> dict[str, Any]:
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    response = {"id": "resp_1", "status": "completed", "output": [], "usage": usage}
    return {"type": "response.completed", "response": response}


GRAMMAR = 'start: "SELECT " NAME\n%import common.CNAME -> NAME'
SQL = Tool(
    name="run_sql",
    description="Run one query",
    parameters=schemas.SQL,
    constrained_sampling={"type": "grammar", "variants": {"openai_lark": GRAMMAR}},
)
WEATHER = Tool(
    name="weather",
    description="The weather",
    parameters=schemas.WEATHER,
    constrained_sampling={"type": "json_schema", "strict": "require"},
)
PLAIN = Tool(name="plain", description="Nothing special")
model = model_maker(
    {
        "id": "gpt-5.2",
        "api": "openai-responses",
        "provider": "openai",
        "base_url": BASE,
        "reasoning": True,
        "compat": {"supportsStrictMode": True, "supportsOpenAIGrammarTools": True},
    }
)
CUSTOM_CALL = {
    "id": "ctc_1",
    "type": "custom_tool_call",
    "status": "in_progress",
    "call_id": "call_7",
    "name": "run_sql",
    "input": "",
}
TEXT = 'SELECT "naïve"\nusers'
"""A call text with a quote, a newline and a non-ASCII letter: all escaped or kept exactly."""


def _context(*tools: Tool) -> Context:
    return Context(messages=[UserMessage(content="How many users?")], tools=list(tools))


def _body(**compat: Any) -> dict[str, Any]:
    m = model(compat=compat) if compat else model()
    return build_payload(m, _context(SQL, WEATHER, PLAIN), StreamOptions(api_key="k"))


# --- request ------------------------------------------------------------------------------------


def test_grammar_strict_and_plain_tools_have_the_documented_shapes():
    tools = _body()["tools"]
    assert tools[0] == {
        "type": "custom",
        "name": "run_sql",
        "description": "Run one query",
        "format": {"type": "grammar", "syntax": "lark", "definition": GRAMMAR},
    }
    assert tools[1] == {
        "type": "function",
        "name": "weather",
        "description": "The weather",
        "parameters": schemas.STRICT_WEATHER,
        "strict": True,
    }
    assert tools[2]["strict"] is False and tools[2]["parameters"] == PLAIN.parameters


def test_without_grammar_support_the_grammar_tool_is_a_function_tool():
    tools = _body(supportsStrictMode=True)["tools"]
    assert tools[0] == {
        "type": "function",
        "name": "run_sql",
        "description": "Run one query",
        "parameters": SQL.parameters,
        "strict": False,
    }


def test_require_on_a_model_without_strict_mode_fails_before_the_request():
    with pytest.raises(ConfigurationError, match="'weather' on openai/gpt-5.2"):
        _body(supportsStrictMode=False)
    prefer = Tool(
        name="weather",
        description="The weather",
        parameters=WEATHER.parameters,
        constrained_sampling={"type": "json_schema", "strict": "prefer"},
    )
    body = build_payload(model(compat={}), _context(prefer), StreamOptions(api_key="k"))
    assert body["tools"][0]["parameters"] == WEATHER.parameters  # dropped silently
    assert "strict" not in body["tools"][0]  # and the field is not sent where it is unknown


async def test_require_on_a_model_without_strict_mode_ends_in_error_without_a_request():
    m = model(compat={})
    events, message, transport = await run(m, sse(completed()), context=_context(WEATHER))
    assert transport.requests == []
    assert message.stop_reason == "error"
    assert "'weather'" in (message.error_message or "") and "openai/gpt-5.2" in str(
        message.error_message
    )
    assert events[-1].type == "error"


# --- decoding -----------------------------------------------------------------------------------


def _input_events(text: str, cut: int) -> list[dict[str, Any]]:
    pieces = [text[:cut], text[cut:]]
    return [
        {
            "type": "response.custom_tool_call_input.delta",
            "output_index": 1,
            "item_id": "ctc_1",
            "delta": piece,
        }
        for piece in pieces
    ] + [
        {
            "type": "response.custom_tool_call_input.done",
            "output_index": 1,
            "item_id": "ctc_1",
            "input": text,
        }
    ]


@pytest.mark.parametrize("cut", [0, 8, 15])
async def test_a_custom_tool_call_streams_into_the_grammar_argument(cut: int):
    body = sse(
        added(0, {**REASONING_ITEM, "summary": []}),
        done(0, REASONING_ITEM),
        added(1, CUSTOM_CALL),
        *_input_events(TEXT, cut),
        done(1, {**CUSTOM_CALL, "status": "completed", "input": TEXT}),
        completed(),
    )
    events, message, _ = await run(model(), body, context=_context(SQL))
    (call,) = message.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_7|ctc_1", "run_sql", {"query": TEXT})
    assert message.stop_reason == "toolUse"
    streamed = "".join(e.delta for e in events if e.type == "toolcall_delta")
    assert json.loads(streamed) == {"query": TEXT}
    assert streamed == json.dumps({"query": TEXT}, ensure_ascii=False, separators=(",", ":"))


async def test_a_custom_tool_call_in_a_json_reply_and_an_undeclared_one():
    response = completed()["response"]
    response["output"] = [
        {**CUSTOM_CALL, "status": "completed", "input": TEXT},
        {**CUSTOM_CALL, "id": "ctc_2", "call_id": "call_8", "name": "other", "input": "x"},
    ]
    reply = Reply(200, json.dumps(response).encode(), JSON)
    _, message, _ = await run(model(), [reply], context=_context(SQL))
    assert [c.arguments for c in message.tool_calls] == [{"query": TEXT}, {"input": "x"}]


async def test_the_done_item_is_the_authority_when_deltas_are_missing():
    body = sse(
        added(0, CUSTOM_CALL),
        done(0, {**CUSTOM_CALL, "status": "completed", "input": TEXT}),
        completed(),
    )
    events, message, _ = await run(model(), body, context=_context(SQL))
    assert message.tool_calls[0].arguments == {"query": TEXT}
    assert "".join(e.delta for e in events if e.type == "toolcall_delta") == json.dumps(
        {"query": TEXT}, ensure_ascii=False, separators=(",", ":")
    )


# --- replay -------------------------------------------------------------------------------------


async def test_the_call_and_its_result_go_back_as_custom_items():
    vendor_item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_7"}
    vendor_item |= {"name": "run_sql", "input": TEXT}
    body = sse(
        added(0, {**REASONING_ITEM, "summary": []}),
        done(0, REASONING_ITEM),
        added(1, CUSTOM_CALL),
        done(1, {**vendor_item, "status": "completed"}),
        completed(),
    )
    m = model()
    _, reply, _ = await run(m, body, context=_context(SQL))
    result = pi_sdk.ToolResultMessage(
        tool_call_id=reply.tool_calls[0].id,
        tool_name="run_sql",
        content=[pi_sdk.TextContent(text="42")],
    )
    context = _context(SQL)
    context.messages += [reply, result]
    items = build_payload(m, context, StreamOptions(api_key="k"))["input"]
    assert items[2] == vendor_item  # after the user message and the reasoning item
    assert items[3] == {"type": "custom_tool_call_output", "call_id": "call_7", "output": "42"}
    # To a model without grammar tools the same call is a function call, without the ctc_ id.
    plain = build_payload(model(compat={}), context, StreamOptions(api_key="k"))["input"]
    assert plain[2] == {
        "type": "function_call",
        "call_id": "call_7",
        "name": "run_sql",
        "arguments": json.dumps({"query": TEXT}, ensure_ascii=False, separators=(",", ":")),
    }
    assert plain[3]["type"] == "function_call_output"


def test_a_grammar_call_without_its_string_argument_is_a_clear_error():
    call = pi_sdk.ToolCall(id="call_1|ctc_1", name="run_sql", arguments={"query": 3})
    turn = pi_sdk.AssistantMessage(
        content=[call], api="openai-responses", provider="openai", model="gpt-5.2"
    )
    context = _context(SQL)
    context.messages.append(turn)
    with pytest.raises(ConfigurationError, match="'run_sql'.*'query'"):
        build_payload(model(), context, StreamOptions(api_key="k"))

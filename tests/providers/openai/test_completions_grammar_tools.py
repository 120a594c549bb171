"""Grammar tools on Chat Completions (issue 29 item 4; pi-ai 1.6 ``openai-completions``).

OpenAI "Custom tools", Chat shape: the tool is ``{"type": "custom", "custom": {name,
description, "format": {"type": "grammar", "grammar": {"syntax", "definition"}}}}``, a call is a
``tool_calls`` entry ``{"id", "type": "custom", "custom": {"name", "input"}}`` (streamed in
pieces of ``input``), and it goes back in the same shape; the result is an ordinary ``tool``
message. Only models whose compat has ``supportsOpenAIGrammarTools`` get custom tools.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.conformance import Reply
from _support.models import model_maker
from _support.openai_fakes import BASE, JSON, run
from pi_sdk_openai.completions import build_payload

import pi_sdk
from pi_sdk import Context, StreamOptions, Tool, UserMessage

GRAMMAR = r"^\d{4}-\d{2}-\d{2}$"
DATE = Tool(
    name="set_date",
    description="Set the date",
    parameters={
        "type": "object",
        "properties": {"date": {"type": "string"}},
        "required": ["date"],
    },
    constrained_sampling={"type": "grammar", "variants": {"openai_regex": GRAMMAR}},
)
model = model_maker(
    {
        "id": "gpt-5.2",
        "api": "openai-completions",
        "provider": "openai",
        "base_url": BASE,
        "compat": {"supportsOpenAIGrammarTools": True, "supportsStrictMode": True},
    }
)
TEXT = '2026-12-05 "é"'


def _context() -> Context:
    return Context(messages=[UserMessage(content="Set the date")], tools=[DATE])


def sse(*chunks: Any) -> bytes:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + "data: [DONE]\n\n").encode()


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "model": "gpt-5.2", "choices": [choice]}


def _call(**custom: Any) -> dict[str, Any]:
    return {"tool_calls": [{"index": 0, "custom": custom}]}


def test_the_grammar_tool_is_a_custom_tool_where_the_model_takes_it():
    tools = build_payload(model(), _context(), StreamOptions(api_key="k"))["tools"]
    assert tools == [
        {
            "type": "custom",
            "custom": {
                "name": "set_date",
                "description": "Set the date",
                "format": {
                    "type": "grammar",
                    "grammar": {"syntax": "regex", "definition": GRAMMAR},
                },
            },
        }
    ]
    plain = build_payload(model(compat={}), _context(), StreamOptions(api_key="k"))["tools"]
    assert plain[0]["type"] == "function" and plain[0]["function"]["parameters"] == DATE.parameters


@pytest.mark.parametrize("cut", [0, 4, 11])
async def test_a_streamed_custom_call_becomes_the_grammar_argument(cut: int):
    body = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_1", "type": "custom", "custom": {"name": "set_date"}}
                ]
            }
        ),  # fmt: skip
        chunk(_call(input=TEXT[:cut])),
        chunk(_call(input=TEXT[cut:])),
        chunk({}, finish="tool_calls"),
    )
    events, message, _ = await run(model(), body, context=_context())
    (call,) = message.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "set_date", {"date": TEXT})
    assert message.stop_reason == "toolUse"
    streamed = "".join(e.delta for e in events if e.type == "toolcall_delta")
    assert streamed == json.dumps({"date": TEXT}, ensure_ascii=False, separators=(",", ":"))


async def test_a_custom_call_in_a_json_reply():
    completion = {
        "id": "c",
        "object": "chat.completion",
        "model": "gpt-5.2",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "custom", "custom": {"name": "set_date",
                                                                      "input": TEXT}},
                        {"id": "call_2", "type": "custom", "custom": {"name": "x", "input": "y"}},
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }  # fmt: skip
    reply = Reply(200, json.dumps(completion).encode(), JSON)
    _, message, _ = await run(model(), [reply], context=_context())
    assert [c.arguments for c in message.tool_calls] == [{"date": TEXT}, {"input": "y"}]


def test_the_call_goes_back_as_a_custom_call():
    call = pi_sdk.ToolCall(id="call_1", name="set_date", arguments={"date": TEXT})
    turn = pi_sdk.AssistantMessage(
        content=[call], api="openai-completions", provider="openai", model="gpt-5.2"
    )
    result = pi_sdk.ToolResultMessage(
        tool_call_id="call_1", tool_name="set_date", content=[pi_sdk.TextContent(text="ok")]
    )
    context = _context()
    context.messages += [turn, result]
    messages = build_payload(model(), context, StreamOptions(api_key="k"))["messages"]
    assert messages[1]["tool_calls"] == [
        {"id": "call_1", "type": "custom", "custom": {"name": "set_date", "input": TEXT}}
    ]
    assert messages[2] == {"role": "tool", "content": "ok", "tool_call_id": "call_1"}
    plain = build_payload(model(compat={}), context, StreamOptions(api_key="k"))["messages"]
    assert plain[1]["tool_calls"][0]["type"] == "function"
    assert json.loads(plain[1]["tool_calls"][0]["function"]["arguments"]) == {"date": TEXT}


def test_without_a_compat_every_tool_is_a_function_with_strict() -> None:
    """``convert_tools(tools, None, model)``: the ``strict`` field on, grammar tools off."""
    from pi_sdk_openai.completions import convert_tools
    from pi_sdk_openai.completions._compat import CompletionsCompat

    plain = Tool(name="plain", description="d", parameters={"type": "object", "properties": {}})
    tools = convert_tools([DATE, plain], None, model())
    assert [t["type"] for t in tools] == ["function", "function"]
    assert [t["function"]["name"] for t in tools] == ["set_date", "plain"]
    assert all(t["function"]["strict"] is False for t in tools)
    off = convert_tools([plain], CompletionsCompat(supports_strict_mode=False), model())
    assert "strict" not in off[0]["function"]
    custom = convert_tools([DATE], CompletionsCompat(supports_openai_grammar_tools=True), model())
    assert custom[0]["type"] == "custom"

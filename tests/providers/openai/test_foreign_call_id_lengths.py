"""Another model's tool-call ids, sent to each OpenAI wire API: the length limit itself.

Responses takes a ``call_id`` of up to 64 characters, Chat Completions a ``tool_call_id`` of up
to 40: an id of the limit goes as it is; one character more is fitted to the limit (a hash
keeps distinct ids distinct), the same on the call and on its result.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions import build_payload as chat_payload
from pi_sdk_openai.responses import build_payload as responses_payload

from pi_sdk import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def _context(call_id: str) -> Context:
    turn = AssistantMessage(
        content=[ToolCall(id=call_id, name="f", arguments={})],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-other",
        stop_reason="toolUse",
    )
    result = ToolResultMessage(
        tool_call_id=call_id, tool_name="f", content=[TextContent(text="ok")]
    )
    return Context(messages=[UserMessage(content="go"), turn, result])


def _responses_ids(call_id: str) -> list[Any]:
    model = Model(id="gpt-x", api="openai-responses", provider="openai")
    items = responses_payload(model, _context(call_id), StreamOptions())["input"]
    kinds = ("function_call", "function_call_output")
    return [item["call_id"] for item in items if item.get("type") in kinds]


def _chat_ids(call_id: str) -> list[Any]:
    model = Model(id="gpt-x", api="openai-completions", provider="openai")
    messages = chat_payload(model, _context(call_id), StreamOptions())["messages"]
    calls = [c["id"] for m in messages for c in m.get("tool_calls", ())]
    return calls + [m["tool_call_id"] for m in messages if m["role"] == "tool"]


@pytest.mark.parametrize(("ids", "limit"), [(_responses_ids, 64), (_chat_ids, 40)])
def test_an_id_of_the_limit_goes_as_it_is_and_a_longer_one_is_fitted(ids: Any, limit: int) -> None:
    at_limit = "call_" + "a" * (limit - 5)
    assert ids(at_limit) == [at_limit, at_limit]
    longer = at_limit + "b"
    fitted = ids(longer)
    assert fitted[0] == fitted[1] != longer
    assert len(fitted[0]) == limit
    assert ids(at_limit + "c")[0] not in (fitted[0], at_limit)

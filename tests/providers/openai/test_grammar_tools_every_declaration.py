"""A grammar tool is a grammar tool wherever the request declares it (pi-ai 1.6).

pi 1.6 declares tools in the request's list and in system messages (``tools_added``, on the
leading message or mid-conversation). Both OpenAI APIs look a custom tool call's argument up
among *every* declared tool: a grammar tool declared only in a system message still goes out
as a custom tool and its call still comes back as its grammar argument, on Chat Completions
and on Responses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.conformance import Reply
from _support.models import model_maker
from _support.openai_fakes import BASE, JSON, run
from pi_sdk_openai import completions, responses

from pi_sdk import AssistantMessage, Context, StreamOptions, SystemMessage, Tool, UserMessage

DATE = Tool(
    name="set_date",
    description="Set the date",
    parameters={"type": "object", "properties": {"on": {"type": "string"}}, "required": ["on"]},
    constrained_sampling={"type": "grammar", "variants": {"openai_regex": r"^\d{4}$"}},
)
TEXT = '2026 "é"'
COMPAT = {"supportsOpenAIGrammarTools": True, "supportsStrictMode": True}
IN_PLACE = {
    # Tools declared where the system message stands, not in the request's list.
    "openai-completions": {
        "supportsMidConvoSystemMessages": True,
        "supportsMidConvoToolAdditions": True,
    },
    "openai-responses": {"supportsMidConvoSystemMessages": True, "supportsAdditionalTools": True},
}


def model_for(api: str, in_place: bool) -> Any:
    compat = {**COMPAT, **(IN_PLACE[api] if in_place else {})}
    spec = {"id": "gpt-5.2", "api": api, "provider": "openai", "base_url": BASE, "compat": compat}
    return model_maker(spec)()


def tool_shapes(body: Any) -> list[str]:
    """The ``type`` of every tool named ``set_date`` anywhere in a request body."""
    found: list[str] = []
    if isinstance(body, dict):
        named = body.get("name") or (body.get("custom") or body.get("function") or {}).get("name")
        if named == "set_date" and body.get("type") in ("custom", "function"):
            found.append(body["type"])
        for value in body.values():
            found += tool_shapes(value)
    elif isinstance(body, list):
        for value in body:
            found += tool_shapes(value)
    return found


def earlier_turn() -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions", provider="openai", model="gpt-5.2", content=[]
    )


def declared(where: str) -> Context:
    """The grammar tool declared in the request list, the leading system message, or later."""
    ask = UserMessage(content="Set the year")
    if where == "request list":
        return Context(messages=[ask], tools=[DATE])
    if where == "leading system message":
        return Context(messages=[SystemMessage(content="Be brief.", tools_added=[DATE]), ask])
    return Context(
        messages=[
            SystemMessage(content="Be brief."),
            UserMessage(content="Hi"),
            earlier_turn(),
            SystemMessage(tools_added=[DATE]),
            ask,
        ]
    )


WHERE = ["request list", "leading system message", "a later system message"]
IN_PLACE_OR_NOT = pytest.mark.parametrize("in_place", [False, True], ids=["listed", "in-place"])


@IN_PLACE_OR_NOT
@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
def test_it_is_sent_as_a_custom_tool(api: str, where: str, in_place: bool):
    build = completions.build_payload if api == "openai-completions" else responses.build_payload
    body = build(model_for(api, in_place), declared(where), StreamOptions())
    assert tool_shapes(body) == ["custom"]


@IN_PLACE_OR_NOT
@pytest.mark.parametrize("where", WHERE)
async def test_a_completions_custom_call_becomes_its_grammar_argument(where: str, in_place: bool):
    call = {"id": "call_1", "type": "custom", "custom": {"name": "set_date", "input": TEXT}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    usage = {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    completion = {"id": "c", "object": "chat.completion", "model": "gpt-5.2"}
    completion |= {"choices": [choice], "usage": usage}
    reply = Reply(200, json.dumps(completion).encode(), JSON)
    target = model_for("openai-completions", in_place)
    _, message, _ = await run(target, [reply], context=declared(where))
    assert [c.arguments for c in message.tool_calls] == [{"on": TEXT}]


@IN_PLACE_OR_NOT
@pytest.mark.parametrize("where", WHERE)
async def test_a_responses_custom_call_becomes_its_grammar_argument(where: str, in_place: bool):
    item = {
        "id": "ctc_1",
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": "call_7",
        "name": "set_date",
        "input": TEXT,
    }
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    response = {"id": "resp_1", "status": "completed", "output": [item], "usage": usage}
    reply = Reply(200, json.dumps(response).encode(), JSON)
    target = model_for("openai-responses", in_place)
    _, message, _ = await run(target, [reply], context=declared(where))
    assert [c.arguments for c in message.tool_calls] == [{"on": TEXT}]

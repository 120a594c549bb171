"""Responses built-in tools on real recordings (``../shared/conformance-next``, ``servertool_*``).

Every recorded reply gives one :class:`pi_sdk.ServerToolCall` per built-in tool item
(``future.response.server_items``: type and id), in the recorded output order, with the whole
item as ``raw``; replayed to the same model, the item goes back as the vendor sent it (the
recorded follow-up request sent it back and OpenAI answered 200).
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from _support.conformance import (
    Case,
    future_of,
    next_cases,
    replayed,
    run_interaction,
)
from pi_sdk_openai.responses import build_payload

import pi_sdk
from pi_sdk import (
    Context,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    StreamOptions,
    UserMessage,
)
from pi_sdk._testing.replay import load_cassette

CASES = next_cases("openai-responses", "servertool_")


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        items = cast(dict[str, Any], value).items()
        return {k: _no_nulls(v) for k, v in items if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in cast(list[Any], value)]
    return value


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_each_built_in_tool_item_is_a_server_tool_call(case: Case):
    message, response = await replayed(case)
    calls = [b for b in message.content if isinstance(b, ServerToolCall)]
    assert [(c.raw or {}).get("type") for c in calls] == [
        item["type"] for item in response["server_items"]
    ]
    assert [c.id for c in calls] == [item["id"] for item in response["server_items"]]
    order = [
        (b.raw or {})["type"] if isinstance(b, ServerToolCall) else type(b).__name__
        for b in message.content
        if not isinstance(b, ServerToolResult | ImageContent)  # (part of the item)
    ]
    kinds = {"TextContent": "message", "ThinkingContent": "reasoning", "ToolCall": "function_call"}
    assert [kinds.get(k, k) for k in order] == response["output_item_order"]
    for result in (b for b in message.content if isinstance(b, ServerToolResult)):
        assert result.tool_call_id in {c.id for c in calls}


FOLLOW_UPS = [c for c in CASES if "output_items_sent_back" in future_of(c)["request"]]


@pytest.mark.parametrize("case", FOLLOW_UPS, ids=[c.id for c in FOLLOW_UPS])
async def test_the_item_goes_back_as_recorded(case: Case):
    earlier = Case(**{**vars(case), "index": case.index - 1})
    reply = (await run_interaction(earlier)).message
    body = cast(dict[str, Any], load_cassette(case.cassette)[case.index].body)
    recorded = [i for i in body["input"] if i.get("type") == "web_search_call"]
    base = (reply.signature_origin or "").split("@", 1)[1]
    model = pi_sdk.get_model("openai", reply.model).model_copy(update={"base_url": base})
    context = Context(messages=[UserMessage(content=body["input"][0]["content"]), reply])
    ours = build_payload(model, context, StreamOptions(api_key="test-key"))
    sent = [i for i in ours["input"] if i.get("type") == "web_search_call"]
    assert recorded and _no_nulls(sent) == _no_nulls(recorded)

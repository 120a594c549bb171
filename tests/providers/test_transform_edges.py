"""Three edges of ``transform_messages`` (``pi_sdk/_wire/transform.py``): a base URL with a port
that is not a number still gives an origin, a tool result whose name matches no call of its
turn takes the turn's first call with its id, and a system message that lands between a tool
call and its results moves after them.
"""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk.provider import signature_origin, transform_messages
from pi_sdk.types import SystemMessage, TextContent, ToolCall, ToolResultMessage

MODEL = pi_sdk.Model(id="m", api="edge-api", provider="edge")


def _call_turn(*calls: ToolCall) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        api="other-api", provider="other", model="o", content=list(calls), stop_reason="toolUse"
    )


def _result(call_id: str, name: str, text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])


def test_a_port_that_is_not_a_number_is_left_out_of_the_origin():
    model = MODEL.model_copy(update={"base_url": "https://API.example:99999/v1/"})
    assert signature_origin(model) == "edge-api@https://api.example"
    assert signature_origin(MODEL, "https://api.example:8443/v1") == (
        "edge-api@https://api.example:8443"
    )


def test_a_result_naming_no_call_of_its_turn_takes_the_first_call_with_its_id():
    def normalize(call_id: str, model: Any, message: Any) -> str:
        return call_id.replace("|", "_")

    turn = _call_turn(
        ToolCall(id="a|1", name="search", arguments={}),
        ToolCall(id="a|1", name="fetch", arguments={}),
    )
    history: list[pi_sdk.Message] = [
        pi_sdk.UserMessage(content="go"),
        turn,
        _result("a|1", "renamed", "first"),
        _result("a|1", "fetch", "second"),
    ]
    out = transform_messages(history, MODEL, normalize_tool_call_id=normalize)
    sent_calls = [b for b in out[1].content if isinstance(b, ToolCall)]  # type: ignore[union-attr]
    results = [m for m in out if isinstance(m, ToolResultMessage)]
    assert [(r.tool_name, r.tool_call_id) for r in results] == [
        ("renamed", sent_calls[0].id),
        ("fetch", sent_calls[1].id),
    ]
    assert sent_calls[0].id == "a_1" and sent_calls[1].id != sent_calls[0].id


def test_a_system_message_between_a_call_and_its_result_moves_after_the_result():
    note = SystemMessage(content="Mind the budget.")
    history: list[pi_sdk.Message] = [
        pi_sdk.UserMessage(content="go"),
        _call_turn(ToolCall(id="c1", name="search", arguments={})),
        note,
        _result("c1", "search", "found"),
        pi_sdk.UserMessage(content="next"),
    ]
    out = transform_messages(history, MODEL)
    assert [m.role for m in out] == ["user", "assistant", "toolResult", "system", "user"]
    assert out[3] is note

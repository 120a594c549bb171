"""``default_convert_to_llm`` on its own: the one place custom messages become LLM messages.

A second, independent check beside the agent-loop tests (``test_agent_loop.py``): here the
function is called directly, so a fault in it cannot hide behind the loop's own filtering.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

import pi_sdk
from pi_sdk import AssistantMessage, TextContent, ToolResultMessage, UserMessage


class Memo(BaseModel):
    role: Literal["piTestConvertMemo"] = "piTestConvertMemo"
    text: str
    timestamp: int = 0


class Hidden(BaseModel):
    role: Literal["piTestConvertHidden"] = "piTestConvertHidden"
    timestamp: int = 0


def llm_messages() -> list[pi_sdk.Message]:
    return [
        UserMessage(content="q"),
        AssistantMessage(content=[TextContent(text="a")], api="x", provider="y", model="z"),
        ToolResultMessage(tool_call_id="c1", tool_name="t", content=[TextContent(text="r")]),
    ]


def test_llm_messages_pass_through_as_the_same_objects_in_order() -> None:
    messages = llm_messages()
    out = pi_sdk.default_convert_to_llm(messages)
    assert [id(m) for m in out] == [id(m) for m in messages]


def test_an_unregistered_custom_message_never_reaches_the_model() -> None:
    q, a, r = llm_messages()
    out = pi_sdk.default_convert_to_llm([q, Memo(text="secret plan"), a, r])
    assert out == [q, a, r]
    assert all(not isinstance(m, Memo) for m in out)


def test_a_registered_type_becomes_what_its_converter_returns_in_place() -> None:
    pi_sdk.register_message_type(Memo, lambda m: [UserMessage(content=f"memo: {m.text}")])
    pi_sdk.register_message_type(Hidden, lambda m: [])
    try:
        q, a, _ = llm_messages()
        out = pi_sdk.default_convert_to_llm([q, Memo(text="one"), Hidden(), a, Memo(text="two")])
        assert [m.role for m in out] == ["user", "user", "assistant", "user"]
        assert [out[1].content, out[3].content] == ["memo: one", "memo: two"]
    finally:
        pi_sdk.unregister_message_type(Memo)
        pi_sdk.unregister_message_type(Hidden)


def test_after_unregistering_the_type_is_dropped_again() -> None:
    pi_sdk.register_message_type(Memo, lambda m: [UserMessage(content=m.text)])
    pi_sdk.unregister_message_type(Memo)
    assert pi_sdk.default_convert_to_llm([Memo(text="gone")]) == []

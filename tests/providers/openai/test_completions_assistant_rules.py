"""One assistant turn as a Chat Completions message (``completions._assistant``), rule by rule.

Called directly, so the turns ``transform_messages`` never lets through (nothing left to send)
are reached too: such a turn is ``None``, whatever the compat flags.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_openai.completions._assistant import assistant_message
from pi_sdk_openai.completions._compat import CompletionsCompat

import pi_sdk
from pi_sdk import TextContent, ThinkingContent, ToolCall

PLAIN = CompletionsCompat()
NON_NULL = CompletionsCompat(requires_non_null_assistant_content=True)
AFTER_TOOL = CompletionsCompat(requires_assistant_after_tool_result=True)
CONTENT_ON_CALLS = CompletionsCompat(requires_reasoning_content=True)
CONTENT_ALWAYS = CompletionsCompat(requires_reasoning_content_on_assistant_messages=True)
CALL = ToolCall(id="call_1", name="look", arguments={"q": "é", "n": 2})
WIRE_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "look", "arguments": '{"q":"é","n":2}'},
}

CALLS = {"role": "assistant", "tool_calls": [WIRE_CALL]}


def turn(*blocks: Any) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        content=list(blocks), api="openai-completions", provider="openai", model="m"
    )


@pytest.mark.parametrize("compat", [PLAIN, NON_NULL, AFTER_TOOL, CONTENT_ON_CALLS, CONTENT_ALWAYS])
@pytest.mark.parametrize(
    "blocks",
    [
        [],
        [TextContent(text="  \n")],
        [ThinkingContent(thinking=" ")],
        [ThinkingContent(thinking="hidden", redacted=True)],
    ],
)
def test_a_turn_with_nothing_to_send_is_none(compat: CompletionsCompat, blocks: list[Any]):
    assert assistant_message(turn(*blocks), compat, reasoning_model=True) is None


@pytest.mark.parametrize(
    ("compat", "reasoning_model", "blocks", "entry"),
    [
        (PLAIN, False, [TextContent(text="a"), TextContent(text=" "), TextContent(text="b")],
         {"role": "assistant", "content": "a\n\nb"}),
        (PLAIN, False, [CALL], {**CALLS, "content": None}),
        (NON_NULL, False, [CALL], {**CALLS, "content": ""}),
        (AFTER_TOOL, False, [CALL], {**CALLS, "content": ""}),
        (CONTENT_ON_CALLS, False, [CALL], {**CALLS, "content": None, "reasoning_content": ""}),
        (CONTENT_ON_CALLS, False, [TextContent(text="a")], {"role": "assistant", "content": "a"}),
        (CONTENT_ALWAYS, True, [TextContent(text="a")],
         {"role": "assistant", "content": "a", "reasoning_content": ""}),
        (CONTENT_ALWAYS, False, [TextContent(text="a")], {"role": "assistant", "content": "a"}),
        (PLAIN, True, [TextContent(text="a")], {"role": "assistant", "content": "a"}),
        (CONTENT_ALWAYS, True,
         [ThinkingContent(thinking="why", thinking_signature="reasoning"), TextContent(text="a")],
         {"role": "assistant", "content": "a", "reasoning_content": "why"}),
        (PLAIN, True,
         [ThinkingContent(thinking="why", thinking_signature="reasoning"), TextContent(text="a")],
         {"role": "assistant", "content": "a", "reasoning": "why"}),
    ],
)  # fmt: skip
def test_the_message_of_a_turn(
    compat: CompletionsCompat, reasoning_model: bool, blocks: list[Any], entry: dict[str, Any]
) -> None:
    assert assistant_message(turn(*blocks), compat, reasoning_model=reasoning_model) == entry


@pytest.mark.parametrize(
    ("signature", "extra"),
    [
        ("CiQB", {"google": {"thought_signature": "CiQB"}}),
        ('{"type":"reasoning.encrypted"}', None),
        ("", None),
        (None, None),
    ],
)
def test_a_calls_gemini_signature_goes_back_on_the_call(signature: str | None, extra: Any):
    call = ToolCall(id="call_1", name="look", arguments={}, thought_signature=signature)
    entry = assistant_message(turn(call), PLAIN, reasoning_model=False)
    assert entry is not None
    (wire,) = entry["tool_calls"]
    assert wire.get("extra_content") == extra
    assert wire["function"] == {"name": "look", "arguments": "{}"}


def test_a_grammar_tools_call_goes_back_as_a_custom_call() -> None:
    grammar_call = ToolCall(id="call_2", name="sql", arguments={"query": "SELECT 'é'"})
    entry = assistant_message(
        turn(grammar_call, CALL), PLAIN, reasoning_model=False, grammar={"sql": "query"}
    )
    assert entry is not None
    assert entry["tool_calls"] == [
        {"id": "call_2", "type": "custom", "custom": {"name": "sql", "input": "SELECT 'é'"}},
        WIRE_CALL,
    ]
    assert json.loads(entry["tool_calls"][1]["function"]["arguments"]) == CALL.arguments

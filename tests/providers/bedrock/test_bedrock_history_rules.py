"""Converse history: what a past assistant turn keeps, and turns that end up empty.

Redacted Claude reasoning goes back as ``redactedContent`` only to Claude and only with its
data; blank thinking is dropped; a turn left with nothing is not sent, and the user turns
around it become one message (Converse requires alternating roles).
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_bedrock.converse import convert_messages

import pi_sdk
from pi_sdk import AssistantMessage, Context, TextContent, ThinkingContent, UserMessage

CLAUDE = pi_sdk.get_model("amazon-bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
NOVA = pi_sdk.get_model("amazon-bedrock", "amazon.nova-micro-v1:0")


def _turn(model: pi_sdk.Model, *blocks: Any) -> AssistantMessage:
    return AssistantMessage(content=list(blocks), api=model.api, provider=model.provider,
                            model=model.id, stop_reason="stop")  # fmt: skip


def _sent(model: pi_sdk.Model, turn: AssistantMessage) -> list[dict[str, Any]]:
    context = Context(messages=[UserMessage(content="q1"), turn, UserMessage(content="q2")])
    return convert_messages(context, model)


def test_redacted_reasoning_goes_back_to_claude_with_its_data() -> None:
    turn = _turn(CLAUDE, ThinkingContent(thinking="", redacted=True, thinking_signature="b64=="),
                 TextContent(text="answer"))  # fmt: skip
    assistant = _sent(CLAUDE, turn)[1]
    assert assistant["content"] == [
        {"reasoningContent": {"redactedContent": "b64=="}}, {"text": "answer"}]  # fmt: skip


@pytest.mark.parametrize(
    ("model", "block"),
    [
        (CLAUDE, ThinkingContent(thinking="", redacted=True)),  # no data to send back
        (NOVA, ThinkingContent(thinking="", redacted=True, thinking_signature="b64==")),
        (CLAUDE, ThinkingContent(thinking="  \n", thinking_signature="sig")),  # blank
        (NOVA, ThinkingContent(thinking="\t")),
    ],
    ids=["claude-no-data", "not-claude", "claude-blank", "nova-blank"],
)
def test_reasoning_with_nothing_to_send_is_dropped(model: pi_sdk.Model, block: Any) -> None:
    turn = _turn(model, block, TextContent(text="answer"))
    assert _sent(model, turn)[1]["content"] == [{"text": "answer"}]


@pytest.mark.parametrize("model", [CLAUDE, NOVA], ids=["claude", "nova"])
def test_a_turn_left_with_nothing_is_not_sent_and_the_users_merge(model: pi_sdk.Model) -> None:
    turn = _turn(model, ThinkingContent(thinking=" "), TextContent(text=" "))
    sent = _sent(model, turn)
    assert [m["role"] for m in sent] == ["user"]
    texts = [part.get("text") for part in sent[0]["content"] if "text" in part]
    assert texts == ["q1", "q2"]

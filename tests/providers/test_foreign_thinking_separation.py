"""Another model's thinking, replayed as text, stays apart from the turn's answer.

QA trial t10: on openai-completions an Anthropic turn [thinking "claude thinks", text "from
claude"] was sent as the one string "claude thinksfrom claude". Chat Completions joins a turn's
text blocks into one string, with a blank line between blocks; the other APIs keep each block
in its own block, item or part. pi-ai 1.6 drops another model's thinking by default; these
checks keep it as text (``foreign_reasoning="text"``, pi-ai 0.73's way).
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.messages import reply
from pi_sdk_anthropic.messages import build_request as anthropic_request
from pi_sdk_google._shared_request import build_request as google_request
from pi_sdk_openai.completions import build_payload as build_completions_payload
from pi_sdk_openai.responses import build_payload as build_responses_payload

import pi_sdk
from pi_sdk import Context, Message, Model, StreamOptions, TextContent, UserMessage

CLAUDE = Model(id="claude-x", api="anthropic-messages", provider="anthropic", reasoning=True)
GPT = Model(id="gpt-x", api="openai-responses", provider="openai", reasoning=True)


def _history(source: Model) -> list[Message]:
    turn = reply(
        source,
        pi_sdk.ThinkingContent(thinking="first thinks", thinking_signature="sig"),
        TextContent(text="then answers"),
        pi_sdk.ToolCall(id="call_1", name="f", arguments={}),
    )
    result = pi_sdk.ToolResultMessage(
        tool_call_id="call_1", tool_name="f", content=[TextContent(text="ok")]
    )
    return [UserMessage(content="q"), turn, result, UserMessage(content="next")]


def _texts(value: Any) -> list[str]:
    """Every string under a ``text`` or ``content`` key, in order."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            if key in ("text", "content") and isinstance(item, str):
                found.append(item)
            else:
                found.extend(_texts(item))
    elif isinstance(value, list):
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            found.extend(_texts(item))
    return found


AS_TEXT = StreamOptions(foreign_reasoning="text")


def test_chat_completions_keeps_the_blocks_apart() -> None:
    chat = Model(id="gpt-4o", api="openai-completions", provider="openai")
    payload = build_completions_payload(chat, Context(messages=_history(CLAUDE)), AS_TEXT)
    (assistant,) = [m for m in payload["messages"] if m["role"] == "assistant"]
    assert assistant["content"] == "first thinks\n\nthen answers"


@pytest.mark.parametrize(
    ("target", "source", "build"),
    [
        (GPT, CLAUDE, lambda m, c: build_responses_payload(m, c, AS_TEXT)),
        (CLAUDE, GPT, lambda m, c: anthropic_request(m, c, AS_TEXT)),
        (
            Model(id="gemini-2.5-flash", api="google-generative-ai", provider="google"),
            CLAUDE,
            lambda m, c: google_request(m, c, AS_TEXT),
        ),
    ],
    ids=["responses", "anthropic", "gemini"],
)
def test_other_apis_send_the_thinking_as_its_own_text(
    target: Model, source: Model, build: Any
) -> None:
    payload = build(target, Context(messages=_history(source)))
    texts = _texts(payload)
    assert "first thinks" in texts and "then answers" in texts
    assert not any("first thinks" in t and "then answers" in t for t in texts)

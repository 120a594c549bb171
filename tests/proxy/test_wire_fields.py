"""Which optional field each protocol sends, by class: the proxy's shape and pi-messages'.

A block's end carries ``contentSignature`` only when the block has one; pi-messages adds the
block's text (``content``) and ``redacted`` for redacted thinking only. ``done`` / ``error`` carry
the usage, ``providerThinkingLevel`` when known (both protocols), ``responseId`` /
``responseModel`` when known (pi-messages only), and ``errorMessage`` only when there is one.
"""

from __future__ import annotations

from typing import Any

import pytest

import pi_sdk.events as ev
from pi_sdk._serve.wire import pi_messages_event_to_dict, proxy_event_to_dict
from pi_sdk.types import AssistantMessage, TextContent, ThinkingContent


def _message(*blocks: Any, **fields: Any) -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions", provider="openai", model="m", content=list(blocks), **fields
    )


def _usage() -> dict[str, Any]:
    return AssistantMessage(api="a", provider="p", model="m").usage.model_dump(
        mode="json", by_alias=True, exclude_none=True
    )


@pytest.mark.parametrize(
    ("block", "proxy_extra", "full_extra"),
    [
        (TextContent(text="hi"), {}, {"content": "hi"}),
        (
            TextContent(text="hi", text_signature="ts"),
            {"contentSignature": "ts"},
            {"content": "hi", "contentSignature": "ts"},
        ),
        (ThinkingContent(thinking="hm"), {}, {"content": "hm"}),
        (
            ThinkingContent(thinking="hm", thinking_signature="sig"),
            {"contentSignature": "sig"},
            {"content": "hm", "contentSignature": "sig"},
        ),
        (
            ThinkingContent(thinking="hm", thinking_signature="sig", redacted=True),
            {"contentSignature": "sig"},
            {"content": "hm", "redacted": True, "contentSignature": "sig"},
        ),
        (ThinkingContent(thinking="hm", redacted=False), {}, {"content": "hm"}),
    ],
    ids=["text", "signed-text", "thinking", "signed-thinking", "redacted", "not-redacted"],
)
def test_a_block_end_sends_what_the_block_has(
    block: TextContent | ThinkingContent, proxy_extra: dict[str, Any], full_extra: dict[str, Any]
):
    text = block.text if isinstance(block, TextContent) else block.thinking
    kind = ev.TextEndEvent if isinstance(block, TextContent) else ev.ThinkingEndEvent
    event = kind(content_index=1, content=text, partial=_message(TextContent(text="x"), block))
    head = {"type": event.type, "contentIndex": 1}
    assert proxy_event_to_dict(event) == head | proxy_extra
    assert pi_messages_event_to_dict(event) == head | full_extra


@pytest.mark.parametrize(
    ("fields", "proxy_extra", "full_extra"),
    [
        ({}, {}, {}),
        (
            {"provider_thinking_level": "high"},
            {"providerThinkingLevel": "high"},
            {"providerThinkingLevel": "high"},
        ),
        ({"response_id": "r1"}, {}, {"responseId": "r1"}),
        ({"response_model": "m-2"}, {}, {"responseModel": "m-2"}),
        (
            {"response_id": "r1", "response_model": "m-2", "provider_thinking_level": "low"},
            {"providerThinkingLevel": "low"},
            {"responseId": "r1", "responseModel": "m-2", "providerThinkingLevel": "low"},
        ),
    ],  # fmt: skip
    ids=["nothing", "thinking-level", "response-id", "response-model", "all"],
)
def test_a_terminal_event_sends_the_usage_and_what_is_known(
    fields: dict[str, Any], proxy_extra: dict[str, Any], full_extra: dict[str, Any]
):
    done = ev.DoneEvent(reason="stop", message=_message(TextContent(text="x"), **fields))
    head = {"type": "done", "reason": "stop", "usage": _usage()}
    assert proxy_event_to_dict(done) == head | proxy_extra
    assert pi_messages_event_to_dict(done) == head | full_extra
    for error_message, sent in [(None, {}), ("boom", {"errorMessage": "boom"})]:
        failed = ev.ErrorEvent(
            reason="aborted",
            error=_message(stop_reason="aborted", error_message=error_message, **fields),
        )
        head = {"type": "error", "reason": "aborted", **sent, "usage": _usage()}
        assert proxy_event_to_dict(failed) == head | proxy_extra
        assert pi_messages_event_to_dict(failed) == head | full_extra


@pytest.mark.parametrize("encode", [proxy_event_to_dict, pi_messages_event_to_dict])
def test_an_end_whose_block_is_of_another_kind_carries_no_signature(encode: Any):
    from pi_sdk.types import ToolCall

    call = ToolCall(id="c", name="t", arguments={}, thought_signature="sig")
    event = ev.TextEndEvent(content_index=0, content="hi", partial=_message(call))
    data = encode(event)
    assert "contentSignature" not in data and "redacted" not in data
    assert (data["type"], data["contentIndex"]) == ("text_end", 0)

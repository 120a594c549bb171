"""Anthropic rules of two conditions, each condition shown holding alone (``and`` / ``or``).

The strict-tools refusal needs both the 400 status and the ``invalid_request_error`` type; an
earlier reply's effort counts only when both its API and its provider are the model's; a
recorded request names its model with a non-empty string; a whole JSON answer is a
``message`` with a content list.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_anthropic.messages import recognize_request
from pi_sdk_anthropic.messages._decode import Decoder
from pi_sdk_anthropic.messages._effort import managed
from pi_sdk_anthropic.messages._tools import refused_strict, sends_preferred_strict

import pi_sdk
from pi_sdk import AssistantMessage, Context, Model, TextContent, ThinkingContent
from pi_sdk.provider import MessageBuilder, ProviderError

LIMIT = "Too many strict tools (30 > 20)"


@pytest.mark.parametrize(
    ("status", "text", "diagnostic"),
    [
        (
            400,
            f"400 Bad Request: invalid_request_error: {LIMIT}",
            "anthropic_strict_tools_fallback",
        ),
        (400, f"400 Bad Request: overloaded_error: {LIMIT}", None),  # the 400 alone
        (500, f"500 Internal Server Error: invalid_request_error: {LIMIT}", None),  # type alone
        (400, "400 Bad Request: invalid_request_error: prompt is too long", None),
    ],
)
def test_a_strict_tools_refusal_needs_the_status_and_the_error_type(
    status: int, text: str, diagnostic: str | None
) -> None:
    assert refused_strict(ProviderError(text, status=status)) == diagnostic


MODEL = Model(id="claude-opus-4-6", api="anthropic-messages", provider="anthropic")


@pytest.mark.parametrize(
    ("api", "provider", "counts"),
    [
        ("anthropic-messages", "anthropic", True),
        ("anthropic-messages", "github-copilot", False),  # same API, another provider
        ("bedrock-converse-stream", "anthropic", False),  # same provider, another API
        ("openai-responses", "openai", False),
    ],
)
def test_an_earlier_replys_effort_counts_only_from_the_same_api_and_provider(
    api: str, provider: str, counts: bool
) -> None:
    message = AssistantMessage(content=[], api=api, provider=provider, model="m")
    assert managed(message, MODEL) is counts


@pytest.mark.parametrize("model_id", ["", 5, None, ["claude-x"]])
def test_a_recorded_request_without_a_model_name_is_not_recognized(model_id: Any) -> None:
    uri = "https://api.anthropic.com/v1/messages"
    assert recognize_request("POST", uri, {"model": model_id}) is None


@pytest.mark.parametrize(
    "document",
    [
        {"type": "message", "content": "hi"},  # a message whose content is no list
        {"type": "message"},
        {"type": "completion", "content": []},  # a list, but not a message
    ],
)
def test_a_whole_answer_must_be_a_message_with_a_content_list(document: dict[str, Any]) -> None:
    decoder = Decoder(MessageBuilder(MODEL), Context(messages=[]), oauth=False)
    with pytest.raises(ProviderError) as refused:
        decoder.feed_document(document)
    excerpt = json.dumps(document)
    assert str(refused.value) == f"unexpected JSON response (not a message): {excerpt!r}"


PREFER = pi_sdk.Tool(
    name="t",
    parameters={"type": "object", "properties": {}},
    constrained_sampling={"type": "json_schema", "strict": "prefer"},
)


@pytest.mark.parametrize(
    ("tools", "supported", "sent_strict"),
    [
        ([PREFER], True, True),
        ([PREFER], False, False),  # a prefer tool, but the model takes no strict tools
        ([pi_sdk.Tool(name="plain")], True, False),  # strict tools, but none preferred
        ([], True, False),
    ],
)
def test_preferred_strict_tools_need_both_a_prefer_tool_and_strict_support(
    tools: list[pi_sdk.Tool], supported: bool, sent_strict: bool
) -> None:
    model = MODEL.model_copy(update={"compat": {"supportsStrictTools": supported}})
    assert sends_preferred_strict(model, Context(messages=[], tools=tools)) is sent_strict


def _content(block: dict[str, Any], delta: dict[str, Any]) -> list[Any]:
    """The content of a reply whose one block gets ``delta`` (all decoded from JSON)."""
    builder = MessageBuilder(MODEL)
    decoder = Decoder(builder, Context(messages=[]), oauth=False)
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    for event in events:
        decoder.feed(json.loads(json.dumps(event)))
    decoder.finish(saw_done=False)
    return builder.message.content


@pytest.mark.parametrize(
    ("block", "delta", "content"),
    [
        (
            {"type": "thinking", "thinking": "hm"},
            {"type": "signature_delta", "signature": "sig"},
            [ThinkingContent(thinking="hm", thinking_signature="sig")],
        ),
        (  # a signature for a text block: not kept
            {"type": "text", "text": "hi"},
            {"type": "signature_delta", "signature": "sig"},
            [TextContent(text="hi")],
        ),
        (  # another delta type for a thinking block: ignored
            {"type": "thinking", "thinking": "hm"},
            {"type": "future_delta", "value": 1},
            [ThinkingContent(thinking="hm")],
        ),
    ],
)
def test_a_signature_delta_signs_only_a_thinking_block(
    block: dict[str, Any], delta: dict[str, Any], content: list[Any]
) -> None:
    assert _content(block, delta) == content

"""ConverseStream events fed one by one: each rule of the decoder's general path, alone.

``Decoder.feed(kind, data)`` is the general path (the byte reader's fast path hands it
anything but a plain text delta). Each rule: a delta that is not an object is an error; an
empty text delta adds nothing; a delta of a kind pi has no content for (an image, a future
kind) skips its block, whose later tool-input deltas are then dropped; a redacted reasoning
delta opens a redacted thinking block, and a second one extends its signature; a stream with
no ``messageStop`` ends ``stop``; a whole response that is not a Converse response says so.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_bedrock.converse._decode import Decoder

from pi_sdk import AssistantMessage, Model, TextContent, ThinkingContent
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="m", api="bedrock-converse-stream", provider="amazon-bedrock")


def decode(*events: tuple[str, dict[str, Any]], usage: bool = True) -> AssistantMessage:
    builder = MessageBuilder(MODEL)
    decoder = Decoder(builder)
    for kind, data in events:
        decoder.feed(kind, data)
    if usage:
        decoder.feed("metadata", {"usage": {"inputTokens": 5, "outputTokens": 2}})
    decoder.finish()
    return builder.message


def text(index: int, piece: str) -> tuple[str, dict[str, Any]]:
    return "contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}}


def stop(index: int) -> tuple[str, dict[str, Any]]:
    return "contentBlockStop", {"contentBlockIndex": index}


END = ("messageStop", {"stopReason": "end_turn"})


@pytest.mark.parametrize("delta", [None, "text", ["x"], 3])
def test_a_delta_that_is_not_an_object_is_an_error(delta: Any) -> None:
    decoder = Decoder(MessageBuilder(MODEL))
    with pytest.raises(ProviderError) as caught:
        decoder.feed("contentBlockDelta", {"contentBlockIndex": 0, "delta": delta})
    assert str(caught.value) == "malformed contentBlockDelta event: 'delta' is not an object"


def test_an_empty_text_delta_adds_nothing() -> None:
    message = decode(text(0, ""), text(0, "Hi"), text(0, ""), stop(0), END)
    assert (message.content, message.stop_reason) == ([TextContent(text="Hi")], "stop")


@pytest.mark.parametrize(
    "delta",
    [
        {"image": {"format": "png"}},
        {"someFutureKind": {"x": 1}},
        {},
    ],
    ids=["image", "unknown-kind", "empty"],
)
def test_a_delta_with_no_pi_content_skips_its_block(delta: dict[str, Any]) -> None:
    message = decode(
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": delta}),
        # a later tool-input delta for the skipped block is dropped, not "block not open"
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}),
        stop(0),
        text(1, "Kept"),
        stop(1),
        END,
    )
    assert message.content == [TextContent(text="Kept")]


def test_a_redacted_reasoning_delta_opens_a_redacted_block_and_extends_its_signature() -> None:
    def redacted(data: str) -> tuple[str, dict[str, Any]]:
        delta = {"reasoningContent": {"redactedContent": data}}
        return "contentBlockDelta", {"contentBlockIndex": 0, "delta": delta}

    message = decode(redacted("abc"), redacted("def"), stop(0), text(1, "Hi"), stop(1), END)
    thinking, answer = message.content
    assert isinstance(thinking, ThinkingContent)
    assert (thinking.redacted, thinking.thinking_signature) == (True, "abcdef")
    assert answer == TextContent(text="Hi")


def test_a_stream_without_message_stop_ends_stop() -> None:
    message = decode(text(0, "Hi"), stop(0))
    assert (message.stop_reason, message.raw_stop_reason) == ("stop", None)


@pytest.mark.parametrize(
    ("document", "shown"),
    [
        ({"output": {}}, '{"output": {}}'),
        ({"output": {"message": "text"}}, '{"output": {"message": "text"}}'),
        ({"unexpected": "é"}, '{"unexpected": "é"}'),  # non-ASCII kept as it came
        ([1], "[1]"),
        (None, "null"),
    ],
)
def test_a_whole_response_that_is_not_a_converse_response(document: Any, shown: str) -> None:
    decoder = Decoder(MessageBuilder(MODEL))
    with pytest.raises(ProviderError) as caught:
        decoder.feed_document(document)
    assert str(caught.value) == f"not a Converse response: {shown!r}"

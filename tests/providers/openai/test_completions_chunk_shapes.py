"""Chat Completions chunk shapes the recorded streams do not have, each to the message it gives.

OpenAI-compatible servers differ in where they put a tool call's id and name (the first piece
or a later one), whether arguments come as a JSON string or as an object, where reasoning
arrives (a ``reasoning_content`` field, OpenRouter's ``reasoning_details``) relative to the
answer text, and whether a non-streamed body is an object at all. Each shape must give the
same message a plain stream would.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.decoding import decoded
from pi_sdk_openai.completions import Decoder

from pi_sdk import Model, TextContent, ThinkingContent, ToolCall
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="m", api="openai-completions", provider="openai")


def delta(finish: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"id": "r", "model": "m", "choices": [{"index": 0, "delta": fields,
                                                  "finish_reason": finish}]}  # fmt: skip


def call(**fields: Any) -> dict[str, Any]:
    return {"index": 0, "type": "function", **fields}


def test_an_id_and_a_name_that_come_after_the_first_piece_are_the_calls() -> None:
    message = decoded(Decoder, MODEL, [
        delta(tool_calls=[call(function={"arguments": '{"q": '})]),
        delta(tool_calls=[call(id="call_9", function={"name": "find"})]),
        delta(tool_calls=[call(function={"arguments": '"x"}'})], finish="tool_calls"),
    ])  # fmt: skip
    assert message.content == [ToolCall(id="call_9", name="find", arguments={"q": "x"})]


def test_a_later_piece_does_not_rename_a_call_or_change_its_id() -> None:
    message = decoded(Decoder, MODEL, [
        delta(tool_calls=[call(id="call_1", function={"name": "find", "arguments": "{}"})]),
        delta(tool_calls=[call(function={"name": "other"})], finish="tool_calls"),
    ])  # fmt: skip
    assert message.content == [ToolCall(id="call_1", name="find", arguments={})]


def test_arguments_sent_as_an_object_are_the_calls_arguments() -> None:
    arguments = {"city": "Zürich", "days": [1, 2], "deep": {"a": None}}
    message = decoded(Decoder, MODEL, [
        delta(tool_calls=[call(id="c", function={"name": "weather", "arguments": arguments})],
              finish="tool_calls"),
    ])  # fmt: skip
    assert message.content == [ToolCall(id="c", name="weather", arguments=arguments)]


def test_reasoning_after_the_text_opens_a_thinking_block_after_it() -> None:
    message = decoded(Decoder, MODEL, [
        delta(content="Hel"), delta(content="lo"),
        delta(reasoning_content="hmm"), delta(reasoning_content=" more"),
        delta(content=" again", finish="stop"),
    ])  # fmt: skip
    assert [type(b) for b in message.content] == [TextContent, ThinkingContent, TextContent]
    assert [getattr(b, "text", None) or getattr(b, "thinking", None) for b in message.content] == [
        "Hello", "hmm more", " again"]  # fmt: skip


def test_reasoning_and_text_in_one_delta_are_thinking_then_text() -> None:
    message = decoded(Decoder, MODEL, [
        delta(content="A"),
        delta(reasoning_content="think", content="B", finish="stop"),
    ])  # fmt: skip
    texts = [(type(b).__name__, getattr(b, "text", None) or b.thinking) for b in message.content]
    assert texts == [("TextContent", "A"), ("ThinkingContent", "think"), ("TextContent", "B")]


DETAIL = {"type": "reasoning.text", "text": "step", "format": "anthropic-claude-v1", "index": 0}


def test_reasoning_details_after_text_open_a_thinking_block_after_it() -> None:
    message = decoded(Decoder, MODEL, [
        delta(content="Hi"),
        delta(reasoning_details=[{"type": "unknown.kind"}, DETAIL]),
        delta(finish="stop"),
    ])  # fmt: skip
    assert [type(b) for b in message.content] == [TextContent, ThinkingContent]
    assert message.content[0] == TextContent(text="Hi")
    signature = message.content[1].thinking_signature  # type: ignore[union-attr]
    assert signature is not None and '"step"' in signature and "unknown.kind" not in signature


@pytest.mark.parametrize("document", [[], "text", 7, None], ids=["list", "str", "int", "null"])
def test_a_non_streamed_body_that_is_not_an_object_is_a_malformed_body(document: Any) -> None:
    decoder = Decoder(MessageBuilder(MODEL))
    with pytest.raises(ProviderError) as refused:
        decoder.feed_document(document)
    assert str(refused.value) == f"malformed response body: {document!r:.200}"

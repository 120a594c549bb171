"""GeminiDecoder on a MessageBuilder, without HTTP: events, terminal chunk, end-of-reply rules."""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_google._shared_decode import GeminiDecoder

from pi_sdk import Cost, ImageContent, Model, ModelCost, Usage
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="gemini-2.5-flash", api="google-generative-ai", provider="google")


def chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "responseId": "r1"}


def decoder() -> tuple[GeminiDecoder, MessageBuilder]:
    builder = MessageBuilder(MODEL)
    return GeminiDecoder(builder), builder


def test_parts_of_one_kind_extend_a_block_and_another_kind_closes_it() -> None:
    decode, builder = decoder()
    events = decode.feed(chunk({"text": "a", "thought": True}, {"text": "b", "thought": True}))
    events += decode.feed(chunk({"text": "c"}, {"thoughtSignature": "c2ln"}))
    assert [(e.type, getattr(e, "content_index", None)) for e in events] == [
        ("thinking_start", 0),
        ("thinking_delta", 0),
        ("thinking_delta", 0),
        ("thinking_end", 0),
        ("text_start", 1),
        ("text_delta", 1),
    ]
    assert not decode.terminal
    decode.feed(chunk(finish="STOP"))
    assert decode.terminal
    tail = list(decode.finish(saw_done=False))
    assert [e.type for e in tail] == ["text_end", "done"]
    assert builder.message.content[1].text_signature == "c2ln"  # type: ignore[union-attr]
    assert builder.message.stop_reason == "stop"


def test_function_call_closes_the_text_and_turns_stop_into_tool_use() -> None:
    decode, builder = decoder()
    events = decode.feed(chunk({"text": "x"}, {"functionCall": {"name": "f"}}, finish="STOP"))
    assert [e.type for e in events] == [
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
    ]
    assert [e.type for e in decode.finish(saw_done=False)] == ["done"]
    call = builder.message.content[1]
    assert (call.id, call.arguments) == ("gemini_call_r1_1", {})  # type: ignore[union-attr]
    assert builder.message.stop_reason == "toolUse"


def test_cut_stream_closes_the_block_before_the_error() -> None:
    decode, _ = decoder()
    decode.feed(chunk({"text": "partial"}))
    ended = decode.finish(saw_done=False)
    assert next(iter(ended)).type == "text_end"
    with pytest.raises(ProviderError, match="before a finish reason"):
        list(ended)


def test_whole_document_without_finish_reason_is_complete() -> None:
    decode, builder = decoder()
    decode.feed_document([chunk({"text": "a"}), chunk({"text": "b"})])
    assert [e.type for e in decode.finish(saw_done=True)] == ["text_end", "done"]
    assert builder.message.text == "ab"
    with pytest.raises(ProviderError, match="unexpected JSON response"):
        decoder()[0].feed_document([chunk(), 3])


@pytest.mark.parametrize(
    ("thought", "field"),
    [(True, "thinking_signature"), (False, "text_signature")],
    ids=["thinking", "text"],
)
def test_of_two_signed_parts_in_one_block_the_later_signature_is_kept(
    thought: bool, field: str
) -> None:
    """pi-spec §4.7: a block's signature is the latest one sent, never a concatenation."""
    decode, builder = decoder()
    first = {"text": "a", "thoughtSignature": "c2lnMQ=="}
    second = {"text": "b", "thoughtSignature": "c2lnMg=="}
    if thought:
        first["thought"] = second["thought"] = True
    decode.feed(chunk(first))
    decode.feed(chunk(second, finish="STOP"))
    list(decode.finish(saw_done=False))
    (block,) = builder.message.content
    assert getattr(block, field) == "c2lnMg=="
    assert (block.thinking if thought else block.text) == "ab"  # type: ignore[union-attr]


def test_a_signature_on_a_later_unsigned_part_is_not_lost() -> None:
    decode, builder = decoder()
    decode.feed(chunk({"text": "a", "thought": True, "thoughtSignature": "c2lnMQ=="}))
    decode.feed(chunk({"text": "b", "thought": True}, finish="STOP"))
    list(decode.finish(saw_done=False))
    assert builder.message.content[0].thinking_signature == "c2lnMQ=="  # type: ignore[union-attr]


def test_the_text_hot_path_keeps_signatures_thoughts_usage_and_the_model() -> None:
    # The fast path takes a bare {"text"} part while a text block is open; every other shape,
    # a repeated usage and a model id that arrives late must still count.
    decode, builder = decoder()
    usage = {"promptTokenCount": 4, "candidatesTokenCount": 1}
    first = {**chunk({"text": "a"}), "usageMetadata": usage}
    events = decode.feed(first)
    events += decode.feed({**chunk({"text": "b"}, {"text": "c"}), "usageMetadata": dict(usage)})
    events += decode.feed(chunk({"text": "d", "thoughtSignature": "c2ln"}))
    events += decode.feed({**chunk({"text": "e"}), "modelVersion": "gemini-late"})
    events += decode.feed(chunk({"text": "t", "thought": True}, {"text": "f"}))
    later = {"promptTokenCount": 4, "candidatesTokenCount": 7, "thoughtsTokenCount": 2}
    events += decode.feed({**chunk({"text": "g"}, finish="STOP"), "usageMetadata": later})
    events += decode.finish(saw_done=False)
    deltas = [(e.type, e.content_index, e.delta) for e in events if e.type.endswith("_delta")]
    assert deltas == [
        ("text_delta", 0, "a"),
        ("text_delta", 0, "b"),
        ("text_delta", 0, "c"),
        ("text_delta", 0, "d"),
        ("text_delta", 0, "e"),
        ("thinking_delta", 1, "t"),
        ("text_delta", 2, "f"),
        ("text_delta", 2, "g"),
    ]
    message = builder.message
    text, thinking, tail = message.content
    assert (text.text, text.text_signature) == ("abcde", "c2ln")  # type: ignore[union-attr]
    assert thinking.thinking == "t" and tail.text == "fg"  # type: ignore[union-attr]
    assert message.response_model == "gemini-late"
    assert (message.usage.input, message.usage.output) == (4, 9)


def test_an_unexpected_document_is_quoted_in_its_own_characters() -> None:
    with pytest.raises(ProviderError) as refused:
        decoder()[0].feed_document(["Überlastet: 服务器"])
    assert str(refused.value) == (
        "Gemini sent an unexpected JSON response: '[\"Überlastet: 服务器\"]'"
    )


PRICED = MODEL.model_copy(update={"cost": ModelCost(input=1.0, output=2.0, cache_read=0.5)})


def test_token_counts_are_live_during_the_stream_and_the_cost_is_set_when_it_ends() -> None:
    # usageMetadata repeats on every chunk: pricing it each time would be wasted work, so the
    # partial message shows the counts at once and the cost only once the reply has ended.
    builder = MessageBuilder(PRICED)
    decode = GeminiDecoder(builder)
    usage = {
        "promptTokenCount": 100,
        "cachedContentTokenCount": 60,
        "candidatesTokenCount": 7,
        "thoughtsTokenCount": 11,
    }
    decode.feed({**chunk({"text": "a"}), "usageMetadata": usage})
    live = Usage(input=40, output=18, cache_read=60, reasoning=11, total_tokens=118)
    assert builder.message.usage == live
    decode.feed(chunk(finish="STOP"))
    list(decode.finish(saw_done=False))
    final = builder.message.usage
    assert final.model_copy(update={"cost": Cost()}) == live
    cost = {"input": 40e-6, "output": 36e-6, "cacheRead": 30e-6, "cacheWrite": 0.0}
    assert final.cost.model_dump() == pytest.approx({**cost, "total": 106e-6})


@pytest.mark.parametrize("first", [None, "", 7, ["gemini-x"]])
def test_the_first_model_version_that_is_a_name_is_the_reply_s_model(first: Any) -> None:
    # A chunk with no usable modelVersion (missing, empty, not text) does not end the search.
    decode, builder = decoder()
    decode.feed({**chunk({"text": "a"}), "modelVersion": first})
    decode.feed({**chunk({"text": "b"}), "modelVersion": "gemini-late"})
    decode.feed({**chunk(finish="STOP"), "modelVersion": "gemini-later"})
    list(decode.finish(saw_done=False))
    assert builder.message.response_model == "gemini-late"


def test_an_image_the_model_drew_while_thinking_is_skipped() -> None:
    decode, builder = decoder()
    image = {"mimeType": "image/png", "data": "iVBORw0KGgo="}
    parts = [
        {"inlineData": image, "thought": True, "thoughtSignature": "c2lnMQ=="},
        {"inlineData": {**image, "data": "AAAA"}, "thought": False},
        {"inlineData": {**image, "data": "BBBB"}, "thoughtSignature": "c2lnMg=="},
    ]
    decode.feed(chunk(*parts, finish="STOP"))
    list(decode.finish(saw_done=False))
    assert builder.message.content == [
        ImageContent(data="AAAA", mime_type="image/png"),
        ImageContent(data="BBBB", mime_type="image/png", thought_signature="c2lnMg=="),
    ]

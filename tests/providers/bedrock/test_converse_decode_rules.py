"""ConverseStream decoding, rule by rule (``pi_sdk_bedrock.converse._decode``).

The same event sequences through the byte reader (with its text fast path) and through the
general rules (``Decoder.feed``) build the same reply; frames after ``metadata`` are not read;
citations, tool-call starts, stop reasons and the cut-stream errors each have their table.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_bedrock.converse._decode import Decoder
from test_bedrock_frames import frame

from pi_sdk import AssistantMessage, Citation, Model, TextContent, ThinkingContent, ToolCall
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="m", api="bedrock-converse-stream", provider="amazon-bedrock")
Event = tuple[str, dict[str, Any]]
METADATA: Event = ("metadata", {"usage": {"inputTokens": 5, "outputTokens": 2}})


def text(index: int, piece: str) -> Event:
    return "contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}}


def stop(index: int) -> Event:
    return "contentBlockStop", {"contentBlockIndex": index}


def through_bytes(events: list[Event]) -> AssistantMessage:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    decoder.feed_bytes(b"".join(frame(kind, data) for kind, data in events))
    decoder.finish()
    return builder.message


def through_rules(events: list[Event]) -> AssistantMessage:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    for kind, data in events:
        decoder.feed(kind, data)
    decoder.finish()
    return builder.message


SEQUENCES: dict[str, list[Event]] = {
    "text": [text(0, "He"), text(0, ""), text(0, "llo"), stop(0)],
    "two text blocks": [text(0, "a"), stop(0), text(1, "b"), text(1, "c"), stop(1)],
    "text after a tool call": [
        (
            "contentBlockStart",
            {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}},
        ),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"a":1}'}}}),
        stop(0),
        text(1, "x"),
        stop(1),
    ],
    "reasoning then text": [
        (
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think"}}},
        ),
        (
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "s1"}}},
        ),
        (
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": ""}}},
        ),
        stop(0),
        text(1, "ok"),
        stop(1),
    ],
}

EXPECTED: dict[str, list[Any]] = {
    "text": [TextContent(text="Hello")],
    "two text blocks": [TextContent(text="a"), TextContent(text="bc")],
    "text after a tool call": [
        ToolCall(id="t1", name="f", arguments={"a": 1}),
        TextContent(text="x"),
    ],
    "reasoning then text": [
        ThinkingContent(thinking="think", thinking_signature="s1"),
        TextContent(text="ok"),
    ],
}


@pytest.mark.parametrize("name", list(SEQUENCES))
@pytest.mark.parametrize("path", [through_bytes, through_rules])
def test_both_paths_build_the_same_reply(name: str, path: Any) -> None:
    message = path([*SEQUENCES[name], ("messageStop", {"stopReason": "end_turn"}), METADATA])
    assert message.content == EXPECTED[name]
    calls = any(isinstance(b, ToolCall) for b in EXPECTED[name])
    stop_reason = "toolUse" if calls else "stop"
    assert (message.stop_reason, message.usage.input, message.usage.output) == (stop_reason, 5, 2)


def test_frames_after_metadata_are_not_read() -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    body = b"".join(frame(k, d) for k, d in [text(0, "a"), stop(0), METADATA, text(1, "late")])
    events = decoder.feed_bytes(body)
    assert decoder.terminal
    assert [e.type for e in events].count("text_delta") == 1
    decoder.finish()
    assert builder.message.content == [TextContent(text="a")]


def test_one_chunk_returns_the_events_of_every_frame_it_completes() -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    events = decoder.feed_bytes(frame(*text(0, "a")) + frame(*text(0, "b")) + frame(*stop(0)))
    assert [e.type for e in events] == ["text_start", "text_delta", "text_delta", "text_end"]


def test_citations_go_on_their_text_block_or_else_on_the_last_one() -> None:
    def cite(index: int, url: str) -> Event:
        location = {"web": {"url": url}}
        return "contentBlockDelta", {
            "contentBlockIndex": index,
            "delta": {"citation": {"location": location, "title": url}},
        }

    message = through_rules(
        [cite(0, "early"), text(1, "a"), cite(1, "on-a"), stop(1), text(2, "b"), stop(2), METADATA]
    )
    first, last = message.content
    assert isinstance(first, TextContent) and isinstance(last, TextContent)
    assert [c.url for c in first.citations or ()] == ["on-a"]
    assert [c.url for c in last.citations or ()] == ["early"]
    assert all(isinstance(c, Citation) for c in last.citations or ())


@pytest.mark.parametrize(
    ("tool", "call"),
    [
        ({"toolUseId": "t", "name": "f"}, ToolCall(id="t", name="f")),
        ({}, ToolCall(id="", name="")),
        ({"toolUseId": None, "name": None}, ToolCall(id="", name="")),
    ],
)
def test_a_tool_use_start_opens_a_call(tool: dict[str, Any], call: ToolCall) -> None:
    start = ("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": tool}})
    assert through_rules([start, stop(0), METADATA]).content == [call]


def test_a_start_for_an_open_block_is_an_error() -> None:
    start = ("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": {"name": "f"}}})
    with pytest.raises(ProviderError) as caught:
        through_rules([text(0, "a"), start])
    assert str(caught.value) == (
        "malformed stream: contentBlockStart for block 0, which is already open"
    )


def test_a_tool_input_delta_for_a_block_not_open_names_it() -> None:
    delta = ("contentBlockDelta", {"contentBlockIndex": 4, "delta": {"toolUse": {"input": "{"}}})
    with pytest.raises(ProviderError) as caught:
        through_rules([delta])
    assert str(caught.value) == (
        "malformed stream: contentBlockDelta for block 4, which is not open (no"
        " contentBlockStart before it, or already stopped)"
    )


@pytest.mark.parametrize(
    ("reason", "stop_reason", "raw"),
    [(7, "stop", None), (None, "stop", None), ("max_tokens", "length", "max_tokens")],
)
def test_a_stop_reason_that_is_not_a_string_ends_stop(reason: Any, stop_reason: str, raw: Any):
    message = through_rules([text(0, "a"), ("messageStop", {"stopReason": reason}), METADATA])
    assert message.stop_reason == stop_reason
    assert message.raw_stop_reason == raw


def test_a_stream_cut_inside_a_frame_names_the_frame_and_is_incomplete() -> None:
    decoder = Decoder(MessageBuilder(MODEL))
    body = frame(*text(0, "a")) + frame(*stop(0))
    decoder.feed_bytes(body[: len(frame(*text(0, "a"))) + 5])
    with pytest.raises(ProviderError) as caught:
        decoder.finish()
    assert str(caught.value) == (
        "the response stream was cut in the middle of event-stream frame #2: the reply is"
        " incomplete (connection closed early?)"
    )
    assert caught.value.incomplete is True


def test_a_stream_ending_between_frames_before_metadata_is_incomplete() -> None:
    decoder = Decoder(MessageBuilder(MODEL))
    decoder.feed_bytes(frame(*text(0, "a")))
    with pytest.raises(ProviderError) as caught:
        decoder.finish()
    assert "ended before its metadata event" in str(caught.value)
    assert caught.value.incomplete is True


def test_an_error_frame_without_a_message_shows_its_payload_and_kind() -> None:
    error = frame("", b"payload \xc3\xa9", message_type="error")
    with pytest.raises(ProviderError) as caught:
        Decoder(MessageBuilder(MODEL)).feed_bytes(error)
    assert str(caught.value) == "event-stream error error: payload é"


def test_an_empty_text_delta_on_the_fast_path_sends_no_event() -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    decoder.feed_bytes(frame(*text(0, "a")))
    assert decoder.feed_bytes(frame(*text(0, ""))) == []


@pytest.mark.parametrize("path", [through_bytes, through_rules])
def test_text_for_a_stopped_index_opens_a_new_block_on_both_paths(path: Any) -> None:
    message = path([text(0, "a"), stop(0), text(0, "b"), METADATA])
    assert message.content == [TextContent(text="a"), TextContent(text="b")]


def test_a_payload_that_is_not_utf8_json_shows_replacement_characters() -> None:
    bad = frame("contentBlockDelta", b"\xff{")
    with pytest.raises(ProviderError) as caught:
        Decoder(MessageBuilder(MODEL)).feed_bytes(bad)
    assert str(caught.value).endswith("; data: '\ufffd{'")

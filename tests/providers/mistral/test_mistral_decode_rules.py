"""Mistral decoder rules one by one: response fields, usage, endings, errors, whole answers.

Each rule of :class:`pi_sdk_mistral.conversations._decode.Decoder`'s docstring, with the
chunks that reach it: the response id and model come from the first chunk (later chunks do
not move them); usage from the last chunk that has one, cached tokens taken out of
``input``, counts that are not integers read as 0; the stream must end with ``[DONE]`` or have
brought both the finish reason and the usage; ``finish_reason: "error"`` and an unknown reason
end the reply as an error with their own text; ``{"object": "error"}`` events and bodies raise
with ``"<type or code>: <message>"``; a whole ``chat.completion`` maps as a stream does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.decoding import started
from pi_sdk_mistral.conversations._decode import Decoder, error_text

from pi_sdk import Model, TextContent, ToolCall
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="mistral-unit", api="mistral-conversations", provider="mistral")


def _decoder() -> tuple[Decoder, MessageBuilder]:
    decoder, builder, _ = started(Decoder, MODEL)
    return decoder, builder


def _chunk(text: str | None = None, reason: str | None = None, **top: Any) -> dict[str, Any]:
    delta = {"content": text} if text is not None else {}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": reason}], **top}


def test_the_first_chunk_names_the_response_and_later_ones_do_not_move_it() -> None:
    dec, builder = _decoder()
    dec.feed(_chunk("a", id="r-1", model="mistral-large-2411"))
    dec.feed(_chunk("b", id="r-2", model="other"))
    dec.feed(_chunk(None, "stop", id="r-3", model="other", usage={"prompt_tokens": 1}))
    dec.finish(saw_done=True)
    assert builder.message.response_id == "r-1"
    assert builder.message.response_model == "mistral-large-2411"
    assert builder.message.content == [TextContent(text="ab")]


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": 10, "completion_tokens": 4}, (10, 4, 0)),
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 4,
                "prompt_tokens_details": {"cached_tokens": 6},
            },
            (4, 4, 6),
        ),
        ({"prompt_tokens": "10", "completion_tokens": 4.5}, (0, 0, 0)),
        ({"prompt_tokens": 3, "prompt_tokens_details": {"cached_tokens": 3}}, (0, 0, 3)),
    ],
)
def test_usage(usage: dict[str, Any], expected: tuple[int, int, int]) -> None:
    dec, builder = _decoder()
    dec.feed(_chunk("x"))
    dec.feed(_chunk(None, "stop", usage=usage))
    dec.finish(saw_done=True)
    got = builder.message.usage
    assert (got.input, got.output, got.cache_read, got.cache_write) == (*expected, 0)


def test_the_last_usage_wins() -> None:
    dec, builder = _decoder()
    dec.feed(_chunk("x", usage={"prompt_tokens": 1, "completion_tokens": 1}))
    dec.feed(_chunk(None, "stop", usage={"prompt_tokens": 7, "completion_tokens": 3}))
    dec.finish(saw_done=True)
    assert (builder.message.usage.input, builder.message.usage.output) == (7, 3)


@pytest.mark.parametrize(
    ("reason", "usage", "done", "outcome"),
    [
        ("stop", True, False, "stop"),  # settled: only [DONE] missing
        ("length", True, False, "length"),
        ("stop", False, False, "raise"),  # no usage: not settled
        (None, True, False, "raise"),  # no reason: not settled
        (None, False, True, "stop"),  # [DONE] alone ends it
        ("tool_calls", False, True, "toolUse"),
    ],
)
def test_when_a_stream_is_complete(
    reason: str | None, usage: bool, done: bool, outcome: str
) -> None:
    dec, builder = _decoder()
    dec.feed(_chunk("x"))
    dec.feed(_chunk(None, reason, **({"usage": {"prompt_tokens": 2}} if usage else {})))
    assert dec.settled is (reason is not None and usage)
    if outcome == "raise":
        with pytest.raises(ProviderError) as raised:
            dec.finish(saw_done=done)
        assert str(raised.value) == "stream ended before [DONE] (connection closed early?)"
        return
    dec.finish(saw_done=done)
    assert builder.message.stop_reason == outcome


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        ("error", "Mistral ended the reply with finish_reason 'error'"),
        ("content_filter", "Unhandled finish reason: content_filter"),
    ],
)
def test_an_error_or_unknown_finish_reason_ends_as_an_error_keeping_the_content(
    reason: str, text: str
) -> None:
    dec, builder = _decoder()
    dec.feed(_chunk("partial"))
    dec.feed(_chunk(None, reason))
    dec.finish(saw_done=True)
    assert builder.message.stop_reason == "error"
    assert builder.message.error_message == text
    assert builder.message.content == [TextContent(text="partial")]
    assert builder.message.raw_stop_reason == reason


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (
            {"object": "error", "message": "too long", "type": "invalid_request"},
            "invalid_request: too long",
        ),
        ({"object": "error", "message": "slow down", "code": "1300"}, "1300: slow down"),
        ({"object": "error", "message": "plain"}, "plain"),
        ({"object": "error", "message": {"detail": "x"}, "type": "t"}, 't: {"detail": "x"}'),
        ({"error": {"message": "inner", "type": "server_error"}}, "server_error: inner"),
        ({"object": "error"}, 'stream error event: {"object": "error"}'),
    ],
)
def test_error_events_raise_with_their_text(event: dict[str, Any], text: str) -> None:
    dec, _ = _decoder()
    with pytest.raises(ProviderError) as raised:
        dec.feed(event)
    assert str(raised.value) == text
    assert error_text(event.get("error") or event) == text


def test_a_chunk_without_choices_and_without_an_error_is_nothing() -> None:
    dec, builder = _decoder()
    assert dec.feed({"id": "r", "choices": []}) == []
    assert dec.feed({"id": "r", "object": "chat.completion.chunk"}) == []
    assert builder.message.content == []


def test_a_whole_answer_maps_as_a_stream() -> None:
    dec, builder = _decoder()
    answer = {
        "id": "w-1",
        "object": "chat.completion",
        "model": "mistral-small",
        "choices": [
            {"index": 1, "message": {"content": "no"}, "finish_reason": "length"},
            {
                "index": 0,
                "message": {
                    "content": "Let me look.",
                    "tool_calls": [
                        {"id": "abcDEF123", "function": {"name": "f", "arguments": {"q": 1}}}
                    ],
                },
                "finish_reason": "tool_calls",
            },
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 5},
    }
    dec.feed_document(answer)
    dec.finish(saw_done=False)  # a whole answer is settled
    message = builder.message
    assert (message.response_id, message.response_model) == ("w-1", "mistral-small")
    assert message.content == [
        TextContent(text="Let me look."),
        ToolCall(id="abcDEF123", name="f", arguments={"q": 1}),
    ]
    assert message.stop_reason == "toolUse" and message.raw_stop_reason == "tool_calls"
    assert (message.usage.input, message.usage.output) == (9, 5)


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ({"object": "error", "message": "bad key", "type": "auth"}, "auth: bad key"),
        ({"message": "no object field"}, "no object field"),
        ({"detail": "x"}, 'unexpected JSON response (not a chat completion): \'{"detail": "x"}\''),
        ([1, 2], "unexpected JSON response (not a chat completion): '[1, 2]'"),
    ],
)
def test_a_whole_body_that_is_not_an_answer_raises(body: Any, text: str) -> None:
    dec, _ = _decoder()
    with pytest.raises(ProviderError) as raised:
        dec.feed_document(body)
    assert str(raised.value) == text


@pytest.mark.parametrize("general", [False, True])
def test_chunks_the_fast_path_must_leave_to_the_general_rules(general: bool) -> None:
    # With a text block open, only a one-field string delta of choice 0 without a finish
    # reason or usage is the fast path's; every other chunk is read whole.
    dec, builder, feed = started(Decoder, MODEL, general=general)
    call = {"id": "abcDEF123", "function": {"name": "f", "arguments": "{}"}}
    feed(_chunk("a", id="r", model="m"))
    feed({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "b"}}]})
    feed({"choices": [{"index": 0, "delta": None, "finish_reason": None}]})
    feed({"choices": [{"index": 0, "delta": {"content": "c", "tool_calls": [call]}}]})
    feed(_chunk("d"))
    feed({"choices": [{"index": 0, "delta": {"content": "e"}, "finish_reason": "length"}]})
    feed({"choices": [{"delta": {"content": "f"}}], "usage": {"prompt_tokens": 4}})
    dec.finish(saw_done=True)
    message = builder.message
    assert message.content == [
        TextContent(text="abc"),
        ToolCall(id="abcDEF123", name="f", arguments={}),
        TextContent(text="def"),
    ]
    assert message.stop_reason == "length" and message.usage.input == 4


@pytest.mark.parametrize("size", [10, 199, 200, 201, 500])
def test_the_excerpt_of_a_body_that_is_not_an_answer_is_its_first_200_characters(size: int):
    body = {"détail": "é" * size}
    dec, _ = _decoder()
    with pytest.raises(ProviderError) as raised:
        dec.feed_document(body)
    prefix = "unexpected JSON response (not a chat completion): "
    excerpt = str(raised.value).removeprefix(prefix)
    whole = '{"détail": "' + "é" * size + '"}'  # non-ASCII kept as it is
    assert excerpt == repr(whole[:200])
    assert len(whole[:200]) == min(len(whole), 200)


@pytest.mark.parametrize("arguments", [{"q": "Zürich 東京"}, {"deep": {"list": ["é", 1, None]}}])
def test_arguments_sent_as_an_object_stream_as_their_json_text(arguments: dict[str, Any]) -> None:
    """The call's delta is the object's JSON with non-ASCII kept: the text a string would be."""
    streamed = []
    for form in (arguments, json.dumps(arguments, ensure_ascii=False)):
        dec, builder = _decoder()
        call = {"id": "abcDEF123", "function": {"name": "f", "arguments": form}}
        events = dec.feed({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
        events += dec.finish(saw_done=True)
        assert builder.message.content == [ToolCall(id="abcDEF123", name="f", arguments=arguments)]
        streamed.append([e.delta for e in events if e.type == "toolcall_delta"])
    assert streamed[0] == streamed[1] == [json.dumps(arguments, ensure_ascii=False)]


NOT_TEXT = [5, 0, ["x"], [], {"text": "x"}, {}, True, False, None, ""]


@pytest.mark.parametrize("value", NOT_TEXT, ids=repr)
@pytest.mark.parametrize("before", [[], ["Hi"]], ids=["nothing-open", "text-open"])
def test_a_text_chunk_whose_text_is_no_text_changes_nothing(value: Any, before: list[str]) -> None:
    """A ``content`` list's ``{"type": "text"}`` chunk counts only with a non-empty string."""
    seen = []
    for chunks in ([], [{"type": "text", "text": value}]):
        dec, builder = _decoder()
        events = [e for text in before for e in dec.feed(_chunk(text))]
        events += dec.feed({"choices": [{"index": 0, "delta": {"content": chunks}}]})
        events += dec.feed(_chunk(" there", "stop"))
        events += dec.finish(saw_done=True)
        kinds = [(e.type, getattr(e, "delta", None)) for e in events]
        seen.append((kinds, builder.message.content, builder.message.stop_reason))
    assert seen[1] == seen[0]
    assert seen[0][1] == [TextContent(text="".join(before) + " there")]

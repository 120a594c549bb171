"""The Mistral Decoder on a MessageBuilder: chunk shapes the recorded streams do not have."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.events import block_types, reply_types
from pi_sdk_mistral.conversations import map_finish_reason
from pi_sdk_mistral.conversations._decode import Decoder

from pi_sdk import Model, TextContent, ThinkingContent, ToolCall
from pi_sdk.provider import MessageBuilder, ProviderError, short_hash

MODEL = Model(id="magistral-unit", api="mistral-conversations", provider="mistral")


def decoder() -> tuple[Decoder, MessageBuilder]:
    builder = MessageBuilder(MODEL)
    return Decoder(builder), builder


def delta(content: Any = None, *, index: int = 0, **fields: Any) -> dict[str, Any]:
    body = {"content": content, **fields} if content is not None else dict(fields)
    return {"choices": [{"index": index, "delta": body, "finish_reason": None}]}


def test_thinking_signature_mixed_list_items_and_other_chunk_types() -> None:
    dec, builder = decoder()
    signed = {"type": "thinking", "thinking": [{"type": "text", "text": "a"}], "signature": "s1"}
    events = dec.feed(delta([signed, "b", {"type": "image_url", "image_url": "x"}]))
    events += dec.feed(delta([{"type": "reference", "reference_ids": [1]}, {"type": "text"}]))
    events += dec.finish(saw_done=True)
    assert [e.type for e in events] == reply_types(
        block_types("thinking"), block_types("text"), start=False
    )
    assert builder.message.content == [
        ThinkingContent(thinking="a", thinking_signature="s1"),
        TextContent(text="b"),
    ]


@pytest.mark.parametrize("kind", ["audio", "tool_file", "zz_future"])
def test_a_chunk_of_another_type_is_not_thinking_even_with_thinking_parts(kind: str) -> None:
    # Types sorting before and after "text" and "thinking": only those two are read.
    dec, builder = decoder()
    other = {
        "type": kind,
        "text": "t",
        "thinking": [{"type": "text", "text": "x"}],
        "signature": "s",
    }
    dec.feed(delta(["a", other, "b"]))
    dec.finish(saw_done=True)
    assert builder.message.content == [TextContent(text="ab")]


def test_only_the_first_choice_counts_and_usage_only_chunks() -> None:
    dec, builder = decoder()
    dec.feed(
        {
            "choices": [
                {"index": 1, "delta": {"content": "other"}, "finish_reason": "length"},
                {"index": 0, "delta": {"content": "mine"}, "finish_reason": None},
            ]
        }
    )
    dec.feed({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    dec.finish(saw_done=True)
    message = builder.message
    assert message.content == [TextContent(text="mine")]
    assert message.stop_reason == "stop"
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (5, 2, 7)


def test_text_after_a_tool_call_is_a_new_block() -> None:
    dec, builder = decoder()
    call = {"id": "abcDEF123", "function": {"name": "f", "arguments": "{}"}}
    dec.feed(delta("before"))
    dec.feed(delta(tool_calls=[call]))
    dec.feed(delta("after"))
    dec.finish(saw_done=True)
    kinds = [type(b).__name__ for b in builder.message.content]
    assert kinds == ["TextContent", "ToolCall", "TextContent"]
    assert isinstance(builder.message.content[1], ToolCall)
    assert builder.message.stop_reason == "toolUse"


def test_error_event_and_unfinished_body_raise() -> None:
    dec, _ = decoder()
    with pytest.raises(ProviderError, match="invalid_request: too long"):
        dec.feed({"object": "error", "message": "too long", "type": "invalid_request"})
    dec, _ = decoder()
    dec.feed(delta("x"))
    with pytest.raises(ProviderError, match=r"\[DONE\]"):
        dec.finish(saw_done=False)


def test_cached_tokens_never_make_input_negative() -> None:
    dec, builder = decoder()
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {}}
    dec.feed({"choices": [], "usage": usage})
    assert (builder.message.usage.input, builder.message.usage.cache_read) == (10, 0)
    usage = {"prompt_tokens": 3, "prompt_tokens_details": {"cached_tokens": 5}}
    dec.feed({"choices": [], "usage": usage})
    assert (builder.message.usage.input, builder.message.usage.cache_read) == (0, 5)


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        (None, "stop"),
        ("stop", "stop"),
        ("length", "length"),
        ("model_length", "length"),
        ("tool_calls", "toolUse"),
        ("error", "error"),
        ("new_reason", "error"),
    ],
)
def test_map_finish_reason(reason: str | None, stop: str) -> None:
    assert map_finish_reason(reason) == stop


def _whole_call(name: str, **fields: Any) -> dict[str, Any]:
    return delta(tool_calls=[{"function": {"name": name, "arguments": "{}"}, **fields}])


def test_id_less_calls_get_distinct_ids_that_replay_the_same() -> None:
    def ids() -> list[str]:
        dec, builder = decoder()
        dec.feed(_whole_call("a"))  # no id, no index
        dec.feed(_whole_call("b", id="null"))  # the SDK's "no id"
        dec.feed(_whole_call("c", id=""))
        dec.feed(_whole_call("d", id="toolcall1"))  # a server id a derived one must not take
        dec.feed(_whole_call("e", index=1))
        dec.finish(saw_done=True)
        calls = [b for b in builder.message.content if isinstance(b, ToolCall)]
        assert [c.name for c in calls] == ["a", "b", "c", "d", "e"]
        return [c.id for c in calls]

    first = ids()
    assert first[0] == "toolcall0"  # pi-mono's derived id for the first one
    assert len(set(first)) == 5
    assert all(len(i) == 9 and i.isalnum() for i in first)
    assert ids() == first  # derived from the stream alone: the same on every replay
    # each taken candidate: the next attempt of pi-mono's normalizer, "<first>:<attempt>" hashed
    assert first[1:3] == [short_hash("toolcall0:1", 9), short_hash("toolcall0:2", 9)]
    assert first[3:] == ["toolcall1", short_hash("toolcall1:1", 9)]


@pytest.mark.parametrize(
    ("second_id", "calls"),
    [
        ("call_1", [("call_1", "f", {"a": 1})]),  # its id again: the same call goes on
        (None, [("call_1", "f", {"a": 1})]),  # no id: the open call at that index
        ("call_2", [("call_1", "f", {}), ("call_2", "", {})]),  # another id: a call of its own
        ("call_0", [("call_1", "f", {}), ("call_0", "", {})]),  # whichever way the ids sort
    ],
)
def test_a_fragment_at_an_open_index_continues_the_call_its_id_names(
    second_id: str | None, calls: list[tuple[str, str, dict[str, Any]]]
) -> None:
    # The chunks come through JSON, as a stream's do: the repeated id is equal to the first,
    # never the same object.
    first = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": '{"a"'}}
    second: dict[str, Any] = {"index": 0, "function": {"arguments": ":1}"}}
    if second_id is not None:
        second["id"] = second_id
    dec, builder = decoder()
    for call in (first, second):
        dec.feed(json.loads(json.dumps(delta(tool_calls=[call]))))
    dec.finish(saw_done=True)
    found = [b for b in builder.message.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in found] == calls


def _thinking(*texts: Any, signature: Any = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "type": "thinking",
        "thinking": [{"type": "text", "text": t} for t in texts],
    }
    if signature is not None:
        chunk["signature"] = signature
    return chunk


@pytest.mark.parametrize(
    ("chunks", "content"),
    [
        # a signature alone opens a thinking block for it (after text: a new one)
        ([_thinking(signature="s1")], [ThinkingContent(thinking="", thinking_signature="s1")]),
        (["a", _thinking(signature="s1")],
         [TextContent(text="a"), ThinkingContent(thinking="", thinking_signature="s1")]),
        # ... and signs the open one when thinking goes on
        ([_thinking("x"), _thinking(signature="s1")],
         [ThinkingContent(thinking="x", thinking_signature="s1")]),
        ([_thinking("x", "y", signature="s2"), _thinking("z")],
         [ThinkingContent(thinking="xyz", thinking_signature="s2")]),
        # a thinking chunk with neither text nor signature is nothing, and ends nothing
        ([_thinking(), "a", _thinking(signature=""), "b"], [TextContent(text="ab")]),
        ([_thinking("x"), {"type": "thinking", "thinking": "not a list"}, _thinking("y")],
         [ThinkingContent(thinking="xy")]),
        ([_thinking(signature=7), "a"], [TextContent(text="a")]),
        ([{"type": "thinking", "thinking": [{"type": "text", "text": 1}, {"text": "k"}]}],
         [ThinkingContent(thinking="k")]),
    ],
)  # fmt: skip
def test_thinking_chunks_and_their_signatures(chunks: list[Any], content: list[Any]) -> None:
    dec, builder = decoder()
    events = []
    for chunk in chunks:
        events += dec.feed(delta([chunk]))
    events += dec.finish(saw_done=True)
    assert builder.message.content == content
    opened = [e.type for e in events if e.type.endswith("_start")]
    assert len(opened) == len(content)


@pytest.mark.parametrize(
    ("choices", "text"),
    [
        ([{"index": 1, "delta": {"content": "other"}}, {"delta": {"content": "mine"}}], "mine"),
        ([{"delta": {"content": "mine"}}, {"index": 1, "delta": {"content": "other"}}], "mine"),
        ([{"index": 2, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}], ""),
    ],
)
def test_a_choice_without_an_index_is_choice_0(choices: list[Any], text: str) -> None:
    dec, builder = decoder()
    dec.feed({"choices": choices})
    dec.finish(saw_done=True)
    assert builder.message.text == text

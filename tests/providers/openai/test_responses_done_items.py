"""Responses ``output_item.done`` items -> their finished blocks, rule by rule (``_decode``).

Each item kind's done copy, in every shape, against what streamed before it: reasoning (summary
parts joined with a blank line, else the raw reasoning text, the item JSON as signature only
with ``encrypted_content``), messages (output text parts joined, the TextSignatureV1 id and
phase), function calls (the done arguments win; none keeps what streamed) and how an item's
call id and key are read from its ``output_item.added``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_responses_event_rules import (
    CALL,
    MESSAGE,
    REASONING,
    added,
    completed,
    decode,
    done,
    event,
)

from pi_sdk import TextContent, ThinkingContent, ToolCall


def streamed_reasoning(final: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        added(0, REASONING),
        event("reasoning_text.delta", 0, delta="streamed"),
        done(0, final),
        completed(),
    ]


@pytest.mark.parametrize(
    ("fields", "thinking"),
    [
        ({"summary": [{"text": "a"}, {"text": "b"}]}, "a\n\nb"),
        ({"summary": [{"text": "a"}, {"type": "x"}]}, "a"),  # a part without text is skipped
        ({"content": [{"text": "r1"}, {"text": "r2"}]}, "r1r2"),  # no summary: raw text
        ({"content": [{"text": ""}]}, "streamed"),  # no text anywhere: what streamed stays
        ({}, "streamed"),
    ],
)
def test_a_reasoning_items_done_copy_is_its_thinking(fields: dict[str, Any], thinking: str):
    message = decode(*streamed_reasoning({**REASONING, **fields}))
    (block,) = message.content
    assert isinstance(block, ThinkingContent) and block.thinking == thinking
    assert block.thinking_signature is None  # no encrypted_content: nothing to replay


def test_encrypted_reasoning_is_signed_with_the_whole_item() -> None:
    final = {**REASONING, "summary": [{"text": "é"}], "encrypted_content": "gAAA"}
    (block,) = decode(*streamed_reasoning(final)).content
    assert isinstance(block, ThinkingContent)
    assert block.thinking_signature == json.dumps(final, ensure_ascii=False)


@pytest.mark.parametrize(
    ("item", "text", "signature"),
    [
        (
            {
                "content": [
                    {"type": "output_text", "text": "a"},
                    {"type": "output_text", "text": "b"},
                ]
            },
            "ab",
            '{"v":1,"id":"msg_1"}',
        ),
        (
            {"content": [{"type": "output_text", "text": "a"}, {"type": "other", "text": "z"}]},
            "a",
            '{"v":1,"id":"msg_1"}',
        ),
        ({"phase": "final_answer"}, "streamed", '{"v":1,"id":"msg_1","phase":"final_answer"}'),
        ({"phase": 3}, "streamed", '{"v":1,"id":"msg_1"}'),
        ({"id": ""}, "streamed", None),
        ({"id": None}, "streamed", None),
    ],
)
def test_a_message_items_done_copy_is_its_text_and_signature(
    item: dict[str, Any], text: str, signature: str | None
) -> None:
    message = decode(
        added(0, MESSAGE),
        event("output_text.delta", 0, content_index=0, delta="streamed"),
        done(0, {**MESSAGE, **item}),
        completed(),
    )
    assert message.content == [TextContent(text=text, text_signature=signature)]


@pytest.mark.parametrize(
    ("arguments", "parsed"), [('{"b": 2}', {"b": 2}), (None, {"a": 1}), (7, {"a": 1})]
)
def test_a_function_calls_done_arguments_win_when_they_are_text(arguments: Any, parsed: Any):
    message = decode(
        added(0, CALL),
        event("function_call_arguments.delta", 0, delta='{"a": 1}'),
        done(0, {**CALL, "arguments": arguments}),
        completed(),
    )
    assert message.content == [ToolCall(id="call_1|fc_1", name="f", arguments=parsed)]


@pytest.mark.parametrize(
    ("item", "call_id"),
    [
        ({**CALL}, "call_1|fc_1"),
        ({**CALL, "id": None}, "call_1"),  # no item id: the call id alone
        ({**CALL, "call_id": None, "id": "fc_9"}, "|fc_9"),
    ],
)
def test_a_calls_id_joins_its_call_id_and_item_id(item: dict[str, Any], call_id: str) -> None:
    message = decode(added(0, item), done(0, {**item, "arguments": "{}"}), completed())
    assert [b.id for b in message.content if isinstance(b, ToolCall)] == [call_id]


def test_events_naming_an_item_by_its_id_reach_it_when_it_had_no_output_index() -> None:
    item = {"type": "response.output_item.added", "item": MESSAGE}  # keyed by its id
    message = decode(
        item,
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "x",
        },
        {"type": "response.output_item.done", "item": {**MESSAGE}},
        completed(),
    )
    assert message.content == [TextContent(text="x", text_signature='{"v":1,"id":"msg_1"}')]


def test_items_without_an_output_index_are_kept_apart_by_their_ids() -> None:
    second = {**MESSAGE, "id": "msg_2"}
    message = decode(
        {"type": "response.output_item.added", "item": MESSAGE},
        {"type": "response.output_item.added", "item": second},
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "a",
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_2",
            "content_index": 0,
            "delta": "b",
        },
        {"type": "response.output_item.done", "item": {**MESSAGE}},
        {"type": "response.output_item.done", "item": second},
        completed(),
    )
    assert [b.text for b in message.content if isinstance(b, TextContent)] == ["a", "b"]


@pytest.mark.parametrize(
    ("content", "refusal"),
    [
        ([{"type": "output_text", "text": ""}], "streamed no"),  # no refusal part: the deltas'
        ([{"type": "refusal", "refusal": "final no"}], "final no"),  # the done copy wins
        ([], "streamed no"),
    ],
)
def test_a_streamed_refusal_ends_the_reply_unless_the_done_item_has_its_own(
    content: list[dict[str, Any]], refusal: str
) -> None:
    message = decode(
        added(0, MESSAGE),
        event("refusal.delta", 0, content_index=0, delta="streamed "),
        event("refusal.delta", 0, content_index=0, delta="no"),
        done(0, {**MESSAGE, "content": content}),
        completed(),
    )
    assert (message.stop_reason, message.error_message) == ("error", refusal)


WHOLE = {**MESSAGE, "content": [{"type": "output_text", "text": "Whole", "annotations": []}]}
NO_ID = {k: v for k, v in WHOLE.items() if k != "id"}
SIGNED = TextContent(text="Whole", text_signature='{"v":1,"id":"msg_1"}')


@pytest.mark.parametrize(
    ("where", "item", "block"),
    [
        ({"output_index": 0}, WHOLE, SIGNED),
        ({"output_index": 0}, NO_ID, TextContent(text="Whole")),
        ({}, WHOLE, SIGNED),
    ],
    ids=["index-and-id", "index-only", "id-only"],
)
def test_an_item_done_without_its_added_event_is_found_by_index_or_by_id(
    where: dict[str, Any], item: dict[str, Any], block: TextContent
) -> None:
    """The done copy both opens and finishes the item, however the event names it."""
    message = decode({"type": "response.output_item.done", **where, "item": item}, completed())
    assert message.content == [block]
    assert (message.stop_reason, message.error_message) == ("stop", None)

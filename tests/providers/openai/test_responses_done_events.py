"""Responses ``*.done`` events: their text is the authority, and the block holds it once.

A stream may carry a part's deltas and then its ``output_text.done`` /
``reasoning_summary_text.done`` / ``function_call_arguments.done`` with the whole text; the
deltas can be complete, different, or missing. The block then holds the ``*.done`` text once: a
text that extends what streamed adds the tail as one delta, any other replaces it without one
(pi-ai 0.73.1 ``processResponsesStream`` for the arguments). Azure's Responses decoder is the
OpenAI one plus its filters: the same rules.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_azure.responses._decode import Decoder as AzureDecoder
from pi_sdk_openai.responses import Decoder as OpenAIDecoder

from pi_sdk import Model, TextContent, ThinkingContent, ToolCall
from pi_sdk.provider import MessageBuilder

MODEL = Model(id="gpt-unit", api="openai-responses", provider="openai")
DECODERS = pytest.mark.parametrize(
    "decoder", [OpenAIDecoder, AzureDecoder], ids=["openai", "azure"]
)
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
REASONING = {"id": "rs_1", "type": "reasoning", "summary": []}
CALL = {"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "f", "arguments": ""}
COMPLETED = {"type": "response.completed", "response": {"status": "completed", "output": []}}


def added(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": 0, "item": item}


def item_done(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


def text(kind: str, value: str, part: int = 0) -> dict[str, Any]:
    """An ``output_text`` delta (``kind`` "delta") or done event for content part ``part``."""
    field = "delta" if kind == "delta" else "text"
    at = {"output_index": 0, "item_id": "msg_1", "content_index": part}
    return {"type": f"response.output_text.{kind}", **at, field: value}


def summary(kind: str, value: str, part: int = 0) -> dict[str, Any]:
    field = "delta" if kind == "delta" else "text"
    at = {"output_index": 0, "item_id": "rs_1", "summary_index": part}
    return {"type": f"response.reasoning_summary_text.{kind}", **at, field: value}


def summary_part(part: int) -> dict[str, Any]:
    at = {"output_index": 0, "item_id": "rs_1", "summary_index": part}
    return {"type": "response.reasoning_summary_part.added", **at}


def arguments(kind: str, value: str) -> dict[str, Any]:
    field = "delta" if kind == "delta" else "arguments"
    at = {"output_index": 0, "item_id": "fc_1"}
    return {"type": f"response.function_call_arguments.{kind}", **at, field: value}


def feed(decoder: type[OpenAIDecoder], *events: dict[str, Any]) -> tuple[list[Any], Any]:
    """Feed ``events`` then ``response.completed``; return (the deltas, the one block)."""
    builder = MessageBuilder(MODEL)
    dec = decoder(builder)
    out: list[Any] = []
    for event in (*events, COMPLETED):
        out += dec.feed(event)
    out += dec.finish(saw_done=False)
    assert out[-1].type == "done"
    (block,) = builder.message.content
    return [e.delta for e in out if e.type.endswith("_delta")], block


@DECODERS
@pytest.mark.parametrize(
    ("streamed", "deltas"),
    [
        (["Hel", "lo"], ["Hel", "lo"]),  # complete: nothing added
        (["Hel"], ["Hel", "lo"]),  # short: the tail as one delta
        (["Helo"], ["Helo"]),  # different: replaced, no delta
        ([], ["Hello"]),  # no deltas at all: the done text is the one delta
    ],
)
@pytest.mark.parametrize("final_item", [MESSAGE, {**MESSAGE, "content": None}])
def test_output_text_done_is_the_text(
    decoder: type[OpenAIDecoder],
    streamed: list[str],
    deltas: list[str],
    final_item: dict[str, Any],
) -> None:
    events = [added(MESSAGE), *(text("delta", p) for p in streamed), text("done", "Hello")]
    got, block = feed(decoder, *events, item_done(final_item))  # the done item has no text
    assert isinstance(block, TextContent) and block.text == "Hello"
    assert got == deltas


@DECODERS
def test_output_text_done_with_the_done_item_text_holds_it_once(
    decoder: type[OpenAIDecoder],
) -> None:
    whole = {**MESSAGE, "content": [{"type": "output_text", "text": "Hello"}]}
    events = [added(MESSAGE), text("delta", "Hel"), text("delta", "lo"), text("done", "Hello")]
    got, block = feed(decoder, *events, item_done(whole))
    assert isinstance(block, TextContent) and block.text == "Hello"
    assert got == ["Hel", "lo"]


@DECODERS
def test_each_content_part_is_settled_by_its_own_done(decoder: type[OpenAIDecoder]) -> None:
    events = [
        added(MESSAGE),
        text("delta", "Hel"),
        text("done", "Hello"),
        text("delta", " wrld", part=1),
        text("done", " world", part=1),
        text("done", "!", part=2),  # a part that streamed no delta
    ]
    got, block = feed(decoder, *events, item_done(MESSAGE))
    assert isinstance(block, TextContent) and block.text == "Hello world!"
    assert got == ["Hel", "lo", " wrld", "!"]  # " wrld" -> " world" is replaced, no delta


@DECODERS
def test_summary_text_done_is_each_summary_part(decoder: type[OpenAIDecoder]) -> None:
    events = [
        added(REASONING),
        summary_part(0),
        summary("delta", "**A"),
        summary("done", "**A**"),
        summary_part(1),
        summary("delta", "B", part=1),
        summary("done", "B", part=1),
    ]
    got, block = feed(decoder, *events, item_done(REASONING))  # a done item without summary
    assert isinstance(block, ThinkingContent) and block.thinking == "**A**\n\nB"
    assert got == ["**A", "**", "\n\n", "B"]


@DECODERS
def test_summary_done_events_alone_make_the_thinking(decoder: type[OpenAIDecoder]) -> None:
    events = [added(REASONING), summary("done", "X"), summary("done", "Y", part=1)]
    got, block = feed(decoder, *events, item_done(REASONING))
    assert isinstance(block, ThinkingContent) and block.thinking == "X\n\nY"
    assert got == ["X", "\n\n", "Y"]


@DECODERS
@pytest.mark.parametrize(
    ("streamed", "deltas"),
    [
        (['{"a":', " 1}"], ['{"a":', " 1}"]),
        (['{"a":'], ['{"a":', " 1}"]),
        (['{"b": 2}'], ['{"b": 2}']),
        ([], ['{"a": 1}']),
    ],
)
def test_arguments_done_is_the_arguments(
    decoder: type[OpenAIDecoder], streamed: list[str], deltas: list[str]
) -> None:
    streamed_events = [arguments("delta", p) for p in streamed]
    events = [added(CALL), *streamed_events, arguments("done", '{"a": 1}')]
    got, block = feed(decoder, *events, item_done({**CALL, "arguments": None}))
    assert isinstance(block, ToolCall) and block.arguments == {"a": 1}
    assert block.invalid_arguments is None
    assert got == deltas


def _without_index(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "content_index"}


@DECODERS
@pytest.mark.parametrize(
    ("events", "whole"),
    [
        pytest.param(
            [added(REASONING), summary("delta", "**A"), summary("done", "**A**")],
            "**A**",
            id="summary-deltas-without-their-part-added",
        ),
        pytest.param(
            [added(REASONING), summary("delta", "Draft"), summary("done", "Final")],
            "Final",
            id="summary-replaced-without-its-part-added",
        ),
        pytest.param(
            [
                added(MESSAGE),
                _without_index(text("delta", "Hel")),
                _without_index(text("done", "Hello")),
            ],
            "Hello",
            id="text-without-a-content-index",
        ),
        pytest.param(
            [
                added(MESSAGE),
                _without_index(text("delta", "Helo")),
                _without_index(text("done", "Hello")),
            ],
            "Hello",
            id="text-replaced-without-a-content-index",
        ),
    ],
)
def test_a_part_that_no_event_announced_starts_at_the_blocks_start(
    decoder: type[OpenAIDecoder], events: list[dict[str, Any]], whole: str
) -> None:
    # The done text is the whole part; the part began where the block began.
    _, block = feed(decoder, *events, item_done(events[0]["item"]))
    assert getattr(block, "thinking" if isinstance(block, ThinkingContent) else "text") == whole

"""MessageBuilder rules a decoder relies on, by class: reply ids, raw stop reasons, block
lookups, closing by kind, server blocks, cut-off calls, tier pricing."""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk import (
    ImageContent,
    Model,
    ModelCost,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from pi_sdk.provider import MessageBuilder, ProviderError

PRICES = ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
MODEL = Model(id="m", api="test-api", provider="test", cost=PRICES)


@pytest.mark.parametrize(
    ("ids", "kept"),
    [
        (["resp_1", "resp_2"], "resp_1"),  # the first one wins (pi-ai: ||=)
        (["", "resp_2"], "resp_2"),  # an empty string is no id
        ([None, 7, "resp_3"], "resp_3"),  # non-strings are ignored
        ([b"bytes", ""], None),
    ],
)
def test_set_response_keeps_the_first_non_empty_string(ids: list[Any], kept: str | None):
    b = MessageBuilder(MODEL)
    for value in ids:
        b.set_response(id=value)
    assert b.message.response_id == kept
    assert b.message.response_model is None  # each field on its own
    b = MessageBuilder(MODEL)
    for value in ids:
        b.set_response(model=value)
    assert b.message.response_model == kept
    assert b.message.response_id is None


@pytest.mark.parametrize(
    ("reasons", "kept"),
    [
        (["end_turn", "tool_use"], "tool_use"),  # the last one given wins
        (["end_turn", ""], "end_turn"),
        (["end_turn", None, 3], "end_turn"),
        ([None], None),
    ],
)
def test_raw_stop_reason_keeps_the_last_non_empty_string(reasons: list[Any], kept: str | None):
    b = MessageBuilder(MODEL)
    for reason in reasons:
        b.set_raw_stop_reason(reason)
    assert b.message.raw_stop_reason == kept


def test_kind_and_block_name_the_open_block_and_nothing_else():
    b = MessageBuilder(MODEL)
    b.text("t", "x")
    b.thinking("r", "y")
    b.open_tool_call("c", id="c1", name="f")
    assert [b.kind(k) for k in ("t", "r", "c", "nope")] == ["text", "thinking", "toolcall", None]
    assert b.block("t") is b.message.content[0]
    assert b.block("c") is b.message.content[2]
    assert b.block("nope") is None
    b.end_text("t")
    assert (b.kind("t"), b.block("t"), b.is_open("t")) == (None, None, False)
    assert b.open_keys == ["r", "c"]


def test_close_ends_each_kind_with_its_own_event_and_close_all_goes_by_content_order():
    b = MessageBuilder(MODEL)
    b.open_tool_call("z", id="c1", name="f", arguments='{"a": 1}')
    b.thinking("a", "hm")
    b.text("m", "hi")
    (end,) = b.close("a")
    assert (end.type, end.content_index, end.content) == ("thinking_end", 1, "hm")  # type: ignore[union-attr]
    assert b.close("a") == []
    events = b.close_all()
    assert [(e.type, e.content_index) for e in events] == [("toolcall_end", 0), ("text_end", 2)]  # type: ignore[union-attr]
    assert events[1].content == "hi"  # type: ignore[union-attr]
    assert b.open_keys == [] and b.close_all() == []


def test_error_can_end_as_aborted():
    b = MessageBuilder(MODEL)
    b.thinking(0, "x")
    events = b.error("stopped", reason="aborted")
    assert [e.type for e in events] == ["thinking_end", "error"]
    assert events[-1].reason == "aborted"  # type: ignore[union-attr]
    assert (b.message.stop_reason, b.message.error_message, b.finished) == (
        "aborted",
        "stopped",
        True,
    )


@pytest.mark.parametrize(
    ("block", "event_type", "field"),
    [
        (ServerToolCall(id="s1", name="web_search"), "servertool_call", "server_tool_call"),
        (
            ServerToolResult(tool_call_id="s1", kind="web_search_result"),
            "servertool_result",
            "server_tool_result",
        ),
        (ImageContent(data="AAAA", mime_type="image/png"), "image", "image"),
    ],
)
def test_server_block_appends_the_block_and_names_it_in_its_own_event(
    block: Any, event_type: str, field: str
):
    b = MessageBuilder(MODEL)
    b.text("t", "before")
    (event,) = b.server_block(block)
    assert (event.type, event.content_index) == (event_type, 1)  # type: ignore[union-attr]
    assert getattr(event, field) is block
    assert b.message.content[1] is block and b.is_open("t")


@pytest.mark.parametrize(
    ("arguments", "initial", "after", "reason", "invalid"),
    [
        ("", None, False, "length", ""),  # cut off before any argument text: never run
        ("  ", None, False, "length", ""),  # blank text is no text
        ('{"a": 1}', None, False, "length", None),  # a whole object was complete
        ("", {"x": 1}, False, "length", None),  # the block start carried the arguments
        ("", None, True, "length", None),  # not the last block: it was not the one cut
        ("", None, False, "stop", None),  # not at the limit: an empty call is {}
        ('{"a": 1', None, False, "stop", '{"a": 1'),  # not whole JSON: kept raw, never run
    ],
)
def test_a_call_is_invalid_only_when_its_text_is_not_a_whole_object_or_was_cut(
    arguments: str, initial: dict[str, Any] | None, after: bool, reason: Any, invalid: str | None
):
    b = MessageBuilder(MODEL)
    b.open_tool_call("c", id="c1", name="f", arguments=arguments, initial=initial)
    b.end_tool_call("c")
    if after:
        b.text("t", "tail")
    b.done(reason)
    call = b.message.content[0]
    assert isinstance(call, ToolCall)
    assert call.invalid_arguments == invalid
    assert call.arguments == (initial or ({"a": 1} if arguments.strip() else {}))


def test_a_cut_call_is_judged_by_the_last_call_closed():
    b = MessageBuilder(MODEL)
    b.open_tool_call(0, id="c0", name="f")
    b.end_tool_call(0)  # blank, but a later call closes after it
    b.open_tool_call(1, id="c1", name="f", arguments='{"k": 1}')
    b.done("length")
    first, second = b.message.content
    assert first.invalid_arguments is None and second.invalid_arguments is None  # type: ignore[union-attr]


def test_a_factor_scales_every_part_of_the_cost_and_the_total_is_their_sum():
    b = MessageBuilder(MODEL)
    b.set_usage(input=1_000_000, output=1_000_000, cache_read=1_000_000, cache_write=1_000_000)
    b.price_usage(0.5)
    cost = b.message.usage.cost
    parts = (cost.input, cost.output, cost.cache_read, cost.cache_write, cost.total)
    assert parts == pytest.approx((1.5, 7.5, 0.15, 1.875, 11.025))
    b.price_usage(2.0)  # each call prices afresh from the counts, not from the last cost
    assert b.message.usage.cost.total == pytest.approx(44.1)


def test_settle_text_on_a_call_or_a_missing_key_is_a_malformed_stream():
    b = MessageBuilder(MODEL)
    b.open_tool_call("c", id="c1", name="f")
    with pytest.raises(ProviderError, match="text data for block 'c', a toolcall block"):
        b.settle_text("c", "x")
    with pytest.raises(ProviderError, match="not open"):
        b.settle_text("gone", "x")
    b.skip("server")
    assert b.settle_text("server", "x") == []
    with pytest.raises(ProviderError, match="signature data for block 'gone'"):
        b.set_signature("gone", "s")
    with pytest.raises(ProviderError, match="signature data for block 'gone'"):
        b.append_signature("gone", "s")
    b.set_signature("server", "s")  # a skipped key: ignored
    b.append_signature("server", "s")


def test_new_blocks_start_empty_with_the_signature_and_redaction_given():
    b = MessageBuilder(MODEL)
    b.open_text("t", signature="ts")
    b.open_thinking("r", signature="rs", redacted=True)
    b.append_signature("t", "+")
    text, thinking = b.message.content
    assert text == TextContent(text="", text_signature="ts+")
    assert thinking == ThinkingContent(thinking="", thinking_signature="rs", redacted=True)

"""MessageBuilder: vendor block keys -> content indices, block lifecycles, usage, the end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from pi_sdk import (
    AssistantMessageEventStream,
    Context,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)
from pi_sdk.events import AssistantMessageEvent, event_to_dict
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(
    id="m",
    api="test-api",
    provider="test",
    base_url="https://example.test",
    cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
)


def shape(events: list[AssistantMessageEvent]) -> list[tuple[Any, ...]]:
    """(type, content_index, delta) of each event, for compact assertions."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        data = event_to_dict(event, include_partial=False)
        row: tuple[Any, ...] = (data["type"],)
        if "contentIndex" in data:
            row += (data["contentIndex"],)
        if "delta" in data:
            row += (data["delta"],)
        out.append(row)
    return out


def test_interleaved_keys_get_content_indices_in_open_order():
    b = MessageBuilder(MODEL)
    events = b.open_thinking(7)  # vendor keys need not be 0-based nor dense
    events += b.open_text("msg")
    events += b.append_text("msg", "Hel")
    events += b.append_thinking(7, "hmm")
    events += b.append_text("msg", "lo")
    events += b.end_text("msg")
    events += b.append_thinking(7, "!")
    events += b.end_thinking(7)
    assert shape(events) == [
        ("thinking_start", 0),
        ("text_start", 1),
        ("text_delta", 1, "Hel"),
        ("thinking_delta", 0, "hmm"),
        ("text_delta", 1, "lo"),
        ("text_end", 1),
        ("thinking_delta", 0, "!"),
        ("thinking_end", 0),
    ]
    thinking, text = b.message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "hmm!"
    assert isinstance(text, TextContent) and text.text == "Hello"
    assert all(event.partial is b.message for event in events)


def test_a_key_reused_after_its_end_opens_a_new_block():
    b = MessageBuilder(MODEL)
    b.text("t", "one")
    b.end_text("t")
    events = b.text("t", "two")
    assert shape(events) == [("text_start", 1), ("text_delta", 1, "two")]
    assert [block.text for block in b.message.content if isinstance(block, TextContent)] == [
        "one",
        "two",
    ]


def test_open_with_initial_text_emits_start_then_one_delta():
    b = MessageBuilder(MODEL)
    assert shape(b.open_text(0, "hi")) == [("text_start", 0), ("text_delta", 0, "hi")]
    events = b.open_thinking(1, "[redacted]", signature="opaque", redacted=True)
    assert shape(events) == [("thinking_start", 1), ("thinking_delta", 1, "[redacted]")]
    block = b.message.content[1]
    assert isinstance(block, ThinkingContent)
    assert (block.thinking, block.thinking_signature, block.redacted) == (
        "[redacted]",
        "opaque",
        True,
    )


def test_empty_pieces_cause_no_event():
    b = MessageBuilder(MODEL)
    b.open_text(0)
    b.open_tool_call(1, id="c", name="f")
    assert b.append_text(0, "") == []
    assert b.append_arguments(1, "") == []


def test_done_closes_open_blocks_in_content_order_and_calls_make_it_tool_use():
    b = MessageBuilder(MODEL)
    b.open_tool_call("call", id="c1", name="f", arguments='{"a": 1')
    b.text("text", "after")
    events = b.done()
    assert shape(events) == [("toolcall_end", 0), ("text_end", 1), ("done",)]
    assert b.message.stop_reason == "toolUse" and b.finished
    call = b.message.content[0]
    assert isinstance(call, ToolCall) and call.arguments == {"a": 1}  # best partial kept
    assert not b.open_keys


def test_done_exact_keeps_stop_and_length_is_never_upgraded():
    b = MessageBuilder(MODEL)
    b.tool_call(id="c", name="f", arguments={})
    assert b.done("stop", exact=True)[-1].reason == "stop"  # type: ignore[union-attr]
    b = MessageBuilder(MODEL)
    b.tool_call(id="c", name="f", arguments={})
    assert b.done("length")[-1].reason == "length"  # type: ignore[union-attr]


def test_error_closes_blocks_and_keeps_content():
    b = MessageBuilder(MODEL)
    b.text(0, "partial")
    events = b.error("refused")
    assert shape(events) == [("text_end", 0), ("error",)]
    assert b.message.stop_reason == "error" and b.message.error_message == "refused"
    assert b.message.content[0].text == "partial"  # type: ignore[union-attr]


def test_streamed_arguments_are_the_parsers_live_dict():
    b = MessageBuilder(MODEL)
    b.open_tool_call(0, id="c", name="write")
    call = b.block(0)
    assert isinstance(call, ToolCall)
    b.append_arguments(0, '{"path": "a.py", "text": "pri')
    assert call.arguments == {"path": "a.py", "text": "pri"}
    b.append_arguments(0, 'nt(1)"}')
    events = b.end_tool_call(0)
    assert shape(events) == [("toolcall_end", 0)]
    assert events[0].tool_call is call  # type: ignore[union-attr]
    assert call.arguments == {"path": "a.py", "text": "print(1)"}


def test_initial_arguments_are_kept_only_when_no_fragment_arrives():
    b = MessageBuilder(MODEL)
    b.open_tool_call(0, id="c", name="f", initial={"x": 1})
    b.end_tool_call(0)
    b.open_tool_call(1, id="d", name="f", initial={"x": 1})
    b.append_arguments(1, '{"y": 2}')
    b.end_tool_call(1)
    first, second = b.message.content
    assert first.arguments == {"x": 1}  # type: ignore[union-attr]
    assert second.arguments == {"y": 2}  # type: ignore[union-attr]


def test_settle_arguments_extends_with_a_delta_or_replaces_silently():
    b = MessageBuilder(MODEL)
    b.open_tool_call(0, id="c", name="f", arguments='{"a": ')
    assert shape(b.settle_arguments(0, '{"a": 1}')) == [("toolcall_delta", 0, "1}")]
    assert b.settle_arguments(0, '{"a": 1}') == []
    assert b.settle_arguments(0, '{"b": 2}') == []  # not an extension: replaced, no delta
    events = b.end_tool_call(0, arguments='{"b": 2}')
    assert events[0].tool_call.arguments == {"b": 2}  # type: ignore[union-attr]


def test_end_with_final_text_emits_the_missing_tail_or_replaces():
    b = MessageBuilder(MODEL)
    b.text(0, "Hel")
    assert shape(b.end_text(0, text="Hello", signature="sig")) == [
        ("text_delta", 0, "lo"),
        ("text_end", 0),
    ]
    assert b.message.content[0].text_signature == "sig"  # type: ignore[union-attr]
    b.thinking(1, "abc")
    assert shape(b.end_thinking(1, text="xyz")) == [("thinking_end", 1)]
    assert b.message.content[1].thinking == "xyz"  # type: ignore[union-attr]


def test_signatures_append_or_replace_on_every_kind():
    b = MessageBuilder(MODEL)
    b.open_thinking(0, signature="ab")
    b.append_signature(0, "cd")
    b.text(1, "t")
    b.set_signature(1, "one")
    b.set_signature(1, "two")
    b.open_tool_call(2, id="c", name="f")
    b.set_signature(2, "thought")
    thinking, text, call = b.message.content
    assert thinking.thinking_signature == "abcd"  # type: ignore[union-attr]
    assert text.text_signature == "two"  # type: ignore[union-attr]
    assert call.thought_signature == "thought"  # type: ignore[union-attr]


def test_whole_tool_call_is_start_one_delta_end():
    b = MessageBuilder(MODEL)
    b.text("t", "x")
    events = b.tool_call(id="g1", name="f", arguments={"q": "é"}, signature="s")
    assert shape(events) == [
        ("toolcall_start", 1),
        ("toolcall_delta", 1, '{"q": "é"}'),
        ("toolcall_end", 1),
    ]
    assert b.is_open("t") and b.has_tool_calls  # a whole call leaves other blocks alone


def test_unknown_key_wrong_kind_and_double_open_raise():
    b = MessageBuilder(MODEL)
    with pytest.raises(ProviderError, match="not open"):
        b.append_text(3, "x")
    b.open_text(0)
    with pytest.raises(ProviderError, match="protocol error"):
        b.append_thinking(0, "x")
    with pytest.raises(ProviderError, match="protocol error"):
        b.end_tool_call(0)
    with pytest.raises(ProviderError, match="started again"):
        b.open_thinking(0)
    b.end_text(0)
    with pytest.raises(ProviderError, match="not open"):
        b.end_text(0)
    assert len(b.message.content) == 1


def test_skipped_keys_are_ignored_not_errors():
    b = MessageBuilder(MODEL)
    b.skip("server_tool")
    assert b.is_skipped("server_tool") and not b.is_open("server_tool")
    assert b.append_text("server_tool", "x") == []
    assert b.end_tool_call("server_tool") == []
    assert b.close("never-seen") == []
    assert b.message.content == []


def test_usage_fields_are_kept_when_absent_and_priced():
    b = MessageBuilder(MODEL)
    b.set_usage(input=1000, output=1, cache_read=0, cache_write=0)
    b.set_usage(output=500)  # a later report without input keeps it
    usage = b.message.usage
    assert (usage.input, usage.output, usage.total_tokens) == (1000, 500, 1500)
    assert usage.cost.input == pytest.approx(0.003)
    assert usage.cost.output == pytest.approx(0.0075)
    assert usage.cost.total == pytest.approx(0.0105)


def test_deferred_pricing_happens_at_done_and_a_factor_scales_every_part():
    b = MessageBuilder(MODEL)
    b.set_usage(input=1_000_000, output=0, price=False)
    assert b.message.usage.cost.total == 0
    b.done()
    assert b.message.usage.cost.total == pytest.approx(3.0)
    b = MessageBuilder(MODEL)
    b.set_usage(input=1_000_000, output=1_000_000)
    b.price_usage(0.5)
    cost = b.message.usage.cost
    assert (cost.input, cost.output, cost.total) == pytest.approx((1.5, 7.5, 9.0))


def test_message_is_stamped_with_the_url_called():
    b = MessageBuilder(MODEL, base_url="https://proxy.test")
    assert b.message.signature_origin == "test-api@https://proxy.test"
    assert (b.message.api, b.message.provider, b.message.model) == ("test-api", "test", "m")
    assert b.start().partial is b.message


async def test_builder_events_satisfy_the_stream_contract():
    async def provider() -> AsyncIterator[AssistantMessageEvent]:
        b = MessageBuilder(MODEL)
        yield b.start()
        for events in (
            b.open_thinking(0, "think"),
            b.open_tool_call(1, id="c", name="f", arguments='{"k":'),
            b.text(2, "answer"),
            b.append_arguments(1, '"v"}'),
            b.end_thinking(0),
            b.done(),
        ):
            for event in events:
                yield event

    stream = AssistantMessageEventStream(provider, model=MODEL)
    types = [event.type async for event in stream]
    message = await stream.result()
    assert message.stop_reason == "toolUse", message.error_message
    assert types == [
        "start",
        "thinking_start",
        "thinking_delta",
        "toolcall_start",
        "toolcall_delta",
        "text_start",
        "text_delta",
        "toolcall_delta",
        "thinking_end",
        "toolcall_end",
        "text_end",
        "done",
    ]
    assert message.content[1].arguments == {"k": "v"}  # type: ignore[union-attr]
    assert Context(messages=[UserMessage(content="x"), message])  # a valid history entry


def test_text_and_thinking_append_like_their_append_methods_and_check_the_block_kind():
    """``text``/``thinking`` (the decoders' hot path) keep every rule of ``append_*``."""
    b = MessageBuilder(MODEL)
    b.text("t", "Hel")
    assert b.text("t", "") == []  # an empty piece: no event
    (delta,) = b.text("t", "lo")
    assert (delta.type, delta.content_index, delta.delta) == ("text_delta", 0, "lo")
    assert b.message.content[0].text == "Hello"  # type: ignore[union-attr]
    b.thinking("r", "hm")
    (thought,) = b.thinking("r", "m")
    assert (thought.type, thought.content_index, thought.delta) == ("thinking_delta", 1, "m")
    assert b.message.content[1].thinking == "hmm"  # type: ignore[union-attr]
    with pytest.raises(ProviderError, match="text data for block 'r', a thinking block"):
        b.text("r", "x")
    with pytest.raises(ProviderError, match="thinking data for block 't', a text block"):
        b.thinking("t", "x")
    with pytest.raises(TypeError, match="must be a str"):
        b.text("t", 7)  # type: ignore[arg-type]
    assert b.message.content[0].text == "Hello"  # type: ignore[union-attr]


FIELDS = ["input", "output", "cache_read", "cache_write", "reasoning", "cache_write_1h"]


@pytest.mark.parametrize("field", FIELDS)
def test_a_later_usage_report_keeps_every_count_it_does_not_give(field: str) -> None:
    # Vendors report usage in pieces (input at the start, output at the end): a report that
    # leaves a count out keeps the one given before, whatever its size.
    b = MessageBuilder(MODEL)
    b.set_usage(**{f: 1000 + n for n, f in enumerate(FIELDS)}, price=False)
    b.set_usage(**{f: 5000 for f in FIELDS if f != field}, price=False)
    usage = b.message.usage
    assert getattr(usage, field) == 1000 + FIELDS.index(field)
    assert all(getattr(usage, f) == 5000 for f in FIELDS if f != field)
    assert usage.total_tokens == usage.input + usage.output + usage.cache_read + usage.cache_write


def test_has_tool_calls_is_false_until_a_tool_call_opens() -> None:
    b = MessageBuilder(MODEL)
    b.start()
    assert b.has_tool_calls is False
    b.text("t", "hi")
    b.end_text("t")
    assert b.has_tool_calls is False
    b.tool_call(id="call_1", name="f", arguments={})
    assert b.has_tool_calls is True

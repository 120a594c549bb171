"""Every rule of the event contract (pi_sdk_pytest.conformance.contract), one at a time.

The conformance kit reports a provider's stream through these sentences, so each rule is
checked alone on a stream that is valid in every other way: broken, it reports exactly its
own sentence; the valid stream reports nothing. The aborted-stream allowances (more blocks
than opened, deltas that only begin the final text) are checked both ways.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_pytest.conformance.contract import contract_violations, final_message

from pi_sdk import (
    AssistantMessage,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

CALL = ToolCall(id="c1", name="lookup", arguments={"q": "x"})


def message(*content: Any, stop_reason: str = "toolUse", error: str | None = None) -> Any:
    return AssistantMessage(
        api="openai-completions",
        provider="openai",
        model="m",
        content=list(content),
        stop_reason=stop_reason,  # type: ignore[arg-type]
        error_message=error,
    )


FINAL = message(TextContent(text="Hello"), ThinkingContent(thinking="hm"), CALL)
P = message()  # the partial message each event carries (not read by the contract)


def valid(final: Any = FINAL) -> list[Any]:
    """start, a text block (two deltas), a thinking block, a tool call, done."""
    return [
        StartEvent(partial=P),
        TextStartEvent(content_index=0, partial=P),
        TextDeltaEvent(content_index=0, delta="Hel", partial=P),
        TextDeltaEvent(content_index=0, delta="lo", partial=P),
        TextEndEvent(content_index=0, content="Hello", partial=P),
        ThinkingStartEvent(content_index=1, partial=P),
        ThinkingDeltaEvent(content_index=1, delta="hm", partial=P),
        ThinkingEndEvent(content_index=1, content="hm", partial=P),
        ToolCallStartEvent(content_index=2, partial=P),
        ToolCallDeltaEvent(content_index=2, delta='{"q": "x"}', partial=P),
        ToolCallEndEvent(content_index=2, tool_call=CALL, partial=P),
        DoneEvent(reason="toolUse", message=final),
    ]


def error_end(final: Any, reason: str = "error") -> ErrorEvent:
    return ErrorEvent(reason=reason, error=final)  # type: ignore[arg-type]


def test_a_valid_stream_breaks_no_rule():
    assert contract_violations(valid()) == []
    assert final_message(valid()) is FINAL


def test_no_event_at_all():
    assert contract_violations([]) == ["no event at all"]
    assert final_message([]) is None


def test_a_stream_that_does_not_begin_with_start():
    assert contract_violations(valid()[1:]) == ["the first event is 'text_start', not 'start'"]


def test_a_second_start():
    events = valid()
    events.insert(5, StartEvent(partial=P))
    assert contract_violations(events) == ["2 'start' events, at [0, 5]"]


def test_no_terminal_event_still_checks_the_blocks():
    events = valid()[:-1]
    del events[4]  # the text block is never closed: fine before a terminal, but no terminal
    assert contract_violations(events) == [
        "no terminal 'done' or 'error' event (the last is 'toolcall_end')"
    ]
    assert final_message(events) is None


def test_two_terminal_events():
    events = [*valid(), DoneEvent(reason="toolUse", message=FINAL)]
    assert contract_violations(events) == [
        "2 terminal events, at [11, 12]",
        "1 event(s) after the terminal 'done' at 11: ['done']",
    ]


def test_events_after_the_terminal_one():
    events = [*valid(), TextDeltaEvent(content_index=0, delta="!", partial=P)]
    assert contract_violations(events) == [
        "1 event(s) after the terminal 'done' at 11: ['text_delta']"
    ]


def test_a_block_opened_out_of_order():
    events = valid()
    events[5] = ThinkingStartEvent(content_index=2, partial=P)
    assert (
        contract_violations(events)[0]
        == "event 5 (thinking_start) opens block 2; the next block is 1"
    )


def test_an_event_for_a_block_that_is_not_open():
    events = valid()
    events[6] = ThinkingDeltaEvent(content_index=0, delta="hm", partial=P)  # block 0 is text
    assert (
        contract_violations(events)[0]
        == "event 6 (thinking_delta) for block 0, not an open thinking block"
    )
    after_end = valid()
    after_end.insert(5, TextDeltaEvent(content_index=0, delta="", partial=P))
    assert contract_violations(after_end) == [
        "event 5 (text_delta) for block 0, not an open text block"
    ]


def test_done_with_a_failure_stop_reason():
    final = message(*FINAL.content, stop_reason="error", error="boom")
    events = [*valid()[:-1], DoneEvent(reason="toolUse", message=final)]
    assert contract_violations(events) == ["'done' with stop_reason 'error'"]


def test_error_with_a_success_stop_reason_and_no_error_message():
    final = message(*FINAL.content, stop_reason="stop")
    events = [*valid()[:-1], error_end(final)]
    assert contract_violations(events) == [
        "'error' with stop_reason 'stop'",
        "'error' without an error_message",
    ]


def test_a_well_formed_error_breaks_no_rule():
    final = message(*FINAL.content, stop_reason="error", error="boom")
    assert contract_violations([*valid()[:-1], error_end(final)]) == []


def test_done_with_a_block_still_open():
    events = valid()
    del events[10]  # no toolcall_end
    assert contract_violations(events) == ["'done' with block(s) [2] still open"]


def test_an_error_may_leave_blocks_open():
    events = valid()[:-1]
    del events[10]
    final = message(*FINAL.content, stop_reason="error", error="cut")
    assert contract_violations([*events, error_end(final)]) == []


@pytest.mark.parametrize("count", [2, 4])
def test_the_final_message_holds_one_block_per_block_opened(count: int):
    blocks = [*FINAL.content, TextContent(text="extra")][:count]
    events = [*valid()[:-1], DoneEvent(reason="toolUse", message=message(*blocks))]
    problems = contract_violations(events)
    assert problems[0] == f"the final message has {count} block(s); 3 were opened"


def test_a_block_of_another_kind_in_the_final_message():
    final = message(TextContent(text="Hello"), TextContent(text="hm"), CALL)
    events = [*valid()[:-1], DoneEvent(reason="toolUse", message=final)]
    assert contract_violations(events) == ["block 1 was opened as thinking; the message has text"]


@pytest.mark.parametrize(
    ("final", "kind", "index"),
    [
        (message(TextContent(text="Hello!"), ThinkingContent(thinking="hm"), CALL), "text", 0),
        (message(TextContent(text="Hello"), ThinkingContent(thinking="h"), CALL), "thinking", 1),
    ],
)
def test_deltas_that_do_not_add_up_to_the_final_text(final: Any, kind: str, index: int):
    events = [*valid()[:-1], DoneEvent(reason="toolUse", message=final)]
    assert contract_violations(events) == [
        f"the {kind} deltas of block {index} do not add up to its final {kind}"
    ]


def test_an_aborted_stream_may_keep_more_than_its_events_said():
    # The abort came between a block's start and its first text, and before a block opened.
    final = message(
        TextContent(text="Hello, world"),
        ThinkingContent(thinking="hm"),
        CALL,
        TextContent(text="more"),
        stop_reason="aborted",
        error="aborted",
    )
    assert contract_violations([*valid()[:-1], error_end(final, "aborted")]) == []
    # ... but its deltas must still begin the final text, and no block may go missing.
    wrong = message(
        TextContent(text="Goodbye"),
        ThinkingContent(thinking="hm"),
        stop_reason="aborted",
        error="x",
    )
    assert contract_violations([*valid()[:-1], error_end(wrong, "aborted")]) == [
        "the final message has 2 block(s); 3 were opened",
        "the text deltas of block 0 do not add up to its final text",
    ]


@pytest.mark.parametrize(
    ("late", "listed"),
    [
        (5, "['text_delta', 'text_delta', 'text_delta', 'text_delta', 'text_delta']"),
        (6, "['text_delta', 'text_delta', 'text_delta', 'text_delta', 'text_delta']"),  # 5 shown
    ],
)
def test_events_after_the_terminal_one_are_counted_all_and_listed_up_to_five(
    late: int, listed: str
):
    extra = [TextDeltaEvent(content_index=0, delta="!", partial=P) for _ in range(late)]
    assert contract_violations([*valid(), *extra]) == [
        f"{late} event(s) after the terminal 'done' at 11: {listed}"
    ]

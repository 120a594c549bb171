"""Responses stream events out of their place: each rule of the decoder, one event at a time.

A Responses stream names the item each event belongs to (``output_index``, else ``item_id``).
The decoder's rules for events that do not fit, each checked alone against a valid reply:

* an event naming no item, or an item of another kind, changes nothing (every event kind);
* a ``*.done`` event for an item already done changes nothing;
* a summary delta with no ``reasoning_summary_part.added`` before it starts the summary;
  raw ``reasoning_text`` after a summary began is not thinking;
* an ``output_item.done`` whose ``output_item.added`` never came adds the whole item;
* how a response ends: every form of ``failed`` / ``cancelled`` / ``incomplete`` and ``error``
  gives one whole text; a whole document that is not a response, or a failed one, says so.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.decoding import decoded
from pi_sdk_openai.responses import Decoder

from pi_sdk import AssistantMessage, Model, ServerToolCall, TextContent, ThinkingContent, ToolCall
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="gpt-test", api="openai-responses", provider="openai", base_url="http://x")

REASONING = {"id": "rs_1", "type": "reasoning", "summary": []}
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
CALL = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": ""}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def event(kind: str, index: int | None, **fields: Any) -> dict[str, Any]:
    where = {} if index is None else {"output_index": index}
    return {"type": f"response.{kind}", **where, **fields}


def completed(status: str = "completed", **response: Any) -> dict[str, Any]:
    kind = "response.incomplete" if status == "incomplete" else "response.completed"
    return {
        "type": kind,
        "response": {
            "id": "resp_1",
            "status": status,
            "model": "gpt-test",
            "output": [],
            **response,
        },
    }


def decode(*chunks: dict[str, Any]) -> AssistantMessage:
    return decoded(Decoder, MODEL, chunks)


# A valid reply: reasoning (one summary part), a message, a function call.
VALID = [
    added(0, REASONING),
    event("reasoning_summary_part.added", 0, summary_index=0),
    event("reasoning_summary_text.delta", 0, summary_index=0, delta="Plan"),
    event("reasoning_summary_text.done", 0, summary_index=0, text="Plan"),
    done(0, {**REASONING, "summary": [{"type": "summary_text", "text": "Plan"}]}),
    added(1, MESSAGE),
    event("output_text.delta", 1, content_index=0, delta="Hi"),
    event("output_text.done", 1, content_index=0, text="Hi"),
    done(1, {**MESSAGE, "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}),
    added(2, CALL),
    event("function_call_arguments.delta", 2, delta='{"a": 1}'),
    event("function_call_arguments.done", 2, arguments='{"a": 1}'),
    done(2, {**CALL, "arguments": '{"a": 1}'}),
    completed(),
]
VALID_CONTENT = [
    ThinkingContent(thinking="Plan"),
    TextContent(text="Hi", text_signature='{"v":1,"id":"msg_1"}'),
    ToolCall(id="call_1|fc_1", name="f", arguments={"a": 1}),
]


def _content(message: AssistantMessage) -> list[Any]:
    return [
        b.model_copy(update={"thinking_signature": None}) if isinstance(b, ThinkingContent) else b
        for b in message.content
    ]


def test_the_valid_reply() -> None:
    message = decode(*VALID)
    assert (_content(message), message.stop_reason) == (VALID_CONTENT, "toolUse")


STRAYS = {
    "output_text.delta": {"content_index": 0, "delta": "X"},
    "output_text.done": {"content_index": 0, "text": "X"},
    "refusal.delta": {"content_index": 0, "delta": "X"},
    "reasoning_summary_part.added": {"summary_index": 1},
    "reasoning_summary_text.delta": {"summary_index": 0, "delta": "X"},
    "reasoning_summary_text.done": {"summary_index": 0, "text": "X"},
    "reasoning_text.delta": {"content_index": 0, "delta": "X"},
    "function_call_arguments.delta": {"delta": '{"x"'},
    "function_call_arguments.done": {"arguments": '{"x": 2}'},
    "custom_tool_call_input.delta": {"delta": "X"},
    "custom_tool_call_input.done": {"input": "X"},
}


OWN_ITEM = {"output_text": 1, "refusal": 1, "reasoning": 0, "function_call_arguments": 2}
"""The VALID item (output index) each event kind belongs to; custom tool input has none."""


def _where() -> list[Any]:
    rows: list[Any] = []
    for kind in STRAYS:
        own = next((i for prefix, i in OWN_ITEM.items() if kind.startswith(prefix)), None)
        rows.append(pytest.param(kind, 9, "nope", id=f"{kind}-no-item"))
        rows.append(pytest.param(kind, None, None, id=f"{kind}-no-index-or-id"))
        rows += [
            pytest.param(kind, other, None, id=f"{kind}-item-{other}-of-another-kind")
            for other in (0, 1, 2)
            if other != own
        ]
    return rows


@pytest.mark.parametrize(("kind", "index", "item_id"), _where())
def test_an_event_naming_no_item_of_its_kind_changes_nothing(
    kind: str, index: int | None, item_id: str | None
) -> None:
    fields = {**STRAYS[kind], **({"item_id": item_id} if item_id else {})}
    stray = event(kind, index, **fields)
    # while the three items are open: after each one's added event
    events = [*VALID[:2], VALID[5], VALID[9]]
    rest = [e for e in VALID if e not in events]
    message = decode(*events, stray, *rest)
    assert (_content(message), message.stop_reason) == (VALID_CONTENT, "toolUse")


BUILT_IN = [
    {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search"}},
    {"id": "fs_1", "type": "file_search_call", "status": "completed", "queries": ["q"]},
    {"id": "ci_1", "type": "code_interpreter_call", "status": "completed", "code": "1+1"},
    {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": None},
    {"id": "mc_1", "type": "mcp_call", "name": "t", "server_label": "s", "arguments": "{}"},
    {"id": "ml_1", "type": "mcp_list_tools", "server_label": "s", "tools": []},
]


@pytest.mark.parametrize("item", BUILT_IN, ids=[i["type"] for i in BUILT_IN])
def test_a_built_in_tool_item_is_its_server_blocks_never_a_tool_call(item: dict[str, Any]):
    from pi_sdk_openai.responses._server_tools import server_blocks

    message = decode(added(0, {**item, "status": "in_progress"}), done(0, item), completed())
    assert message.content == server_blocks(item)
    assert message.content and not [b for b in message.content if isinstance(b, ToolCall)]


@pytest.mark.parametrize(
    "late",
    [
        event("output_text.done", 1, content_index=0, text="Changed"),
        event("reasoning_summary_text.done", 0, summary_index=0, text="Changed"),
    ],
    ids=["text", "summary"],
)
def test_a_done_event_for_an_item_already_done_changes_nothing(late: dict[str, Any]) -> None:
    message = decode(*VALID[:-1], late, VALID[-1])
    assert _content(message) == VALID_CONTENT


def test_a_late_custom_input_done_changes_nothing() -> None:
    tool = {"id": "ct_1", "type": "custom_tool_call", "call_id": "call_1", "name": "sql"}
    message = decode(
        added(0, {**tool, "input": ""}),
        event("custom_tool_call_input.delta", 0, delta="SELECT 1"),
        done(0, {**tool, "input": "SELECT 1"}),
        event("custom_tool_call_input.done", 0, input="DROP TABLE t"),
        completed(),
    )
    assert message.content == [
        ToolCall(id="call_1|ct_1", name="sql", arguments={"input": "SELECT 1"})
    ]


def test_a_summary_delta_without_its_part_announced_starts_the_summary() -> None:
    message = decode(
        added(0, REASONING),
        event("reasoning_text.delta", 0, content_index=0, delta="raw thoughts"),
        event("reasoning_summary_text.delta", 0, summary_index=0, delta="Sum"),
        event("reasoning_summary_text.delta", 0, summary_index=0, delta="mary"),
        event("reasoning_text.delta", 0, content_index=0, delta=" more raw"),  # not thinking now
        event("reasoning_summary_part.added", 0, summary_index=1),
        event("reasoning_summary_text.delta", 0, summary_index=1, delta="Two"),
        done(0, REASONING),  # the item's copy has no summary: the streamed text stays
        completed(),
    )
    assert _content(message) == [ThinkingContent(thinking="raw thoughtsSummary\n\nTwo")]


def test_an_item_done_without_its_added_event_is_added_whole() -> None:
    message = decode(
        done(
            0, {**MESSAGE, "content": [{"type": "output_text", "text": "Whole", "annotations": []}]}
        ),
        done(1, {**CALL, "arguments": '{"b": 2}'}),
        completed(),
    )
    assert message.content == [
        TextContent(text="Whole", text_signature='{"v":1,"id":"msg_1"}'),
        ToolCall(id="call_1|fc_1", name="f", arguments={"b": 2}),
    ]
    assert message.stop_reason == "toolUse"


# --- how a response ends -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "text"),
    [
        ({"error": {"code": "server_error", "message": "boom"}}, "server_error: boom"),
        ({"error": {"message": "boom"}}, "unknown: boom"),
        ({"error": {"code": "server_error"}}, "server_error: no message"),
        (
            {"error": None, "incomplete_details": {"reason": "interrupted"}},
            "incomplete: interrupted",
        ),
        ({}, "response failed (no error details)"),
        ({"status": None}, "response failed (no error details)"),
        ({"status": "cancelled"}, "response cancelled (no error details)"),
    ],
)
def test_every_form_of_a_failed_response(response: dict[str, Any], text: str) -> None:
    builder = MessageBuilder(MODEL)
    with pytest.raises(ProviderError) as caught:
        Decoder(builder).feed(
            {"type": "response.failed", "response": {"status": "failed", **response}}
        )
    assert str(caught.value) == text


@pytest.mark.parametrize("status", ["failed", "cancelled"])
def test_a_completed_event_whose_status_is_a_failure_fails(status: str) -> None:
    with pytest.raises(ProviderError) as caught:
        decode(added(0, MESSAGE), completed(status))
    assert str(caught.value) == f"response {status} (no error details)"


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (
            {"type": "error", "code": "rate_limit_exceeded", "message": "Slow"},
            "rate_limit_exceeded: Slow",
        ),
        (
            {"type": "error", "error": {"type": "invalid_request", "message": "Bad"}},
            "invalid_request: Bad",
        ),
        ({"type": "error", "message": "Plain"}, "error: Plain"),
        ({"type": "error", "code": "x"}, 'x: {"type": "error", "code": "x"}'),
    ],
)
def test_every_form_of_an_error_event(data: dict[str, Any], text: str) -> None:
    with pytest.raises(ProviderError) as caught:
        Decoder(MessageBuilder(MODEL)).feed(data)
    assert str(caught.value) == text


@pytest.mark.parametrize(
    ("refusal", "stop", "error"),
    [
        (None, "error", "The reply was blocked by the content filter (incomplete)"),
        ("I can't help with that.", "error", "I can't help with that."),
    ],
)
def test_an_incomplete_response_for_the_content_filter(
    refusal: str | None, stop: str, error: str
) -> None:
    events = [added(0, MESSAGE), event("output_text.delta", 0, content_index=0, delta="So")]
    if refusal:
        events.append(event("refusal.delta", 0, content_index=1, delta=refusal))
    message = decode(
        *events, completed("incomplete", incomplete_details={"reason": "content_filter"})
    )
    assert (message.stop_reason, message.error_message, message.text) == (stop, error, "So")


@pytest.mark.parametrize("document", [[1, 2], "text", None, 3])
def test_a_whole_document_that_is_not_an_object(document: Any) -> None:
    with pytest.raises(ProviderError) as caught:
        Decoder(MessageBuilder(MODEL)).feed_document(document)
    assert str(caught.value) == f"malformed response body: {document!r:.200}"


@pytest.mark.parametrize("status", [None, "failed"])
def test_a_whole_document_that_failed(status: str | None) -> None:
    document = {"id": "r", "status": status, "error": {"code": "server_error", "message": "Down"}}
    with pytest.raises(ProviderError) as caught:
        Decoder(MessageBuilder(MODEL)).feed_document(document)
    assert str(caught.value) == "server_error: Down"


def test_a_whole_document_with_an_error_but_completed_is_read() -> None:
    document = {
        "id": "r",
        "status": "completed",
        "error": {"code": "ignored", "message": "x"},
        "output": [
            {**MESSAGE, "content": [{"type": "output_text", "text": "Fine", "annotations": []}]}
        ],
    }
    builder = MessageBuilder(MODEL)
    decoder = Decoder(builder)
    decoder.feed_document(document)
    decoder.finish(saw_done=True)
    assert (builder.message.text, builder.message.stop_reason) == ("Fine", "stop")


# --- what the *.done events and the completed response settle ----------------------------------


def test_each_done_event_settles_only_its_own_part() -> None:
    summary = [{"type": "summary_text", "text": "One"}, {"type": "summary_text", "text": "Two"}]
    message = decode(
        added(0, REASONING),
        event("reasoning_summary_part.added", 0, summary_index=0),
        event("reasoning_summary_text.delta", 0, summary_index=0, delta="On"),
        event("reasoning_summary_text.done", 0, summary_index=0, text="One"),
        event("reasoning_summary_part.added", 0, summary_index=1),
        event("reasoning_summary_text.delta", 0, summary_index=1, delta="Tw"),
        event("reasoning_summary_text.done", 0, summary_index=1, text="Two"),
        done(0, {**REASONING, "summary": summary}),
        added(1, MESSAGE),
        event("output_text.delta", 1, content_index=0, delta="Hel"),
        event("output_text.done", 1, content_index=0, text="Hello"),
        event("output_text.delta", 1, content_index=1, delta=" wor"),
        event("output_text.done", 1, content_index=1, text=" world"),
        completed(),
    )
    assert _content(message) == [
        ThinkingContent(thinking="One\n\nTwo"),
        TextContent(text="Hello world"),  # no output_item.done: no item to sign with
    ]


def test_a_refusal_only_in_the_done_item_ends_the_reply_as_an_error() -> None:
    refused = {**MESSAGE, "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
    message = decode(added(0, MESSAGE), done(0, refused), completed())
    assert (message.stop_reason, message.error_message) == ("error", "I can't help with that.")


@pytest.mark.parametrize("kind", ["output_audio", "summary_text", "reasoning_text"])
def test_a_part_of_another_type_carrying_a_refusal_field_is_no_refusal(kind: str) -> None:
    # Part types sorting before and after "refusal" and "output_text": only those two are read.
    parts = [
        {"type": "output_text", "text": "Hi", "annotations": []},
        {"type": kind, "text": "more", "refusal": "no"},
    ]
    message = decode(added(0, MESSAGE), done(0, {**MESSAGE, "content": parts}), completed())
    assert (message.stop_reason, _content(message)) == (
        "stop",
        [TextContent(text="Hi", text_signature='{"v":1,"id":"msg_1"}')],
    )


WEB_SEARCH = {
    "id": "ws_1",
    "type": "web_search_call",
    "status": "completed",
    "action": {"type": "search", "query": "pi"},
}


@pytest.mark.parametrize(
    ("output", "found"),
    [
        pytest.param([WEB_SEARCH], True, id="the-same-item"),
        pytest.param([{**WEB_SEARCH, "type": "file_search_call"}], False, id="another-type"),
        pytest.param([], False, id="not-in-the-output"),
    ],
)
def test_a_built_in_tool_item_left_open_is_finished_from_the_completed_response(
    output: list[dict[str, Any]], found: bool
) -> None:
    in_progress = {**WEB_SEARCH, "status": "in_progress", "action": {}}
    message = decode(
        added(0, in_progress),
        added(1, MESSAGE),
        event("output_text.delta", 1, content_index=0, delta="Hi"),
        done(1, {**MESSAGE, "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}),
        completed(output=output),
    )
    calls = [b for b in message.content if isinstance(b, ServerToolCall)]
    expected = ServerToolCall(
        id="ws_1", name="web_search", arguments={"action": WEB_SEARCH["action"]}, raw=WEB_SEARCH
    )
    assert calls == ([expected] if found else [])


@pytest.mark.parametrize(
    ("status", "details", "raw", "stop"),
    [
        ("completed", None, "completed", "stop"),
        ("incomplete", {"reason": "max_output_tokens"}, "incomplete.max_output_tokens", "length"),
        ("incomplete", None, "incomplete", "length"),
        ("incomplete", {"reason": 7}, "incomplete", "length"),
        ("completed", {"reason": "odd"}, "completed.odd", "stop"),
        # Other statuses end normally, whichever way they sort beside "incomplete".
        ("in_progress", None, "in_progress", "stop"),
        ("queued", None, "queued", "stop"),
    ],
)
def test_the_raw_stop_reason_is_the_status_and_its_reason(
    status: str, details: Any, raw: str, stop: str
) -> None:
    """pi-ai 1.6: ``"<status>.<incomplete reason>"``, else the status alone."""
    extra = {} if details is None else {"incomplete_details": details}
    message = decode(*VALID[:8], completed(status, **extra))
    assert (message.raw_stop_reason, message.stop_reason) == (raw, stop)


@pytest.mark.parametrize("status", ["failed", "cancelled", None])
def test_a_failed_response_records_its_status_before_it_raises(status: str | None) -> None:
    builder = MessageBuilder(MODEL)
    with pytest.raises(ProviderError):
        Decoder(builder).feed({"type": "response.failed", "response": {"status": status}})
    assert builder.message.raw_stop_reason == status


@pytest.mark.parametrize(
    ("status", "error"),
    [
        ("completed", "the response (completed) has no output items: nothing to return"),
        ("incomplete", None),  # cut by the token limit before any output: a length stop
        ("queued", "the response (queued) has no output items: nothing to return"),
    ],
)
def test_a_response_without_output_items(status: str, error: str | None) -> None:
    decoder = Decoder(MessageBuilder(MODEL))
    decoder.feed(completed(status, incomplete_details={"reason": "max_output_tokens"}))
    if error is None:
        decoder.finish(saw_done=True)
        assert decoder.builder.message.stop_reason == "length"
        return
    with pytest.raises(ProviderError) as caught:
        decoder.finish(saw_done=True)
    assert str(caught.value) == error


def test_an_arguments_delta_naming_a_custom_tool_call_changes_nothing() -> None:
    custom = {"id": "ct_1", "type": "custom_tool_call", "call_id": "call_9", "name": "g"}
    decoder = Decoder(MessageBuilder(MODEL))
    decoder.feed(added(0, {**custom, "input": ""}))
    decoder.feed(event("custom_tool_call_input.delta", 0, delta="x"))
    assert decoder.feed(event("function_call_arguments.delta", 0, delta='{"y"')) == []
    decoder.feed(event("custom_tool_call_input.delta", 0, delta="z"))
    decoder.feed(completed(output=[{**custom, "input": "xz"}]))
    decoder.finish(saw_done=True)
    expected = ToolCall(id="call_9|ct_1", name="g", arguments={"input": "xz"})
    assert _content(decoder.builder.message) == [expected]


def test_a_built_in_tool_item_is_not_finished_from_an_entry_of_another_built_in_type() -> None:
    in_progress = {"id": "fs_1", "type": "file_search_call", "status": "in_progress"}
    message = decode(
        added(0, in_progress),
        added(1, MESSAGE),
        event("output_text.delta", 1, content_index=0, delta="Hi"),
        done(1, {**MESSAGE, "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}),
        completed(output=[{**WEB_SEARCH, "id": "fs_1"}]),
    )
    assert [b for b in message.content if isinstance(b, ServerToolCall)] == []


@pytest.mark.parametrize("kind", ["reasoning", "function_call", "web_search_call"])
def test_an_open_item_is_not_finished_from_a_completed_output_entry_of_another_type(
    kind: str,
) -> None:
    """The response's copy at the item's index is of another type: the item ends as streamed."""
    other = {"id": "xx_9", "type": kind, "content": [{"type": "output_text", "text": "Other"}]}
    message = decode(
        added(0, MESSAGE),
        event("output_text.delta", 0, content_index=0, delta="Hi"),
        completed(output=[other]),
    )
    assert _content(message) == [TextContent(text="Hi")]


def test_part_indexes_past_256_read_from_json_are_compared_by_value() -> None:
    """Part indexes come parsed from JSON, each a new int object past CPython's small ints:
    the same part on two events is the same part (its done text replaces only its own). The
    items are left to the end of the stream (no done item overrides the text), and the
    message's events name it by ``item_id`` (the general rules, not the fast path)."""
    chunks = [
        added(0, REASONING),
        event("reasoning_summary_part.added", 0, summary_index=300),
        event("reasoning_summary_text.delta", 0, summary_index=300, delta="O"),
        event("reasoning_summary_text.delta", 0, summary_index=300, delta="n"),
        event("reasoning_summary_text.done", 0, summary_index=300, text="One"),
        event("reasoning_summary_part.added", 0, summary_index=301),
        event("reasoning_summary_text.delta", 0, summary_index=301, delta="Tw"),
        event("reasoning_summary_text.done", 0, summary_index=301, text="Two"),
        added(1, MESSAGE),
        event("output_text.delta", None, item_id="msg_1", content_index=300, delta="He"),
        event("output_text.delta", None, item_id="msg_1", content_index=300, delta="l"),
        event("output_text.done", None, item_id="msg_1", content_index=300, text="Hello"),
        event("output_text.delta", None, item_id="msg_1", content_index=301, delta=" wor"),
        event("output_text.done", None, item_id="msg_1", content_index=301, text=" world"),
        completed(),
    ]
    message = decode(*(json.loads(json.dumps(c)) for c in chunks))
    assert _content(message) == [
        ThinkingContent(thinking="One\n\nTwo"),
        TextContent(text="Hello world"),
    ]

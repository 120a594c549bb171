"""The client-side decoder of pi's serialized events (``pi_sdk/_serve/decoder.py``), rule by rule.

Each rule a table: the fields each event needs and the refusal's whole text for each wrong type
(a bool is not an index); the stop reasons ``done`` accepts and the text of the others; how an
``error`` event's reason and text are read; the optional fields of a 1.6 server
(``providerThinkingLevel``, ``rewrite``, ``usage``, a block's whole ``content``, ``redacted``,
``contentSignature``, the whole ``toolCall``) taken only with the right type, and the streamed
value kept otherwise; unknown events skipped; the end of a stream without ``done``/``error``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_sdk import Model
from pi_sdk._serve.decoder import EventDecoder
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk.provider import ProviderError
from pi_sdk.types import (
    Diagnostic,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
)

MODEL = Model(id="m", api="wire-test", provider="p")
USAGE = {"input": 5, "output": 7}


def _decode(*events: dict[str, Any], source: str = "proxy") -> tuple[MessageBuilder, EventDecoder]:
    """Feed ``events`` as the decoder gets them: decoded from the server's JSON (a type read
    there equals the literal but is another object)."""
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = EventDecoder(builder, source=source)
    for event in events:
        decoder.feed(json.loads(json.dumps(event)))
    return builder, decoder


def _refusal(*events: dict[str, Any], source: str = "proxy") -> str:
    with pytest.raises(ProviderError) as caught:
        _decode(*events, source=source)
    return str(caught.value)


TEXT = {"type": "text_start", "contentIndex": 0}
THINKING = {"type": "thinking_start", "contentIndex": 0}
CALL = {"type": "toolcall_start", "contentIndex": 0, "id": "c1", "toolName": "look"}


@pytest.mark.parametrize(
    ("opened", "event", "field", "kind"),
    [
        ([], {"type": "text_start", "contentIndex": True}, "contentIndex", "int"),
        ([], {"type": "text_start", "contentIndex": False}, "contentIndex", "int"),
        ([], {"type": "thinking_start", "contentIndex": "0"}, "contentIndex", "int"),
        ([], {"type": "text_end", "contentIndex": 1.0}, "contentIndex", "int"),
        ([], {"type": "toolcall_end"}, "contentIndex", "int"),
        ([TEXT], {"type": "text_delta", "contentIndex": 0, "delta": 5}, "delta", "str"),
        ([TEXT], {"type": "text_delta", "contentIndex": 0}, "delta", "str"),
        ([THINKING], {"type": "thinking_delta", "contentIndex": 0, "delta": None}, "delta", "str"),
        ([CALL], {"type": "toolcall_delta", "contentIndex": 0, "delta": ["{"]}, "delta", "str"),
        ([], {**CALL, "id": 7}, "id", "str"),
        ([], {**CALL, "toolName": None}, "toolName", "str"),
        ([], {"type": "toolcall_start", "contentIndex": 0, "id": "c1"}, "toolName", "str"),
    ],
)
def test_each_field_of_the_wrong_type_is_refused_naming_the_event_the_field_and_the_type(
    opened: list[dict[str, Any]], event: dict[str, Any], field: str, kind: str
):
    assert _refusal(*opened, event, source="gw") == (
        f"malformed gw event: {event['type']!r} needs {field!r} of type {kind}"
    )


@pytest.mark.parametrize("reason", ["stop", "length", "toolUse"])
def test_done_ends_with_the_servers_reason_as_sent(reason: str):
    call = [CALL, {"type": "toolcall_end", "contentIndex": 0}]
    builder, decoder = _decode(*call, {"type": "done", "reason": reason, "usage": USAGE})
    assert builder.message.stop_reason == reason  # exact: not turned into toolUse by a call
    assert decoder.terminal and decoder.finish(saw_done=True) == []


@pytest.mark.parametrize("reason", ["error", "aborted", None, "", "Stop", 1])
def test_done_with_anything_else_is_refused(reason: Any):
    assert _refusal({"type": "done", "reason": reason}) == (
        f"malformed proxy event: done with reason {reason!r}"
    )


@pytest.mark.parametrize(
    ("reason", "ended"),
    [("aborted", "aborted"), ("error", "error"), (None, "error"), ("stop", "error")],
)
@pytest.mark.parametrize(
    ("text", "said"),
    [("the vendor is down", "the vendor is down"), (None, None), (3, None), ("", "")],
)
def test_an_error_event_ends_as_aborted_only_when_it_says_so_with_its_text_or_the_sources(
    reason: Any, ended: str, text: Any, said: str | None
):
    source = "pi-messages server"
    event = {"type": "error", "reason": reason, "errorMessage": text}
    builder, decoder = _decode(TEXT, event, source=source)
    assert builder.message.stop_reason == ended
    expected = f"the {source} reported an error" if said is None else said
    assert builder.message.error_message == expected
    assert decoder.terminal


@pytest.mark.parametrize("kind", ["done", "error"])
def test_the_optional_fields_of_a_terminal_event_are_taken_with_the_right_type_only(kind: str):
    earlier = Diagnostic(type="usage_estimated")
    right = {
        "type": kind, "reason": "stop", "usage": USAGE, "providerThinkingLevel": "high",
        "responseId": "r-1", "responseModel": "m-2", "rewrite": {"model": "a->b"},
    }  # fmt: skip
    builder = MessageBuilder(MODEL)
    builder.start()
    builder.message.diagnostics = [earlier]
    EventDecoder(builder).feed(right)
    message = builder.message
    assert (message.usage.input, message.usage.output) == (5, 7)
    assert message.provider_thinking_level == "high"
    assert (message.response_id, message.response_model) == ("r-1", "m-2")
    assert [d.type for d in message.diagnostics or []] == ["usage_estimated", "pi_messages_rewrite"]
    assert (message.diagnostics or [])[1].details == {"model": "a->b"}

    wrong = {
        "type": kind, "reason": "stop", "usage": [5, 7], "providerThinkingLevel": 3,
        "rewrite": "a->b",
    }  # fmt: skip
    builder, _ = _decode(wrong)
    message = builder.message
    assert (message.usage.input, message.usage.output) == (0, 0)
    assert message.provider_thinking_level is None
    assert not message.diagnostics


@pytest.mark.parametrize(
    ("end", "text", "signature"),
    [
        ({"content": "whole text", "contentSignature": "sig"}, "whole text", "sig"),
        ({"content": None, "contentSignature": 5}, "streamed", None),
        ({"content": 12}, "streamed", None),
        ({"content": ""}, "", None),
        ({}, "streamed", None),
    ],
)
@pytest.mark.parametrize("kind", ["text", "thinking"])
def test_a_prose_end_takes_the_whole_text_and_signature_when_they_are_strings(
    kind: str, end: dict[str, Any], text: str, signature: str | None
):
    builder, _ = _decode(
        {"type": f"{kind}_start", "contentIndex": 0},
        {"type": f"{kind}_delta", "contentIndex": 0, "delta": "streamed"},
        {"type": f"{kind}_end", "contentIndex": 0, **end},
    )
    [block] = builder.message.content
    if kind == "text":
        assert isinstance(block, TextContent)
        assert (block.text, block.text_signature) == (text, signature)
    else:
        assert isinstance(block, ThinkingContent)
        assert (block.thinking, block.thinking_signature) == (text, signature)


@pytest.mark.parametrize(("flag", "redacted"), [(True, True), (1, False), ("true", False)])
def test_thinking_is_redacted_only_by_a_true_flag(flag: Any, redacted: bool):
    builder, _ = _decode(THINKING, {"type": "thinking_end", "contentIndex": 0, "redacted": flag})
    [block] = builder.message.content
    assert isinstance(block, ThinkingContent) and bool(block.redacted) is redacted


WHOLE = {
    "arguments": {"q": "whole"}, "id": "c-whole", "name": "look_up",
    "thoughtSignature": "ts", "namespace": "ns", "argumentsError": "bad JSON",
}  # fmt: skip


def _call(end: dict[str, Any]) -> dict[str, Any]:
    streamed = [CALL, {"type": "toolcall_delta", "contentIndex": 0, "delta": '{"q": "streamed"}'}]
    builder, _ = _decode(*streamed, {"type": "toolcall_end", "contentIndex": 0, **end})
    [call] = builder.message.content
    assert isinstance(call, ToolCall)
    return call.model_dump(by_alias=True)


@pytest.mark.parametrize("field", list(WHOLE))
def test_the_whole_tool_call_lays_each_field_over_the_streamed_one_only_with_its_type(field: str):
    streamed = _call({})
    assert streamed == {
        "type": "toolCall",
        "id": "c1",
        "name": "look",
        "arguments": {"q": "streamed"},
    }
    assert _call({"toolCall": {field: WHOLE[field]}}) == {**streamed, field: WHOLE[field]}
    assert _call({"toolCall": {field: 42}}) == streamed


@pytest.mark.parametrize("whole", [None, "call", ["c"]])
def test_a_tool_call_end_without_a_whole_call_object_keeps_the_streamed_call(whole: Any):
    builder, _ = _decode(
        CALL,
        {"type": "toolcall_delta", "contentIndex": 0, "delta": '{"q": 1}'},
        {"type": "toolcall_end", "contentIndex": 0, "toolCall": whole},
    )
    [call] = builder.message.content
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == ("c1", "look", {"q": 1})


SEARCH = ServerToolCall(id="ws_1", name="web_search", arguments={"query": "tides"})
FOUND = ServerToolResult(tool_call_id="ws_1", kind="web_search", content=[{"url": "https://t"}])
PICTURE = ImageContent(data="aGk=", mime_type="image/png")


@pytest.mark.parametrize(
    ("kind", "field", "block"),
    [
        ("servertool_call", "serverToolCall", SEARCH),
        ("servertool_result", "serverToolResult", FOUND),
        ("image", "image", PICTURE),
    ],
)
def test_a_whole_block_event_adds_its_block_as_sent(kind: str, field: str, block: Any):
    wire = {"type": kind, "contentIndex": 1, field: block.model_dump(mode="json")}
    builder, decoder = _decode(TEXT, wire)
    assert builder.message.content == [TextContent(text=""), block]
    assert not decoder.terminal


@pytest.mark.parametrize("kind", ["start", "message_start", "text", None, "ping"])
def test_start_and_unknown_events_change_nothing(kind: Any):
    builder, decoder = _decode(TEXT)
    before = builder.message.model_copy(deep=True)
    assert decoder.feed({"type": kind, "contentIndex": 0, "delta": "x"}) == []
    assert builder.message == before and not decoder.terminal


@pytest.mark.parametrize("source", ["proxy", "gateway"])
def test_a_stream_that_ends_before_done_or_error_is_incomplete_naming_the_source(source: str):
    _, decoder = _decode(
        TEXT, {"type": "text_delta", "contentIndex": 0, "delta": "x"}, source=source
    )
    with pytest.raises(ProviderError) as caught:
        decoder.finish(saw_done=True)
    assert str(caught.value) == f"the {source} stream ended before its done or error event"
    assert caught.value.incomplete is True

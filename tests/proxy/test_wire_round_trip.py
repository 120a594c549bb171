"""Every kind of event through the proxy's encoder and back through its decoder
(``pi_sdk/_serve/wire.py``, ``pi_sdk/_serve/decoder.py``): a reply holding each kind of block
(signed text, redacted signed thinking, a tool call, a server tool's call and result, an image)
is encoded in the pi-messages shape and decoded into the same message; the proxy shape leaves
out what pi's proxy client does not read. The decoder's refusals and its silent skips follow,
each with its whole text.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk import Model
from pi_sdk._serve.decoder import EventDecoder
from pi_sdk._serve.wire import pi_messages_event_to_dict, proxy_event_to_dict
from pi_sdk._stream.builder import Events, MessageBuilder
from pi_sdk.provider import ProviderError
from pi_sdk.types import ImageContent, ServerToolCall, ServerToolResult

MODEL = Model(id="m", api="wire-test", provider="p")
SEARCH = ServerToolCall(id="srv_1", name="web_search", arguments={"query": "pi"})
FOUND = ServerToolResult(
    tool_call_id="srv_1",
    kind="web_search_tool_result",
    content=[{"url": "https://pi.dev", "title": "Pi"}],
)
IMAGE = ImageContent(data="aGVsbG8=", mime_type="image/png")


def _reply() -> tuple[list[Any], Any]:
    b = MessageBuilder(MODEL)
    events: Events = [b.start()]
    events += b.open_thinking("k", "Let me look.", signature="think-sig", redacted=True)
    events += b.end_thinking("k")
    events += b.server_block(SEARCH)
    events += b.server_block(FOUND)
    events += b.open_text("t", "Pi is ", signature="text-sig")
    events += b.append_text("t", "a site.")
    events += b.end_text("t")
    events += b.server_block(IMAGE)
    events += b.open_tool_call("c", id="call_1", name="lookup")
    events += b.append_arguments("c", '{"q": "pi"}')
    events += b.end_tool_call("c")
    b.set_response(id="resp_9", model="m-2026")
    b.message.provider_thinking_level = "high"
    b.message.usage.input, b.message.usage.output = 12, 34
    events += b.done("toolUse", exact=True)
    return events, b.message


def test_every_kind_of_block_survives_the_pi_messages_round_trip():
    events, sent = _reply()
    builder = MessageBuilder(MODEL)
    decoder = EventDecoder(builder, source="pi-messages server")
    for event in events:
        decoder.feed(pi_messages_event_to_dict(event))
    assert decoder.terminal and decoder.finish(saw_done=True) == []
    got = builder.message
    assert got.content == sent.content
    assert (got.response_id, got.response_model, got.provider_thinking_level) == (
        "resp_9",
        "m-2026",
        "high",
    )
    assert (got.usage.input, got.usage.output, got.stop_reason) == (12, 34, "toolUse")


def test_the_server_blocks_and_ends_in_each_shape():
    events, _ = _reply()
    full = [pi_messages_event_to_dict(e) for e in events]
    proxy = [proxy_event_to_dict(e) for e in events]
    by_type = {d["type"]: d for d in full}
    assert by_type["servertool_result"] == {
        "type": "servertool_result",
        "contentIndex": 2,
        "serverToolResult": FOUND.model_dump(mode="json"),
    }
    assert by_type["servertool_call"]["serverToolCall"] == SEARCH.model_dump(mode="json")
    assert by_type["image"] == {
        "type": "image",
        "contentIndex": 4,
        "image": IMAGE.model_dump(mode="json"),
    }
    assert by_type["thinking_end"] == {
        "type": "thinking_end",
        "contentIndex": 0,
        "content": "Let me look.",
        "redacted": True,
        "contentSignature": "think-sig",
    }
    proxy_end = next(d for d in proxy if d["type"] == "thinking_end")
    assert proxy_end == {"type": "thinking_end", "contentIndex": 0, "contentSignature": "think-sig"}
    done = by_type["done"]
    assert (done["responseId"], done["responseModel"], done["providerThinkingLevel"]) == (
        "resp_9",
        "m-2026",
        "high",
    )
    proxy_done = proxy[-1]
    assert "responseId" not in proxy_done and "responseModel" not in proxy_done
    assert proxy_done["providerThinkingLevel"] == "high"


def test_an_error_without_its_text_and_a_bad_usage():
    builder = MessageBuilder(MODEL)
    decoder = EventDecoder(builder, source="proxy")
    decoder.feed({"type": "error", "reason": "error", "usage": {"input": 3}})
    assert builder.message.stop_reason == "error"
    assert builder.message.error_message == "the proxy reported an error"
    assert builder.message.usage.input == 3
    aborted = MessageBuilder(MODEL)
    EventDecoder(aborted).feed({"type": "error", "reason": "aborted", "errorMessage": "stop"})
    assert (aborted.message.stop_reason, aborted.message.error_message) == ("aborted", "stop")
    with pytest.raises(ProviderError) as caught:
        EventDecoder(MessageBuilder(MODEL), source="gw").feed(
            {"type": "done", "reason": "stop", "usage": {"input": "many"}}
        )
    assert str(caught.value).startswith("malformed gw event: bad usage: ")


def test_an_end_for_a_block_that_is_not_a_call_is_ignored():
    builder = MessageBuilder(MODEL)
    decoder = EventDecoder(builder)
    decoder.feed({"type": "text_start", "contentIndex": 0})
    assert decoder.feed({"type": "toolcall_end", "contentIndex": 0, "toolCall": {}}) == []
    assert decoder.feed({"type": "toolcall_end", "contentIndex": 5}) == []
    assert builder.open_keys == [0]  # the text block is still open


def test_a_server_block_that_does_not_validate_is_malformed():
    with pytest.raises(ProviderError) as caught:
        EventDecoder(MessageBuilder(MODEL), source="gw").feed(
            {"type": "servertool_result", "contentIndex": 0, "serverToolResult": {"kind": 1}}
        )
    assert str(caught.value).startswith("malformed gw event: bad servertool_result: ")


def test_a_whole_json_answer_is_refused_naming_the_server():
    with pytest.raises(ProviderError) as caught:
        EventDecoder(MessageBuilder(MODEL), source="pi-messages server").feed_document({})
    assert str(caught.value) == (
        "the pi-messages server answered with a JSON document instead of an event stream"
    )

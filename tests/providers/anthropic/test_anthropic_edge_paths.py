"""Anthropic paths the main suites leave out: the bearer-token client, an error response whose
body was never read, an SDK that hands back something other than a response, malformed and
unknown deltas, an error event without a message, the tool-loop thinking rule, which block
types are server tools, and blank thinking in a replayed turn."""

from __future__ import annotations

from typing import Any

import pytest
from _support.messages import reply
from pi_sdk_anthropic import _client
from pi_sdk_anthropic.messages._decode import Decoder, error_event_text
from pi_sdk_anthropic.messages._request import build_request
from pi_sdk_anthropic.messages._server_tools import is_server_block, server_block
from pi_sdk_anthropic.messages._tools import tool_loop_without_thinking

from pi_sdk import (
    ConfigurationError,
    Context,
    Model,
    ServerToolCall,
    ServerToolResult,
    StreamOptions,
    TextContent,
    ThinkingContent,
    UserMessage,
)
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(
    id="claude-unit",
    api="anthropic-messages",
    provider="anthropic",
    base_url="http://127.0.0.1:9/",
)

# --- the client ---------------------------------------------------------------------------------


@pytest.mark.parametrize("bearer", [True, False])
async def test_a_bearer_token_is_sent_as_auth_token_and_a_key_as_api_key(bearer: bool) -> None:
    async with await _client.client_lease(MODEL, "tok-123", bearer=bearer) as client:
        assert (client.auth_token, client.api_key) == (
            ("tok-123", None) if bearer else (None, "tok-123")
        )
        assert client.max_retries == 0
        assert str(client.base_url).startswith("http://127.0.0.1:9")


class _Unread:
    @property
    def text(self) -> str:
        raise RuntimeError("Attempted to access text, without having read the body")


class _Read:
    text = "plain body"


def test_the_text_of_an_unread_error_body_is_empty() -> None:
    read = _client._response_text  # pyright: ignore[reportPrivateUsage]
    assert read(_Unread()) == ""
    assert read(_Read()) == "plain body"


class _OddClient:
    async def post(self, *args: Any, **kwargs: Any) -> Any:
        return {"not": "a response"}


async def test_an_sdk_that_returns_no_http_response_is_a_type_error() -> None:
    with pytest.raises(TypeError) as refused:
        await _client.open_messages(_OddClient(), {}, {})
    assert str(refused.value) == "expected an httpx2.Response from the SDK, got dict"


# --- the decoder --------------------------------------------------------------------------------


def _decoder() -> Decoder:
    dec = Decoder(MessageBuilder(MODEL), Context(messages=[]), oauth=False)
    dec.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}})
    return dec


NOT_OPEN = (
    "malformed stream: content_block_delta for block 7, which is not open (no"
    " content_block_start before it, or already stopped)"
)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (
            {"type": "content_block_delta", "index": 0, "delta": "text"},
            "malformed content_block_delta event: 'delta' is not an object",
        ),
        (
            {"type": "content_block_delta", "index": 0, "delta": None},
            "malformed content_block_delta event: 'delta' is not an object",
        ),
        ({"type": "content_block_delta", "index": 7, "delta": "text"}, NOT_OPEN),
        ({"type": "content_block_delta", "index": 7, "delta": {"type": "future_delta"}}, NOT_OPEN),
        (
            {"type": "content_block_delta", "index": 7, "delta": {"type": "signature_delta"}},
            NOT_OPEN,
        ),
    ],
)
def test_a_malformed_or_orphan_delta_is_named(event: dict[str, Any], message: str) -> None:
    with pytest.raises(ProviderError) as refused:
        _decoder().feed(event)
    assert str(refused.value) == message


@pytest.mark.parametrize("kind", ["future_delta", "signature_delta", "citations_delta"])
def test_an_unknown_or_foreign_delta_of_an_open_block_is_ignored(kind: str) -> None:
    dec = _decoder()
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": kind, "signature": "s"}}
    assert dec.feed(event) == []
    assert [e.type for e in dec.feed(_text(0, "ok"))] == ["text_delta"]


def _text(index: int, text: str) -> dict[str, Any]:
    delta = {"type": "text_delta", "text": text}
    return {"type": "content_block_delta", "index": index, "delta": delta}


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (
            {"type": "error", "error": {"type": "overloaded_error"}},
            'stream error event: {"type": "error", "error": {"type": "overloaded_error"}}',
        ),
        ({"type": "error", "error": "ü"}, 'stream error event: {"type": "error", "error": "ü"}'),
        ({"type": "error", "error": {"message": "busy"}}, "error: busy"),
        ({"type": "error", "error": {"type": "", "message": "busy"}}, "error: busy"),
        ({"type": "error", "error": {"type": "api_error", "message": "x"}}, "api_error: x"),
        (
            {"type": "error", "error": {"message": ""}, "pad": "y" * 600},
            'stream error event: {"type": "error", "error": {"message": ""}, "pad": "'
            + "y" * (500 - 52),
        ),
    ],
)
def test_an_error_event_names_its_type_and_message_or_quotes_itself(
    data: dict[str, Any], text: str
) -> None:
    assert error_event_text(data) == text
    with pytest.raises(ProviderError) as refused:
        _decoder().feed(data)
    assert str(refused.value) == text


# --- the tool-loop rule -------------------------------------------------------------------------

RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}
THINKING_FIRST = {"role": "assistant", "content": [{"type": "thinking"}, {"type": "tool_use"}]}
REDACTED_FIRST = {"role": "assistant", "content": [{"type": "redacted_thinking"}]}
TOOL_FIRST = {"role": "assistant", "content": [{"type": "tool_use"}]}


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([TOOL_FIRST, RESULT], True),
        ([{"role": "user", "content": "go"}, TOOL_FIRST, RESULT], True),
        ([THINKING_FIRST, RESULT], False),
        ([REDACTED_FIRST, RESULT], False),
        ([RESULT], False),  # fewer than two messages
        ([TOOL_FIRST, {"role": "user", "content": "plain"}], False),  # not a list
        ([TOOL_FIRST, {"role": "user", "content": [{"type": "text", "text": "x"}]}], False),
        ([TOOL_FIRST, {**RESULT, "role": "assistant"}], False),  # last is not the user's
        ([{"role": "user", "content": [{"type": "tool_use"}]}, RESULT], False),
        ([{"role": "assistant", "content": []}, RESULT], False),
        ([{"role": "assistant", "content": "text"}, RESULT], False),
    ],
)
def test_a_tool_loop_continues_without_thinking_only_after_an_unthinking_turn(
    messages: list[dict[str, Any]], expected: bool
) -> None:
    assert tool_loop_without_thinking(messages) is expected


@pytest.mark.parametrize(
    ("kind", "server"),
    [
        ("server_tool_use", True),
        ("mcp_tool_use", True),
        ("mcp_tool_result", True),
        ("web_search_tool_result", True),
        ("code_execution_tool_result", True),
        ("tool_result", False),
        ("tool_use", False),
        ("text", False),
        (None, False),
        (7, False),
    ],
)
def test_which_block_types_are_server_tools(kind: Any, server: bool) -> None:
    assert is_server_block(kind) is server


# --- blank thinking in a replayed turn ----------------------------------------------------------


def test_blank_signed_thinking_is_left_out_and_the_rest_of_the_turn_is_kept() -> None:
    own = reply(
        MODEL,
        ThinkingContent(thinking="  \n", thinking_signature="sig"),
        TextContent(text="first"),
        ThinkingContent(thinking="", thinking_signature="sig2"),
        TextContent(text="second"),
    )
    body = build_request(
        MODEL,
        Context(messages=[UserMessage(content="go"), own, UserMessage(content="more")]),
        StreamOptions(),
    )
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
    }


# --- the document size limit --------------------------------------------------------------------

LIMIT = 32 * 1024 * 1024  # Anthropic PDF support: a request is at most 32 MB


def test_a_document_over_32_mib_is_refused_naming_the_limit() -> None:
    import base64

    from pi_sdk import DocumentContent

    size = LIMIT + 1
    data = base64.b64encode(b"%PDF-1.4\n" + b"\0" * (size - 9)).decode()
    document = DocumentContent(data=data, mime_type="application/pdf", name="big.pdf")
    context = Context(messages=[UserMessage(content=[TextContent(text="read"), document])])
    vision = MODEL.model_copy(update={"input": ["text", "image"]})
    with pytest.raises(ConfigurationError) as refused:
        build_request(vision, context, StreamOptions())
    assert str(refused.value).endswith(
        f"the document 'big.pdf' is {size} bytes; anthropic/claude-unit (anthropic-messages)"
        f" takes at most {LIMIT} bytes per document"
        " (Anthropic PDF support: a request is at most 32 MB)"
    )


# --- server blocks and whole answers ------------------------------------------------------------


def test_a_server_call_s_streamed_input_becomes_its_arguments() -> None:
    start = {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}}
    call = server_block(start, ['{"query": ', '"tides"}'])
    assert isinstance(call, ServerToolCall)
    assert (call.id, call.name, call.arguments) == ("srv_1", "web_search", {"query": "tides"})
    assert call.raw == {**start, "input": {"query": "tides"}}
    assert start["input"] == {}, "the start block is not changed"
    kept = server_block({"type": "mcp_tool_use", "id": "m", "name": "x", "input": {"a": 1}}, [])
    assert isinstance(kept, ServerToolCall) and kept.arguments == {"a": 1}
    odd = server_block({"type": "server_tool_use", "input": "text"}, [])
    assert isinstance(odd, ServerToolCall) and (odd.id, odd.name, odd.arguments) == ("", "", {})


@pytest.mark.parametrize("text", ["[1, 2]", "not json", '"a string"', "[" + "9, " * 150 + "9]"])
def test_a_server_call_s_input_that_is_not_one_object_is_named(text: str) -> None:
    start = {"type": "server_tool_use", "id": "srv_2", "name": "web_search", "input": {}}
    with pytest.raises(ProviderError) as refused:
        server_block(start, [text[:5], text[5:]])
    assert str(refused.value) == (
        "malformed stream: the input of server_tool_use 'srv_2' is not a JSON object:"
        f" {text[:200]!r}"
    )


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (
            {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
            "max_uses_exceeded",
        ),
        ({"type": "web_fetch_tool_error", "error_code": ""}, "web_fetch_tool_error"),
        (
            {"type": "code_execution_tool_result_error", "error_code": 5},
            "code_execution_tool_result_error",
        ),
        ({"type": "web_search_result"}, None),
        ({"type": 3}, None),
        ([{"type": "web_search_result", "url": "https://x"}], None),
        (None, None),
    ],
)
def test_a_server_result_names_its_error_code_or_type(content: Any, error: str | None) -> None:
    block = {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": content}
    result = server_block(block, [])
    assert isinstance(result, ServerToolResult)
    assert (result.tool_call_id, result.kind, result.error) == (
        "srv_1",
        "web_search_tool_result",
        error,
    )
    assert result.content == content and result.raw == block


def test_a_whole_answer_that_is_not_a_message_is_quoted_up_to_200_characters() -> None:
    document = {"type": "completion", "completion": "é" * 400}
    with pytest.raises(ProviderError) as refused:
        _decoder().feed_document(document)
    import json

    excerpt = json.dumps(document, ensure_ascii=False)[:200]
    assert len(excerpt) == 200
    assert str(refused.value) == f"unexpected JSON response (not a message): {excerpt!r}"


def test_the_resolved_compat_is_frozen_slotted_and_keyword_only() -> None:
    import dataclasses

    from pi_sdk_anthropic.messages._compat import AnthropicCompat, resolve_anthropic_compat

    compat = resolve_anthropic_compat(MODEL)
    with pytest.raises(dataclasses.FrozenInstanceError):
        compat.supports_temperature = False  # type: ignore[misc]
    assert not hasattr(compat, "__dict__")
    with pytest.raises(TypeError):
        AnthropicCompat(True)  # type: ignore[misc]
    assert AnthropicCompat(supports_temperature=False).supports_temperature is False


def test_a_whole_answer_s_tool_input_streams_as_its_own_characters() -> None:
    from pi_sdk_anthropic.messages._decode import message_as_events

    arguments = {"city": "Zürich", "note": "東京"}
    message = {
        "type": "message",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "weather", "input": arguments}],
        "stop_reason": "tool_use",
    }
    deltas = [e["delta"] for e in message_as_events(message) if e["type"] == "content_block_delta"]
    assert deltas == [
        {"type": "input_json_delta", "partial_json": '{"city": "Zürich", "note": "東京"}'}
    ]
    fresh = Decoder(MessageBuilder(MODEL), Context(messages=[]), oauth=False)
    events = fresh.feed_document(message)
    assert [e.delta for e in events if e.type == "toolcall_delta"] == [
        '{"city": "Zürich", "note": "東京"}'
    ]


# --- citations ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {
                "type": "char_location",
                "cited_text": "tides",
                "document_title": "Sea",
                "start_char_index": 0,
                "end_char_index": 5,
            },
            ("char_location", None, "Sea", "tides", 0, 5),
        ),
        (
            {"type": "web_search_result_location", "url": "https://a.example", "title": "A"},
            ("web_search_result_location", "https://a.example", "A", None, None, None),
        ),
        (
            {"title": "T", "document_title": "D", "start_char_index": True, "end_char_index": "5"},
            ("citation", None, "T", None, None, None),
        ),
        (
            {"type": 3, "url": 4, "title": None, "cited_text": 5, "start_char_index": 2.0},
            ("citation", None, None, None, None, None),
        ),
    ],
)
def test_a_citation_keeps_only_well_typed_fields(
    raw: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    from pi_sdk_anthropic.messages._citations import citation, citations_of

    made = citation(raw)
    assert (
        made.type,
        made.url,
        made.title,
        made.cited_text,
        made.start_index,
        made.end_index,
    ) == expected
    assert made.raw == raw
    listed = citations_of([raw, "not an object", None])
    assert listed is not None and [c.raw for c in listed] == [raw]


@pytest.mark.parametrize("value", [None, {}, "x", [], ["x", 1]])
def test_a_block_without_citation_objects_has_no_citations(value: Any) -> None:
    from pi_sdk_anthropic.messages._citations import citations_of

    assert citations_of(value) is None


# --- what a content_block_start carries ---------------------------------------------------------


def _started(block: dict[str, Any], *deltas: dict[str, Any]) -> Any:
    dec = Decoder(MessageBuilder(MODEL), Context(messages=[]), oauth=False)
    dec.feed({"type": "content_block_start", "index": 0, "content_block": block})
    for delta in deltas:
        dec.feed({"type": "content_block_delta", "index": 0, "delta": delta})
    dec.feed({"type": "content_block_stop", "index": 0})
    return dec._builder.message.content  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("block", "deltas", "expected"),
    [
        (
            {"type": "thinking", "thinking": "Hm", "signature": "c2ln"},
            [],
            ThinkingContent(thinking="Hm", thinking_signature="c2ln"),
        ),
        (
            {"type": "thinking", "thinking": "Hm", "signature": "c2"},
            [{"type": "signature_delta", "signature": "ln"}],
            ThinkingContent(thinking="Hm", thinking_signature="c2ln"),
        ),
        (
            {"type": "thinking", "thinking": "", "signature": ""},
            [{"type": "thinking_delta", "thinking": "Hm"}],
            ThinkingContent(thinking="Hm", thinking_signature=None),
        ),
        ({"type": "thinking"}, [], ThinkingContent(thinking="", thinking_signature=None)),
        ({"type": "text", "text": "Hi"}, [], TextContent(text="Hi")),
        (
            {"type": "text", "text": "Hi"},
            [{"type": "text_delta", "text": " there"}],
            TextContent(text="Hi there"),
        ),
    ],
)
def test_a_block_start_s_own_text_and_signature_are_kept(
    block: dict[str, Any], deltas: list[dict[str, Any]], expected: Any
) -> None:
    assert _started(block, *deltas) == [expected]


def test_a_redacted_block_start_keeps_its_data_as_the_signature() -> None:
    [block] = _started({"type": "redacted_thinking", "data": "b3BhcXVl"})
    assert isinstance(block, ThinkingContent)
    assert (block.redacted, block.thinking_signature) == (True, "b3BhcXVl")
    [block] = _started({"type": "redacted_thinking"})
    assert isinstance(block, ThinkingContent)
    assert (block.redacted, block.thinking_signature) == (True, "")


def test_a_tool_use_start_keeps_its_id_name_and_initial_input() -> None:
    [call] = _started({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}})
    assert (call.id, call.name, call.arguments) == ("toolu_1", "f", {"a": 1})
    [call] = _started(
        {"type": "tool_use"}, {"type": "input_json_delta", "partial_json": '{"b": 2}'}
    )
    assert (call.id, call.name, call.arguments) == ("", "", {"b": 2})


def test_the_compat_defaults_are_pi_ai_s_for_a_model_that_says_nothing() -> None:
    """``AnthropicCompat()`` is what a plain model off ``api.anthropic.com`` resolves to."""
    import dataclasses

    from pi_sdk_anthropic.messages._compat import AnthropicCompat, resolve_anthropic_compat

    expected = {
        "force_adaptive_thinking": None,
        "supports_eager_tool_input_streaming": True,
        "supports_long_cache_retention": True,
        "send_session_affinity_headers": False,
        "session_affinity_format": None,
        "supports_cache_control_on_tools": True,
        "supports_temperature": True,
        "allow_empty_signature": False,
        "supports_strict_tools": False,
        "supports_mid_convo_effort": False,
        "supports_mid_convo_system_messages": False,
        "supports_mid_convo_tool_changes": False,
        "supports_message_threads": False,
        "allowed_fallback_models": (),
    }
    assert dataclasses.asdict(AnthropicCompat()) == expected
    assert dataclasses.asdict(resolve_anthropic_compat(MODEL)) == expected

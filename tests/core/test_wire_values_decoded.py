"""The wire layer's rules on values decoded from JSON: equal to our literals, not the same object.

A message read back from a session file, a proxy's stream or pi-mono's JSON carries strings the
decoder made. Where such a string is compared with one of ours, these rows give the decoded
value, so a rule that tests identity (``is``) where it means equality fails here; the literals
of the other tests are interned and cannot show it.

Two kinds of field hold our own object whatever the input once validated, and the first test
pins that (the identity mutants of comparisons on a block's type are listed as equivalent on its
strength): a ``Literal`` field (``role``, a block's ``type``, ``stop_reason``) holds pydantic's
own literal object, and :func:`pi_sdk._wire.lean.compact` interns the identifier fields
(``api``, ``provider``, ``model``, ``name``, ``tool_name``, ``stop_reason``...). A value
assigned afterwards is the assigner's: the proxy client's decoder ends a reply with the server's
stop reason as decoded, the Chat Completions decoder sets a late tool name; rows below use those.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

import pi_sdk
from pi_sdk._kit.output_request import output_tool
from pi_sdk._wire.constrained_sampling import grammar_input_property, make_strict_json_schema
from pi_sdk._wire.invalid_arguments import invalid_arguments_text
from pi_sdk._wire.overflow import is_context_overflow, is_recoverable_length
from pi_sdk._wire.retry_policy import (
    PROVIDER_ERROR_DIAGNOSTIC,
    RetryPolicy,
    is_retryable_assistant_error,
    requested_retry_delay_ms,
)
from pi_sdk._wire.transcript import resolve_transcript_tools
from pi_sdk._wire.usage_limits import USAGE_LIMIT_DIAGNOSTIC
from pi_sdk._wire.validation import validate_arguments
from pi_sdk.errors import ToolArgumentsError
from pi_sdk.options import Output, parse_output
from pi_sdk.types import Message

USAGE = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _assistant_json(**fields: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": USAGE,
        "stopReason": "stop",
        "timestamp": 1,
        **fields,
    }


PI_MONO_HISTORY = [
    {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1},
    _assistant_json(
        content=[
            {"type": "thinking", "thinking": "hm", "thinkingSignature": "sig"},
            {"type": "text", "text": "ok"},
            {"type": "toolCall", "id": "c1", "name": "get_weather", "arguments": {}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ],
        stopReason="toolUse",
    ),
    {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "get_weather",
        "content": [{"type": "text", "text": "sunny"}],
        "isError": False,
        "timestamp": 2,
    },
]

OURS = {
    literal: literal
    for literal in (
        *("user", "assistant", "toolResult"),
        *("text", "thinking", "toolCall", "image"),
        *("toolUse", "anthropic", "get_weather"),
        *("stop", "length", "error", "aborted"),
    )
}
"""Our own string objects (literals of this module, interned as every identifier-like literal)."""

DECODERS = {
    "validate_json": lambda raw: TypeAdapter(Message).validate_json(raw),
    "validate_python": lambda raw: TypeAdapter(Message).validate_python(json.loads(raw)),
}


@pytest.mark.parametrize("decode", DECODERS.values(), ids=list(DECODERS))
@pytest.mark.parametrize("index", range(len(PI_MONO_HISTORY)))
def test_decoded_roles_block_types_and_identifiers_are_our_own_string_objects(
    decode: Any, index: int
) -> None:
    message = decode(json.dumps(PI_MONO_HISTORY[index]))
    assert message.role is OURS[message.role]
    for block in message.content:
        assert block.type is OURS[block.type]
    if isinstance(message, pi_sdk.AssistantMessage):
        assert message.stop_reason is OURS[message.stop_reason]
        assert message.provider is OURS[message.provider]
        assert message.content[2].name is OURS[message.content[2].name]
    if isinstance(message, pi_sdk.ToolResultMessage):
        assert message.tool_name is OURS[message.tool_name]


# --- the retry policy: diagnostics read back from JSON ------------------------------------------


def _failed_from_json(text: str, *diagnostics: dict[str, Any]) -> pi_sdk.AssistantMessage:
    raw = _assistant_json(stopReason="error", errorMessage=text, diagnostics=list(diagnostics))
    message = pi_sdk.AssistantMessage.model_validate_json(json.dumps(raw))
    ours = (PROVIDER_ERROR_DIAGNOSTIC, USAGE_LIMIT_DIAGNOSTIC)
    assert not any(d.type is o for d in message.diagnostics or () for o in ours)  # decoded
    return message


def _provider_error(**details: Any) -> dict[str, Any]:
    return {"type": "provider_error", "timestamp": 1, "details": details}


@pytest.mark.parametrize(
    ("diagnostic", "retryable"),
    [
        (_provider_error(retryable=False), False),
        (_provider_error(retryable=True), True),
        ({"type": "other", "timestamp": 1, "details": {"retryable": False}}, True),
    ],
)
def test_a_decoded_provider_error_decides_whether_to_retry(
    diagnostic: dict[str, Any], retryable: bool
) -> None:
    # "503 unavailable" alone is transient: only the provider_error diagnostic says otherwise.
    message = _failed_from_json("503 unavailable", diagnostic)
    assert is_retryable_assistant_error(message) is retryable
    assert RetryPolicy().should_retry(message) is retryable
    # a permanent text with a retryable diagnostic: the diagnostic decides too
    permanent = _failed_from_json("403 forbidden", _provider_error(retryable=True))
    assert is_retryable_assistant_error(permanent) is True


def test_the_wait_a_decoded_provider_error_asked_for() -> None:
    asked = _failed_from_json("429", _provider_error(retryAfterMs=2500))
    assert requested_retry_delay_ms(asked) == 2500.0
    assert RetryPolicy(base_delay_ms=100, jitter=0).delay_ms(1, asked) == 2500
    other = _failed_from_json(
        "429", {"type": "other", "timestamp": 1, "details": {"retryAfterMs": 5}}
    )
    assert requested_retry_delay_ms(other) is None


def test_a_decoded_usage_limit_end_is_never_retried() -> None:
    ended = _failed_from_json(
        "503 unavailable", {"type": "usage_limit", "timestamp": 1, "details": {"limit": "requests"}}
    )
    assert is_retryable_assistant_error(ended) is True  # the text alone would be retried
    assert RetryPolicy().should_retry(ended) is False


# --- tool arguments: an MCP server's schema and a model's arguments, both read from JSON ---------


def _decoded_schema(prop: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"a": prop}, "required": ["a"]}
    return json.loads(json.dumps(schema))


@pytest.mark.parametrize(
    ("prop", "value", "expected"),
    [
        ({"type": ["null", "string"]}, None, None),  # already a null: kept
        ({"type": ["boolean", "string"]}, True, True),  # already a boolean: kept
        ({"type": ["integer", "string"]}, 5, 5),
        ({"type": ["number", "string"]}, 2.5, 2.5),
        ({"type": "string"}, 5, "5"),
        ({"type": "number"}, "2.5", 2.5),
        ({"type": "integer"}, "7", 7),
        ({"type": "boolean"}, "true", True),
        ({"type": "boolean"}, "false", False),
        ({"type": "null"}, "", None),
        ({"type": "null"}, 0.0, None),  # a JSON 0.0 is a zero too
        ({"type": "null"}, False, None),
    ],
)
def test_decoded_arguments_are_coerced_for_a_decoded_schema(
    prop: dict[str, Any], value: Any, expected: Any
) -> None:
    arguments = json.loads(json.dumps({"a": value}))
    coerced = validate_arguments("t", _decoded_schema(prop), arguments)
    assert coerced == {"a": expected} and type(coerced["a"]) is type(expected)


@pytest.mark.parametrize(
    ("prop", "arguments", "line"),
    [
        ({"type": "integer"}, {"a": {"x": 1}}, "  - a: must be integer"),
        ({"type": "integer"}, {}, "  - a: must have required property 'a'"),
    ],
)
def test_a_decoded_schema_s_failures_are_worded_as_pi_mono_words_them(
    prop: dict[str, Any], arguments: dict[str, Any], line: str
) -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", _decoded_schema(prop), json.loads(json.dumps(arguments)))
    received = json.dumps(arguments, indent=2)
    assert str(caught.value) == (
        f'Validation failed for tool "t":\n{line}\n\nReceived arguments:\n{received}'
    )


# --- schemas read from a file, and a forced answer's name set by a decoder ----------------------


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_a_decoded_schema_is_made_strict_as_its_literal_is() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "object"}}}
    assert make_strict_json_schema(_json(schema)) == {
        "type": "object",
        "properties": {
            "a": {
                "anyOf": [
                    {"type": "object", "required": [], "additionalProperties": False},
                    {"type": "null"},
                ]
            }
        },
        "required": ["a"],
        "additionalProperties": False,
    }


def test_a_decoded_grammar_schema_names_its_one_string_property() -> None:
    schema = {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}}
    assert grammar_input_property(_json(schema)) == "code"


def test_a_decoded_output_schema_is_closed_and_asked_for_with_the_forced_tool() -> None:
    schema = {"type": "object", "properties": {"bare": {"type": "object"}}, "required": ["bare"]}
    spec = Output(_json(schema))
    assert spec.strict_schema == {
        "type": "object",
        "properties": {"bare": {"type": "object", "additionalProperties": False}},
        "required": ["bare"],
        "additionalProperties": False,
    }
    tool = output_tool(spec)
    assert (tool.name, tool.parameters) == ("final_answer", spec.wire_schema)


def test_a_forced_answer_whose_name_a_decoder_set_is_the_answer() -> None:
    # The Chat Completions decoder sets a call's name when a later chunk brings it.
    call = pi_sdk.ToolCall(id="c1", name="", arguments={"x": 1})
    call.name = _json("final_answer")
    message = pi_sdk.AssistantMessage.model_validate_json(json.dumps(_assistant_json()))
    message.content = [call]
    result = parse_output(message, {"type": "object"})
    assert (result.value, result.raw, result.error) == ({"x": 1}, '{"x": 1}', None)


# --- stop reasons a decoder assigned as the server sent them ------------------------------------
# The proxy client's decoder (pi_sdk._serve.decoder) ends a reply with the server's ``reason``
# as decoded: until the finished message is made lean, its stop_reason is that decoded string.


def _ended(reason: str, **fields: Any) -> pi_sdk.AssistantMessage:
    message = pi_sdk.AssistantMessage.model_validate_json(json.dumps(_assistant_json(**fields)))
    message.stop_reason = _json(reason)
    assert message.stop_reason is not OURS.get(reason, reason)  # decoded, not ours
    return message


def test_a_decoded_length_stop_explains_a_cut_answer_and_a_cut_call() -> None:
    cut = _ended("length", content=[{"type": "text", "text": '{"x": 1'}])
    assert parse_output(cut, {"type": "object"}).error == (
        "the reply stopped at max tokens before the answer was complete (not valid JSON:"
        " Expecting ',' delimiter: line 1 column 8 (char 7); received: {\"x\": 1)"
    )
    call = pi_sdk.ToolCall(id="c1", name="f", arguments={}, invalid_arguments='{"a": ')
    assert invalid_arguments_text(call, cut) == (
        "arguments were cut off: the reply stopped at max tokens before the call was complete"
    )


def test_a_decoded_failure_is_raised_and_retried() -> None:
    failed = _ended("error", errorMessage="503 unavailable")
    assert is_retryable_assistant_error(failed) is True
    assert RetryPolicy().should_retry(failed) is True
    with pytest.raises(pi_sdk.AssistantError) as raised:
        failed.raise_for_error()
    assert type(raised.value) is pi_sdk.AssistantError
    with pytest.raises(pi_sdk.AbortedError):
        _ended("aborted", errorMessage="aborted").raise_for_error()


def test_a_decoded_stop_reason_is_read_for_an_overflow() -> None:
    said = _ended("error", errorMessage="prompt is too long: 300000 tokens > 200000 maximum")
    assert is_context_overflow(said) is True
    usage = {**USAGE, "input": 1000}
    assert is_context_overflow(_ended("stop", usage=usage), 999) is True  # silent overflow
    assert is_context_overflow(_ended("length", usage=usage), 1000) is True  # truncated input
    assert is_recoverable_length(_ended("length", usage=usage), 10) is True


# --- a tool-support setting a provider read from its configuration -----------------------------


@pytest.mark.parametrize(
    ("support", "names", "folded"),
    [("none", ["a", "b"], 2), ("changes", [], 0), ("additions", ["a"], 1)],
)
def test_a_tool_support_read_at_run_time_resolves_like_its_literal(
    support: str, names: list[str], folded: int
) -> None:
    transcript = TypeAdapter(list[Message]).validate_json(
        json.dumps(
            [
                {
                    "role": "system",
                    "content": "Lead.",
                    "toolsAdded": [{"name": "a"}],
                    "timestamp": 1,
                },
                {"role": "user", "content": "hi", "timestamp": 2},
                {"role": "system", "content": "", "toolsAdded": [{"name": "b"}], "timestamp": 3},
            ]
        )
    )
    tools, count = resolve_transcript_tools(transcript, "".join(list(support)))
    assert ([t.name for t in tools], count) == (names, folded)

"""Bedrock exception frames, stop reasons and usage, every case (Bedrock Runtime API reference).

``exception_error``: ``"<exceptionType>: <message>"`` (``message`` or ``Message``, else ``(no
message)``; a payload that is not JSON is its text, cut at 300 characters), with
``originalStatusCode`` / ``originalMessage`` appended when present, retryable exactly for the
transient exceptions AWS documents (throttling, service unavailable, internal server, model
stream error, model not ready). Stop reasons map as pi-mono's ``mapStopReason``; the error ones
say why in words. Usage: the four token counts (non-integers read as 0) and the one-hour cache
writes summed from ``cacheDetails``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_bedrock.converse._exceptions import exception_error
from pi_sdk_bedrock.converse._stop_reasons import map_stop_reason, stop_error_text
from pi_sdk_bedrock.converse._usage import apply_usage

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder


@pytest.mark.parametrize(
    ("name", "retryable"),
    [
        ("throttlingException", True),
        ("serviceUnavailableException", True),
        ("internalServerException", True),
        ("modelStreamErrorException", True),
        ("modelNotReadyException", True),
        ("validationException", False),
        ("accessDeniedException", False),
        ("modelTimeoutException", False),
        ("ThrottlingException", False),  # the frame names are camelCase
        ("", False),
    ],
)
def test_retryable_exactly_for_the_transient_exceptions(name: str, retryable: bool) -> None:
    assert exception_error(name, b'{"message": "m"}').retryable is retryable


@pytest.mark.parametrize(
    ("name", "payload", "text"),
    [
        ("throttlingException", {"message": "slow"}, "throttlingException: slow"),
        ("throttlingException", {"Message": "Slow"}, "throttlingException: Slow"),
        ("throttlingException", {"message": "", "Message": "Slow"}, "throttlingException: Slow"),
        ("throttlingException", {}, "throttlingException: (no message)"),
        ("", {"message": "x"}, "exception: x"),
        (
            "modelStreamErrorException",
            {"message": "boom", "originalStatusCode": 429},
            "modelStreamErrorException: boom (originalStatusCode=429)",
        ),
        (
            "modelStreamErrorException",
            {"message": "boom", "originalMessage": "upstream"},
            "modelStreamErrorException: boom (originalMessage=upstream)",
        ),
        (
            "modelStreamErrorException",
            {"message": "boom", "originalStatusCode": 0, "originalMessage": ""},
            "modelStreamErrorException: boom",
        ),
        ("throttlingException", ["not", "an", "object"], "throttlingException: (no message)"),
    ],
)
def test_exception_texts(name: str, payload: Any, text: str) -> None:
    assert str(exception_error(name, json.dumps(payload).encode())) == text


def test_a_payload_that_is_not_json_is_its_text_cut_short() -> None:
    error = exception_error("internalServerException", b"<html>" + b"x" * 400)
    assert str(error) == "internalServerException: <html>" + "x" * 294


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("tool_use", "toolUse"),
        ("guardrail_intervened", None),
        ("content_filtered", None),
        ("malformed_model_output", None),
        ("malformed_tool_use", None),
        ("new_reason", None),
    ],
)
def test_stop_reasons(reason: str, stop: str | None) -> None:
    assert map_stop_reason(reason) == stop


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        ("guardrail_intervened", "The response was blocked by an Amazon Bedrock guardrail"),
        ("content_filtered", "The response was blocked by the model's content filter"),
        ("malformed_model_output", "The model returned output Bedrock could not parse"),
        ("malformed_tool_use", "The model returned a malformed tool call"),
    ],
)
def test_error_stop_reasons_say_why(reason: str, text: str) -> None:
    assert stop_error_text(reason) == f"{text} (stopReason: {reason})"
    assert stop_error_text("brand_new") == "Unhandled stop reason: brand_new"


def _usage(usage: dict[str, Any]) -> Any:
    builder = MessageBuilder(
        Model(id="m", api="bedrock-converse-stream", provider="amazon-bedrock")
    )
    builder.start()
    apply_usage(builder, usage)
    return builder.message.usage


def test_usage_counts() -> None:
    usage = _usage(
        {
            "inputTokens": 11,
            "outputTokens": 7,
            "cacheReadInputTokens": 5,
            "cacheWriteInputTokens": 3,
        }
    )
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (11, 7, 5, 3)
    assert usage.cache_write_1h is None  # no cacheDetails: not reported


@pytest.mark.parametrize("bad", [None, "11", 1.5, True])
def test_usage_counts_that_are_not_integers_read_as_zero(bad: Any) -> None:
    usage = _usage({"inputTokens": bad, "outputTokens": bad, "cacheReadInputTokens": bad})
    assert (usage.input, usage.output, usage.cache_read) == (0, 0, 0)


@pytest.mark.parametrize(
    ("details", "one_hour"),
    [
        (
            [
                {"ttl": "1h", "inputTokens": 4},
                {"ttl": "5m", "inputTokens": 2},
                {"ttl": "1h", "inputTokens": 3},
            ],
            7,
        ),
        ([{"ttl": "5m", "inputTokens": 2}], 0),
        ([], 0),
        (["x", {"ttl": "1h", "inputTokens": "9"}, {"ttl": "1h", "inputTokens": 1}], 1),
    ],
)
def test_one_hour_cache_writes_are_summed_from_cache_details(
    details: list[Any], one_hour: int
) -> None:
    usage = _usage({"cacheWriteInputTokens": 9, "cacheDetails": details})
    assert usage.cache_write == 9
    assert usage.cache_write_1h == one_hour

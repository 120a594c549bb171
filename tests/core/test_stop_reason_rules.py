"""Each stop reason is read as itself, never as its neighbour in sort order.

The rules that look at ``stop_reason`` (overflow, a cut call's or answer's text, retries,
``raise_for_error``) are checked here with every one of the seven reasons on the same message,
so a comparison that would take in the reasons sorting before or after the one it names
(``"aborted"`` and ``"deferred"`` sort before ``"error"``) fails a row.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

import pi_sdk
from pi_sdk._wire.invalid_arguments import invalid_arguments_text
from pi_sdk._wire.overflow import is_context_overflow, is_recoverable_length
from pi_sdk._wire.retry_policy import RetryPolicy, is_retryable_assistant_error
from pi_sdk.options import parse_output
from pi_sdk.types import StopReason

REASONS: tuple[str, ...] = get_args(StopReason)
OVERFLOW_TEXT = "prompt is too long: 300000 tokens > 200000 maximum"


def _ended(reason: str, text: str, **fields: Any) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        api="a",
        provider="p",
        model="m",
        stop_reason=reason,  # pyright: ignore[reportArgumentType]
        error_message=text,
        usage=pi_sdk.Usage(input=1000),
        **fields,
    )


def test_all_seven_reasons_are_in_the_table() -> None:
    assert sorted(REASONS) == sorted(
        ["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]
    )


@pytest.mark.parametrize("reason", REASONS)
def test_only_an_error_a_stop_and_a_length_can_be_an_overflow(reason: str) -> None:
    message = _ended(reason, OVERFLOW_TEXT)
    assert is_context_overflow(message, 999) is (reason in ("error", "stop", "length"))
    assert is_context_overflow(message) is (reason == "error")  # no window: the text alone
    assert is_recoverable_length(message, 10) is (reason == "length")


@pytest.mark.parametrize("reason", REASONS)
def test_only_a_length_stop_cuts_a_call_or_an_answer(reason: str) -> None:
    call = pi_sdk.ToolCall(id="c1", name="f", arguments={}, invalid_arguments="{")
    message = _ended(reason, "", content=[pi_sdk.TextContent(text='{"x": 1')])
    text = invalid_arguments_text(call, message)
    if reason == "length":
        assert text == (
            "arguments were cut off: the reply stopped at max tokens before the call was complete"
        )
    else:
        assert text == (
            "arguments were not valid JSON: Expecting property name enclosed in double quotes:"
            " line 1 column 2 (char 1); received: {"
        )
    error = parse_output(message, {"type": "object"}).error
    parse = "not valid JSON: Expecting ',' delimiter: line 1 column 8 (char 7); received: {\"x\": 1"
    expected = {
        "length": f"the reply stopped at max tokens before the answer was complete ({parse})",
        "error": "the reply ended with error: error",
        "aborted": "the reply ended with aborted: aborted",
    }.get(reason, parse)
    assert error == expected


@pytest.mark.parametrize("reason", REASONS)
def test_only_an_error_is_retried_and_raised_as_an_error(reason: str) -> None:
    message = _ended(reason, "503 unavailable")
    assert is_retryable_assistant_error(message) is (reason == "error")
    assert RetryPolicy().should_retry(message) is (reason == "error")
    always = RetryPolicy(retry_on=lambda _: True)  # the policy's own check comes first
    assert always.should_retry(message) is (reason == "error")
    if reason in ("error", "aborted"):
        with pytest.raises(pi_sdk.AssistantError) as raised:
            message.raise_for_error()
        kind = pi_sdk.AbortedError if reason == "aborted" else pi_sdk.AssistantError
        assert type(raised.value) is kind
    else:
        assert message.raise_for_error() is message

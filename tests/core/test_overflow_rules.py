"""The rules of ``is_context_overflow`` (pi-ai 0.73.1 ``isContextOverflow``): error texts,
their exclusions, and the two silent cases. Real vendor bodies through the adapters are in
tests/providers/test_context_overflow.py."""

from __future__ import annotations

import pytest

import pi_sdk
from pi_sdk import AssistantMessage, Usage, is_context_overflow
from pi_sdk._wire.overflow import OVERFLOW_NOTE, is_overflow_text
from pi_sdk.provider import http_error_message


def _reply(stop_reason: str, error: str | None = None, **usage: int) -> AssistantMessage:
    return AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="m",
        stop_reason=stop_reason,  # type: ignore[arg-type]
        error_message=error,
        usage=Usage(**usage),
    )


def test_it_is_public():
    assert pi_sdk.is_context_overflow is is_context_overflow
    assert "is_context_overflow" in pi_sdk.__all__


@pytest.mark.parametrize(
    "text",
    [
        "LM Studio: tokens to keep from the initial prompt is greater than the context length",
        "GitHub Copilot: prompt token count of 130000 exceeds the limit of 128000",
        "invalid params, context window exceeds limit",  # MiniMax
        "Your request exceeded model token limit: 262144 (requested: 300000)",  # Kimi
        "prompt too long; exceeded max context length by 1200 tokens",  # Ollama
        "finish_reason: model_context_window_exceeded",  # z.ai
        "400 status code (no body)",  # Cerebras, as the OpenAI SDK words it
        "token limit exceeded",
    ],
)
def test_other_vendors_overflow_texts(text: str):
    assert is_context_overflow(_reply("error", text))


@pytest.mark.parametrize(
    "text",
    [
        "throttlingException: Too many tokens, please wait before trying again.",  # stream frame
        "Throttling error: Too many tokens, please wait before trying again.",  # pi-ai's text
        "Service unavailable: too many tokens in flight",
        "429 Too Many Requests: too many tokens",
        "rate limit: context_length_exceeded budget",
        "400 Bad Request: Invalid 'temperature': decimal below minimum value",
        "Request was aborted",
        "connection closed early: ReadError",
    ],
)
def test_rate_limits_throttling_and_other_errors_are_not_overflows(text: str):
    assert not is_context_overflow(_reply("error", text), 200_000)


def test_an_overflow_text_on_a_successful_reply_is_not_an_overflow():
    assert not is_context_overflow(_reply("stop", "prompt is too long"))
    assert not is_context_overflow(_reply("error", None))


def test_silent_overflow_input_over_the_window():
    over = _reply("stop", input=150_000, cache_read=60_000)
    assert is_context_overflow(over, 200_000)
    assert not is_context_overflow(over)  # no window: only error texts count
    assert not is_context_overflow(_reply("stop", input=120_000, cache_read=80_000), 200_000)
    assert not is_context_overflow(_reply("toolUse", input=300_000), 200_000)


def test_truncated_input_full_window_and_no_output():
    assert is_context_overflow(_reply("length", input=198_000, output=0), 200_000)
    assert not is_context_overflow(_reply("length", input=198_000, output=5), 200_000)
    assert not is_context_overflow(_reply("length", input=150_000, output=0), 200_000)


def test_http_error_message_says_an_overflow_is_one_and_nothing_else_is():
    text = http_error_message(
        400, code="invalid_request_error", message="prompt is too long: 9 > 8"
    )
    assert text == (
        f"400 Bad Request: invalid_request_error: prompt is too long: 9 > 8 ({OVERFLOW_NOTE})"
    )
    assert is_overflow_text(text)
    plain = http_error_message(429, code="rate_limit_error", message="too many tokens per minute")
    assert OVERFLOW_NOTE not in plain
    assert OVERFLOW_NOTE not in http_error_message(404, message="model not found")

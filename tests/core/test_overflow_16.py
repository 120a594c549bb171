"""Context overflow and recoverable length stops, against pi-ai 1.6 (issue 27, item 3).

pi-ai 1.6 has 30 overflow patterns (0.73 had 23) and ``isRecoverableLength``. Each vendor text
below is the example pi-ai's ``utils/overflow.ts`` documents for its pattern; the same messages go
through pi-ai's own ``isContextOverflow`` / ``isRecoverableLength`` under Node 22
(``tests/node/pi16_overflow.mjs``) and the answers must agree, but where pi-sdk deliberately
says more (:data:`PI_SDK_ONLY`).
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.node22 import needs_pi16, run_mjs

from pi_sdk import AssistantMessage, Usage, is_context_overflow
from pi_sdk.agent import is_recoverable_length

TEXTS = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    '413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
    "Your input exceeds the context window of this model",
    "Requested token count exceeds the model's maximum context length of 131072 tokens",
    "litellm.ContextWindowExceededError: blah. Context Window exceeded for given call.",
    "Input length (265330) exceeds model's maximum context length (262144).",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
    "Please reduce the length of the messages or completion",
    "This endpoint's maximum context length is 200000 tokens. However, you requested about 1",
    "Input length 300000 exceeds the maximum allowed input length of 262144 tokens.",
    "The input (300000 tokens) is longer than the model's context length (262144 tokens).",
    "the request exceeds the available context size, try increasing it",
    "tokens to keep from the initial prompt is greater than the context length",
    "prompt token count of 200000 exceeds the limit of 128000",
    'github-copilot API error (413): {"message":"failed to parse request","code":""}',
    "invalid params, context window exceeds limit",
    "Your request exceeded model token limit: 262144 (requested: 300000)",
    "Prompt has 140,000 tokens, but the configured context size is 131,072 tokens",
    "Prompt contains 300000 tokens, too large for model with 262144 maximum context length",
    '{"code":"1261","message":"Prompt too long"}',
    '{"code":"1261","message":"Prompt exceeds max length"}',
    "Range of input length should be [1, 129024]",
    "prompt too long; exceeded max context length by 100 tokens",
    "model_context_window_exceeded",
    "context_length_exceeded",
    "too many tokens",
    "token limit exceeded",
    "413 Request Entity Too Large",
    # look-alikes that are not overflows
    "ThrottlingException: Too many tokens, please wait before trying again.",
    "Throttling error: Too many tokens, please wait before trying again.",
    "429 rate limit reached: too many tokens per minute",
    "Too many requests",
    "Bad gateway",
    "400 the request mentions 413 somewhere",
]
PI_SDK_ONLY = {"400 status code (no body)"}
"""pi-sdk reads a body-less 400/413 as an overflow on every provider (pi-ai: Cerebras only)."""
NOT_OVERFLOW_HERE = {"ThrottlingException: Too many tokens, please wait before trying again."}
"""Bedrock's raw throttling frame: pi-ai 1.6 calls it an overflow ("too many tokens"), pi-sdk
does not (docs/pi-ai-differences.md): it is a rate limit."""


def _message(stop: str, error: str | None = None, **usage: int) -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions",
        provider="example",
        model="m",
        stop_reason=stop,  # type: ignore[arg-type]
        error_message=error,
        usage=Usage(**usage),  # type: ignore[arg-type]
    )


def _cases() -> list[tuple[AssistantMessage, int | None, int]]:
    cases: list[tuple[AssistantMessage, int | None, int]] = [
        (_message("error", text), None, 0) for text in TEXTS
    ]
    cases += [
        (_message("stop", input=210_000), 200_000, 0),  # z.ai silent overflow
        (_message("stop", input=190_000), 200_000, 0),
        (_message("length", input=199_000, output=0), 200_000, 0),  # MiMo truncation
        (_message("length", output=500), None, 8000),  # recoverable: cut below the cap
        (_message("length", output=8000), None, 8000),
        (_message("stop", output=10), None, 8000),
        (_message("length", output=10), None, 0),
    ]
    return cases


@needs_pi16
def test_pi_ai_16_and_pi_sdk_agree() -> None:
    cases = _cases()
    payload: list[dict[str, Any]] = [
        {
            "message": m.model_dump(mode="json", by_alias=True, exclude_none=True),
            "contextWindow": window,
            "desired": desired,
        }
        for m, window, desired in cases
    ]
    theirs = run_mjs("pi16_overflow.mjs", stdin={"cases": payload})
    for (message, window, desired), answer in zip(cases, theirs, strict=True):
        what = message.error_message or message.stop_reason
        if what in NOT_OVERFLOW_HERE:
            assert answer["overflow"] and not is_context_overflow(message, window)
            continue
        assert is_context_overflow(message, window) is answer["overflow"], what
        assert is_recoverable_length(message, desired) is answer["recoverable"], what


@pytest.mark.parametrize("text", sorted(PI_SDK_ONLY))
def test_pi_sdk_reads_a_bodyless_400_as_an_overflow(text: str) -> None:
    assert is_context_overflow(_message("error", text))


def test_the_new_pi_ai_16_patterns_are_overflows() -> None:
    new = [TEXTS[i] for i in (3, 4, 5, 10, 11, 18, 20, 21, 22)]
    assert all(is_context_overflow(_message("error", text)) for text in new)


def test_recoverable_length() -> None:
    assert is_recoverable_length(_message("length", output=100), 4096)
    assert not is_recoverable_length(_message("length", output=4096), 4096)
    assert not is_recoverable_length(_message("stop", output=1), 4096)
    assert not is_recoverable_length(_message("length", output=1), 0)

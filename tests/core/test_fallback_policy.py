"""How a failed reply is classified for fallback, and what a policy moves on from (issue 28.2)."""

from __future__ import annotations

import pytest

import pi_sdk
from pi_sdk._models.fallback import FallbackPolicy, classify_failure
from pi_sdk.provider import ProviderError


def _failed(text: str, *, raw: str | None = None, stop: str = "error") -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        stop_reason=stop,  # pyright: ignore[reportArgumentType]
        error_message=text,
        raw_stop_reason=raw,
    )


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, "auth"),
        (403, "auth"),
        (400, "bad_request"),
        (404, "bad_request"),
        (422, "bad_request"),
        (499, "bad_request"),  # the last status below the 5xx rule
        (429, "rate_limit"),
        (503, "overloaded"),
        (529, "overloaded"),
        (500, "server"),
        (502, "server"),
    ],
)
def test_http_statuses(status: int, kind: str) -> None:
    error = ProviderError(f"{status} Some Reason: vendor words", status=status)
    assert classify_failure(_failed(str(error)), error) == kind
    # the same text without the exception object: read from the words
    assert classify_failure(_failed(str(error)), None) == kind


def test_connections_overflow_refusals_and_the_rest() -> None:
    lost = ProviderError("connection lost while reading the response: ReadError", retryable=True)
    assert classify_failure(_failed(str(lost)), lost) == "connection"
    cut = ProviderError("the response stream ended before message_stop", incomplete=True)
    assert classify_failure(_failed(str(cut)), cut) == "connection"
    overflow = "400 Bad Request: invalid_request_error: prompt is too long: 213462 tokens > 200000"
    assert classify_failure(_failed(overflow), None) == "overflow"
    assert classify_failure(_failed("overloaded_error: Overloaded"), None) == "overloaded"
    refused = "The model refused to respond (stop_reason: refusal)"
    assert classify_failure(_failed(refused, raw="refusal"), None) == "refusal"
    assert classify_failure(_failed("filtered", raw="content_filter"), None) == "refusal"
    assert classify_failure(_failed("Request was aborted", stop="aborted"), None) == "aborted"
    no_key = pi_sdk.ConfigurationError("No API key for provider 'openai'")
    assert classify_failure(_failed(str(no_key)), no_key) == "other"
    # a 429 that reads like "too many tokens" is a rate limit, not an overflow
    limited = "429 Too Many Requests: rate_limit_error: too many tokens, please wait"
    assert classify_failure(_failed(limited), None) == "rate_limit"


def test_what_a_policy_moves_on_from() -> None:
    model = pi_sdk.get_model("openai", "gpt-4o-mini")
    policy = FallbackPolicy([model])
    moves = {k for k in ("connection", "rate_limit", "overloaded", "server", "overflow")}
    assert {
        k for k in (*moves, "refusal", "auth", "bad_request", "other") if policy.moves_on(k)
    } == moves  # noqa: E501
    assert FallbackPolicy([model], refusals=True).moves_on("refusal")
    narrow = FallbackPolicy([model], move_on={"overloaded"})
    assert narrow.moves_on("overloaded") and not narrow.moves_on("rate_limit")
    assert repr(policy) == "FallbackPolicy([openai/gpt-4o-mini], after_content='error')"
    with pytest.raises(ValueError, match="unknown failure kinds"):
        FallbackPolicy([model], move_on={"sometimes"})
    with pytest.raises(ValueError, match="at least one"):
        FallbackPolicy([])
    with pytest.raises(ValueError, match="after_content"):
        FallbackPolicy([model], after_content="retry")  # pyright: ignore[reportArgumentType]


def test_sticky_chains_start_at_the_last_model_that_answered() -> None:
    first = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    second = pi_sdk.get_model("openai", "gpt-4o-mini")
    models = pi_sdk.default_models()
    sticky = FallbackPolicy([second], sticky=True)
    chain = sticky.chain(first, collection=models)
    assert [e.model.id for e in chain] == ["claude-sonnet-4-5", "gpt-4o-mini"]
    sticky.answered(chain[0], chain[1])
    assert [e.model.id for e in sticky.chain(first, collection=models)] == ["gpt-4o-mini"]
    plain = FallbackPolicy([second])
    plain.answered(chain[0], chain[1])
    assert len(plain.chain(first, collection=models)) == 2


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("429: slow down", "rate_limit"),  # a colon after the status
        ("429:", "rate_limit"),  # four characters: the shortest status text
        ("429", "other"),  # a bare number is no status text
        ("429x Too Many", "other"),  # the status must end at a space or colon
        ("4290 Too Many", "other"),
        ("400 invalid_request_error: bad field", "bad_request"),  # the first and last read
        ("599 Network Timeout", "server"),
        ("399 Odd", "other"),  # outside 400..599: no status
        ("600 Odd", "other"),
        ("HTTP 500 Internal", "other"),  # the status must lead
        ("Server OVERLOADED, try later", "overloaded"),  # the words, in any case
        ("The model REFUSED the request", "refusal"),
    ],
)
def test_an_error_text_is_read_for_a_leading_http_status(text: str, kind: str) -> None:
    assert classify_failure(_failed(text), None) == kind


@pytest.mark.parametrize("raw", ["sensitive", "SAFETY", "PROHIBITED_CONTENT", "RECITATION"])
def test_every_vendor_refusal_stop_is_a_refusal(raw: str) -> None:
    assert classify_failure(_failed("blocked", raw=raw), None) == "refusal"


def test_the_exception_status_wins_over_the_words() -> None:
    error = ProviderError("Bad gateway from the upstream", status=502)
    assert classify_failure(_failed(str(error)), error) == "server"
    error = ProviderError("500 words say server", status=429)
    assert classify_failure(_failed(str(error)), error) == "rate_limit"
    plain = ProviderError("something odd", retryable=False, incomplete=False)
    assert classify_failure(_failed(str(plain)), plain) == "other"


def test_a_silent_overflow_is_told_by_the_models_context_window() -> None:
    model = pi_sdk.get_model("openai", "gpt-4o-mini")
    silent = _failed("", stop="stop")
    silent.usage = pi_sdk.Usage(input=model.context_window + 1)
    assert classify_failure(silent, None, model) == "overflow"
    assert classify_failure(silent, None) == "other"  # without the model: not told

"""One retry policy for every provider: ``ProviderError.from_http`` and ``retry_after_ms``.

The core owns retry classification (408/409/429/5xx, ``x-should-retry``) and the parsing of
``retry-after-ms`` / ``retry-after``; each provider only builds its error text. The last tests run
the same HTTP errors through every installed adapter to check they all use it.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

import httpx2
import pytest
from _support.conformance import CLIENT_FACTORIES, ChunkedTransport, Reply, collect

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage
from pi_sdk.provider import ProviderError, retry_after_ms

# --- retry_after_ms ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500"}, 1500.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1500.0),  # the ms header wins
        ({"retry-after": "2"}, 2000.0),
        ({"retry-after": "0.25"}, 250.0),
        ({"Retry-After": "3"}, 3000.0),  # names are case-insensitive in a plain dict
        ({"retry-after-ms": "-5"}, 0.0),
        ({"retry-after": "-1"}, 0.0),
        ({"retry-after-ms": "soon", "retry-after": "4"}, 4000.0),  # bad ms value: fall back
        ({"retry-after-ms": "inf"}, None),  # never "wait forever"
        ({"retry-after": "nan"}, None),
        ({"retry-after": "tomorrow"}, None),
        ({"retry-after": ""}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_ms(headers: dict[str, str] | None, expected: float | None) -> None:
    assert retry_after_ms(headers) == expected


def test_retry_after_http_date() -> None:
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    wait = retry_after_ms({"retry-after": future})
    assert wait is not None and 28_000 <= wait <= 31_000
    past = email.utils.formatdate(time.time() - 3600, usegmt=True)
    assert retry_after_ms({"retry-after": past}) == 0.0
    # "-0000" parses to a naive datetime: still read as GMT, not local time
    naive = email.utils.formatdate(time.time() + 30).rsplit(" ", 1)[0] + " -0000"
    wait = retry_after_ms({"retry-after": naive})
    assert wait is not None and 28_000 <= wait <= 31_000


_NOW = 1_796_558_400.0  # Sun, 06 Dec 2026 12:00:00 GMT


@pytest.mark.parametrize(
    "date",
    [
        "Sun, 06 Dec 2026 12:00:30 GMT",
        "Sun, 06 Dec 2026 12:00:30 UT",
        "Sun, 06 Dec 2026 12:00:30 +0000",
        "Sun, 06 Dec 2026 12:00:30 -0000",  # naive after parsing: still GMT, not local time
        "Sun, 06 Dec 2026 13:00:30 +0100",  # an offset is honoured, not replaced by GMT
        "Sun, 06 Dec 2026 07:00:30 -0500",
    ],
)
def test_retry_after_http_date_zones(monkeypatch: pytest.MonkeyPatch, date: str) -> None:
    monkeypatch.setattr(time, "time", lambda: _NOW)
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # local time is not GMT here
    time.tzset()
    try:
        assert retry_after_ms({"retry-after": date}) == 30_000.0
    finally:
        monkeypatch.undo()
        time.tzset()


def test_retry_after_reads_httpx_headers() -> None:
    headers = httpx2.Headers({"Retry-After-Ms": "12"})
    assert retry_after_ms(headers) == 12.0


# --- ProviderError.from_http ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(400, False), (401, False), (403, False), (404, False), (407, False), (408, True),
     (409, True), (410, False), (413, False), (422, False), (428, False), (429, True),
     (430, False), (499, False), (500, True), (502, True), (503, True), (529, True)],
)  # fmt: skip
def test_from_http_classifies_status(status: int, retryable: bool) -> None:
    error = ProviderError.from_http(status, f"{status} boom")
    assert (error.status, error.retryable, str(error)) == (status, retryable, f"{status} boom")
    assert error.retry_after_ms is None


@pytest.mark.parametrize(("value", "retryable"), [("false", False), ("False ", False)])
def test_server_can_forbid_a_retry(value: str, retryable: bool) -> None:
    assert ProviderError.from_http(503, "x", {"x-should-retry": value}).retryable is retryable


def test_server_can_ask_for_a_retry() -> None:
    assert ProviderError.from_http(400, "x", {"X-Should-Retry": "true"}).retryable is True
    # Anything but true/false: the status decides.
    assert ProviderError.from_http(400, "x", {"x-should-retry": "maybe"}).retryable is False


def test_header_wait_wins_over_the_body_wait() -> None:
    both = ProviderError.from_http(429, "x", {"retry-after": "1"}, fallback_retry_after_ms=37_000)
    assert both.retry_after_ms == 1000
    body_only = ProviderError.from_http(429, "x", {}, fallback_retry_after_ms=37_000)
    assert body_only.retry_after_ms == 37_000


# --- every adapter uses it --------------------------------------------------------------------

ADAPTERS: dict[str, tuple[Model, Any]] = {
    "anthropic-messages": (
        Model(id="claude-x", api="anthropic-messages", provider="anthropic",
              base_url="https://api.anthropic.test"),
        lambda status: {"type": "error", "error": {"type": "api_error", "message": "nope"}},
    ),
    "openai-completions": (
        Model(id="gpt-x", api="openai-completions", provider="openai",
              base_url="https://api.openai.test/v1"),
        lambda status: {"error": {"message": "nope", "type": "server_error"}},
    ),
    "openai-responses": (
        Model(id="gpt-x", api="openai-responses", provider="openai",
              base_url="https://api.openai.test/v1"),
        lambda status: {"error": {"message": "nope", "type": "server_error"}},
    ),
    "google-generative-ai": (
        Model(id="gemini-x", api="google-generative-ai", provider="google",
              base_url="https://generativelanguage.test/v1beta"),
        lambda status: {"error": {"code": status, "message": "nope", "status": "UNAVAILABLE"}},
    ),
}  # fmt: skip


async def _attempts(api: str, status: int, headers: dict[str, str], max_retries: int) -> int:
    model, body = ADAPTERS[api]
    reply = Reply(
        status, json.dumps(body(status)).encode(), {"content-type": "application/json", **headers}
    )
    transport = ChunkedTransport([reply])
    client = CLIENT_FACTORIES[api](transport, model.base_url)
    try:
        options = StreamOptions(client=client, max_retries=max_retries, max_retry_delay_ms=1)
        context = Context(messages=[UserMessage(content="hi")])
        _, message = await collect(pi_sdk.stream(model, context, options))
    finally:
        await client.close()
    assert message.stop_reason == "error" and str(status) in (message.error_message or "")
    assert "nope" in (message.error_message or "")
    return len(transport.requests)


@pytest.mark.parametrize("api", sorted(ADAPTERS))
async def test_every_adapter_retries_by_the_shared_policy(api: str) -> None:
    assert await _attempts(api, 409, {"retry-after-ms": "0"}, max_retries=2) == 3
    assert await _attempts(api, 503, {"x-should-retry": "false"}, max_retries=2) == 1
    assert await _attempts(api, 400, {"x-should-retry": "true"}, max_retries=1) == 2
    assert await _attempts(api, 422, {}, max_retries=2) == 1


# --- issue 12 defect 7: rate-limit reset headers, a requested wait beyond the cap --------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"x-ratelimit-reset-after": "2.5"}, 2500.0),
        ({"x-ratelimit-reset": "3"}, 3000.0),  # a delay in seconds
        ({"retry-after": "1", "x-ratelimit-reset-after": "9"}, 1000.0),  # Retry-After wins
        ({"x-ratelimit-reset-after": "soon", "x-ratelimit-reset": "4"}, 4000.0),
        ({"x-ratelimit-reset": "later"}, None),
    ],
)
def test_rate_limit_reset_headers(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_ms(headers) == expected


def test_rate_limit_reset_as_a_unix_time_in_seconds_or_milliseconds() -> None:
    in_seconds = retry_after_ms({"x-ratelimit-reset": str(int(time.time()) + 30)})
    assert in_seconds is not None and 28_000 <= in_seconds <= 31_000
    in_ms = retry_after_ms({"x-ratelimit-reset": str(int(time.time() * 1000) + 5_000)})
    assert in_ms is not None and 4_000 <= in_ms <= 5_100
    assert retry_after_ms({"x-ratelimit-reset": str(int(time.time()) - 60)}) == 0.0


async def _call_with_cap(headers: dict[str, str], cap: int) -> tuple[int, pi_sdk.AssistantMessage]:
    model, body = ADAPTERS["openai-completions"]
    refused = Reply(
        429, json.dumps(body(429)).encode(), {"content-type": "application/json", **headers}
    )
    ok = Reply(
        200,
        b'data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"hi"},'
        b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        {"content-type": "text/event-stream"},
    )
    transport = ChunkedTransport([refused, ok])
    client = CLIENT_FACTORIES["openai-completions"](transport, model.base_url)
    try:
        options = StreamOptions(client=client, max_retries=2, max_retry_delay_ms=cap)
        _, message = await collect(pi_sdk.stream(model, Context(), options))
    finally:
        await client.close()
    return len(transport.requests), message


async def test_a_requested_wait_beyond_the_cap_fails_at_once() -> None:
    """pi-mono ``maxRetryDelayMs``: ``Retry-After: 1`` with a 500 ms cap is not retried early."""
    for headers in ({"retry-after": "1"}, {"x-ratelimit-reset-after": "1"}):
        attempts, message = await _call_with_cap(headers, cap=500)
        assert attempts == 1 and message.stop_reason == "error"
        text = message.error_message or ""
        assert "429" in text and "retry in 1000 ms" in text and "max_retry_delay_ms=500" in text


async def test_a_requested_wait_within_the_cap_is_retried() -> None:
    attempts, message = await _call_with_cap({"retry-after-ms": "5"}, cap=500)
    assert attempts == 2 and message.stop_reason == "stop" and message.text == "hi"
    attempts, message = await _call_with_cap({"retry-after": "1"}, cap=0)  # 0: no cap
    assert attempts == 2 and message.text == "hi"


@pytest.mark.parametrize(
    ("reset", "kind"),
    [
        (1e9, "delay"),  # up to 1e9: a delay in seconds (about 31 years)
        (1e9 + 1, "past"),  # above: a Unix time in seconds (2001: past, no wait)
        (1e12, "far"),  # up to 1e12: still Unix seconds (far in the future)
        (1e12 + 1, "past"),  # above: a Unix time in milliseconds (2001: past, no wait)
    ],
)
def test_rate_limit_reset_is_told_apart_by_size_at_each_threshold(reset: float, kind: str) -> None:
    wait = retry_after_ms({"x-ratelimit-reset": repr(reset)})
    assert wait is not None
    if kind == "delay":
        assert wait == reset * 1000
    elif kind == "past":
        assert wait == 0.0
    else:
        assert abs(wait - (reset - time.time()) * 1000) < 5_000

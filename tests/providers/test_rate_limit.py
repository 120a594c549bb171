"""Client-side rate limits: shared by a collection's calls, fair, abortable, told by the vendor.

Over a loopback server speaking Anthropic Messages (issue 28, item 6); the crowd of agents
against a server allowing N requests per second is ``benchmarks/bench_rate_limit.py``, run here
in a small configuration.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pi_sdk_anthropic
import pytest
from _support.loopback import LoopbackServer, json_step, text_reply

import pi_sdk
from pi_sdk._models.rate_limit_headers import parse_reset_s, server_budgets
from pi_sdk._wire.estimate import estimate_context_tokens

API = "anthropic-messages"
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_rate_limit.py"


def _models(url: str, limits: dict[str, pi_sdk.RateLimit]) -> pi_sdk.Models:
    provider = pi_sdk_anthropic.provider("anthropic", api_key="test-key", base_url=url)
    return pi_sdk.Models([provider], plugins=None, rate_limits=limits)


def _context() -> pi_sdk.Context:
    return pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])


async def _held(models: pi_sdk.Models, wait_s: float = 0.2) -> pi_sdk.AssistantMessage:
    """A call aborted after ``wait_s``: ``aborted`` when the limiter held it that long."""
    controller = pi_sdk.AbortController()
    model = models.get_model("anthropic", "claude-sonnet-4-5")
    options = pi_sdk.StreamOptions(signal=controller.signal, max_retries=0)
    call = asyncio.ensure_future(models.complete(model, _context(), options))
    await asyncio.sleep(wait_s)
    controller.abort()
    return await asyncio.wait_for(call, 5)


def test_a_limit_of_zero_or_less_is_refused() -> None:
    for bad in ({"requests": 0}, {"tokens": -5}, {"requests": 1, "per_ms": 0}, {}):
        with pytest.raises(ValueError, match="RateLimit"):
            pi_sdk.RateLimit(**bad)  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError, match="RateLimit"):
        pi_sdk.RateLimiter({"openai": 5})  # pyright: ignore[reportArgumentType]


async def test_a_full_window_holds_the_next_call_and_an_abort_ends_the_wait() -> None:
    async with LoopbackServer([text_reply(API)]) as server:
        models = _models(server.url, {"anthropic": pi_sdk.RateLimit(requests=1)})
        model = models.get_model("anthropic", "claude-sonnet-4-5")
        first = await models.complete(model, _context())
        held = await _held(models)
        assert len(server.requests) == 1
    assert first.stop_reason == "stop"
    assert held.stop_reason == "aborted"


async def test_a_model_limit_wins_over_its_providers_and_other_models_are_free() -> None:
    async with LoopbackServer([text_reply(API)]) as server:
        limits = {
            "anthropic": pi_sdk.RateLimit(requests=100),
            "anthropic/claude-sonnet-4-5": pi_sdk.RateLimit(requests=1),
        }
        models = _models(server.url, limits)
        sonnet = models.get_model("anthropic", "claude-sonnet-4-5")
        await models.complete(sonnet, _context())
        assert (await _held(models)).stop_reason == "aborted"
        other = next(m for m in models.models("anthropic") if m.id != sonnet.id)
        assert (await models.complete(other, _context())).stop_reason == "stop"


async def test_waiters_are_served_in_order_a_small_request_never_overtakes() -> None:
    limiter = pi_sdk.RateLimiter({"p": pi_sdk.RateLimit(tokens=100, per_ms=150)})
    window = limiter._windows["p"]  # pyright: ignore[reportPrivateUsage]
    order: list[str] = []

    async def take(name: str, tokens: int) -> None:
        slot = await window.acquire(tokens)
        order.append(name)
        window.finished(slot, None, None)

    await take("first", 80)
    # "big" (80 more) must wait for the window; "small" (5) would fit now but queues behind it
    await asyncio.gather(take("big", 80), take("small", 5))
    assert order == ["first", "big", "small"]


async def test_the_vendors_headers_hold_calls_until_their_reset() -> None:
    headers = {
        "content-type": "text/event-stream",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2099-01-01T00:00:00Z",
    }
    step = text_reply(API)
    step = type(step)(step.status, {**step.headers, **headers}, step.parts)
    async with LoopbackServer([step]) as server:
        models = _models(server.url, {"anthropic": pi_sdk.RateLimit(requests=1000)})
        model = models.get_model("anthropic", "claude-sonnet-4-5")
        assert (await models.complete(model, _context())).stop_reason == "stop"
        assert (await _held(models)).stop_reason == "aborted"
        assert len(server.requests) == 1


async def test_a_429_holds_the_key_for_its_retry_after() -> None:
    limited = json_step(
        429,
        {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
        {"retry-after": "30", "x-should-retry": "false"},
    )
    async with LoopbackServer([limited]) as server:
        models = _models(server.url, {"anthropic": pi_sdk.RateLimit(requests=1000)})
        model = models.get_model("anthropic", "claude-sonnet-4-5")
        options = pi_sdk.StreamOptions(max_retries=0)
        assert (await models.complete(model, _context(), options)).stop_reason == "error"
        assert (await _held(models)).stop_reason == "aborted"
        assert len(server.requests) == 1


async def test_reported_usage_replaces_the_estimate_in_the_token_window() -> None:
    async with LoopbackServer([text_reply(API)]) as server:  # usage: 5 in, 3 out
        estimate = estimate_context_tokens(_context()).tokens
        assert estimate < 8
        # on the estimate alone, two calls fit; the first one reports 8 tokens (5 in, 3 out)
        limit = pi_sdk.RateLimit(tokens=2 * estimate)
        models = _models(server.url, {"anthropic": limit})
        model = models.get_model("anthropic", "claude-sonnet-4-5")
        assert (await models.complete(model, _context())).stop_reason == "stop"
        assert (await _held(models)).stop_reason == "aborted"
        assert len(server.requests) == 1


def test_rate_limit_headers_of_each_vendor() -> None:
    openai = {
        "x-ratelimit-remaining-requests": "59",
        "x-ratelimit-reset-requests": "6m0s",
        "x-ratelimit-remaining-tokens": "149984",
        "x-ratelimit-reset-tokens": "6ms",
    }
    requests, tokens = server_budgets(openai)
    assert requests == (59, 360.0) and tokens == (149984, pytest.approx(0.006))
    anthropic = {
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "1970-01-01T00:00:00Z",
    }
    assert server_budgets(anthropic) == ((0, 0.0), None)
    generic = {"x-ratelimit-remaining": "3", "x-ratelimit-reset": "2"}
    assert server_budgets(generic) == ((3, 2.0), None)
    assert parse_reset_s("1m30.5s") == 90.5 and parse_reset_s("120ms") == pytest.approx(0.12)
    assert parse_reset_s("soon") is None
    assert server_budgets({"x-ratelimit-remaining-requests": "many"}) == (None, None)


@pytest.mark.slow  # the crowd benchmark script, twice, in a fresh process
def test_a_crowd_of_agents_sees_no_429_with_the_limiter() -> None:
    command = [sys.executable, str(BENCH), "--agents", "30", "--rate", "15", "--max-retries", "3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=True)
    lines = {
        match[1]: (int(match[2]), int(match[3]), int(match[4]))
        for match in re.finditer(
            r"^(with|without) limiter\s+200s=\d+ 429s=(\d+) completed=(\d+) failed=(\d+)",
            done.stdout,
            re.M,
        )
    }
    assert lines["with"] == (0, 30, 0), done.stdout
    assert lines["without"][0] >= 15, done.stdout  # 30 at once against 15 per second


NOW = 1_800_000_000.0
"""The clock of the reset tests (a Unix time in seconds, 2027-01-15)."""


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("6m0s", 360.0),  # OpenAI's durations
        ("1h2m3s", 3723.0),
        ("1.5s", 1.5),
        ("120ms", 0.12),
        ("  6m0s\t", 360.0),  # the header's own whitespace
        ("2", 2.0),  # delay seconds
        ("0", 0.0),
        (str(NOW + 30), 30.0),  # a Unix time in seconds
        (str(int(NOW * 1000) + 45_000), 45.0),  # ... in milliseconds
        (str(NOW - 30), 0.0),  # a reset already past
        # The boundaries: from 1e9 a number is a Unix time in seconds, from 1e12 one in ms
        # (both 2001-09-09, past on this clock); below, delay seconds.
        ("999999999", 999_999_999.0),
        ("1000000000", 0.0),
        ("999999999999", 999_999_999_999 - NOW),  # still seconds (the year 33658)
        ("1000000000000", 0.0),
        (str(int(NOW * 1000)), 0.0),  # ms of now, not seconds 57,000 years ahead
        ("2027-01-15T08:01:00Z", 60.0),  # RFC 3339 (Anthropic)
        ("2027-01-15T09:01:00+01:00", 60.0),
        ("2027-01-15T08:01:00", 60.0),  # no zone: UTC
        ("2027-01-15T07:00:00Z", 0.0),
        # Not a reset: a duration must be the whole text, not a part of it.
        ("6m0s later", None),
        ("about 1s", None),
        ("1s2x", None),
        ("5 s", None),
        ("soon", None),
        ("", None),
    ],
)
def test_every_reset_form_and_its_near_misses(
    value: str, seconds: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI's durations, delay seconds, Unix times and RFC 3339 times; nothing else."""
    monkeypatch.setattr("pi_sdk._models.rate_limit_headers.time.time", lambda: NOW)
    assert parse_reset_s(value) == (None if seconds is None else pytest.approx(seconds))

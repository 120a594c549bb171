"""One key's window of the client-side rate limiter (``pi_sdk/_models/rate_limit.py``), on a
fake clock: what the server's budgets say is left goes down with each request granted (requests
by one, tokens by the request's estimate) and holds calls until its reset; a waiter that leaves
the queue gives its place (and a slot granted as it left) to the next; the limiter's keys can
be removed and listed.
"""

from __future__ import annotations

import asyncio

import pytest

import pi_sdk
from pi_sdk._models.rate_limit import RateLimit, RateLimiter
from pi_sdk._models.rate_limit_headers import server_budgets


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _window(limit: RateLimit, clock: Clock):  # noqa: ANN202 - the private window
    limiter = RateLimiter({"p": limit}, clock=clock)
    return limiter._windows["p"]  # pyright: ignore[reportPrivateUsage]


async def test_each_granted_request_uses_up_the_servers_request_budget() -> None:
    clock = Clock()
    window = _window(RateLimit(requests=1_000), clock)
    window.observe({"x-ratelimit-remaining-requests": "2", "x-ratelimit-reset-requests": "10s"})
    assert window.server_requests == (2, 110.0)
    await window.acquire(0)
    assert window.server_requests == (1, 110.0)
    await window.acquire(0)
    assert window.server_requests == (0, 110.0)
    assert window._wait_s(clock(), 0) == 10.0  # pyright: ignore[reportPrivateUsage]
    clock.now = 104.0
    assert window._wait_s(clock(), 0) == 6.0  # pyright: ignore[reportPrivateUsage]
    clock.now = 110.0  # reset: the server's word no longer holds
    assert window._wait_s(clock(), 0) == 0.0  # pyright: ignore[reportPrivateUsage]


async def test_each_granted_request_uses_up_the_servers_token_budget_by_its_estimate() -> None:
    clock = Clock()
    window = _window(RateLimit(tokens=1_000_000), clock)
    window.observe(
        {"anthropic-ratelimit-tokens-remaining": "100", "anthropic-ratelimit-tokens-reset": "30"}
    )
    assert (window.server_requests, window.server_tokens) == (None, (100, 130.0))
    await window.acquire(60)
    assert window.server_tokens == (40, 130.0)
    assert window._wait_s(clock(), 500) == 0.0  # pyright: ignore[reportPrivateUsage]
    await window.acquire(60)
    assert window.server_tokens == (-20, 130.0)
    assert window._wait_s(clock(), 5) == 30.0  # pyright: ignore[reportPrivateUsage]
    # overdrawn: even a request estimated at no tokens waits for the reset
    assert window._wait_s(clock(), 0) == 30.0  # pyright: ignore[reportPrivateUsage]


async def _two_waiting():  # noqa: ANN202
    """A full window of one request in flight, and two calls queued behind it."""
    clock = Clock()
    window = _window(RateLimit(requests=1, per_ms=1_000), clock)
    first = await window.acquire(0)
    window.started(first)
    leaving = asyncio.ensure_future(window.acquire(0))
    staying = asyncio.ensure_future(window.acquire(0))
    return clock, window, first, leaving, staying


async def test_a_waiter_cancelled_in_the_queue_is_passed_over_for_the_next() -> None:
    clock, window, first, leaving, staying = await _two_waiting()
    await asyncio.sleep(0)  # both queued behind the full window
    assert len(window._waiters) == 2  # pyright: ignore[reportPrivateUsage]
    leaving.cancel()  # its future is cancelled now; its own clean-up runs later
    clock.now += 5  # the first request left the window
    window.finished(first, None, None)  # serve(): the cancelled head is skipped
    assert not window._waiters  # pyright: ignore[reportPrivateUsage]
    slot = await asyncio.wait_for(staying, 1)
    with pytest.raises(asyncio.CancelledError):
        await leaving
    assert window._slots == [slot]  # pyright: ignore[reportPrivateUsage]


async def test_a_slot_granted_as_its_waiter_left_goes_to_the_next_waiter() -> None:
    clock, window, first, leaving, staying = await _two_waiting()
    await asyncio.sleep(0)
    clock.now += 5
    window.finished(first, None, None)  # grants the head's future...
    leaving.cancel()  # ...but its task is cancelled before it could take the slot
    with pytest.raises(asyncio.CancelledError):
        await leaving
    slot = await asyncio.wait_for(staying, 1)  # the slot given back went to the next
    assert window._slots == [slot]  # pyright: ignore[reportPrivateUsage]


def test_a_limit_set_to_none_is_removed_and_the_limits_listed() -> None:
    limiter = RateLimiter({"a": RateLimit(requests=5), "b/m": RateLimit(tokens=9, per_ms=1000)})
    assert limiter.limits() == {"a": RateLimit(requests=5), "b/m": RateLimit(tokens=9, per_ms=1000)}
    assert repr(limiter) == (
        "RateLimiter({'a': RateLimit(requests=5, tokens=None, per_ms=60000), "
        "'b/m': RateLimit(requests=None, tokens=9, per_ms=1000)})"
    )
    limiter.set("a", None)
    limiter.set("never-set", None)  # nothing to remove: no error
    assert limiter.limits() == {"b/m": RateLimit(tokens=9, per_ms=1000)}
    model = pi_sdk.Model(id="m", api="x", provider="a")
    options = pi_sdk.StreamOptions()
    gate, same = limiter.gate(model, pi_sdk.Context(messages=[]), options)
    assert gate is None and same is options  # "a" is no longer limited


def test_a_budget_whose_count_is_not_a_number_is_unsaid() -> None:
    assert server_budgets(
        {"x-ratelimit-remaining-requests": "many", "x-ratelimit-reset-requests": "1s"}
    ) == (None, None)
    assert server_budgets(
        {"x-ratelimit-remaining-requests": "7.9", "x-ratelimit-reset-requests": "1s"}
    ) == ((7, 1.0), None)


async def _history(limit: RateLimit, *requests: tuple[float, int]):  # noqa: ANN202
    """A window whose requests ``(started at, tokens)`` all ended; the clock at 100."""
    clock = Clock()
    window = _window(limit, clock)
    for at, tokens in requests:
        clock.now = at
        slot = await window.acquire(tokens)
        window.started(slot)
        window.finished(slot, None, None)
    clock.now = 100.0
    return window


@pytest.mark.parametrize(
    ("limit", "requests", "tokens", "wait"),
    [
        # requests: the window is full until the oldest of the last `requests` leaves it
        (RateLimit(requests=2, per_ms=10_000), [(95, 0), (97, 0)], 0, 5.0),
        (RateLimit(requests=3, per_ms=10_000), [(95, 0), (97, 0)], 0, 0.0),  # one left
        (RateLimit(requests=2, per_ms=10_000), [(89, 0), (97, 0)], 0, 0.0),  # 89 has left
        # tokens: wait until enough of the oldest requests' tokens left the window
        (RateLimit(tokens=100, per_ms=10_000), [(95, 60), (97, 30)], 10, 0.0),  # exactly fits
        (RateLimit(tokens=100, per_ms=10_000), [(95, 60), (97, 30)], 11, 5.0),
        (RateLimit(tokens=100, per_ms=10_000), [(95, 60), (97, 30)], 70, 5.0),  # 60 freed: fits
        (RateLimit(tokens=100, per_ms=10_000), [(95, 60), (97, 30)], 71, 7.0),  # both must go
        (RateLimit(tokens=100, per_ms=10_000), [(95, 60), (97, 30)], 5_000, 7.0),  # capped
        (RateLimit(tokens=100, per_ms=10_000), [(97, 30), (95, 60)], 71, 7.0),  # oldest first
        (RateLimit(tokens=100, per_ms=10_000), [], 5_000, 0.0),  # alone: never held back
    ],
)
async def test_the_sliding_window_wait(
    limit: RateLimit, requests: list[tuple[float, int]], tokens: int, wait: float
) -> None:
    window = await _history(limit, *requests)
    assert window._wait_s(100.0, tokens) == pytest.approx(wait)  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("remaining", "tokens", "wait"),
    [
        (0, 0, 0.0),  # a request of no tokens needs none of the budget
        (0, 1, 30.0),
        (1, 1, 0.0),  # exactly what is left
        (1, 500, 0.0),  # any budget left lets one request through
    ],
)
async def test_the_servers_token_budget_holds_only_a_request_it_cannot_serve(
    remaining: int, tokens: int, wait: float
) -> None:
    clock = Clock()
    window = _window(RateLimit(tokens=10**9), clock)
    window.observe(
        {"x-ratelimit-remaining-tokens": str(remaining), "x-ratelimit-reset-tokens": "30s"}
    )
    assert window._wait_s(clock(), tokens) == wait  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("retry_after_ms", "held_until"),
    [(None, 101.0), (2_500, 102.5), (0, 100.0)],
)
async def test_a_429_holds_the_window_for_its_retry_after(
    retry_after_ms: int | None, held_until: float
) -> None:
    clock = Clock()
    window = _window(RateLimit(requests=100), clock)
    slot = await window.acquire(0)
    error = pi_sdk.provider.ProviderError(
        "429 Too Many Requests", status=429, retry_after_ms=retry_after_ms
    )
    window.finished(slot, None, error)
    assert window.held_until == held_until
    assert window._wait_s(clock(), 0) == held_until - 100.0  # pyright: ignore[reportPrivateUsage]
    other = pi_sdk.provider.ProviderError("503 Unavailable", status=503, retry_after_ms=9_000)
    slot = await window.acquire(0) if held_until == 100.0 else slot
    window.finished(slot, None, other)
    assert window.held_until == held_until  # only a 429 holds the window


async def test_a_reply_s_reported_usage_replaces_the_estimate_unless_it_reports_none() -> None:
    clock = Clock()
    window = _window(RateLimit(tokens=1_000), clock)
    counted = await window.acquire(400)
    window.finished(counted, pi_sdk.AssistantMessage(api="a", provider="p", model="m"), None)
    assert counted.tokens == 400  # no usage reported: the estimate stands
    usage = pi_sdk.Usage(input=50, output=20, cache_read=5, total_tokens=75)
    reply = pi_sdk.AssistantMessage(api="a", provider="p", model="m", usage=usage)
    measured = await window.acquire(400)
    window.finished(measured, reply, None)
    assert measured.tokens == 75
    assert measured.at == clock.now  # a request that never started counts from its end


async def test_a_request_starting_tells_the_waiter_behind_it_when_it_fits() -> None:
    """In flight, a request holds its place for ever; once started, the next knows its time."""
    clock = Clock()
    window = _window(RateLimit(requests=1, per_ms=20), clock)
    first = await window.acquire(0)
    waiting = asyncio.ensure_future(window.acquire(0))
    await asyncio.sleep(0)
    assert not waiting.done()
    window.started(first)  # at 100.0: the window frees at 100.02
    clock.now = 100.05  # what the timer will find when it fires (20 ms from now)
    second = await asyncio.wait_for(waiting, 2)
    assert second is not first and first.at == 100.0  # granted while the first is in flight


NOW = 1_800_000_000.0
"""The wall clock the reset forms below are read against (2027-01-15, Unix seconds)."""


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("30", 30.0),  # delay seconds
        ("2.5", 2.5),
        ("-5", 0.0),  # never a negative wait
        (" 7 ", 7.0),
        (str(NOW + 30), 30.0),  # a Unix time in seconds
        (str(NOW - 30), 0.0),  # ... already past
        (str(int((NOW + 30) * 1000)), 30.0),  # a Unix time in milliseconds
        (str(int((NOW - 30) * 1000)), 0.0),
        ("999999999", 999_999_999.0),  # below 1e9: still a delay
        ("1000000000", 0.0),  # from 1e9: a Unix time in seconds (2001, past)
        ("999999999999", 999_999_999_999 - NOW),  # below 1e12: still seconds
        ("1000000000000", 0.0),  # from 1e12: milliseconds (2001, past)
        ("1h", 3600.0),
        ("1h2m3s", 3723.0),
        ("6m0s", 360.0),
        ("120ms", 0.12),
        ("2m120ms", 120.12),
        ("5 minutes", None),  # not every character a duration: unreadable
        ("10s later", None),
        ("2027-01-15T08:00:30Z", 30.0),  # RFC 3339
        ("2027-01-15T08:00:30+00:00", 30.0),
        ("2027-01-15T09:00:30+01:00", 30.0),
        ("2027-01-15T08:00:30", 30.0),  # no offset: UTC
        ("2027-01-15T07:00:00Z", 0.0),  # past
        ("soon", None),
    ],
)
def test_every_form_of_a_reset(monkeypatch: pytest.MonkeyPatch, value: str, seconds: float | None):
    from types import SimpleNamespace

    from pi_sdk._models import rate_limit_headers

    monkeypatch.setattr(rate_limit_headers, "time", SimpleNamespace(time=lambda: NOW))
    found = rate_limit_headers.parse_reset_s(value)
    assert found == (None if seconds is None else pytest.approx(seconds, abs=1e-6))


@pytest.mark.parametrize(
    ("headers", "budgets"),
    [
        (
            {"X-RateLimit-Remaining-Requests": "4", "X-RateLimit-Reset-Requests": "1s"},
            ((4, 1.0), None),
        ),
        ({"x-ratelimit-remaining-requests": "4"}, (None, None)),  # no reset: unsaid
        ({"x-ratelimit-reset-requests": "1s"}, (None, None)),
        (  # OpenAI's names win over the generic ones
            {
                "x-ratelimit-remaining-requests": "4",
                "x-ratelimit-reset-requests": "1s",
                "x-ratelimit-remaining": "9",
                "x-ratelimit-reset": "9",
            },
            ((4, 1.0), None),
        ),
        (  # Anthropic's over the generic ones
            {
                "anthropic-ratelimit-requests-remaining": "5",
                "anthropic-ratelimit-requests-reset": "2",
                "x-ratelimit-remaining": "9",
                "x-ratelimit-reset": "9",
            },
            ((5, 2.0), None),
        ),
        (  # an unreadable first form falls through to the next
            {
                "x-ratelimit-remaining-requests": "4",
                "x-ratelimit-reset-requests": "whenever",
                "x-ratelimit-remaining": "9",
                "x-ratelimit-reset": "3",
            },
            ((9, 3.0), None),
        ),
        (
            {
                "anthropic-ratelimit-tokens-remaining": "800",
                "anthropic-ratelimit-tokens-reset": "4",
            },
            (None, (800, 4.0)),
        ),
        (
            {
                "x-ratelimit-remaining-tokens": "700",
                "x-ratelimit-reset-tokens": "3s",
                "anthropic-ratelimit-tokens-remaining": "800",
                "anthropic-ratelimit-tokens-reset": "4",
            },
            (None, (700, 3.0)),
        ),
    ],
)
def test_which_headers_say_a_budget(headers: dict[str, str], budgets: tuple[object, object]):
    assert server_budgets(headers) == budgets

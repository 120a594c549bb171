"""``AssistantMessageEventStream``'s defaults (``pi_sdk/_stream/event_stream.py``): without
``max_retries`` a retryable failure is not retried, and without ``max_retry_delay_ms`` a retry
waits at most 60,000 ms; a server asking for longer fails the call at once, naming the cap.

No test sleeps: a retry announces its wait (``on_retry``) before waiting, and the test aborts
the call there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import pi_sdk
from pi_sdk import AssistantMessageEventStream, Model
from pi_sdk.options import RetryNotice
from pi_sdk.provider import ProviderError

MODEL = Model(id="m1", api="test-defaults", provider="testco")


def _failing(calls: list[int], retry_after_ms: float | None):  # noqa: ANN202
    async def start() -> AsyncIterator[Any]:
        calls.append(1)
        raise ProviderError(
            "429 Too Many Requests", status=429, retryable=True, retry_after_ms=retry_after_ms
        )
        yield  # pragma: no cover - an async generator

    return start


async def test_without_max_retries_a_retryable_failure_is_not_retried():
    calls: list[int] = []
    stream = AssistantMessageEventStream(_failing(calls, None), model=MODEL)
    message = await stream.result()
    assert (message.stop_reason, message.error_message) == ("error", "429 Too Many Requests")
    assert calls == [1]


async def _uncapped(retry_after_ms: int) -> tuple[Any, list[int], list[RetryNotice]]:
    """One 429 asking for ``retry_after_ms``, one retry allowed, no delay cap given: the final
    message, the calls made and the retry notices. A notice aborts the wait it announces."""
    calls: list[int] = []
    notices: list[RetryNotice] = []
    controller = pi_sdk.AbortController()

    def on_retry(notice: RetryNotice) -> None:
        notices.append(notice)
        controller.abort()

    stream = AssistantMessageEventStream(
        _failing(calls, retry_after_ms),
        model=MODEL,
        max_retries=1,
        signal=controller.signal,
        on_retry=on_retry,
    )
    return await stream.result(), calls, notices


@pytest.mark.parametrize("retry_after_ms", [60_000, 59_999])
async def test_without_a_cap_given_a_retry_waits_up_to_60000_ms(retry_after_ms: int):
    message, calls, notices = await _uncapped(retry_after_ms)
    assert [(n.attempt, n.max_attempts, n.delay_ms) for n in notices] == [
        (1, 2, float(retry_after_ms))
    ]
    assert message.stop_reason == "aborted"
    assert calls == [1]


@pytest.mark.parametrize("retry_after_ms", [60_001, 90_000])
async def test_without_a_cap_given_a_longer_requested_wait_fails_naming_60000(
    retry_after_ms: int,
):
    message, calls, notices = await _uncapped(retry_after_ms)  # a retry would be wrong
    assert message.stop_reason == "error"
    assert message.error_message == (
        f"429 Too Many Requests (the server asked to retry in {retry_after_ms} ms,"
        " beyond max_retry_delay_ms=60000; not retried)"
    )
    assert (calls, notices) == ([1], [])

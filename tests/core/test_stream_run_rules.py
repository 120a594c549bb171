"""StreamRun rules a caller reads off the final message (``pi_sdk/_stream/run.py``), by class:
the reason a failed reply keeps, ``duration_ms``, the retry wait and its cap."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from pi_sdk import (
    AbortController,
    AssistantMessageEventStream,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
)
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.options import RetryNotice
from pi_sdk.provider import ProviderError

MODEL = Model(id="m1", api="test-run-rules", provider="testco")


async def _final(start: Any, **options: Any) -> tuple[list[Any], Any]:
    stream = AssistantMessageEventStream(start, model=MODEL, **options)
    events = [event async for event in stream]
    return events, await stream.result()


@pytest.mark.parametrize(
    ("said", "text", "event_reason", "kept", "kept_text"),
    [
        ("aborted", "user left", "done", "aborted", "user left"),  # a done that failed
        ("error", None, "done", "error", "unknown error"),
        ("aborted", "cut", "error", "aborted", "cut"),  # the message's own reason wins
        ("error", "boom", "aborted", "error", "boom"),
        ("stop", None, "aborted", "aborted", "unknown error"),  # else the event's reason
        ("stop", "x", "error", "error", "x"),
    ],
)
async def test_a_failed_reply_keeps_the_reason_its_message_gives(
    said: str, text: str | None, event_reason: str, kept: str, kept_text: str
) -> None:
    async def start() -> AsyncIterator[Any]:
        out = new_assistant_message(MODEL)
        yield StartEvent(partial=out)
        out.stop_reason, out.error_message = said, text  # type: ignore[assignment]
        if event_reason == "done":
            yield DoneEvent(reason="stop", message=out)
        else:
            yield ErrorEvent(reason=event_reason, error=out)  # type: ignore[arg-type]

    events, final = await _final(start)
    assert [e.type for e in events] == ["start", "error"]
    assert (final.stop_reason, final.error_message) == (kept, kept_text)
    assert events[-1].error is final


@pytest.mark.parametrize(
    ("timestamp", "preset", "expected"),
    [
        (None, None, "measured"),  # a reply made in this call: ms since the call began
        (None, 1234, 1234),  # set by the provider: kept
        (0, None, None),  # began before this call (forwarded from elsewhere): left alone
    ],
)
@pytest.mark.parametrize("ending", ["done", "error"])
async def test_duration_ms_is_measured_only_for_a_reply_made_in_the_call(
    timestamp: int | None, preset: int | None, expected: Any, ending: str
) -> None:
    async def start() -> AsyncIterator[Any]:
        out = new_assistant_message(MODEL)
        if timestamp is not None:
            out.timestamp = timestamp
        out.duration_ms = preset
        yield StartEvent(partial=out)
        if ending == "error":
            raise ProviderError("lost")  # the same message, ended by a failure
        yield DoneEvent(reason="stop", message=out)

    _, final = await _final(start)
    assert final.stop_reason == ending.replace("done", "stop")
    if expected == "measured":
        assert isinstance(final.duration_ms, int) and 0 <= final.duration_ms < 60_000
    else:
        assert final.duration_ms == expected


async def _first_retry(error: ProviderError, cap: int) -> tuple[RetryNotice | None, Any]:
    """The notice of the first retry; the call is aborted by it, so nothing waits."""
    controller = AbortController()
    notices: list[RetryNotice] = []

    def on_retry(notice: RetryNotice) -> None:
        notices.append(notice)
        controller.abort()

    async def start() -> AsyncIterator[Any]:
        raise error
        yield  # pragma: no cover

    _, final = await _final(
        start,
        max_retries=3,
        max_retry_delay_ms=cap,
        signal=controller.signal,
        on_retry=on_retry,
    )
    return (notices[0] if notices else None), final


async def test_the_first_retry_waits_half_a_second_plus_jitter() -> None:
    """Exponential backoff from 0.5 s (tenacity), with up to 0.25 s of jitter."""
    error = ProviderError("503 overloaded", status=503, retryable=True)
    notice, final = await _first_retry(error, 0)
    assert notice is not None and 500 <= notice.delay_ms <= 750
    assert (notice.attempt, notice.max_attempts, notice.status) == (1, 4, 503)
    assert notice.error_message == "503 overloaded"
    assert final.stop_reason == "aborted"


@pytest.mark.parametrize(
    ("retry_after_ms", "cap", "delay_ms"),
    [
        (2000, 60_000, 2000),  # the server's wait, when longer than the backoff
        (2000, 2000, 2000),  # a wait exactly at the cap is still retried
        (1, 300, None),  # shorter than the backoff: the backoff (0.5 s plus jitter) ...
        (1, 0, None),  # ... also without a cap
    ],
)
async def test_the_retry_wait_honours_the_servers_wait_up_to_the_cap(
    retry_after_ms: int, cap: int, delay_ms: int | None
) -> None:
    error = ProviderError("429 slow", status=429, retryable=True, retry_after_ms=retry_after_ms)
    notice, _ = await _first_retry(error, cap)
    assert notice is not None
    if delay_ms is not None:
        assert notice.delay_ms == delay_ms
    elif cap:
        assert notice.delay_ms == cap  # the backoff capped
    else:
        assert 500 <= notice.delay_ms <= 750


async def test_a_wait_beyond_the_cap_fails_at_once_naming_both() -> None:
    error = ProviderError("429 slow down", status=429, retryable=True, retry_after_ms=2001)
    notice, final = await _first_retry(error, 2000)
    assert notice is None and final.stop_reason == "error"
    assert final.error_message == (
        "429 slow down (the server asked to retry in 2001 ms, beyond max_retry_delay_ms=2000;"
        " not retried)"
    )


@pytest.mark.parametrize(
    ("retry_after_ms", "retried"),
    [(60_000, True), (60_001, False)],  # the stream's own default cap, at and one past
)
async def test_a_stream_made_directly_caps_the_servers_wait_at_60_s(
    retry_after_ms: int, retried: bool
) -> None:
    controller = AbortController()
    notices: list[RetryNotice] = []
    attempts: list[int] = []

    def on_retry(notice: RetryNotice) -> None:
        notices.append(notice)
        controller.abort()  # nothing waits

    async def start() -> AsyncIterator[Any]:
        attempts.append(1)
        raise ProviderError("429", status=429, retryable=True, retry_after_ms=retry_after_ms)
        yield  # pragma: no cover

    _, final = await _final(start, max_retries=1, signal=controller.signal, on_retry=on_retry)
    assert [n.delay_ms for n in notices] == ([retry_after_ms] if retried else [])
    if not retried:
        assert final.error_message == (
            "429 (the server asked to retry in 60001 ms, beyond max_retry_delay_ms=60000;"
            " not retried)"
        )


async def test_a_stream_made_directly_makes_one_attempt_by_default() -> None:
    attempts: list[int] = []

    async def start() -> AsyncIterator[Any]:
        attempts.append(1)
        raise ProviderError("503 busy", status=503, retryable=True, retry_after_ms=1)
        yield  # pragma: no cover

    _, final = await _final(start)
    assert len(attempts) == 1 and final.error_message == "503 busy"


async def test_the_backoff_doubles_from_half_a_second_up_to_30_s_plus_jitter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """tenacity's ``wait_exponential(multiplier=0.5, max=30) + wait_random(0, 0.25)``: attempt
    ``n`` waits ``min(0.5 * 2 ** (n - 1), 30)`` s plus up to 0.25 s (no cap, no signal)."""
    import asyncio

    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float, *args: Any) -> None:
        slept.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    notices: list[RetryNotice] = []

    async def start() -> AsyncIterator[Any]:
        raise ProviderError("503 busy", status=503, retryable=True)
        yield  # pragma: no cover

    _, final = await _final(start, max_retries=8, max_retry_delay_ms=0, on_retry=notices.append)
    assert final.error_message == "503 busy (after 9 attempts)"
    assert [n.attempt for n in notices] == list(range(1, 9))
    assert [n.delay_ms for n in notices] == [round(s * 1000, 3) for s in slept]
    for notice in notices:
        base = min(500 * 2 ** (notice.attempt - 1), 30_000)
        assert base <= notice.delay_ms <= base + 250, notice

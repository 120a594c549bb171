"""Retrying a failed assistant turn: pi-ai 1.6 ``retryAssistantCall``, with pi-sdk's waits.

:func:`retry_assistant_call` runs an assistant-producing call and, while it fails in a way the
:class:`pi_sdk.RetryPolicy` retries, waits (exponential backoff with jitter, the server's
``Retry-After`` honoured, the abort signal honoured during every wait) and calls again. The agent
loop uses it for every request when ``AgentLoopConfig.retry`` is set; each failed attempt stays
in the transcript (its usage was spent; providers leave errored replies out of the history they
send), so every attempt is visible to listeners and sessions.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pi_sdk._agent.tool_calls import resolve
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.retry_policy import RetryPolicy
from pi_sdk.types import AssistantMessage

__all__ = ["RetryCallbacks", "retry_assistant_call"]

_log = logging.getLogger("pi_sdk._agent.agent")


@dataclass(kw_only=True, slots=True)
class RetryCallbacks:
    """Optional callbacks around each retry (pi-ai 1.6 ``RetryCallbacks``); sync or async.

    Attributes:
        on_retry_scheduled: ``(attempt, max_attempts, delay_ms, error_message)``, before the
            wait of retry ``attempt`` (1-based).
        on_retry_attempt_start: ``()``, after the wait, right before the call is made again.
        on_retry_finished: ``(success, attempt, final_error)``, once, when a loop that retried
            at least once ends (``final_error`` ``None`` on success).
    """

    on_retry_scheduled: Callable[[int, int, float, str], object] | None = None
    on_retry_attempt_start: Callable[[], object] | None = None
    on_retry_finished: Callable[[bool, int, str | None], object] | None = None


async def _call(callback: Callable[..., object] | None, *args: object) -> None:
    if callback is not None:
        await resolve(callback(*args))


async def _sleep(delay_ms: float, signal: AbortSignal | None) -> bool:
    """Wait ``delay_ms``; ``False`` if ``signal`` aborted first (or already had)."""
    if signal is None:
        await asyncio.sleep(delay_ms / 1000)
        return True
    if signal.aborted:
        return False
    try:
        await asyncio.wait_for(signal.wait(), timeout=delay_ms / 1000)
    except TimeoutError:
        return True
    return False


async def retry_assistant_call(
    produce: Callable[[], Awaitable[AssistantMessage]],
    policy: RetryPolicy | None,
    signal: AbortSignal | None = None,
    callbacks: RetryCallbacks | None = None,
) -> AssistantMessage:
    """Run ``produce()`` and retry it while it fails in a way ``policy`` retries.

    Behaviour (pi-ai 1.6 ``retryAssistantCall``):

    * a reply that did not fail is returned at once; so is an ``aborted`` one (never retried);
    * a failure the policy does not retry, or one after ``max_retries`` retries, is returned;
    * otherwise the wait of :meth:`RetryPolicy.delay_ms` passes and ``produce()`` runs again.
      An abort during the wait returns a copy of the failed reply with ``stop_reason``
      ``"aborted"`` (its ``error_message`` says the retry was aborted);
    * ``policy`` ``None`` or disabled: the first reply is returned unchanged.

    Args:
        produce: Makes one request and returns its final message (never raises for API
            failures: they are data).
        policy: Which failures, how many retries, how long to wait.
        signal: Abort signal honoured during every wait.
        callbacks: Told about each retry (:class:`RetryCallbacks`).

    Returns:
        The last message ``produce()`` returned (or its aborted copy).
    """
    hooks = callbacks or RetryCallbacks()
    limit = policy.max_retries if policy is not None and policy.enabled else 0
    attempt = 0
    while True:
        message = await produce()
        if message.stop_reason != "error":
            if attempt:
                await _call(
                    hooks.on_retry_finished, message.stop_reason != "aborted", attempt, None
                )
            return message
        assert policy is not None or limit == 0
        if attempt >= limit or policy is None or not policy.should_retry(message):
            if attempt:
                await _call(hooks.on_retry_finished, False, attempt, message.error_message)
            return message
        attempt += 1
        delay_ms = policy.delay_ms(attempt, message)
        error = message.error_message or "unknown error"
        _log.info("retrying a failed turn in %.0f ms (%d/%d): %s", delay_ms, attempt, limit, error)
        await _call(hooks.on_retry_scheduled, attempt, limit, delay_ms, error)
        if not await _sleep(delay_ms, signal):
            await _call(hooks.on_retry_finished, False, attempt, error)
            aborted = message.model_copy(deep=True)
            aborted.stop_reason = "aborted"
            aborted.error_message = f"Retry aborted (after: {error})"
            return aborted
        await _call(hooks.on_retry_attempt_start)

"""When an agent retries a failed turn, and how long it waits (pi-ai 1.6 ``RetryPolicy``).

The stream retries a retryable failure *before the first byte* by itself
(``StreamOptions.max_retries``). A turn that fails after streaming began (a dropped connection,
an ``overloaded_error`` event mid-reply) ends in an assistant message with ``stop_reason``
``"error"``; :class:`RetryPolicy` lets the agent loop make the request again
(pi-ai 1.6 ``retryAssistantCall``, used by pi-coding-agent's ``settings.retry``).

Which failures: :func:`is_retryable_assistant_error`, the classes of pi-ai 1.6's
``isRetryableAssistantError``: provider load and rate limits (HTTP 429, 5xx, "overloaded"),
transport failures (connection reset or closed, timeouts, a stream that ended early) and the
vendors' "please retry" texts; never quota or billing exhaustion, an aborted reply or a context
overflow (a retry would fail the same way). The wait: ``base_delay_ms * 2**(attempt-1)`` plus up
to ``jitter`` of it at random, at most ``max_delay_ms``, and at least what the server asked for
(``Retry-After``, kept by the stream in a ``provider_error`` diagnostic).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pi_sdk._wire.overflow import is_overflow_text
from pi_sdk._wire.usage_limits import USAGE_LIMIT_DIAGNOSTIC
from pi_sdk.types import AssistantMessage

__all__ = [
    "PROVIDER_ERROR_DIAGNOSTIC",
    "RetryPolicy",
    "is_retryable_assistant_error",
    "requested_retry_delay_ms",
]

PROVIDER_ERROR_DIAGNOSTIC = "provider_error"
"""Diagnostic type the stream adds to a reply that failed with an HTTP error: ``error.code`` is
the status, ``details`` has ``retryable`` and, when the server sent one, ``retryAfterMs``."""

_NEVER = re.compile(
    "|".join(
        (
            r"insufficient_quota",
            r"quota exceeded",
            r"usage limit",
            r"out of budget",
            r"billing",
            r"available balance",
            r"credit balance",
        )
    ),
    re.IGNORECASE,
)
_TRANSIENT = re.compile(
    "|".join(
        (
            # load and rate limits
            r"overloaded",
            r"server[_ ]busy",
            r"at capacity",
            r"high demand",
            r"rate.?limit",
            r"too many requests",
            r"resource.?exhausted",
            r"(?<![a-z0-9])(?:408|409|429|500|502|503|504|520|522|524|529)(?![a-z0-9])",
            r"service.?(?:is.?)?(?:temporarily.?)?unavailable",
            r"internal.?(?:server.?)?error",
            r"server.?error",
            r"bad gateway",
            r"gateway time.?out",
            r"upstream",
            r"provider.?returned.?(?:an.?)?error",
            # transport
            r"connection",
            r"network",
            r"socket",
            r"reset by peer",
            r"ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN",
            r"timed? ?out",
            r"stream ended|ended without|ended before|cut short|incomplete",
            r"remote ?protocol",
            r"(?:read|write|protocol)error",
            # the vendors' own advice
            r"(?:please )?(?:retry|try) (?:your|the) request",
        )
    ),
    re.IGNORECASE,
)


def is_retryable_assistant_error(message: AssistantMessage) -> bool:
    """Whether a new request may succeed where ``message`` failed (pi-ai 1.6).

    Only ``stop_reason == "error"`` with an ``error_message`` qualifies. A ``provider_error``
    diagnostic with ``retryable`` set decides first (the status the stream saw, e.g. 429 or a
    5xx, or the server's ``x-should-retry``); otherwise the text is matched against transient
    failures. Quota and billing exhaustion and context overflows are never retryable.
    """
    if message.stop_reason != "error" or not message.error_message:
        return False
    text = message.error_message
    if _NEVER.search(text) or is_overflow_text(text):
        return False
    for diagnostic in message.diagnostics or ():
        if diagnostic.type == PROVIDER_ERROR_DIAGNOSTIC and diagnostic.details is not None:
            retryable = diagnostic.details.get("retryable")
            if isinstance(retryable, bool):
                return retryable
    return _TRANSIENT.search(text) is not None


def requested_retry_delay_ms(message: AssistantMessage) -> float | None:
    """The wait the server asked for before a retry (``Retry-After``), in ms, or ``None``."""
    for diagnostic in message.diagnostics or ():
        if diagnostic.type == PROVIDER_ERROR_DIAGNOSTIC and diagnostic.details is not None:
            wait = diagnostic.details.get("retryAfterMs")
            if isinstance(wait, int | float) and not isinstance(wait, bool) and wait >= 0:
                return float(wait)
    return None


@dataclass(kw_only=True, frozen=True)
class RetryPolicy:
    """How an agent retries a turn that failed (pi-ai 1.6 ``RetryPolicy``).

    pi-sdk adds ``jitter``, ``retry_on`` and ``honour_retry_after``.

    Example:
        ```python
        agent = pi_sdk.Agent(model=model, retry=pi_sdk.RetryPolicy(max_retries=3))
        ```

    Attributes:
        max_retries: Retries after the first request (0: none). The first call never counts.
        base_delay_ms: Wait before the first retry, doubled on each later one (ms).
        max_delay_ms: Cap on one wait, jitter and ``Retry-After`` included (ms; pi's
            ``maxAgentDelayMs``, default 60 s). A server asking for longer is still retried
            after the cap (the request may fail again; the budget bounds it).
        jitter: Up to this fraction of the wait is added at random, so that many agents
            failing together do not retry together (0: none).
        honour_retry_after: Wait at least what the server asked for (``Retry-After``).
        retry_on: Decides which failed messages are retried; default
            :func:`is_retryable_assistant_error`.
        enabled: ``False`` turns the policy off (pi's ``enabled``).

    Raises:
        ValueError: a negative count, a negative or non-finite delay, a jitter outside 0..1.
    """

    max_retries: int = 3
    base_delay_ms: float = 2000
    max_delay_ms: float = 60_000
    jitter: float = 0.25
    honour_retry_after: bool = True
    retry_on: Callable[[AssistantMessage], bool] | None = None
    enabled: bool = True

    def __post_init__(self) -> None:
        count = self.max_retries
        if isinstance(count, bool) or not isinstance(count, int):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"max_retries must be an int; got {self.max_retries!r}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more; got {self.max_retries}")
        for name in ("base_delay_ms", "max_delay_ms"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0 <= value < float("inf"):
                raise ValueError(f"{name} must be a finite number of ms, 0 or more; got {value!r}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be between 0 and 1; got {self.jitter!r}")

    def should_retry(self, message: AssistantMessage) -> bool:
        """Whether ``message`` (a final reply) is a failure this policy retries.

        Never the message that ended a run at a usage limit.
        """
        if not self.enabled or message.stop_reason != "error":
            return False
        if any(d.type == USAGE_LIMIT_DIAGNOSTIC for d in message.diagnostics or ()):
            return False
        check = self.retry_on or is_retryable_assistant_error
        return bool(check(message))

    def delay_ms(self, attempt: int, message: AssistantMessage | None = None) -> float:
        """The wait before retry number ``attempt`` (1-based), in ms, jitter included.

        ``base_delay_ms * 2**(attempt-1)`` plus a random ``0..jitter`` of it (tenacity's
        ``wait_exponential`` + ``wait_random``), at least the server's ``Retry-After`` on
        ``message`` when ``honour_retry_after``, at most ``max_delay_ms``.
        """
        from tenacity import wait_exponential, wait_random  # lazy: only failures need it

        base_s = self.base_delay_ms / 1000
        backoff = wait_exponential(multiplier=base_s, exp_base=2, min=0, max=float("inf"))
        state = _Attempt(attempt)
        wait_s: float = backoff(state)  # pyright: ignore[reportArgumentType]
        if self.jitter:
            wait_s += wait_random(0, wait_s * self.jitter)(state)  # pyright: ignore[reportArgumentType]
        wait_ms = wait_s * 1000
        if self.honour_retry_after and message is not None:
            asked = requested_retry_delay_ms(message)
            if asked is not None:
                wait_ms = max(wait_ms, asked)
        return min(wait_ms, self.max_delay_ms)


class _Attempt:
    """The part of tenacity's ``RetryCallState`` its wait strategies read."""

    __slots__ = ("attempt_number",)

    def __init__(self, attempt: int) -> None:
        self.attempt_number = attempt

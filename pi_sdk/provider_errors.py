"""Errors providers report, and the one retry policy every provider shares.

A provider raises :class:`ProviderError` for a vendor failure; the stream object turns it into
the terminal ``error`` event and retries it when ``retryable`` (see ``event_stream.py``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

__all__ = ["RETRYABLE_STATUS", "ProviderError", "retry_after_ms"]

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses below 500 worth a retry: request timeout, conflict, rate limit (every 5xx is
retryable too). The policy the vendor SDKs share (``anthropic``/``openai`` ``_should_retry``,
``google-genai`` ``HttpRetryOptions`` defaults)."""


class ProviderError(Exception):
    """A failure a provider reports; its text becomes the message's ``error_message``.

    Args:
        message: What went wrong, with the vendor's own message (never an API key).
        status: HTTP status, if any.
        retryable: Whether a retry may succeed (408, 409, 429, 5xx, connection errors).
        retry_after_ms: The server's requested wait in milliseconds, if it sent one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_ms: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms

    @classmethod
    def from_http(
        cls,
        status: int,
        message: str,
        headers: Mapping[str, str] | None = None,
        *,
        fallback_retry_after_ms: float | None = None,
    ) -> ProviderError:
        """Return the error for an HTTP error response, classified for retries.

        Every provider builds its HTTP errors here, so the retry policy is one piece of code:

        * ``retryable``: the server's ``x-should-retry: true|false`` header when present (an
          Anthropic and OpenAI convention), else 408, 409, 429 and every 5xx
          (:data:`RETRYABLE_STATUS`);
        * ``retry_after_ms``: the server's wait from ``headers`` (:func:`retry_after_ms`), else
          ``fallback_retry_after_ms`` (a wait the vendor put in the error body, e.g.
          Google's ``RetryInfo.retryDelay``).

        Args:
            status: The HTTP status code.
            message: The error text (status and vendor message; never an API key).
            headers: The response headers; any mapping, names matched case-insensitively.
            fallback_retry_after_ms: Wait in milliseconds when the headers name none.
        """
        should_retry = _header(headers, "x-should-retry")
        if should_retry is not None and should_retry.strip().lower() in ("true", "false"):
            retryable = should_retry.strip().lower() == "true"
        else:
            retryable = status in RETRYABLE_STATUS or status >= 500
        wait = retry_after_ms(headers)
        return cls(
            message,
            status=status,
            retryable=retryable,
            retry_after_ms=wait if wait is not None else fallback_retry_after_ms,
        )


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    """``headers[name]``, case-insensitively (``name`` lower-case); ``None`` when absent."""
    if not headers:
        return None
    value = headers.get(name)
    if value is not None:
        return value
    for key, found in headers.items():
        if key.lower() == name:
            return found
    return None


def retry_after_ms(headers: Mapping[str, str] | None) -> float | None:
    """Return the wait a server asked for before a retry, in milliseconds, or ``None``.

    Reads ``retry-after-ms`` (milliseconds; an OpenAI/Anthropic extension), then ``retry-after``
    as delay-seconds or as an HTTP-date (RFC 9110 §10.2.3; a date in the past gives 0). Names
    match case-insensitively. Negative values become 0; unparsable, infinite or NaN values are
    ignored (``None``), so a bad header never makes a caller wait forever.

    Args:
        headers: Response headers (``httpx2.Headers``, a ``dict``, aiohttp's multidict, ...).
    """
    value = _header(headers, "retry-after-ms")
    if value is not None:
        wait = _finite(value)
        if wait is not None:
            return max(0.0, wait)
    value = _header(headers, "retry-after")
    if value is None:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return max(0.0, seconds * 1000)
    try:
        import email.utils  # lazy: only HTTP-date retry-after values need it

        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": RFC 9110 dates are in GMT
        import datetime

        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, (when.timestamp() - time.time()) * 1000)


def _finite(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None

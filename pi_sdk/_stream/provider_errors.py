"""Errors providers report, the one retry policy every provider shares, and their wording.

A provider raises :class:`ProviderError` for a vendor failure; the stream object turns it into
the terminal ``error`` event and retries it when ``retryable`` (see ``event_stream.py``).

The error text is built here for every provider, so the same failure reads the same on every
API (QA trials t02/t04: an HTML 5xx page went verbatim into ``error_message`` on one API, 16 KB
of it, while another kept only "Error code: 500"):

* HTTP errors, :func:`http_error_message`: ``"<status> <reason phrase>: <vendor code>: <vendor
  message>"``, or a short excerpt of the body (:func:`body_excerpt`) when the vendor sent no
  JSON error message;
* lost connections, :func:`connection_error`: what happened and when (``"connection closed by
  the server before the response: ReadError: [Errno 104] Connection reset by peer"``), retryable;
* undecodable events, :func:`malformed_event_error`: which event, the decoder's complaint and
  an excerpt of the data.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from pi_sdk.types import AssistantMessage

__all__ = [
    "RETRYABLE_STATUS",
    "ConnectionPhase",
    "ProviderError",
    "body_excerpt",
    "connection_error",
    "describe_exception",
    "http_error_message",
    "malformed_event_error",
    "note_provider_error",
    "retry_after_ms",
]

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
        incomplete: The reply was cut short (the body ended before the API's end): its usage,
            if the vendor never sent one, is estimated (``usage_estimated``, issue 12).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_ms: float | None = None,
        incomplete: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms
        self.incomplete = incomplete

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
    as delay-seconds or as an HTTP-date (RFC 9110 §10.2.3; a date in the past gives 0), then
    ``x-ratelimit-reset-after`` (delay seconds) and ``x-ratelimit-reset`` (delay seconds, or a
    Unix time in seconds or milliseconds; issue 12). Names
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
        return _rate_limit_reset_ms(headers)
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


_EPOCH_MS = 1e12
"""A reset value above this is a Unix time in milliseconds (OpenRouter), in seconds above
:data:`_EPOCH_S` (GitHub), else a delay in seconds."""
_EPOCH_S = 1e9


def _rate_limit_reset_ms(headers: Mapping[str, str] | None) -> float | None:
    """The wait from ``x-ratelimit-reset-after`` (delay seconds) or ``x-ratelimit-reset``.

    ``x-ratelimit-reset`` is a delay in seconds, a Unix time in seconds, or one in
    milliseconds, told apart by size (vendors differ); a time in the past gives 0.
    """
    value = _header(headers, "x-ratelimit-reset-after")
    seconds = _finite(value) if value is not None else None
    if seconds is not None:
        return max(0.0, seconds * 1000)
    value = _header(headers, "x-ratelimit-reset")
    reset = _finite(value) if value is not None else None
    if reset is None:
        return None
    if reset > _EPOCH_MS:
        return max(0.0, reset - time.time() * 1000)
    if reset > _EPOCH_S:
        return max(0.0, (reset - time.time()) * 1000)
    return max(0.0, reset * 1000)


def _finite(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


# --- error text -------------------------------------------------------------------------------

EXCERPT_CHARS = 300
"""Longest body excerpt put in an error message, in characters."""

_MARKUP = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>", re.S | re.I)


def body_excerpt(body: str | bytes | None, limit: int = EXCERPT_CHARS) -> str:
    """Return a short, one-line excerpt of a response body, for an error message.

    An HTML page loses its tags (``script`` and ``style`` contents too) and entities are
    decoded; whitespace runs become one space; the result is cut to ``limit`` characters, with
    ``…`` marking a cut.

    Args:
        body: The body as received (bytes are decoded as UTF-8, bad bytes replaced).
        limit: Most characters returned (default :data:`EXCERPT_CHARS`).
    """
    if body is None:
        return ""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    text = text[: limit * 200]  # bound the work on a huge page
    if text.lstrip().startswith("<"):
        import html  # lazy: only HTML bodies need it

        text = html.unescape(_MARKUP.sub(" ", text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def http_error_message(
    status: int,
    *,
    reason: str | None = None,
    code: object = None,
    message: str | None = None,
    body: str | bytes | None = None,
) -> str:
    """Return the text of an HTTP error: status, reason phrase, then the vendor's words.

    ``"429 Too Many Requests: rate_limit_error: Number of requests exceeded"`` when the vendor
    sent a JSON error (``code`` is its type/code/status, ``message`` its message), else
    ``"502 Bad Gateway: <body excerpt>"`` (:func:`body_excerpt`), else ``"502 Bad Gateway"``.

    Args:
        status: The HTTP status.
        reason: The response's reason phrase; default: the standard phrase of ``status``.
        code: The vendor's error type or code, if any (``rate_limit_error``, ``INVALID_ARGUMENT``).
        message: The vendor's error message, if any.
        body: The raw body, excerpted when there is no ``message``.

    A text that reads as a context overflow (:func:`pi_sdk.is_context_overflow`'s vendor
    patterns) ends with ``" (context overflow: the request does not fit the model's context
    window)"``, so a reader of the error knows to shorten the conversation, not to retry it.
    """
    if not reason:
        from http import HTTPStatus  # lazy: only failures need it

        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
    head = f"{status} {reason}".strip()
    text = " ".join(str(message).split()) if message else ""
    if text:
        detail = f"{code}: {text}" if code not in (None, "") else text
    else:
        detail = body_excerpt(body)
        if code not in (None, "") and detail:
            detail = f"{code}: {detail}"
    text = f"{head}: {detail}" if detail else head
    from pi_sdk._wire.overflow import OVERFLOW_NOTE, is_overflow_text  # lazy: only failures need it

    return f"{text} ({OVERFLOW_NOTE})" if is_overflow_text(text) else text


def describe_exception(exc: BaseException) -> str:
    """Return ``"<Type>: <message>"`` for an exception, with the OS-level cause when it adds one.

    Transport libraries wrap the socket error (``httpx2.ReadError("")`` around
    ``ConnectionResetError(104, "Connection reset by peer")``): ``"ReadError: [Errno 104]
    Connection reset by peer"``, not just ``"ReadError"``.
    """
    text = str(exc)
    described = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    seen: set[int] = {id(exc)}
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        detail = str(cause)
        if detail and detail not in described:
            if isinstance(cause, OSError) or not text:
                return f"{described} ({detail})" if text else f"{described}: {detail}"
        cause = cause.__cause__ or cause.__context__
    return described


ConnectionPhase: TypeAlias = Literal["connect", "request", "body"]
"""When a connection failed: while connecting, after the request was sent but before the
response began, or while reading the response body."""

_PHASE_TEXT = {
    "connect": ("could not connect to the server", "timed out connecting to the server"),
    "request": (
        "connection closed by the server before the response",
        "timed out waiting for the response",
    ),
    "body": ("connection lost while reading the response", "timed out reading the response"),
}


def connection_error(
    exc: BaseException, phase: ConnectionPhase, *, timed_out: bool = False
) -> ProviderError:
    """Return the retryable :class:`ProviderError` for a connection that failed.

    The vendor SDKs retry every connection error, before and after the request was sent; so
    does pi-sdk (the retry itself only happens before any event reached the caller).

    Args:
        exc: The transport's exception (``httpx2.ReadError``, ...).
        phase: When it happened (:data:`ConnectionPhase`).
        timed_out: The transport gave up waiting (a timeout, not a closed connection).

    Returns:
        For example ``"connection closed by the server before the response: ReadError:
        [Errno 104] Connection reset by peer"`` with ``retryable=True``.
    """
    what = _PHASE_TEXT[phase][1 if timed_out else 0]
    return ProviderError(f"{what}: {describe_exception(exc)}", retryable=True)


def malformed_event_error(
    data: str, *, event: str, number: int, error: Exception | None = None
) -> ProviderError:
    """Return the :class:`ProviderError` for a stream event the provider cannot use.

    Args:
        data: The event's data as received.
        event: The SSE event name (``"message"`` when the stream names none).
        number: The event's position in the stream, from 1.
        error: The decoder's exception (``json.JSONDecodeError``), if any.

    Returns:
        For example ``"malformed stream event #3 ('content_block_delta'): Expecting value: line
        1 column 1 (char 0); data: '{not json'"``.
    """
    why = f": {error}" if error is not None else ""
    excerpt = body_excerpt(data, 200)
    return ProviderError(f"malformed stream event #{number} ({event!r}){why}; data: {excerpt!r}")


def note_provider_error(message: AssistantMessage, error: ProviderError) -> None:
    """Record on a failed reply what its text cannot carry: status, retryability, requested wait.

    Appends a ``provider_error`` diagnostic (``PROVIDER_ERROR_DIAGNOSTIC``): ``error``
    ``{"name": "ProviderError", "message", "code": status}``, ``details`` ``{"retryable",
    "retryAfterMs"?}``. An agent's :class:`pi_sdk.agent.RetryPolicy` reads it
    (which failures, and the server's ``Retry-After``) once the stream's own retries are over.
    Skipped when there is nothing to add (no status, not retryable, no wait).
    """
    if error.status is None and not error.retryable and error.retry_after_ms is None:
        return
    from pi_sdk._wire.retry_policy import PROVIDER_ERROR_DIAGNOSTIC
    from pi_sdk.types import Diagnostic

    info: dict[str, object] = {"name": "ProviderError", "message": message.error_message or ""}
    if error.status is not None:
        info["code"] = error.status
    details: dict[str, object] = {"retryable": error.retryable}
    if error.retry_after_ms is not None:
        details["retryAfterMs"] = error.retry_after_ms
    diagnostic = Diagnostic(type=PROVIDER_ERROR_DIAGNOSTIC, error=info, details=details)
    message.diagnostics = [diagnostic, *(message.diagnostics or ())]  # before the usage estimate

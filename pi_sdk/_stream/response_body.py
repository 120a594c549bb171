"""The body of a vendor's HTTP response, as a provider reads it.

Providers read response bytes themselves (:func:`pi_sdk.provider.iter_sse` + ``json.loads``);
:class:`ResponseBody` wraps those bytes with what every provider needs around them:

* :meth:`ResponseBody.start`: the first bytes are read before the provider yields ``start``. A
  connection the server drops after the headers but before any byte of the body (QA trial t04)
  then fails before the call started, as "connection closed by the server before the
  response", and the core retries it like any connection error (the vendor SDKs retry it too);
* the bytes, chunk by chunk, with the transport's errors turned into a retryable
  :class:`pi_sdk.provider.ProviderError` (:func:`pi_sdk.provider.connection_error`);
* :meth:`ResponseBody.drain`: after the vendor's terminal event (``message_stop``, ``[DONE]``,
  ``response.completed``, a Gemini ``finishReason``) the reply is complete and the call ends
  there; what is left of the body (normally just the end of the chunked encoding) is read,
  briefly and bounded, so the HTTP connection goes back to the pool instead of being dropped. A
  server that keeps the connection open, or keeps sending, costs at most
  :data:`DRAIN_TIMEOUT_S` and the connection is then closed;
* :meth:`ResponseBody.ended_on_event_boundary`: whether the body ended with a blank line (a
  server-sent-event boundary), to tell a clean end from a cut one;
* :meth:`ResponseBody.check_content`: a page where the stream should be (a captive portal or a
  proxy answering ``200`` with ``text/html``) is named as what it is, with an excerpt, instead
  of ending as a stream cut short (issue 15.6).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterable, AsyncIterator

from pi_sdk._stream.call_scope import current_scope
from pi_sdk._stream.provider_errors import ProviderError, body_excerpt, connection_error

__all__ = ["DRAIN_LIMIT_BYTES", "DRAIN_TIMEOUT_S", "MARKUP_TYPES", "ResponseBody"]

DRAIN_TIMEOUT_S = 0.1
"""Longest wait, in seconds, for the rest of a body after the vendor's terminal event."""

DRAIN_LIMIT_BYTES = 64 * 1024
"""Most bytes read (and discarded) after the terminal event before the connection is dropped."""


MARKUP_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/xml", "application/xml"})
"""Media types of a page, never of a stream or a JSON answer."""


class ResponseBody:
    """The bytes of one response body (an async iterator of ``bytes``).

    Args:
        chunks: The body as the transport delivers it (``response.aiter_bytes()``).
        transport_errors: The transport's exception types for a lost connection (for httpx2:
            ``(httpx2.TransportError,)``); raised while reading, they become a
            :class:`pi_sdk.provider.ProviderError` with ``retryable=True``.
        timeout_errors: Those of them that mean "gave up waiting" (``httpx2.TimeoutException``),
            for the error text.
    """

    __slots__ = ("_activity", "_chunks", "_errors", "_first", "_tail", "_timeouts", "received")

    def __init__(
        self,
        chunks: AsyncIterable[bytes],
        *,
        transport_errors: tuple[type[BaseException], ...] = (),
        timeout_errors: tuple[type[BaseException], ...] = (),
    ) -> None:
        self._chunks: AsyncIterator[bytes] = aiter(chunks)
        self._errors = transport_errors
        self._timeouts = timeout_errors
        self._first: bytes | None = None
        self._tail = b""
        self.received = 0
        """Bytes read so far."""
        # The call's wire activity (pi_sdk._stream.activity): every chunk, keep-alives included,
        # shows the connection is not silent.
        scope = current_scope.get()
        self._activity = scope.activity if scope is not None else None

    async def start(self) -> None:
        """Wait for the first bytes of the body (or its end, for an empty body).

        Call it before yielding ``start``: a failure here happens before the call started, so
        the core may retry it.

        Raises:
            ProviderError: the connection failed before any byte of the body arrived
                ("connection closed by the server before the response: ...", retryable).
        """
        if self._first is not None or self.received:
            return
        try:
            chunk = b""
            while not chunk:
                chunk = await anext(self._chunks)
        except StopAsyncIteration:
            self._first = b""
            return
        except self._errors as exc:
            timed_out = isinstance(exc, self._timeouts)
            raise connection_error(exc, "request", timed_out=timed_out) from exc
        self._first = chunk
        self._count(chunk)

    def check_content(
        self, content_type: str | None, *, status: int = 200, expected: str = "an event stream"
    ) -> None:
        """Raise when the body is a page, not the stream (or JSON answer) the API sends.

        Call it after :meth:`start`. A page is a markup media type (:data:`MARKUP_TYPES`), or a
        body whose first bytes are ``<`` under no content type or a ``text/plain`` one (an
        event stream and a JSON document never start with ``<``).

        Args:
            content_type: The response's ``content-type`` header (``None``: absent).
            status: The HTTP status (the 2xx the page came with).
            expected: What the API sends, for the message (``"an event stream"``).

        Raises:
            ProviderError: ``"the server answered 200 with text/html, not an event stream:
                <excerpt>"`` (not retryable: the same page would come again).
        """
        media = (content_type or "").split(";", 1)[0].strip().lower()
        first = self._first or b""
        if media not in MARKUP_TYPES and not (
            media in ("", "text/plain") and first.lstrip()[:1] == b"<"
        ):
            return
        raise ProviderError(
            f"the server answered {status} with {media or 'no content type'}, not {expected}:"
            f" {body_excerpt(first)!r}"
        )

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        first = self._first
        if first is not None:
            self._first = None
            if first:
                return first
            raise StopAsyncIteration
        activity = self._activity
        waiter = None
        if activity is not None:  # this task now waits on the wire (the core may cancel it)
            waiter = activity.waiter
            activity.since = time.monotonic()
            activity.waiter = asyncio.current_task()
        try:
            chunk = await anext(self._chunks)
        except StopAsyncIteration:
            raise
        except self._errors as exc:
            phase = "body" if self.received else "request"
            raise connection_error(exc, phase, timed_out=isinstance(exc, self._timeouts)) from exc
        finally:
            if activity is not None:
                activity.waiter = waiter  # whoever waited before (the core, reading a provider)
        self._count(chunk)
        return chunk

    def _count(self, chunk: bytes) -> None:
        activity = self._activity
        if activity is not None:
            activity.last = time.monotonic()
        if chunk:
            self.received += len(chunk)
            self._tail = (self._tail + chunk[-4:])[-4:]

    def ended_on_event_boundary(self) -> bool:
        """True for an empty body or one whose bytes so far end with a blank line."""
        tail = self._tail
        return not tail or tail.endswith((b"\n\n", b"\r\r", b"\r\n\r\n", b"\n\r\n"))

    async def drain(
        self, *, timeout_s: float = DRAIN_TIMEOUT_S, limit: int = DRAIN_LIMIT_BYTES
    ) -> bool:
        """Read and discard the rest of the body, for at most ``timeout_s`` and ``limit`` bytes.

        Call it after the vendor's terminal event, before closing the response: a body read to
        its end lets the HTTP client reuse the connection. Never raises for the body's own
        errors (the reply is already complete).

        Returns:
            True when the body ended within the bounds.
        """
        read = 0
        self._first = None
        try:
            async with asyncio.timeout(timeout_s):
                async for chunk in self._chunks:
                    read += len(chunk)
                    if read > limit:
                        return False
        except Exception:  # noqa: BLE001 - the reply is complete already (TimeoutError too)
            return False
        return True

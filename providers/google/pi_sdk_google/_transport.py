"""Transport: ``google-genai`` clients pinned to httpx2 with retries off, and the raw request.

Why pinned: ``google-genai`` sends async requests through aiohttp whenever aiohttp is importable
(``BaseApiClient._use_aiohttp``), unless the client was given its own httpx client. Many packages
pull aiohttp in, so the transport (and with it retry and timeout behaviour, and what vcrpy can
record) would depend on unrelated installs. Every client built here gets its own
``httpx2.AsyncClient`` (which also turns the aiohttp path off) and
``HttpRetryOptions(attempts=1)``: pi-sdk owns retries.

Why raw: the SDK's public streaming call parses every chunk into typed pydantic objects that we
would throw away. The SDK has no public raw-bytes call, so :func:`send` uses its request
machinery one level down: ``BaseApiClient._async_request(HttpRequest, stream=True)`` adds the
auth (API-key header, or an OAuth token from Google Cloud credentials for Vertex AI), sends, and
raises ``errors.APIError`` for HTTP errors; it returns the open ``httpx2.Response``, whose bytes we
read with :func:`pi_sdk.iter_sse`. These are private SDK names, so the dependency is pinned to the
tested major version and ``tests/providers/google/test_google_transport.py`` checks that they still exist.

A default ``google.genai.Client`` costs about 90 ms to build (it loads the CA bundle into three
TLS contexts). Ours share one TLS context (built once per process, in a worker thread, and
shared with the other providers) and one (unused) sync client, and are kept in a
:class:`pi_sdk.ClientCache`: per event loop (an httpx connection pool belongs to one loop) and
per configuration, 16 at most per loop, closed when their loop shuts down.
"""

from __future__ import annotations

import json
import re
import ssl
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

from pi_sdk.provider import (
    ClientCache,
    ConfigurationError,
    ConnectionPhase,
    ProviderError,
    body_excerpt,
    connection_error,
    http_error_message,
    shared_in_thread,
)

from ._stream import as_dict

__all__ = ["RawResponse", "get_client", "prepare", "send"]

SSL_CONTEXT = "httpx2.ssl_context"
"""Name of the process-wide TLS context every provider shares (:func:`pi_sdk.shared_in_thread`)."""

_ssl_context: ssl.SSLContext | None = None
_sync_client: Any = None
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)s$")


class _Pinned:
    """A cached ``google.genai.Client`` and the ``httpx2.AsyncClient`` it sends through."""

    __slots__ = ("client", "credentials", "http")

    def __init__(self, client: Any, http: Any, credentials: Any) -> None:
        self.client = client
        self.http = http
        self.credentials = credentials  # kept alive: its id() is part of the cache key


async def _close(pinned: _Pinned) -> None:
    # The SDK leaves a caller-given httpx client open (it is ours to close).
    await pinned.http.aclose()


_CLIENTS: ClientCache[_Pinned] = ClientCache(_close)


def _create_ssl_context() -> ssl.SSLContext:
    import httpx2

    return httpx2.create_ssl_context()


def _shared_ssl_context() -> ssl.SSLContext:
    global _ssl_context
    if _ssl_context is None:  # get_client() called without prepare(): build it here
        _ssl_context = _create_ssl_context()
    return _ssl_context


def _new_sync_client() -> Any:
    import httpx2

    return httpx2.Client(verify=_shared_ssl_context())


def _shared_sync_client() -> Any:
    # The SDK builds a sync client (with its own TLS context) unless given one; pi-sdk never
    # sends through it, so all cached clients share one.
    global _sync_client
    if _sync_client is None:
        _sync_client = _new_sync_client()
    return _sync_client


async def prepare() -> None:
    """Build the shared TLS context and sync client once per process, in a worker thread.

    Awaited by every call before :func:`get_client`, so building a client never loads the CA
    bundle on the event loop.
    """
    global _ssl_context, _sync_client
    if _sync_client is None:
        _ssl_context = await shared_in_thread(SSL_CONTEXT, _create_ssl_context)
        _sync_client = await shared_in_thread("pi_sdk_google.sync_client", _new_sync_client)


def _new_client(
    *,
    vertex: bool,
    api_key: str | None,
    project: str | None,
    location: str | None,
    credentials: Any,
    timeout_ms: int | None,
) -> _Pinned:
    import httpx2
    from google import genai
    from google.genai import types

    http = httpx2.AsyncClient(verify=_shared_ssl_context(), follow_redirects=True)
    http_options = types.HttpOptions(
        httpx_async_client=http,
        httpx_client=_shared_sync_client(),
        # Only read for the Live API's websockets; given, the SDK skips building a TLS context.
        async_client_args={"ssl": _shared_ssl_context()},
        retry_options=types.HttpRetryOptions(attempts=1),
        timeout=timeout_ms,
    )
    if not vertex:
        client = genai.Client(vertexai=False, api_key=api_key, http_options=http_options)
    elif api_key:
        client = genai.Client(vertexai=True, api_key=api_key, http_options=http_options)
    else:
        client = genai.Client(
            vertexai=True,
            project=project,
            location=location,
            credentials=credentials,
            http_options=http_options,
        )
    return _Pinned(client, http, credentials)


@asynccontextmanager
async def get_client(
    *,
    vertex: bool,
    api_key: str | None,
    project: str | None = None,
    location: str | None = None,
    credentials: Any = None,
    timeout_ms: int | None = None,
) -> AsyncGenerator[Any, None]:
    """Lease the cached ``google.genai.Client`` for this configuration and running event loop.

    Clients live in a :class:`pi_sdk.ClientCache` (per event loop and configuration, 16 per
    loop, built in a worker thread, closed when the loop shuts down; the API key kept only as a
    digest). Use it as an async context manager held for the whole call; await :func:`prepare`
    first.

    Args:
        vertex: Vertex AI (``True``) or the Gemini API.
        api_key: Gemini API key, or Vertex AI API key (express mode); ``None`` for Vertex AI
            with Google Cloud credentials.
        project: Vertex AI project (credentials mode).
        location: Vertex AI location (credentials mode).
        credentials: ``google.auth.credentials.Credentials``; ``None`` means Application
            Default Credentials.
        timeout_ms: Per-read timeout of the HTTP client in milliseconds; ``None``: no timeout.

    Raises:
        ConfigurationError: ``google-genai`` rejected the configuration.
    """

    def build() -> _Pinned:
        try:
            return _new_client(
                vertex=vertex,
                api_key=api_key,
                project=project,
                location=location,
                credentials=credentials,
                timeout_ms=timeout_ms,
            )
        except ValueError as exc:  # the SDK's own configuration checks
            raise ConfigurationError(f"google-genai could not build a client: {exc}") from None

    # The cached client keeps ``credentials`` alive, so its id() cannot be reused meanwhile.
    key = (vertex, project, location, id(credentials) if credentials else None, timeout_ms)
    async with _CLIENTS.lease(key, build, secret=api_key) as pinned:
        yield pinned.client


class RawResponse:
    """The open HTTP response of a request: its bytes, and how to release it."""

    def __init__(self, response: Any) -> None:
        self._response = response

    @property
    def content_type(self) -> str:
        """The response's ``content-type``, lower-cased (``""`` when absent)."""
        headers = getattr(self._response, "headers", None)
        value = headers.get("content-type") if headers is not None else None
        return str(value or "").lower()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """Yield the body as it arrives (httpx2/httpx, or aiohttp for a caller's client)."""
        response = self._response
        if hasattr(response, "aiter_bytes"):
            async for chunk in response.aiter_bytes():
                yield chunk
        else:  # aiohttp.ClientResponse, from a client the caller built without pinning
            async for chunk in response.content.iter_any():
                yield chunk

    async def aread(self) -> bytes:
        """Return the whole body."""
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Release the connection (idempotent)."""
        response = self._response
        close = getattr(response, "aclose", None)
        if close is not None:
            await close()
        else:
            response.release()


def _retry_delay_ms(exc: Any) -> float | None:
    """The ``google.rpc.RetryInfo`` wait in an error body (``{"retryDelay": "37s"}``), in ms."""
    error = as_dict((as_dict(getattr(exc, "details", None)) or {}).get("error")) or {}
    items = error.get("details")
    for item in cast(list[Any], items) if isinstance(items, list) else []:
        delay = (as_dict(item) or {}).get("retryDelay")
        match = _DURATION.match(delay) if isinstance(delay, str) else None
        if match:
            return float(match.group(1)) * 1000
    return None


def _error_from_api(exc: Any) -> ProviderError:
    """Turn a ``google.genai.errors.APIError`` (an HTTP error) into a :class:`pi_sdk.ProviderError`.

    The text is :func:`pi_sdk.http_error_message`'s: ``"<status> <reason>: <status name>:
    <vendor message>"`` from Google's JSON error, or a short excerpt of another body (the SDK
    keeps a non-JSON body whole as its message: an HTML page of 16 KB). Retries:
    :meth:`pi_sdk.ProviderError.from_http`, with ``RetryInfo.retryDelay`` as the fallback wait.
    """
    details: Any = getattr(exc, "details", None)
    if isinstance(details, list) and details:
        details = cast(list[Any], details)[0]
    fields = as_dict(details) or {}
    error = as_dict(fields.get("error")) or {}
    response = getattr(exc, "response", None)
    reason = getattr(response, "reason_phrase", None)
    message = error.get("message")
    if isinstance(message, str) and message:
        code, body = error.get("status"), None
    else:
        # Not Google's error shape: the SDK keeps a non-JSON body as {"message": <text>,
        # "status": <reason phrase>}; any other JSON document is shown as it came.
        raw = fields.get("message")
        message = code = None
        if isinstance(raw, str) and "error" not in fields:
            body = raw
            reason = reason or fields.get("status")
        elif fields:
            body = json.dumps(fields, ensure_ascii=False)
        else:
            body = getattr(exc, "message", None) or str(exc)
    status = getattr(exc, "code", None)
    if not isinstance(status, int):
        return ProviderError(f"Gemini API error: {body_excerpt(message or body)}")
    text = http_error_message(
        status,
        reason=reason if isinstance(reason, str) else None,
        code=code,
        message=message,
        body=body,
    )
    headers = getattr(response, "headers", None)
    return ProviderError.from_http(
        status, text, headers, fallback_retry_after_ms=_retry_delay_ms(exc)
    )


async def send(client: Any, url: str, body: dict[str, Any], headers: dict[str, str]) -> RawResponse:
    """POST ``body`` to ``url`` through ``client``'s auth and transport; return the open response.

    Args:
        client: A ``google.genai.Client`` (ours, or the caller's ``StreamOptions.client``).
        url: The full request URL.
        body: The JSON request body.
        headers: Extra headers (model and call headers), merged over the client's.

    Raises:
        ProviderError: HTTP error (with the vendor's status, message and ``retry-after``;
            retryable for 408/409/429/5xx), connection error or timeout (retryable), or a
            credentials problem (not retryable).
    """
    import httpx2
    from google.auth import exceptions as auth_exceptions
    from google.genai import _api_client, errors

    api = client._api_client
    merged: dict[str, str] = dict(api._http_options.headers or {})
    merged.update(headers)
    timeout_ms = api._http_options.timeout
    request = _api_client.HttpRequest(
        method="post",
        url=url,
        headers=merged,
        data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        timeout=timeout_ms / 1000 if timeout_ms else None,
    )
    try:
        response = await api._async_request(http_request=request, stream=True)
    except errors.APIError as exc:
        raise _error_from_api(exc) from None
    except httpx2.TransportError as exc:
        phase: ConnectionPhase = (
            "connect" if isinstance(exc, httpx2.ConnectError | httpx2.ConnectTimeout) else "request"
        )
        timed_out = isinstance(exc, httpx2.TimeoutException)
        raise connection_error(exc, phase, timed_out=timed_out) from None
    except auth_exceptions.TransportError as exc:
        raise ProviderError(f"Google credentials refresh failed: {exc}", retryable=True) from None
    except auth_exceptions.GoogleAuthError as exc:
        raise ProviderError(f"Google Cloud credentials error: {exc}") from None
    return RawResponse(response.response_stream)

"""The ``google-genai`` client: built pinned to httpx2 with retries off, cached; its errors mapped.

Why pinned: ``google-genai`` sends async requests through aiohttp whenever aiohttp is importable
(``BaseApiClient._use_aiohttp``), unless the client was given its own httpx client. Many packages
pull aiohttp in, so the transport (and with it retry and timeout behaviour, and what vcrpy can
record) would depend on unrelated installs. Every client built here gets its own
``httpx2.AsyncClient`` (which also turns the aiohttp path off) and
``HttpRetryOptions(attempts=1)``: pi-sdk owns retries.

A default ``google.genai.Client`` costs about 90 ms to build (it loads the CA bundle into three
TLS contexts). Ours share one TLS context (built once per process, in a worker thread, and
shared with the other providers) and one (unused) sync client, and are kept in a
:class:`pi_sdk.provider.ClientCache`: per event loop (an httpx connection pool belongs to one loop)
and
per configuration, 16 at most per loop, closed when their loop shuts down.

Errors: :func:`error_from_api` maps the SDK's ``errors.APIError`` (an HTTP error),
:func:`provider_error_from_body` an error object sent inside the stream, and
:func:`transport_errors` names the exception types of a lost connection. The raw request itself
is :mod:`._transport`.
"""

from __future__ import annotations

import json
import re
import ssl
from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast

from pi_sdk import ConfigurationError
from pi_sdk.provider import (
    ClientCache,
    ProviderError,
    body_excerpt,
    http_error_message,
    shared_in_thread,
)

__all__ = [
    "as_dict",
    "error_from_api",
    "get_client",
    "prepare",
    "provider_error_from_body",
    "transport_errors",
]

SSL_CONTEXT = "httpx2.ssl_context"
"""Name of the TLS context every provider shares (:func:`pi_sdk.provider.shared_in_thread`)."""

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

    from pi_sdk.provider import PooledTransport

    transport = PooledTransport(verify=_shared_ssl_context())
    http = httpx2.AsyncClient(transport=transport, follow_redirects=True)
    http_options = types.HttpOptions(
        httpx_async_client=http,
        httpx_client=_shared_sync_client(),
        # Only read for the Live API's websockets; given, the SDK skips building a TLS context.
        async_client_args={"ssl": _shared_ssl_context()},
        retry_options=types.HttpRetryOptions(attempts=1),
        timeout=timeout_ms,
    )
    # The Gemini API and Vertex AI express mode authenticate with the key; Vertex AI otherwise
    # with Google Cloud credentials in a project and location.
    auth: dict[str, Any] = (
        {"api_key": api_key}
        if not vertex or api_key
        else {"project": project, "location": location, "credentials": credentials}
    )
    client = genai.Client(vertexai=vertex, http_options=http_options, **auth)
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

    Clients live in a :class:`pi_sdk.provider.ClientCache` (per event loop and configuration, 16 per
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


def as_dict(value: Any) -> dict[str, Any] | None:
    """Return ``value`` typed as a JSON object, or ``None`` when it is not one."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


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


def error_from_api(exc: Any) -> ProviderError:
    """Turn a ``google.genai.errors.APIError`` (an HTTP error) into a ``ProviderError``.

    The text is :func:`pi_sdk.provider.http_error_message`'s: ``"<status> <reason>: <status name>:
    <vendor message>"`` from Google's JSON error, or a short excerpt of another body (the SDK
    keeps a non-JSON body whole as its message: an HTML page of 16 KB). Retries:
    :meth:`pi_sdk.provider.ProviderError.from_http`, with ``RetryInfo.retryDelay`` as the fallback
    wait.
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
        else:  # an empty body: the status says it all (str(exc) is the SDK's "503 None. {}")
            body = getattr(exc, "message", None) or None
    status = getattr(exc, "code", None)
    if not isinstance(status, int):
        return ProviderError(f"Gemini API error: {body_excerpt(message or body or str(exc))}")
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


def provider_error_from_body(
    error: Any,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    *,
    retry_delay_ms: float | None = None,
) -> ProviderError:
    """Return a :class:`pi_sdk.provider.ProviderError` for a Google error object sent in the stream.

    The text is ``"<code> <status>: <message>"`` (``"503 UNAVAILABLE: The model is
    overloaded."``), as the in-stream errors of the other APIs read.

    Args:
        error: The ``{"code", "message", "status"}`` object of an error body.
        status: The HTTP status; default: the body's ``code``.
        headers: The HTTP response headers (``retry-after``), if any.
        retry_delay_ms: The body's ``RetryInfo.retryDelay`` in milliseconds, used when the
            headers name no wait.

    With a status, retry classification is :meth:`pi_sdk.provider.ProviderError.from_http` (408,
    409,
    429 and 5xx are retryable); without one, the error is not retryable.
    """
    body = as_dict(error) or {}
    code = body.get("code")
    status = status if status is not None else (code if isinstance(code, int) else None)
    label = body.get("status")
    message = body.get("message") or (str(error) if error else "unknown error")
    prefix = " ".join(str(x) for x in (status, label) if x)
    message = body_excerpt(str(message))
    text = f"{prefix}: {message}" if prefix else f"Gemini stream error: {message}"
    if status is None:
        return ProviderError(text)
    return ProviderError.from_http(status, text, headers, fallback_retry_after_ms=retry_delay_ms)


_Errors = tuple[type[BaseException], ...]


def transport_errors() -> tuple[_Errors, _Errors]:
    """Exception types of a lost connection, and those of them that are timeouts.

    httpx2's, and aiohttp's for a caller's client that sends through aiohttp.
    """
    import sys

    import httpx2

    errors: _Errors = (httpx2.TransportError,)
    timeouts: _Errors = (httpx2.TimeoutException,)
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None:
        errors += (aiohttp.ClientError,)
        timeouts += (aiohttp.ServerTimeoutError,)
    return errors, timeouts

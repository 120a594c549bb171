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
tested major version and ``tests/test_google_transport.py`` checks that they still exist.

A default ``google.genai.Client`` costs about 90 ms to build (it loads the CA bundle into three
TLS contexts). Ours share one TLS context and one (unused) sync client, and are cached per event
loop (an httpx connection pool belongs to one loop) and per configuration, 16 at most per loop.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Hashable
from typing import Any, cast

from pi_sdk import ConfigurationError, ProviderError

from ._stream import as_dict, provider_error_from_body

__all__ = ["RawResponse", "get_client", "send"]

_MAX_CLIENTS_PER_LOOP = 16
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, OrderedDict[Hashable, Any]] = (
    weakref.WeakKeyDictionary()
)
_ssl_context: ssl.SSLContext | None = None
_sync_client: Any = None
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)s$")


def _shared_ssl_context() -> ssl.SSLContext:
    global _ssl_context
    if _ssl_context is None:
        import httpx2

        _ssl_context = httpx2.create_ssl_context()
    return _ssl_context


def _shared_sync_client() -> Any:
    # The SDK builds a sync client (with its own TLS context) unless given one; pi-sdk never
    # sends through it, so all cached clients share one.
    global _sync_client
    if _sync_client is None:
        import httpx2

        _sync_client = httpx2.Client(verify=_shared_ssl_context())
    return _sync_client


def _new_client(
    *,
    vertex: bool,
    api_key: str | None,
    project: str | None,
    location: str | None,
    credentials: Any,
    timeout_ms: int | None,
) -> Any:
    import httpx2
    from google import genai
    from google.genai import types

    http_options = types.HttpOptions(
        httpx_async_client=httpx2.AsyncClient(verify=_shared_ssl_context(), follow_redirects=True),
        httpx_client=_shared_sync_client(),
        # Only read for the Live API's websockets; given, the SDK skips building a TLS context.
        async_client_args={"ssl": _shared_ssl_context()},
        retry_options=types.HttpRetryOptions(attempts=1),
        timeout=timeout_ms,
    )
    if not vertex:
        return genai.Client(vertexai=False, api_key=api_key, http_options=http_options)
    if api_key:
        return genai.Client(vertexai=True, api_key=api_key, http_options=http_options)
    return genai.Client(
        vertexai=True,
        project=project,
        location=location,
        credentials=credentials,
        http_options=http_options,
    )


def get_client(
    *,
    vertex: bool,
    api_key: str | None,
    project: str | None = None,
    location: str | None = None,
    credentials: Any = None,
    timeout_ms: int | None = None,
) -> Any:
    """Return a cached ``google.genai.Client`` for this configuration and running event loop.

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
    loop = asyncio.get_running_loop()
    cache = _clients.get(loop)
    if cache is None:
        cache = _clients[loop] = OrderedDict()
    key = (vertex, api_key, project, location, id(credentials) if credentials else None, timeout_ms)
    client = cache.get(key)
    if client is not None and (credentials is None or client[1] is credentials):
        cache.move_to_end(key)
        return client[0]
    try:
        built = _new_client(
            vertex=vertex,
            api_key=api_key,
            project=project,
            location=location,
            credentials=credentials,
            timeout_ms=timeout_ms,
        )
    except ValueError as exc:  # the SDK's own configuration checks
        raise ConfigurationError(f"google-genai could not build a client: {exc}") from None
    cache[key] = (built, credentials)
    while len(cache) > _MAX_CLIENTS_PER_LOOP:
        cache.popitem(last=False)
    return built


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
    details = as_dict(getattr(exc, "details", None))
    body = as_dict(details.get("error", details)) if details is not None else None
    if body is None or not body.get("message"):
        body = {
            "message": getattr(exc, "message", None) or str(exc),
            "status": getattr(exc, "status", None),
        }
    headers = getattr(getattr(exc, "response", None), "headers", None)
    return provider_error_from_body(
        body,
        status=getattr(exc, "code", None),
        headers=headers,
        retry_delay_ms=_retry_delay_ms(exc),
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
    except (httpx2.TimeoutException, httpx2.TransportError) as exc:
        raise ProviderError(
            f"connection to Google failed: {type(exc).__name__}: {exc}", retryable=True
        ) from None
    except auth_exceptions.TransportError as exc:
        raise ProviderError(f"Google credentials refresh failed: {exc}", retryable=True) from None
    except auth_exceptions.GoogleAuthError as exc:
        raise ProviderError(f"Google Cloud credentials error: {exc}") from None
    return RawResponse(response.response_stream)

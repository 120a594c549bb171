"""The raw request: one ``streamGenerateContent`` POST through the SDK's private request path.

Why raw: the SDK's public streaming call parses every chunk into typed pydantic objects that we
would throw away. The SDK has no public raw-bytes call, so :func:`send` uses its request
machinery one level down: ``BaseApiClient._async_request(HttpRequest, stream=True)`` adds the
auth (API-key header, or an OAuth token from Google Cloud credentials for Vertex AI), sends, and
raises ``errors.APIError`` for HTTP errors; it returns the open ``httpx2.Response``, whose bytes we
read with :func:`pi_sdk.provider.iter_sse`. ``_async_request`` runs ``_async_request_once`` under
a tenacity retrier; a client whose retry options allow one attempt (ours: pi-sdk owns retries)
gets ``_async_request_once`` directly, the same request and errors without the retrier's cost
(about a tenth of a short call's CPU). These are private SDK names, so the dependency is pinned
to the tested major version and ``tests/providers/google/test_google_transport.py`` checks that
they still exist. The client itself is built in :mod:`._client`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from pi_sdk.provider import ProviderError, connection_error_from_httpx

from ._client import error_from_api

__all__ = ["RawResponse", "send"]


class RawResponse:
    """The open HTTP response of a request: its bytes, and how to release it."""

    def __init__(self, response: Any) -> None:
        self._response = response

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers (case-insensitive ``get``: httpx2, or aiohttp's)."""
        headers = getattr(self._response, "headers", None)
        return headers if headers is not None else {}

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """Yield the body as it arrives (httpx2/httpx, or aiohttp for a caller's client)."""
        response = self._response
        if hasattr(response, "aiter_bytes"):
            async for chunk in response.aiter_bytes():
                yield chunk
        else:  # aiohttp.ClientResponse, from a client the caller built without pinning
            async for chunk in response.content.iter_any():
                yield chunk

    async def aclose(self) -> None:
        """Release the connection (idempotent)."""
        response = self._response
        close = getattr(response, "aclose", None)
        if close is not None:
            await close()
        else:
            response.release()


def _single_attempt(api: Any) -> bool:
    """True when ``api``'s retry options allow one attempt (retries off: every pi-sdk client)."""
    options = getattr(api._http_options, "retry_options", None)
    return options is not None and options.attempts == 1


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
        if _single_attempt(api):
            # What the retrier would run, once: any error is raised as it comes.
            response = await api._async_request_once(request, stream=True, implicit_retry=False)
        else:  # a caller's client with its own retry options
            response = await api._async_request(http_request=request, stream=True)
    except errors.APIError as exc:
        raise error_from_api(exc) from None
    except httpx2.TransportError as exc:
        raise connection_error_from_httpx(exc) from None
    except auth_exceptions.TransportError as exc:
        raise ProviderError(f"Google credentials refresh failed: {exc}", retryable=True) from None
    except auth_exceptions.GoogleAuthError as exc:
        raise ProviderError(f"Google Cloud credentials error: {exc}") from None
    return RawResponse(response.response_stream)

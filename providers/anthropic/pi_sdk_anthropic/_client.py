"""The ``anthropic`` SDK client: built once per event loop and configuration, shared by calls.

A new ``AsyncAnthropic`` per call costs 30-75 ms on the event loop (its TLS context loads the CA
bundle) and a new TCP/TLS connection. Clients are kept in a :class:`pi_sdk.ClientCache` keyed by
base URL, auth mode and (as a digest) the key and the SDK's environment variables; they share
one TLS context, built once per process in a worker thread. The SDK's own retries are off
(``max_retries=0``): pi-sdk owns retries.
"""

from __future__ import annotations

import os
from contextlib import AbstractAsyncContextManager
from typing import Any

from pi_sdk.provider import ClientCache, Model, shared_in_thread

__all__ = ["SSL_CONTEXT", "client_lease"]

SSL_CONTEXT = "httpx2.ssl_context"
"""Name of the process-wide TLS context (:func:`pi_sdk.shared_in_thread`), the same in every
provider: ``httpx2.create_ssl_context()``, what the SDK would build for each client."""


async def _close(client: Any) -> None:
    await client.close()


_CLIENTS: ClientCache[Any] = ClientCache(_close)
_CLIENT_ENV = ("ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS")
"""Environment variables the SDK reads when it builds a client: part of the cache key (as a
digest, with the key: custom headers may hold credentials)."""


def _ssl_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


async def client_lease(
    model: Model, api_key: str, *, bearer: bool
) -> AbstractAsyncContextManager[Any]:
    """Return a lease on the ``AsyncAnthropic`` for ``model.base_url`` and this key.

    Args:
        model: Its ``base_url`` (empty: the SDK's default, ``ANTHROPIC_BASE_URL`` or the public
            endpoint) picks the client.
        api_key: The API key, or an OAuth/bearer token when ``bearer``.
        bearer: Send the key as ``Authorization: Bearer`` (``auth_token``) instead of
            ``x-api-key`` (Claude Code OAuth tokens, GitHub Copilot).

    Returns:
        An async context manager (the client is built in a worker thread on first use); hold it
        for the whole call (request and body).
    """
    import anthropic

    verify = await shared_in_thread(SSL_CONTEXT, _ssl_context)
    base_url = model.base_url or None

    def build() -> Any:
        http_client = anthropic.DefaultAsyncHttpxClient(verify=verify)
        if bearer:
            return anthropic.AsyncAnthropic(
                auth_token=api_key, base_url=base_url, max_retries=0, http_client=http_client
            )
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, http_client=http_client
        )

    secret = "\0".join([api_key, *(os.environ.get(name) or "" for name in _CLIENT_ENV)])
    return _CLIENTS.lease((base_url, "bearer" if bearer else "api_key"), build, secret=secret)

"""The ``openai`` SDK client both wire APIs share: build, send, map errors.

The ``openai`` SDK builds the client (auth, base URL, headers), sends the request and turns HTTP
errors into its exception types; we take the raw ``httpx2.Response`` back
(``client.post(..., cast_to=httpx2.Response, stream=True)``, the SDK's documented way to reach
an endpoint without its typed wrappers) and read the bytes ourselves. The SDK's own retries are
off (``max_retries=0``): pi-sdk's stream wrapper owns retries, so each failure is retried once,
by one owner, with one backoff policy. The SDK is imported inside the functions, never at module
import time.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from pi_sdk import ConfigurationError, Model, StreamOptions
from pi_sdk.provider import (
    ClientCache,
    HttpCall,
    MessageBuilder,
    ProviderError,
    WireDecoder,
    body_excerpt,
    connection_error_from_httpx,
    http_error_message,
    import_vendor,
    resolve_api_key,
    resolve_base_url,
    shared_in_thread,
)

from ._env_keys import ENV_API_KEYS
from ._shared_hosts import is_local_base_url
from ._shared_json import as_dict

if TYPE_CHECKING:
    import httpx2
    from openai import AsyncOpenAI

__all__ = [
    "ENV_API_KEYS",
    "ClientLease",
    "caller_client",
    "get_client",
    "open_response",
    "plan_request",
    "request_headers",
    "shared_ssl_context",
]

_LOCAL_PLACEHOLDER_KEY = "pi-sdk-no-key"


async def _close(client: AsyncOpenAI) -> None:
    await client.close()


_CLIENTS: ClientCache[AsyncOpenAI] = ClientCache(_close)
_CLIENT_ENV = (
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "OPENAI_ADMIN_KEY",
)
"""Environment variables the SDK reads when it builds a client: part of the cache key (as a
digest, with the key: some are credentials)."""
_SSL_CONTEXT = "httpx2.ssl_context"
"""The process-wide TLS context every provider shares (:func:`pi_sdk.provider.shared_in_thread`)."""


def _ssl_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


async def shared_ssl_context() -> Any:
    """The process-wide TLS context (built once, in a worker thread) for an SDK http client."""
    return await shared_in_thread(_SSL_CONTEXT, _ssl_context)


ClientLease = Callable[
    [Model, StreamOptions], Awaitable[AbstractAsyncContextManager["AsyncOpenAI"]]
]
"""``lease(model, options)``: an async context manager holding the client for one call
(:func:`get_client`; another package's factory for its own endpoints, e.g. pi-sdk-azure)."""


def caller_client(options: StreamOptions) -> AbstractAsyncContextManager[AsyncOpenAI] | None:
    """A lease on ``options.client`` (used as is, never closed), or ``None`` when unset.

    Raises:
        ConfigurationError: ``options.client`` is not an ``openai.AsyncOpenAI`` (or
            ``AsyncAzureOpenAI``, a subclass).
    """
    import openai

    if options.client is None:
        return None
    if not isinstance(options.client, openai.AsyncOpenAI):
        raise ConfigurationError(
            "StreamOptions.client must be an openai.AsyncOpenAI (or AsyncAzureOpenAI),"
            f" got {type(options.client).__name__}"
        )
    return nullcontext(options.client)


async def get_client(
    model: Model, options: StreamOptions
) -> AbstractAsyncContextManager[AsyncOpenAI]:
    """Return a lease on ``options.client``, or on the cached ``AsyncOpenAI`` for the model.

    Clients are kept per event loop, base URL and key (:class:`pi_sdk.provider.ClientCache`; the
    key is
    kept only as a digest), share one TLS context, and have the SDK's retries off; hold the
    lease (an async context manager) for the whole call; a new client is built in a worker
    thread. The key is ``options.api_key``, else the ``get_api_key`` plugin
    answer for ``model.provider``. pi-mono falls back to ``OPENAI_API_KEY`` for *every*
    provider; we do not, so an OpenAI key is never sent to another vendor. A server on this
    machine (Ollama, LM Studio, llama.cpp, vLLM) needs no key and gets a placeholder. The base
    URL's ``{NAME}`` placeholders (the catalog's Cloudflare models) are filled in from the
    environment (:func:`pi_sdk.provider.resolve_base_url`).

    Raises:
        ConfigurationError: no key could be found, a base-URL placeholder names an unset
            variable, or ``options.client`` is not an async client (reported as the call's
            ``error`` event, before any request).
    """
    import openai

    given = caller_client(options)
    if given is not None:
        return given
    key = resolve_api_key(model, options)
    if not key:
        if not is_local_base_url(model.base_url):
            env = ENV_API_KEYS.get(model.provider)
            where = f"set {' or '.join(env)} or pass" if env else "pass"
            raise ConfigurationError(
                f"No API key for provider {model.provider!r}: {where} StreamOptions(api_key=...)"
            )
        key = _LOCAL_PLACEHOLDER_KEY
    verify = await shared_ssl_context()
    base_url = resolve_base_url(model) or None

    def build() -> AsyncOpenAI:
        from pi_sdk.provider import PooledTransport  # imports httpx2: only once a client is built

        return openai.AsyncOpenAI(
            api_key=key,
            base_url=base_url,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(transport=PooledTransport(verify=verify)),
        )

    secret = "\0".join([key, *(os.environ.get(name) or "" for name in _CLIENT_ENV)])
    return _CLIENTS.lease(base_url, build, secret=secret)


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Per-request headers: ``model.headers``, then ``options.headers`` (later wins)."""
    return {**(model.headers or {}), **(options.headers or {})}


def _status_error(exc: Any) -> ProviderError:
    """Turn an ``openai.APIStatusError`` into a :class:`pi_sdk.provider.ProviderError`.

    The text is :func:`pi_sdk.provider.http_error_message`'s: ``"<status> <reason>: <error code>:
    <vendor message>"`` from the JSON error object, or a short excerpt of another body (a
    proxy's HTML page); OpenRouter's ``metadata.raw`` (the upstream provider's own error)
    follows on a new line. Retries: :meth:`pi_sdk.provider.ProviderError.from_http`.
    """
    status: int = exc.status_code
    response: Any = exc.response
    error = as_dict(exc.body)  # the SDK hands over the "error" object of a JSON body
    message = error.get("message")
    has_message = isinstance(message, str) and bool(message)
    code = error.get("code") or error.get("type")
    text = http_error_message(
        status,
        reason=getattr(response, "reason_phrase", None),
        code=code if has_message else None,
        message=message if has_message else None,
        body=None if has_message else _response_text(response, exc.body),
    )
    raw = as_dict(error.get("metadata")).get("raw")
    if isinstance(raw, str) and raw:
        text = f"{text}\n{body_excerpt(raw)}"  # OpenRouter puts the upstream error here
    return ProviderError.from_http(status, text, response.headers)


def _response_text(response: Any, body: object) -> str:
    """The body of a read error response ('' when it was not read)."""
    try:
        return str(response.text)
    except Exception:  # noqa: BLE001 - httpx2.ResponseNotRead: fall back to the SDK's copy
        return body if isinstance(body, str) else ""


async def open_response(
    client: AsyncOpenAI, path: str, payload: dict[str, Any], headers: Mapping[str, str]
) -> httpx2.Response:
    """POST ``payload`` to ``path`` and return the unread response once its headers are in.

    Raises:
        ProviderError: HTTP 4xx/5xx (``status`` set; the vendor's message in the text;
            classified by :meth:`pi_sdk.provider.ProviderError.from_http`: ``x-should-retry``, else
            retryable for 408, 409, 429 and 5xx, ``retry_after_ms`` from ``retry-after-ms`` /
            ``retry-after``), or a connection failure / timeout (retryable).
    """
    import httpx2
    from openai import APIConnectionError, APIStatusError

    try:
        return await client.post(
            path,
            cast_to=httpx2.Response,
            body=payload,
            stream=True,
            options={"headers": dict(headers)},
        )
    except APIStatusError as exc:
        raise _status_error(exc) from exc
    except APIConnectionError as exc:
        raise connection_error_from_httpx(exc) from exc


async def plan_request(
    model: Model,
    options: StreamOptions,
    *,
    path: str,
    build_payload: Callable[[str], dict[str, Any]],
    decoder: Callable[[MessageBuilder], WireDecoder],
    client: ClientLease = get_client,
) -> HttpCall[AsyncOpenAI]:
    """The plan of one call of either API (pi-spec §4.0), for the core's read loop.

    Leases the client (:func:`get_client`); the URL called is the client's (a caller's client,
    or the SDK default / ``OPENAI_BASE_URL`` when ``model.base_url`` is empty), whose origin
    ``build_payload(origin)`` gets; the hooked payload is POSTed to ``path``
    (:func:`open_response`) with :func:`request_headers`, and the reply read through
    ``decoder(builder)``. ``client`` leases the SDK client (default :func:`get_client`;
    pi-sdk-azure passes its own for Azure endpoints and auth).

    Raises:
        ConfigurationError: see :func:`get_client`.
    """
    # The first import of the SDK runs in a worker thread, not on the event loop.
    await import_vendor("openai")
    lease = await client(model, options)
    headers = request_headers(model, options)
    return HttpCall(
        lease=lease,
        base_url=lambda sdk_client: str(sdk_client.base_url),
        build_payload=build_payload,
        send=lambda sdk_client, payload: open_response(sdk_client, path, payload, headers),
        decoder=decoder,
    )

"""The ``anthropic`` SDK client, the request's headers, sending it, and the SDK's errors.

The client is built once per event loop and configuration and shared by calls.

A new ``AsyncAnthropic`` per call costs 30-75 ms on the event loop (its TLS context loads the CA
bundle) and a new TCP/TLS connection. Clients are kept in a :class:`pi_sdk.provider.ClientCache`
keyed by
base URL, auth mode and (as a digest) the key and the SDK's environment variables; they share
one TLS context, built once per process in a worker thread. The SDK's own retries are off
(``max_retries=0``): pi-sdk owns retries.
"""

from __future__ import annotations

import os
import re
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

import pi_sdk
from pi_sdk import provider as kit

__all__ = [
    "MESSAGES_PATH",
    "SSL_CONTEXT",
    "build_headers",
    "client_lease",
    "is_adaptive_model",
    "is_oauth_token",
    "open_messages",
]

MESSAGES_PATH = "/v1/messages"
"""Path of the endpoint, relative to ``Model.base_url``."""

_BETA_FINE_GRAINED = "fine-grained-tool-streaming-2025-05-14"
_BETA_INTERLEAVED = "interleaved-thinking-2025-05-14"
_BETA_FILES = "files-api-2025-04-14"  # a document given by Files API id
_OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
_CLAUDE_CODE_VERSION = "2.1.75"
_FAMILY_VERSION = re.compile(
    r"(?P<family>opus|sonnet|haiku)-(?P<major>\d)(?:[-.](?P<minor>\d)(?!\d))?"
)
_ADAPTIVE_MARKERS = ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6")

SSL_CONTEXT = "httpx2.ssl_context"
"""Name of the process-wide TLS context (:func:`pi_sdk.provider.shared_in_thread`), the same
in every provider: ``httpx2.create_ssl_context()``, what the SDK would build for each client."""


async def _close(client: Any) -> None:
    await client.close()


_CLIENTS: kit.ClientCache[Any] = kit.ClientCache(_close)
_CLIENT_ENV = ("ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS")
"""Environment variables the SDK reads when it builds a client: part of the cache key (as a
digest, with the key: custom headers may hold credentials)."""


def _ssl_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


async def client_lease(
    model: pi_sdk.Model, api_key: str, *, bearer: bool
) -> AbstractAsyncContextManager[Any]:
    """Return a lease on the ``AsyncAnthropic`` for ``model.base_url`` and this key.

    Args:
        model: Its ``base_url`` (empty: the SDK's default, ``ANTHROPIC_BASE_URL`` or the public
            endpoint; ``{NAME}`` placeholders filled in from the environment,
            :func:`pi_sdk.provider.resolve_base_url`) picks the client.
        api_key: The API key, or an OAuth/bearer token when ``bearer``.
        bearer: Send the key as ``Authorization: Bearer`` (``auth_token``) instead of
            ``x-api-key`` (Claude Code OAuth tokens, GitHub Copilot).

    Returns:
        An async context manager (the client is built in a worker thread on first use); hold it
        for the whole call (request and body).

    Raises:
        ConfigurationError: a ``{NAME}`` placeholder of the base URL names an unset variable.
    """
    import anthropic

    verify = await kit.shared_in_thread(SSL_CONTEXT, _ssl_context)
    base_url = kit.resolve_base_url(model) or None

    def build() -> Any:
        http_client = anthropic.DefaultAsyncHttpxClient(
            transport=kit.PooledTransport(verify=verify)
        )
        if bearer:
            return anthropic.AsyncAnthropic(
                auth_token=api_key, base_url=base_url, max_retries=0, http_client=http_client
            )
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, http_client=http_client
        )

    secret = "\0".join([api_key, *(os.environ.get(name) or "" for name in _CLIENT_ENV)])
    return _CLIENTS.lease((base_url, "bearer" if bearer else "api_key"), build, secret=secret)


# --- auth mode and headers --------------------------------------------------------------------


def is_adaptive_model(model: pi_sdk.Model) -> bool:
    """True for models that take ``thinking: {"type": "adaptive"}`` (pi-mono: Opus/Sonnet 4.6)."""
    return any(marker in model.id for marker in _ADAPTIVE_MARKERS)


def supports_structured_outputs(model: pi_sdk.Model) -> bool:
    """True for models with Anthropic structured outputs (``output_config.format``).

    Claude Opus 4.1 and the 4.5 generation and later (Anthropic docs, "Structured outputs"; the
    model's ``compat["supportsStructuredOutputs"]`` wins). Others get a forced tool.
    """
    flag = (model.compat or {}).get("supportsStructuredOutputs")
    if isinstance(flag, bool):
        return flag
    found = _FAMILY_VERSION.search(model.id)
    if found is None:
        return False
    version = (int(found["major"]), int(found["minor"] or 0))
    return version >= (4, 5) or (found["family"] == "opus" and version >= (4, 1))


def is_oauth_token(api_key: str | None) -> bool:
    """True for a Claude Code OAuth token (contains ``sk-ant-oat``), sent as a Bearer token."""
    return api_key is not None and "sk-ant-oat" in api_key


def supports_eager_tool_input_streaming(model: pi_sdk.Model) -> bool:
    """``model.compat["supportsEagerToolInputStreaming"]``, default True (pi-ai 0.73).

    True: each tool is sent with ``eager_input_streaming: true`` (the GA form of fine-grained
    tool streaming); False (proxies that reject the field): the tools go without it and the
    ``fine-grained-tool-streaming`` beta header asks for the same.
    """
    return (model.compat or {}).get("supportsEagerToolInputStreaming", True) is not False


def build_headers(
    model: pi_sdk.Model,
    options: pi_sdk.StreamOptions,
    api_key: str | None,
    *,
    has_tools: bool = False,
    has_files: bool = False,
) -> dict[str, str]:
    """Return the per-request HTTP headers: betas, OAuth/Copilot extras, model and call headers.

    Merge order (later wins): defaults, ``model.headers``, ``options.headers`` (pi-mono
    ``createClient``). Auth headers are the SDK's job and never appear here. The
    ``fine-grained-tool-streaming`` beta goes only with tools (``has_tools``) to a model
    without eager tool input streaming (pi-ai 0.73 ``shouldUseFineGrainedToolStreamingBeta``;
    the others get ``eager_input_streaming`` on each tool instead). The Files API beta goes
    with a document given by file id (``has_files``).
    """
    interleaved = bool(options.provider_options.get("interleaved_thinking", True))
    needs_interleaved = interleaved and not is_adaptive_model(model)
    fine_grained = has_tools and not supports_eager_tool_input_streaming(model)
    betas: list[str] = []
    headers: dict[str, str] = {}
    if model.provider == "github-copilot":
        headers["accept"] = "application/json"
        headers["anthropic-dangerous-direct-browser-access"] = "true"
    elif is_oauth_token(api_key):
        betas.extend(_OAUTH_BETAS)
        headers["accept"] = "application/json"
        headers["anthropic-dangerous-direct-browser-access"] = "true"
        headers["user-agent"] = f"claude-cli/{_CLAUDE_CODE_VERSION}"
        headers["x-app"] = "cli"
    if fine_grained:
        betas.append(_BETA_FINE_GRAINED)
    if needs_interleaved:
        betas.append(_BETA_INTERLEAVED)
    if has_files:
        betas.append(_BETA_FILES)
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    headers.update(_session_affinity(model, options))
    headers.update(model.headers or {})
    headers.update(options.headers or {})
    return headers


def _session_affinity(model: pi_sdk.Model, options: pi_sdk.StreamOptions) -> dict[str, str]:
    """pi-ai 1.6: ``options.session_id`` as ``x-session-affinity`` (OpenRouter: ``x-session-id``).

    Only with ``compat.sendSessionAffinityHeaders`` (on by default for OpenRouter) and caching on,
    so a load balancer keeps a session's requests on one prompt cache (Fireworks, OpenRouter).
    """
    session = options.session_id
    if not session or options.resolved_cache_retention() == "none":
        return {}
    compat = model.compat or {}
    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
    if compat.get("sendSessionAffinityHeaders", openrouter) is not True:
        return {}
    fmt = compat.get("sessionAffinityFormat", "openrouter" if openrouter else None)
    return {"x-session-id" if fmt == "openrouter" else "x-session-affinity": session}


# --- sending ----------------------------------------------------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def _status_error(exc: Any) -> kit.ProviderError:
    """Turn an ``anthropic.APIStatusError`` into a :class:`pi_sdk.provider.ProviderError`.

    The text is :func:`pi_sdk.provider.http_error_message`'s: ``"<status> <reason>: <error type>:
    <vendor message>"``, or a short excerpt of a body that is not Anthropic's JSON error (a
    proxy's HTML page). Retry classification and ``retry-after`` come from
    :meth:`pi_sdk.provider.ProviderError.from_http`.
    """
    status: int = exc.status_code
    response: Any = exc.response
    error = _dict(_dict(exc.body).get("error"))
    message = error.get("message")
    text = kit.http_error_message(
        status,
        reason=getattr(response, "reason_phrase", None),
        code=error.get("type") if isinstance(message, str) else None,
        message=message if isinstance(message, str) else None,
        body=_response_text(response) if not isinstance(message, str) else None,
    )
    return kit.ProviderError.from_http(status, text, response.headers)


def _response_text(response: Any) -> str:
    """The body of a read error response ('' when it was not read)."""
    try:
        return str(response.text)
    except Exception:  # noqa: BLE001 - httpx2.ResponseNotRead: nothing to show
        return ""


async def open_messages(
    client: Any, payload: dict[str, Any], headers: dict[str, str], path: str = MESSAGES_PATH
) -> Any:
    """Send the request through the SDK and return the raw, unread ``httpx2.Response``.

    ``path``: the Messages endpoint, or another of the API (``/v1/messages/count_tokens``).

    ``client.post(..., cast_to=httpx2.Response, stream=True)`` keeps the SDK's auth, default
    headers, request building and status-error mapping, and hands back the response before
    its body is read (``AsyncAPIClient._process_response`` returns it as is for that
    ``cast_to``). The SDK's retries are off for this request (``max_retries=0``).

    Raises:
        ProviderError: HTTP 4xx/5xx (``status``, ``retryable``, ``retry_after_ms`` set), or a
            connection failure / timeout (retryable).
    """
    import anthropic
    import httpx2

    try:
        response: object = await client.post(
            path,
            cast_to=httpx2.Response,
            body=payload,
            options={"headers": headers, "max_retries": 0},
            stream=True,
            stream_cls=anthropic.AsyncStream[Any],
        )
    except anthropic.APIStatusError as exc:
        raise _status_error(exc) from None
    except anthropic.APIConnectionError as exc:
        raise kit.connection_error_from_httpx(exc) from None
    if not isinstance(response, httpx2.Response):
        raise TypeError(f"expected an httpx2.Response from the SDK, got {type(response).__name__}")
    return response

"""The ``mistralai`` SDK client, the request's headers, sending it, and the HTTP errors.

The client (``mistralai.client.Mistral``) is built once per event loop and configuration and
shared by calls, as the other packages do (:class:`pi_sdk.provider.ClientCache`): a new SDK
client per call builds two httpx clients and their TLS contexts (tens of milliseconds on the
event loop) and opens a new connection. Both httpx clients share the process-wide TLS context.

The request goes through the SDK's own request machinery (base URL, ``Authorization: Bearer``
from the key or ``MISTRAL_API_KEY``, user agent, its hooks, timeout) with the JSON body this
package built, unchanged (the SDK's typed request models would re-validate and could drop
fields an ``on_payload`` hook added); the SDK's retries are not used: pi-sdk owns retries.
"""

from __future__ import annotations

import json
import os
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

import pi_sdk
from pi_sdk import provider as kit

__all__ = [
    "CHAT_PATH",
    "DEFAULT_BASE_URL",
    "build_headers",
    "client_base_url",
    "client_lease",
    "open_chat",
]

CHAT_PATH = "/v1/chat/completions"
"""Path of the endpoint, relative to the server URL (``Model.base_url``)."""

DEFAULT_BASE_URL = "https://api.mistral.ai"
"""The SDK's default server URL."""

_SSL_CONTEXT = "httpx2.ssl_context"
"""Name of the process-wide TLS context (:func:`pi_sdk.provider.shared_in_thread`), the one the
Anthropic and OpenAI packages share."""

_DEFAULT_TIMEOUT_MS = 300_000
"""The SDK's per-request timeout when its configuration sets none (``Chat.stream_async``)."""

_ERROR_BODY_LIMIT = 1 << 20
"""Bytes of an error response read for its message (error bodies are small JSON objects)."""


def _ssl_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


async def _close(client: Any) -> None:
    config = client.sdk_configuration
    await config.async_client.aclose()
    config.client.close()


_CLIENTS: kit.ClientCache[Any] = kit.ClientCache(_close)


async def client_lease(model: pi_sdk.Model, api_key: str) -> AbstractAsyncContextManager[Any]:
    """Return a lease on the ``Mistral`` client for ``model.base_url`` and this key.

    Args:
        model: Its ``base_url`` (the server URL, without ``/v1``; empty: the SDK's default,
            ``https://api.mistral.ai``) picks the client.
        api_key: The API key (sent as ``Authorization: Bearer``).

    Returns:
        An async context manager (the client is built in a worker thread on first use); hold it
        for the whole call (request and body).
    """
    import httpx2
    from mistralai.client import Mistral

    verify = await kit.shared_in_thread(_SSL_CONTEXT, _ssl_context)
    server_url = model.base_url or None

    def build() -> Any:
        return Mistral(
            api_key=api_key,
            server_url=server_url,
            client=httpx2.Client(verify=verify, follow_redirects=True),
            async_client=httpx2.AsyncClient(
                transport=kit.PooledTransport(verify=verify), follow_redirects=True
            ),
        )

    secret = "\0".join([api_key, os.environ.get("MISTRAL_API_KEY") or ""])
    return _CLIENTS.lease((server_url,), build, secret=secret)


def client_base_url(client: Any) -> str:
    """The server URL a ``Mistral`` client sends to (its ``server_url`` or the SDK default)."""
    try:
        url, _ = client.sdk_configuration.get_server_details()
    except AttributeError:  # not a Mistral client: the caller's object
        return ""
    return str(url or "").rstrip("/")


def build_headers(model: pi_sdk.Model, options: pi_sdk.StreamOptions) -> dict[str, str]:
    """Return the per-request headers: ``x-affinity``, then model and call headers.

    ``x-affinity: <session_id>`` routes the calls of one session to the same servers, for
    Mistral's prefix (KV) cache, so it goes only while caching is on (cache retention not
    ``"none"``); a caller's own ``x-affinity`` wins (pi-ai 1.6 ``buildRequestOptions``,
    ``shouldUsePromptCaching``). Merge order (later wins): ``model.headers``,
    ``options.headers``. Auth is the SDK's job and never appears here.
    """
    headers: dict[str, str] = {}
    headers.update(model.headers or {})
    headers.update(options.headers or {})
    caching = options.resolved_cache_retention() != "none"
    if options.session_id and caching and not any(k.lower() == "x-affinity" for k in headers):
        headers["x-affinity"] = options.session_id
    return headers


# --- sending ----------------------------------------------------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def _error_parts(text: str) -> tuple[str | None, str | None]:
    """``(code, message)`` of a Mistral error body, or ``(None, None)`` for another body.

    Mistral answers ``{"object": "error", "message": ..., "type": ..., "code": ...}``; a
    validation error (422) ``{"detail": [{"loc", "msg", "type"}]}``; ``message`` may itself
    be an object (shown as JSON).
    """
    try:
        body = _dict(json.loads(text))
    except ValueError:
        return None, None
    message: Any = body.get("message")
    if message is None and "detail" in body:
        message = body["detail"]
    if message is None:
        return None, None
    if not isinstance(message, str):
        message = json.dumps(message, ensure_ascii=False)
    code = body.get("type") or body.get("code")
    return (str(code) if code else None), message


def status_error(status: int, reason: str | None, text: str, headers: Any) -> kit.ProviderError:
    """Turn a Mistral HTTP error response into a :class:`pi_sdk.provider.ProviderError`.

    The text is :func:`pi_sdk.provider.http_error_message`'s: ``"<status> <reason>: <error
    type>: <vendor message>"``, or an excerpt of a body that is not Mistral's JSON error (a
    proxy's HTML page). Retry classification and ``retry-after`` come from
    :meth:`pi_sdk.provider.ProviderError.from_http`.
    """
    code, message = _error_parts(text)
    message_text = kit.http_error_message(
        status,
        reason=reason,
        code=code,
        message=message,
        body=text if message is None else None,
    )
    return kit.ProviderError.from_http(status, message_text, headers)


def _is_error_status(status: int) -> bool:
    return status >= 400


async def open_chat(client: Any, payload: dict[str, Any], headers: dict[str, str]) -> Any:
    """Send the request through the SDK and return the raw, unread ``httpx2.Response``.

    ``Chat._build_request_async`` + ``do_request_async`` are what ``Chat.stream_async`` runs,
    minus its typed request model: the SDK adds the server URL, auth, user agent and timeout
    and runs its hooks; the body is ``payload`` as JSON. ``Accept: text/event-stream``; a
    server that answers one JSON document is read whole by the caller.

    Raises:
        ProviderError: HTTP 4xx/5xx (``status``, ``retryable``, ``retry_after_ms`` set), or a
            connection failure / timeout (retryable).
    """
    import httpx2
    from mistralai.client import errors
    from mistralai.client._hooks import HookContext
    from mistralai.client.utils import SerializedRequestBody

    chat = client.chat
    config = chat.sdk_configuration
    base_url = chat._get_url(None, None)  # noqa: SLF001 - the SDK's own server URL rule
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    try:
        request = chat._build_request_async(  # noqa: SLF001 - Chat.stream_async's first step
            method="POST",
            path=CHAT_PATH,
            base_url=base_url,
            url_variables=None,
            request=None,
            request_body_required=True,
            request_has_path_params=False,
            request_has_query_params=False,
            user_agent_header="user-agent",
            accept_header_value="text/event-stream",
            http_headers=headers,
            security=config.security,
            get_serialized_body=lambda: SerializedRequestBody(
                media_type="application/json", content=body
            ),
            timeout_ms=config.timeout_ms or _DEFAULT_TIMEOUT_MS,
        )
        response: Any = await chat.do_request_async(
            hook_ctx=HookContext(
                config=config,
                base_url=base_url or "",
                operation_id="stream_chat",
                oauth2_scopes=None,
                security_source=config.security,
                tags=["chat"],
                extensions=None,
            ),
            request=request,
            is_error_status_code=_is_error_status,
            stream=True,
        )
    except errors.MistralError as exc:  # an after_error hook raised it: its body and reason
        reason = exc.raw_response.reason_phrase
        raise status_error(exc.status_code, reason, exc.body or "", exc.headers) from None
    except httpx2.TransportError as exc:
        raise kit.connection_error_from_httpx(exc) from None
    if response.status_code >= 400:
        raw = b""
        try:
            async for chunk in response.aiter_bytes():
                raw += chunk
                if len(raw) >= _ERROR_BODY_LIMIT:
                    break
        except httpx2.TransportError:
            pass  # the status is the error; a body cut short only shortens its message
        finally:
            await response.aclose()
        text = raw.decode("utf-8", errors="replace")
        raise status_error(response.status_code, response.reason_phrase, text, response.headers)
    return response

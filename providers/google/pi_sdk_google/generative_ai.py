"""The Gemini API (api ``google-generative-ai``, ``generativelanguage.googleapis.com``).

pi-mono ``google.ts``; pi-spec §4.7-4.8. Request building is in :mod:`._shared`, stream
normalization in :mod:`._stream`, the transport in :mod:`._transport`. Importing this module does
not import ``google.genai``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any
from urllib.parse import urlsplit

from pi_sdk.provider import (
    AssistantMessageEvent,
    ConfigurationError,
    Context,
    Model,
    StreamOptions,
    resolve_api_key,
)

from ._call import COMMON_OPTIONS, STREAM_METHOD, check_provider_options, model_path, run_stream
from ._shared import recorded_model

__all__ = [
    "API",
    "DEFAULT_BASE_URL",
    "base_url",
    "recognize_generative_ai",
    "request_url",
    "stream_google_generative_ai",
]

API = "google-generative-ai"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
"""Used when ``model.base_url`` is empty (the catalog's value for every ``google`` model)."""

_PATH = re.compile(
    r"^(?P<prefix>/.*?)?/(?P<version>v\d+(?:alpha|beta)?\d*)"
    r"/(?P<model>(?:models|tunedModels)/[^/:]+):(?:streamGenerateContent|generateContent)$"
)


def _client_base_url(client: Any) -> str | None:
    options = getattr(getattr(client, "_api_client", None), "_http_options", None)
    base = getattr(options, "base_url", None)
    if not base:
        return None
    version = getattr(options, "api_version", None)
    return f"{str(base).rstrip('/')}/{version}" if version else str(base).rstrip("/")


def base_url(model: Model, client: Any = None) -> str:
    """Return the URL prefix before ``/models/<id>``, API version included.

    ``model.base_url`` includes the API version (``https://generativelanguage.googleapis.com/v1beta``,
    as pi-mono's catalog has it); when it is empty, a caller's client's base URL and version
    are used, else :data:`DEFAULT_BASE_URL`.
    """
    return model.base_url.rstrip("/") or _client_base_url(client) or DEFAULT_BASE_URL


def request_url(model: Model, client: Any = None) -> str:
    """Return the streaming URL: ``<base_url>/models/<id>:streamGenerateContent?alt=sse``."""
    return f"{base_url(model, client)}/{model_path(model.id)}:{STREAM_METHOD}"


def stream_google_generative_ai(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream a Gemini API call (the ``google-generative-ai`` :class:`pi_sdk.StreamFunction`).

    Args:
        model: A ``google-generative-ai`` model (``pi_sdk.get_model("google", ...)``).
        context: System prompt, messages and tools.
        options: ``api_key`` (else ``GEMINI_API_KEY`` through the ``get_api_key`` hook),
            ``client`` (a ``google.genai.Client`` to use instead of a cached pinned one; its own
            retry settings then apply), and ``provider_options``: ``tool_choice``
            (``"auto"``/``"none"``/``"any"``), ``thinking`` (``{"enabled", "budget_tokens",
            "level"}``), ``timeout_ms`` (per-read HTTP timeout, milliseconds); other keys are a
            ``ConfigurationError``.

    Returns:
        An async generator of events. Errors (no key, HTTP errors, blocked prompts, error-type
        finish reasons, cut-off streams) end it with the terminal ``error`` event.
    """

    def connect() -> tuple[AbstractAsyncContextManager[Any], str, str]:
        check_provider_options(options, COMMON_OPTIONS, API)
        client = options.client
        lease: AbstractAsyncContextManager[Any] = nullcontext(client)
        if client is None:
            from ._transport import get_client

            api_key = resolve_api_key(model, options)
            if not api_key:
                raise ConfigurationError(
                    f"No API key for provider {model.provider}: set GEMINI_API_KEY or pass "
                    "StreamOptions(api_key=...)"
                )
            lease = get_client(
                vertex=False, api_key=api_key, timeout_ms=options.provider_options.get("timeout_ms")
            )
        base = base_url(model, client)
        return lease, base, f"{base}/{model_path(model.id)}:{STREAM_METHOD}"

    return run_stream(model, context, options, connect)


def recognize_generative_ai(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sends a recorded Gemini API request, or ``None`` (for replay).

    Recognizes ``POST <prefix>/<version>/models/<id>:streamGenerateContent`` (and
    ``:generateContent``) on any host; ``base_url`` keeps the scheme, host, prefix and version so
    a replayed call hits the recorded path. The catalog model of that id is used when there is
    one (prices, limits), else a minimal model.
    """
    if method.upper() != "POST":
        return None
    parts = urlsplit(uri)
    match = _PATH.match(parts.path)
    if match is None:
        return None
    recorded_base = f"{parts.scheme}://{parts.netloc}{match['prefix'] or ''}/{match['version']}"
    resource = match["model"]
    model_id = resource.removeprefix("models/")
    return recorded_model("google", API, model_id, recorded_base)

"""The Gemini API's own request rules: its URL, its key, and recognizing a recorded request.

pi-mono ``google.ts``; pi-spec §4.7-4.8. The body is the shared one
(:mod:`pi_sdk_google._shared_request`).
"""

from __future__ import annotations

import re
from typing import Any

from pi_sdk import ConfigurationError, Model, StreamOptions
from pi_sdk.provider import resolve_api_key

from .._shared_call import STREAM_METHOD
from .._shared_request import match_recorded, recorded_model

__all__ = [
    "API",
    "DEFAULT_BASE_URL",
    "base_url",
    "model_path",
    "recognize_generative_ai",
    "request_url",
    "require_api_key",
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


def model_path(model_id: str) -> str:
    """Return the resource path of a model id: ``models/<id>`` unless it already has a prefix."""
    return model_id if "/" in model_id else f"models/{model_id}"


def require_api_key(model: Model, options: StreamOptions) -> str:
    """Return the call's key: ``options.api_key``, else ``GEMINI_API_KEY`` (``get_api_key`` hook).

    Raises:
        ConfigurationError: No key; nothing is sent.
    """
    api_key = resolve_api_key(model, options)
    if not api_key:
        raise ConfigurationError(
            f"No API key for provider {model.provider}: set GEMINI_API_KEY or pass "
            "StreamOptions(api_key=...)"
        )
    return api_key


def request_url(model: Model, client: Any = None) -> str:
    """Return the streaming URL: ``<base_url>/models/<id>:streamGenerateContent?alt=sse``."""
    return f"{base_url(model, client)}/{model_path(model.id)}:{STREAM_METHOD}"


def recognize_generative_ai(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sends a recorded Gemini API request, or ``None`` (for replay).

    Recognizes ``POST <prefix>/<version>/models/<id>:streamGenerateContent`` (and
    ``:generateContent``) on any host; ``base_url`` keeps the scheme, host, prefix and version so
    a replayed call hits the recorded path. The catalog model of that id is used when there is
    one (prices, limits), else a minimal model.
    """
    recorded = match_recorded(method, uri, _PATH)
    if recorded is None:
        return None
    match, recorded_base = recorded
    model_id = match["model"].removeprefix("models/")
    return recorded_model("google", API, model_id, recorded_base)

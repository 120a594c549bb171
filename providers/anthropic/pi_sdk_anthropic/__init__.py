"""pi-sdk provider plugin for Anthropic: the ``anthropic-messages`` wire API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package does not import the
``anthropic`` SDK; :func:`stream_anthropic_messages` imports it on first call.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="anthropic-messages", ...)`` with a request
  recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (see ``docs/models.md``);
* ``get_api_key``: for provider ``anthropic``, ``ANTHROPIC_OAUTH_TOKEN`` then
  ``ANTHROPIC_API_KEY`` (pi-mono ``getEnvApiKey``).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pi_sdk.provider import ApiProvider, hookimpl, load_models_json

from .messages import stream_anthropic_messages
from .request import (
    API,
    build_headers,
    build_request,
    convert_messages,
    normalize_tool_call_id,
    recognize_request,
)

__all__ = [
    "API",
    "build_headers",
    "build_request",
    "convert_messages",
    "get_api_key",
    "normalize_tool_call_id",
    "recognize_request",
    "register_api_providers",
    "register_models",
    "stream_anthropic_messages",
]


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register the ``anthropic-messages`` API."""
    register(ApiProvider(api=API, stream=stream_anthropic_messages, recognize=recognize_request))


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    """Register every model of ``models.json``."""
    for model in load_models_json(__name__):
        register(model)


@hookimpl
def get_api_key(provider: str) -> str | None:
    """Return ``ANTHROPIC_OAUTH_TOKEN`` or ``ANTHROPIC_API_KEY`` for provider ``anthropic``."""
    if provider != "anthropic":
        return None
    return os.environ.get("ANTHROPIC_OAUTH_TOKEN") or os.environ.get("ANTHROPIC_API_KEY") or None

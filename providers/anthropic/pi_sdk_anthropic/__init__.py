"""pi-sdk provider plugin for Anthropic: the ``anthropic-messages`` wire API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither the
``anthropic`` SDK nor the wire code: :mod:`pi_sdk_anthropic.messages` is imported on the first
call (or replayed request), and it imports the SDK inside its stream function.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="anthropic-messages", ...)`` with a request
  recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (see ``docs/models.md``);
* ``get_api_key``: for provider ``anthropic``, ``ANTHROPIC_OAUTH_TOKEN`` then
  ``ANTHROPIC_API_KEY`` (pi-mono ``getEnvApiKey``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from typing import Any

from pi_sdk.provider import (
    ApiProvider,
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    hookimpl,
    load_models_json,
)

__all__ = ["get_api_key", "register_api_providers", "register_models"]

_API = "anthropic-messages"


def _stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """The stream function: :func:`pi_sdk_anthropic.messages.stream_anthropic_messages`."""
    from .messages import stream_anthropic_messages

    return stream_anthropic_messages(model, context, options)


def _recognize(method: str, uri: str, body: Any) -> Model | None:
    """The recognizer: :func:`pi_sdk_anthropic.messages.recognize_request`."""
    from .messages import recognize_request

    return recognize_request(method, uri, body)


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register the ``anthropic-messages`` API."""
    register(ApiProvider(api=_API, stream=_stream, recognize=_recognize))


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

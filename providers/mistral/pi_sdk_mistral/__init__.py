"""pi-sdk provider plugin for Mistral: the ``mistral-conversations`` wire API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither the
``mistralai`` SDK nor the wire code: :mod:`pi_sdk_mistral.conversations` is imported on the
first call (or replayed request), and it imports the SDK inside its stream function.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="mistral-conversations", ...)`` with a request
  recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (see ``docs/models.md``);
* ``get_api_key``: for provider ``mistral``, ``MISTRAL_API_KEY`` (pi-mono ``getEnvApiKey``).
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

_API = "mistral-conversations"


def _stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """The stream function: :func:`pi_sdk_mistral.conversations.stream_mistral_conversations`."""
    from .conversations import stream_mistral_conversations

    return stream_mistral_conversations(model, context, options)


def _recognize(method: str, uri: str, body: Any) -> Model | None:
    """The recognizer: :func:`pi_sdk_mistral.conversations.recognize_request`."""
    from .conversations import recognize_request

    return recognize_request(method, uri, body)


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register the ``mistral-conversations`` API."""
    register(ApiProvider(api=_API, stream=_stream, recognize=_recognize))


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    """Register every model of ``models.json``."""
    for model in load_models_json(__name__):
        register(model)


@hookimpl
def get_api_key(provider: str) -> str | None:
    """Return ``MISTRAL_API_KEY`` for provider ``mistral``."""
    if provider != "mistral":
        return None
    return os.environ.get("MISTRAL_API_KEY") or None

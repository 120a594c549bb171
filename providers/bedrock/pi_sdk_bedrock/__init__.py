"""pi-sdk provider plugin for Amazon Bedrock: the ``bedrock-converse-stream`` API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither
botocore nor httpx2 nor the wire code: :mod:`pi_sdk_bedrock.converse` is imported on the first
call (or replayed request), and botocore only when a request is signed with SigV4.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="bedrock-converse-stream", ...)`` with a
  request recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (provider ``amazon-bedrock``, see
  ``docs/models.md``);
* ``get_api_key``: for provider ``amazon-bedrock``, ``AWS_BEARER_TOKEN_BEDROCK`` (a Bedrock
  API key, sent as a bearer token); without one, calls use the AWS credential chain.
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

_API = "bedrock-converse-stream"


def _stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """The stream function: :func:`pi_sdk_bedrock.converse.stream_bedrock_converse`."""
    from .converse import stream_bedrock_converse

    return stream_bedrock_converse(model, context, options)


def _recognize(method: str, uri: str, body: Any) -> Model | None:
    """The recognizer: :func:`pi_sdk_bedrock.converse.recognize_request`."""
    from .converse import recognize_request

    return recognize_request(method, uri, body)


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register the ``bedrock-converse-stream`` API."""
    register(ApiProvider(api=_API, stream=_stream, recognize=_recognize))


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    """Register every model of ``models.json``."""
    for model in load_models_json(__name__):
        register(model)


@hookimpl
def get_api_key(provider: str) -> str | None:
    """Return ``AWS_BEARER_TOKEN_BEDROCK`` for provider ``amazon-bedrock``."""
    if provider != "amazon-bedrock":
        return None
    return os.environ.get("AWS_BEARER_TOKEN_BEDROCK") or None

"""pi-sdk provider plugin for OpenAI: the ``openai-completions`` and ``openai-responses`` APIs.

Loaded through the ``pi_sdk`` entry-point group. This module holds the hook implementations
only: importing it imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_openai.completions`, :mod:`pi_sdk_openai.responses`), which the stream functions
import on first call.

Hooks:

* ``register_api_providers``: ``openai-completions`` (OpenAI Chat Completions and every
  compatible server; a provider in :data:`PROVIDER_STREAMS` is served by its own package's
  stream) and ``openai-responses``, each with a recorded-request recognizer for
  ``pi-sdk replay`` and the conformance runner;
* ``register_models``: the catalog in ``models.json`` (openai, groq, cerebras, xai, openrouter,
  zai, huggingface; see ``docs/models.md``);
* ``get_api_key``: the provider's environment variable (pi-spec §7.2): ``OPENAI_API_KEY``,
  ``GROQ_API_KEY``, ``CEREBRAS_API_KEY``, ``XAI_API_KEY``, ``OPENROUTER_API_KEY``,
  ``ZAI_API_KEY``, ``HF_TOKEN``, ``DEEPSEEK_API_KEY``.

See ``docs/providers/openai.md`` for the options, the compat flags and custom servers.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable

from pi_sdk.provider import (
    ApiProvider,
    AssistantMessageEvent,
    Context,
    Model,
    StreamFunction,
    StreamOptions,
    hookimpl,
    load_models_json,
)

from ._client import ENV_API_KEYS
from ._shared_hosts import recognize_completions_request, recognize_responses_request

__all__ = ["PROVIDER_STREAMS", "get_api_key", "register_api_providers", "register_models"]

PROVIDER_STREAMS: dict[str, StreamFunction] = {}
"""Providers whose own package serves their flavour of ``openai-completions``:
``model.provider`` -> the stream function used for it instead of this package's. Filled by
that package's ``register_api_providers`` hook (pi-sdk-azure: ``azure-openai``), which builds on
this package's request and decoder code."""


def _stream_completions(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    delegate = PROVIDER_STREAMS.get(model.provider)
    if delegate is not None:
        return delegate(model, context, options)
    from .completions import stream_openai_completions

    return stream_openai_completions(model, context, options)


def _stream_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    from .responses import stream_openai_responses

    return stream_openai_responses(model, context, options)


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register ``openai-completions`` and ``openai-responses``."""
    register(
        ApiProvider(
            api="openai-completions",
            stream=_stream_completions,
            recognize=recognize_completions_request,
        )
    )
    register(
        ApiProvider(
            api="openai-responses",
            stream=_stream_responses,
            recognize=recognize_responses_request,
        )
    )


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    """Register every model of ``models.json``."""
    for model in load_models_json(__name__):
        register(model)


@hookimpl
def get_api_key(provider: str) -> str | None:
    """Return the key from the provider's environment variable, or ``None`` if not ours/unset."""
    env = ENV_API_KEYS.get(provider)
    return (os.environ.get(env) or None) if env else None

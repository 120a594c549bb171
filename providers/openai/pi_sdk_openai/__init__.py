"""pi-sdk provider plugin for OpenAI: the ``openai-completions`` and ``openai-responses`` APIs.

Loaded through the ``pi_sdk`` entry-point group. This module holds the hook implementations
only: importing it imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_openai.completions`, :mod:`pi_sdk_openai.responses`), which the stream functions
import on first call.

Hooks:

* ``register_api_providers``: ``openai-completions`` (OpenAI Chat Completions and every
  compatible server; a provider in :data:`PROVIDER_CALLS` is served by its own package's
  call function) and ``openai-responses``, each with a recorded-request recognizer for
  ``pi-sdk replay`` and the conformance runner;
* ``register_models``: the catalog in ``models.json``: every ``openai-completions`` and
  ``openai-responses`` model of pi-ai 0.73.1 (openai, openrouter, groq, xai, huggingface,
  deepseek, moonshotai, cloudflare, github-copilot, opencode, ...; see ``docs/models.md``);
* ``get_api_key``: the provider's environment variables (:data:`ENV_API_KEYS`, pi-ai 0.73.1
  ``getEnvApiKey``): ``OPENAI_API_KEY``, ``GROQ_API_KEY``, ``OPENROUTER_API_KEY``, ...

See ``docs/providers/openai.md`` for the options, the compat flags and custom servers.
"""

from __future__ import annotations

from typing import Any

from pi_sdk import provider as kit

from ._client import ENV_API_KEYS
from ._shared_hosts import recognize_completions_request, recognize_responses_request

__all__ = ["PROVIDER_CALLS", "get_api_key", "register_api_providers", "register_models"]

PROVIDER_CALLS: dict[str, kit.CallFunction] = {}
"""Providers whose own package serves their flavour of ``openai-completions``:
``model.provider`` -> the call function used for it instead of this package's. Filled by
that package's ``register_api_providers`` hook (pi-sdk-azure: ``azure-openai``), which builds on
this package's request and decoder code."""


async def _call_completions(
    model: kit.Model, context: kit.Context, options: kit.StreamOptions
) -> kit.HttpCall[Any]:
    delegate = PROVIDER_CALLS.get(model.provider)
    if delegate is not None:
        return await delegate(model, context, options)
    from .completions import call_openai_completions

    return await call_openai_completions(model, context, options)


register_api_providers = kit.api_providers_hook(
    kit.ApiProvider(
        api="openai-completions",
        call=_call_completions,
        recognize=recognize_completions_request,
    ),
    kit.ApiProvider(
        api="openai-responses",
        call=kit.lazy_call("pi_sdk_openai.responses", "call_openai_responses"),
        recognize=recognize_responses_request,
    ),
)
register_models = kit.models_hook(__name__)
get_api_key = kit.env_api_key_hook(ENV_API_KEYS)

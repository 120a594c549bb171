"""pi-sdk provider plugin for OpenAI: the ``openai-completions`` and ``openai-responses`` APIs.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`: one
:class:`~pi_sdk.Provider` per catalog provider (openai, openrouter, groq, xai, huggingface,
deepseek, moonshotai, nvidia, together, baseten, cloudflare, github-copilot, opencode, ...; see
``docs/models.md``), each with its models from ``models.json`` (every ``openai-completions`` and
``openai-responses`` model of pi-ai 1.6.0 but Azure's), its environment variables
(:data:`ENV_API_KEYS`, pi-ai 1.6 ``getEnvApiKey``: ``OPENAI_API_KEY``, ``GROQ_API_KEY``,
``OPENROUTER_API_KEY``, ...) and the two
wire APIs :data:`OPENAI_COMPLETIONS` (OpenAI Chat Completions and every compatible server) and
:data:`OPENAI_RESPONSES`, each with a recorded-request recognizer for ``pi-sdk replay`` and the
conformance runner. :func:`provider` configures one for a :class:`pi_sdk.Models` collection.

Servers whose models are listed at run time (:meth:`pi_sdk.Models.refresh`):
:func:`openai_compatible_provider` makes a provider for any OpenAI-compatible server (vLLM,
llama.cpp, a gateway, Ollama, LM Studio), and :data:`PROVIDERS` ends with two local ones ready
to refresh, ``ollama`` (``http://127.0.0.1:11434/v1``) and ``lm-studio``
(``http://127.0.0.1:1234/v1``); nothing is asked of them before a refresh.

Importing this module imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_openai.completions`, :mod:`pi_sdk_openai.responses`), which the stream functions
import on first call. See ``docs/providers/openai.md`` for the options, the compat flags and
custom servers.
"""

from __future__ import annotations

from pi_sdk import Context, Model, StreamOptions
from pi_sdk import provider as kit

from ._env_keys import ENV_API_KEYS
from ._servers import ModelLister, ModelsApi, local_providers, openai_compatible_provider
from ._shared_hosts import recognize_completions_request, recognize_responses_request

__all__ = [
    "ENV_API_KEYS",
    "OPENAI_COMPLETIONS",
    "OPENAI_RESPONSES",
    "PROVIDERS",
    "ModelLister",
    "ModelsApi",
    "openai_compatible_provider",
    "provider",
]

OPENAI_COMPLETIONS = kit.ApiProvider(
    api="openai-completions",
    call=kit.lazy_call("pi_sdk_openai.completions", "call_openai_completions"),
    recognize=recognize_completions_request,
)
"""The ``openai-completions`` implementation (its module imported on the first call)."""


async def _count_responses_tokens(model: Model, context: Context, options: StreamOptions) -> int:
    from .responses._count import count_openai_responses_tokens  # imported on first use

    return await count_openai_responses_tokens(model, context, options)


OPENAI_RESPONSES = kit.ApiProvider(
    api="openai-responses",
    call=kit.lazy_call("pi_sdk_openai.responses", "call_openai_responses"),
    recognize=recognize_responses_request,
    count_tokens=_count_responses_tokens,
)
"""The ``openai-responses`` implementation (its module imported on the first call)."""

PROVIDERS = (
    *kit.package_providers(
        __name__,
        apis=[OPENAI_COMPLETIONS, OPENAI_RESPONSES],
        env=ENV_API_KEYS,
        names={"openai": "OpenAI", "openrouter": "OpenRouter"},
    ),
    *local_providers(),
)
"""Every provider of the catalog, then ``ollama`` and ``lm-studio`` (local servers whose models
:meth:`pi_sdk.Models.refresh` lists); the entry point names this tuple."""


provider = kit.provider_factory(PROVIDERS, "openai")
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""

"""pi-sdk provider plugin for OpenAI: the ``openai-completions`` and ``openai-responses`` APIs.

Loaded through the ``pi_sdk`` entry-point group. Importing this package does not import the
``openai`` SDK; the stream functions import it on first call.

Hooks:

* ``register_api_providers``: ``openai-completions`` (OpenAI Chat Completions and every
  compatible server) and ``openai-responses``, each with a recorded-request recognizer for
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
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from pi_sdk.provider import (
    ApiProvider,
    Model,
    ModelNotFoundError,
    get_model,
    hookimpl,
    load_models_json,
)

from ._common import (
    as_dict,
    normalize_completions_tool_call_id,
    normalize_responses_tool_call_id,
)
from ._http import ENV_API_KEYS
from .compat import CompletionsCompat, detect_compat, resolve_compat
from .completions import (
    CompletionsDecoder,
    build_completions_payload,
    stream_openai_completions,
)
from .responses import ResponsesDecoder, build_responses_payload, stream_openai_responses

__all__ = [
    "CompletionsCompat",
    "CompletionsDecoder",
    "ResponsesDecoder",
    "build_completions_payload",
    "build_responses_payload",
    "detect_compat",
    "get_api_key",
    "normalize_completions_tool_call_id",
    "normalize_responses_tool_call_id",
    "provider_for_host",
    "recognize_completions_request",
    "recognize_responses_request",
    "register_api_providers",
    "register_models",
    "resolve_compat",
    "stream_openai_completions",
    "stream_openai_responses",
]

_HOST_PROVIDERS = (
    ("api.openai.com", "openai"),
    ("openrouter.ai", "openrouter"),
    ("api.groq.com", "groq"),
    ("api.cerebras.ai", "cerebras"),
    ("api.x.ai", "xai"),
    ("api.z.ai", "zai"),
    ("huggingface.co", "huggingface"),
    ("api.deepseek.com", "deepseek"),
    ("openai.azure.com", "azure-openai"),
    ("generativelanguage.googleapis.com", "google"),
)


def provider_for_host(host: str) -> str:
    """Guess the provider name from a request host (``api.openai.com`` → ``openai``).

    Unknown hosts (a local server, a proxy) give the host name itself.
    """
    host = host.lower()
    for suffix, provider in _HOST_PROVIDERS:
        if host == suffix or host.endswith("." + suffix):
            return provider
    return host


def _recognize(api: str, suffix: str, method: str, uri: str, body: Any) -> Model | None:
    fields = as_dict(body)
    if method.upper() != "POST" or not fields:
        return None
    parts = urlsplit(uri)
    path = parts.path.rstrip("/")
    if not path.endswith(suffix):
        return None
    model_id = fields.get("model")
    if not isinstance(model_id, str) or not model_id:
        return None
    base_url = f"{parts.scheme}://{parts.netloc}{path[: -len(suffix)]}"
    provider = provider_for_host(parts.hostname or "")
    try:
        known = get_model(provider, model_id)
    except ModelNotFoundError:
        return Model(id=model_id, name=model_id, api=api, provider=provider, base_url=base_url)
    return known.model_copy(update={"api": api, "base_url": base_url})


def recognize_completions_request(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sent a recorded ``POST .../chat/completions``, else ``None``.

    The model id comes from the JSON body, ``base_url`` is the URI up to the path suffix
    (query dropped), the provider is guessed from the host (:func:`provider_for_host`), and
    catalog data (prices, limits, compat) is used when ``(provider, id)`` is registered.
    """
    return _recognize("openai-completions", "/chat/completions", method, uri, body)


def recognize_responses_request(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sent a recorded ``POST .../responses``, else ``None``.

    Same rules as :func:`recognize_completions_request`.
    """
    return _recognize("openai-responses", "/responses", method, uri, body)


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register ``openai-completions`` and ``openai-responses``."""
    register(
        ApiProvider(
            api="openai-completions",
            stream=stream_openai_completions,
            recognize=recognize_completions_request,
        )
    )
    register(
        ApiProvider(
            api="openai-responses",
            stream=stream_openai_responses,
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

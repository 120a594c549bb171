"""What a URL tells both OpenAI APIs: its provider, a local server, a recorded request's model.

The host names the provider, a host on this machine needs no key, and a recorded request
(``pi-sdk replay``, the conformance runner) names the model that sent it. Imported when the
plugin registers its APIs: it imports neither the ``openai`` SDK nor the wire code.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pi_sdk import Model
from pi_sdk.provider import recorded_model

from ._shared_json import as_dict

__all__ = [
    "is_local_base_url",
    "provider_for_host",
    "recognize_completions_request",
    "recognize_responses_request",
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
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "host.docker.internal"})


def provider_for_host(host: str) -> str:
    """Guess the provider name from a request host (``api.openai.com`` → ``openai``).

    Unknown hosts (a local server, a proxy) give the host name itself.
    """
    host = host.lower()
    for suffix, provider in _HOST_PROVIDERS:
        if host == suffix or host.endswith("." + suffix):
            return provider
    return host


def is_local_base_url(base_url: str) -> bool:
    """True when ``base_url`` points at this machine (Ollama, LM Studio, llama.cpp, vLLM...)."""
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return False
    return host in _LOCAL_HOSTS or host.endswith(".localhost")


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
    return recorded_model(provider, model_id, api=api, base_url=base_url)


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

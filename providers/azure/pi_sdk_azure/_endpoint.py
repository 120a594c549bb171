"""Azure OpenAI's endpoint rules, in one place: base URL, deployment, ``api-version``.

Azure serves the OpenAI wire formats on two kinds of URL (Microsoft Learn, "Azure OpenAI API
version lifecycle" and the data-plane inference reference):

* the **v1 endpoint** ``https://<resource>.openai.azure.com/openai/v1`` (GA since August 2025):
  the request path is OpenAI's (``/responses``, ``/chat/completions``), the body's ``model`` is
  the *deployment name*, and no ``api-version`` is needed;
* a **deployment endpoint** ``https://<resource>.openai.azure.com/openai/deployments/<d>``: the
  deployment is in the path and every request needs ``?api-version=<date>``.

Resources also answer on ``*.cognitiveservices.azure.com`` and ``*.services.ai.azure.com``.
Imported when the plugin registers: it imports neither the ``openai`` SDK nor wire code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pi_sdk_openai._shared_json import as_dict

from pi_sdk import ConfigurationError, Model, StreamOptions
from pi_sdk.provider import recorded_model

__all__ = [
    "AZURE_HOSTS",
    "CHAT_PROVIDER",
    "PROVIDER",
    "PROVIDER_OPTIONS",
    "RESPONSES_PROVIDER",
    "AzureEndpoint",
    "is_azure_host",
    "recognize_responses_request",
    "resolve_endpoint",
    "without_azure_options",
]

AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
"""Host suffixes of Azure OpenAI resources."""

PROVIDER = "azure"
"""The catalog's Azure provider (pi-ai 1.6 ``azure``): Responses and Chat Completions models."""
RESPONSES_PROVIDER = "azure-openai-responses"
"""pi-ai 0.73's id of the Azure provider (renamed ``azure`` by pi-ai 1.0.3), still served: the
same Responses models and key under the old id (the plugin's :data:`pi_sdk_azure.PROVIDERS`)."""
CHAT_PROVIDER = "azure-openai"
"""pi-sdk's provider of Chat Completions deployments registered by hand."""

PROVIDER_OPTIONS = (
    "azure_base_url",
    "azure_resource_name",
    "azure_deployment",
    "azure_api_version",
    "azure_ad_token_provider",
)
"""``provider_options`` keys read here (and by :mod:`pi_sdk_azure._client`); the rest go to the
OpenAI request builder, which rejects unknown keys."""

DEFAULT_DEPLOYMENT_API_VERSION = {"responses": "2025-04-01-preview", "chat": "2024-10-21"}
"""``api-version`` sent to a deployment endpoint when none is configured: the first that serves
Responses (preview) and the latest GA data-plane version for Chat Completions."""

_DEPLOYMENTS = "/openai/deployments/"


@dataclass(frozen=True, slots=True)
class AzureEndpoint:
    """Where one call goes.

    ``base_url`` ends in ``/openai/v1`` (v1) or ``/openai/deployments/<d>``; ``deployment`` is
    the body's ``model``; ``api_version`` is sent as ``?api-version=`` when not ``None``.
    """

    base_url: str
    deployment: str
    api_version: str | None

    @property
    def is_deployment(self) -> bool:
        """True for a deployment endpoint (``/openai/deployments/<d>``)."""
        return _DEPLOYMENTS in urlsplit(self.base_url).path + "/"


def is_azure_host(host: str) -> bool:
    """True for an Azure OpenAI resource host (``<resource>.openai.azure.com`` and kin)."""
    host = host.lower()
    return any(host.endswith(suffix) for suffix in AZURE_HOSTS)


def _string_option(options: StreamOptions, key: str) -> str | None:
    value: Any = options.provider_options.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"provider_options[{key!r}] must be a non-empty string")
    return value.strip()


def _normalize(base_url: str) -> str:
    """A resource root (``https://r.openai.azure.com``, ``.../openai``) -> ``.../openai/v1``."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigurationError(f"Invalid Azure OpenAI base URL: {base_url!r}")
    path = parts.path.rstrip("/")
    if is_azure_host(parts.hostname or "") and path in ("", "/openai"):
        path = "/openai/v1"
    return f"{parts.scheme}://{parts.netloc}{path}"


def _deployment_map() -> dict[str, str]:
    """``AZURE_OPENAI_DEPLOYMENT_NAME_MAP``: ``model-id=deployment`` pairs, comma-separated."""
    pairs: dict[str, str] = {}
    for entry in (os.environ.get("AZURE_OPENAI_DEPLOYMENT_NAME_MAP") or "").split(","):
        model_id, _, deployment = entry.partition("=")
        if model_id.strip() and deployment.strip():
            pairs[model_id.strip()] = deployment.strip()
    return pairs


def resolve_endpoint(model: Model, options: StreamOptions, *, api: str) -> AzureEndpoint:
    """Return the endpoint of one call (``api``: ``"responses"`` or ``"chat"``).

    Base URL, first found: ``provider_options["azure_base_url"]``, ``model.base_url``,
    ``AZURE_OPENAI_BASE_URL``, then ``https://<name>.openai.azure.com/openai/v1`` from
    ``provider_options["azure_resource_name"]`` / ``AZURE_OPENAI_RESOURCE_NAME``; an Azure
    resource root is normalized to its v1 endpoint (pi-mono ``normalizeAzureBaseUrl``).
    Deployment: ``provider_options["azure_deployment"]``, the deployment in a deployment URL,
    ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP``, else ``model.id``. ``api-version``:
    ``provider_options["azure_api_version"]``, ``AZURE_OPENAI_API_VERSION``, else none on the v1
    endpoint and :data:`DEFAULT_DEPLOYMENT_API_VERSION` on a deployment endpoint.

    Raises:
        ConfigurationError: no base URL is configured, it is not an http(s) URL, or an option
            is not a non-empty string.
    """
    base = _string_option(options, "azure_base_url") or model.base_url.strip()
    base = base or (os.environ.get("AZURE_OPENAI_BASE_URL") or "").strip()
    if not base:
        resource = (
            _string_option(options, "azure_resource_name")
            or (os.environ.get("AZURE_OPENAI_RESOURCE_NAME") or "").strip()
        )
        if resource:
            base = f"https://{resource}.openai.azure.com/openai/v1"
    if not base:
        raise ConfigurationError(
            "Azure OpenAI base URL is required: set AZURE_OPENAI_BASE_URL or"
            " AZURE_OPENAI_RESOURCE_NAME, or pass provider_options azure_base_url /"
            " azure_resource_name, or a model.base_url"
        )
    base = _normalize(base)
    path = urlsplit(base).path + "/"
    in_path = path.partition(_DEPLOYMENTS)[2].split("/")[0] if _DEPLOYMENTS in path else ""
    deployment = (
        _string_option(options, "azure_deployment")
        or in_path
        or _deployment_map().get(model.id)
        or model.id
    )
    version = (
        _string_option(options, "azure_api_version")
        or (os.environ.get("AZURE_OPENAI_API_VERSION") or "").strip()
    )
    if not version and in_path:
        version = DEFAULT_DEPLOYMENT_API_VERSION[api]
    return AzureEndpoint(base_url=base, deployment=deployment, api_version=version or None)


def without_azure_options(options: StreamOptions) -> StreamOptions:
    """``options`` without the Azure keys of ``provider_options`` (for the OpenAI builder)."""
    if not any(key in options.provider_options for key in PROVIDER_OPTIONS):
        return options
    import dataclasses

    rest = {k: v for k, v in options.provider_options.items() if k not in PROVIDER_OPTIONS}
    return dataclasses.replace(options, provider_options=rest)


def recognize_responses_request(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sent a recorded Azure Responses request, else ``None``.

    Accepts ``POST`` to an Azure resource host at ``/openai/v1/responses`` or
    ``/openai/deployments/<d>/responses`` with a JSON body naming a
    ``model``. The model is the catalog's ``azure-openai-responses`` model of that id (prices,
    limits) when there is one, else a stand-in; ``base_url`` is the URI up to ``/responses``.
    """
    fields = as_dict(body)
    if method.upper() != "POST" or not fields:
        return None
    parts = urlsplit(uri)
    path = parts.path.rstrip("/")
    if not is_azure_host(parts.hostname or "") or not path.endswith("/responses"):
        return None
    prefix = path.removesuffix("/responses")
    if not (prefix == "/openai/v1" or prefix.startswith(_DEPLOYMENTS)):
        return None
    model_id = fields.get("model")
    if not isinstance(model_id, str) or not model_id:
        return None
    base_url = f"{parts.scheme}://{parts.netloc}{prefix}"
    # A deployment named otherwise than a catalog model gets no catalog data.
    api = "azure-openai-responses"
    return recorded_model(RESPONSES_PROVIDER, model_id, api=api, base_url=base_url)

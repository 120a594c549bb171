"""``azure-openai-responses`` request: pi-sdk-openai's Responses body, sent to a deployment.

The body is :func:`pi_sdk_openai.responses.build_payload`'s (input items, ``store: false``,
``max_output_tokens``, tools, reasoning, ``include: ["reasoning.encrypted_content"]`` for
reasoning models) with ``model`` set to the deployment name (Azure routes on it).
"""

from __future__ import annotations

from typing import Any

from pi_sdk_openai.responses import build_payload as build_openai_payload

from pi_sdk.provider import Context, Model, StreamOptions

from .._endpoint import AzureEndpoint, without_azure_options

__all__ = ["API", "PATH", "build_payload"]

API = "azure-openai-responses"
PATH = "/responses"
"""Request path, relative to the endpoint's base URL."""


def build_payload(
    model: Model,
    context: Context,
    options: StreamOptions,
    endpoint: AzureEndpoint,
    *,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the Responses body for ``endpoint`` (before payload hooks).

    Raises:
        ConfigurationError: unknown or mistyped ``provider_options`` (Azure's keys are
            :data:`pi_sdk_azure._endpoint.PROVIDER_OPTIONS`; the others are OpenAI's).
    """
    payload = build_openai_payload(model, context, without_azure_options(options), origin=origin)
    payload["model"] = endpoint.deployment
    return payload

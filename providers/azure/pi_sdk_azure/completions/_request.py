"""Chat Completions on Azure: pi-sdk-openai's body, sent to a deployment.

The body is :func:`pi_sdk_openai.completions.build_payload`'s (with the compatibility flags of
``model.compat``; Azure takes OpenAI's defaults) with ``model`` set to the deployment name: the
v1 endpoint routes on it; a deployment endpoint routes on its path and ignores it.
"""

from __future__ import annotations

from typing import Any

from pi_sdk_openai.completions import CompletionsCompat
from pi_sdk_openai.completions import build_payload as build_openai_payload

from pi_sdk.provider import Context, Model, StreamOptions

from .._endpoint import AzureEndpoint, without_azure_options

__all__ = ["PATH", "build_payload"]

PATH = "/chat/completions"
"""Request path, relative to the endpoint's base URL."""


def build_payload(
    model: Model,
    context: Context,
    options: StreamOptions,
    endpoint: AzureEndpoint,
    *,
    compat: CompletionsCompat,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the Chat Completions body for ``endpoint`` (before payload hooks).

    Raises:
        ConfigurationError: unknown or mistyped ``provider_options`` / ``model.compat``.
    """
    payload = build_openai_payload(
        model, context, without_azure_options(options), compat=compat, origin=origin
    )
    payload["model"] = endpoint.deployment
    return payload

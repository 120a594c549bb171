"""``azure-openai-responses`` request: pi-sdk-openai's Responses body, unchanged but for ``model``.

The body is :func:`pi_sdk_openai.responses.build_payload`'s (input items, ``store: false``,
``max_output_tokens``, tools, reasoning, ``include: ["reasoning.encrypted_content"]`` for
reasoning models), built without Azure's ``provider_options`` keys; ``model`` becomes the
deployment name (:func:`pi_sdk_azure._client.plan_on`, the one place of that rule).
"""

from __future__ import annotations

from pi_sdk_openai.responses import build_payload

__all__ = ["API", "PATH", "build_payload"]

API = "azure-openai-responses"
PATH = "/responses"
"""Request path, relative to the endpoint's base URL."""

"""Chat Completions on Azure: pi-sdk-openai's body, unchanged but for ``model``.

The body is :func:`pi_sdk_openai.completions.build_payload`'s with the compatibility flags of
:func:`pi_sdk_openai.completions.resolve_compat` (Azure takes OpenAI's defaults; ``model.compat``
overrides them), built without Azure's ``provider_options`` keys; ``model`` becomes the
deployment name (:func:`pi_sdk_azure._client.plan_on`, the one place of that rule).
"""

from __future__ import annotations

from pi_sdk_openai.completions import build_payload, request_grammar, resolve_compat

__all__ = ["PATH", "build_payload", "request_grammar", "resolve_compat"]

PATH = "/chat/completions"
"""Request path, relative to the endpoint's base URL."""

"""pi-sdk provider plugin for Google: the Gemini API and Vertex AI.

Registers two wire APIs through the ``pi_sdk`` entry-point group:

* ``google-generative-ai`` (provider ``google``, key ``GEMINI_API_KEY``): :mod:`.generative_ai`;
* ``google-vertex`` (provider ``google-vertex``, key ``GOOGLE_CLOUD_API_KEY`` or Google Cloud
  credentials): :mod:`.vertex`.

and the generated model catalog (``models.json``, from pi-mono's ``models.generated.ts``).
Importing this package does not import ``google.genai``; the SDK loads on the first call.
See ``docs/providers/google.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pi_sdk
import pi_sdk.provider

from ._shared import normalize_tool_call_id
from .generative_ai import recognize_generative_ai, stream_google_generative_ai
from .vertex import recognize_vertex, stream_google_vertex

__all__ = [
    "get_api_key",
    "normalize_tool_call_id",
    "recognize_generative_ai",
    "recognize_vertex",
    "register_api_providers",
    "register_models",
    "stream_google_generative_ai",
    "stream_google_vertex",
]

_ENV_KEYS = {"google": "GEMINI_API_KEY", "google-vertex": "GOOGLE_CLOUD_API_KEY"}


@pi_sdk.hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register ``google-generative-ai`` and ``google-vertex``."""
    register(
        pi_sdk.provider.ApiProvider(
            api="google-generative-ai",
            stream=stream_google_generative_ai,
            recognize=recognize_generative_ai,
        ),
        source_id="google",
    )
    register(
        pi_sdk.provider.ApiProvider(
            api="google-vertex", stream=stream_google_vertex, recognize=recognize_vertex
        ),
        source_id="google",
    )


@pi_sdk.hookimpl
def register_models(register: Callable[..., None]) -> None:
    """Register the catalog: 24 ``google`` and 12 ``google-vertex`` models (pi-ai 0.58.3)."""
    for model in pi_sdk.provider.load_models_json("pi_sdk_google"):
        register(model)


@pi_sdk.hookimpl
def get_api_key(provider: str) -> Any:
    """Return ``GEMINI_API_KEY`` for ``google`` and ``GOOGLE_CLOUD_API_KEY`` for ``google-vertex``.

    Never pi-mono's ``"<authenticated>"`` marker: Vertex AI without a key uses Google Cloud
    credentials instead (pi-spec §7.2, §10.1 #15).
    """
    name = _ENV_KEYS.get(provider)
    return (os.environ.get(name) or None) if name else None

"""pi-sdk provider plugin for Google: the Gemini API and Vertex AI.

Registers two wire APIs through the ``pi_sdk`` entry-point group:

* ``google-generative-ai`` (provider ``google``, key ``GEMINI_API_KEY``): :mod:`.generative_ai`;
* ``google-vertex`` (provider ``google-vertex``, key ``GOOGLE_CLOUD_API_KEY`` or Google Cloud
  credentials): :mod:`.vertex`.

and the generated model catalog (``models.json``, from pi-mono's ``models.generated.ts``).
This module holds the hook implementations; the wire code is imported on the first call (or
replay), and ``google.genai`` later still, in a worker thread. See ``docs/providers/google.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pi_sdk.provider import ApiProvider, hookimpl, models_hook

if TYPE_CHECKING:  # annotations only
    from pi_sdk.provider import AssistantMessage, Context, HttpCall, Model, StreamOptions

__all__ = [
    "call_google_generative_ai",
    "call_google_vertex",
    "get_api_key",
    "normalize_tool_call_id",
    "recognize_generative_ai",
    "recognize_vertex",
    "register_api_providers",
    "register_models",
]

_ENV_KEYS = {
    "google": "GEMINI_API_KEY",
    "google-vertex": "GOOGLE_CLOUD_API_KEY",
    "opencode": "OPENCODE_API_KEY",  # its two Gemini models (pi-ai 0.73.1)
}


def _wire(module: str) -> ModuleType:
    """The package's module ``module`` (``generative_ai``, ``vertex``...), imported on first use."""
    return import_module(f"{__name__}.{module}")


async def call_google_generative_ai(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The ``google-generative-ai`` call function.

    See :func:`.generative_ai.call_google_generative_ai`.
    """
    return await _wire("generative_ai").call_google_generative_ai(model, context, options)


async def call_google_vertex(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The ``google-vertex`` call function (:func:`.vertex.call_google_vertex`)."""
    return await _wire("vertex").call_google_vertex(model, context, options)


def recognize_generative_ai(method: str, uri: str, body: Any) -> Model | None:
    """The Gemini API's replay recognizer (:func:`.generative_ai.recognize_generative_ai`)."""
    return _wire("generative_ai").recognize_generative_ai(method, uri, body)


def recognize_vertex(method: str, uri: str, body: Any) -> Model | None:
    """Vertex AI's replay recognizer (:func:`.vertex.recognize_vertex`)."""
    return _wire("vertex").recognize_vertex(method, uri, body)


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Both APIs' tool-call id rule (:func:`._shared_request.normalize_tool_call_id`)."""
    return _wire("_shared_request").normalize_tool_call_id(tool_call_id, model, source)


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register ``google-generative-ai`` and ``google-vertex``."""
    register(
        ApiProvider(
            api="google-generative-ai",
            call=call_google_generative_ai,
            recognize=recognize_generative_ai,
        ),
        source_id="google",
    )
    register(
        ApiProvider(api="google-vertex", call=call_google_vertex, recognize=recognize_vertex),
        source_id="google",
    )


register_models = models_hook("pi_sdk_google")
"""Register the ``google-generative-ai`` and ``google-vertex`` models (pi-ai 0.73.1)."""


@hookimpl
def get_api_key(provider: str) -> Any:
    """Return ``GEMINI_API_KEY`` for ``google``, ``GOOGLE_CLOUD_API_KEY`` for ``google-vertex``.

    ``OPENCODE_API_KEY`` for ``opencode`` (its Gemini models, pi-ai 0.73.1 ``getEnvApiKey``).

    Never pi-mono's ``"<authenticated>"`` marker: Vertex AI without a key uses Google Cloud
    credentials instead (pi-spec §7.2, §10.1 #15).
    """
    name = _ENV_KEYS.get(provider)
    return (os.environ.get(name) or None) if name else None

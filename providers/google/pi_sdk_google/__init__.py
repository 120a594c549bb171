"""pi-sdk provider plugin for Google: the Gemini API and Vertex AI.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`, with two wire APIs:

* ``google-generative-ai`` (provider ``google``, key ``GEMINI_API_KEY``): :mod:`.generative_ai`;
* ``google-vertex`` (provider ``google-vertex``, key ``GOOGLE_CLOUD_API_KEY`` or Google Cloud
  credentials): :mod:`.vertex`;

and the Gemini models of ``opencode`` and ``opencode-go``; the catalog is ``models.json`` (pi-ai
1.6.0's data, ``scripts/generate_models.py``). :func:`provider` configures one for a
:class:`pi_sdk.Models` collection. The wire code is imported on the first call (or replay), and
``google.genai`` later still, in a worker thread. See ``docs/providers/google.md``.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pi_sdk import provider as kit
from pi_sdk.provider import ApiProvider, HttpCall

if TYPE_CHECKING:  # annotations only
    from pi_sdk import AssistantMessage, Context, Model, StreamOptions

__all__ = [
    "ENV_API_KEYS",
    "GOOGLE_GENERATIVE_AI",
    "GOOGLE_VERTEX",
    "PROVIDERS",
    "call_google_generative_ai",
    "call_google_vertex",
    "count_gemini_tokens",
    "normalize_tool_call_id",
    "provider",
    "recognize_generative_ai",
    "recognize_vertex",
]

ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),  # its Gemini models (pi-ai 1.6)
    "opencode-go": ("OPENCODE_API_KEY",),
}
"""Environment variables holding each catalog provider's key (pi-ai 1.6 ``getEnvApiKey``).
Never pi-mono's ``"<authenticated>"`` marker: Vertex AI without a key uses Google Cloud
credentials instead (pi-spec §7.2, §10.1 #15)."""


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


async def count_gemini_tokens(model: Model, context: Context, options: StreamOptions) -> int:
    """The Gemini API's token count (:mod:`.generative_ai._count`, imported on first use)."""
    return await _wire("generative_ai._count").count_gemini_tokens(model, context, options)


GOOGLE_GENERATIVE_AI = ApiProvider(
    api="google-generative-ai",
    call=call_google_generative_ai,
    recognize=recognize_generative_ai,
    count_tokens=count_gemini_tokens,
)
"""The ``google-generative-ai`` implementation (its module imported on the first call)."""
GOOGLE_VERTEX = ApiProvider(
    api="google-vertex", call=call_google_vertex, recognize=recognize_vertex
)
"""The ``google-vertex`` implementation (its module imported on the first call)."""

PROVIDERS = kit.package_providers(
    __name__,
    apis=[GOOGLE_GENERATIVE_AI, GOOGLE_VERTEX],
    env=ENV_API_KEYS,
    names={"google": "Google Gemini", "google-vertex": "Google Vertex AI"},
)
"""Every provider of the catalog; the entry point names this tuple."""


provider = kit.provider_factory(PROVIDERS, "google")
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""

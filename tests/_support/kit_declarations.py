"""The conformance kit's declarations of pi-sdk's own provider packages (pi-sdk-pytest).

Each package's tests run the kit with two lines (``tests/providers/<vendor>/
test_<vendor>_conformance_kit.py``); what they declare is this table: the catalog model, the
path its base URL adds to the kit server's URL, the variable its key is read from (``None``:
``StreamOptions.api_key``), and recorded bodies under ``tests/providers/<vendor>/bodies/``.
Azure streams the Responses API's events and Vertex AI Gemini's chunks, so they replay those
packages' bodies.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_sdk_pytest import ProviderUnderTest, RecordedBody

import pi_sdk

PROVIDERS = Path(__file__).parents[1] / "providers"
EVENTSTREAM = "application/vnd.amazon.eventstream"

# api: provider, model id, base-URL path, key variable, bodies (vendor folder/file)
_TABLE: dict[str, tuple[str, str, str, str | None, tuple[str, ...]]] = {
    "anthropic-messages": (
        "anthropic", "claude-haiku-4-5", "", "ANTHROPIC_API_KEY",
        ("anthropic/text_stream.sse", "anthropic/tool_use_stream.sse"),
    ),
    "openai-completions": (
        "openai", "gpt-4o-mini", "/v1", "OPENAI_API_KEY", ("openai/completions_text_stream.sse",)
    ),
    "openai-responses": ("openai", "gpt-5", "/v1", None, ("openai/responses_text_stream.sse",)),
    "azure-openai-responses": (
        "azure-openai-responses", "gpt-4.1", "/openai/v1", "AZURE_OPENAI_API_KEY",
        ("openai/responses_text_stream.sse",),
    ),
    "google-generative-ai": (
        "google", "gemini-2.5-flash", "/v1beta", "GEMINI_API_KEY",
        ("google/text_stream.sse", "google/function_call_stream.sse"),
    ),
    "google-vertex": (
        "google-vertex", "gemini-2.5-flash", "/v1", "GOOGLE_CLOUD_API_KEY",
        ("google/text_stream.sse",),
    ),
    "mistral-conversations": (
        "mistral", "magistral-medium-latest", "", None, ("mistral/text_stream_short.sse",)
    ),
    "bedrock-converse-stream": (
        "amazon-bedrock", "anthropic.claude-haiku-4-5-20251001-v1:0", "",
        "AWS_BEARER_TOKEN_BEDROCK", ("bedrock/text_stream.bin",),
    ),
}  # fmt: skip


def _model(api: str, provider: str, model_id: str, path: str) -> Callable[[str], pi_sdk.Model]:
    def model(url: str) -> pi_sdk.Model:
        catalog = pi_sdk.get_model(provider, model_id)
        return catalog.model_copy(update={"api": api, "base_url": url + path})

    return model


def _body(name: str) -> RecordedBody:
    kind = EVENTSTREAM if name.endswith(".bin") else "text/event-stream; charset=utf-8"
    return RecordedBody.from_file(PROVIDERS / (name.replace("/", "/bodies/", 1)), kind)


def first_party(api: str) -> ProviderUnderTest:
    """The declaration of the package that speaks ``api`` (installed: its entry point)."""
    provider, model_id, path, key, bodies = _TABLE[api]
    return ProviderUnderTest(
        name=api,
        model=_model(api, provider, model_id, path),
        bodies=[_body(name) for name in bodies],
        api_key_env=key,
    )


SAME_DECODING = {
    "azure-openai-responses": "pi-sdk-openai's Responses decoding, cut at every byte there",
    "google-vertex": "the Gemini API's decoding, cut at every byte in its run",
}
"""APIs whose truncation rule is skipped: the same decoder and body as another run."""

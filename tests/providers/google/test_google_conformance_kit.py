"""pi-sdk-google passes the conformance kit (pi-sdk-pytest): the Gemini API and Vertex AI.

Vertex AI streams the same ``GenerateContentResponse`` chunks as the Gemini API; with an API
key (express mode) and a base URL ending in the API version it is called at ``<url>/v1``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk

REASON = "the Gemini API's decoding, which TestGeminiConformance cuts at every byte"
BODIES = Path(__file__).with_name("bodies")
TEXT = RecordedBody.from_file(BODIES / "text_stream.sse", "text/event-stream")


class TestGeminiConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="google-generative-ai",
        model=lambda url: pi_sdk.get_model("google", "gemini-2.5-flash").model_copy(
            update={"base_url": f"{url}/v1beta"}
        ),
        bodies=[
            TEXT,
            RecordedBody.from_file(BODIES / "function_call_stream.sse", "text/event-stream"),
        ],
        api_key_env="GEMINI_API_KEY",
    )


class TestVertexConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="google-vertex",
        model=lambda url: pi_sdk.get_model("google-vertex", "gemini-2.5-flash").model_copy(
            update={"base_url": f"{url}/v1"}
        ),
        bodies=[TEXT],
        api_key_env="GOOGLE_CLOUD_API_KEY",
    )

    @pytest.mark.skip(reason=f"the same code as {REASON}")
    def test_truncation_at_every_byte_ends_in_one_error(self) -> None: ...

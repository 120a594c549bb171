"""pi-sdk-azure passes the conformance kit (pi-sdk-pytest): Responses on Azure's v1 endpoint.

Azure streams the Responses API's events, so the body is OpenAI's recorded Responses stream.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk

REASON = "pi-sdk-openai's Responses decoding, which its own kit run cuts at every byte"
BODY = Path(__file__).parents[1] / "openai" / "bodies" / "responses_text_stream.sse"


class TestAzureResponsesConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="azure-openai-responses",
        model=lambda url: pi_sdk.get_model("azure-openai-responses", "gpt-4.1").model_copy(
            update={"base_url": f"{url}/openai/v1"}
        ),
        bodies=[RecordedBody.from_file(BODY, "text/event-stream; charset=utf-8")],
        api_key_env="AZURE_OPENAI_API_KEY",
    )

    @pytest.mark.skip(reason=f"the same code as {REASON}")
    def test_truncation_at_every_byte_ends_in_one_error(self) -> None: ...

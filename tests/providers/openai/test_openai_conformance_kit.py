"""pi-sdk-openai passes the conformance kit (pi-sdk-pytest) on both of its wire APIs."""

from __future__ import annotations

from pathlib import Path

from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk

BODIES = Path(__file__).with_name("bodies")
SSE = "text/event-stream; charset=utf-8"


class TestChatCompletionsConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="openai-completions",
        model=lambda url: pi_sdk.get_model("openai", "gpt-4o-mini").model_copy(
            update={"api": "openai-completions", "base_url": f"{url}/v1"}
        ),
        bodies=[RecordedBody.from_file(BODIES / "completions_text_stream.sse", SSE)],
        api_key_env="OPENAI_API_KEY",
    )


class TestResponsesConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="openai-responses",
        model=lambda url: pi_sdk.get_model("openai", "gpt-5").model_copy(
            update={"api": "openai-responses", "base_url": f"{url}/v1"}
        ),
        bodies=[RecordedBody.from_file(BODIES / "responses_text_stream.sse", SSE)],
    )

"""pi-sdk-anthropic passes the conformance kit (pi-sdk-pytest) on recorded Messages bodies."""

from __future__ import annotations

from pathlib import Path

from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk

BODIES = Path(__file__).with_name("bodies")
SSE = "text/event-stream; charset=utf-8"


class TestAnthropicConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="anthropic",
        model=lambda url: pi_sdk.get_model("anthropic", "claude-haiku-4-5").model_copy(
            update={"base_url": url}
        ),
        bodies=[
            RecordedBody.from_file(BODIES / "text_stream.sse", SSE),
            RecordedBody.from_file(BODIES / "tool_use_stream.sse", SSE),
        ],
        api_key_env="ANTHROPIC_API_KEY",
    )

"""pi-sdk-bedrock passes the conformance kit (pi-sdk-pytest) on recorded ConverseStream frames.

The body is binary ``application/vnd.amazon.eventstream`` frames, so the truncation rule also
cuts inside a frame's prelude, headers and CRC. The key is a Bedrock API key (a bearer token).
"""

from __future__ import annotations

from pathlib import Path

from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk

BODY = Path(__file__).with_name("bodies") / "text_stream.bin"
MODEL = "anthropic.claude-haiku-4-5-20251001-v1:0"


class TestBedrockConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="amazon-bedrock",
        model=lambda url: pi_sdk.get_model("amazon-bedrock", MODEL).model_copy(
            update={"base_url": url}
        ),
        bodies=[RecordedBody.from_file(BODY, "application/vnd.amazon.eventstream")],
        api_key_env="AWS_BEARER_TOKEN_BEDROCK",
    )

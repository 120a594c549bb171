"""pi-sdk-mistral passes the conformance kit (pi-sdk-pytest) on a recorded Mistral stream."""

from __future__ import annotations

from pathlib import Path

from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk

BODY = Path(__file__).with_name("bodies") / "text_stream_short.sse"


class TestMistralConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="mistral",
        model=lambda url: pi_sdk.get_model("mistral", "magistral-medium-latest").model_copy(
            update={"base_url": url}
        ),
        bodies=[RecordedBody.from_file(BODY, "text/event-stream; charset=utf-8")],
    )

"""The ``pi-messages`` provider passes the conformance kit (pi-sdk-pytest).

The body is what pi-ai 1.6's own parts stream for a tool-using reply (``node/pi16_proxy.mjs``,
its faux provider serialized in the ``PiMessagesEvent`` shape), saved once: signed thinking,
text and a tool call, with ``content`` on the block ends and ``toolCall`` on ``toolcall_end``.
"""

from __future__ import annotations

from pathlib import Path

from pi_sdk_pytest import ProviderConformance, ProviderUnderTest, RecordedBody

import pi_sdk
from pi_sdk._serve.pi_messages_client import PROVIDERS

BODY = Path(__file__).with_name("bodies") / "pi_messages_tool_use.sse"


def _model(url: str) -> pi_sdk.Model:
    return pi_sdk.Model(
        id="anthropic/claude-x", api="pi-messages", provider="pi-messages", base_url=f"{url}/v1"
    )


class TestPiMessagesConformance(ProviderConformance):
    provider = ProviderUnderTest(
        name="pi-messages",
        model=_model,
        bodies=[RecordedBody.from_file(BODY, "text/event-stream")],
        api_key_env=None,  # the key goes in StreamOptions.api_key (pi-ai: options.apiKey)
        plugin=PROVIDERS,
    )

"""Each provider stamps replies with the URL it actually called (pi_sdk.provider.signature_origin).

Core has no table of vendor endpoints: a model with an empty ``base_url`` goes wherever the
vendor SDK sends it (its default, or ``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL``), and the
provider passes that URL as the origin of the reply's signatures.
"""

from __future__ import annotations

import pytest
from _support.loopback import LoopbackServer, model_at, text_reply

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

ENV = {
    "anthropic-messages": ("ANTHROPIC_BASE_URL", ""),
    "openai-completions": ("OPENAI_BASE_URL", "/v1"),
    "openai-responses": ("OPENAI_BASE_URL", "/v1"),
}


@pytest.mark.parametrize("api", sorted(ENV))
async def test_origin_is_the_url_the_sdk_called(api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    variable, prefix = ENV[api]
    async with LoopbackServer([text_reply(api)]) as server:
        monkeypatch.setenv(variable, server.url + prefix)
        model = model_at(api, server.url).model_copy(update={"base_url": ""})
        context = Context(messages=[UserMessage(content="hi")])
        message = await pi_sdk.complete(model, context, StreamOptions(api_key="origin-key"))
        assert message.stop_reason == "stop", message.error_message
        assert len(server.requests) == 1
        assert message.signature_origin == f"{api}@{server.url}"

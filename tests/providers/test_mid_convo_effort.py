"""Mid-conversation effort (pi-ai 1.6 ``supportsMidConvoEffort``), over loopback servers.

On Anthropic and OpenAI Responses models with the flag, the requested effort goes in a marker
at the end of the request (an Anthropic ``system`` message with ``output_config.effort``, a
Responses ``configuration_update`` item), the reply records it as ``provider_thinking_level``,
and the next request puts that level back before the reply, so changing the level between
turns keeps the cached prefix. The bodies themselves are compared with pi-ai 1.6's in
``test_pi16_payloads.py`` (``effort-*`` cases).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.loopback import LoopbackServer, text_reply

import pi_sdk

CASES = {
    "anthropic-messages": ("anthropic", "claude-opus-5-5"),
    "openai-responses": ("openai", "gpt-6-sol"),
}


def _markers(api: str, body: dict[str, Any]) -> list[str]:
    """The effort of each marker in the request body, in order."""
    if api == "anthropic-messages":
        return [m["output_config"]["effort"] for m in body["messages"] if m["role"] == "system"]
    return [
        item["reasoning"]["effort"]
        for item in body["input"]
        if item.get("type") == "configuration_update"
    ]


@pytest.mark.parametrize("api", list(CASES))
async def test_a_level_change_between_turns_keeps_the_earlier_level_in_place(api: str):
    provider, model_id = CASES[api]
    async with LoopbackServer([text_reply(api, "One."), text_reply(api, "Two.")]) as server:
        model = pi_sdk.get_model(provider, model_id).model_copy(update={"base_url": server.url})
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="First?")])
        options = pi_sdk.StreamOptions(api_key="test-key", max_retries=0)
        first = await pi_sdk.complete(
            model, context, pi_sdk.StreamOptions(**{**vars(options), "reasoning": "low"})
        )
        assert first.stop_reason == "stop", first.error_message
        assert first.provider_thinking_level == "low"
        assert first.model_dump(by_alias=True)["providerThinkingLevel"] == "low"  # pi JSON

        context.messages += [first, pi_sdk.UserMessage(content="Second, think harder?")]
        second = await pi_sdk.complete(
            model, context, pi_sdk.StreamOptions(**{**vars(options), "reasoning": "high"})
        )
        assert second.provider_thinking_level == "high"
        bodies = [json.loads(body) for _, _, body in server.requests]
    assert _markers(api, bodies[0]) == ["low"]
    assert _markers(api, bodies[1]) == ["low", "high"]  # the first reply's level, then now's


async def test_a_model_without_the_flag_sends_no_marker_and_records_no_level():
    api = "anthropic-messages"
    async with LoopbackServer([text_reply(api)]) as server:
        model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
        model = model.model_copy(update={"base_url": server.url})
        reply = await pi_sdk.complete(
            model,
            pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Hi")]),
            pi_sdk.StreamOptions(api_key="test-key", max_retries=0, reasoning="high"),
        )
        [(_, _, body)] = server.requests
    assert reply.provider_thinking_level is None
    assert _markers(api, json.loads(body)) == []


async def test_thinking_turned_off_sends_no_marker_where_it_can_be_turned_off():
    api = "openai-responses"
    async with LoopbackServer([text_reply(api)]) as server:
        model = pi_sdk.get_model("openai", "gpt-6-sol").model_copy(update={"base_url": server.url})
        reply = await pi_sdk.complete(
            model,
            pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Hi")]),
            pi_sdk.StreamOptions(api_key="test-key", max_retries=0),
        )
        [(_, _, body)] = server.requests
    assert reply.provider_thinking_level is None
    assert json.loads(body)["reasoning"] == {"effort": "none"}
